import LocationCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An ellipsoid |W·(B − center)| = 1 through magnetometer samples, W symmetric positive definite: hard iron plus
/// soft iron. Work happens in normalised coordinates y = (B − origin) / scale so the normal equations stay
/// well conditioned whatever the units and offsets.
struct EllipsoidFit: Sendable, Hashable {
    var origin: Vector3
    var scale: Double
    /// Centre and transform in normalised coordinates.
    var centerY: Vector3
    var transformY: Matrix3
    /// Cholesky conditioning of the algebraic solve (see `NormalEquations.solve`).
    var conditionRatio: Double

    /// Hard iron, µT.
    var center: Vector3 { origin + centerY * scale }
    /// W in raw units (1/µT): |W·(B − c)| = 1 on the ellipsoid.
    var transform: Matrix3 { CalibrationMath.scaled(transformY, 1 / scale) }
    /// The field strength of the volume-preserving correction: det(W)^(−1/3), the geometric mean of the semi-axes.
    var fieldMicrotesla: Double { pow(transform.determinant, -1.0 / 3.0) }
    /// Soft iron with determinant 1: W scaled so corrected samples have norm `fieldMicrotesla`.
    var softIron: Matrix3 {
        let w = CalibrationMath.scaled(transform, fieldMicrotesla)
        // Exactly symmetric (the updates keep it so up to rounding in the last digit).
        return Matrix3(symmetric: w.r0.x, w.r1.y, w.r2.z, xy: 0.5 * (w.r0.y + w.r1.x), xz: 0.5 * (w.r0.z + w.r2.x),
                       yz: 0.5 * (w.r1.z + w.r2.y))
    }
    /// Longest over shortest semi-axis.
    var axisRatio: Double {
        let e = SymmetricEigen3(transformY)
        return e.values.2 / e.values.0
    }

    /// Signed distances along the corrected radius, µT (to first order), of normalised samples.
    func residuals(_ ys: [Vector3]) -> [Double] {
        let f = fieldMicrotesla
        return ys.map { y in ((transformY * (y - centerY)).norm - 1) * f }
    }

    func normalised(_ points: [Vector3]) -> [Vector3] {
        let inverse = 1 / scale
        return points.map { ($0 - origin) * inverse }
    }

    func residualY(_ y: Vector3) -> Double { (transformY * (y - centerY)).norm - 1 }

    /// The 9-parameter algebraic least-squares ellipsoid with trace(A) = 3 (rotation invariant):
    /// yᵀAy + 2bᵀy + d = 0, A = [[1+α, h, g], [h, 1+β, f], [g, f, 1−α−β]], solved linearly as
    /// α(y₁²−y₃²) + β(y₂²−y₃²) + 2h y₁y₂ + 2g y₁y₃ + 2f y₂y₃ + 2bᵀy + d = −|y|².
    /// nil unless A is positive definite (an ellipsoid, not a hyperboloid) and the centre lies inside it.
    static func algebraic(_ points: [Vector3], mask: [Bool]) -> EllipsoidFit? {
        guard let o = CalibrationMath.mean(points, mask: mask) else { return nil }
        var ss = 0.0, n = 0.0
        for i in points.indices where mask[i] { let d = points[i] - o; ss += d.dot(d); n += 1 }
        guard n >= 9, ss > 0 else { return nil }
        let s = (ss / n).squareRoot()
        var eq = NormalEquations(dimension: 9)
        var row = InlineArray<10, Double>(repeating: 0)
        for i in points.indices where mask[i] {
            let y = (points[i] - o) * (1 / s)
            let x2 = y.x * y.x, y2 = y.y * y.y, z2 = y.z * y.z
            row[0] = x2 - z2; row[1] = y2 - z2
            row[2] = 2 * y.x * y.y; row[3] = 2 * y.x * y.z; row[4] = 2 * y.y * y.z
            row[5] = 2 * y.x; row[6] = 2 * y.y; row[7] = 2 * y.z; row[8] = 1
            eq.add(row, target: -(x2 + y2 + z2))
        }
        guard let (p, cond) = eq.solve() else { return nil }
        let a = Matrix3(symmetric: 1 + p[0], 1 + p[1], 1 - p[0] - p[1], xy: p[2], xz: p[3], yz: p[4])
        let eigen = SymmetricEigen3(a)
        guard eigen.values.0 > 0, let aInverse = CalibrationMath.inverse(a) else { return nil }
        let b = Vector3(x: p[5], y: p[6], z: p[7])
        let c = (aInverse * b) * -1
        // (y − c)ᵀA(y − c) = cᵀAc − d.
        let k = c.dot(a * c) - p[8]
        guard k > 0, k.isFinite else { return nil }
        let w = SymmetricEigen3(CalibrationMath.scaled(a, 1 / k)).map { $0.squareRoot() }
        return EllipsoidFit(origin: o, scale: s, centerY: c, transformY: w, conditionRatio: cond)
    }

