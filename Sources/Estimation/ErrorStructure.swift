/// What the receiver's own fixes show about how its error decorrelates: a structure function (the Allan-style
/// variance of position increments at lags 1, 2, 4 … 128 s) of the fixes with the motion removed.
///
/// The increment of a fix over a lag L, minus the motion over L, is the change of the receiver's error. Its
/// per-axis half mean square is S(L) = σ²_white + Σ σ²_i (1 − e^(−L/τ_i)) for white noise plus Gauss–Markov biases.
/// So S(1 s) is (about) the white part, which a filter averages away, and S(L) at the longest lag is the wander seen
/// so far. The motion is known exactly only while stationary (it is zero), so lags of more than 2 s are taken within
/// stops; 1–2 s lags are also taken while moving, with the receiver's own velocity (Doppler speed and course)
/// removing the motion. The moving structure (every lag, the velocity removing the motion) is used too, where it can
/// be trusted: with the velocity's time tag fitted and its integrated white noise taken off, lag by lag while it grows
/// like a position wander (concavely) rather than like an integrated velocity bias (`Lags.trustedMovingLag`).
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
    /// What the increments have shown so far (the sums the estimate reads: small, so reading it copies little).
    public private(set) var lags = Lags()
    /// Motion removed so far (the integral of the receiver's velocity while moving, trapezoid), m, and Σ Δv·dt.
    private var motion: (east: Double, north: Double) = (0, 0)
    private var velocityChange: (east: Double, north: Double) = (0, 0)
    private var deltaEast = InlineArray<136, Double>(repeating: 0)
    private var deltaNorth = InlineArray<136, Double>(repeating: 0)
    private var lastTime: Double?
    private var lastVelocity: (east: Double, north: Double)?
    private var lastStoredTime = -Double.infinity
    /// The usual interval between stored samples (s; a running mean, each interval counted at most 3 × the mean): 1 s
    /// at 1 Hz or faster, the receiver's interval below.
    private var storedSpacing = 0.0
    /// The receiver's usual interval between fixes (s; a running mean like `storedSpacing`'s, over every fix).
    private var usualStep = 0.0
    /// Samples further apart than this (s) are a slow receiver's (below 1 Hz: one sample per fix).
    static let slowSpacingSeconds = 1.5
    /// Whether the shortest lag spans more than 1 s (a receiver slower than 1 Hz, whose shortest lag is its interval).
    public var shortestLagIsLong: Bool { storedSpacing > Self.slowSpacingSeconds }
    private var movingSegment: Int32 = 0
    private var stop: Int32 = 0
    private var wasStationary = false

    public init() {}

    /// One fix: time (s), measured east/north (m, in the smoother's frame), the receiver's velocity (m/s; nil when it
    /// reported none; while stationary it is the velocity noise at rest) and whether the vehicle is stationary.
    public mutating func add(time t: Double, east e: Double, north n: Double, velocity: (east: Double, north: Double)?,
                             stationary: Bool, claim: Double = 0) {
        if let lt = lastTime {
            let dt = t - lt
            guard dt > 0 else { return }
            if stationary {
                if !wasStationary { stop += 1 }
                if let v = velocity, wasStationary {
                    lags.restVelocitySum += (v.east * v.east + v.north * v.north) / 2
                    lags.restVelocityCount += 1
                }
            } else if let v = velocity, let lv = lastVelocity, dt <= 2.5,
                      usualStep == 0 || dt <= 1.5 * usualStep || Self.smoothAcross(v, lv, dt: dt, white: lags.positionWhite) {
                // (Across a missing fix only where the velocity barely changed: the two velocities say nothing of the
                // one between, and a car accelerating at 1.5 m/s² put 1.5 m of error into a 2 s step at 1 Hz, which
                // a centimetre receiver dropping one fix in ten learned as a wander: a 0.7 m radius for 2 cm errors.)
                lags.stepSum += dt; lags.stepSquareSum += dt * dt
                motion.east += (v.east + lv.east) / 2 * dt
                motion.north += (v.north + lv.north) / 2 * dt
                velocityChange.east += (v.east - lv.east) * dt
                velocityChange.north += (v.north - lv.north) * dt
            } else {
                movingSegment += 1   // no velocity to remove the motion with: increments across here are not used
            }
            usualStep = usualStep == 0 ? dt : usualStep + 0.1 * (Swift.min(dt, 3 * usualStep) - usualStep)
        }
        lastTime = t
        lastVelocity = velocity
        wasStationary = stationary
        guard t - lastStoredTime >= 0.95 else { return }
        if lastStoredTime.isFinite {
            let step = t - lastStoredTime
            // A gap in the samples (an outage: more than 3 of the usual intervals) ends the segments: no increment
            // spans it, as none spans a moving stretch without velocities. (What the vehicle and the receiver's error
            // did in it is unknown; the outage receiver's increments across its gaps raised its total above an
            // honest claim.)
            if storedSpacing > 0, step > 3 * storedSpacing { stop += 1; movingSegment += 1 }
            storedSpacing = storedSpacing == 0 ? step : storedSpacing + 0.1 * (Swift.min(step, 3 * storedSpacing) - storedSpacing)
        }
        lastStoredTime = t
        if claim > 0 { lags.claimCount += 1; lags.claimMean += (claim - lags.claimMean) / lags.claimCount }
        let o = origin ?? t
        origin = o
        let slot = stored % Self.ringSize
        times[slot] = t - o
        east[slot] = e - motion.east
        north[slot] = n - motion.north
        deltaEast[slot] = velocityChange.east
        deltaNorth[slot] = velocityChange.north
        segment[slot] = stationary ? stop : -movingSegment
        moving[slot] = movingSegment
        stored += 1
        // Increments to the sample about 2^k s earlier. At 1 Hz or faster the samples are a second apart, and the
        // sample is 2^k samples back. A slower receiver's is the sample nearest to 2^k s back: at 0.5 Hz, counted
        // 2^k samples back, every increment spanned twice its lag and none was taken, so the structure learned
        // nothing. Its shortest lag is its own interval: the white part's upper bound, as S(1 s) is at 1 Hz.
        let slow = shortestLagIsLong, spacing = Swift.max(1, storedSpacing)
        for k in 0..<Self.lagCount {
            let lag = Double(1 << k)
            var back = slow ? Swift.max(1, Int((lag / spacing).rounded())) : Int(lag)
            guard back < stored, back < Self.ringSize else { break }
            var dtLag = times[slot] - times[(stored - 1 - back) % Self.ringSize]
            if slow {
                while back + 1 < stored, back + 1 < Self.ringSize,
                      case let d = times[slot] - times[(stored - 2 - back) % Self.ringSize], abs(d - lag) < abs(dtLag - lag) {
                    back += 1; dtLag = d
                }
                while back > 1, case let d = times[slot] - times[(stored - back) % Self.ringSize], abs(d - lag) < abs(dtLag - lag) {
                    back -= 1; dtLag = d
                }
            }
            let j = (stored - 1 - back) % Self.ringSize
            guard dtLag >= 0.75 * lag, dtLag <= 1.5 * Swift.max(lag, k == 0 ? spacing : lag) else { continue }
            let de = east[slot] - east[j], dn = north[slot] - north[j]
            if moving[slot] == moving[j] {
                let be = deltaEast[slot] - deltaEast[j], bn = deltaNorth[slot] - deltaNorth[j]
                lags.movingSums[k] += (de * de + dn * dn) / 4
                lags.movingCross[k] += (de * be + dn * bn) / 4
                lags.movingDeltaSums[k] += (be * be + bn * bn) / 4
                lags.movingCounts[k] += 1
            }
            guard segment[j] == segment[slot] else { continue }
            // Beyond 2 s only within one stop (the velocity's own error would grow into the increment).
            guard k <= 1 || segment[slot] > 0 else { continue }
            lags.sums[k] += (de * de + dn * dn) / 4
            lags.counts[k] += 1
        }
    }

    /// The receiver's clock jumped: the samples so far are moved onto the new time base so that the last one sits at
    /// `t` (s), and the next sample starts a new segment (no increment spans the jump). Without this a jump back
    /// left every later sample "before" the last one, and nothing was learned until the new time base caught up with
    /// the old: 27 minutes after a jump back of 27 minutes, never after a week-number rollover.
    public mutating func rebaseTime(to t: Double) {
        guard let lt = lastTime else { return }
        let offset = t - lt
        if let o = origin { origin = o + offset }
        lastTime = t
        lastStoredTime += offset
        lastVelocity = nil
        wasStationary = false
        movingSegment += 1
    }

    /// Whether the motion over a step longer than the receiver's usual one (a fix missing in it) is still known from
    /// the velocities at its ends: what a change of velocity between them may put into the step (|Δv|·dt/4 per axis,
    /// the middle velocity off the ends' line by up to half the change over half the step) is within the white noise.
    static func smoothAcross(_ v: (east: Double, north: Double), _ lv: (east: Double, north: Double), dt: Double,
                             white: Double?) -> Bool {
        guard let w = white else { return false }
        let de = v.east - lv.east, dn = v.north - lv.north
        return (de * de + dn * dn) / 2 * dt * dt / 16 <= w
    }

    /// Re-expresses the stored positions after the smoother moved its frame origin by (de, dn).
    public mutating func shift(east de: Double, north dn: Double) {
        for i in 0..<Self.ringSize { east[i] -= de; north[i] -= dn }
    }

    /// Per-axis half mean-square increment at lag 2^k s, nil without samples (see `Lags`).
    public func structure(lag k: Int) -> Double? { lags.structure(lag: k) }
    public func movingStructure(lag k: Int) -> Double? { lags.movingStructure(lag: k) }
    public func independentSamples(lag k: Int) -> Double { lags.independentSamples(lag: k) }
    public func movingIndependentSamples(lag k: Int) -> Double { lags.movingIndependentSamples(lag: k) }
    public var velocityTimeTag: Double { lags.velocityTimeTag }
    public var restVelocityVariance: Double? { lags.restVelocityVariance }
    public func movingPositionStructure(lag k: Int) -> Double? { lags.movingPositionStructure(lag: k) }
    public func trustedMovingLag() -> (lag: Int, value: Double, quarter: Double, white: Double)? { lags.trustedMovingLag() }
    /// The estimate given the receiver's claimed per-axis variance `claim` (m²); see `Lags.estimate(claim:)`.
    public func estimate(claim: Double) -> Estimate { lags.estimate(claim: claim) }

    /// The split of the receiver's per-axis error variance into what averages away and what does not.
    public struct Estimate: Sendable, Hashable {
        /// White (epoch-to-epoch) variance, m²: S(1 s), with the moving increments' motion fitted (`positionWhite`);
        /// nil before any evidence.
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
        /// The total as far as the evidence shows it above the claim, m²: `total`, except that before any stop the white
        /// part counts only beyond two standard errors of the claim (its sampling noise puts it above an honest claim
        /// about half the time; `total` takes it as it is).
        public var shown: Double = 0
    }
}

