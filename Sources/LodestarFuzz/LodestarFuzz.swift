// libFuzzer entry point for the NMEA framer + parser + epoch assembly, every capture reader, format detection and
// the Lodestar capture header. Built by scripts/fuzz.sh with `-sanitize=fuzzer,address -DFUZZING`; without FUZZING
// this is a small runner that replays corpus files through the same functions (run by `make test`).
//
// `LODESTAR_FUZZ_TARGET` picks one harness (faster, deeper runs): `pipeline`, `lodestar`, `nmea`, `gnsslogger`,
// `imu-csv`, `detect`, `header`, `ubx`; unset or `all` runs every harness on each input.
#if canImport(Glibc)
import Glibc
#endif
import Capture
import Events
import LocationCore
import LodestarIO
import NMEA
import Pipeline
import UBX

final class DiscardSink: OutputSink {
    let isBroken = false
    let droppedLines = 0
    func write(_ b: UnsafeBufferPointer<UInt8>) {}
    func close() {}
}

enum Harness: String, CaseIterable {
    case pipeline, lodestar, nmea, gnsslogger, imuCSV = "imu-csv", detect, header, ubx

    static let selected: [Harness] = {
        guard let name = getenv("LODESTAR_FUZZ_TARGET").map({ String(cString: $0) }), name != "all" else { return allCases }
        guard let h = Harness(rawValue: name) else {
            print("LODESTAR_FUZZ_TARGET must be one of \(allCases.map(\.rawValue)) or all")
            exit(2)
        }
        return [h]
    }()

    func run(_ data: UnsafeBufferPointer<UInt8>) {
        switch self {
        case .pipeline: fuzzPipeline(data)
        case .lodestar: fuzzReader(data, .lodestar)
        case .nmea: fuzzReader(data, .nmea)
        case .gnsslogger: fuzzReader(data, .gnsslogger)
        case .imuCSV: fuzzReader(data, .imuCSV)
        case .detect:
            let source = ByteSource(bytes: Array(data), name: "fuzz")
            if let reader = try? CaptureDetector.open(source: source, format: nil) { drain(reader, throughPipeline: true) }
        case .header: fuzzHeader(data)
        case .ubx: fuzzUBX(data)
        }
    }
}

/// Strict and lenient framing, parsing, epoch assembly and all encoders.
func fuzzPipeline(_ data: UnsafeBufferPointer<UInt8>) {
    for lenient in [false, true] {
        var settings = Pipeline.Settings()
        settings.nmea.framer = NMEAFramer.Options(acceptMissingChecksum: lenient)
        settings.nmea.passthrough = true
        settings.nmea.referenceDate = CivilDate(year: 2024, month: 6, day: 1)
        for format in OutputFormat.allCases {
            let p = Pipeline(settings: settings, encoder: makeEncoder(format), sinks: [DiscardSink()])
            p.feedNMEA(data)
            p.finish()
        }
    }
}

/// One reader over the bytes (in memory). Events are drained without a pipeline (building one per input costs
/// more than the reader: the `pipeline` harness and the corpus runner cover events through it).
func fuzzReader(_ data: UnsafeBufferPointer<UInt8>, _ format: CaptureFormat) {
    let source = ByteSource(bytes: Array(data), name: "fuzz")
    guard let reader = try? CaptureDetector.open(source: source, format: format) else { return }
    drain(reader, throughPipeline: false)
}

func drain(_ reader: any CaptureReader, throughPipeline: Bool) {
    var p: Pipeline?
    if throughPipeline {
        var settings = Pipeline.Settings()
        settings.nmea.referenceDate = CivilDate(year: 2024, month: 6, day: 1)
        p = Pipeline(settings: settings, encoder: makeEncoder(.json), sinks: [DiscardSink()])
    }
    var events = 0
    while events < 100_000, let event = try? reader.next() {
        events += 1
        p?.process(event)
    }
    p?.finish()
    _ = reader.statistics.rejections.total
}

