/// The project's shared geodesy vocabulary (one copy, in LocationCore): a coordinate, great-circle distance,
/// and Core Location's time sentinels.

/// A position on the WGS84 ellipsoid, degrees.
public struct Coordinate: Sendable, Hashable {
    public var latitudeDegrees: Double
    public var longitudeDegrees: Double
    public init(latitudeDegrees: Double, longitudeDegrees: Double) {
        self.latitudeDegrees = latitudeDegrees
        self.longitudeDegrees = longitudeDegrees
    }

    public var isValid: Bool {
        latitudeDegrees.isFinite && longitudeDegrees.isFinite && abs(latitudeDegrees) <= 90 && abs(longitudeDegrees) <= 360
    }
}

/// Distances on a sphere of the WGS84 mean radius (haversine): within 0.5 % of the ellipsoidal distance, which is
/// far below the accuracy of any fix these services act on.
public enum Geo {
    public static let earthRadiusMeters = 6_371_008.8
    public static let metersPerDegreeLatitude = earthRadiusMeters * Double.pi / 180

    @inline(__always)
    public static func distanceMeters(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let r = Double.pi / 180
        let dLat = (lat2 - lat1) * r
        let dLon = (lon2 - lon1) * r
        let s1 = _sin(dLat / 2), s2 = _sin(dLon / 2)
        let a = s1 * s1 + _cos(lat1 * r) * _cos(lat2 * r) * s2 * s2
        return 2 * earthRadiusMeters * _asin(Swift.min(1, a.squareRoot()))
    }

    @inline(__always)
    public static func distanceMeters(_ a: Coordinate, _ b: Coordinate) -> Double {
        distanceMeters(a.latitudeDegrees, a.longitudeDegrees, b.latitudeDegrees, b.longitudeDegrees)
    }

    /// Glibc's cos (for modules that do not import Glibc themselves).
    @inline(__always)
    public static func cosine(_ x: Double) -> Double { _cos(x) }

    /// A point `north`/`east` metres from `origin` (flat-earth offset; for tests and simulations of short tracks).
    public static func offset(_ origin: Coordinate, northMeters: Double, eastMeters: Double) -> Coordinate {
        let lat = origin.latitudeDegrees + northMeters / metersPerDegreeLatitude
        let lon = origin.longitudeDegrees
            + eastMeters / (metersPerDegreeLatitude * _cos(origin.latitudeDegrees * Double.pi / 180))
        return Coordinate(latitudeDegrees: lat, longitudeDegrees: lon)
    }
}

extension Location {
    /// The fix's position when it has one (a 2D/3D fix with finite latitude and longitude).
    public var coordinate: Coordinate? {
        guard mode == .twoD || mode == .threeD, let lat = latitudeDegrees, let lon = longitudeDegrees,
              lat.isFinite, lon.isFinite else { return nil }
        return Coordinate(latitudeDegrees: lat, longitudeDegrees: lon)
    }
}

extension Timestamp {
    /// Core Location's `Date.distantFuture` for a visit's departure that has not happened yet. Encoded in JSON as
    /// "4001-01-01T00:00:00.000Z" (the instant itself is out of this type's range, so the sentinel is Int64.max).
    public static let distantFuture = Timestamp(nanosecondsSince1970: .max)
    /// Core Location's `Date.distantPast` for an arrival that was not observed (the session started during the
    /// visit). Encoded in JSON as "0001-01-01T00:00:00.000Z".
    public static let distantPast = Timestamp(nanosecondsSince1970: .min)

    /// Seconds from `self` to `later` (negative when `later` is earlier).
    @inline(__always)
    public func seconds(to later: Timestamp) -> Double {
        Double(later.nanosecondsSince1970 &- nanosecondsSince1970) / 1e9
    }

    public func adding(seconds: Double) -> Timestamp { adding(nanoseconds: Int64((seconds * 1e9).rounded())) }
}

#if canImport(Glibc)
import Glibc
@inline(__always) func _sin(_ x: Double) -> Double { Glibc.sin(x) }
@inline(__always) func _cos(_ x: Double) -> Double { Glibc.cos(x) }
@inline(__always) func _asin(_ x: Double) -> Double { Glibc.asin(x) }
#elseif canImport(Darwin)
import Darwin
@inline(__always) func _sin(_ x: Double) -> Double { Darwin.sin(x) }
@inline(__always) func _cos(_ x: Double) -> Double { Darwin.cos(x) }
@inline(__always) func _asin(_ x: Double) -> Double { Darwin.asin(x) }
#endif