extension ErrorStructure {
    /// The lag sums: what `estimate(claim:)` reads. Kept apart from the ring of samples so that the smoother can read
    /// them on every fix without copying the ring (a non-mutating call on a stored property of a `mutating` method's
    /// `self` copies the value).
    public struct Lags: Sendable {
        /// Σ (Δe² + Δn²)/4 and the number of increments at lag 2^k s.
        var sums = InlineArray<8, Double>(repeating: 0)
        var counts = InlineArray<8, Double>(repeating: 0)
        /// The same over any samples joined by the receiver's velocity (moving too): the error's change plus the
        /// integrated velocity error.
        /// With the motion over a step taken at a fraction ½ + c of the way from the step's first velocity to its last
        /// (c: the receiver's velocity time tag relative to its position, fitted below), the increment is a − c·b, with a
        /// the increment with the trapezoid's motion and b that of Σ (v − v_prev)·dt; so Σ a·a, Σ a·b and Σ b·b suffice.
        var movingSums = InlineArray<8, Double>(repeating: 0)
        var movingCross = InlineArray<8, Double>(repeating: 0)
        var movingDeltaSums = InlineArray<8, Double>(repeating: 0)
        var movingCounts = InlineArray<8, Double>(repeating: 0)
        /// Σ per-axis square of the velocity the receiver reports while stationary (its Doppler noise at rest) and count.
        var restVelocitySum = 0.0
        var restVelocityCount = 0.0
        /// The mean of the receiver's claimed per-axis variance over the stored samples (m²; a running mean, exactly
        /// the claim while it does not change), and their count.
        var claimMean = 0.0
        var claimCount = 0.0
        /// Σ dt and Σ dt² of the moving steps whose velocities remove the motion.
        var stepSum = 0.0
        var stepSquareSum = 0.0

