import LocationCore

/// A consumer of the pipeline's output events besides the encoder and its sinks (network servers, MQTT, the live
/// map page, a Swift API's sequences). The session runner calls every consumer with every event, in order, on the
/// session's thread, after the event was encoded for the sinks; a consumer must not block (queue and drop instead).
public protocol OutputEventConsumer: AnyObject {
    func consume(_ event: OutputEvent)
    /// The session ended (end of input, or stopped): flush and release.
    func finish()
}

extension OutputEventConsumer {
    public func finish() {}
}

/// Adapts a closure (tests, small observers).
public final class OutputEventHandler: OutputEventConsumer {
    private let handler: (OutputEvent) -> Void
    private let onFinish: () -> Void
    public init(_ handler: @escaping (OutputEvent) -> Void, finish: @escaping () -> Void = {}) {
        self.handler = handler
        self.onFinish = finish
    }
    public func consume(_ event: OutputEvent) { handler(event) }
    public func finish() { onFinish() }
}

/// Encodes every event in one output format into memory (tests; a second format beside the main one).
public final class EncodingConsumer: OutputEventConsumer {
    private var encoder: any OutputEncoder
    private var buffer = ByteBuffer(capacity: 1 << 12)
    private let filtersFixes: Bool
    public private(set) var bytes: [UInt8] = []
    /// `filtersFixes`: location services filter the fixes (`OutputEvent.isReplacedByServices`).
    /// `device`: gpsd JSON's device name (the session's receiver device, as `run` and `replay` use).
    public init(_ format: OutputFormat, filtersFixes: Bool = false, device: String? = nil) {
        encoder = makeEncoder(format, device: device)
        self.filtersFixes = filtersFixes
    }
    public func consume(_ event: OutputEvent) {
        if event.isReplacedByServices(filtersFixes: filtersFixes) { return }
        encoder.encode(event, into: &buffer)
        buffer.withBytes { bytes += $0 }
        buffer.removeAll()
    }
}
