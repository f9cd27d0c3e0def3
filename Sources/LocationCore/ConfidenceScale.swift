#if canImport(Glibc)
import Glibc
#endif

/// Confidence levels between Lodestar's accuracies (Core Location's: a 68 % horizontal radius, 1-σ vertical) and
/// gpsd's `ep*` figures (95 %): see docs/gpsd-compatibility.md, "Accuracy".
public enum ConfidenceScale {
    /// 95 % / 68 % radius of a circular Gaussian: √(−2 ln 0.05) / √(−2 ln 0.32) ≈ 1.621.
    public static let horizontal95Per68 = (-2 * log(0.05)).squareRoot() / (-2 * log(0.32)).squareRoot()
    /// Two-sided 95 % of a 1-D Gaussian, in σ.
    public static let oneDimensional95PerSigma = 1.959_963_985
}
