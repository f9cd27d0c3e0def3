/// One reading of a session's monotonic clock paired with UTC. A live session takes it once at start and writes it
/// into its capture's `clock` header; from then on an event's UTC is `utc + (t − monotonicNanos)`, live and in
/// replay alike, so both derive the same UTC from the same monotonic stamp.
public struct ClockPairing: Sendable, Hashable {
    public var monotonicNanos: Int64
    public var utc: Timestamp
    public init(monotonicNanos: Int64, utc: Timestamp) { self.monotonicNanos = monotonicNanos; self.utc = utc }

    /// UTC of monotonic time `t`.
    public func utc(atMonotonic t: Int64) -> Timestamp { utc.adding(nanoseconds: t - monotonicNanos) }

    /// The UTC calendar date of the pairing: the session's default reference date.
    public var date: CivilDate { CivilDate(daysSince1970: Int(utc.nanosecondsSince1970.floorDivided(by: 86_400_000_000_000))) }
}

extension Int64 {
    fileprivate func floorDivided(by d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
}
