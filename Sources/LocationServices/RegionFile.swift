import LocationCore

/// The regions file of `--regions FILE` (docs/services.md): a JSON array of objects
///
///     [{"identifier": "depot", "latitude": 37.3861, "longitude": -122.0839, "radius": 150,
///       "notifyOnEntry": true, "notifyOnExit": true}]
///
/// `identifier` (non-empty string, unique), `latitude` (−90…90), `longitude` (−180…180) and `radius` (metres,
/// > 0 and ≤ 1 000 000) are required; `notifyOnEntry` / `notifyOnExit` default to true; `initialState` ("unknown",
/// "inside", "outside") defaults to "unknown".
public enum RegionFile {
    public struct FormatError: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    public static func parse(_ bytes: [UInt8]) throws(FormatError) -> [CircularRegion] {
        let root: JSONValue
        do { root = try JSONValue.parse(bytes) } catch { throw FormatError(message: error.description) }
        guard let items = root.array else { throw FormatError(message: "expected a JSON array of regions") }
        var seen = Set<String>()
        var out: [CircularRegion] = []
        out.reserveCapacity(items.count)
        for (k, item) in items.enumerated() {
            func bad(_ m: String) -> FormatError { FormatError(message: "region \(k): \(m)") }
            guard case .object = item else { throw bad("expected an object") }
            guard let id = item["identifier"]?.string, !id.isEmpty else { throw bad("needs a non-empty \"identifier\" string") }
            guard seen.insert(id).inserted else { throw bad("duplicate identifier \"\(id)\"") }
            guard let lat = item["latitude"]?.number, (-90...90).contains(lat) else { throw bad("\"latitude\" must be a number in -90…90") }
            guard let lon = item["longitude"]?.number, (-180...180).contains(lon) else { throw bad("\"longitude\" must be a number in -180…180") }
            guard let radius = item["radius"]?.number, radius > 0, radius <= 1_000_000 else {
                throw bad("\"radius\" must be a number of metres in (0, 1000000]")
            }
            func flag(_ key: String) throws(FormatError) -> Bool {
                guard let v = item[key] else { return true }
                guard let b = v.bool else { throw bad("\"\(key)\" must be true or false") }
                return b
            }
            var assumed = RegionState.unknown
            if let v = item["initialState"] {
                guard let s = v.string.flatMap(RegionState.init(rawValue:)) else {
                    throw bad("\"initialState\" must be \"unknown\", \"inside\" or \"outside\"")
                }
                assumed = s
            }
            out.append(CircularRegion(identifier: id, center: Coordinate(latitudeDegrees: lat, longitudeDegrees: lon),
                                      radiusMeters: radius, notifyOnEntry: try flag("notifyOnEntry"),
                                      notifyOnExit: try flag("notifyOnExit"), assumedState: assumed))
        }
        return out
    }
}
