import Foundation
import Testing
import LocationCore
import TestSupport
@testable import Estimation

/// The suspended stop (a stop ended on the receiver's speed alone) on receivers, rates and starts it was not built on:
/// 1, 5 and 10 Hz; 0.1 m and 2 m of white noise; starts from rest at 0.5, 1.5 and 3 m/s². The phones it was found on
/// report 1 Hz; at 5 or 10 Hz a one-second spike is 5 or 10 epochs, so its limits are in time, not epochs.
@Suite struct StopGeneralisationTests {
    struct Run { var raw: [Location]; var out: [Location]; var truthEast: [Double]; var spikeAt: Int; var firstFast: Int }

    /// Drive east at 10 m/s, brake at 3 m/s² into a stop at 30 s, a one-second 0.9 m/s speed spike at 100 s (the
    /// fixes do not move), then a start from rest at `accel` at 150 s.
    static func run(rate: Double, accel: Double, noise: Double, seed: UInt64) -> Run {
        var rng = SplitMix64(seed: seed)
        let dt = 1 / rate, sigma = HorizontalError.sigma(fromRadius68: noise)
        let n = Int(200 * rate), stop = Int(30 * rate), start = Int(150 * rate), spikeAt = Int(100 * rate)
        var raw: [Location] = [], truthEast: [Double] = []
        var e = 0.0, v = 10.0
        for i in 0..<n {
            if i < stop - Int(10 / 3 * rate) { v = 10 } else if i < stop { v = max(0, v - 3 * dt) } else if i < start { v = 0 } else { v = min(10, v + accel * dt) }
            e += v * dt
            truthEast.append(e)
            var l = Location()
            l.time = Track.t0.adding(nanoseconds: Int64((Double(i) * dt * 1e9).rounded()))
            let g = Track.frame.geodetic(east: e + sigma * rng.gaussian(), north: sigma * rng.gaussian())
            l.latitudeDegrees = g.latitudeDegrees; l.longitudeDegrees = g.longitudeDegrees
            l.mode = .threeD; l.quality = .gps; l.horizontalAccuracyMeters = noise
            l.speedMetersPerSecond = i >= spikeAt && i < spikeAt + Int(rate) ? 0.9 : max(0, v + 0.05 * rng.gaussian())
            l.courseDegrees = 90
            raw.append(l)
        }
        var s = PositionSmoother()
        let out = raw.map { s.process(fix: $0) }
        let firstFast = (start..<n).first { (raw[$0].speedMetersPerSecond ?? 0) >= s.settings.stationaryExitSpeedMetersPerSecond }!
        return Run(raw: raw, out: out, truthEast: truthEast, spikeAt: spikeAt, firstFast: firstFast)
    }

    @Test(arguments: [1.0, 5.0, 10.0])
    func spikesAreHeldAndStartsFollowedAtEveryRate(_ rate: Double) {
        let window = PositionSmoother.Settings.default.stationaryEnterSeconds
        for accel in [0.5, 1.5, 3.0] {
            for noise in [0.1, 2.0] {
                for seed in UInt64(1)...3 {
                    let r = Self.run(rate: rate, accel: accel, noise: noise, seed: seed)
                    // The spike (and 3 s after it) draws no path.
                    let spikePath = path(r.out[(r.spikeAt - 1)..<(r.spikeAt + Int(4 * rate))])
                    // The start: how long the output stays where it was held after the first fix at the exit speed.
                    var held = 0
                    while r.firstFast + held + 1 < r.out.count, path(r.out[(r.firstFast + held)...(r.firstFast + held + 1)]) == 0 { held += 1 }
                    let heldSeconds = Double(held) / rate
                    print("rate \(rate) a \(accel) noise \(noise) seed \(seed): spike path \(spikePath) m, start held \(heldSeconds) s")
                    #expect(spikePath == 0, "rate \(rate) a \(accel) noise \(noise) seed \(seed)")
                    #expect(heldSeconds <= window, "rate \(rate) a \(accel) noise \(noise) seed \(seed)")
                }
            }
        }
    }
}
