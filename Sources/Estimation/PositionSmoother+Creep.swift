#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import LocationCore

/// A vehicle creeping inside a stop (`Settings.holdFollowsCreep`).
///
/// The stop holds the mean of its fixes, and moves only when that mean leaves the held point by more than the noise and
/// the receiver's parked wander allow. A vehicle that creeps forward in a queue, below the exit speed, drags a precise
/// receiver's fixes along (the F9K: 0.3–1 m at 0.1–0.3 m/s, against a speed noise at rest of ~0.01 m/s), and the
/// whole stop's mean follows them only slowly. What tells creep from the receiver's wander is its velocity: the
/// velocities since the held point was set add up to a move beyond their noise, and the recent fixes, each carried on
/// by the velocities since it, agree with that move.
///
/// Plain numbers only (the recent fixes an exponential mean with a 1 s time constant, not a ring of them).
struct StopCreep: Sendable {
    /// The recent mean's time constant (s); the held point moves no sooner than `minimumSeconds` after its base and
    /// `minimumFixes` into the stop.
    static let timeConstantSeconds = 1.0
    static let minimumSeconds = 2.0
    static let minimumFixes = 3
    /// The recent fixes' exponential mean (local frame, m), each fix minus the creep summed up to it; the mean's
    /// variance as a share of one fix's white variance (exact for independent noise); the fixes in the stop so far and
    /// the last one's time (ns since 1970).
    var recent: (east: Double, north: Double) = (0, 0)
    var recentShare = 1.0
    var fixes = 0
    var lastTime: Int64 = 0
    /// The receiver's velocities summed over the stop (m), and that sum's per-axis variance (m²).
    var sum: (east: Double, north: Double) = (0, 0)
    var variance = 0.0
    /// Where the creep is counted from: the held point at the stop's start or its last creep (local frame, m), the
    /// sum and its variance then, and when (ns since 1970). (Not when the stop's mean moves the held point: that
    /// follows a creep only in part, and would restart the count each time.)
    var base: (east: Double, north: Double) = (0, 0)
    var atBase: (east: Double, north: Double, variance: Double) = (0, 0, 0)
    var baseSince: Int64 = 0
    /// The median of the receiver's speed² while stopped (m²/s²; NaN: none yet) and how many speeds it has seen.
    var restSpeedMedian = Double.nan
    var restSpeedCount = 0

    /// The creep is counted from the held point `p` at `t`.
    mutating func rebase(_ p: (east: Double, north: Double), at t: Int64) {
        base = p
        atBase = (sum.east, sum.north, variance)
        baseSince = t
    }

    /// A new stop, held at `p`.
    mutating func reset(_ p: (east: Double, north: Double), at t: Int64) {
        fixes = 0; recentShare = 1
        sum = (0, 0); variance = 0
        rebase(p, at: t)
    }

    /// Moves its clocks onto a new time base (the receiver's clock jumped by `nanoseconds`).
    mutating func rebaseTime(by nanoseconds: Int64) {
        if lastTime != 0 { lastTime &+= nanoseconds }
        if baseSince != 0 { baseSince &+= nanoseconds }
    }

    /// Moves the stored positions with the local frame (`reanchorIfNeeded`).
    mutating func move(_ f: ((east: Double, north: Double)) -> (east: Double, north: Double)) {
        recent = f(recent)
        base = f(base)
    }
}

extension PositionSmoother {
    /// Learns the receiver's speed noise at rest: the running median of speed² while stopped (for 2-D noise alone
    /// 2 ln 2 σ² per axis), in steps of 1/n at first, then 5 %, as for the velocity's noise while moving
    /// (`dopplerMedian`). The two are written out: one shared helper for both, with one helper for the two 2 × r68
    /// distances here and in `holdDeadband`, measured ~25 ns per fix slower on MTV-1 twice (844 → 869 and 847 → 871 ns,
    /// 8 alternated runs each; identical output), against a run-to-run spread of about ±20 ns.
    mutating func learnRestSpeed(_ fix: Location) {
        guard let sp = fix.speedMetersPerSecond, sp.isFinite else { return }
        let p = Swift.max(sp * sp, 1e-10)
        stopCreep.restSpeedCount += 1
        let n = stopCreep.restSpeedCount
        let step = n >= 20 ? Self.medianStep : exp(1 / Double(n))
        let m = stopCreep.restSpeedMedian
        stopCreep.restSpeedMedian = m.isNaN ? p : m * (p > m ? step : 1 / step)
    }

