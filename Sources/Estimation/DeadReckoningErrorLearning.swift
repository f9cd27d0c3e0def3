#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// How far dead reckoning would have drifted on this vehicle's own motion, learned from the receiver's velocities
/// while the fixes come: at each fix, for one of the horizons 5, 10, 20 and 30 s in turn, the distance between where
/// the vehicle went (the velocities integrated) and where keeping the velocity it had T seconds ago would have put it.
/// Without a gyroscope the dead reckoning keeps the velocity (a vector: turns and speed changes count); with one it
/// keeps the speed and follows the turns, so only the speed change counts (along the track). Each is kept as a
/// histogram that forgets (a sample 600 fixes old counts 1/e as much), read at its 68 % quantile.
///
/// The filter's process noise, scaled by what the 1 s velocity innovations show, is honest at a few seconds but not at
/// thirty: a vehicle's speed changes last for seconds, so the 1 s innovations of a smooth drive say little about how
/// far it goes off a constant velocity in half a minute. (The simulator's drives through 25 s tunnels: 33–60 % of the
/// dead-reckoned fixes within their radius from 10 s on, with and without a gyroscope.)
struct DeadReckoningErrorLearning: Sendable {
    static let horizons: InlineArray<4, Double> = [5, 10, 20, 30]
    /// A sample: s since the first, east and north m/s, and the integrals up to it (east and north m, path m).
    struct Sample: Sendable { var t, east, north, speed, sumEast, sumNorth, sumPath: Double }
    /// The last `capacity` samples, at most one per 0.9 s: a ring (`first` the oldest's slot, `count` in use).
    /// Fixed-size state (`InlineArray`), O(horizons) per fix, no allocation; the smoother keeps it in a copy-on-write
    /// box.
    private var ring = InlineArray<36, Sample>(repeating: Sample(t: 0, east: 0, north: 0, speed: 0, sumEast: 0, sumNorth: 0, sumPath: 0))
    /// The samples' times alone, in the same slots (the search for a horizon's start reads only these).
    private var times = InlineArray<36, Double>(repeating: 0)
    private var count = 0
    private var first = 0
    private var nextHorizon = 0
    private var origin: Double?
    static let capacity = 36
    /// Per horizon, the distances' distribution with exponential forgetting (`Histogram`): velocity kept (vector) and
    /// speed kept (along the track); and how many samples each horizon has had.
    /// (One flat array per kind, `Histogram.binCount` bins per horizon: a histogram per element was copied in and out,
    /// 512 bytes, at every update.)
    private var vectorBins = InlineArray<256, Double>(repeating: 0)
    private var alongBins = InlineArray<256, Double>(repeating: 0)
    private(set) var counts = InlineArray<4, Int>(repeating: 0)
    /// The weight of the next sample: grows by 1/(1 − 1/`memory`) per fix, so a sample `memory` fixes old counts
    /// 1/e as much (renormalised when large).
    private var weight = 1.0
    static let memory = 600.0
    /// Quantile estimates are used from this many samples.
    static let minimumCount = 30
    /// The lowest speed (m/s) at either end of a horizon for it to count: the motion dead reckoning continues.
    static let minimumSpeed = 1.0

    /// The sample `k` places after the oldest. (`mutating` though it changes nothing: called from `add`, a
    /// non-mutating one copied the whole ring, 1.7 KB, on every call.)
    @inline(__always) private mutating func sample(_ k: Int) -> Sample {
        let i = first + k
        return ring[i < Self.capacity ? i : i - Self.capacity]
    }

    /// The time of the sample `k` places after the oldest (`mutating`: as `sample`).
    @inline(__always) private mutating func time(_ k: Int) -> Double {
        let i = first + k
        return times[i < Self.capacity ? i : i - Self.capacity]
    }

