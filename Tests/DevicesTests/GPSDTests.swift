#if canImport(Glibc)
import Glibc
#endif
import CGPS
import CLinux
import Devices
import Foundation
import LocationCore
import NMEA
import Testing
import TestSupport

/// GPSDSource against a real gpsd (3.22 on Debian 12) reading the test's own pseudo-terminal on its own port:
/// `gpsd -N -n -b -S PORT /dev/pts/N`, started with posix_spawn and killed by PID.
@Suite("GPSD source against a real gpsd", .enabled(if: GPSDProcess.isInstalled, Comment(rawValue: GPSDProcess.skipMessage)),
       .timeLimit(.minutes(10)), .ownThreads)
struct GPSDTests {
    /// A pty fed with RMC+GGA every 100 ms (a 10 Hz receiver's worth of bytes) and a gpsd reading it.
    struct Rig {
        let directory: TemporaryDirectory
        let pty: PseudoTerminal
        let feeder: Feeder
        var gpsd: GPSDProcess

        init() throws {
            directory = try TemporaryDirectory()
            pty = try PseudoTerminal()
            feeder = pty.startFeeding(ReceiverNMEA.cycle, everyMilliseconds: 100)
            gpsd = try GPSDProcess(device: pty.slavePath, directory: directory)
        }

        func stop() {
            feeder.stop()
            gpsd.kill()
        }
    }

    @Test func libgpsHasTheMessageBufferAPI() {
        // gps_read(data, message, len) appeared in API 7.0; Debian 12's libgps28 (gpsd 3.22) is API 11.0.
        #expect(GPSDSource.libgpsAPIVersion.major >= 7)
        #expect(GPSDSource.libgpsError(-6) == "can't connect to host/port pair")
    }

    @Test func nmeaModeRelaysTheReceiversSentences() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let sink = SourceRecorder()
        let source = GPSDSource(host: "127.0.0.1", port: rig.gpsd.port, device: rig.pty.slavePath, mode: .nmea)
        let t0 = clinux_monotonic_ns()
        let runner = LiveSourceThread(source, sourceID: 2, sink: sink)
        let ok = await sink.wait(5) { sink in
            let text = String(decoding: sink.nmeaBytes, as: UTF8.self)
            return text.contains(ReceiverNMEA.rmc) && text.contains(ReceiverNMEA.gga)
        }
        #expect(ok, "gpsd log: \(rig.gpsd.log)")
        let stopSeconds = await runner.stop()

