import Estimation
import LocationCore

/// The smoothing stage: receiver fixes through the motion-aided `PositionSmoother` (docs/smoothing.md), dead
/// reckoning through GNSS outages while inertial samples flow, and Core Location's automatic pause while
/// stationary. Owns its state; `snapshot` is a read-only view for diagnosis. Without smoothing settings fixes pass
/// through unchanged.
public final class SmoothingStage {
    public struct Settings: Sendable {
        /// nil: fixes are output as parsed.
        public var smoothing: PositionSmoother.Settings? = .default
        /// Core Location's pausesLocationUpdatesAutomatically: while stationary, only the first stationary fix is
        /// output; updates resume with the first moving fix.
        public var pauseWhenStationary = false
        /// During a GNSS outage with inertial data flowing, a dead-reckoned fix is emitted at this interval, s.
        public var deadReckoningIntervalSeconds = 1.0
        /// The receiver's time went back: after this many consecutive epochs that agree with each other on the new
        /// time base, the filter is re-anchored there and a status names the jump (the epochs before are dropped
        /// and counted as `fixesDroppedForTimeJump`).
        public var timeJumpConfirmationEpochs = 3
        /// Two epochs agree on a new time base when the second follows the first by more than 0 and at most this, s.
        public var timeJumpMaximumStepSeconds = 30.0
        /// With monotonic receive stamps, receiver time that runs ahead of the receive clock by more than this is a
        /// forward jump (announced; the filter takes the fix as after an outage), s.
        public var forwardJumpThresholdSeconds = 60.0
        public init() {}
    }

    /// A change of the receiver's time base that the stage noticed and acted on.
    public struct TimeJump: Sendable, Hashable {
        /// New time minus the time the old base would have reached, s (negative: back).
        public var seconds: Double
        /// The first epoch on the new time base that was output.
        public var resumedAt: Timestamp
        /// Epochs dropped while the new time base was being confirmed.
        public var epochsDropped: Int

        /// One line for a status event: the size and direction of the jump.
        public var message: String {
            let a = abs(seconds)
            let size: String
            if a >= 14 * 86_400 { size = "\(Self.format(a / (7 * 86_400))) weeks" }
            else if a >= 2 * 86_400 { size = "\(Self.format(a / 86_400)) days" }
            else if a >= 7_200 { size = "\(Self.format(a / 3_600)) h" }
            else if a >= 600 { size = "\(Self.format(a / 60)) min" }
            else { size = "\(Self.format(a)) s" }
            let direction = seconds < 0 ? "back" : "forward"
            return "receiver time jumped \(direction) by \(size) (\(Self.format(seconds)) s); smoothing re-anchored on the new time base"
                + (epochsDropped > 0 ? " after \(epochsDropped) epoch\(epochsDropped == 1 ? "" : "s")" : "")
        }

        static func format(_ v: Double) -> String {
            let r = (v * 10).rounded() / 10
            return r == r.rounded() ? String(Int(r)) : String(r)
        }
    }

    public struct Snapshot: Sendable {
        public var enabled: Bool
        public var fixesSmoothed: Int
        public var fixesDeadReckoned: Int
        public var fixesPaused: Int
        public var pausedStationary: Bool
        /// True after the outage outlasted dead reckoning and one "no fix" was output.
        public var reportedUnavailable: Bool
        public var lastSmoothedFixTime: Timestamp?
        public var lastOutcome: PositionSmoother.Outcome?
        public var isStationary: Bool?
        public var adaptiveScale: Double?
        /// Epochs dropped while a backward time jump was being confirmed, and the jumps acted on.
        public var fixesDroppedForTimeJump: Int
        public var timeJumps: Int
        public var lastTimeJump: TimeJump?
    }

