#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Spherical ("Web") Mercator, EPSG:3857, as used by slippy-map tiles: at zoom z the world is a square of
/// 256·2^z pixels, x growing east from longitude −180°, y growing south from latitude +85.0511°.
public enum WebMercator {
    /// The latitude where the projected world becomes square (atan(sinh π)).
    public static let maximumLatitude = 85.051_128_779_806_59
    /// Equatorial radius of the sphere EPSG:3857 uses (WGS84 semi-major axis), metres.
    public static let earthRadiusMeters = 6_378_137.0
    public static let tileSize = 256.0

    /// World pixel coordinates at a (possibly fractional) zoom.
    public static func pixel(latitude: Double, longitude: Double, zoom: Double) -> (x: Double, y: Double) {
        let size = tileSize * pow(2, zoom)
        let (u, v) = unit(latitude: latitude, longitude: longitude)
        return (u * size, v * size)
    }

    /// Position in the unit square: (0, 0) at (85.05°N, 180°W), (1, 1) at (85.05°S, 180°E).
    public static func unit(latitude: Double, longitude: Double) -> (u: Double, v: Double) {
        let lat = min(max(latitude, -maximumLatitude), maximumLatitude) * .pi / 180
        let u = (longitude + 180) / 360
        let v = (1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2
        return (u, v)
    }

    /// Inverse of `pixel`.
    public static func coordinate(x: Double, y: Double, zoom: Double) -> (latitude: Double, longitude: Double) {
        let size = tileSize * pow(2, zoom)
        let lon = x / size * 360 - 180
        let lat = atan(sinh(.pi * (1 - 2 * y / size))) * 180 / .pi
        return (lat, lon)
    }

    /// The slippy-map tile (x, y) holding a point at an integer zoom.
    public static func tile(latitude: Double, longitude: Double, zoom: Int) -> (x: Int, y: Int) {
        let p = pixel(latitude: latitude, longitude: longitude, zoom: Double(zoom))
        let n = 1 << zoom
        return (min(max(Int(floor(p.x / tileSize)), 0), n - 1), min(max(Int(floor(p.y / tileSize)), 0), n - 1))
    }

    /// Projected EPSG:3857 metres (easting, northing).
    public static func meters(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        let lat = min(max(latitude, -maximumLatitude), maximumLatitude) * .pi / 180
        return (earthRadiusMeters * longitude * .pi / 180, earthRadiusMeters * log(tan(.pi / 4 + lat / 2)))
    }

    /// Ground metres per pixel at a latitude and zoom.
    public static func metersPerPixel(latitude: Double, zoom: Double) -> Double {
        2 * .pi * earthRadiusMeters * cos(latitude * .pi / 180) / (tileSize * pow(2, zoom))
    }
}

/// A view of the map: a zoom and the world-pixel origin of the top-left corner, `width`×`height` pixels.
public struct MapViewport: Sendable, Equatable {
    public var zoom: Double
    public var originX: Double
    public var originY: Double
    public var width: Double
    public var height: Double

    public init(zoom: Double, originX: Double, originY: Double, width: Double, height: Double) {
        self.zoom = zoom; self.originX = originX; self.originY = originY; self.width = width; self.height = height
    }

    /// The largest zoom (≤ `maximumZoom`) at which the box fits inside `width`×`height` less `margin` on each side,
    /// centred.
    public init(fitting box: BoundingBox, width: Double, height: Double, margin: Double = 40, maximumZoom: Double = 19) {
        let a = WebMercator.unit(latitude: box.maxLatitude, longitude: box.minLongitude)
        let b = WebMercator.unit(latitude: box.minLatitude, longitude: box.maxLongitude)
        let du = max(b.u - a.u, 1e-12), dv = max(b.v - a.v, 1e-12)
        let usableW = max(width - 2 * margin, 1), usableH = max(height - 2 * margin, 1)
        let scale = min(usableW / (du * WebMercator.tileSize), usableH / (dv * WebMercator.tileSize))
        let zoom = min(log2(scale), maximumZoom)
        let size = WebMercator.tileSize * pow(2, zoom)
        let cx = (a.u + b.u) / 2 * size, cy = (a.v + b.v) / 2 * size
        self.init(zoom: zoom, originX: cx - width / 2, originY: cy - height / 2, width: width, height: height)
    }

    /// Viewport pixel of a coordinate.
    public func point(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        let p = WebMercator.pixel(latitude: latitude, longitude: longitude, zoom: zoom)
        return (p.x - originX, p.y - originY)
    }

    public func coordinate(x: Double, y: Double) -> (latitude: Double, longitude: Double) {
        WebMercator.coordinate(x: x + originX, y: y + originY, zoom: zoom)
    }

    /// The coordinates the viewport covers.
    public var bounds: BoundingBox {
        let nw = coordinate(x: 0, y: 0), se = coordinate(x: width, y: height)
        return BoundingBox(minLatitude: se.latitude, maxLatitude: nw.latitude, minLongitude: nw.longitude, maxLongitude: se.longitude)
    }

    public func metersPerPixel(latitude: Double) -> Double { WebMercator.metersPerPixel(latitude: latitude, zoom: zoom) }
}

public struct BoundingBox: Sendable, Equatable {
    public var minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double
    public init(minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude; self.maxLatitude = maxLatitude
        self.minLongitude = minLongitude; self.maxLongitude = maxLongitude
    }
    /// Grows the box to hold a point.
    public mutating func include(latitude: Double, longitude: Double) {
        minLatitude = min(minLatitude, latitude); maxLatitude = max(maxLatitude, latitude)
        minLongitude = min(minLongitude, longitude); maxLongitude = max(maxLongitude, longitude)
    }
    public static let empty = BoundingBox(minLatitude: .infinity, maxLatitude: -.infinity, minLongitude: .infinity, maxLongitude: -.infinity)
    public var isEmpty: Bool { minLatitude > maxLatitude }
}
