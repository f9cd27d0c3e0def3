import LocationCore
import LodestarIO

/// The one replay pacer: by the recorded monotonic stamps when the capture has them, else (NMEA logs carry no
/// receive times) by the spacing of the fixes' UTC times, with gaps capped at 10 s. `speed` nil: no pacing.
public struct Pacer {
    public let speed: Double?
    private var first: (event: Int64, wall: Int64)?
    private var lastFix: (fix: Timestamp, wall: Int64)?

    public init(speed: Double?) { self.speed = speed.flatMap { $0 > 0 ? $0 : nil } }

    public mutating func wait(for event: SensorEvent, lastFixTime: Timestamp?) {
        guard let speed else { return }
        let now = SystemClock.monotonicNanos()
        if let t = event.monotonicNanos {
            guard let f = first else { first = (t, now); return }
            SystemClock.sleep(nanos: f.wall + Int64(Double(t - f.event) / speed) - now)
        } else if let fix = lastFixTime {
            guard let l = lastFix else { lastFix = (fix, now); return }
            guard fix > l.fix else { return }
            let due = l.wall + Int64(Swift.min(Double(fix.nanosecondsSince1970 - l.fix.nanosecondsSince1970) / speed, 10e9))
            SystemClock.sleep(nanos: due - now)
            lastFix = (fix, Swift.max(due, now))
        }
    }
}
