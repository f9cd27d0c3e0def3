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

    /// radius68Exact(σ₁ = 1, σ₂ = k/64) for k = 0…64, written out: computing it at start-up took 100 million
    /// instructions (about 30 ms, every run). `HorizontalErrorTests` recomputes it with `radius68Exact`.
    public static let radiusTable: [Double] = [
        0.9944537854546525, 0.994453785457199, 0.9944685896907228, 0.9947965959272096, 0.9956346118716737,
        0.9968173938661948, 0.9982639918070617, 0.999957501433937, 1.001899290850679, 1.0040955154063798,
        1.0065538461566121, 1.0092828722906688, 1.012292277385177, 1.0155933666083459, 1.0191998249275,
        1.0231284146187587, 1.0273990608501204, 1.032033845029082, 1.0370548928737202, 1.0424816684272176,
        1.048328419354812, 1.0546023905556923, 1.0613030895750395, 1.0684225521619282, 1.0759463438208967,
        1.0838549660394623, 1.0921253735760277, 1.1007323953818284, 1.1096499427034807, 1.1188519607176652,
        1.1283131280895304, 1.138009335001743, 1.1479179805408872, 1.1580181309505408, 1.1682905758076685,
        1.1787178127711289, 1.1892839849191206, 1.1999747887417014, 1.2107773659141006, 1.221680188091113,
        1.2326729409820918, 1.243746411797611, 1.2548923825679137, 1.2661035307452497, 1.277373337715881,
        1.2886960053624987, 1.300066380476483, 1.311479886627831, 1.3229324629866368, 1.3344205095307644,
        1.3459408380788318, 1.3574906285774433, 1.3690673901269745, 1.3806689262296001, 1.3922933038330032,
        1.4039388257253909, 1.415604005938667, 1.4272875478051446, 1.4389883243762145, 1.450705360938764,
        1.4624378193957002, 1.4741849842890131, 1.4859462502973204, 1.4977211110308875, 1.5095921854516634
    ]

    /// The exact radius by integration and bisection (the table above was made with it; tests check that).
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

    /// The radius about a point `offset` metres from the centre of a circular Gaussian with per-axis σ `sigma` that holds
    /// 68 % of it: the Rice distribution's 68 % quantile, d + σ·g(d/σ). (A stop's held point, `offset` from the stop's
    /// mean, whose own error is that Gaussian: the sum d + 1.51 σ bounds it, and held 97–100 % of the honest simulated
    /// receivers' held epochs.) g is tabulated at d/σ = 0, 0.125 … 8 (`offsetTable`, linear interpolation; error
    /// < 0.1 % of the radius); beyond 8 it is the 1-D quantile 0.4677 + σ/(2d), the curvature of the circle, within
    /// 0.002 σ. `HorizontalErrorTests` recomputes the table with `radius68OffsetExact`.
    @inline(never)
    public static func radius68(offset d: Double, sigma s: Double) -> Double {
        guard s > 0 else { return max(0, d) }
        let k = max(0, d) / s
        if k >= 8 { return d + s * (oneDimensional68 + 1 / (2 * k)) }
        let x = k * 8, i = min(63, Int(x)), frac = x - Double(i)
        let table = offsetTable
        return d + s * (table[i] + (table[i + 1] - table[i]) * frac)
    }

    /// The 1-D 68 % quantile of a standard normal (one-sided): Φ⁻¹(0.68).
    public static let oneDimensional68 = 0.4676987991145084

    /// radius68OffsetExact(offset: k, sigma: 1) − k for k = 0, 0.125 … 8, written out (from scipy's Rice quantile).
    public static let offsetTable: [Double] = [
        1.509592, 1.390487, 1.283151, 1.187497, 1.103328, 1.030269, 0.967703, 0.914753, 0.870315, 0.833152, 0.802019,
        0.775767, 0.753418, 0.734182, 0.717441, 0.702727, 0.689679, 0.678020, 0.667534, 0.658049, 0.649427, 0.641553,
        0.634334, 0.627690, 0.621556, 0.615874, 0.610596, 0.605682, 0.601093, 0.596800, 0.592774, 0.588991, 0.585430,
        0.582071, 0.578899, 0.575898, 0.573054, 0.570356, 0.567792, 0.565353, 0.563030, 0.560814, 0.558699, 0.556678,
        0.554745, 0.552894, 0.551120, 0.549418, 0.547784, 0.546214, 0.544705, 0.543252, 0.541853, 0.540505, 0.539205,
        0.537950, 0.536739, 0.535569, 0.534437, 0.533343, 0.532284, 0.531259, 0.530266, 0.529303, 0.528369
    ]

    /// The exact radius by integration and bisection: along the offset's direction x ~ N(0, σ²), the point lies within
    /// R when u = x + d is within ±R and the perpendicular part within √(R² − u²); with u = R sin φ the integrand has
    /// no square-root edge.
    public static func radius68OffsetExact(offset d: Double, sigma s: Double) -> Double {
        func probability(_ r: Double) -> Double {
            let n = 2000
            var sum = 0.0
            let dphi = Double.pi / Double(n)
            for i in 0..<n {
                let phi = -Double.pi / 2 + (Double(i) + 0.5) * dphi
                let x = r * sin(phi) - d, y = r * cos(phi)
                sum += exp(-x * x / (2 * s * s)) * erf(y / (s * 2.0.squareRoot())) * y
            }
            return sum * dphi / (s * (2 * Double.pi).squareRoot())
        }
        var lo = d, hi = d + 2 * s
        for _ in 0..<50 {
            let mid = (lo + hi) / 2
            if probability(mid) < 0.68 { lo = mid } else { hi = mid }
        }
        return (lo + hi) / 2
    }
}
