import Foundation
import Testing
import LocationCore
import TestSupport
@testable import Estimation

/// `DeadReckoningErrorLearning` against the same quantities computed by brute force from the velocity history: for a
/// vehicle that brakes, accelerates and turns at random, the 68 % quantile of how far keeping the velocity (or the
/// speed) T seconds ago drifts from the velocities integrated over T, the windows weighted as the learning forgets.
@Suite struct DeadReckoningErrorLearningTests {
    /// Velocities (east, north, m/s) at 1 Hz for `seconds`: speed and heading random walks with bursts (the speed
    /// 3–20 m/s, accelerations up to 2 m/s², turns up to 15 °/s).
    static func drive(seed: UInt64, seconds: Int) -> [(Double, Double)] {
        var rng = SplitMix64(seed: seed)
        var speed = 10.0, heading = 0.0, accel = 0.0, turn = 0.0
        var out: [(Double, Double)] = []
        for _ in 0..<seconds {
            if rng.openUnit() < 0.1 { accel = (rng.openUnit() - 0.5) * 4 }
            if rng.openUnit() < 0.1 { turn = rng.openUnit() < 0.5 ? 0 : (rng.openUnit() - 0.5) * 30 }
            speed = Swift.min(20, Swift.max(3, speed + accel))
            heading += turn
            out.append((speed * sin(heading * .pi / 180), speed * cos(heading * .pi / 180)))
        }
        return out
    }

    /// The brute-force 68 % quantile at horizon `h` (s) over the whole drive (trapezoids, as the learning integrates),
    /// each window weighted as the learning forgets: by (1 − 1/600) per later fix; the windows ending at every fourth
    /// fix from `phase`, as the learning takes one horizon per fix in turn.
    static func quantile68(_ v: [(Double, Double)], horizon h: Int, phase: Int, along: Bool) -> Double {
        var d: [(x: Double, w: Double)] = []
        for end in h..<v.count where end % 4 == phase {
            let start = end - h
            var e = 0.0, n = 0.0, s = 0.0
            for k in start..<end {
                e += (v[k].0 + v[k + 1].0) / 2; n += (v[k].1 + v[k + 1].1) / 2
                s += ((v[k].0 * v[k].0 + v[k].1 * v[k].1).squareRoot() + (v[k + 1].0 * v[k + 1].0 + v[k + 1].1 * v[k + 1].1).squareRoot()) / 2
            }
            let s0 = (v[start].0 * v[start].0 + v[start].1 * v[start].1).squareRoot()
            let x = along ? abs(s - s0 * Double(h))
                          : ((e - v[start].0 * Double(h)) * (e - v[start].0 * Double(h)) + (n - v[start].1 * Double(h)) * (n - v[start].1 * Double(h))).squareRoot()
            d.append((x, pow(1 - 1 / 600.0, Double(v.count - 1 - end))))
        }
        d.sort { $0.x < $1.x }
        let total = d.reduce(0) { $0 + $1.w }
        var below = 0.0
        for p in d { below += p.w; if below >= 0.68 * total { return p.x } }
        return d.last!.x
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func theLearnedDriftIsTheVelocitiesOwn68PercentQuantile(seed: UInt64) throws {
        let v = Self.drive(seed: seed, seconds: 3600)
        var learning = DeadReckoningErrorLearning()
        #expect(learning.drift(after: 10, gyroscope: false) == nil)
        for (k, x) in v.enumerated() { learning.add(seconds: 1_000_000 + Double(k), east: x.0, north: x.1) }
        for (phase, horizon) in [5, 10, 20, 30].enumerated() {
            for along in [false, true] {
                let truth = Self.quantile68(v, horizon: horizon, phase: phase, along: along)
                let learned = try #require(learning.drift(after: Double(horizon), gyroscope: along))
                // Quarter-octave bins, interpolated: within 10 %.
                #expect(abs(learned / truth - 1) < 0.1, "horizon \(horizon) s, \(along ? "speed" : "velocity") kept: learned \(learned) m, brute force \(truth) m")
            }
        }
        // Between and beyond the horizons: interpolated, then growing.
        let d10 = try #require(learning.drift(after: 10, gyroscope: false)), d20 = try #require(learning.drift(after: 20, gyroscope: false))
        let d15 = try #require(learning.drift(after: 15, gyroscope: false))
        #expect(d15 > d10 && d15 < d20)
        #expect(try #require(learning.drift(after: 40, gyroscope: false)) > learning.drift(after: 30, gyroscope: false)!)
    }

    /// A gap of more than 3 s starts the history again: no horizon spans it.
    @Test func aGapStartsTheHistoryAgain() {
        var learning = DeadReckoningErrorLearning()
        for k in 0..<20 { learning.add(seconds: Double(k), east: 10, north: 0) }
        for k in 30..<45 { learning.add(seconds: Double(k), east: 0, north: 10) }
        // 15 s after the gap: only the 5 and 10 s horizons have samples, and those saw a constant velocity.
        #expect(learning.counts[2] == 0 && learning.counts[3] == 0)
        #expect(learning.counts[0] > 0 && learning.counts[1] > 0)
    }
}