/// The Lodestar capture header: the input placed after a valid magic line, then one record, so header parsing
/// (clock pairing, sources, calibration, created date) and its effect on the first record are reached every time.
func fuzzHeader(_ data: UnsafeBufferPointer<UInt8>) {
    var bytes = Array("#!lodestar-capture 1\n".utf8)
    bytes += data
    bytes += Array("\n1000 0 N $GPRMC,120000.00,A,3723.16600,N,12205.03400,W,0.1,,010625,,,A*6F\\r\\n\n".utf8)
    let reader = LodestarCaptureReader(source: ByteSource(bytes: bytes, name: "fuzz"))
    drain(reader, throughPipeline: false)
    _ = reader.header.referenceDate
    _ = reader.sources.count
}

/// The mixed NMEA/UBX/RTCM3 framer fed whole and in odd chunks (the two must agree), every decoder on every
/// frame, the UBX epoch assembler, and the pipeline on the same bytes.
func fuzzUBX(_ data: UnsafeBufferPointer<UInt8>) {
    func run(_ chunk: Int) -> (MixedStreamStatistics, Int) {
        let framer = MixedStreamFramer(options: MixedStreamFramer.Options(maximumUBXPayloadLength: 2048))
        var assembler = UBXEpochAssembler()
        var outputs = 0
        let handle: (MixedStreamFramer.Frame) -> Void = { frame in
            outputs += 1
            guard case .ubx(let f) = frame else { return }
            if case .decoded(let m) = UBXDecoded.decode(f) { assembler.add(m) { _ in outputs += 1 } }
            _ = UBXMessage(f).framed
        }
        var i = 0
        while i < data.count {
            let n = min(chunk, data.count - i)
            framer.feed(UnsafeBufferPointer(rebasing: data[i..<(i + n)]), handle)
            i += n
        }
        framer.finish(handle)
        assembler.finish { _ in outputs += 1 }
        return (framer.statistics, outputs)
    }
    let whole = run(max(1, data.count))
    let odd = run(7)
    if whole.0 != odd.0 || whole.1 != odd.1 { fatalError("mixed framer: chunking changed the result") }
    // The assembler's framed fast path (decoding the frequent messages straight into the epoch, rejecting the ones not
    // decoded early) must give what the general path gives, output for output.
    do {
        var fast = UBXEpochAssembler(), general = UBXEpochAssembler()
        var fastOut: [String] = [], generalOut: [String] = []
        let framer = MixedStreamFramer(options: MixedStreamFramer.Options(maximumUBXPayloadLength: 2048))
        let handle: (MixedStreamFramer.Frame) -> Void = { frame in
            guard case .ubx(let f) = frame else { return }
            let outcome = fast.add(frame: f) { fastOut.append(String(reflecting: $0)) }
            let expected: UBXEpochAssembler.FrameOutcome
            if f.payload.isEmpty {
                expected = .poll   // a host's poll or command, whatever its class and id
            } else {
                switch UBXDecoded.decode(f) {
                case .decoded(let m): general.add(m) { generalOut.append(String(reflecting: $0)) }; expected = .decoded
                case .unknown: expected = .unknown
                case .malformed: expected = .malformed
                }
            }
            if outcome != expected { fatalError("UBX assembler: the framed path said \(outcome), decode \(expected)") }
        }
        framer.feed(data, handle)
        framer.finish(handle)
        fast.finish { fastOut.append(String(reflecting: $0)) }
        general.finish { generalOut.append(String(reflecting: $0)) }
        if fastOut != generalOut { fatalError("UBX assembler: the framed path's outputs differ from the general path's") }
    }
    var settings = Pipeline.Settings()
    settings.nmea.referenceDate = CivilDate(year: 2024, month: 6, day: 1)
    let p = Pipeline(settings: settings, encoder: makeEncoder(.json), sinks: [DiscardSink()])
    p.process(SensorEvent(payload: .nmea(Array(data))))
    p.finish()
}

func fuzzOne(_ data: UnsafeBufferPointer<UInt8>) {
    for h in Harness.selected { h.run(data) }
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