        /// The fix interval the velocity noise is integrated over (s): Σ dt² / Σ dt of the moving steps, 1 before any.
        /// Over a lag L in steps of h, white velocity noise adds σ²_v h (L + h·((½ − c)² + (½ + c)² − 1)) per axis to
        /// the increment: at 5 Hz a fifth of what 1 Hz steps add. Taken as 1 s, it took off more than a 5 Hz RTK
        /// receiver's whole 1 s structure (its white part came out as zero).
        public var meanStep: Double { stepSum > 0 ? stepSquareSum / stepSum : 1 }

        /// Per-axis half mean-square increment at lag 2^k s, nil without samples.
        public func structure(lag k: Int) -> Double? { counts[k] > 0 ? sums[k] / counts[k] : nil }
        public func movingStructure(lag k: Int) -> Double? { movingStructure(lag: k, timeTag: velocityTimeTag) }
        func movingStructure(lag k: Int, timeTag c: Double) -> Double? {
            guard movingCounts[k] > 0 else { return nil }
            return Swift.max(0, movingSums[k] - 2 * c * movingCross[k] + c * c * movingDeltaSums[k]) / movingCounts[k]
        }
        /// Independent samples of the moving structure at lag 2^k s.
        public func movingIndependentSamples(lag k: Int) -> Double { movingCounts[k] / Double(1 << k) }
        /// Where in each step the receiver's velocity applies, relative to the step's middle (−½: its start, ½: its end):
        /// the least-squares fit of the 1 s increments (receivers tag Doppler velocity differently from position, e.g. as
        /// the mean over the last interval). Physical bounds only: the velocity belongs to some moment of the step.
        /// The velocity's own noise in Σ b·b (σ²_v per axis and step, from the velocity at rest) is taken off, so its
        /// noise does not shrink the fit towards the middle (errors in the regressor).
        public var velocityTimeTag: Double {
            let h = meanStep
            let signal = movingDeltaSums[0] - movingCounts[0] * (restVelocityVariance ?? 0) * h * h
            guard movingCounts[0] >= 10, signal > 0 else { return 0 }
            return Swift.min(0.5, Swift.max(-0.5, movingCross[0] / signal))
        }
        /// Independent samples at lag 2^k s (overlapping increments at 1 Hz share their errors over the lag).
        public func independentSamples(lag k: Int) -> Double { counts[k] / Double(1 << k) }