    /// A fix's velocity (m/s) at `seconds` (any monotonic time base).
    mutating func add(seconds: Double, east ve: Double, north vn: Double) {
        guard ve.isFinite, vn.isFinite, seconds.isFinite else { return }
        if origin == nil { origin = seconds }
        let t = seconds - origin!
        let speed = (ve * ve + vn * vn).squareRoot()
        var next = Sample(t: t, east: ve, north: vn, speed: speed, sumEast: 0, sumNorth: 0, sumPath: 0)
        if count > 0 {
            let last = sample(count - 1)
            let dt = t - last.t
            guard dt >= 0.9 else { return }
            if dt > 3 {   // a gap: start again
                count = 0; first = 0
            } else {
                let sk = last.speed
                next.sumEast = last.sumEast + (last.east + ve) / 2 * dt
                next.sumNorth = last.sumNorth + (last.north + vn) / 2 * dt
                next.sumPath = last.sumPath + (sk + speed) / 2 * dt
            }
        }
        if count < Self.capacity {
            let i = first + count
            ring[i < Self.capacity ? i : i - Self.capacity] = next
            times[i < Self.capacity ? i : i - Self.capacity] = t
            count += 1
        } else {
            ring[first] = next
            times[first] = t
            first = first + 1 == Self.capacity ? 0 : first + 1
        }
        weight *= Self.growth
        if weight > 1e200 {
            for i in 0..<256 { vectorBins[i] /= weight; alongBins[i] /= weight }
            weight = 1
        }
        // One horizon per fix, in turn (consecutive windows overlap by all but a second: every fourth is as telling,
        // and four per fix cost 8 % of a filter update).
        let h = nextHorizon
        nextHorizon = h == 3 ? 0 : h + 1
        // The last sample at most `horizon` − ½ s back (binary search on the times), and it must be within half a second
        // of the horizon.
        let target = t - Self.horizons[h]
        guard time(0) <= target + 0.5 else { return }
        var lo = 0, hi = count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if time(mid) <= target + 0.5 { lo = mid } else { hi = mid - 1 }
        }
        guard abs(time(lo) - target) <= 0.5 else { return }
        let old = sample(lo)
        let s0 = old.speed
        guard Swift.max(s0, speed) >= Self.minimumSpeed else { return }
        let span = t - old.t
        let de = next.sumEast - old.sumEast - old.east * span, dn = next.sumNorth - old.sumNorth - old.north * span
        counts[h] += 1
        vectorBins[h * Histogram.binCount + Histogram.bin(squared: de * de + dn * dn)] += weight   // no root per fix
        let a = next.sumPath - old.sumPath - s0 * span
        alongBins[h * Histogram.binCount + Histogram.bin(squared: a * a)] += weight
    }
    static let growth = 1 / (1 - 1 / memory)

    /// The learned 68 % distance (m) dead reckoning drifts after `seconds`: velocity kept, or speed kept with a
    /// gyroscope; interpolated between the horizons (from 0 at 0 s), growing as t^1.5 beyond the last. Nil until each
    /// horizon has `minimumCount` samples.
    func drift(after seconds: Double, gyroscope: Bool) -> Double? {
        for h in 0..<Self.horizons.count where counts[h] < Self.minimumCount { return nil }
        let bins = gyroscope ? alongBins : vectorBins
        var q = InlineArray<4, Double>(repeating: 0)
        for h in 0..<4 { q[h] = Histogram.quantile(0.68, of: bins, from: h * Histogram.binCount) }
        var lower = (t: 0.0, v: 0.0)
        for h in 0..<Self.horizons.count {
            let horizon = Self.horizons[h]
            if seconds <= horizon {
                return lower.v + (seconds - lower.t) / (horizon - lower.t) * (q[h] - lower.v)
            }
            lower = (horizon, q[h])
        }
        return lower.v * pow(seconds / lower.t, 1.5)
    }
}

/// Distributions of distances (m) by their squares, in quarter-octave bins of the distance from 1/16 m to 4 km (below
/// and above: the end bins), with weights: `quantile` interpolates within a bin on a log scale.
enum Histogram {
    static let binsPerOctave = 4
    static let lowestOctave = -4
    static let binCount = 64

    /// The bin of a distance given by its square (no root: from the square's binary exponent and significand).
    @inline(__always) static func bin(squared d2: Double) -> Int {
        guard d2 > 0 && d2.isFinite else { return 0 }
        // log2(d) = log2(d²) / 2; quarter octaves of d are half octaves of d² (significand ≥ √2: the upper half).
        let half = d2.significand >= 1.4142135623730951 ? 1 : 0
        return Swift.min(binCount - 1, Swift.max(0, Int(d2.exponent) * 2 + half - lowestOctave * binsPerOctave))
    }

    /// The distance (m) below which the fraction `p` of the weight of the `binCount` bins from `start` lies.
    static func quantile(_ p: Double, of bins: InlineArray<256, Double>, from start: Int) -> Double {
        var total = 0.0
        for i in 0..<binCount { total += bins[start + i] }
        guard total > 0 else { return 0 }
        var below = 0.0
        for i in 0..<binCount {
            let w = bins[start + i]
            if below + w >= p * total {
                let f = w > 0 ? (p * total - below) / w : 0
                // Bin i spans distances 2^((i + k)/4) for k in 0…1, from 2^lowestOctave m.
                return pow(2, (Double(i) + f) / Double(binsPerOctave) + Double(lowestOctave))
            }
            below += w
        }
        return pow(2, Double(binCount) / Double(binsPerOctave) + Double(lowestOctave))
    }
}
