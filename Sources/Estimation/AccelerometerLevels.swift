#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// How quiet this board's accelerometer is at rest and how loud while the vehicle drives, as the GNSS shows them: the
/// running medians of the specific-force magnitude's variance (over `accelerometerWindowSeconds`) at the fixes where
/// the GNSS speed (the receiver's, or the positions' without one) says standing, and where it says driving
/// (≥ `drivingSpeedMetersPerSecond`). Between fixes and through outages the accelerometer then says "still" below
/// their geometric mean, and only where the two are apart by `minimumSeparation` or more: a vehicle whose engine at
/// idle shakes the board as much as the road does gives no stillness at all, rather than a wrong one.
///
/// Plain numbers (two running medians, steps of 1/n at first, then 5 %, as for the Doppler noise).
struct AccelerometerLevels: Sendable, Hashable {
    /// Speeds at or above this (m/s) are driving: below it a vehicle may roll too slowly to shake the board.
    static let drivingSpeedMetersPerSecond = 3.0
    /// How far apart (a ratio of variances: 3.2 in σ) rest and driving must be before the accelerometer says "still".
    /// At 5 (road vibration 0.04 m/s² per axis against sensor noise 0.02) single 1 s windows while driving fell below
    /// the threshold, and a dead-reckoned step stopped a car at 13 m/s.
    static let minimumSeparation = 10.0
    /// Fixes of each kind before the levels are used.
    static let minimumCount = 20

    var rest = Double.nan, restCount = 0
    var driving = Double.nan, drivingCount = 0

    /// One fix's accelerometer variance `v` ((m/s²)²) with the GNSS's word on the motion: `standing` (its speed at
    /// most the enter speed) or its speed `speed` (m/s).
    mutating func learn(variance v: Double, standing: Bool, speed: Double) {
        guard v.isFinite, v >= 0 else { return }
        let x = Swift.max(v, 1e-12)
        if standing {
            restCount += 1
            Self.step(&rest, toward: x, count: restCount)
        } else if speed >= Self.drivingSpeedMetersPerSecond {
            drivingCount += 1
            Self.step(&driving, toward: x, count: drivingCount)
        }
    }

    private static func step(_ m: inout Double, toward x: Double, count n: Int) {
        if m.isNaN { m = x; return }
        let s = n >= 20 ? exp(0.05) : exp(1 / Double(n))
        m *= x > m ? s : 1 / s
    }

    /// Both levels are known (enough fixes of each).
    var known: Bool { restCount >= Self.minimumCount && drivingCount >= Self.minimumCount }

    /// The variance ((m/s²)²) below which the accelerometer says the vehicle stands, nil until both levels are known
    /// and apart.
    var stillThreshold: Double? {
        guard known, driving >= Self.minimumSeparation * rest else { return nil }
        return (rest * driving).squareRoot()
    }

    /// The variance that ends a stop: the geometric mean of the still threshold and the driving level; nil where the
    /// levels are known and not apart (the accelerometer tells nothing), and `setting` before they are known.
    func exitVariance(setting: Double) -> Double? {
        guard known else { return settingBelowRest(setting) }
        return stillThreshold.map { ($0 * driving).squareRoot() }
    }

    /// The variance a stop may begin at (the accelerometer's veto, where the receiver gives no speed): as
    /// `exitVariance`, with the still threshold.
    func enterVariance(setting: Double) -> Double? {
        guard known else { return settingBelowRest(setting) }
        return stillThreshold
    }

    /// Before the levels are known: the setting, unless the board at rest is already seen louder than it (an engine
    /// that shakes it 0.15 m/s² per axis at idle is 0.023 (m/s²)², above the 0.02 a stop began at: the first stop of
    /// every drive was never entered).
    private func settingBelowRest(_ setting: Double) -> Double? {
        restCount >= Self.minimumCount / 4 && rest >= setting ? nil : setting
    }
}
