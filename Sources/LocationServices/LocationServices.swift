import LocationCore

/// Everything the services stage emits, in order, after the fix that caused it.
public enum ServiceEvent: Sendable {
    /// A fix delivered under the update policy (desiredAccuracy, distanceFilter, staleness), or a
    /// `locationUnavailable` report.
    case location(LocationUpdate)
    case significantChange(SignificantChange)
    case region(RegionEvent)
    case visit(Visit)
    /// Deferred fixes, delivered together.
    case batch(LocationBatch)
    /// A heading that passed the heading filter (degrees; accuracy < 0 = invalid).
    case heading(HeadingSample)
}

/// A heading for the services stage (kept free of the Magnetics module).
public struct HeadingSample: Sendable, Hashable {
    public var trueHeadingDegrees: Double?
    public var magneticHeadingDegrees: Double
    public var headingAccuracyDegrees: Double
    public var sampleTimeSeconds: Double?
    /// The magnetometer reading as received (µT, sensor frame, before calibration): CLHeading's x, y, z.
    public var rawFieldMicrotesla: Vector3?
    public init(trueHeadingDegrees: Double?, magneticHeadingDegrees: Double, headingAccuracyDegrees: Double,
                sampleTimeSeconds: Double?, rawFieldMicrotesla: Vector3? = nil) {
        self.trueHeadingDegrees = trueHeadingDegrees; self.magneticHeadingDegrees = magneticHeadingDegrees
        self.headingAccuracyDegrees = headingAccuracyDegrees; self.sampleTimeSeconds = sampleTimeSeconds
        self.rawFieldMicrotesla = rawFieldMicrotesla
    }
}

/// The services stage: takes each fix (and heading) and yields service events in order. Pure: time comes only
/// from the fixes' timestamps, so replay and live behave the same.
///
/// Order per fix: the delivered location (or a batch that it completes), then a significant change, region
/// events, a visit event. Significant changes, regions and visits see every fix (they do their own accuracy
/// gating); the update policy only decides which fixes are *delivered*.
public final class LocationServicesStage {
    public struct Settings: Sendable {
        /// nil: fixes are not filtered (and `location` events are not produced).
        public var updatePolicy: LocationUpdatePolicy?
        public var significantChangeMeters: Double?
        public var regions: [CircularRegion] = []
        public var regionSettings = RegionMonitor.Settings()
        public var visits: VisitDetector.Settings?
        /// Batch delivered fixes (needs `updatePolicy`; without one every fix is delivered).
        public var deferDistanceMeters: Double?
        public var deferSeconds: Double?
        public var headingFilterDegrees: Double?
        public init() {}

        public var defers: Bool { deferDistanceMeters != nil || deferSeconds != nil }
    }

    public let settings: Settings
    public private(set) var policy: LocationUpdatePolicy?
    public private(set) var significant: SignificantChangeMonitor?
    public private(set) var regions: RegionMonitor
    public private(set) var visits: VisitDetector?
    private var batcher: DeferredBatcher?
    private var headingFilter: HeadingFilter?
    private var regionEvents: [RegionEvent] = []
    /// Called after region events were emitted (for persisting the state at the edge).
    public var regionStateChanged: ((RegionMonitor) -> Void)?
    public private(set) var eventsEmitted = 0

    public init(settings: Settings) {
        self.settings = settings
        var policy = settings.updatePolicy
        if policy == nil && settings.defers { policy = LocationUpdatePolicy() }
        self.policy = policy
        significant = settings.significantChangeMeters.map { SignificantChangeMonitor(thresholdMeters: $0) }
        regions = RegionMonitor(settings: settings.regionSettings, regions: settings.regions)
        visits = settings.visits.map { VisitDetector(settings: $0) }
        if settings.defers { batcher = DeferredBatcher(distanceMeters: settings.deferDistanceMeters, seconds: settings.deferSeconds) }
        headingFilter = settings.headingFilterDegrees.map { HeadingFilter(filterDegrees: $0) }
    }

    /// True when delivered fixes replace the raw fix stream (a policy or deferral is configured).
    public var filtersFixes: Bool { policy != nil }

    /// Restores persisted region state (see `RegionMonitor.restoreState`).
    /// The receiver's clock jumped and the pipeline re-anchored on the new time base.
    public func timeBaseChanged() { regions.timeBaseChanged() }

    public func restoreRegionState(_ bytes: [UInt8]) throws(RegionMonitor.StateError) { try regions.restoreState(bytes) }

    public func process(_ fix: Location, _ emit: (ServiceEvent) -> Void) {
        if policy != nil {
            for u in policy?.process(fix) ?? [] {
                if batcher != nil, let l = u.location {
                    if let b = batcher?.add(l) { send(.batch(b), emit) }
                } else {
                    send(.location(u), emit)
                }
            }
            if let t = fix.time, let b = batcher?.advance(to: t) { send(.batch(b), emit) }
        }
        if let s = significant?.process(fix) { send(.significantChange(s), emit) }
        if !regions.regions.isEmpty {
            regionEvents.removeAll(keepingCapacity: true)
            regions.process(fix, into: &regionEvents)
            for e in regionEvents { send(.region(e), emit) }
            if !regionEvents.isEmpty { regionStateChanged?(regions) }
        }
        if let v = visits?.process(fix) { send(.visit(v), emit) }
    }

    public func process(heading: HeadingSample, _ emit: (ServiceEvent) -> Void) {
        guard headingFilter != nil else { return }
        let deg = heading.trueHeadingDegrees ?? heading.magneticHeadingDegrees
        if headingFilter?.shouldDeliver(headingDegrees: deg, accuracyDegrees: heading.headingAccuracyDegrees) == true {
            send(.heading(heading), emit)
        }
    }

    /// End of input: delivers a partial batch.
    public func finish(_ emit: (ServiceEvent) -> Void) {
        if let b = batcher?.finish() { send(.batch(b), emit) }
    }

    /// A read-only view for diagnosis: what is configured and what has been delivered.
    public struct Snapshot: Sendable {
        public var filtersFixes: Bool
        public var regionsMonitored: Int
        /// Identifiers of the regions currently inside.
        public var regionsInside: [String]
        public var detectsVisits: Bool
        public var eventsEmitted: Int
    }

    public var snapshot: Snapshot {
        Snapshot(filtersFixes: filtersFixes, regionsMonitored: regions.count,
                 regionsInside: regions.regions.map(\.identifier).filter { regions.state(of: $0) == .inside },
                 detectsVisits: visits != nil, eventsEmitted: eventsEmitted)
    }

    private func send(_ e: ServiceEvent, _ emit: (ServiceEvent) -> Void) {
        eventsEmitted += 1
        emit(e)
    }
}
