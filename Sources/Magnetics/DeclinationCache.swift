#if canImport(Glibc)
import Glibc
#endif
import LocationCore

/// Per-sample true-north correction without a model evaluation per sample: remembers the last evaluation and
/// answers from it until the position or date has moved enough to matter. A check costs a few nanoseconds.
///
/// Recomputes when any of these exceeds its threshold (defaults in `Thresholds.default`):
/// - distance from the cached point (north, east and up; equirectangular estimate) — 1 km;
/// - time — 1 day;
/// - rotation of the local meridian, |Δλ · sin φ| — 0.01°. Declination is measured from the meridian, so near a
///   pole it changes with longitude even over a few metres; this bound keeps the cache correct there.
/// A non-finite input always recomputes (and so yields NaN), never a stale value.
public struct DeclinationCache: Sendable {
    public struct Thresholds: Sendable, Hashable {
        public var distanceMeters: Double
        public var days: Double
        public var meridianRotationDegrees: Double

        public init(distanceMeters: Double, days: Double, meridianRotationDegrees: Double) {
            self.distanceMeters = distanceMeters; self.days = days; self.meridianRotationDegrees = meridianRotationDegrees
        }

        public static let `default` = Thresholds(distanceMeters: 1000, days: 1, meridianRotationDegrees: 0.01)
    }

    public let model: WorldMagneticModel
    public let thresholds: Thresholds
    /// The last evaluation, if any.
    public private(set) var cached: MagneticFieldElements?
    /// How many times the model was evaluated (for tests and statistics).
    public private(set) var evaluationCount = 0

    private var latitude = 0.0, longitude = 0.0, height = 0.0, year = 0.0
    private var metersPerDegreeEast = 0.0, sinLatitude = 0.0
    private let distanceSquared: Double
    private let years: Double

    /// Mean length of a degree of latitude; 1 % error at most, which a 1 km threshold does not notice.
    private static let metersPerDegree = 111_320.0

    public init(model: WorldMagneticModel = .wmm2025, thresholds: Thresholds = .default) {
        self.model = model
        self.thresholds = thresholds
        distanceSquared = thresholds.distanceMeters * thresholds.distanceMeters
        years = thresholds.days / 365.25
    }

    /// The elements at this position and time, from the cache when close enough to the last evaluation.
    public mutating func elements(latitudeDegrees: Double, longitudeDegrees: Double,
                                  heightAboveEllipsoidKilometers: Double, decimalYear: Double) -> MagneticFieldElements {
        if let cached {
            var dLon = (longitudeDegrees - longitude).truncatingRemainder(dividingBy: 360)
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            let north = (latitudeDegrees - latitude) * Self.metersPerDegree
            let east = dLon * metersPerDegreeEast
            let up = (heightAboveEllipsoidKilometers - height) * 1000
            let d2 = north * north + east * east + up * up
            // Written so that NaN fails every test and recomputes.
            if d2 <= distanceSquared, abs(decimalYear - year) <= years,
               abs(dLon * sinLatitude) <= thresholds.meridianRotationDegrees {
                return cached
            }
        }
        let e = model.field(latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees,
                            heightAboveEllipsoidKilometers: heightAboveEllipsoidKilometers, decimalYear: decimalYear)
        latitude = latitudeDegrees; longitude = longitudeDegrees
        height = heightAboveEllipsoidKilometers; year = decimalYear
        let phi = latitudeDegrees * (Double.pi / 180)
        metersPerDegreeEast = Self.metersPerDegree * cos(phi)
        sinLatitude = sin(phi)
        cached = e
        evaluationCount += 1
        return e
    }

    /// Declination (degrees, east positive) at this position and time.
    public mutating func declinationDegrees(latitudeDegrees: Double, longitudeDegrees: Double,
                                            heightAboveEllipsoidKilometers: Double, decimalYear: Double) -> Double {
        elements(latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees,
                 heightAboveEllipsoidKilometers: heightAboveEllipsoidKilometers, decimalYear: decimalYear).declinationDegrees
    }

    /// True heading from a magnetic heading with the last declination, in [0, 360); NaN before any evaluation.
    public func trueHeadingDegrees(magneticHeadingDegrees: Double) -> Double {
        guard let cached else { return .nan }
        return Angle.normalizedDegrees(magneticHeadingDegrees + cached.declinationDegrees)
    }
}
