import Events
import LocationCore
import LodestarIO

/// The output stage: events encoded into one buffer (JSON lines, gpsd JSON or NMEA) and written to the sinks in
/// blocks (replay) or after every input event (live). Owns its buffer; `snapshot` is a read-only view for
/// diagnosis. Network outputs attach as observers of the same events (`NetworkOutputs.publish`), not here.
public final class OutputStage {
    public struct Settings: Sendable {
        /// Flush to the sinks after every input event (live) instead of in large blocks (replay).
        public var flushEveryEvent = false
        /// Buffered bytes that trigger a flush.
        public var flushThresholdBytes = 1 << 16
        public init() {}
    }

    public struct Snapshot: Sendable {
        public var bufferedBytes: Int
        public var bytesFlushed: Int
        public var flushes: Int
        public var sinks: Int
        public var brokenSinks: Int
    }

    public let settings: Settings
    private var encoder: any OutputEncoder
    private let sinks: [any OutputSink]
    private var buffer = ByteBuffer(capacity: 1 << 17)
    public private(set) var bytesFlushed = 0
    public private(set) var flushes = 0

    public init(settings: Settings, encoder: any OutputEncoder, sinks: [any OutputSink]) {
        self.settings = settings
        self.encoder = encoder
        self.sinks = sinks
    }

    /// True when every sink is broken (nobody can receive output any more).
    public var allSinksBroken: Bool { !sinks.isEmpty && sinks.allSatisfy(\.isBroken) }

    public func encode(_ event: OutputEvent) { encoder.encode(event, into: &buffer) }

    /// Flushes when the buffer passed its threshold.
    public func flushIfFull() { if buffer.count >= settings.flushThresholdBytes { flush() } }

    /// After an input event: flushes when output is live.
    public func endOfEvent() { if settings.flushEveryEvent { flush() } }

    public func flush() {
        guard !buffer.isEmpty else { return }
        let sinks = self.sinks
        buffer.withBytes { p in for sink in sinks { sink.write(p) } }
        bytesFlushed += buffer.count
        flushes += 1
        buffer.removeAll()
    }

    public var snapshot: Snapshot {
        Snapshot(bufferedBytes: buffer.count, bytesFlushed: bytesFlushed, flushes: flushes, sinks: sinks.count,
                 brokenSinks: sinks.filter(\.isBroken).count)
    }
}