        /// Per-axis variance of the receiver's velocity while stationary (m²/s²), nil before 10 samples.
        public var restVelocityVariance: Double? { restVelocityCount >= 10 ? restVelocitySum / restVelocityCount : nil }

        /// The moving structure at lag 2^k s less what the velocity's white noise at rest adds by integration over the lag:
        /// the motion over a step of h seconds is ((½ − c)·v_prev + (½ + c)·v)·h, so the L/h steps of a lag L add
        /// σ²_v h² (L/h − 1 + (½ − c)² + (½ + c)²) per axis to the increment (h: `meanStep`), half of it to S. At rest
        /// the noise is its smallest (moving adds multipath and dynamics), so this takes off no more than the velocity
        /// surely adds.
        public func movingPositionStructure(lag k: Int) -> Double? {
            movingPositionStructure(lag: k, timeTag: velocityTimeTag, restVariance: restVelocityVariance ?? 0)
        }
        func movingPositionStructure(lag k: Int, timeTag c: Double, restVariance v: Double) -> Double? {
            guard let m = movingStructure(lag: k, timeTag: c) else { return nil }
            let lag = Double(1 << k)
            let h = meanStep
            return Swift.max(0, m - v * h * (lag + h * ((0.5 - c) * (0.5 - c) + (0.5 + c) * (0.5 + c) - 1)) / 2)
        }

