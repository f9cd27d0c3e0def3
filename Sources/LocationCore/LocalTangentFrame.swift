#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// A local east-north tangent plane anchored at one latitude/longitude (WGS84 radii of curvature at the anchor).
/// The mapping is linear in degrees, so to-plane and back are exact inverses; distances are correct to a few parts
/// in 10⁴ within ~10 km of the anchor, which is why `PositionSmoother` re-anchors beyond `reanchorDistanceMeters`.
public struct LocalTangentFrame: Sendable, Hashable {
    public let anchorLatitudeDegrees: Double
    public let anchorLongitudeDegrees: Double
    let metersPerDegreeNorth: Double
    let metersPerDegreeEast: Double

    public init(latitudeDegrees: Double, longitudeDegrees: Double) {
        anchorLatitudeDegrees = latitudeDegrees
        anchorLongitudeDegrees = longitudeDegrees
        let a = 6_378_137.0, e2 = 6.694_379_990_14e-3
        let phi = latitudeDegrees * .pi / 180
        let s = sin(phi)
        let w = (1 - e2 * s * s).squareRoot()
        let meridian = a * (1 - e2) / (w * w * w)
        let normal = a / w
        metersPerDegreeNorth = meridian * .pi / 180
        metersPerDegreeEast = normal * cos(phi) * .pi / 180
    }

    /// East and north metres of a point from the anchor.
    public func enu(latitudeDegrees: Double, longitudeDegrees: Double) -> (east: Double, north: Double) {
        var dLon = longitudeDegrees - anchorLongitudeDegrees
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        return (dLon * metersPerDegreeEast, (latitudeDegrees - anchorLatitudeDegrees) * metersPerDegreeNorth)
    }

    public func geodetic(east: Double, north: Double) -> (latitudeDegrees: Double, longitudeDegrees: Double) {
        var lon = anchorLongitudeDegrees + east / metersPerDegreeEast
        if lon > 180 { lon -= 360 } else if lon <= -180 { lon += 360 }
        return (anchorLatitudeDegrees + north / metersPerDegreeNorth, lon)
    }

    /// Horizontal distance between two points, metres (tangent plane at the first point).
    public static func distanceMeters(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let f = LocalTangentFrame(latitudeDegrees: lat1, longitudeDegrees: lon1)
        let d = f.enu(latitudeDegrees: lat2, longitudeDegrees: lon2)
        return (d.east * d.east + d.north * d.north).squareRoot()
    }
}
