#if canImport(Glibc)
import Glibc
#endif

/// A point in geocentric spherical coordinates, with what the field rotation back to geodetic axes needs.
/// Angles are kept as sines and cosines: the model never needs the angles themselves.
public struct GeocentricPosition: Sendable, Hashable {
    /// The WGS84 ellipsoid from its two defining parameters (NIMA TR8350.2): semi-major axis and inverse
    /// flattening. e² is derived from them, so the conversion is exact WGS84. (NOAA's geomag C code derives e²
    /// from b = 6356.7523142 km, rounded to 0.1 mm; that changes the field by up to 1.4e-6 nT, which NCEI's
    /// 100-point test file, printed with 6 decimals, can tell apart: it was made with the exact ellipsoid.)
    public static let wgs84SemiMajorAxisKilometers = 6378.137
    public static let wgs84InverseFlattening = 298.257223563
    /// e² = f (2 − f).
    public static let wgs84EccentricitySquared = (2 - 1 / wgs84InverseFlattening) / wgs84InverseFlattening

    /// Distance from the centre of the Earth.
    public var radiusKilometers: Double
    /// sin and cos of the geocentric (spherical) latitude φ′. cos φ′ ≥ 0 (≈ 6e-17 at the poles, never negative).
    public var sinLatitude: Double
    public var cosLatitude: Double
    /// sin and cos of ψ = φ′ − φ, the angle from the geodetic to the geocentric vertical (|ψ| ≤ 0.2°).
    public var sinPsi: Double
    public var cosPsi: Double

    /// The geocentric latitude φ′ in degrees.
    public var latitudeDegrees: Double { atan2(sinLatitude, cosLatitude) * (180 / Double.pi) }

    /// Exact conversion from geodetic latitude and height above the WGS84 ellipsoid (WMM report eq. 7):
    ///   N = a / √(1 − e² sin²φ),  p = (N + h) cos φ,  z = (N (1 − e²) + h) sin φ,  r = √(p² + z²),
    ///   sin φ′ = z / r,  cos φ′ = p / r.
    public init(geodeticLatitudeDegrees latitude: Double, heightAboveEllipsoidKilometers height: Double) {
        let phi = latitude * (Double.pi / 180)
        let sinPhi = sin(phi)
        let cosPhi = cos(phi)
        let e2 = Self.wgs84EccentricitySquared
        let n = Self.wgs84SemiMajorAxisKilometers / (1 - e2 * sinPhi * sinPhi).squareRoot()
        let p = (n + height) * cosPhi
        let z = (n * (1 - e2) + height) * sinPhi
        let r = (p * p + z * z).squareRoot()
        radiusKilometers = r
        sinLatitude = z / r
        cosLatitude = p / r
        sinPsi = sinLatitude * cosPhi - cosLatitude * sinPhi
        cosPsi = cosLatitude * cosPhi + sinLatitude * sinPhi
    }
}
