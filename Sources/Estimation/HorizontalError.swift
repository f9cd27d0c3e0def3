#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
/// Conversions between a 2×2 horizontal covariance and Core Location's `horizontalAccuracy` (a 68 % radius).
public enum HorizontalError {
    /// Probability that a zero-mean circular Gaussian with per-axis σ falls within radius R is 1 − exp(−R²/2σ²);
    /// for 68 % that gives R = σ·√(−2 ln 0.32) ≈ 1.5096 σ.
    public static let radius68PerSigma = (-2 * log(0.32)).squareRoot()

    /// Per-axis 1-σ of a circular error whose 68 % radius is `radius`.
    public static func sigma(fromRadius68 radius: Double) -> Double { radius / radius68PerSigma }

    /// The radius that holds 68 % of a zero-mean Gaussian with covariance [[pee, pen], [pen, pnn]] (m²).
    /// Exact for any ellipse: along the major axis x ~ N(0, λ₁), P(r ≤ R) = ∫ φ(x) · erf(√(R² − x²) / (√2 σ₂)) dx,
    /// solved for R by bisection (between the 1-D value 0.994 σ₁ and the circular 1.51 σ₁).
    /// Fast: the ratio radius/σ₁ as a function of σ₂/σ₁ is tabulated once (65 points, linear interpolation; error
    /// < 0.1 %), so an update costs a few nanoseconds instead of an integration.
    public static func radius68(pee: Double, pnn: Double, pen: Double) -> Double {
        let tr = max(0, pee + pnn), det = max(0, pee * pnn - pen * pen)
        let disc = max(0, tr * tr / 4 - det).squareRoot()
        let l1 = max(tr / 2 + disc, 1e-12), l2 = max(tr / 2 - disc, 0)
        let s1 = l1.squareRoot()
        let ratio = min(1, (l2 / l1).squareRoot()) * 64
        let i = min(63, Int(ratio)), frac = ratio - Double(i)
        let table = radiusTable
        return s1 * (table[i] + (table[i + 1] - table[i]) * frac)
    }

    /// radius68Exact(σ₁ = 1, σ₂ = k/64) for k = 0…64.
    static let radiusTable: [Double] = (0...64).map { k in
        let r = Double(k) / 64
        return radius68Exact(pee: 1, pnn: r * r, pen: 0)
    }

    /// The exact radius by integration and bisection (used to build the table and in tests).
    public static func radius68Exact(pee: Double, pnn: Double, pen: Double) -> Double {
        let tr = max(0, pee + pnn), det = max(0, pee * pnn - pen * pen)
        let disc = max(0, tr * tr / 4 - det).squareRoot()
        let l1 = max(tr / 2 + disc, 1e-12), l2 = max(tr / 2 - disc, 0)
        if l2 / l1 > 0.999 { return radius68PerSigma * ((l1 + l2) / 2).squareRoot() }
        let s1 = l1.squareRoot(), s2 = l2.squareRoot()
        func probability(_ r: Double) -> Double {
            let n = 200
            var sum = 0.0
            let dx = 2 * r / Double(n)
            for i in 0..<n {
                let x = -r + (Double(i) + 0.5) * dx
                let y = max(0, r * r - x * x).squareRoot()
                let inY = s2 > 0 ? erf(y / (s2 * 2.0.squareRoot())) : 1
                sum += exp(-x * x / (2 * l1)) * inY
            }
            return sum * dx / (s1 * (2 * Double.pi).squareRoot())
        }
        var lo = 0.9 * s1, hi = 1.6 * s1
        for _ in 0..<40 {
            let mid = (lo + hi) / 2
            if probability(mid) < 0.68 { lo = mid } else { hi = mid }
        }
        return (lo + hi) / 2
    }
}
