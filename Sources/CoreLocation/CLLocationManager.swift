#if !canImport(Darwin)
import Foundation
import LocationCore
import LocationServices
import LodestarKit

/// Core Location's manager. Services run on a LodestarKit session over the process's location source (see
/// `LocationServiceSource`): each manager replays from the start of the capture when its first service starts, and
/// stops its session when its last service stops. Delegate callbacks arrive on the run loop of the thread that
/// made the manager; use the manager from that thread, as Apple's requires.
open class CLLocationManager: NSObject, @unchecked Sendable {
    open weak var delegate: (any CLLocationManagerDelegate)?

    open var desiredAccuracy: CLLocationAccuracy = kCLLocationAccuracyBest { didSet { restartLocationUpdates() } }
    open var distanceFilter: CLLocationDistance = kCLDistanceFilterNone { didSet { restartLocationUpdates() } }
    open var headingFilter: CLLocationDegrees = 1 { didSet { restartHeadingUpdates() } }
    open var headingOrientation: CLDeviceOrientation = .portrait
    open var activityType: CLActivityType = .other
    open var pausesLocationUpdatesAutomatically = true
    /// How long the device must have been stationary before automatic pausing (Apple does not document its own
    /// figure; a parked car for several minutes). Tests shorten it.
    var automaticPauseSeconds: TimeInterval = 300
    open var allowsBackgroundLocationUpdates = false
    open var showsBackgroundLocationIndicator = false
    @available(*, deprecated, message: "Set the purpose string in Info.plist")
    open var purpose: String?

    /// The most recent location delivered to this manager (nil before the first).
    var _location: CLLocation?
    open var location: CLLocation? { _location }
    /// The most recent heading delivered to this manager.
    var _heading: CLHeading?
    open var heading: CLHeading? { _heading }
    var _monitoredRegions: Set<CLRegion> = []
    open var monitoredRegions: Set<CLRegion> { _monitoredRegions }
    var _rangedRegions: Set<CLRegion> = []
    open var rangedRegions: Set<CLRegion> { _rangedRegions }
    var _rangedBeaconConstraints: Set<CLBeaconIdentityConstraint> = []
    open var rangedBeaconConstraints: Set<CLBeaconIdentityConstraint> { _rangedBeaconConstraints }
    open var maximumRegionMonitoringDistance: CLLocationDistance { 100_000 }
    var _authorizationStatus: CLAuthorizationStatus
    open var authorizationStatus: CLAuthorizationStatus { _authorizationStatus }
    open var accuracyAuthorization: CLAccuracyAuthorization { .fullAccuracy }
    open var isAuthorizedForWidgetUpdates: Bool { false }

    let delivery = RunLoopDelivery()
    private let source: LocationSource?

    // The session and what runs on it; touched only on the manager's thread.
    private var feed: LodestarKit.LocationManager?
    private var regionMonitor: LodestarKit.LocationManager.Monitor?
    private var updatingLocation = false
    private var updatingHeading = false
    private var monitoringSignificant = false
    private var monitoringVisits = false
    private var requestingLocation = false
    private var locationTask: Task<Void, Never>?
    private var headingTask: Task<Void, Never>?
    private var significantTask: Task<Void, Never>?
    private var visitsTask: Task<Void, Never>?
    private var requestTask: Task<Void, Never>?
    private var regionsTask: Task<Void, Never>?
    /// Bumped when a service stops or restarts, so callbacks already posted for the old one are dropped.
    private var generation = (location: 0, heading: 0, significant: 0, visits: 0, request: 0, regions: 0)

    public override init() {
        source = LocationServiceSource.source()
        _authorizationStatus = source == nil ? .denied : .authorizedAlways
        store = CLPersistentStore.current()
        super.init()
        started()
    }

    /// A manager over an explicit source (nil: none), whatever the environment says; for tests.
    init(source: LocationSource?) {
        self.source = source
        _authorizationStatus = source == nil ? .denied : .authorizedAlways
        store = CLPersistentStore.current()
        super.init()
        started()
    }

