import LocationCore
import LocationServices

/// Regions to and from files: Lodestar's regions JSON (docs/services.md) or GeoJSON (RFC 7946): a FeatureCollection
/// of Point features whose properties carry `identifier` (or `id`/`name`) and `radius` (metres; or `radiusMeters`),
/// optionally `notifyOnEntry`, `notifyOnExit`, `initialState`.
public enum RegionIO {
    public struct FormatError: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Parses either format (a JSON array is Lodestar's; an object with `"type"` is GeoJSON).
    public static func parse(_ bytes: [UInt8]) throws(FormatError) -> [CircularRegion] {
        let root: JSONValue
        do { root = try JSONValue.parse(bytes) } catch { throw FormatError(message: error.description) }
        if root.array != nil {
            do { return try RegionFile.parse(bytes) } catch { throw FormatError(message: error.message) }
        }
        guard case .object = root, let type = root["type"]?.string else {
            throw FormatError(message: "expected a JSON array of regions or a GeoJSON FeatureCollection")
        }
        let features: [JSONValue]
        switch type {
        case "FeatureCollection": features = root["features"]?.array ?? []
        case "Feature": features = [root]
        default: throw FormatError(message: "GeoJSON \(type): expected a FeatureCollection of Point features")
        }
        // Convert to the regions-file form and let RegionFile validate it (one set of rules).
        var items: [String] = []
        for (k, f) in features.enumerated() {
            guard let g = f["geometry"], g["type"]?.string == "Point", let c = g["coordinates"]?.array, c.count >= 2,
                  let lon = c[0].number, let lat = c[1].number else {
                throw FormatError(message: "feature \(k): needs a Point geometry with [longitude, latitude]")
            }
            let p = f["properties"]
            guard let id = p?["identifier"]?.string ?? p?["id"]?.string ?? p?["name"]?.string ?? f["id"]?.string else {
                throw FormatError(message: "feature \(k): needs an \"identifier\" property")
            }
            guard let radius = p?["radius"]?.number ?? p?["radiusMeters"]?.number else {
                throw FormatError(message: "feature \(k): needs a \"radius\" property (metres)")
            }
            var item = "{\"identifier\":\(jsonString(id)),\"latitude\":\(num(lat)),\"longitude\":\(num(lon)),\"radius\":\(num(radius))"
            for key in ["notifyOnEntry", "notifyOnExit"] { if let b = p?[key]?.bool { item += ",\"\(key)\":\(b)" } }
            if let s = p?["initialState"]?.string { item += ",\"initialState\":\(jsonString(s))" }
            items.append(item + "}")
        }
        do { return try RegionFile.parse(Array(("[" + items.joined(separator: ",") + "]").utf8)) }
        catch { throw FormatError(message: error.message) }
    }

    /// GeoJSON FeatureCollection of the regions (Point + radius), readable by `parse` and GIS tools.
    public static func geoJSON(_ regions: [CircularRegion]) -> String {
        var s = "{\"type\":\"FeatureCollection\",\"features\":[\n"
        for (k, r) in regions.enumerated() {
            s += "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(fmt(r.center.longitudeDegrees, 7)),\(fmt(r.center.latitudeDegrees, 7))]},"
            s += "\"properties\":{\"identifier\":\(jsonString(r.identifier)),\"radius\":\(num(r.radiusMeters)),"
            s += "\"notifyOnEntry\":\(r.notifyOnEntry),\"notifyOnExit\":\(r.notifyOnExit),\"initialState\":\"\(r.assumedState.rawValue)\"}}"
            s += k == regions.count - 1 ? "\n" : ",\n"
        }
        return s + "]}\n"
    }

    static func num(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : fmt(v, 7)
    }
}

extension MapRecorder {
    public static func regions(_ list: [CircularRegion]) -> [MapRegion] {
        list.map { MapRegion(identifier: $0.identifier, latitudeDegrees: $0.center.latitudeDegrees,
                             longitudeDegrees: $0.center.longitudeDegrees, radiusMeters: $0.radiusMeters) }
    }
}

/// A JSON string literal (the project's one escaper).
func jsonString(_ s: String) -> String { JSONText.quoted(s) }
