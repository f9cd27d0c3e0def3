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
        public init() {}
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
    }

    public let settings: Settings
    private var smoother: PositionSmoother?
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

    public init(settings: Settings) {
        self.settings = settings
        if let s = settings.smoothing { smoother = PositionSmoother(settings: s) }
    }

    /// A receiver fix (or a no-fix epoch), carried by an event at `monotonicNanos`: smoothed when it has a
    /// position; dead reckoned (status 6, mode kept) when it has none and the outage is young; as parsed otherwise
    /// ("location unavailable"). nil: nothing to output (a duplicate, out of order, or paused).
    public func fix(_ fix: Location, monotonicNanos: Int64?) -> Location? {
        guard smoother != nil else { return fix }
        if fix.latitudeDegrees != nil, fix.longitudeDegrees != nil, fix.mode != .noFix, fix.time != nil {
            guard let out = smoother?.process(fix: fix) else { return nil }
            if smoother?.lastOutcome == .duplicate || smoother?.lastOutcome == .outOfOrder { return nil }
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

    private func deadReckoned(at t: Timestamp, template: Location) -> Location? {
        guard var dr = smoother?.deadReckon(to: t) else { return nil }
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
        guard smoother != nil, let fixTime = lastSmoothedFixTime, let fixMono = lastFixMonotonicNanos,
              let mono = monotonicNanos, mono >= fixMono else { return nil }
        let t = fixTime.adding(nanoseconds: mono - fixMono)
        switch sample {
        case .accelerometer(let a, let bias): smoother?.process(specificForceBody: bias.map { a - $0 } ?? a, at: t)
        case .accelerometerRaw(let raw): smoother?.process(specificForceBody: raw.vector, at: t)
        case .gyroscope(let w, let drift): smoother?.process(angularRateBody: drift.map { w - $0 } ?? w, at: t)
        case .gyroscopeRaw(let raw): smoother?.process(angularRateBody: raw.vector, at: t)
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
        Snapshot(enabled: smoother != nil, fixesSmoothed: fixesSmoothed, fixesDeadReckoned: fixesDeadReckoned,
                 fixesPaused: fixesPaused, pausedStationary: pausedStationary, reportedUnavailable: reportedUnavailable,
                 lastSmoothedFixTime: lastSmoothedFixTime, lastOutcome: smoother?.lastOutcome,
                 isStationary: smoother?.isStationary, adaptiveScale: smoother?.adaptiveScale)
    }
}