    /// Apple reports the authorization once when a manager is made; it arrives before any location. Regions the
    /// program monitored in an earlier launch are monitored again (their events reach this manager's delegate).
    private func started() {
        if let store {
            for c in store.load(store.regionsFile) {
                let region = CLCircularRegion(center: CLLocationCoordinate2D(latitude: c.latitude, longitude: c.longitude),
                                              radius: c.radius, identifier: c.identifier)
                region.notifyOnEntry = c.notifyOnEntry
                region.notifyOnExit = c.notifyOnExit
                _monitoredRegions.insert(region)
            }
        }
        delivery.post { [weak self] in self?.reportAuthorization() }
        guard !_monitoredRegions.isEmpty, source != nil else { return }
        delivery.post { [weak self] in
            guard let self, !self.monitoredRegions.isEmpty else { return }
            _ = self.ensureFeed(failing: false)
            self.feed?.start()
        }
    }

    /// Where monitored regions persist across launches (nil: they do not; see `CLPersistentStore`).
    private let store: CLPersistentStore?

    /// Writes one region's change through to the store, read-modify-write, so the managers of one program share
    /// one set as Apple's do.
    private func persist(adding region: CLCircularRegion?, removing identifier: String?) {
        guard let store else { return }
        var circles = store.load(store.regionsFile)
        if let identifier { circles.removeAll { $0.identifier == identifier } }
        if let r = region {
            circles.removeAll { $0.identifier == r.identifier }
            circles.append(.init(identifier: r.identifier, latitude: r.center.latitude, longitude: r.center.longitude,
                                 radius: r.radius, notifyOnEntry: r.notifyOnEntry, notifyOnExit: r.notifyOnExit))
        }
        store.save(circles, to: store.regionsFile)
    }

    deinit {
        for t in [locationTask, headingTask, significantTask, visitsTask, requestTask, regionsTask] { t?.cancel() }
        calibrationTask?.cancel()
        feed?.stop()
    }

    // MARK: Availability (class methods)

    open class func authorizationStatus() -> CLAuthorizationStatus {
        LocationServiceSource.source() == nil ? .denied : .authorizedAlways
    }
    open class func locationServicesEnabled() -> Bool { LocationServiceSource.source() != nil }
    open class func headingAvailable() -> Bool { LocationServiceSource.hasHeadingSource() }
    open class func significantLocationChangeMonitoringAvailable() -> Bool { locationServicesEnabled() }
    open class func isMonitoringAvailable(for regionClass: AnyClass) -> Bool {
        regionClass is CLCircularRegion.Type && locationServicesEnabled()
    }
    open class func isRangingAvailable() -> Bool { false }
    open class func deferredLocationUpdatesAvailable() -> Bool { false }

    // MARK: Authorization

    /// Access is decided by the board (membership of the `lodestar` group, a configured replay), never by a prompt:
    /// when the status is already determined Apple's calls change nothing, and neither do these.
    open func requestWhenInUseAuthorization() {}
    open func requestAlwaysAuthorization() {}

    open func requestTemporaryFullAccuracyAuthorization(withPurposeKey purposeKey: String,
                                                        completion: (@Sendable ((any Error)?) -> Void)? = nil) {
        let error: (any Error)? = authorizationStatus == .denied ? CLError(.denied) : nil
        guard let completion else { return }
        delivery.post { completion(error) }
    }

    open func requestTemporaryFullAccuracyAuthorization(withPurposeKey purposeKey: String) async throws {
        if authorizationStatus == .denied { throw CLError(.denied) }
    }

    private func reportAuthorization() {
        guard let delegate else { return }
        delegate.locationManagerDidChangeAuthorization(self)
        delegate.locationManager(self, didChangeAuthorization: authorizationStatus)
    }

    // MARK: Location

    open func startUpdatingLocation() {
        updatingLocation = true
        restartLocationUpdates()
    }

    open func stopUpdatingLocation() {
        updatingLocation = false
        generation.location += 1
        locationTask?.cancel(); locationTask = nil
        stopFeedIfIdle()
    }

