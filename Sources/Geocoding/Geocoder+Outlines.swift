import Synchronization

/// The bundled polygons as outlines, for drawing a base map (`lodestar map`).
///
/// A region layer stores its vertices ring after ring, each ring closed (last vertex = first), in micro-degrees
/// (longitude, latitude). The rings are recovered by walking that array: a ring ends at the first repeat of its
/// starting vertex.
public struct OutlineRing: Sendable {
    /// (longitude, latitude) in degrees, closed (last = first).
    public var points: [(longitude: Double, latitude: Double)]
    public var minLongitude: Double, maxLongitude: Double, minLatitude: Double, maxLatitude: Double
}

public enum OutlineLayer: Sendable {
    /// Natural Earth admin-0 countries (land and borders), simplified to ~280 m.
    case countries
    /// Natural Earth marine polygons (seas, bays, oceans), simplified to ~280 m.
    case marine
}

extension Geocoder {
    /// The rings of `layer` whose bounding box meets the given box (degrees). Longitudes are not wrapped.
    public func outlineRings(_ layer: OutlineLayer, minLatitude: Double, maxLatitude: Double,
                             minLongitude: Double, maxLongitude: Double) -> [OutlineRing] {
        let index = layer == .countries ? db.countryRingIndex : db.marineRingIndex
        let vertices = layer == .countries ? db.countryLayer.vertices : db.marineLayer.vertices
        var out: [OutlineRing] = []
        for r in index where r.maxLon >= minLongitude && r.minLon <= maxLongitude
            && r.maxLat >= minLatitude && r.minLat <= maxLatitude {
            var pts: [(longitude: Double, latitude: Double)] = []
            pts.reserveCapacity(r.end - r.start)
            for v in r.start..<r.end {
                pts.append((Double(vertices[2 * v]) / 1e6, Double(vertices[2 * v + 1]) / 1e6))
            }
            out.append(OutlineRing(points: pts, minLongitude: r.minLon, maxLongitude: r.maxLon,
                                   minLatitude: r.minLat, maxLatitude: r.maxLat))
        }
        return out
    }

    /// Number of rings and vertices in a layer (tests, docs).
    public func outlineStatistics(_ layer: OutlineLayer) -> (rings: Int, vertices: Int) {
        let index = layer == .countries ? db.countryRingIndex : db.marineRingIndex
        return (index.count, index.reduce(0) { $0 + $1.end - $1.start })
    }
}

/// One ring of a layer's vertex array: [start, end) vertex indices and its bounding box in degrees.
struct RingSpan: Sendable {
    var start: Int, end: Int
    var minLon: Double, maxLon: Double, minLat: Double, maxLat: Double

    /// Splits a layer's vertex array into its closed rings (computed on first use, ~1 ms for 400k vertices).
    static func rings(of layer: RegionLayer) -> [RingSpan] {
        let v = layer.vertices
        let n = v.count / 2
        var out: [RingSpan] = []
        var s = 0
        while s < n {
            let x0 = v[2 * s], y0 = v[2 * s + 1]
            var minX = x0, maxX = x0, minY = y0, maxY = y0
            var j = s + 1
            while j < n {
                let x = v[2 * j], y = v[2 * j + 1]
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                if x == x0 && y == y0 { break }
                j += 1
            }
            let end = min(j + 1, n)
            if end - s >= 4 {
                out.append(RingSpan(start: s, end: end, minLon: Double(minX) / 1e6, maxLon: Double(maxX) / 1e6,
                                    minLat: Double(minY) / 1e6, maxLat: Double(maxY) / 1e6))
            }
            s = end
        }
        return out
    }
}

/// Rings of the country and marine layers, computed on first use (a map needs them; reverse geocoding does not).
final class OutlineCache: Sendable {
    private let countries = Mutex<[RingSpan]?>(nil)
    private let marine = Mutex<[RingSpan]?>(nil)

    func rings(_ layer: OutlineLayer, of db: GeoDatabase) -> [RingSpan] {
        func cachedRings(_ m: borrowing Mutex<[RingSpan]?>, _ l: RegionLayer) -> [RingSpan] {
            m.withLock { cached in
                if let cached { return cached }
                let r = RingSpan.rings(of: l)
                cached = r
                return r
            }
        }
        return layer == .countries ? cachedRings(countries, db.countryLayer) : cachedRings(marine, db.marineLayer)
    }
}

extension GeoDatabase {
    var countryRingIndex: [RingSpan] { outlines.rings(.countries, of: self) }
    var marineRingIndex: [RingSpan] { outlines.rings(.marine, of: self) }
}
