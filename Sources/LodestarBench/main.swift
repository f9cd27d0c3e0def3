// Micro-benchmarks for `make bench` (scripts/bench.sh prints them next to the gpsdecode comparison).
// Usage: LodestarBench parse FILE   — framer + parser only, file in memory, best of 5 runs
//        LodestarBench pipeline FILE — framer + parser + epoch assembly + gpsd JSON encoding, no I/O
//        LodestarBench latency LODESTAR [COUNT] — pty → lodestar run → FIFO (Latency.swift)
//        LodestarBench smoothing FILE — one smoother update (median) and the drive's replay vs real time (SmoothingBench.swift)
//        LodestarBench regions [N]   — region monitor with N (10,000) regions, µs per fix (RegionsBench.swift)
//        LodestarBench vehicle       — vehicle heading per IMU sample with/without gyroscope, calibration fit (VehicleHeadingBench.swift)
//        LodestarBench serve [CLIENTS [SECONDS]] — gpsd-protocol server load: latency, drops, CPU (ServerBench.swift)
//        LodestarBench wmm [N [K]]   — WMM2025 evaluation and DeclinationCache hit; K validation points (WMMBench.swift)
#if canImport(Glibc)
import Glibc
#endif
import Events
import LocationCore
import LodestarIO
import NMEA
import Pipeline
import UBX

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func load(_ path: String) -> [UInt8] {
    guard let f = fopen(path, "rb") else { print("cannot open \(path)"); exit(66) }
    defer { fclose(f) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, 1 << 20, f) }
        if n <= 0 { break }
        out.append(contentsOf: chunk[0..<n])
    }
    return out
}

final class NullSink: OutputSink {
    var bytes = 0
    let isBroken = false
    let droppedLines = 0
    func write(_ b: UnsafeBufferPointer<UInt8>) { bytes += b.count }
    func close() {}
}

let args = CommandLine.arguments
if args.count >= 2 && args[1] == "serve" {
    exit(ServerBenchmark.run(clients: args.count > 2 ? Int(args[2]) ?? 200 : 200, seconds: args.count > 3 ? Int(args[3]) ?? 30 : 30))
}
if args.count >= 2 && args[1] == "calibration" { CalibrationBenchmark.run(); exit(0) }
if args.count >= 2 && args[1] == "vehicle" { exit(VehicleHeadingBenchmark.run()) }
if args.count >= 3 && args[1] == "smoothing" { exit(SmoothingBenchmark.run(path: args[2])) }
if args.count >= 2 && args[1] == "regions" { exit(RegionsBenchmark.run(regionCount: args.count > 2 ? Int(args[2]) ?? 10_000 : 10_000)) }
if args.count >= 2 && args[1] == "geocode" { exit(GeocodingBenchmark.run(queries: args.count > 2 ? Int(args[2]) ?? 1_000_000 : 1_000_000)) }
if args.count >= 3 && args[1] == "latency" {
    exit(LatencyBenchmark.run(lodestar: args[2], count: args.count > 3 ? Int(args[3]) ?? 10_000 : 10_000))
}
if args.count >= 2 && args[1] == "wmm" {
    exit(WMMBenchmark.run(evaluations: args.count > 2 ? Int(args[2]) ?? 200_000 : 200_000,
                          sweepPoints: args.count > 3 ? Int(args[3]) ?? 0 : 0))
}
guard args.count >= 3 else {
    print("usage: LodestarBench parse|parse-mixed|pipeline FILE | latency LODESTAR [COUNT] | wmm [N [K]]"); exit(64)
}
let data = load(args[2])
var best = Double.infinity
var sentences = 0
for _ in 0..<5 {
    let start = now()
    var count = 0
    switch args[1] {
    case "parse":
        let framer = NMEAFramer()
        let parser = NMEAParser()
        var parsed = 0
        data.withUnsafeBufferPointer { p in
            framer.feed(p) { f in if parser.parse(f) != nil { parsed += 1 } }
        }
        precondition(parsed <= framer.statistics.framed)
        // The same count as the pipeline figure: sentences the framer accepted (checksum valid).
        count = framer.statistics.framed
    case "parse-mixed":
        // The same through the mixed NMEA/UBX/RTCM3 framer the pipeline uses (NMEA-only input: its fast path).
        let framer = MixedStreamFramer()
        let parser = NMEAParser()
        var parsed = 0
        data.withUnsafeBufferPointer { p in
            framer.feed(p) { f in if case .nmea(let s) = f, parser.parse(s) != nil { parsed += 1 } }
        }
        precondition(parsed <= framer.nmea.statistics.framed)
        count = framer.nmea.statistics.framed
    default:
        let sink = NullSink()
        let pipeline = Pipeline(encoder: GpsdJSONEncoder(), sinks: [sink])
        data.withUnsafeBufferPointer { pipeline.feedNMEA($0) }
        pipeline.finish()
        count = pipeline.nmeaStatistics.framed
    }
    best = min(best, now() - start)
    sentences = count
}
// Labels say what ran; both counts are the framer's accepted sentences, so the two rates compare.
let label = args[1] == "parse" ? "parse-only (framer + parser, file in memory)"
    : args[1] == "parse-mixed" ? "parse-only through the mixed NMEA/UBX/RTCM3 framer (framer + parser, file in memory)"
    : "pipeline without I/O (framer, parser, epochs, smoothing on, heading on but no motion samples in NMEA, gpsd JSON encoding)"
print("\(label): \(sentences) sentences framed, best of 5: \(String(format4: best)) s = \(Int(Double(sentences) / best)) sentences/s")

extension String {
    init(format4 v: Double) { self = String(Double(Int(v * 10000)) / 10000) }
}