    /// One location: the first fix that meets `desiredAccuracy` (or the best within its wait), then the request
    /// ends; `didFailWithError(CLError(.locationUnknown))` when the source ends without one.
    open func requestLocation() {
        guard let feed = ensureFeed(failing: true) else { return }
        requestingLocation = true
        generation.request += 1
        let gen = generation.request
        requestTask?.cancel()
        let stream = feed.liveUpdates(liveConfiguration)
        feed.start()
        requestTask = Task.detached { [weak self] in
            do {
                for try await u in stream {
                    guard let l = u.location, !u.locationUnavailable else { continue }
                    let location = CLLocation(l)
                    self?.delivery.post { [weak self] in
                        guard let self, self.generation.request == gen else { return }
                        self.finishRequest()
                        self._location = location
                        self.delegate?.locationManager(self, didUpdateLocations: [location])
                    }
                    return
                }
                if Task.isCancelled { return }
                self?.post(error: CLError(.locationUnknown), if: { $0.generation.request == gen }, then: { $0.finishRequest() })
            } catch {
                self?.post(error: Self.clError(error), if: { $0.generation.request == gen }, then: { $0.finishRequest() })
            }
        }
    }

    private func finishRequest() {
        requestingLocation = false
        generation.request += 1
        requestTask?.cancel(); requestTask = nil
        stopFeedIfIdle()
    }

    private var liveConfiguration: LodestarKit.LocationManager.LiveConfiguration {
        .init(desiredAccuracy: Self.desiredAccuracyLevel(desiredAccuracy), distanceFilterMeters: Swift.max(0, distanceFilter))
    }

    static func desiredAccuracyLevel(_ a: CLLocationAccuracy) -> DesiredAccuracy {
        if a <= kCLLocationAccuracyBestForNavigation { return .bestForNavigation }
        if a <= 5 { return .best }
        if a <= 10 { return .nearestTenMeters }
        if a <= 100 { return .hundredMeters }
        if a <= 1000 { return .kilometer }
        return .threeKilometers
    }

    private func restartLocationUpdates() {
        guard updatingLocation else { return }
        generation.location += 1
        locationTask?.cancel(); locationTask = nil
        guard let feed = ensureFeed(failing: true) else { updatingLocation = false; return }
        let gen = generation.location
        let stream = feed.liveUpdates(liveConfiguration)
        // pausesLocationUpdatesAutomatically: after the device has been stationary (the smoother's judgement, as
        // CLLocationUpdate.isStationary) for `automaticPauseSeconds` of fix time, updates pause with
        // locationManagerDidPauseLocationUpdates; the first moving fix resumes them (didResume).
        let pauses = pausesLocationUpdatesAutomatically
        let pauseAfter = automaticPauseSeconds
        feed.start()
        locationTask = Task.detached { [weak self] in
            var stationarySince: Date?
            var paused = false
            do {
                for try await u in stream {
                    guard let self else { return }
                    if u.locationUnavailable || u.location == nil {
                        // Transient: Apple reports locationUnknown and keeps trying.
                        self.post(error: CLError(.locationUnknown), if: { $0.generation.location == gen })
                        continue
                    }
                    let location = CLLocation(u.location!)
                    if pauses, u.isStationary == true {
                        let since = stationarySince ?? location.timestamp
                        stationarySince = since
                        if paused { continue }
                        if location.timestamp.timeIntervalSince(since) >= pauseAfter {
                            paused = true
                            self.delivery.post { [weak self] in
                                guard let self, self.generation.location == gen else { return }
                                self.delegate?.locationManagerDidPauseLocationUpdates(self)
                            }
                            continue
                        }
                    } else {
                        stationarySince = nil
                        if paused {
                            paused = false
                            self.delivery.post { [weak self] in
                                guard let self, self.generation.location == gen else { return }
                                self.delegate?.locationManagerDidResumeLocationUpdates(self)
                            }
                        }
                    }
                    self.delivery.post { [weak self] in
                        guard let self, self.generation.location == gen else { return }
                        self._location = location
                        self.delegate?.locationManager(self, didUpdateLocations: [location])
                    }
                }
            } catch {
                self?.post(error: Self.clError(error), if: { $0.generation.location == gen })
            }
        }
    }

