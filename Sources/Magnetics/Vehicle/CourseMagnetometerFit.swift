#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

/// The magnetometer calibration learned in motion: a weighted linear regression of the levelled horizontal field
/// on the vehicle's true heading, taken from the GNSS course while the vehicle moves.
///
/// For a vehicle, the horizontal field the sensor sees at true heading ψ is
/// `h(ψ) = b + A · (cos ψ, sin ψ)`: b is the planar hard iron, and the 2×2 matrix A holds the horizontal field
/// strength, the 2-D soft iron, the mounting's yaw offset and the declination all at once. Both components are
/// linear in the same regressors (1, cos ψ, sin ψ), so the fit needs one 3×3 normal matrix and two right-hand
/// sides: sufficient statistics updated per course pair in O(1), with exponential forgetting. Inverting it gives
/// the true heading from a magnetometer sample: (cos ψ, sin ψ) = A⁻¹ (h − b), and |A⁻¹ (h − b)| ≈ 1 tells a
/// clean field from a disturbed one, whatever the heading.
///
/// Coverage is the smallest eigenvalue of the weighted covariance of (cos ψ, sin ψ): 0.5 for headings spread
/// evenly round the circle, 0 when they lie on one line (two headings, or one): then A and b cannot be separated.
public struct CourseMagnetometerFit: Sendable, Hashable {
    /// Σw·[1, c, s][1, c, s]ᵀ (upper triangle: 11, 1c, 1s, cc, cs, ss).
    var n = [Double](repeating: 0, count: 6)
    /// Σw·x·[1, c, s] and Σw·y·[1, c, s].
    var rx = [Double](repeating: 0, count: 3), ry = [Double](repeating: 0, count: 3)
    /// Σw·(x² + y²), Σw·v, Σw·v² (v: the vertical component, for the field's vertical reference).
    var sumSquares = 0.0, vertical = 0.0, verticalSquares = 0.0
    /// Pairs taken (not weighted).
    public private(set) var pairs = 0
    /// The white part of the residuals: Σw·|r − r_prev|²/2 over successive pairs (r a pair's residual from the fit
    /// as it stood before the pair), the weight of those pairs, and the previous residual (NaN: none).
    var successiveSquares = 0.0, successiveWeight = 0.0
    var previousResidualX = Double.nan, previousResidualY = Double.nan
    /// Successive pairs taken into the white part (not forgotten).
    var successivePairs = 0

    public init() {}

    /// Adds one pair: the levelled horizontal field (x along the reference axis, y to its left; µT), the vertical
    /// component (up, µT), the true heading (degrees) and a weight (1/σ², σ the pair's heading uncertainty in
    /// degrees). `forgetting` multiplies the old statistics first (1: keep everything).
    public mutating func add(x: Double, y: Double, vertical v: Double, headingDegrees: Double, weight w: Double,
                             forgetting: Double = 1) {
        guard x.isFinite, y.isFinite, v.isFinite, headingDegrees.isFinite, w.isFinite, w > 0 else { return }
        if forgetting < 1 {
            for i in 0..<6 { n[i] *= forgetting }
            for i in 0..<3 { rx[i] *= forgetting; ry[i] *= forgetting }
            sumSquares *= forgetting; vertical *= forgetting; verticalSquares *= forgetting
            successiveSquares *= forgetting; successiveWeight *= forgetting
        }
        let a = headingDegrees * HeadingMath.radiansPerDegree
        let c = cos(a), s = sin(a)
        // The residual against the fit so far: successive pairs (a second apart, nearly the same heading) share
        // whatever the model misses, so half the mean square of their difference is the pairs' white noise.
        if pairs >= Self.minimumPairsForResidual, let fitted = solve() {
            let p = fitted.predicted(cos: c, sin: s)
            let ex = x - p.x, ey = y - p.y
            if previousResidualX.isFinite {
                let dx = ex - previousResidualX, dy = ey - previousResidualY
                successiveSquares += w * (dx * dx + dy * dy) / 2
                successiveWeight += w
                successivePairs += 1
            }
            previousResidualX = ex; previousResidualY = ey
        } else {
            previousResidualX = .nan; previousResidualY = .nan
        }
        n[0] += w; n[1] += w * c; n[2] += w * s; n[3] += w * c * c; n[4] += w * c * s; n[5] += w * s * s
        rx[0] += w * x; rx[1] += w * x * c; rx[2] += w * x * s
        ry[0] += w * y; ry[1] += w * y * c; ry[2] += w * y * s
        sumSquares += w * (x * x + y * y)
        vertical += w * v; verticalSquares += w * v * v
        pairs += 1
    }

    /// Total weight.
    public var weight: Double { n[0] }

    /// Pairs before the residuals' white part is taken (the fit is solvable, if poorly, from three).
    static let minimumPairsForResidual = 6

    /// Successive pairs needed before the white part is given.
    static let minimumSuccessivePairs = 4

    /// Mean square of the residuals' white part (µT², both axes; the same units as
    /// `Solution.residualMeanSquare`), nil before enough successive pairs.
    public var whiteResidualMeanSquare: Double? {
        successivePairs >= Self.minimumSuccessivePairs && successiveWeight > 0 ? successiveSquares / successiveWeight : nil
    }

    /// Breaks the chain of successive pairs (the next pair does not follow the last: a gap, a stop).
    public mutating func interruptSuccession() { previousResidualX = .nan; previousResidualY = .nan }

