#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

/// A circle in a plane through magnetometer samples whose directions all lie in that plane (a level vehicle turning).
/// The hard iron within the plane is the circle's centre; the offset along the normal cannot be told apart from
/// the field's own component along it.
struct CircleFit: Sendable, Hashable {
    /// The circle's centre, on the fitted plane (sensor frame, µT).
    var center: Vector3
    /// Unit normal of the plane; sign chosen so its largest component is positive.
    var normal: Vector3
    /// In-plane unit axes (u × v = normal).
    var u: Vector3
    var v: Vector3
    var radius: Double

    /// (in-plane radial residual, distance from the plane), µT.
    func residuals(_ p: Vector3) -> (radial: Double, offPlane: Double) {
        let d = p - center
        let a = d.dot(u), b = d.dot(v)
        return ((a * a + b * b).squareRoot() - radius, d.dot(normal))
    }

    /// Plane by principal components of the masked samples, then Kåsa's algebraic circle, then Gauss–Newton on the
    /// in-plane geometric residuals.
    static func fit(_ points: [Vector3], mask: [Bool]) -> CircleFit? {
        guard let (m, cov) = CalibrationMath.covariance(points, mask: mask) else { return nil }
        let eigen = SymmetricEigen3(cov)
        let normal = CalibrationMath.canonicalSign(eigen.vectors.0)
        let u = eigen.vectors.2.normalized
        let v = normal.cross(u).normalized
        var a = [Double](), b = [Double]()
        a.reserveCapacity(points.count); b.reserveCapacity(points.count)
        for i in points.indices where mask[i] {
            let d = points[i] - m
            a.append(d.dot(u)); b.append(d.dot(v))
        }
        // Kåsa: a² + b² = 2a·ca + 2b·cb + k, k = r² − ca² − cb².
        var eq = NormalEquations(dimension: 3)
        var row = InlineArray<10, Double>(repeating: 0)
        for i in a.indices {
            row[0] = 2 * a[i]; row[1] = 2 * b[i]; row[2] = 1
            eq.add(row, target: a[i] * a[i] + b[i] * b[i])
        }
        guard eq.rowCount >= 3, let (x, _) = eq.solve() else { return nil }
        var ca = x[0], cb = x[1]
        let r2 = x[2] + ca * ca + cb * cb
        guard r2 > 0 else { return nil }
        var r = r2.squareRoot()
        // Gauss–Newton on Σ(√((a−ca)² + (b−cb)²) − r)².
        for _ in 0..<20 {
            var gn = NormalEquations(dimension: 3)
            for i in a.indices {
                let da = a[i] - ca, db = b[i] - cb
                let rho = (da * da + db * db).squareRoot()
                guard rho > 0 else { continue }
                row[0] = -da / rho; row[1] = -db / rho; row[2] = -1
                gn.add(row, target: -(rho - r))
            }
            guard let (dx, _) = gn.solve() else { break }
            ca += dx[0]; cb += dx[1]; r += dx[2]
            if abs(dx[0]) + abs(dx[1]) + abs(dx[2]) <= 1e-9 * max(r, 1) { break }
        }
        guard r > 0, r.isFinite, ca.isFinite, cb.isFinite else { return nil }
        return CircleFit(center: m + u * ca + v * cb, normal: normal, u: u, v: v, radius: r)
    }

    /// Fits and rejects samples that are k·σ off in either residual, until the inlier set settles.
    static func robust(_ points: [Vector3], mask initial: [Bool], k: Double, iterations: Int) -> (CircleFit, [Bool])? {
        var mask = initial
        guard var fit = fit(points, mask: mask) else { return nil }
        for _ in 0..<iterations {
            let residuals = points.map(fit.residuals)
            let radial = RobustStatistics.inlierMask(residuals.map(\.radial), k: k, floor: RobustStatistics.floorMicrotesla)
            let plane = RobustStatistics.inlierMask(residuals.map(\.offPlane), k: k, floor: RobustStatistics.floorMicrotesla)
            let next = zip(radial, plane).map { $0 && $1 }
            guard next.filter({ $0 }).count >= 3 else { break }
            if next == mask { break }
            mask = next
            guard let refit = CircleFit.fit(points, mask: mask) else { return nil }
            fit = refit
        }
        return (fit, mask)
    }

    /// Percentage of 10° sectors of the circle that inliers reach.
    func arcCoveragePercent(_ points: [Vector3], mask: [Bool]) -> Double {
        var hit = [Bool](repeating: false, count: 36)
        for i in points.indices where mask[i] {
            let d = points[i] - center
            let angle = atan2(d.dot(v), d.dot(u))
            let sector = Int(((angle + .pi) / (2 * .pi) * 36).rounded(.down))
            hit[min(max(sector, 0), 35)] = true
        }
        return 100 * Double(hit.filter { $0 }.count) / 36
    }
}
