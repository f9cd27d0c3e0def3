// Position smoothing cost: one filter update (median over every fix of a real drive), and the replay of the whole
// drive through the pipeline with smoothing on vs off (as a multiple of real time).
#if canImport(Glibc)
import Glibc
#endif
import Capture
import Estimation
import Events
import LocationCore
import Pipeline

enum SmoothingBenchmark {
    static func run(path: String) -> Int32 {
        let data = load(path)
        // The receiver's fixes as parsed.
        var settings = Pipeline.Settings()
        settings.smoothing.smoothing = nil
        settings.heading.heading = nil
        let parse = Pipeline(settings: settings, encoder: LodestarJSONEncoder(), sinks: [])
        var fixes: [Location] = []
        parse.observer = { if case .fix(let l) = $0, l.latitudeDegrees != nil { fixes.append(l) } }
        data.withUnsafeBufferPointer { parse.feedNMEA($0) }
        parse.finish()
        guard let first = fixes.first?.time, let last = fixes.last?.time, fixes.count > 10 else {
            print("smoothing: no fixes in \(path)"); return 65
        }
        let driveSeconds = Double(last.nanosecondsSince1970 - first.nanosecondsSince1970) / 1e9
        // 1. Per-update cost: each update timed, median of 20 passes' medians.
        var medians: [Double] = []
        for _ in 0..<20 {
            var s = PositionSmoother()
            var times: [Double] = []
            times.reserveCapacity(fixes.count)
            var sink = 0.0
            for f in fixes {
                let t0 = now()
                let o = s.process(fix: f)
                times.append(now() - t0)
                sink += o.latitudeDegrees ?? 0
            }
            if sink == 42 { print("") }
            times.sort()
            medians.append(times[times.count / 2])
        }
        medians.sort()
        let updateNs = medians[medians.count / 2] * 1e9
        // 2. Whole-drive replay (framer, parser, epochs, smoother, JSON encoding, no I/O), best of 5.
        func replay(smoothing: Bool) -> Double {
            var best = Double.infinity
            for _ in 0..<5 {
                var st = Pipeline.Settings()
                st.heading.heading = nil
                if !smoothing { st.smoothing.smoothing = nil }
                let sink = NullSink()
                let p = Pipeline(settings: st, encoder: LodestarJSONEncoder(), sinks: [sink])
                let t0 = now()
                data.withUnsafeBufferPointer { p.feedNMEA($0) }
                p.finish()
                best = min(best, now() - t0)
            }
            return best
        }
        let on = replay(smoothing: true), off = replay(smoothing: false)
        print("smoothing: \(fixes.count) fixes over \(Int(driveSeconds)) s of drive (\(path.split(separator: "/").suffix(2).joined(separator: "/")))")
        print("  one filter update: median \(Int(updateNs.rounded())) ns (target <= 1000 ns)")
        print("  replay of the drive, JSON out, no I/O: smoothing on \(String(format4: on * 1000)) ms = \(Int(driveSeconds / on))x real time (target >= 1000x); off \(String(format4: off * 1000)) ms = \(Int(driveSeconds / off))x")
        return 0
    }
}