    /// While stopped, with a fix used at `t` (ns): sums the fix's velocity into the creep, and returns where the held
    /// point moves if the vehicle crept: the recent fixes' mean, each carried on by the creep since it. `held` is the
    /// held point (local frame, m, and its variance), `white` one fix's white variance (m² per axis). The creep is
    /// the velocities' sum since its base; the held point must be off the carried fixes, the sum beyond the noise, and
    /// the base moved by the sum must agree with the carried fixes, each by more than 2 × the 68 % radius of the
    /// noise (`holdDeadbandRadiusFactor`).
    mutating func creepTarget(fix: Location, measured m: (east: Double, north: Double), at t: Int64,
                              held h: (east: Double, north: Double, variance: Double), white: Double)
        -> (east: Double, north: Double, share: Double)? {
        learnRestSpeed(fix)
        var c = stopCreep
        if c.fixes > 0 {
            let dt = Double(t - c.lastTime) / 1e9
            if dt <= 2, let v = fixVelocity(fix) {
                c.sum.east += v.east * dt; c.sum.north += v.north * dt
                if c.restSpeedMedian.isFinite { c.variance += c.restSpeedMedian / (2 * M_LN2) * dt * dt }
            }
            let a = 1 - exp(-Swift.max(0, dt) / StopCreep.timeConstantSeconds)
            c.recent.east += a * (m.east - c.sum.east - c.recent.east)
            c.recent.north += a * (m.north - c.sum.north - c.recent.north)
            c.recentShare = (1 - a) * (1 - a) * c.recentShare + a * a
        } else {
            c.recent = (m.east - c.sum.east, m.north - c.sum.north)
            c.recentShare = 1
        }
        c.fixes += 1
        c.lastTime = t
        stopCreep = c
        guard c.fixes >= StopCreep.minimumFixes, Double(t - c.baseSince) / 1e9 > StopCreep.minimumSeconds else { return nil }
        let re = c.recent.east + c.sum.east, rn = c.recent.north + c.sum.north
        // Beyond the noise of: the held point, the recent mean, the receiver's wander since the base, and the summed
        // velocities.
        let wander = Self.parkedWander(errorStructure.lags, seconds: Double(t - c.baseSince) / 1e9)
        let variance = Swift.min(h.variance, white) + white * c.recentShare + wander + (c.variance - c.atBase.variance)
        let band = settings.holdDeadbandRadiusFactor * HorizontalError.radius68PerSigma * variance.squareRoot()
        let crept = (east: c.sum.east - c.atBase.east, north: c.sum.north - c.atBase.north)
        func norm(_ e: Double, _ n: Double) -> Double { (e * e + n * n).squareRoot() }
        guard norm(re - h.east, rn - h.north) > band, norm(crept.east, crept.north) > band,
              norm(c.base.east + crept.east - re, c.base.north + crept.north - rn) < band else { return nil }
        return (re, rn, c.recentShare)
    }

    /// While stopped: starts the creep's count at a new stop's held point, and moves the held point where the vehicle
    /// crept (`creepTarget`). The stop's mean then starts again, worth as many fixes as the recent mean. Returns
    /// whether it moved. (Not inlined, like `holdPoint`: the stop's code inlined into `output` slows every fix.)
    @inline(never)
    mutating func followCreep(fix: Location, measured: (east: Double, north: Double)?, newStop: Bool, white: Double) -> Bool {
        let now = time?.nanosecondsSince1970 ?? 0
        guard let h = held else { return false }
        if newStop { stopCreep.reset((h.east, h.north), at: now) }
        guard let m = measured, let to = creepTarget(fix: fix, measured: m, at: now, held: h, white: white) else { return false }
        let k = Swift.max(1, Int((1 / to.share).rounded()))
        held = (to.east, to.north, white * to.share)
        stopCreep.rebase((to.east, to.north), at: now)
        stopSum = (to.east * Double(k), to.north * Double(k)); stopCount = k
        stopStart = time
        return true
    }
}