    static func clError(_ error: any Error) -> CLError {
        switch error as? LocationError {
        case .denied?: CLError(.denied)
        case .headingFailure?: CLError(.headingFailure)
        default: CLError(.locationUnknown)
        }
    }

    private func post(error: CLError, if current: @escaping (CLLocationManager) -> Bool,
                      then after: ((CLLocationManager) -> Void)? = nil) {
        delivery.post { [weak self] in
            guard let self, current(self) else { return }
            after?(self)
            self.delegate?.locationManager(self, didFailWithError: error)
        }
    }

    // MARK: Heading

    open func startUpdatingHeading() {
        updatingHeading = true
        restartHeadingUpdates()
    }

    open func stopUpdatingHeading() {
        updatingHeading = false
        generation.heading += 1
        headingTask?.cancel(); headingTask = nil
        calibrationTask?.cancel(); calibrationTask = nil
        stopFeedIfIdle()
    }

    /// Whether the delegate agreed to show the heading calibration (there is no system panel on a board: the
    /// program shows its own). Cleared when the field fits again or by `dismissHeadingCalibrationDisplay()`.
    var displayingHeadingCalibration = false
    private var calibrationTask: Task<Void, Never>?

    open func dismissHeadingCalibrationDisplay() { displayingHeadingCalibration = false }

    private func restartHeadingUpdates() {
        guard updatingHeading else { return }
        generation.heading += 1
        headingTask?.cancel(); headingTask = nil
        guard let feed = ensureFeed(failing: true) else { updatingHeading = false; return }
        let gen = generation.heading
        let stream = feed.headingUpdates(filterDegrees: Swift.max(0, headingFilter))
        // The magnetometer needs calibrating: Apple asks the delegate whether to show the calibration.
        let prompts = feed.calibrationPrompts()
        calibrationTask?.cancel()
        calibrationTask = Task.detached { [weak self] in
            for await needed in prompts {
                self?.delivery.post { [weak self] in
                    guard let self, self.generation.heading == gen else { return }
                    if needed {
                        self.displayingHeadingCalibration = self.delegate?.locationManagerShouldDisplayHeadingCalibration(self) ?? false
                    } else {
                        self.displayingHeadingCalibration = false
                    }
                }
            }
        }
        feed.start()
        headingTask = Task.detached { [weak self] in
            do {
                for try await h in stream {
                    guard let self else { return }
                    let raw = h.rawFieldMicrotesla
                    let heading = CLHeading(magneticHeading: h.magneticHeadingDegrees, trueHeading: h.trueHeadingDegrees ?? -1,
                                            headingAccuracy: h.headingAccuracyDegrees, timestamp: Date(),
                                            x: raw?.x ?? 0, y: raw?.y ?? 0, z: raw?.z ?? 0)
                    self.delivery.post { [weak self] in
                        guard let self, self.generation.heading == gen else { return }
                        self._heading = heading
                        self.delegate?.locationManager(self, didUpdateHeading: heading)
                    }
                }
            } catch {
                self?.post(error: Self.clError(error), if: { $0.generation.heading == gen })
            }
        }
    }

    // MARK: Significant changes and visits

    open func startMonitoringSignificantLocationChanges() {
        guard !monitoringSignificant, let feed = ensureFeed(failing: true) else { return }
        monitoringSignificant = true
        generation.significant += 1
        let gen = generation.significant
        let stream = feed.significantChanges()
        feed.start()
        significantTask = Task.detached { [weak self] in
            for await c in stream {
                let location = CLLocation(c.location)
                self?.delivery.post { [weak self] in
                    guard let self, self.generation.significant == gen else { return }
                    self._location = location
                    self.delegate?.locationManager(self, didUpdateLocations: [location])
                }
            }
        }
    }

