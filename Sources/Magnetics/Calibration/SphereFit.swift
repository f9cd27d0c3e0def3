import LocationCore

/// A sphere |B − center| = radius through magnetometer samples: hard iron and field strength, no soft iron.
struct SphereFit: Sendable, Hashable {
    var center: Vector3
    var radius: Double
    /// Cholesky conditioning of the last solve (see `NormalEquations.solve`).
    var conditionRatio: Double = 1

    /// Signed distance from the sphere along the radius, µT.
    func residual(_ p: Vector3) -> Double { (p - center).norm - radius }

    /// Linear least squares on |d|² = 2d·c′ + k with d = B − o (o: mean of the used samples, for conditioning),
    /// k = r² − |c′|². Minimises an algebraic distance: a good start for `refined`.
    static func algebraic(_ points: [Vector3], mask: [Bool]) -> SphereFit? {
        guard let o = CalibrationMath.mean(points, mask: mask) else { return nil }
        var eq = NormalEquations(dimension: 4)
        var row = InlineArray<10, Double>(repeating: 0)
        for i in points.indices where mask[i] {
            let d = points[i] - o
            row[0] = 2 * d.x; row[1] = 2 * d.y; row[2] = 2 * d.z; row[3] = 1
            eq.add(row, target: d.dot(d))
        }
        guard eq.rowCount >= 4, let (x, cond) = eq.solve() else { return nil }
        let c = Vector3(x: x[0], y: x[1], z: x[2])
        let r2 = x[3] + c.dot(c)
        guard r2 > 0, r2.isFinite else { return nil }
        return SphereFit(center: o + c, radius: r2.squareRoot(), conditionRatio: cond)
    }

    /// Gauss–Newton on the geometric residuals Σ(|B − c| − r)², from `self`. Stops when the step is below 1e-9·r
    /// or the cost stops falling; nil when the normal equations are singular.
    func refined(_ points: [Vector3], mask: [Bool], iterations: Int = 20) -> SphereFit? {
        var fit = self
        var cost = fit.cost(points, mask: mask)
        for _ in 0..<iterations {
            var eq = NormalEquations(dimension: 4)
            var row = InlineArray<10, Double>(repeating: 0)
            for i in points.indices where mask[i] {
                let d = points[i] - fit.center
                let rho = d.norm
                guard rho > 0 else { continue }
                row[0] = -d.x / rho; row[1] = -d.y / rho; row[2] = -d.z / rho; row[3] = -1
                eq.add(row, target: -(rho - fit.radius))
            }
            guard let (x, cond) = eq.solve() else { return nil }
            var step = 1.0
            var next = fit
            var nextCost = cost
            // Step halving guards against overshoot on poorly constrained data (a narrow cap).
            for _ in 0..<8 {
                next = SphereFit(center: fit.center + Vector3(x: x[0], y: x[1], z: x[2]) * step,
                                 radius: fit.radius + x[3] * step, conditionRatio: cond)
                nextCost = next.cost(points, mask: mask)
                if nextCost <= cost { break }
                step *= 0.5
            }
            guard nextCost <= cost else { break }
            let moved = (abs(x[0]) + abs(x[1]) + abs(x[2]) + abs(x[3])) * step
            let gain = cost - nextCost
            fit = next
            cost = nextCost
            // Converged: the step is negligible, or it no longer lowers the cost measurably.
            if moved <= 1e-9 * max(fit.radius, 1) || gain <= 1e-10 * cost { break }
        }
        guard fit.radius > 0, fit.radius.isFinite else { return nil }
        return fit
    }

    func cost(_ points: [Vector3], mask: [Bool]) -> Double {
        var s = 0.0
        for i in points.indices where mask[i] { let e = residual(points[i]); s += e * e }
        return s
    }

    /// Fit, reject samples more than k·σ (robust σ from the MAD) from the median residual, refit; until the
    /// inlier set stops changing. Returns the fit and its inlier mask.
    static func robust(_ points: [Vector3], mask initial: [Bool], k: Double, iterations: Int) -> (SphereFit, [Bool])? {
        var mask = initial
        guard let start = algebraic(points, mask: mask), var fit = start.refined(points, mask: mask) else { return nil }
        for _ in 0..<iterations {
            let next = RobustStatistics.inlierMask(points.map(fit.residual), k: k, floor: RobustStatistics.floorMicrotesla)
            guard next.filter({ $0 }).count >= 4 else { break }
            if next == mask { break }
            mask = next
            // Restart from the algebraic fit when the previous fit was pulled by outliers far enough that GN
            // would start in a poor basin; keep whichever ends lower on the new inliers.
            guard let refit = fit.refined(points, mask: mask) else { return nil }
            if let alt = algebraic(points, mask: mask)?.refined(points, mask: mask),
               alt.cost(points, mask: mask) < refit.cost(points, mask: mask) {
                fit = alt
            } else {
                fit = refit
            }
        }
        return (fit, mask)
    }
}

