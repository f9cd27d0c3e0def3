#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// A small dense Kalman filter with six states and one- or two-row measurements, in fixed-size storage
/// (`InlineArray`): no heap allocation per update, which keeps one update well under a microsecond.
struct KalmanFilter: Sendable {
    static let n = 6
    var x = InlineArray<6, Double>(repeating: 0)
    /// Covariance, row-major 6×6.
    var p = InlineArray<36, Double>(repeating: 0)
    /// The covariance of the estimate's *real* error, row-major 6×6: the filter's own gains applied, but with the
    /// noise the data shows (`update`'s `rTrue`, the process noise × `trueProcessScale`) and no wander in the
    /// error state (what the receiver's error does not average is counted apart). What the accuracy reports.
    var pt = InlineArray<36, Double>(repeating: 0)
    /// The share of the modelled process noise the vehicle's real motion shows (≤ 1), for `pt`.
    var trueProcessScale = 1.0
    /// True for a copy of the filter kept only for its velocity (the reported speed and course): `update` then changes
    /// only the velocity and its 2×2 covariance block (the rest of `x` and `p` is left stale), and `pt` is not carried.
    var velocityOnly = false

    init() {}

    subscript(_ r: Int, _ c: Int) -> Double {
        get { p[r * 6 + c] }
        set { p[r * 6 + c] = newValue }
    }

    /// `predictConstantVelocity` with the exact discretisation over `dt` of white-noise acceleration of density `qd`
    /// (m²/s³) and of the error state's first-order Gauss–Markov decay (time constant `tau`, steady variance
    /// `biasVariance`).
    mutating func predict(dt: Double, accelerationDensity qd: Double, biasTimeConstant tau: Double, biasVariance: Double,
                          u: (Double, Double, Double, Double)? = nil) {
        let phi = exp(-dt / tau)
        predictConstantVelocity(dt: dt, phi: phi, qPos: qd * dt * dt * dt / 3, qPosVel: qd * dt * dt / 2, qVel: qd * dt,
                                qBias: biasVariance * (1 - phi * phi), u: u)
    }

    /// As `predict`, with an acceleration noise density of `along` along the unit direction `u` (east, north) and
    /// `across` across it: a gyroscope turns the velocity (the acceleration across the track is measured) but says
    /// nothing of speeding up or braking.
    mutating func predict(dt: Double, along: Double, across: Double, direction u: (east: Double, north: Double),
                          biasTimeConstant tau: Double, biasVariance: Double, u control: (Double, Double, Double, Double)?) {
        let phi = exp(-dt / tau)
        // M = along·u uᵀ + across·w wᵀ (w ⟂ u) = across·I + (along − across)·u uᵀ.
        let d = along - across
        let mee = across + d * u.east * u.east, mnn = across + d * u.north * u.north, men = d * u.east * u.north
        let c3 = dt * dt * dt / 3, c2 = dt * dt / 2
        predictConstantVelocity(dt: dt, phi: phi, qPos: 0, qPosVel: 0, qVel: 0, qBias: biasVariance * (1 - phi * phi),
                                u: control)
        func add(_ m: inout InlineArray<36, Double>, _ a: Double) {
            let q = (mee * a, men * a, mnn * a)
            // position–position, position–velocity, velocity–velocity blocks (east 0/2, north 1/3).
            m[0 * 6 + 0] += q.0 * c3; m[1 * 6 + 1] += q.2 * c3; m[0 * 6 + 1] += q.1 * c3; m[1 * 6 + 0] += q.1 * c3
            m[0 * 6 + 2] += q.0 * c2; m[2 * 6 + 0] += q.0 * c2; m[1 * 6 + 3] += q.2 * c2; m[3 * 6 + 1] += q.2 * c2
            m[0 * 6 + 3] += q.1 * c2; m[3 * 6 + 0] += q.1 * c2; m[1 * 6 + 2] += q.1 * c2; m[2 * 6 + 1] += q.1 * c2
            m[2 * 6 + 2] += q.0 * dt; m[3 * 6 + 3] += q.2 * dt; m[2 * 6 + 3] += q.1 * dt; m[3 * 6 + 2] += q.1 * dt
        }
        add(&p, 1)
        if !velocityOnly { add(&pt, trueProcessScale) }
    }

