import Capture
import Events
import Glibc
import Devices
import LocationCore
import NMEA
import Pipeline
import Session
import Synchronization
import Testing
import TestSupport

/// A scripted live source: delivers a few receiver cycles in odd-sized chunks, then says it is done.
final class ScriptedSource: LiveSource, @unchecked Sendable {
    let name = "gps0"
    let captureAttributes = ["kind": "nmea", "device": "scripted"]
    let done = Atomic<Bool>(false)
    let stopped = Atomic<Bool>(false)
    let bytes: [UInt8]

    init(cycles: Int) {
        var b: [UInt8] = []
        for s in 0..<cycles {
            let t = "1200\(s < 10 ? "0" : "")\(s)"
            b += Array(NMEAEncoder.sentence("GPRMC,\(t),A,4807.038,N,01131.000,E,1.0,45.0,230324,,,A").utf8)
            b += Array(NMEAEncoder.sentence("GPGGA,\(t),4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,").utf8)
        }
        bytes = b
    }

    func run(sourceID: Int, sink: any SourceSink) {
        sink.report(StatusReport(source: name, state: .starting))
        sink.report(StatusReport(source: name, state: .available))
        var t: Int64 = 5_000_000_000
        var i = 0
        var chunk = 7
        while i < bytes.count && !stopped.load(ordering: .relaxed) {
            let end = min(bytes.count, i + chunk)
            sink.deliver(SensorEvent(monotonicNanos: t, sourceID: sourceID, payload: .nmea(Array(bytes[i..<end]))))
            i = end
            t += 10_000_000
            chunk = chunk % 61 + 13
        }
        done.store(true, ordering: .relaxed)
        while !stopped.load(ordering: .relaxed) { usleepish() }
    }

    func stop() { stopped.store(true, ordering: .relaxed) }
    private func usleepish() { var ts = timespec(tv_sec: 0, tv_nsec: 1_000_000); nanosleep(&ts, nil) }
}

@Suite("Live session", .ownThreads)
struct LiveSessionTests {
    /// A scripted live session recorded through the session runner replays to the same bytes, statuses included.
    @Test func liveSessionRecordsAndReplaysToTheSameBytes() throws {
        let dir = try TemporaryDirectory()
        let capturePath = dir.path("live.lcap")
        let source = ScriptedSource(cycles: 20)
        let queue = LiveEventQueue(sources: [source])
        let configuration = SessionConfiguration.live(sourceNames: ["gps0"], mounting: nil, lenient: false,
                                                      calibration: nil, clock: queue.clock)
        var settings = Pipeline.Settings()
        settings.output.flushEveryEvent = true
        let liveSink = MemorySink()
        let live = SessionRunner(settings: settings, configuration: configuration, today: queue.clock.date,
                                 encoder: LodestarJSONEncoder(), sinks: [liveSink])
        live.recorder = try CaptureRecorder(path: capturePath, sourceHeader: queue.captureHeader(), configuration: configuration)
        var statuses: [StatusReport.State] = []
        live.consumers = [OutputEventHandler { if case .status(let s) = $0 { statuses.append(s.state) } }]
        try live.run(.live(queue), shouldStop: { source.done.load(ordering: .relaxed) })

        #expect(live.pipeline?.fixesEmitted == 20)
        #expect(statuses == [.starting, .available])
        #expect(queue.dropped == 0)
        #expect(liveSink.text.contains("\"class\":\"availability\""))

        // Replay with nothing said on the command line: the header supplies the session configuration.
        let reader = try LodestarCaptureReader(path: capturePath)
        let replaySink = MemorySink()
        let replay = SessionRunner(settings: Pipeline.Settings(), today: CivilDate(year: 2000, month: 1, day: 1),
                                   encoder: LodestarJSONEncoder(), sinks: [replaySink])
        try replay.run(.capture(reader))
        #expect(!liveSink.bytes.isEmpty)
        #expect(replaySink.text == liveSink.text)
        #expect(replay.effectiveConfiguration == configuration)
        #expect(reader.sources[0]?.attributes["device"] == "scripted")
        #expect(reader.statistics.recordsIgnored == 0)
        #expect(reader.statistics.rejections.total == 0)
    }
}
