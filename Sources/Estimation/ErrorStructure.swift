/// What the receiver's own fixes show about how its error decorrelates: a structure function (the Allan-style
/// variance of position increments at lags 1, 2, 4 … 128 s) of the fixes with the motion removed.
///
/// The increment of a fix over a lag L, minus the motion over L, is the change of the receiver's error. Its
/// per-axis half mean square is S(L) = σ²_white + Σ σ²_i (1 − e^(−L/τ_i)) for white noise plus Gauss–Markov biases.
/// So S(1 s) is (about) the white part, which a filter averages away, and S(L) at the longest lag is the wander seen
/// so far. The motion is known exactly only while stationary (it is zero), so lags of more than 2 s are taken within
/// stops; 1–2 s lags are also taken while moving, with the receiver's own velocity (Doppler speed and course)
/// removing the motion.
///
/// What no increment can show — a bias that does not change within the longest lag seen — is taken from the
/// receiver's own claim, which counts as one observation (a prior) against the independent long-lag samples; and
/// while S(L) is still rising at the longest lag (the wander is slower than what was observed), the samples do not
/// override the claim at all. No constant is fitted to any file: the estimate is the data's, starting from the
/// receiver's claim minus the white part the data already shows.
///
/// Fixed-size state (a ring of 1 Hz samples, `InlineArray`), O(lags) per fix, no allocation.
public struct ErrorStructure: Sendable {
    public static let lagCount = 8
    static let ringSize = 136
    /// Sample times (s since the first sample), motion-removed positions (m) and segment identifiers.
    private var times = InlineArray<136, Double>(repeating: 0)
    private var east = InlineArray<136, Double>(repeating: 0)
    private var north = InlineArray<136, Double>(repeating: 0)
    /// Stop number for stationary samples (> 0), or minus the moving segment's number.
    private var segment = InlineArray<136, Int32>(repeating: 0)
    private var moving = InlineArray<136, Int32>(repeating: 0)
    private var stored = 0
    private var origin: Double?
    /// Σ (Δe² + Δn²)/4 and the number of increments at lag 2^k s.
    private var sums = InlineArray<8, Double>(repeating: 0)
    private var counts = InlineArray<8, Double>(repeating: 0)
    /// The same over any samples joined by the receiver's velocity (moving too): the error's change plus the
    /// integrated velocity error.
    private var movingSums = InlineArray<8, Double>(repeating: 0)
    private var movingCounts = InlineArray<8, Double>(repeating: 0)
    /// Motion removed so far (the integral of the receiver's velocity while moving), m.
    private var motion: (east: Double, north: Double) = (0, 0)
    private var lastTime: Double?
    private var lastVelocity: (east: Double, north: Double)?
    private var lastStoredTime = -Double.infinity
    private var movingSegment: Int32 = 0
    private var stop: Int32 = 0
    private var wasStationary = false

    public init() {}

    /// One fix: time (s), measured east/north (m, in the smoother's frame), the receiver's velocity (m/s; nil when it
    /// reported none) and whether the vehicle is stationary. `frameShift` is applied when the frame moved.
    public mutating func add(time t: Double, east e: Double, north n: Double, velocity: (east: Double, north: Double)?,
                             stationary: Bool) {
        if let lt = lastTime {
            let dt = t - lt
            guard dt > 0 else { return }
            if stationary {
                if !wasStationary { stop += 1 }
            } else if let v = velocity, let lv = lastVelocity, dt <= 2.5 {
                motion.east += (v.east + lv.east) / 2 * dt
                motion.north += (v.north + lv.north) / 2 * dt
            } else {
                movingSegment += 1   // no velocity to remove the motion with: increments across here are not used
            }
        }
        lastTime = t
        lastVelocity = velocity
        wasStationary = stationary
        guard t - lastStoredTime >= 0.95 else { return }
        lastStoredTime = t
        let o = origin ?? t
        origin = o
        let slot = stored % Self.ringSize
        times[slot] = t - o
        east[slot] = e - motion.east
        north[slot] = n - motion.north
        segment[slot] = stationary ? stop : -movingSegment
        moving[slot] = movingSegment
        stored += 1
        // Increments to the sample about 2^k s earlier.
        for k in 0..<Self.lagCount {
            let lag = Double(1 << k)
            let back = Int(lag)
            guard back < stored, back < Self.ringSize else { break }
            let j = (stored - 1 - back) % Self.ringSize
            let dtLag = times[slot] - times[j]
            guard dtLag >= 0.75 * lag, dtLag <= 1.5 * lag else { continue }
            let de = east[slot] - east[j], dn = north[slot] - north[j]
            if moving[slot] == moving[j] {
                movingSums[k] += (de * de + dn * dn) / 4
                movingCounts[k] += 1
            }
            guard segment[j] == segment[slot] else { continue }
            // Beyond 2 s only within one stop (the velocity's own error would grow into the increment).
            guard k <= 1 || segment[slot] > 0 else { continue }
            sums[k] += (de * de + dn * dn) / 4
            counts[k] += 1
        }
    }