    /// Constant-velocity transition with a first-order Gauss–Markov pair: x ← F x + u, P ← F P Fᵀ + Q, where
    /// F = [[I, dt·I, 0], [0, I, 0], [0, 0, φ·I]] (blocks of 2). `q` holds the diagonal-block process noise.
    mutating func predictConstantVelocity(dt: Double, phi: Double, qPos: Double, qPosVel: Double, qVel: Double,
                                          qBias: Double, u: (Double, Double, Double, Double)?) {
        // x
        x[0] += dt * x[2]; x[1] += dt * x[3]
        x[4] *= phi; x[5] *= phi
        if let u { x[0] += u.0; x[1] += u.1; x[2] += u.2; x[3] += u.3 }
        Self.transition(&p, dt: dt, phi: phi)
        p[0 * 6 + 0] += qPos; p[0 * 6 + 2] += qPosVel; p[2 * 6 + 0] += qPosVel; p[2 * 6 + 2] += qVel
        p[1 * 6 + 1] += qPos; p[1 * 6 + 3] += qPosVel; p[3 * 6 + 1] += qPosVel; p[3 * 6 + 3] += qVel
        p[4 * 6 + 4] += qBias; p[5 * 6 + 5] += qBias
        guard !velocityOnly else { return }
        Self.transition(&pt, dt: dt, phi: phi)
        let a = trueProcessScale
        pt[0 * 6 + 0] += a * qPos; pt[0 * 6 + 2] += a * qPosVel; pt[2 * 6 + 0] += a * qPosVel; pt[2 * 6 + 2] += a * qVel
        pt[1 * 6 + 1] += a * qPos; pt[1 * 6 + 3] += a * qPosVel; pt[3 * 6 + 1] += a * qPosVel; pt[3 * 6 + 3] += a * qVel
    }

