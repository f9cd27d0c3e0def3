import LocationCore

/// Normal equations JᵀWJ·x = JᵀW·r for up to 10 unknowns, accumulated row by row and solved by Cholesky.
/// Fixed-size storage (no heap allocation per sample or per solve): the fits call this thousands of times per second.
struct NormalEquations {
    /// Number of unknowns, 1…10.
    let dimension: Int
    /// Row-major 10×10 storage; only the upper triangle is accumulated, the solver mirrors it.
    private var a = InlineArray<100, Double>(repeating: 0)
    private var b = InlineArray<10, Double>(repeating: 0)
    /// Rows accumulated.
    private(set) var rowCount = 0

    init(dimension: Int) {
        precondition((1...10).contains(dimension), "NormalEquations supports 1…10 unknowns")
        self.dimension = dimension
    }

    /// Adds one observation: `row · x ≈ target`, with a weight.
    mutating func add(_ row: InlineArray<10, Double>, target: Double, weight: Double = 1) {
        let n = dimension
        for i in 0..<n {
            let wi = weight * row[i]
            if wi == 0 { continue }
            b[i] += wi * target
            for j in i..<n { a[i * 10 + j] += wi * row[j] }
        }
        rowCount += 1
    }

    /// The solution, or nil when the matrix is not numerically positive definite (the unknowns are not all
    /// determined by the data). `conditionRatio` is min/max of the Cholesky pivots: a cheap conditioning estimate
    /// (≈ 1/condition number), small when some combination of unknowns is barely constrained.
    func solve() -> (x: InlineArray<10, Double>, conditionRatio: Double)? {
        let n = dimension
        var l = InlineArray<100, Double>(repeating: 0)
        var maxPivot = 0.0
        for i in 0..<n { maxPivot = max(maxPivot, a[i * 10 + i]) }
        guard maxPivot > 0, maxPivot.isFinite else { return nil }
        var minPivot = Double.infinity
        for j in 0..<n {
            var d = a[j * 10 + j]
            for k in 0..<j { d -= l[j * 10 + k] * l[j * 10 + k] }
            // Relative threshold: a pivot this small means the column is (numerically) a combination of others.
            guard d > maxPivot * 1e-14, d.isFinite else { return nil }
            minPivot = min(minPivot, d)
            let ljj = d.squareRoot()
            l[j * 10 + j] = ljj
            for i in (j + 1)..<max(n, j + 1) {
                var s = a[j * 10 + i]  // upper triangle holds A[j][i] = A[i][j]
                for k in 0..<j { s -= l[i * 10 + k] * l[j * 10 + k] }
                l[i * 10 + j] = s / ljj
            }
        }
        // Forward (L y = b) then backward (Lᵀ x = y) substitution.
        var y = InlineArray<10, Double>(repeating: 0)
        for i in 0..<n {
            var s = b[i]
            for k in 0..<i { s -= l[i * 10 + k] * y[k] }
            y[i] = s / l[i * 10 + i]
        }
        var x = InlineArray<10, Double>(repeating: 0)
        for i in stride(from: n - 1, through: 0, by: -1) {
            var s = y[i]
            for k in (i + 1)..<max(n, i + 1) { s -= l[k * 10 + i] * x[k] }
            x[i] = s / l[i * 10 + i]
        }
        for i in 0..<n where !x[i].isFinite { return nil }
        return (x, minPivot / maxPivot)
    }
}

/// Eigen-decomposition of a symmetric 3×3 matrix by cyclic Jacobi rotations: values ascending, unit eigenvectors
/// (`vectors[i]` belongs to `values[i]`). Exact to rounding for symmetric input; converges in a few sweeps.
struct SymmetricEigen3: Sendable {
    var values: (Double, Double, Double)
    var vectors: (Vector3, Vector3, Vector3)

    init(_ m: Matrix3) {
        // a: the matrix being diagonalised; v: accumulated rotations (columns are eigenvectors).
        var a = [[m.r0.x, m.r0.y, m.r0.z], [m.r1.x, m.r1.y, m.r1.z], [m.r2.x, m.r2.y, m.r2.z]]
        // Symmetrise (callers pass symmetric matrices; this removes rounding asymmetry).
        for i in 0..<3 { for j in (i + 1)..<3 { let s = 0.5 * (a[i][j] + a[j][i]); a[i][j] = s; a[j][i] = s } }
        var v: [[Double]] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
        for _ in 0..<50 {
            let off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2]
            let diag = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2]
            if off <= 1e-30 * max(diag, 1e-300) || off == 0 { break }
            for (p, q) in [(0, 1), (0, 2), (1, 2)] where a[p][q] != 0 {
                let theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
                let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                let c = 1 / (t * t + 1).squareRoot()
                let s = t * c
                for k in 0..<3 {  // A ← A·G
                    let akp = a[k][p], akq = a[k][q]
                    a[k][p] = c * akp - s * akq
                    a[k][q] = s * akp + c * akq
                }
                for k in 0..<3 {  // A ← Gᵀ·A
                    let apk = a[p][k], aqk = a[q][k]
                    a[p][k] = c * apk - s * aqk
                    a[q][k] = s * apk + c * aqk
                }
                for k in 0..<3 {
                    let vkp = v[k][p], vkq = v[k][q]
                    v[k][p] = c * vkp - s * vkq
                    v[k][q] = s * vkp + c * vkq
                }
            }
        }
        var pairs = (0..<3).map { i in (a[i][i], Vector3(x: v[0][i], y: v[1][i], z: v[2][i])) }
        pairs.sort { $0.0 < $1.0 }
        values = (pairs[0].0, pairs[1].0, pairs[2].0)
        vectors = (pairs[0].1, pairs[1].1, pairs[2].1)
    }

    /// V·diag(f(λ))·Vᵀ: a function applied to the matrix through its eigenvalues.
    func map(_ f: (Double) -> Double) -> Matrix3 {
        let ls = [f(values.0), f(values.1), f(values.2)]
        let vs = [vectors.0, vectors.1, vectors.2]
        var rows = [Vector3](repeating: .zero, count: 3)
        for r in 0..<3 {
            var row = Vector3.zero
            for k in 0..<3 {
                let vk = vs[k]
                let vr = r == 0 ? vk.x : (r == 1 ? vk.y : vk.z)
                row = row + vk * (ls[k] * vr)
            }
            rows[r] = row
        }
        return Matrix3(r0: rows[0], r1: rows[1], r2: rows[2])
    }
}