    public let settings: Settings
    /// Stored directly, not as an Optional: reading one field through `smoother?.` copied the whole smoother (its
    /// error-structure ring is ~4.5 KB) on every fix: a quarter of a replay's instructions went to memcpy.
    private var smoother: PositionSmoother
    /// False with smoothing off: `fix(_:monotonicNanos:)` then hands every fix on as it is.
    public let enabled: Bool
    /// Time base for inertial samples: the monotonic time of the event that carried the last smoothed fix, and its UTC.
    private var lastFixMonotonicNanos: Int64?
    private var lastSmoothedFixTime: Timestamp?
    private var lastOutputFixTime: Timestamp?
    private var lastGoodMode: FixMode = .threeD
    private var reportedUnavailable = false
    private var pausedStationary = false
    public private(set) var fixesSmoothed = 0
    public private(set) var fixesDeadReckoned = 0
    public private(set) var fixesPaused = 0
    public private(set) var fixesDroppedForTimeJump = 0
    public private(set) var timeJumps = 0
    public private(set) var lastTimeJump: TimeJump?
    /// A time jump acted on during the last `fix(_:monotonicNanos:)`, for the pipeline to announce (then cleared).
    public private(set) var pendingTimeJump: TimeJump?
    /// Epochs behind the filter's time that agree with each other (a candidate new time base).
    private var behind: [Timestamp] = []

    public init(settings: Settings) {
        self.settings = settings
        smoother = PositionSmoother(settings: settings.smoothing ?? .default)
        enabled = settings.smoothing != nil
    }

    /// A receiver fix (or a no-fix epoch), carried by an event at `monotonicNanos`: smoothed when it has a
    /// position; dead reckoned (status 6, mode kept) when it has none and the outage is young; as parsed otherwise
    /// ("location unavailable"). nil: nothing to output (a duplicate, out of order, or paused).
    public func fix(_ fix: Location, monotonicNanos: Int64?) -> Location? {
        guard enabled else { return fix }
        pendingTimeJump = nil
        if fix.latitudeDegrees != nil, fix.longitudeDegrees != nil, fix.mode != .noFix, let t = fix.time {
            noteForwardJump(t, monotonicNanos: monotonicNanos)
            let out = smoother.process(fix: fix)
            if smoother.lastOutcome == .outOfOrder {
                return timeWentBack(fix, at: t, monotonicNanos: monotonicNanos)
            }
            behind.removeAll(keepingCapacity: true)
            if smoother.lastOutcome == .duplicate { return nil }
            if fix.mode != .unknown { lastGoodMode = fix.mode }
            lastSmoothedFixTime = fix.time
            lastFixMonotonicNanos = monotonicNanos
            reportedUnavailable = false
            fixesSmoothed += 1
            if settings.pauseWhenStationary {
                if out.isStationary == true {
                    if pausedStationary { fixesPaused += 1; return nil }
                    pausedStationary = true
                } else {
                    pausedStationary = false
                }
            }
            lastOutputFixTime = out.time
            return out
        }
        if let t = fix.time, let dr = deadReckoned(at: t, template: fix) { return dr }
        return fix
    }

    /// A fix older than the filter's time. One stray late epoch is dropped (out of order); a run of epochs that agree
    /// with each other on the older time base is a jump back: after `timeJumpConfirmationEpochs` of them the
    /// filter is re-anchored on the new base and the fix goes through.
    private func timeWentBack(_ fix: Location, at t: Timestamp, monotonicNanos: Int64?) -> Location? {
        if let last = behind.last {
            let step = Double(t.nanosecondsSince1970 - last.nanosecondsSince1970) / 1e9
            if !(step > 0 && step <= settings.timeJumpMaximumStepSeconds) { behind.removeAll(keepingCapacity: true) }
        }
        behind.append(t)
        guard behind.count >= settings.timeJumpConfirmationEpochs, let old = smoother.time else {
            fixesDroppedForTimeJump += 1
            return nil
        }
        // The jump's size: where the new base is against where the old one would be now (one epoch on per epoch).
        let first = behind[0]
        let span = Double(t.nanosecondsSince1970 - first.nanosecondsSince1970) / 1e9
        let seconds = Double(first.nanosecondsSince1970 - old.nanosecondsSince1970) / 1e9 - span / Double(max(1, behind.count - 1))
        let dropped = behind.count - 1
        behind.removeAll(keepingCapacity: true)
        let jump = TimeJump(seconds: seconds, resumedAt: t, epochsDropped: dropped)
        timeJumps += 1
        lastTimeJump = jump
        pendingTimeJump = jump
        // Re-anchor just before this epoch, then take it as the first fix of the new base.
        smoother.rebaseTime(to: t.adding(nanoseconds: -1))
        let out = smoother.process(fix: fix)
        if fix.mode != .unknown { lastGoodMode = fix.mode }
        lastSmoothedFixTime = t
        lastFixMonotonicNanos = monotonicNanos
        reportedUnavailable = false
        fixesSmoothed += 1
        lastOutputFixTime = out.time
        return out
    }