    /// Smallest eigenvalue of the weighted covariance of (cos ψ, sin ψ): 0…0.5.
    public var coverage: Double {
        let w = n[0]
        guard w > 0 else { return 0 }
        let mc = n[1] / w, ms = n[2] / w
        let cc = n[3] / w - mc * mc, cs = n[4] / w - mc * ms, ss = n[5] / w - ms * ms
        let tr = cc + ss, det = cc * ss - cs * cs
        return max(0, tr / 2 - (max(0, tr * tr / 4 - det)).squareRoot())
    }

    /// Solves the regression. Nil while the normal matrix is singular.
    public func solve() -> Solution? {
        let w = n[0]
        guard w > 0 else { return nil }
        // 3×3 symmetric inverse by cofactors.
        let a = n[0], b = n[1], c = n[2], d = n[3], e = n[4], f = n[5]
        // [[a b c] [b d e] [c e f]]
        let c00 = d * f - e * e, c01 = c * e - b * f, c02 = b * e - c * d
        let c11 = a * f - c * c, c12 = b * c - a * e, c22 = a * d - b * b
        let det = a * c00 + b * c01 + c * c02
        guard det.isFinite, abs(det) > 1e-12 * max(1, a * a * a) else { return nil }
        let inv = 1 / det
        func mul(_ r: [Double]) -> (Double, Double, Double) {
            ((c00 * r[0] + c01 * r[1] + c02 * r[2]) * inv,
             (c01 * r[0] + c11 * r[1] + c12 * r[2]) * inv,
             (c02 * r[0] + c12 * r[1] + c22 * r[2]) * inv)
        }
        let px = mul(rx), py = mul(ry)
        // Weighted residual sum of squares: Σw|z|² − pᵀ r for each axis.
        let rss = max(0, sumSquares - (px.0 * rx[0] + px.1 * rx[1] + px.2 * rx[2])
                                      - (py.0 * ry[0] + py.1 * ry[1] + py.2 * ry[2]))
        let meanV = vertical / w
        return Solution(hardIron: (px.0, py.0), a11: px.1, a12: px.2, a21: py.1, a22: py.2,
                        residualMeanSquare: rss / w,
                        verticalMicrotesla: meanV,
                        verticalStdMicrotesla: max(0, verticalSquares / w - meanV * meanV).squareRoot())
    }

    /// A solved fit: h = b + A (cos ψ, sin ψ).
    public struct Solution: Sendable, Hashable {
        public var hardIron: (x: Double, y: Double)
        public var a11: Double, a12: Double, a21: Double, a22: Double
        /// Weighted mean of |residual|² (µT² · weight units: per unit weight, i.e. relative).
        public var residualMeanSquare: Double
        /// Mean vertical component (µT, up) and its spread over the pairs.
        public var verticalMicrotesla: Double
        public var verticalStdMicrotesla: Double

        public static func == (l: Solution, r: Solution) -> Bool {
            l.hardIron.x == r.hardIron.x && l.hardIron.y == r.hardIron.y && l.a11 == r.a11 && l.a12 == r.a12
                && l.a21 == r.a21 && l.a22 == r.a22 && l.verticalMicrotesla == r.verticalMicrotesla
        }
        public func hash(into h: inout Hasher) { h.combine(a11); h.combine(a22); h.combine(hardIron.x) }

        public init(hardIron: (x: Double, y: Double), a11: Double, a12: Double, a21: Double, a22: Double,
                    residualMeanSquare: Double, verticalMicrotesla: Double, verticalStdMicrotesla: Double) {
            self.hardIron = hardIron; self.a11 = a11; self.a12 = a12; self.a21 = a21; self.a22 = a22
            self.residualMeanSquare = residualMeanSquare; self.verticalMicrotesla = verticalMicrotesla
            self.verticalStdMicrotesla = verticalStdMicrotesla
        }

        public var determinant: Double { a11 * a22 - a12 * a21 }
        /// The horizontal field strength the fit implies (µT): √|det A|.
        public var horizontalMicrotesla: Double { abs(determinant).squareRoot() }
        /// A's rotation: the angle (degrees) between the reference axis and the vehicle's forward axis plus the
        /// declination — what turns a sensor's magnetic azimuth into the vehicle's true heading.
        public var rotationDegrees: Double {
            HeadingMath.atan2Degrees(a21 - a12, a11 + a22)
        }
        /// Soft-iron distortion: ratio of A's singular values (1 = none).
        public var axisRatio: Double {
            let p = a11 * a11 + a12 * a12 + a21 * a21 + a22 * a22
            let d = abs(determinant)
            let disc = max(0, p * p / 4 - d * d).squareRoot()
            let big = (p / 2 + disc).squareRoot(), small = max(1e-12, p / 2 - disc).squareRoot()
            return big / small
        }
        /// Usable: A well conditioned and not mirrored.
        public var isUsable: Bool {
            determinant > 0 && horizontalMicrotesla > 0.5 && axisRatio < 2 && determinant.isFinite
        }
        /// (cos ψ, sin ψ) scaled: A⁻¹ (h − b). Its length is ≈ 1 in a clean field.
        @inline(__always)
        public func unit(x: Double, y: Double) -> (c: Double, s: Double) {
            let dx = x - hardIron.x, dy = y - hardIron.y
            let inv = 1 / determinant
            return ((a22 * dx - a12 * dy) * inv, (-a21 * dx + a11 * dy) * inv)
        }
        /// The predicted horizontal field at true heading ψ (degrees).
        public func predicted(headingDegrees: Double) -> (x: Double, y: Double) {
            let a = headingDegrees * HeadingMath.radiansPerDegree
            return predicted(cos: cos(a), sin: sin(a))
        }
        /// The same from cos ψ and sin ψ.
        public func predicted(cos c: Double, sin s: Double) -> (x: Double, y: Double) {
            (hardIron.x + a11 * c + a12 * s, hardIron.y + a21 * c + a22 * s)
        }
    }
}
