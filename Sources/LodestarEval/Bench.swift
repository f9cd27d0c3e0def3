#if canImport(Glibc)
import Glibc
#endif
import LocationCore
import Magnetics

/// Per-sample cost of the heading estimator on BROAD trial 02 held in memory, with a calibration (hard + soft iron)
/// and a location set, so a magnetometer sample runs every step of a full heading update: calibration, mounting,
/// tilt compensation, interference checks, heading correction, true-north correction and the report.
enum Bench {
    /// Passes over the recording (LODESTAR_BENCH_REPS, default 5).
    static let repetitions: Int = {
        guard let p = getenv("LODESTAR_BENCH_REPS"), let n = Int(String(cString: p)), n > 0 else { return 5 }
        return n
    }()

    static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    static func estimator() -> HeadingEstimator {
        var settings = HeadingEstimator.Settings.default
        settings.headingFilterDegrees = 0
        let calibration = MagnetometerCalibration(
            hardIronMicrotesla: Vector3(x: 0.3, y: -0.2, z: 0.1),
            softIron: Matrix3(r0: Vector3(x: 1.01, y: 0.002, z: 0), r1: Vector3(x: 0.002, y: 0.99, z: 0.001),
                              r2: Vector3(x: 0, y: 0.001, z: 1)),
            fieldMicrotesla: 44)
        var e = HeadingEstimator(settings: settings, calibration: calibration)
        e.setLocation(latitudeDegrees: 52.51, longitudeDegrees: 13.33, heightAboveEllipsoidMeters: 80, decimalYear: 2026.0)
        return e
    }

    static func median(_ v: [Int64]) -> Int64 { v.isEmpty ? 0 : v.sorted()[v.count / 2] }
    static func percentile(_ v: [Int64], _ p: Int) -> Int64 { v.isEmpty ? 0 : v.sorted()[min(v.count - 1, v.count * p / 100)] }

    static func run(_ rec: Recording) {
        var overhead = Int64.max
        for _ in 0..<1000 {
            let a = now(); let b = now()
            overhead = min(overhead, b - a)
        }
        var checksum = 0.0
        for gyro in [true, false] {
            let events = rec.events.filter { e in
                if !gyro, case .motion(.gyroscope) = e.payload { return false }
                return true
            }
            let samples: [(MotionSample, Int64, Double?)] = events.compactMap { e in
                guard case .motion(let m) = e.payload, let t = e.monotonicNanos else { return nil }
                return (m, t, e.sampleTimeSeconds)
            }
            let rows = samples.reduce(into: 0) { n, s in if case .magnetometer = s.0 { n += 1 } }
            // 1. Each sample timed on its own (median per kind), MotionSample path.
            var mag: [Int64] = [], acc: [Int64] = [], gyr: [Int64] = []
            mag.reserveCapacity(rows * repetitions); acc.reserveCapacity(rows * repetitions)
            gyr.reserveCapacity(rows * repetitions)
            for _ in 0..<repetitions {
                var est = estimator()
                for i in samples.indices {
                    let (m, t, st) = samples[i]
                    let t0 = now()
                    let u = est.process(m, monotonicNanos: t, sampleTimeSeconds: st)
                    let dt = now() - t0 - overhead
                    if let r = u.report { checksum += r.magneticHeadingDegrees }
                    switch m {
                    case .magnetometer, .magnetometerRaw: mag.append(dt)
                    case .accelerometer, .accelerometerRaw: acc.append(dt)
                    case .gyroscope, .gyroscopeRaw: gyr.append(dt)
                    }
                }
            }
            // 2. Whole rows in bulk (no timer per sample), both entry points.
            var sampleBest = Int64.max, eventBest = Int64.max
            for _ in 0..<repetitions {
                var est = estimator()
                let start = now()
                for i in samples.indices {
                    let u = est.process(samples[i].0, monotonicNanos: samples[i].1, sampleTimeSeconds: samples[i].2)
                    if let r = u.report { checksum += r.magneticHeadingDegrees }
                }
                sampleBest = min(sampleBest, now() - start)
                var est2 = estimator()
                let start2 = now()
                for i in events.indices {
                    let u = est2.process(events[i])
                    if let r = u.report { checksum += r.magneticHeadingDegrees }
                }
                eventBest = min(eventBest, now() - start2)
            }
            let label = gyro ? "acc+gyr+mag" : "acc+mag"
            print("\(label): magnetometer sample (full heading update): median \(median(mag)) ns, p90 \(percentile(mag, 90)) ns, "
                  + "p99 \(percentile(mag, 99)) ns; accelerometer sample \(median(acc)) ns"
                  + (gyro ? "; gyroscope sample \(median(gyr)) ns" : "")
                  + " (medians, timer overhead \(overhead) ns subtracted)")
            print("\(label): per row (all samples of one time step), in bulk: \(sampleBest / Int64(max(rows, 1))) ns via "
                  + "process(MotionSample…), \(eventBest / Int64(max(rows, 1))) ns via process(SensorEvent) "
                  + "(\(MemoryLayout<SensorEvent>.size)-byte events copied); \(rows) rows, best of \(repetitions)")
        }
        print("[checksum \(Int(checksum) % 1000)]")
    }
}
