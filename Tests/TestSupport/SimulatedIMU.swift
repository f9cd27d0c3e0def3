import Estimation
import Foundation
import LocationCore

/// A board's accelerometer and gyroscope riding along a `SimulatedReceiver` drive: body-frame specific force and
/// angular rate at `rateHz` from the truth's motion (a level mount, x forward, y left, z up), with sensor noise
/// (0.02 m/s², 0.002 rad/s per axis), road vibration (`vibration` m/s² per axis, full from 3 m/s, as
/// `RouteSimulator`) and an idling engine's shake at rest (`idle` m/s² per axis). Seeded.
public enum SimulatedIMU {
    public static func samples(truth: [Location], seed: UInt64, vibration: Double = 0.12, idle: Double = 0,
                               rateHz: Double = 50) -> [WalkData.IMUSample] {
        var rng = SplitMix64(state: seed &* 7919)
        var imu: [WalkData.IMUSample] = []
        let truth = truth.filter { $0.time != nil }
        guard truth.count > 1 else { return [] }
        for i in 1..<truth.count {
            let a = truth[i - 1], b = truth[i]
            let t0 = a.time!.secondsSince1970, dt = b.time!.secondsSince1970 - t0
            guard dt > 0 else { continue }
            let v0 = a.speedMetersPerSecond ?? 0, v1 = b.speedMetersPerSecond ?? 0
            var dc = (b.courseDegrees ?? 0) - (a.courseDegrees ?? 0)
            if dc > 180 { dc -= 360 } else if dc < -180 { dc += 360 }
            let along = (v1 - v0) / dt, yawRate = -dc * .pi / 180 / dt   // counter-clockwise about up
            let steps = Swift.max(1, Int((dt * rateHz).rounded()))
            for k in 0..<steps {
                let v = v0 + (v1 - v0) * Double(k) / Double(steps)
                let shake = Swift.min(1, v / 3) * vibration + idle * Swift.max(0, 1 - v / 0.5)
                let f = Vector3(x: along + 0.02 * rng.gaussian() + shake * rng.gaussian(),
                                y: v * yawRate + 0.02 * rng.gaussian() + shake * rng.gaussian(),
                                z: 9.806_65 + 0.02 * rng.gaussian() + shake * rng.gaussian())
                let w = Vector3(x: 0.002 * rng.gaussian(), y: 0.002 * rng.gaussian(), z: yawRate + 0.002 * rng.gaussian())
                imu.append(.init(t: Timestamp(secondsSince1970: t0 + Double(k) / rateHz), accel: f, gyro: w))
            }
        }
        return imu
    }

    /// The smoother over fixes and samples merged by time, the gyroscope's too when `gyroscope`.
    public static func smooth(fixes: [Location], imu: [WalkData.IMUSample], gyroscope: Bool,
                              settings: PositionSmoother.Settings = .default) -> [Location] {
        WalkData.runMerged(fixes: fixes, imu: imu, blank: nil, settings: settings, gyroscope: gyroscope)
    }
}
