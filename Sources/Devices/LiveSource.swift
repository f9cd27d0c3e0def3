import LocationCore

/// Core Location–style authorization of one source, derived from device permissions and configuration.
public enum SourceAuthorization: String, Sendable, Hashable {
    /// Not probed yet.
    case notDetermined
    /// The device exists but this user may not open it (EACCES/EPERM): fix with group membership / udev rule.
    case denied
    /// Not allowed by configuration or policy (e.g. exclusive use by another process, TIOCEXCL/EBUSY).
    case restricted
    case authorized
}

/// What a live source reports about itself on the output stream (`status` events) and in `lodestar devices`.
public struct SourceState: Sendable, Hashable {
    public var name: String
    public var authorization: SourceAuthorization
    /// The device answers and produces data.
    public var available: Bool
    public var message: String?
    public init(name: String, authorization: SourceAuthorization, available: Bool, message: String? = nil) {
        self.name = name; self.authorization = authorization; self.available = available; self.message = message
    }
}

/// Receives a live source's output. Called from the source's own thread; implementations hand events to the
/// pipeline's thread (see `LiveEventQueue`). Never blocks for long.
public protocol SourceSink: AnyObject, Sendable {
    func deliver(_ event: SensorEvent)
    func report(_ status: StatusReport)
    /// When valid data (a checksum-valid NMEA sentence, UBX or RTCM3 frame) from source `sourceID` was last
    /// framed downstream (the pipeline's monotonic stamp of its chunk), or nil when the sink does not say. A serial
    /// source whose data flows then leaves the framing to the pipeline (bytes are framed once) and watches for
    /// silence through this; while it waits for valid data it frames itself, so `available` and `recovered` still
    /// come before the data that caused them.
    func lastValidDataNanos(sourceID: Int) -> Int64?
}

extension SourceSink {
    public func lastValidDataNanos(sourceID: Int) -> Int64? { nil }
}

/// A live source (serial receiver, gpsd, I2C sensor, IIO device). It only produces timestamped raw events —
/// NMEA bytes as received, raw counts with their scale — exactly like a capture reader; nothing downstream knows
/// whether it is live.
///
/// `run` blocks the calling thread until `stop()` is called: it opens the device, reads, and on a fault reports
/// `unavailable`, retries with backoff and resumes (reporting `recovered`) when the device returns.
public protocol LiveSource: AnyObject, Sendable {
    /// Stable name used in status events and captures (`gps0`, `imu0`, …).
    var name: String { get }
    /// Header attributes for captures (`kind`, `device`, `baud`, `chip`, `bus`, `address`, …).
    var captureAttributes: [String: String] { get }
    func run(sourceID: Int, sink: any SourceSink)
    /// Asks `run` to return soon (from any thread).
    func stop()
}

/// Exponential backoff for reconnecting: 0.1 s doubling to a 5 s ceiling, reset after a success.
public struct Backoff: Sendable {
    public var initialNanos: Int64
    public var maximumNanos: Int64
    private var next: Int64
    public init(initialNanos: Int64 = 100_000_000, maximumNanos: Int64 = 5_000_000_000) {
        self.initialNanos = initialNanos
        self.maximumNanos = maximumNanos
        self.next = initialNanos
    }
    public mutating func nextDelayNanos() -> Int64 {
        let d = next
        next = min(next * 2, maximumNanos)
        return d
    }
    public mutating func reset() { next = initialNanos }
}