        // Each event is one sentence exactly as the receiver sent it (gpsd relays verbatim; CR LF restored).
        let sentences = sink.events.compactMap { e -> String? in
            if case .nmea(let b) = e.payload { return String(decoding: b, as: UTF8.self) }
            return nil
        }
        #expect(!sentences.isEmpty)
        #expect(sentences.allSatisfy { $0 == ReceiverNMEA.rmc || $0 == ReceiverNMEA.gga }, "\(sentences.prefix(4))")
        let stamps = sink.events.compactMap(\.monotonicNanos)
        #expect(stamps.count == sink.events.count && stamps == stamps.sorted() && (stamps.first ?? 0) >= t0)
        #expect(sink.events.isNonEmptyAndAllSatisfy { $0.sourceID == 2 })
        #expect(sink.states == [.starting, .available])
        #expect(source.captureAttributes["kind"] == "gpsd")
        let seconds = try #require(stopSeconds)
        // stop() must cut a poll or a backoff sleep (up to 5 s) short; designed for ~0.1 s, bounded at 1 s
        // because CI shares two cores with other tests (this checks the mechanism, not speed).
        #expect(seconds < 1.0, "run returned \(seconds) s after stop()")
    }

    @Test func jsonModeTurnsTPVIntoFixes() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let sink = SourceRecorder()
        let source = GPSDSource(host: "127.0.0.1", port: rig.gpsd.port, mode: .json)
        let runner = LiveSourceThread(source, sink: sink)
        let ok = await sink.wait(5) { $0.fixes.contains { $0.location.mode == .threeD } }
        await runner.stop()
        #expect(ok, "gpsd log: \(rig.gpsd.log)")
        #expect(sink.nmeaBytes.isEmpty)
        let fix = try #require(sink.fixes.last { $0.location.mode == .threeD })
        #expect(fix.provider == "gpsd")
        let l = fix.location
        #expect(abs((l.latitudeDegrees ?? 0) - -45.457633333) < 1e-9)
        #expect(abs((l.longitudeDegrees ?? 0) - 167.15275) < 1e-9)
        #expect(abs((l.altitudeMSLMeters ?? 0) - 14.7) < 1e-6)
        #expect(abs((l.altitudeEllipsoidMeters ?? 0) - 15.8) < 1e-6)
        #expect(abs((l.courseDegrees ?? 0) - 94.5) < 1e-6)
        #expect(l.speedMetersPerSecond == 0)
        #expect(l.quality == .dgps)
        #expect(l.magneticVariationDegrees == 24.1)
        #expect(l.time != nil)
        #expect(l.verticalAccuracyMeters == nil) // gpsd sent no epv: NaN became nil, not 0
        #expect(sink.states == [.starting, .available])
    }

    /// gpsd 3.22 sends a TPV after each sentence (RMC, then GGA: two per cycle with the same time, the second
    /// more complete); the source delivers one fix per cycle, the last, and turns gpsd's 95 % eph into
    /// Lodestar's 68 % radius (eph ÷ 1.621).
    @Test func jsonModeDeliversOneFixPerCycleWithA68PercentRadius() async throws {
        let rig = try Rig()
        defer { rig.stop() }
        let sink = SourceRecorder()
        let source = GPSDSource(host: "127.0.0.1", port: rig.gpsd.port, mode: .json)
        let runner = LiveSourceThread(source, sink: sink)
        let before = rig.feeder.count
        let ok = await sink.wait(5) { $0.fixes.filter { $0.location.mode == .threeD }.count >= 10 }
        await runner.stop()
        let cycles = rig.feeder.count - before
        #expect(ok, "gpsd log: \(rig.gpsd.log)")
        let fixes = sink.fixes.filter { $0.location.mode == .threeD }
        #expect(fixes.count <= cycles + 1, "\(fixes.count) fixes for \(cycles) receiver cycles")
        // GGA's HDOP 2.1 × gpsd's differential 95 % UERE 4.75 m = eph 9.975 m → 68 % radius 6.152 m.
        let l = try #require(fixes.last?.location)
        #expect(abs((l.horizontalAccuracyMeters ?? 0) - 2.1 * 4.75 / ConfidenceScale.horizontal95Per68) < 0.01)
        #expect(l.altitudeMSLMeters != nil, "the cycle's last TPV (after GGA) is the one delivered")
    }

    /// gpsd dies (SIGKILL by PID): unavailable; gpsd comes back on the same port: recovered, data flows again.
    @Test func reconnectsWhenGpsdRestarts() async throws {
        var rig = try Rig()
        defer { rig.stop() }
        let sink = SourceRecorder()
        var settings = GPSDSource.Settings()
        settings.backoff.maximumNanos = 400_000_000 // retry at least every 0.4 s: bounded test time
        let source = GPSDSource(host: "127.0.0.1", port: rig.gpsd.port, mode: .nmea, settings: settings)
        let runner = LiveSourceThread(source, sink: sink)
        #expect(await sink.wait(5) { $0.states.contains(.available) }, "gpsd log: \(rig.gpsd.log)")

        rig.gpsd.kill(signal: SIGKILL)
        #expect(await sink.wait(3) { $0.states.contains(.unavailable) })
        #expect(sink.statuses.last?.message?.contains("closed the connection") == true)
        try await Task.sleep(for: .milliseconds(300)) // reconnects fail (refused) meanwhile, without new reports

        rig.gpsd = try GPSDProcess(device: rig.pty.slavePath, port: rig.gpsd.port, directory: rig.directory)
        let before = sink.events.count
        #expect(await sink.wait(5) { $0.states.contains(.recovered) }, "gpsd log: \(rig.gpsd.log)")
        #expect(await sink.wait(3) { $0.events.count >= before + 2 })
        await runner.stop()
        #expect(sink.states == [.starting, .available, .unavailable, .recovered])
    }

    @Test func nothingListeningIsUnavailableWithLibgpsError() async throws {
        let port = try GPSDProcess.freePort()
        let sink = SourceRecorder()
        let runner = LiveSourceThread(GPSDSource(host: "127.0.0.1", port: port), sink: sink)
        #expect(await sink.wait(3) { $0.states.contains(.unavailable) })
        try await Task.sleep(for: .milliseconds(400)) // several retries: reported once
        let seconds = try #require(await runner.stop())
        #expect(seconds < 1.0, "run returned \(seconds) s after stop(): a backoff sleep was not interrupted")
        #expect(sink.states == [.starting, .unavailable])
        #expect(sink.statuses.last?.message == "gpsd://127.0.0.1:\(port): can't connect to host/port pair")
    }
}

/// Issue 13, case 8: gpsd running but its receiver silent (device gone or stalled) is reported like a silent
/// serial receiver: unavailable after the silence timeout, recovered when data flows again.
@Suite("GPSD source: stalled stream", .enabled(if: GPSDProcess.isInstalled, Comment(rawValue: GPSDProcess.skipMessage)),
       .timeLimit(.minutes(10)), .ownThreads)
struct GPSDSilenceTests {
    @Test func stalledStreamIsUnavailableThenRecovered() async throws {
        let directory = try TemporaryDirectory()
        let pty = try PseudoTerminal()
        var feeder: Feeder? = pty.startFeeding(ReceiverNMEA.cycle, everyMilliseconds: 100)
        let gpsd = try GPSDProcess(device: pty.slavePath, directory: directory)
        defer { feeder?.stop(); gpsd.kill() }
        let sink = SourceRecorder()
        var settings = GPSDSource.Settings()
        settings.silenceTimeoutNanos = 1_000_000_000
        let runner = LiveSourceThread(GPSDSource(host: "127.0.0.1", port: gpsd.port, mode: .nmea, settings: settings), sink: sink)
        #expect(await sink.wait(5) { $0.states.contains(.available) }, "gpsd log: \(gpsd.log)")
        feeder?.stop()
        feeder = nil
        // (Under load gpsd can take longer than the timeout to send its first sentence: that is reported too.)
        func afterAvailable(_ s: [StatusReport.State]) -> ArraySlice<StatusReport.State> {
            s.firstIndex(of: .available).map { s[($0 + 1)...] } ?? []
        }
        #expect(await sink.wait(4) { afterAvailable($0.states).contains(.unavailable) })
        #expect(sink.statuses.last?.message?.contains("no data from gpsd for 1.0 s") == true)
        feeder = pty.startFeeding(ReceiverNMEA.cycle, everyMilliseconds: 100)
        #expect(await sink.wait(5) { afterAvailable($0.states).contains(.recovered) })
        await runner.stop()
        #expect(Array(afterAvailable(sink.states)) == [.unavailable, .recovered])
    }
}
