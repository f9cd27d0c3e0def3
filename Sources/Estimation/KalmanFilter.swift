/// A small dense Kalman filter with six states and one- or two-row measurements, in fixed-size storage
/// (`InlineArray`): no heap allocation per update, which keeps one update well under a microsecond.
struct KalmanFilter: Sendable {
    static let n = 6
    var x = InlineArray<6, Double>(repeating: 0)
    /// Covariance, row-major 6×6.
    var p = InlineArray<36, Double>(repeating: 0)

    init() {}

    subscript(_ r: Int, _ c: Int) -> Double {
        get { p[r * 6 + c] }
        set { p[r * 6 + c] = newValue }
    }

    /// Constant-velocity transition with a first-order Gauss–Markov pair: x ← F x + u, P ← F P Fᵀ + Q, where
    /// F = [[I, dt·I, 0], [0, I, 0], [0, 0, φ·I]] (blocks of 2). `q` holds the diagonal-block process noise.
    mutating func predictConstantVelocity(dt: Double, phi: Double, qPos: Double, qPosVel: Double, qVel: Double,
                                          qBias: Double, u: (Double, Double, Double, Double)?) {
        // x
        x[0] += dt * x[2]; x[1] += dt * x[3]
        x[4] *= phi; x[5] *= phi
        if let u { x[0] += u.0; x[1] += u.1; x[2] += u.2; x[3] += u.3 }
        // F P Fᵀ in place (no copies of the 288-byte matrix): first the rows (0, 1 gain dt × rows 2, 3, which this
        // pass does not change; 4, 5 scale by φ), then the columns likewise. Same arithmetic as with copies.
        for j in 0..<6 {
            p[0 * 6 + j] += dt * p[2 * 6 + j]
            p[1 * 6 + j] += dt * p[3 * 6 + j]
            p[4 * 6 + j] *= phi
            p[5 * 6 + j] *= phi
        }
        for i in 0..<6 {
            p[i * 6 + 0] += dt * p[i * 6 + 2]
            p[i * 6 + 1] += dt * p[i * 6 + 3]
            p[i * 6 + 4] *= phi
            p[i * 6 + 5] *= phi
        }
        p[0 * 6 + 0] += qPos; p[0 * 6 + 2] += qPosVel; p[2 * 6 + 0] += qPosVel; p[2 * 6 + 2] += qVel
        p[1 * 6 + 1] += qPos; p[1 * 6 + 3] += qPosVel; p[3 * 6 + 1] += qPosVel; p[3 * 6 + 3] += qVel
        p[4 * 6 + 4] += qBias; p[5 * 6 + 5] += qBias
    }

    /// A 2-row measurement z = x[a0] + x[b0] (b0 < 0: absent), x[a1] + x[b1], with covariance r (2×2 row-major).
    /// Returns the innovation, its covariance S and the normalised innovation squared (χ², 2 dof).
    func innovation(_ z: (Double, Double), a: (Int, Int), b: (Int, Int), r: (Double, Double, Double, Double))
        -> (y: (Double, Double), s: (Double, Double, Double, Double), nis: Double) {
        let y0 = z.0 - x[a.0] - (b.0 >= 0 ? x[b.0] : 0)
        let y1 = z.1 - x[a.1] - (b.1 >= 0 ? x[b.1] : 0)
        // H P Hᵀ for selector rows.
        func hp(_ ai: Int, _ bi: Int, _ aj: Int, _ bj: Int) -> Double {
            var v = p[ai * 6 + aj]
            if bi >= 0 { v += p[bi * 6 + aj] }
            if bj >= 0 { v += p[ai * 6 + bj]; if bi >= 0 { v += p[bi * 6 + bj] } }
            return v
        }
        let s00 = hp(a.0, b.0, a.0, b.0) + r.0
        let s01 = hp(a.0, b.0, a.1, b.1) + r.1
        let s10 = hp(a.1, b.1, a.0, b.0) + r.2
        let s11 = hp(a.1, b.1, a.1, b.1) + r.3
        let det = s00 * s11 - s01 * s10
        guard det > 0, det.isFinite else { return ((y0, y1), (s00, s01, s10, s11), .infinity) }
        let nis = (y0 * (s11 * y0 - s01 * y1) + y1 * (-s10 * y0 + s00 * y1)) / det
        return ((y0, y1), (s00, s01, s10, s11), nis)
    }

    /// Applies the measurement of `innovation`: the Joseph form's covariance, computed expanded (symmetric by
    /// construction; a variance that rounding would take below zero is set to zero).
    mutating func update(_ z: (Double, Double), a: (Int, Int), b: (Int, Int), r: (Double, Double, Double, Double)) {
        let (y, s, _) = innovation(z, a: a, b: b, r: r)
        let det = s.0 * s.3 - s.1 * s.2
        guard det > 0, det.isFinite else { return }
        let i00 = s.3 / det, i01 = -s.1 / det, i10 = -s.2 / det, i11 = s.0 / det
        // P Hᵀ (6×2)
        var ph0 = InlineArray<6, Double>(repeating: 0), ph1 = InlineArray<6, Double>(repeating: 0)
        for i in 0..<6 {
            ph0[i] = p[i * 6 + a.0] + (b.0 >= 0 ? p[i * 6 + b.0] : 0)
            ph1[i] = p[i * 6 + a.1] + (b.1 >= 0 ? p[i * 6 + b.1] : 0)
        }
        // K = P Hᵀ S⁻¹
        var k0 = InlineArray<6, Double>(repeating: 0), k1 = InlineArray<6, Double>(repeating: 0)
        for i in 0..<6 {
            k0[i] = ph0[i] * i00 + ph1[i] * i10
            k1[i] = ph0[i] * i01 + ph1[i] * i11
        }
        for i in 0..<6 { x[i] += k0[i] * y.0 + k1[i] * y.1 }
        // The Joseph form (I − K H) P (I − K H)ᵀ + K R Kᵀ, expanded: P − K (P Hᵀ)ᵀ − (P Hᵀ) Kᵀ + K S Kᵀ (S = H P Hᵀ + R).
        // The same matrix for any gain, symmetric by construction, in O(n²) from P Hᵀ and K instead of two 6×6
        // products (half of a smoothed fix's time went there).
        for i in 0..<6 {
            let ks0 = k0[i] * s.0 + k1[i] * s.2, ks1 = k0[i] * s.1 + k1[i] * s.3
            for j in i..<6 {
                let v = p[i * 6 + j] - k0[i] * ph0[j] - k1[i] * ph1[j] - ph0[i] * k0[j] - ph1[i] * k1[j]
                    + ks0 * k0[j] + ks1 * k1[j]
                p[i * 6 + j] = v
                p[j * 6 + i] = v
            }
            if p[i * 6 + i] < 0 { p[i * 6 + i] = 0 }
        }
    }
}