extension Matrix3 {
    /// The nine entries, row-major (the calibration file's `soft_iron` order).
    var rowMajor: [Double] { [r0.x, r0.y, r0.z, r1.x, r1.y, r1.z, r2.x, r2.y, r2.z] }

    /// From nine entries, row-major.
    init(rowMajor v: [Double]) {
        self.init(r0: Vector3(x: v[0], y: v[1], z: v[2]), r1: Vector3(x: v[3], y: v[4], z: v[5]),
                  r2: Vector3(x: v[6], y: v[7], z: v[8]))
    }

    /// Symmetric from its six distinct entries.
    init(symmetric xx: Double, _ yy: Double, _ zz: Double, xy: Double, xz: Double, yz: Double) {
        self.init(r0: Vector3(x: xx, y: xy, z: xz), r1: Vector3(x: xy, y: yy, z: yz), r2: Vector3(x: xz, y: yz, z: zz))
    }
}

/// Helpers of the calibration fits, namespaced so they cannot clash with other Magnetics code.
enum CalibrationMath {
    /// s·m.
    static func scaled(_ m: Matrix3, _ s: Double) -> Matrix3 { Matrix3(r0: m.r0 * s, r1: m.r1 * s, r2: m.r2 * s) }

    /// Largest |a − b| over the entries.
    static func maximumDifference(_ a: Matrix3, _ b: Matrix3) -> Double {
        zip(a.rowMajor, b.rowMajor).reduce(0) { max($0, abs($1.0 - $1.1)) }
    }

    /// The inverse, or nil when singular.
    static func inverse(_ m: Matrix3) -> Matrix3? {
        let det = m.determinant
        guard det != 0, det.isFinite else { return nil }
        // inverse = adjugate / det; the adjugate's columns are these cross products of the rows.
        let c0 = m.r1.cross(m.r2), c1 = m.r2.cross(m.r0), c2 = m.r0.cross(m.r1)
        return scaled(Matrix3(r0: c0, r1: c1, r2: c2).transposed, 1 / det)
    }

    /// Mean of the masked points; nil when none is selected.
    static func mean(_ points: [Vector3], mask: [Bool]) -> Vector3? {
        var s = Vector3.zero
        var n = 0
        for i in points.indices where mask[i] { s = s + points[i]; n += 1 }
        return n > 0 ? s * (1 / Double(n)) : nil
    }

    /// Mean and (population) covariance of the masked points.
    static func covariance(_ points: [Vector3], mask: [Bool]) -> (mean: Vector3, covariance: Matrix3)? {
        guard let m = mean(points, mask: mask) else { return nil }
        var xx = 0.0, yy = 0.0, zz = 0.0, xy = 0.0, xz = 0.0, yz = 0.0
        var n = 0.0
        for i in points.indices where mask[i] {
            let d = points[i] - m
            xx += d.x * d.x; yy += d.y * d.y; zz += d.z * d.z
            xy += d.x * d.y; xz += d.x * d.z; yz += d.y * d.z
            n += 1
        }
        return (m, Matrix3(symmetric: xx / n, yy / n, zz / n, xy: xy / n, xz: xz / n, yz: yz / n))
    }

    /// `v` or `−v`, whichever has its largest-magnitude component positive (deterministic normals).
    static func canonicalSign(_ v: Vector3) -> Vector3 {
        let n = v.normalized
        let largest = abs(n.x) >= abs(n.y) && abs(n.x) >= abs(n.z) ? n.x : (abs(n.y) >= abs(n.z) ? n.y : n.z)
        return largest < 0 ? n * -1 : n
    }

    /// A number with a fixed count of decimals, without Foundation.
    static func decimal(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (abs(value) * scale).rounded()
        guard rounded < 9e15 else { return "\(value)" }
        let whole = Int64(rounded) / Int64(scale)
        let fraction = Int64(rounded) % Int64(scale)
        var text = (value < 0 && rounded != 0 ? "-" : "") + "\(whole)"
        if digits > 0 {
            let f = "\(fraction)"
            text += "." + String(repeating: "0", count: digits - f.count) + f
        }
        return text
    }
}
