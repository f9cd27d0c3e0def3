/// A small dense Kalman filter (row-major `[Double]` matrices; n ≤ ~8, measurements of 1 or 2 rows).
struct KalmanFilter: Sendable {
    let n: Int
    var x: [Double]
    var p: [Double]

    init(n: Int) {
        self.n = n
        x = [Double](repeating: 0, count: n)
        p = [Double](repeating: 0, count: n * n)
    }

    subscript(_ r: Int, _ c: Int) -> Double {
        get { p[r * n + c] }
        set { p[r * n + c] = newValue }
    }

    /// x ← F x (+ u), P ← F P Fᵀ + Q.
    mutating func predict(f: [Double], q: [Double], u: [Double]? = nil) {
        var nx = [Double](repeating: 0, count: n)
        for i in 0..<n { var s = 0.0; for k in 0..<n { s += f[i * n + k] * x[k] }; nx[i] = s + (u?[i] ?? 0) }
        x = nx
        var fp = [Double](repeating: 0, count: n * n)
        for i in 0..<n { for j in 0..<n { var s = 0.0; for k in 0..<n { s += f[i * n + k] * p[k * n + j] }; fp[i * n + j] = s } }
        var np = [Double](repeating: 0, count: n * n)
        for i in 0..<n { for j in 0..<n { var s = 0.0; for k in 0..<n { s += fp[i * n + k] * f[j * n + k] }; np[i * n + j] = s + q[i * n + j] } }
        p = np
        symmetrize()
    }

    /// Innovation y = z − Hx and its covariance S = HPHᵀ + R for an m-row measurement (m = 1 or 2).
    func innovation(z: [Double], h: [Double], r: [Double]) -> (y: [Double], s: [Double], nis: Double) {
        let m = z.count
        var y = z
        for i in 0..<m { var s = 0.0; for k in 0..<n { s += h[i * n + k] * x[k] }; y[i] -= s }
        var ph = [Double](repeating: 0, count: n * m)  // P Hᵀ, n×m
        for i in 0..<n { for j in 0..<m { var s = 0.0; for k in 0..<n { s += p[i * n + k] * h[j * n + k] }; ph[i * m + j] = s } }
        var s = r
        for i in 0..<m { for j in 0..<m { var a = 0.0; for k in 0..<n { a += h[i * n + k] * ph[k * m + j] }; s[i * m + j] += a } }
        let si = Self.inverse(s, m)
        var nis = 0.0
        for i in 0..<m { for j in 0..<m { nis += y[i] * si[i * m + j] * y[j] } }
        return (y, s, nis)
    }

    /// Applies the update (Joseph form). Returns the normalised innovation squared (χ², m degrees of freedom).
    @discardableResult
    mutating func update(z: [Double], h: [Double], r: [Double]) -> Double {
        let m = z.count
        let (y, s, nis) = innovation(z: z, h: h, r: r)
        let si = Self.inverse(s, m)
        var ph = [Double](repeating: 0, count: n * m)
        for i in 0..<n { for j in 0..<m { var a = 0.0; for k in 0..<n { a += p[i * n + k] * h[j * n + k] }; ph[i * m + j] = a } }
        var kg = [Double](repeating: 0, count: n * m)
        for i in 0..<n { for j in 0..<m { var a = 0.0; for k in 0..<m { a += ph[i * m + k] * si[k * m + j] }; kg[i * m + j] = a } }
        for i in 0..<n { var a = 0.0; for j in 0..<m { a += kg[i * m + j] * y[j] }; x[i] += a }
        // Joseph: P ← (I − KH) P (I − KH)ᵀ + K R Kᵀ
        var ikh = [Double](repeating: 0, count: n * n)
        for i in 0..<n { for j in 0..<n {
            var a = i == j ? 1.0 : 0.0
            for k in 0..<m { a -= kg[i * m + k] * h[k * n + j] }
            ikh[i * n + j] = a
        } }
        var t = [Double](repeating: 0, count: n * n)
        for i in 0..<n { for j in 0..<n { var a = 0.0; for k in 0..<n { a += ikh[i * n + k] * p[k * n + j] }; t[i * n + j] = a } }
        var np = [Double](repeating: 0, count: n * n)
        for i in 0..<n { for j in 0..<n {
            var a = 0.0
            for k in 0..<n { a += t[i * n + k] * ikh[j * n + k] }
            for k in 0..<m { for l in 0..<m { a += kg[i * m + k] * r[k * m + l] * kg[j * m + l] } }
            np[i * n + j] = a
        } }
        p = np
        symmetrize()
        return nis
    }

    mutating func symmetrize() {
        for i in 0..<n { for j in (i + 1)..<max(i + 1, n) { let a = (p[i * n + j] + p[j * n + i]) / 2; p[i * n + j] = a; p[j * n + i] = a } }
    }

    static func inverse(_ s: [Double], _ m: Int) -> [Double] {
        if m == 1 { return [1 / s[0]] }
        let det = s[0] * s[3] - s[1] * s[2]
        return [s[3] / det, -s[1] / det, -s[2] / det, s[0] / det]
    }
}