    /// Gauss–Newton on Σ(|W(y − c)| − 1)² over the centre (3) and symmetric W (6). nil when singular or when W
    /// stops being positive definite.
    func refined(_ points: [Vector3], mask: [Bool], iterations: Int = 10) -> EllipsoidFit? {
        refined(normalised: normalised(points), mask: mask, iterations: iterations)
    }

    /// `refined` on samples already in this fit's normalised coordinates.
    func refined(normalised ys: [Vector3], mask: [Bool], iterations: Int = 10) -> EllipsoidFit? {
        var fit = self
        var cost = fit.costY(ys, mask: mask)
        for _ in 0..<iterations {
            var eq = NormalEquations(dimension: 9)
            var row = InlineArray<10, Double>(repeating: 0)
            let w = fit.transformY
            for i in ys.indices where mask[i] {
                let d = ys[i] - fit.centerY
                let u = w * d
                let rho = u.norm
                guard rho > 0 else { continue }
                let wu = w * u  // W symmetric: ∂ρ/∂c = −W·u/ρ
                row[0] = -wu.x / rho; row[1] = -wu.y / rho; row[2] = -wu.z / rho
                row[3] = u.x * d.x / rho; row[4] = u.y * d.y / rho; row[5] = u.z * d.z / rho
                row[6] = (u.x * d.y + u.y * d.x) / rho
                row[7] = (u.x * d.z + u.z * d.x) / rho
                row[8] = (u.y * d.z + u.z * d.y) / rho
                eq.add(row, target: -(rho - 1))
            }
            guard let (x, _) = eq.solve() else { return nil }
            var step = 1.0
            var accepted: EllipsoidFit?
            var gain = 0.0
            for _ in 0..<8 {
                var next = fit
                next.centerY = fit.centerY + Vector3(x: x[0], y: x[1], z: x[2]) * step
                let dw = Matrix3(symmetric: x[3], x[4], x[5], xy: x[6], xz: x[7], yz: x[8])
                next.transformY = Matrix3(r0: w.r0 + dw.r0 * step, r1: w.r1 + dw.r1 * step, r2: w.r2 + dw.r2 * step)
                let c = next.costY(ys, mask: mask)
                if c <= cost { accepted = next; gain = cost - c; cost = c; break }
                step *= 0.5
            }
            guard let next = accepted else { break }
            fit = next
            var moved = 0.0
            for i in 0..<9 { moved += abs(x[i]) }
            // Converged: the step is negligible, or it no longer lowers the cost measurably.
            if moved * step <= 1e-10 || gain <= 1e-10 * cost { break }
        }
        guard SymmetricEigen3(fit.transformY).values.0 > 0 else { return nil }
        return fit
    }

    func costY(_ ys: [Vector3], mask: [Bool]) -> Double {
        var s = 0.0
        for i in ys.indices where mask[i] { let e = residualY(ys[i]); s += e * e }
        return s
    }

    /// Fit and reject k·σ outliers (robust σ from the MAD) until the inlier set settles.
    static func robust(_ points: [Vector3], mask initial: [Bool], k: Double, iterations: Int) -> (EllipsoidFit, [Bool])? {
        var mask = initial
        guard let start = algebraic(points, mask: mask) else { return nil }
        let ys = start.normalised(points)  // origin and scale stay those of the first fit
        guard var fit = start.refined(normalised: ys, mask: mask) else { return nil }
        for _ in 0..<iterations {
            let next = RobustStatistics.inlierMask(fit.residuals(ys), k: k, floor: RobustStatistics.floorMicrotesla)
            guard next.filter({ $0 }).count >= 9 else { break }
            if next == mask { break }
            mask = next
            guard let refit = fit.refined(normalised: ys, mask: mask) else { return nil }
            fit = refit
        }
        return (fit, mask)
    }
}
