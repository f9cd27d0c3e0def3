#if canImport(Glibc)
import LodestarIO
import Glibc
#endif
import CLinux
import LocationCore
import NMEA
import Synchronization
import UBX

/// A GNSS receiver on a serial line. `run` opens the port (exclusive, raw), sets or finds the rate, and delivers
/// `SensorEvent(.nmea(bytes))` per read exactly as the bytes arrived (no line splitting: the pipeline frames),
/// stamped with the monotonic clock on receipt (the live event queue derives the UTC from the session's clock).
///
/// Status events, in order: `starting`; `available` at the first checksum-valid sentence; `unavailable` when the
/// device hangs up (unplugged USB receiver: EIO/EOF/POLLHUP), vanishes (ENOENT), is held by another process
/// (EBUSY) or goes silent for `silenceTimeoutNanos`; then it reopens with `Backoff` and reports `recovered` at
/// the next valid sentence. `denied` (EACCES/EPERM) carries the fix in one line and keeps retrying, so a udev
/// rule installed meanwhile takes effect at the next attempt.
///
/// Stopping: `stop()` from any thread; `run` returns within one poll interval (50 ms by default). A stopped
/// source stays stopped (create a new one to run again), so a `stop()` that races the start of `run` is not lost.
public final class SerialSource: LiveSource {
    public struct Settings: Sendable {
        /// poll() timeout of each read, and so the stop latency.
        public var pollMilliseconds = 50
        public var readSize = 4096
        /// TIOCEXCL: a second opener (other than root) gets EBUSY while we hold the port.
        public var exclusive = true
        /// No valid sentence for this long while the port stays open ⇒ `unavailable` (receiver lost power,
        /// wrong fixed rate). 0 disables.
        public var silenceTimeoutNanos: Int64 = 5_000_000_000
        public var autobaud = Autobaud.Settings.default
        public var backoff = Backoff()
        /// Applied (RAM only) at every open, so a replugged receiver gets them again (docs/receiver.md).
        public var receiver: ReceiverSettings?
        public var configurator: any ReceiverConfigurator = UBloxConfigurator()
        public init() {}
        public static let `default` = Settings()
    }

    public let name: String
    public let path: String
    public let baud: BaudSetting
    public let settings: Settings
    private let stopRequested = Atomic<Bool>(false)
    private let lockedBaud = Atomic<Int>(0)
    private let framedChunks = Atomic<Int>(0)
    /// Chunks this source framed itself to judge liveness (the rest were left to the pipeline: framed once).
    public var chunksFramedBySource: Int { framedChunks.load(ordering: .relaxed) }
    private let status: SourceStateBox
    /// The open port, nil between sessions. Every write to the receiver (configuration, corrections) holds this
    /// lock for the whole message or sequence, so writes never interleave.
    private let writer = Mutex<SerialPort?>(nil)

    public init(name: String = "gps0", path: String, baud: BaudSetting = .automatic, settings: Settings = .default) {
        self.name = name; self.path = path; self.baud = baud; self.settings = settings
        status = SourceStateBox(SourceState(name: name, authorization: .notDetermined, available: false))
    }

    public var captureAttributes: [String: String] {
        let locked = lockedBaud.load(ordering: .relaxed)
        return ["kind": "nmea", "transport": "serial", "device": path, "baud": locked > 0 ? "\(locked)" : baud.description]
    }

    /// Authorization and availability as last observed (for `lodestar devices` and status displays).
    public var state: SourceState { status.value }

    /// The rate in use: the fixed one, or the one autobaud locked on (nil before that).
    public var baudRate: Int? {
        let locked = lockedBaud.load(ordering: .relaxed)
        return locked > 0 ? locked : nil
    }

    public func stop() { stopRequested.store(true, ordering: .releasing) }

    /// Writes `bytes` whole to the receiver (e.g. an RTCM3 frame), never interleaved with a configuration
    /// sequence. False when the port is closed (between sessions) or the write failed or was short.
    @discardableResult
    public func writeToReceiver(_ bytes: [UInt8]) -> Bool {
        writer.withLock { port in
            guard let port else { return false }
            guard let n = try? port.write(bytes) else { return false }
            return n == bytes.count
        }
    }

    private var isStopping: Bool { stopRequested.load(ordering: .acquiring) }

    public func run(sourceID: Int, sink: any SourceSink) {
        var tracker = StatusTracker(name: name, sink: sink, state: status)
        tracker.starting(baud == .automatic ? "\(path), autobaud" : "\(path) at \(baud) baud")
        runSessions(backoff: settings.backoff, stopping: { isStopping }) { backoff in
            session(sourceID: sourceID, sink: sink, tracker: &tracker, backoff: &backoff)
        }
    }

