#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Local east/north offsets to latitude/longitude: a first-order local approximation on the WGS84 ellipsoid,
/// using the meridian (M) and prime-vertical (N) radii of curvature at the origin,
/// lat = lat0 + north / (M + h), lon = lon0 + east / ((N + h) cos lat0). The neglected terms grow as d²/R:
/// well under a metre within about 3 km of the origin, a few metres at 10 km. Truth and reported positions go
/// through the same mapping, so the simulated errors are exactly the injected ones.
///
/// Not LocationCore's `LocalTangentFrame`: that one has no height term and works per degree with another
/// rounding of the same constants, so its positions differ in the last bits. Switching would change every byte
/// of every simulated capture (captures/simulated-drive.lcap, the goldens, the tests' truth); this mapping is
/// part of what a seed means.
struct LocalTangentPlane {
    let latitude0: Double, longitude0: Double
    let metersPerRadianNorth: Double, metersPerRadianEast: Double

    init(latitudeDegrees: Double, longitudeDegrees: Double, ellipsoidHeightMeters h: Double) {
        latitude0 = latitudeDegrees
        longitude0 = longitudeDegrees
        let a = 6_378_137.0, f = 1 / 298.257_223_563
        let e2 = f * (2 - f)
        let phi = latitudeDegrees * Double.pi / 180
        let w = (1 - e2 * sin(phi) * sin(phi)).squareRoot()
        metersPerRadianNorth = a * (1 - e2) / (w * w * w) + h
        metersPerRadianEast = (a / w + h) * cos(phi)
    }

    func geodetic(east: Double, north: Double) -> (latitude: Double, longitude: Double) {
        let lat = latitude0 + north / metersPerRadianNorth * 180 / Double.pi
        var lon = longitude0 + east / metersPerRadianEast * 180 / Double.pi
        if lon >= 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        return (lat, lon)
    }
}