        /// The longest lag (≥ 4 s) at which the moving structure can be trusted as the position's, and its value.
        /// While moving, the increment carries the integrated velocity error too: a velocity bias (a scale or course
        /// error) grows S with L², while the position's own wander (white plus Gauss–Markov, σ²(1 − e^(−L/τ))) grows it
        /// concavely: from the 1 s value S₁, S(2L) − S₁ ≤ (2L − 1)/(L − 1) · (S(L) − S₁) (the chord of a concave function;
        /// equality for a random walk). Lags are accepted from 4 s up while that holds within two standard errors (S over
        /// N independent samples of two axes has a standard error of S/√N; the three estimates taken as independent), and
        /// each needs ≥ 2 independent samples, as the stationary lags do. The first lag that grows faster ends the search.
        public func trustedMovingLag() -> (lag: Int, value: Double, quarter: Double, white: Double)? {
            // Written for speed (it runs on every fix): one division per lag, and the test squared instead of a root.
            let c = velocityTimeTag, h = meanStep, rest = (restVelocityVariance ?? 0) * h
            let tag = (0.5 - c) * (0.5 - c) + (0.5 + c) * (0.5 + c) - 1
            var values = InlineArray<8, Double>(repeating: 0)
            var variances = InlineArray<8, Double>(repeating: 0)   // (standard error of S)² = S²/N
            for k in 0..<ErrorStructure.lagCount {
                let count = movingCounts[k], lag = Double(1 << k)
                // Lags 1 and 2 s are the reference; from 4 s on, ≥ 2 independent samples.
                guard count > 0, k < 2 || count >= 2 * lag else { break }
                let inv = 1 / count
                let sk = Swift.max(0, (movingSums[k] - 2 * c * movingCross[k] + c * c * movingDeltaSums[k]) * inv
                                      - rest * (lag + h * tag) / 2)
                values[k] = sk
                variances[k] = sk * sk * lag * inv
            }
            guard movingCounts[0] > 0, movingCounts[1] > 0 else { return nil }
            let s1 = values[0], v1 = variances[0]
            var best: (lag: Int, value: Double, quarter: Double, white: Double)? = nil
            for k in 2..<ErrorStructure.lagCount {
                let lag = Double(1 << k)
                guard movingCounts[k] > 0, movingCounts[k] >= 2 * lag else { break }
                let half = lag / 2
                let chord = (2 * half - 1) / (half - 1)
                let excess = (values[k] - s1) - chord * (values[k - 1] - s1)
                let se2 = variances[k] + chord * chord * variances[k - 1] + (chord - 1) * (chord - 1) * v1
                guard excess <= 0 || excess * excess <= 4 * se2 else { break }
                best = (k, values[k], values[k - 2], s1)
            }
            return best
        }

        /// The plateau a Gauss–Markov wander would reach, from S at L/4 and L above the white level w: with
        /// y = e^(−L/4τ), (S(L) − w) / (S(L/4) − w) = 1 + y + y² + y³; solved for y (bisection), the wander's variance is
        /// (S(L) − w) / (1 − y⁴). Infinite (unknown) while S grows linearly.
        static func plateau(base: Double, quarter: Double, top sTop: Double) -> Double {
            let growth = sTop - base
            if growth <= 0 { return sTop }
            guard quarter - base > 0 else { return .infinity }
            let ratio = growth / (quarter - base)
            guard ratio < 3.9 else { return .infinity }
            // Newton from above the root (1 + y ≤ ratio gives y ≤ ratio − 1): the polynomial is increasing and convex on
            // [0, 1], so the steps approach the root without overshooting; after 4 the plateau is within 1e-8 of the
            // exact one over 1 < ratio < 3.9 (the 30-step bisection this replaces was slower).
            var y = Swift.min(1, ratio - 1)
            for _ in 0..<4 {
                y -= (1 + y + y * y + y * y * y - ratio) / (1 + 2 * y + 3 * y * y)
            }
            return base + growth / Swift.max(1e-9, 1 - y * y * y * y)
        }

        /// The estimate given the receiver's claimed per-axis variance `claim` (m²).
        /// S(1 s) once it has 5 samples: an upper bound of the white part (it also holds 1 s of wander, and while
        /// moving the error of taking the motion as the mean of the two velocities). For the uses that need a bound:
        /// the adapted noise's floor and the stop hold's deadband.
        public var white: Double? { counts[0] >= 5 ? sums[0] / counts[0] : nil }

        /// The white part for the accuracy's split (`estimate`): S(1 s), or less where the 1 s increments with the
        /// motion placed where the receiver's velocity applies (the fitted time tag c) and the velocity's white noise
        /// at rest taken off show less. A receiver whose positions move with the new velocity (c ≈ ½) while
        /// accelerating gives a trapezoid S(1 s) of (Δv/2)²: on the simulated RTK receiver (1 cm) 0.013 m², which
        /// left no slow part and inflated the filter's share 1,800-fold (a 12 cm radius for 2 cm errors).
        /// Only where it is smaller beyond two standard errors (S/√N each, N 1 s increments), so the noise of two
        /// estimates does not pull an ordinary receiver's white part down.
        public var positionWhite: Double? {
            guard let s = white else { return nil }
            if movingCounts[0] >= 5, let m = movingPositionStructure(lag: 0), m < s,
               (s - m) * (s - m) > 4 * (s * s / counts[0] + m * m / movingCounts[0]) {
                return m
            }
            return s
        }

