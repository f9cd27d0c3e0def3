import LocationCore

/// The availability stage: from the sources' `status` events to Core Location's session availability
/// (`locationServicesEnabled`, `headingAvailable`) and the "heading lost" signal. Owns its state; `snapshot` is a
/// read-only view for diagnosis.
public struct AvailabilityStage: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Sources that feed the heading (their loss makes the heading invalid) and the location.
        public var headingSourceNames: Set<String> = []
        public var locationSourceNames: Set<String> = []
        public init(headingSourceNames: Set<String> = [], locationSourceNames: Set<String> = []) {
            self.headingSourceNames = headingSourceNames
            self.locationSourceNames = locationSourceNames
        }
        public static let `default` = Settings()
    }

    /// What one status report changed.
    public struct Outcome: Sendable, Equatable {
        /// A heading source went down: the last heading must be reported invalid.
        public var headingSourceLost = false
        /// The session's availability changed to this.
        public var availability: (locationServicesEnabled: Bool, headingAvailable: Bool)?
        public init(headingSourceLost: Bool = false, availability: (locationServicesEnabled: Bool, headingAvailable: Bool)? = nil) {
            self.headingSourceLost = headingSourceLost
            self.availability = availability
        }
        public static func == (a: Outcome, b: Outcome) -> Bool {
            a.headingSourceLost == b.headingSourceLost && a.availability?.0 == b.availability?.0
                && a.availability?.1 == b.availability?.1
        }
    }

    public struct Snapshot: Sendable, Equatable {
        public var sourceAvailable: [String: Bool]
        public var locationServicesEnabled: Bool?
        public var headingAvailable: Bool?
    }

    public let settings: Settings
    private var sourceAvailable: [String: Bool] = [:]
    private var last: (Bool, Bool)?

    public init(settings: Settings) { self.settings = settings }

    public var snapshot: Snapshot {
        Snapshot(sourceAvailable: sourceAvailable, locationServicesEnabled: last?.0, headingAvailable: last?.1)
    }

    public mutating func note(_ s: StatusReport) -> Outcome {
        var outcome = Outcome()
        guard let up = s.isUp else { return outcome }
        sourceAvailable[s.source] = up
        if !up, settings.headingSourceNames.contains(s.source) { outcome.headingSourceLost = true }
        guard !settings.headingSourceNames.isEmpty || !settings.locationSourceNames.isEmpty else { return outcome }
        let location = settings.locationSourceNames.contains { sourceAvailable[$0] == true }
        let heading = settings.headingSourceNames.contains { sourceAvailable[$0] == true }
        if last.map({ $0 != (location, heading) }) ?? true {
            last = (location, heading)
            outcome.availability = (location, heading)
        }
        return outcome
    }
}