    open func stopMonitoringSignificantLocationChanges() {
        monitoringSignificant = false
        generation.significant += 1
        significantTask?.cancel(); significantTask = nil
        stopFeedIfIdle()
    }

    open func startMonitoringVisits() {
        guard !monitoringVisits, let feed = ensureFeed(failing: true) else { return }
        monitoringVisits = true
        generation.visits += 1
        let gen = generation.visits
        let stream = feed.visits(Self.visitSettings)
        feed.start()
        visitsTask = Task.detached { [weak self] in
            for await v in stream {
                let visit = CLVisit(arrivalDate: Self.date(v.arrivalDate), departureDate: Self.date(v.departureDate),
                                    coordinate: CLLocationCoordinate2D(latitude: v.coordinate.latitudeDegrees,
                                                                       longitude: v.coordinate.longitudeDegrees),
                                    horizontalAccuracy: v.horizontalAccuracyMeters)
                self?.delivery.post { [weak self] in
                    guard let self, self.generation.visits == gen else { return }
                    self.delegate?.locationManager(self, didVisit: visit)
                }
            }
        }
    }

    open func stopMonitoringVisits() {
        monitoringVisits = false
        generation.visits += 1
        visitsTask?.cancel(); visitsTask = nil
        stopFeedIfIdle()
    }

    /// LodestarKit's visit thresholds (Apple's are not published; tests shorten the dwell for the 60 s stop of
    /// the simulated drive).
    nonisolated(unsafe) static var visitSettings = VisitDetector.Settings()

    static func date(_ t: Timestamp) -> Date {
        if t == .distantFuture { return .distantFuture }
        if t == .distantPast { return .distantPast }
        return Date(timeIntervalSince1970: t.secondsSince1970)
    }

    // MARK: Regions

    open func startMonitoring(for region: CLRegion) {
        guard let circle = region as? CLCircularRegion else {
            // No Bluetooth here: a beacon region cannot be monitored.
            delivery.post { [weak self] in
                guard let self else { return }
                self.delegate?.locationManager(self, monitoringDidFailFor: region, withError: CLError(.regionMonitoringFailure))
            }
            return
        }
        guard authorizationStatus != .denied else {
            delivery.post { [weak self] in
                guard let self else { return }
                self.delegate?.locationManager(self, monitoringDidFailFor: region, withError: CLError(.regionMonitoringDenied))
            }
            return
        }
        guard circle.radius > 0, circle.radius <= maximumRegionMonitoringDistance, CLLocationCoordinate2DIsValid(circle.center) else {
            delivery.post { [weak self] in
                guard let self else { return }
                self.delegate?.locationManager(self, monitoringDidFailFor: region, withError: CLError(.regionMonitoringFailure))
            }
            return
        }
        // Same identifier: the new region replaces the old one.
        if let old = monitoredRegions.first(where: { $0.identifier == region.identifier }) {
            _monitoredRegions.remove(old)
            regionMonitor?.remove(identifier: old.identifier)
        }
        _monitoredRegions.insert(circle)
        persist(adding: circle, removing: nil)
        if let monitor = regionMonitor {
            monitor.add(Self.circularRegion(circle))
        } else {
            _ = ensureFeed(failing: false)   // makes the monitor with every monitored region
        }
        feed?.start()
        delivery.post { [weak self] in
            guard let self, self.monitoredRegions.contains(circle) else { return }
            self.delegate?.locationManager(self, didStartMonitoringFor: circle)
        }
    }

    open func stopMonitoring(for region: CLRegion) {
        guard let r = monitoredRegions.first(where: { $0.identifier == region.identifier }) else { return }
        _monitoredRegions.remove(r)
        persist(adding: nil, removing: r.identifier)
        regionMonitor?.remove(identifier: r.identifier)
        stopFeedIfIdle()
    }

    open func requestState(for region: CLRegion) {
        let state: CLRegionState
        if let r = monitoredRegions.first(where: { $0.identifier == region.identifier }) {
            state = regionMonitor?.state(of: r.identifier).map(Self.regionState) ?? .unknown
        } else {
            state = .unknown
        }
        delivery.post { [weak self] in
            guard let self else { return }
            self.delegate?.locationManager(self, didDetermineState: state, for: region)
        }
    }

