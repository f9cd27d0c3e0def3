import Foundation

/// Uniform and Gaussian draws on any generator (tests use `SplitMix64`), so no test carries its own PRNG.
extension RandomNumberGenerator {
    /// Uniform in (0, 1): the midpoint of one of 2^53 equal cells, never 0 (safe under `log`).
    public mutating func openUnit() -> Double { (Double(next() >> 11) + 0.5) * 0x1p-53 }

    /// Standard normal (Box–Muller on two `openUnit` draws, the cosine branch).
    public mutating func gaussian() -> Double {
        let u1 = openUnit(), u2 = openUnit()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