    /// One open–read–fail cycle.
    private func session(sourceID: Int, sink: any SourceSink, tracker: inout StatusTracker, backoff: inout Backoff) {
        let port: SerialPort
        do { port = try SerialPort(path: path, exclusive: settings.exclusive) } catch {
            tracker.failed(error, path: path)
            return
        }
        defer {
            writer.withLock { $0 = nil }
            port.close()
        }
        tracker.authorized()

        var pending: [SerialChunk] = []
        switch baud {
        case .fixed(let rate):
            do { try port.setBaudRate(rate) } catch {
                tracker.problem(.unavailable, error.description)
                return
            }
            lockedBaud.store(rate, ordering: .relaxed)
        case .automatic:
            do {
                let lock = try Autobaud.detect(port, settings: settings.autobaud, shouldContinue: { !self.isStopping })
                lockedBaud.store(lock.baudRate, ordering: .relaxed)
                pending = lock.chunks
            } catch .cancelled {
                return
            } catch .hungUp {
                tracker.problem(.unavailable, "\(path): device hung up (unplugged?)")
                return
            } catch .system(let error) {
                tracker.failed(error, path: path)
                return
            } catch {
                tracker.problem(.unavailable, "\(path): \(error)")
                return
            }
        }

        var rateText = "\(path) at \(lockedBaud.load(ordering: .relaxed)) baud"
        // Valid data: a checksum-valid NMEA sentence, UBX frame or RTCM3 frame (a UBX-only receiver is alive too).
        // Bytes are framed once: while data flows and the sink reports what the pipeline framed
        // (`lastValidDataNanos`), this source does not frame; it frames only while it waits for valid data (at the
        // start, after a silence), so `available`/`recovered` still precede the data that caused them.
        var framer = MixedStreamFramer()
        var framing = true
        var lastValidNanos = clinux_monotonic_ns()
        var silenceReported = false
        /// Follows what the pipeline framed; true when it reports for this session (the source may stop framing).
        func followPipeline() -> Bool {
            guard let seen = sink.lastValidDataNanos(sourceID: sourceID) else { return false }
            if seen > lastValidNanos { lastValidNanos = seen; silenceReported = false }
            return true
        }
        /// `locked`: bytes autobaud already framed and locked on (valid; not framed a second time here).
        func deliver(_ chunk: SerialChunk, locked: Bool) {
            var valid = locked
            if !locked {
                let leaveToPipeline = tracker.isFlowing && followPipeline()
                if leaveToPipeline {
                    framing = false
                } else {
                    if !framing { framer = MixedStreamFramer(); framing = true }   // no stale partial sentence
                    framer.feed(chunk.bytes) { _ in valid = true }
                    framedChunks.add(1, ordering: .relaxed)
                }
            }
            if valid {
                lastValidNanos = chunk.monotonicNanos
                silenceReported = false
                if !tracker.isFlowing {
                    tracker.flowing(rateText)
                    backoff.reset()
                }
            }
            sink.deliver(SensorEvent(monotonicNanos: chunk.monotonicNanos, sourceID: sourceID, payload: .nmea(chunk.bytes)))
        }
        for chunk in pending { deliver(chunk, locked: true) }

        // The port is open: configure the receiver (every reopen, so a replugged receiver gets the settings again),
        // then let other writers (NTRIP corrections) in.
        writer.withLock { writerPort in
            if let wanted = settings.receiver, !wanted.isEmpty, !isStopping {
                configure(wanted, port: port, tracker: tracker, deliver: { deliver($0, locked: false) })
                if let rate = try? port.baudRate(), rate != lockedBaud.load(ordering: .relaxed) {
                    lockedBaud.store(rate, ordering: .relaxed)
                    rateText = "\(path) at \(rate) baud"
                }
            }
            writerPort = port
        }

        while !isStopping {
            let result: SerialReadResult
            do { result = try port.read(maxBytes: settings.readSize, timeoutMilliseconds: settings.pollMilliseconds) } catch {
                tracker.problem(.unavailable, error.description)
                return
            }
            switch result {
            case .chunk(let chunk):
                deliver(chunk, locked: false)
            case .hungUp:
                tracker.problem(.unavailable, "\(path): device hung up (unplugged?)")
                return
            case .timedOut:
                break
            }
            let silence = settings.silenceTimeoutNanos
            if !framing { _ = followPipeline() }
            if silence > 0, !silenceReported, clinux_monotonic_ns() - lastValidNanos > silence {
                silenceReported = true
                let seconds = Double(silence) / 1e9
                tracker.problem(.unavailable, tracker.hasBeenAvailable
                    ? "\(rateText): no valid NMEA for \(seconds) s"
                    : "\(rateText): no valid NMEA after \(seconds) s (wrong baud rate? try @auto)")
            }
        }
    }