    static func regionState(_ s: RegionState) -> CLRegionState {
        switch s {
        case .unknown: .unknown
        case .inside: .inside
        case .outside: .outside
        }
    }

    static func circularRegion(_ r: CLCircularRegion) -> LocationServices.CircularRegion {
        LocationServices.CircularRegion(identifier: r.identifier,
                                        center: Coordinate(latitudeDegrees: r.center.latitude, longitudeDegrees: r.center.longitude),
                                        radiusMeters: r.radius, notifyOnEntry: r.notifyOnEntry, notifyOnExit: r.notifyOnExit)
    }

    // MARK: Ranging and deferred updates (not available here)

    open func startRangingBeacons(satisfying constraint: CLBeaconIdentityConstraint) {
        delivery.post { [weak self] in
            guard let self else { return }
            self.delegate?.locationManager(self, didFailRangingFor: constraint, error: CLError(.rangingUnavailable))
        }
    }
    open func stopRangingBeacons(satisfying constraint: CLBeaconIdentityConstraint) {}

    @available(*, deprecated, renamed: "startRangingBeacons(satisfying:)")
    open func startRangingBeacons(in region: CLBeaconRegion) {
        delivery.post { [weak self] in
            guard let self else { return }
            self.delegate?.locationManager(self, rangingBeaconsDidFailFor: region, withError: CLError(.rangingUnavailable))
        }
    }
    @available(*, deprecated, renamed: "stopRangingBeacons(satisfying:)")
    open func stopRangingBeacons(in region: CLBeaconRegion) {}

    @available(*, deprecated, message: "Deferred updates are no longer supported")
    open func allowDeferredLocationUpdates(untilTraveled distance: CLLocationDistance, timeout: TimeInterval) {
        delivery.post { [weak self] in
            guard let self else { return }
            self.delegate?.locationManager(self, didFinishDeferredUpdatesWithError: CLError(.deferredFailed))
        }
    }
    @available(*, deprecated, message: "Deferred updates are no longer supported")
    open func disallowDeferredLocationUpdates() {}

    // MARK: The session

    /// The running session, made on demand. With no source: nil, and (when `failing`) `didFailWithError(.denied)`.
    private func ensureFeed(failing: Bool) -> LodestarKit.LocationManager? {
        if let feed { return feed }
        guard let source else {
            if failing {
                delivery.post { [weak self] in
                    guard let self else { return }
                    self.delegate?.locationManager(self, didFailWithError: CLError(.denied))
                }
            }
            return nil
        }
        let feed = LodestarKit.LocationManager(source: source)
        self.feed = feed
        let monitor = feed.monitor()
        for case let r as CLCircularRegion in monitoredRegions { monitor.add(Self.circularRegion(r)) }
        regionMonitor = monitor
        generation.regions += 1
        let gen = generation.regions
        regionsTask = Task.detached { [weak self] in
            for await e in monitor.events {
                self?.delivery.post { [weak self] in
                    guard let self, self.generation.regions == gen,
                          let region = self.monitoredRegions.first(where: { $0.identifier == e.identifier }) else { return }
                    switch e.kind {
                    case .enter:
                        self.delegate?.locationManager(self, didDetermineState: .inside, for: region)
                        self.delegate?.locationManager(self, didEnterRegion: region)
                    case .exit:
                        self.delegate?.locationManager(self, didDetermineState: .outside, for: region)
                        self.delegate?.locationManager(self, didExitRegion: region)
                    }
                }
            }
        }
        return feed
    }

    private func stopFeedIfIdle() {
        guard !updatingLocation, !updatingHeading, !monitoringSignificant, !monitoringVisits, !requestingLocation,
              monitoredRegions.isEmpty, let feed else { return }
        feed.stop()
        self.feed = nil
        regionMonitor = nil
        generation.regions += 1
        regionsTask?.cancel(); regionsTask = nil
    }
}
#endif
