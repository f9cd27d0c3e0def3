/// A source's availability: produced by live sources, carried as a `SensorEvent` payload (`.status`), recorded in
/// captures (`S` records), replayed, and reported on the output stream as `status` events.
///
/// `time` is the event's UTC (the session's clock pairing applied to the monotonic stamp), filled in by the
/// pipeline from the event that carried the report, so a replay prints exactly what the live session printed.
public struct StatusReport: Sendable, Hashable {
    public enum State: String, Sendable, CaseIterable {
        case starting, available, unavailable, denied, recovered, finished
    }
    public var source: String
    public var state: State
    public var message: String?
    public var time: Timestamp?
    /// The receiver identified itself (u-blox MON-VER): the gpsd server's DEVICE names its driver and subtype.
    public var receiver: ReceiverIdentity?
    public init(source: String, state: State, message: String? = nil, time: Timestamp? = nil,
                receiver: ReceiverIdentity? = nil) {
        self.source = source; self.state = state; self.message = message; self.time = time; self.receiver = receiver
    }

    /// True for states in which the source delivers data.
    public var isUp: Bool? {
        switch state {
        case .available, .recovered: true
        case .unavailable, .denied, .finished: false
        case .starting: nil
        }
    }
}
