// libFuzzer entry point for the NMEA framer + parser + epoch assembly and the capture readers.
// Built by scripts/fuzz.sh with `-sanitize=fuzzer,address -DFUZZING`; without FUZZING this is a small runner
// that replays corpus files through the same function (a regression check that runs in the test build).
#if canImport(Glibc)
import Glibc
#endif
import Capture
import LocationCore
import NMEA
import Pipeline

final class DiscardSink: OutputSink {
    let isBroken = false
    let droppedLines = 0
    func write(_ b: UnsafeBufferPointer<UInt8>) {}
    func close() {}
}

/// Everything an input can reach: strict and lenient framing, parsing, epoch assembly and all encoders,
/// then the same bytes as a capture file through every reader.
func fuzzOne(_ data: UnsafeBufferPointer<UInt8>) {
    for lenient in [false, true] {
        var settings = Pipeline.Settings()
        settings.framer = NMEAFramer.Options(acceptMissingChecksum: lenient)
        settings.passthrough = true
        settings.referenceDate = CivilDate(year: 2024, month: 6, day: 1)
        for format in OutputFormat.allCases {
            let p = Pipeline(settings: settings, encoder: makeEncoder(format), sinks: [DiscardSink()])
            p.feedNMEA(data)
            p.finish()
        }
    }
    // Capture readers read files: write the input to a scratch file once per run.
    let path = "/tmp/lodestar-fuzz-\(getpid()).input"
    guard let f = fopen(path, "wb") else { return }
    if let base = data.baseAddress { fwrite(base, 1, data.count, f) }
    fclose(f)
    for format in CaptureFormat.allCases {
        guard let reader = try? CaptureDetector.open(path: path, format: format) else { continue }
        // Every event through a full pipeline: NMEA, heading (estimator + background calibration), outputs.
        var settings = Pipeline.Settings()
        settings.referenceDate = CivilDate(year: 2024, month: 6, day: 1)
        let p = Pipeline(settings: settings, encoder: makeEncoder(.json), sinks: [DiscardSink()])
        var events = 0
        while events < 100_000, let event = try? reader.next() {
            events += 1
            p.process(event)
        }
        p.finish()
    }
    _ = try? CaptureDetector.detect(path: path)
}

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzOne(UnsafeBufferPointer(start: data, count: size))
    return 0
}
#else
@main
struct CorpusRunner {
    static func main() {
        var count = 0
        for path in CommandLine.arguments.dropFirst() {
            guard let f = fopen(path, "rb") else {
                print("cannot open corpus file \(path)")
                exit(66)
            }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, 65536, f) }
                if n <= 0 { break }
                bytes += chunk[0..<n]
            }
            fclose(f)
            bytes.withUnsafeBufferPointer { fuzzOne($0) }
            count += 1
        }
        guard count > 0 else { print("no corpus files given"); exit(64) }
        print("replayed \(count) corpus files without a crash")
    }
}
#endif
