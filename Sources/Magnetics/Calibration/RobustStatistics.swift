/// Median, MAD and the inlier test the fits share.
enum RobustStatistics {
    /// Scales a median absolute deviation to a Gaussian standard deviation (1/Φ⁻¹(3/4)).
    static let madToSigma = 1.482_602_218_505_602

    /// The smallest robust σ the outlier tests use, µT (1 nT, below any magnetometer's noise): keeps noise-free
    /// synthetic data from rejecting samples on rounding differences.
    static let floorMicrotesla = 1e-3

    /// The median of `values` (mean of the middle two for an even count); nil when empty.
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let s = values.sorted()
        let m = s.count / 2
        return s.count % 2 == 1 ? s[m] : 0.5 * (s[m - 1] + s[m])
    }

    /// Median and robust σ (1.4826·MAD, at least `floor`) of `values`.
    static func location(_ values: [Double], floor: Double) -> (median: Double, sigma: Double)? {
        guard let med = median(values), let mad = median(values.map { abs($0 - med) }) else { return nil }
        return (med, max(madToSigma * mad, floor))
    }

    /// Population standard deviation of the entries where `mask` is true (all when nil); 0 for fewer than two.
    static func standardDeviation(_ values: [Double], mask: [Bool]? = nil) -> Double {
        var n = 0.0, sum = 0.0
        for i in values.indices where mask?[i] ?? true { n += 1; sum += values[i] }
        guard n >= 2 else { return 0 }
        let mean = sum / n
        var ss = 0.0
        for i in values.indices where mask?[i] ?? true { ss += (values[i] - mean) * (values[i] - mean) }
        return (ss / n).squareRoot()
    }

    /// The entries within `k`·σ of the median, by robust statistics over all of them.
    static func inlierMask(_ residuals: [Double], k: Double, floor: Double) -> [Bool] {
        guard let (med, sigma) = location(residuals, floor: floor) else { return [] }
        return residuals.map { abs($0 - med) <= k * sigma }
    }
}