    /// A 2-row measurement z = x[a0] + x[b0] (b0 < 0: absent), x[a1] + x[b1], with covariance r (2×2 row-major).
    /// Returns the innovation, its covariance S and the normalised innovation squared (χ², 2 dof).
    /// `mutating` though it changes nothing: called on the smoother's stored filter from its mutating methods, a
    /// non-mutating call copied the whole filter (600 bytes with `pt`) first; that copy cost more than `pt`'s update.
    mutating func innovation(_ z: (Double, Double), a: (Int, Int), b: (Int, Int), r: (Double, Double, Double, Double))
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
    /// `rTrue`: the measurement's real noise, for `pt` (nil: `r`).
    mutating func update(_ z: (Double, Double), a: (Int, Int), b: (Int, Int), r: (Double, Double, Double, Double),
                         rTrue: (Double, Double, Double, Double)? = nil) {
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
        if velocityOnly {
            // x[2], x[3] and their block only (the Joseph form with the optimal gain: P − K (P Hᵀ)ᵀ).
            x[2] += k0[2] * y.0 + k1[2] * y.1; x[3] += k0[3] * y.0 + k1[3] * y.1
            let v22 = p[14] - k0[2] * ph0[2] - k1[2] * ph1[2], v23 = p[15] - k0[2] * ph0[3] - k1[2] * ph1[3]
            let v33 = p[21] - k0[3] * ph0[3] - k1[3] * ph1[3]
            p[14] = Swift.max(0, v22); p[15] = v23; p[20] = v23; p[21] = Swift.max(0, v33)
            return
        }
        for i in 0..<6 { x[i] += k0[i] * y.0 + k1[i] * y.1 }
        // The Joseph form (I − K H) P (I − K H)ᵀ + K R Kᵀ, expanded: P − K (P Hᵀ)ᵀ − (P Hᵀ) Kᵀ + K S Kᵀ (S = H P Hᵀ + R).
        // The same matrix for any gain, symmetric by construction, in O(n²) from P Hᵀ and K instead of two 6×6
        // products (half of a smoothed fix's time went there).
        for i in 0..<6 {
            // (K S − P Hᵀ) per row first: the entry is then P − K (P Hᵀ)ᵀ + (K S − P Hᵀ) Kᵀ, 4 products instead of 6.
            let ki0 = k0[i], ki1 = k1[i]
            let u0 = ki0 * s.0 + ki1 * s.2 - ph0[i], u1 = ki0 * s.1 + ki1 * s.3 - ph1[i]
            for j in i..<6 {
                let v = p[i * 6 + j] - ki0 * ph0[j] - ki1 * ph1[j] + u0 * k0[j] + u1 * k1[j]
                p[i * 6 + j] = v
                p[j * 6 + i] = v
            }
            if p[i * 7] < 0 { p[i * 7] = 0 }
        }
        // The real error with the same gain: (I − K H) Pt (I − K H)ᵀ + K Rt Kᵀ, likewise with Pt Hᵀ and
        // St = H Pt Hᵀ + Rt. (The loop is written out twice on purpose: as one static helper taking the matrix inout,
        // like `transition`, one update measured 761–781 ns against 691–711 ns.)
        let rt = rTrue ?? r
        var qh0 = InlineArray<6, Double>(repeating: 0), qh1 = InlineArray<6, Double>(repeating: 0)
        for i in 0..<6 {
            qh0[i] = pt[i * 6 + a.0] + (b.0 >= 0 ? pt[i * 6 + b.0] : 0)
            qh1[i] = pt[i * 6 + a.1] + (b.1 >= 0 ? pt[i * 6 + b.1] : 0)
        }
        let t00 = qh0[a.0] + (b.0 >= 0 ? qh0[b.0] : 0) + rt.0
        let t01 = qh1[a.0] + (b.0 >= 0 ? qh1[b.0] : 0) + rt.1
        let t10 = qh0[a.1] + (b.1 >= 0 ? qh0[b.1] : 0) + rt.2
        let t11 = qh1[a.1] + (b.1 >= 0 ? qh1[b.1] : 0) + rt.3
        for i in 0..<6 {
            let ki0 = k0[i], ki1 = k1[i]
            let u0 = ki0 * t00 + ki1 * t10 - qh0[i], u1 = ki0 * t01 + ki1 * t11 - qh1[i]
            for j in i..<6 {
                let v = pt[i * 6 + j] - ki0 * qh0[j] - ki1 * qh1[j] + u0 * k0[j] + u1 * k1[j]
                pt[i * 6 + j] = v
                pt[j * 6 + i] = v
            }
            if pt[i * 7] < 0 { pt[i * 7] = 0 }
        }
    }

    /// F m Fᵀ in place (no copies of the 288-byte matrix) for the constant-velocity transition: first the rows (0, 1
    /// gain dt × rows 2, 3, which this pass does not change; 4, 5 scale by φ), then the columns likewise. Same
    /// arithmetic as with copies.
    @inline(__always)
    static func transition(_ m: inout InlineArray<36, Double>, dt: Double, phi: Double) {
        for j in 0..<6 {
            m[0 * 6 + j] += dt * m[2 * 6 + j]
            m[1 * 6 + j] += dt * m[3 * 6 + j]
            m[4 * 6 + j] *= phi
            m[5 * 6 + j] *= phi
        }
        for i in 0..<6 {
            m[i * 6 + 0] += dt * m[i * 6 + 2]
            m[i * 6 + 1] += dt * m[i * 6 + 3]
            m[i * 6 + 4] *= phi
            m[i * 6 + 5] *= phi
        }
    }
}
