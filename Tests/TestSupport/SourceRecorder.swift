import Devices
import LocationCore
import Synchronization

/// Records what a live source delivers and reports, in the order the source produced them; tests wait on it with a
/// deadline. The one `SourceSink` recorder for every test (serial, gpsd, IIO, I2C).
public final class SourceRecorder: SourceSink {
    public enum Entry: Sendable {
        case event(SensorEvent)
        /// A status, with the recorder's clock at the time it was reported (nil without a clock).
        case status(Int64?, StatusReport)
    }

    private let entries = Mutex<[Entry]>([])
    private let clock: (@Sendable () -> Int64)?

    /// `clock` stamps each status as it is reported (events carry their own monotonic time); a test in simulated
    /// time passes its fake clock.
    public init(clock: (@Sendable () -> Int64)? = nil) { self.clock = clock }

    public func deliver(_ event: SensorEvent) { entries.withLock { $0.append(.event(event)) } }
    public func report(_ status: StatusReport) {
        let at = clock?()
        entries.withLock { $0.append(.status(at, status)) }
    }

    public var all: [Entry] { entries.withLock { $0 } }
    public var events: [SensorEvent] { all.compactMap { if case .event(let e) = $0 { e } else { nil } } }
    public var statuses: [StatusReport] { all.compactMap { if case .status(_, let s) = $0 { s } else { nil } } }
    public var states: [StatusReport.State] { statuses.map(\.state) }

    public var nmeaBytes: [UInt8] {
        events.flatMap { event -> [UInt8] in
            if case .nmea(let bytes) = event.payload { return bytes }
            return []
        }
    }
    public var fixes: [ExternalFix] {
        events.compactMap { if case .fix(let fix) = $0.payload { fix } else { nil } }
    }
    public var motionSamples: [MotionSample] {
        events.compactMap { if case .motion(let m) = $0.payload { m } else { nil } }
    }

    /// The clock's time of the first status in `state` (nil when none, or no clock).
    public func time(of state: StatusReport.State) -> Int64? {
        all.lazy.compactMap { if case .status(let t, let s) = $0, s.state == state { t } else { nil } }.first
    }

    /// The monotonic times of the motion samples in [from, to).
    public func sampleTimes(from: Int64 = .min, to: Int64 = .max) -> [Int64] {
        events.compactMap { e in
            guard case .motion = e.payload else { return nil }
            let t = e.monotonicNanos ?? -1
            return t >= from && t < to ? t : nil
        }
    }

    /// Polls `condition` every 2 ms until it holds (true) or `seconds` pass (false); blocks the calling thread.
    @discardableResult
    public func wait(seconds: Double = 10, _ condition: (SourceRecorder) -> Bool) -> Bool {
        let deadline = PosixThread.monotonicNanos() + Int64(seconds * 1e9)
        while PosixThread.monotonicNanos() < deadline {
            if condition(self) { return true }
            PosixThread.sleep(nanos: 2_000_000)
        }
        return condition(self)
    }

    /// Polls `condition` every 10 ms until it holds (true) or `seconds` pass (false), without blocking a thread.
    public func wait(_ seconds: Double, _ condition: (SourceRecorder) -> Bool) async -> Bool {
        let deadline = PosixThread.monotonicNanos() + Int64(seconds * 1e9)
        while !condition(self) {
            if PosixThread.monotonicNanos() > deadline { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }
}