    /// Identifies the receiver and applies the settings; the outcome is a `starting` status (it changes no
    /// availability): `receiver configured: …` or `receiver configuration failed: …` (the source keeps reading).
    private func configure(_ wanted: ReceiverSettings, port: SerialPort, tracker: StatusTracker, deliver: (SerialChunk) -> Void) {
        let configurator = settings.configurator
        do {
            let version = try configurator.identify(port, passthrough: deliver)
            let applied = try configurator.apply(wanted, save: false, version: version, port: port, passthrough: deliver, acknowledged: { _ in })
            let generation = version.generation.map { " (generation \($0))" } ?? ""
            tracker.note("receiver configured: \(wanted.summary) — \(version.monVER.summary)\(generation), \(applied.count) settings acknowledged, RAM only")
        } catch {
            tracker.note("receiver configuration failed: \(error.description)")
        }
    }
}

/// A `SourceState` shared between a source's thread and observers.
final class SourceStateBox: Sendable {
    private let storage: Mutex<SourceState>
    init(_ state: SourceState) { storage = Mutex(state) }
    var value: SourceState { storage.withLock { $0 } }
    func update(_ body: (inout SourceState) -> Void) { storage.withLock { body(&$0) } }
}

/// The status state machine both live sources share: `starting` → `available` → `unavailable` → `recovered` → …
/// During an outage a retry loop does not repeat itself: a problem is reported when data stops flowing, and
/// then only when its kind changes (unavailable → denied, not present → held by another process).
struct StatusTracker {
    let name: String
    let sink: any SourceSink
    let state: SourceStateBox
    /// Valid data flows in the current session.
    private(set) var isFlowing = false
    private(set) var hasBeenAvailable = false
    /// The kind of the last problem reported in this outage (state + authorization), nil while data flows.
    private var lastProblem: String?

    init(name: String, sink: any SourceSink, state: SourceStateBox) {
        self.name = name; self.sink = sink; self.state = state
    }

    private func now() -> Timestamp { Timestamp(nanosecondsSince1970: clinux_realtime_ns()) }

    func starting(_ message: String) {
        sink.report(StatusReport(source: name, state: .starting, message: message, time: now()))
    }

    /// A note that changes no availability (receiver configuration), as a `starting` status.
    func note(_ message: String) {
        sink.report(StatusReport(source: name, state: .starting, message: message, time: now()))
    }

    func authorized() {
        state.update { $0.authorization = .authorized }
    }

    mutating func flowing(_ message: String) {
        isFlowing = true
        lastProblem = nil
        let reportState: StatusReport.State = hasBeenAvailable ? .recovered : .available
        hasBeenAvailable = true
        state.update { $0.available = true; $0.authorization = .authorized; $0.message = message }
        sink.report(StatusReport(source: name, state: reportState, message: message, time: now()))
    }

    mutating func problem(_ reportState: StatusReport.State, _ message: String,
                          authorization: SourceAuthorization? = nil) {
        let wasFlowing = isFlowing
        isFlowing = false
        state.update {
            $0.available = false
            $0.message = message
            if let authorization { $0.authorization = authorization }
        }
        let kind = "\(reportState.rawValue)/\(authorization?.rawValue ?? "-")"
        guard wasFlowing || kind != lastProblem else { return }
        lastProblem = kind
        sink.report(StatusReport(source: name, state: reportState, message: message, time: now()))
    }

    /// Classifies an open/configure failure: denied with the fix, restricted (busy), or unavailable.
    mutating func failed(_ error: SystemError, path: String) {
        switch error.authorizationFailure {
        case .denied?:
            problem(.denied, "\(path): permission denied: \(SerialPort.permissionHint(path: path))", authorization: .denied)
        case .restricted?:
            problem(.unavailable, "\(path) is held exclusively by another process (gpsd, ModemManager, a terminal?)",
                    authorization: .restricted)
        default:
            problem(.unavailable, error.errno == ENOENT ? "\(path): not present (unplugged?)" : error.description)
        }
    }
}
