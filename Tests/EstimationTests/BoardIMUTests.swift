import Estimation
import LocationCore
import Testing
import TestSupport

/// A board with an accelerometer and a gyroscope under the receiver (an MPU-6050 beside a GPS on a Pi): the inertial
/// samples must never cost the position what the receiver alone gives. Judged against the simulator's truth, each
/// receiver smoothed with the board's samples and without them (`SimulatedIMU`, Tests/TestSupport).
///
/// Before (2026-12-07): the accelerometer's fixed stillness (magnitude variance ≤ 0.02 (m/s²)²) held for a cruising
/// car whose road shakes the board 0.12 m/s² per axis (0.015 (m/s²)²): the gyroscope-aided step zeroed the velocity
/// at every fix (p95 15 m against 2.6 m without the IMU), and a receiver without a speed was held while driving at half
/// its epochs (p95 41–62 m).
@Suite("A board's accelerometer and gyroscope")
struct BoardIMUTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let receiver: Int, speed: Bool, vibration: Double, idle: Double, gyroscope: Bool
        var testDescription: String {
            "\(SimulatedReceiver.catalogue[receiver].name), \(speed ? "speed" : "no speed"), road \(vibration), idle \(idle)\(gyroscope ? ", gyro" : "")"
        }
    }

    static let cases: [Case] = {
        var c: [Case] = []
        // white 2 m, GM 60 s 1.5 m, the phone mix, the outage receiver, RTK.
        for r in [0, 2, 5, 10, 11] {
            for speed in [true, false] {
                c.append(Case(receiver: r, speed: speed, vibration: 0.12, idle: 0, gyroscope: true))
            }
        }
        // A quiet road (the levels barely apart), and an engine that shakes the board at idle as the road does.
        c.append(Case(receiver: 2, speed: false, vibration: 0.04, idle: 0, gyroscope: true))
        c.append(Case(receiver: 2, speed: true, vibration: 0.3, idle: 0.15, gyroscope: true))
        c.append(Case(receiver: 2, speed: false, vibration: 0.3, idle: 0.15, gyroscope: false))
        return c
    }()

    @Test(arguments: cases)
    func theBoardsInertialSamplesNeverCostThePosition(_ c: Case) {
        let r = SimulatedReceiver.catalogue[c.receiver]
        var fixes: [Location] = [], truth: [Location] = [], with: [Location] = [], without: [Location] = []
        for seed in UInt64(1)...4 {
            let run = r.run(seed: seed)
            let f = c.speed ? run.fixes : run.fixes.map(\.withoutVelocity)
            let imu = SimulatedIMU.samples(truth: run.truth, seed: seed, vibration: c.vibration, idle: c.idle)
            fixes += f; truth += run.truth
            with += SimulatedIMU.smooth(fixes: f, imu: imu, gyroscope: c.gyroscope)
            without += SmoothingEvaluation.smooth(f)
        }
        let a = SmoothingEvaluation.evaluate(raw: fixes, smoothed: with, truth: truth).smoothed
        let b = SmoothingEvaluation.evaluate(raw: fixes, smoothed: without, truth: truth).smoothed
        var moving: [Int64: Bool] = [:]
        for t in truth { moving[SmoothingEvaluation.key(t.time!)] = (t.speedMetersPerSecond ?? 0) >= 3 }
        func heldWhileDriving(_ l: [Location]) -> Int {
            l.filter { moving[SmoothingEvaluation.key($0.time!)] == true && $0.isStationary == true }.count
        }
        print("board IMU \(c.testDescription): p50 \(b.p50)→\(a.p50), p95 \(b.p95)→\(a.p95), max \(b.max)→\(a.max), parked \(b.parkedPathPer180s)→\(a.parkedPathPer180s), held while driving \(heldWhileDriving(without))→\(heldWhileDriving(with))")
        // Measured: p95 within −4…+1 % of without, parked −24…+13 % (the phone mix with a speed 0.33 → 0.63 m).
        #expect(a.p95 <= 1.05 * b.p95 + 0.01)
        #expect(a.p50 <= 1.15 * b.p50 + 0.01)
        #expect(a.max <= 1.5 * b.max + 0.05)
        #expect(a.parkedPathPer180s <= 1.2 * b.parkedPathPer180s + 0.5)
        #expect(heldWhileDriving(with) <= heldWhileDriving(without) + 3)
    }
}