        /// The receiver's claim now over its mean over the samples (1 without claims): what the structure learned,
        /// scaled by it, is the structure at the geometry of now. A receiver's error and its claim swing together
        /// with its satellites (a DOP); learned in metres over both, a mean over good and poor geometry was taken
        /// for a wander above the claim in good geometry.
        public func claimRatio(_ claim: Double) -> Double {
            claimCount > 0 && claimMean > 0 && claim > 0 && claim != claimMean ? claim / claimMean : 1
        }

        public func estimate(claim: Double) -> ErrorStructure.Estimate {
            let r = claimRatio(claim)
            let white = positionWhite.map { $0 * r }
            // The longest lag (≥ 4 s) with at least two independent samples.
            var top = -1
            for k in 2..<ErrorStructure.lagCount where counts[k] >= 2 * Double(1 << k) { top = k }   // ≥ 2 independent samples
            // What the moving increments show (with the velocity's share taken off): raises the total too, never lowers it.
            // The claim counts as one observation against the lag's N independent samples (a variance estimate from N
            // samples of two axes is as uncertain as its 1/√N): a few noisy samples above an honest claim move it little.
            var moving = 0.0
            if let m = trustedMovingLag() {
                // Levelling off like a Gauss–Markov wander: where it would level off (as for the stationary lags).
                var value = m.value * r
                // Only when the rise from L/4 to L is significant: beyond two standard errors of what a flat structure
                // (white noise alone, S ≡ w; each S has the standard error w/√N) would show, so noise is not extrapolated.
                if m.lag >= 4, case let q = m.quarter, case let w = m.white,
                   m.value - q > 2 * w * (1 / movingIndependentSamples(lag: m.lag)
                                          + 1 / movingIndependentSamples(lag: m.lag - 2)).squareRoot() {
                    let p = Self.plateau(base: w, quarter: q, top: m.value) * r
                    if p.isFinite { value = Swift.max(value, p) }
                }
                let n = movingIndependentSamples(lag: m.lag)
                moving = (claim + n * value) / (1 + n)
            }
            guard top >= 2, let sTopRaw = structure(lag: top) else {
                // Before any stop: the white part raises what is shown only beyond two standard errors of the claim.
                var whiteShown = 0.0
                if let w = white, w - claim > 2 * w / Swift.max(counts[0], 1).squareRoot() { whiteShown = w }
                return ErrorStructure.Estimate(white: white, total: Swift.max(claim, white ?? 0, moving), longestLagSeconds: 0,
                                               evidence: 0, rising: 1, shown: Swift.max(claim, whiteShown, moving))
            }
            // Rise between L/4 and L relative to the growth above the white level: 0.75 for a wander much slower than L
            // (S grows linearly), 0 once S has levelled off.
            let sTop = sTopRaw * r
            let base = white ?? 0
            let quarter = structure(lag: top - 2).map { $0 * r } ?? base
            let growth = sTop - base
            let rising = growth > 0 ? Swift.min(1, Swift.max(0, (sTop - quarter) / growth / 0.75)) : 0
            // Only significant evidence raises the claim: the largest of several noisy estimates is biased up, and a
            // white receiver's S(L) at a lag with 3–7 independent samples came out 5–9 % above its honest claim, a
            // spurious slow part that no averaging removes (at 5–10 Hz, where the white part averages to little, it
            // was most of the radius). S(L) counts where it is above the claim beyond two standard errors (S/√N for N
            // independent samples); the levelling-off is fitted only where the rise from L/4 to L is beyond two
            // standard errors of what a flat structure (S ≡ the white level) would show, as for the moving structure.
            let nTop = independentSamples(lag: top), nQuarter = Swift.max(independentSamples(lag: top - 2), 1e-9)
            let significantRise = sTop - quarter > 2 * base * (1 / nTop + 1 / nQuarter).squareRoot()
            let aboveClaim = sTop - claim > 2 * sTop / nTop.squareRoot()
            let plateau = significantRise ? Self.plateau(base: base, quarter: quarter, top: sTop) : 0
            let raise = aboveClaim ? sTop : 0
            // The claim is a floor the data can raise (a wander larger than claimed, seen levelling off or not) but not
            // lower: a bias that does not change within the longest lag looks exactly like a pessimistic claim.
            let total = Swift.max(claim, raise, plateau.isFinite ? plateau : 0, moving)
            return ErrorStructure.Estimate(white: white, total: total, longestLagSeconds: Double(1 << top),
                            evidence: independentSamples(lag: top), rising: rising,
                            shown: total)
        }
    }
}
