#if canImport(Glibc)
import Glibc
#endif
import Capture
import Events
import LocationCore
import Magnetics
import Pipeline
import Simulation

/// `LodestarBench vehicle`: per-sample cost of `VehicleHeadingEstimator` on a simulated 600 s drive held in memory
/// (with and without a gyroscope), and the cost of the calibration fit (one course pair added and solved).
/// Thread CPU time, best of 5: on a shared machine wall time mostly measures the other processes.
enum VehicleHeadingBenchmark {
    enum Input { case motion(MotionSample, Int64), fix(Location, Int64) }

    static func inputs(gyroscope: Bool) -> [Input] {
        var s = RouteSimulator.Settings.default
        s.durationSeconds = 600
        s.gyroscope = gyroscope
        let path = "/tmp/lodestar-vehicle-bench-\(getpid()).lcap"
        defer { unlink(path) }
        do {
            let writer = try CaptureWriter(path: path)
            _ = try RouteSimulator(settings: s).write(to: writer)
            try writer.close()
            let reader = try LodestarCaptureReader(path: path)
            var ps = Pipeline.Settings()
            ps.heading.heading = nil; ps.smoothing.smoothing = nil; ps.nmea.emitSky = false
            let pipeline = Pipeline(settings: ps, encoder: LodestarJSONEncoder(), sinks: [])
            var fixes: [Location] = []
            pipeline.observer = { if case .fix(let l) = $0 { fixes.append(l) } }
            var out: [Input] = []
            while let e = try reader.next() {
                guard let t = e.monotonicNanos else { continue }
                switch e.payload {
                case .nmea:
                    pipeline.process(e)
                    for f in fixes { out.append(.fix(f, t)) }
                    fixes.removeAll()
                case .motion(let m): out.append(.motion(m, t))
                default: break
                }
            }
            return out
        } catch {
            print("vehicle bench: \(error)"); exit(70)
        }
    }

    static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) // CPU time: the machine is shared
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    static func run() -> Int32 {
        var checksum = 0.0
        for gyro in [false, true] {
            let input = inputs(gyroscope: gyro)
            let magnetometerSamples = input.reduce(0) { n, i in
                if case .motion(.magnetometerRaw, _) = i { return n + 1 }
                return n
            }
            // Motion samples and fixes in separate arrays (a Location is large: no copy per motion sample).
            var motions: [(MotionSample, Int64)] = []
            var fixes: [(before: Int, fix: Location, t: Int64)] = []
            for i in input {
                switch i {
                case .motion(let m, let t): motions.append((m, t))
                case .fix(let l, let t): fixes.append((motions.count, l, t))
                }
            }
            let fixAt = fixes.map(\.before) + [Int.max]
            var best = Int64.max
            for _ in 0..<5 {
                var e = VehicleHeadingEstimator()
                e.setOutput(headingFilterDegrees: 0)
                var nextFix = 0
                let start = now()
                motions.withUnsafeBufferPointer { m in
                    for k in 0..<m.count {
                        while fixAt[nextFix] == k {
                            e.update(fix: fixes[nextFix].fix, monotonicNanos: fixes[nextFix].t)
                            nextFix += 1
                        }
                        if let r = e.process(m[k].0, monotonicNanos: m[k].1).report { checksum += r.headingAccuracyDegrees }
                    }
                }
                best = min(best, now() - start)
            }
            let perRow = Double(best) / Double(magnetometerSamples)
            let label = gyro ? "vehicle heading with gyroscope" : "vehicle heading"
            print("\(label): \(Int(perRow.rounded())) ns per IMU sample (accelerometer + magnetometer\(gyro ? " + gyroscope" : ""), fixes included; best of 5 over \(magnetometerSamples) samples)")
        }
        // The calibration fit: add one course pair and solve (what each fix costs), and a whole refit.
        var fit = CourseMagnetometerFit()
        let pairs = 100_000
        let start = now()
        for k in 0..<pairs {
            let h = Double(k % 360)
            fit.add(x: 20 * cos(h * .pi / 180) + 12, y: 20 * sin(h * .pi / 180) - 8, vertical: -40, headingDegrees: h,
                    weight: 1, forgetting: 0.999)
            if let s = fit.solve() { checksum += s.a11 }
        }
        let perPair = Double(now() - start) / Double(pairs)
        print("calibration in motion: \(Int(perPair.rounded())) ns per course pair (add + solve); the fit keeps O(1) memory")
        if checksum == 42 { print("") }
        return 0
    }
}