    /// Receiver time running ahead of the receive clock by more than `forwardJumpThresholdSeconds` since the last
    /// fix is a forward jump: announced (the filter treats the gap like an outage).
    private func noteForwardJump(_ t: Timestamp, monotonicNanos: Int64?) {
        guard let last = lastSmoothedFixTime, let lastMono = lastFixMonotonicNanos, let mono = monotonicNanos,
              t > last else { return }
        let receiver = Double(t.nanosecondsSince1970 - last.nanosecondsSince1970) / 1e9
        let clock = Double(mono - lastMono) / 1e9
        guard receiver - clock > settings.forwardJumpThresholdSeconds else { return }
        let jump = TimeJump(seconds: receiver - clock, resumedAt: t, epochsDropped: 0)
        timeJumps += 1
        lastTimeJump = jump
        pendingTimeJump = jump
    }

    private func deadReckoned(at t: Timestamp, template: Location) -> Location? {
        guard var dr = smoother.deadReckon(to: t) else { return nil }
        dr.mode = lastGoodMode
        dr.satellitesUsed = template.satellitesUsed
        dr.satellitesVisible = template.satellitesVisible
        fixesDeadReckoned += 1
        lastOutputFixTime = t
        pausedStationary = false
        return dr
    }

    /// Inertial samples into the smoother, on the fixes' UTC time base (monotonic offset from the last fix). With
    /// fixes gone but inertial data flowing, returns a dead-reckoned fix every `deadReckoningIntervalSeconds` until
    /// the outage limit, then one "no fix" (location unavailable); nil otherwise.
    public func motion(_ sample: MotionSample, monotonicNanos: Int64?) -> Location? {
        guard enabled, let fixTime = lastSmoothedFixTime, let fixMono = lastFixMonotonicNanos,
              let mono = monotonicNanos, mono >= fixMono else { return nil }
        let t = fixTime.adding(nanoseconds: mono - fixMono)
        switch sample {
        case .accelerometer(let a, let bias): smoother.process(specificForceBody: bias.map { a - $0 } ?? a, at: t)
        case .accelerometerRaw(let raw): smoother.process(specificForceBody: raw.vector, at: t)
        case .gyroscope(let w, let drift): smoother.process(angularRateBody: drift.map { w - $0 } ?? w, at: t)
        case .gyroscopeRaw(let raw): smoother.process(angularRateBody: raw.vector, at: t)
        default: return nil
        }
        let sinceFix = Double(t.nanosecondsSince1970 - fixTime.nanosecondsSince1970) / 1e9
        let sinceOutput = lastOutputFixTime.map { Double(t.nanosecondsSince1970 - $0.nanosecondsSince1970) / 1e9 } ?? .infinity
        guard sinceFix >= 1.5 * settings.deadReckoningIntervalSeconds, sinceOutput >= settings.deadReckoningIntervalSeconds,
              !reportedUnavailable else { return nil }
        var template = Location()
        template.time = t
        if let dr = deadReckoned(at: t, template: template) { return dr }
        reportedUnavailable = true
        var none = Location()
        none.time = t
        none.mode = .noFix
        lastOutputFixTime = t
        return none
    }

    public var snapshot: Snapshot {
        Snapshot(enabled: enabled, fixesSmoothed: fixesSmoothed, fixesDeadReckoned: fixesDeadReckoned,
                 fixesPaused: fixesPaused, pausedStationary: pausedStationary, reportedUnavailable: reportedUnavailable,
                 lastSmoothedFixTime: lastSmoothedFixTime, lastOutcome: enabled ? smoother.lastOutcome : nil,
                 isStationary: enabled ? smoother.isStationary : nil, adaptiveScale: enabled ? smoother.adaptiveScale : nil,
                 fixesDroppedForTimeJump: fixesDroppedForTimeJump, timeJumps: timeJumps, lastTimeJump: lastTimeJump)
    }
}
