import Capture
import Devices
import Events
import Foundation
import LocationCore
import Pipeline
import Session
import Synchronization
import Testing
import TestSupport
@testable import lodestar

/// Statuses from outside the sources (here the MQTT publisher's, from a real broker) enter the session's input:
/// a live run records them in its capture, and the capture's replay prints the same bytes, those statuses included.
@Suite("Outside statuses", .ownThreads)
struct OutsideStatusTests {
    /// Built with the one session builder, live and replay: a status posted to the inbox from another thread while
    /// the session runs is in the live output, in the capture, and in the replay's identical output.
    @Test func aPostedStatusIsRecordedAndReplayedThroughTheBuilder() throws {
        let dir = try TemporaryDirectory()
        let capture = dir.path("live.lcap")
        let source = ScriptedSource(cycles: 20)
        let queue = LiveEventQueue(sources: [source])
        let inbox = SessionInbox()
        let liveSink = MemorySink()
        var builder = SessionBuilder()
        builder.sinks = [liveSink]
        builder.inbox = inbox
        let posted = Atomic<Bool>(false)
        builder.consumers = [OutputEventHandler { e in
            // Posted from another thread once the receiver's first fix is out.
            if case .fix = e, !posted.exchange(true, ordering: .relaxed) {
                PosixThread.start(joinable: false) {
                    inbox.post(StatusReport(source: "mqtt", state: .unavailable, message: "broker went away"))
                }
            }
        }]
        let live = try builder.live(queue: queue, record: capture)
        let start = PosixThread.monotonicNanos()
        try live.run(.live(queue), shouldStop: {
            (source.done.load(ordering: .relaxed) && liveSink.text.contains("broker went away"))
                || PosixThread.monotonicNanos() - start > 20_000_000_000
        })
        #expect(liveSink.text.contains("\"source\":\"mqtt\",\"state\":\"unavailable\""))

        var replayBuilder = SessionBuilder()
        let replaySink = MemorySink()
        replayBuilder.sinks = [replaySink]
        let replay = replayBuilder.replay(today: CivilDate(year: 2000, month: 1, day: 1))
        try replay.run(.capture(try LodestarCaptureReader(path: capture)))
        #expect(!liveSink.bytes.isEmpty)
        #expect(replaySink.text == liveSink.text)
        #expect(replay.effectiveConfiguration == builder.liveConfiguration(queue))
    }

    @Test(.enabled(if: MosquittoBroker.isInstalled, "\(MosquittoBroker.skipMessage)"))
    func anMQTTStatusDuringALiveRunIsRecordedAndReplayed() throws {
        let dir = try TemporaryDirectory()
        let broker = try MosquittoBroker(directory: dir)
        defer { broker.stop() }
        let capture = dir.path("live.lcap")

        let run = try Run.parse(["--gps", "/dev/scripted", "--record", capture, "--quiet",
                                 "--mqtt", "mqtt://127.0.0.1:\(broker.port)/lodestar", "--mqtt-device", "board",
                                 "--mqtt-spool", dir.path("spool")])
        let inbox = SessionInbox()
        let mqtt = try #require(try run.mqttOptions.start(filtersFixes: false, onStatus: postingStatuses(to: inbox, echo: false)))
        let source = ScriptedSource(cycles: 20)
        let queue = LiveEventQueue(sources: [source])
        let live = MemorySink()
        let sawMQTT = Atomic<Bool>(false)
        let watch = OutputEventHandler { e in
            if case .status(let s) = e, s.source == "mqtt", s.state == .available { sawMQTT.store(true, ordering: .relaxed) }
        }
        let start = PosixThread.monotonicNanos()
        _ = try run.runLive(queue: queue, options: run.outputOptions, mounting: nil, sinks: [live], consumers: [mqtt, watch],
                            inbox: inbox, shouldStop: {
            (source.done.load(ordering: .relaxed) && sawMQTT.load(ordering: .relaxed))
                || PosixThread.monotonicNanos() - start > 20_000_000_000
        })
        _ = mqtt.finish(quiet: true)

        let reached = sawMQTT.load(ordering: .relaxed)
        #expect(reached, "the broker's status never reached the session")
        let text = live.text
        #expect(text.contains("\"source\":\"mqtt\",\"state\":\"available\""), "live output: \(text.prefix(2000))")
        // In the capture as a status record, like any source's status.
        let recorded = try String(contentsOfFile: capture, encoding: .utf8)
        #expect(recorded.split(separator: "\n").contains { $0.contains(" S ") && $0.contains("mqtt") },
                "no mqtt status record in the capture")

        let replay = try TestSupport.Lodestar.run(["replay", "--quiet", capture])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(!text.isEmpty)
        #expect(replay.stdout == text, "replay differs from live")
    }
}