    /// Re-expresses the stored positions after the smoother moved its frame origin by (de, dn).
    public mutating func shift(east de: Double, north dn: Double) {
        for i in 0..<Self.ringSize { east[i] -= de; north[i] -= dn }
    }

    /// Per-axis half mean-square increment at lag 2^k s, nil without samples.
    public func structure(lag k: Int) -> Double? { counts[k] > 0 ? sums[k] / counts[k] : nil }
    public func movingStructure(lag k: Int) -> Double? { movingCounts[k] > 0 ? movingSums[k] / movingCounts[k] : nil }
    /// Independent samples at lag 2^k s (overlapping increments at 1 Hz share their errors over the lag).
    public func independentSamples(lag k: Int) -> Double { counts[k] / Double(1 << k) }

    /// The split of the receiver's per-axis error variance into what averages away and what does not.
    public struct Estimate: Sendable, Hashable {
        /// White (epoch-to-epoch) variance, m²: S(1 s); nil before any evidence.
        public var white: Double?
        /// Total error variance believed, m² (the claim until the data overrides it).
        public var total: Double
        /// Longest lag with evidence (s) and how many independent samples it has.
        public var longestLagSeconds: Double
        public var evidence: Double
        /// 0 … 1: how much the structure function still rises at the longest lag (1: linearly, the claim is kept).
        public var rising: Double
        /// The part no filter can average away, m².
        public var slow: Double { Swift.max(0, total - (white ?? 0)) }
    }

    /// The estimate given the receiver's claimed per-axis variance `claim` (m²).
    public func estimate(claim: Double) -> Estimate {
        let white = counts[0] >= 5 ? sums[0] / counts[0] : nil
        // The longest lag (≥ 4 s) with at least two independent samples.
        var top = -1
        for k in 2..<Self.lagCount where independentSamples(lag: k) >= 2 { top = k }
        guard top >= 2, let sTop = structure(lag: top) else {
            return Estimate(white: white, total: Swift.max(claim, white ?? 0), longestLagSeconds: 0, evidence: 0, rising: 1)
        }
        // Rise between L/4 and L relative to the growth above the white level: 0.75 for a wander much slower than L
        // (S grows linearly), 0 once S has levelled off.
        let base = white ?? 0
        let quarter = structure(lag: top - 2) ?? base
        let growth = sTop - base
        let rising = growth > 0 ? Swift.min(1, Swift.max(0, (sTop - quarter) / growth / 0.75)) : 0
        // The plateau a Gauss–Markov wander would reach: with y = e^(−L/4τ), (S(L) − w) / (S(L/4) − w) = 1 + y + y² + y³;
        // solved for y (bisection), the wander's variance is (S(L) − w) / (1 − y⁴). Unbounded while S grows linearly.
        var plateau = Double.infinity
        if growth <= 0 {
            plateau = sTop
        } else if quarter - base > 0 {
            let ratio = growth / (quarter - base)
            if ratio < 3.9 {
                var lo = 0.0, hi = 1.0
                for _ in 0..<30 {
                    let y = (lo + hi) / 2
                    if 1 + y + y * y + y * y * y < ratio { lo = y } else { hi = y }
                }
                let y = (lo + hi) / 2
                plateau = base + growth / Swift.max(1e-9, 1 - y * y * y * y)
            }
        }
        // The claim is a floor the data can raise (a wander larger than claimed, seen levelling off or not) but not
        // lower: a bias that does not change within the longest lag looks exactly like a pessimistic claim.
        let total = Swift.max(claim, sTop, plateau.isFinite ? plateau : 0)
        return Estimate(white: white, total: total, longestLagSeconds: Double(1 << top),
                        evidence: independentSamples(lag: top), rising: rising)
    }
}
