@_exported import LocationCore
@_exported import LocationServices
#if canImport(Glibc)
import Glibc
#endif
import Capture
import Devices
import Events
import Magnetics
import Pipeline
import Session
import Synchronization

/// Errors with Core Location's meaning (CLError).
public enum LocationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No position right now; transient — keep iterating (CLError.locationUnknown). Delivered as an update with
    /// `locationUnavailable`, never thrown.
    case locationUnknown
    /// Access to the source is denied (permissions; CLError.denied): terminal, the sequence ends with it.
    case denied(String)
    /// No heading can be produced (no motion sensor in the source; CLError.headingFailure).
    case headingFailure
    /// The source could not be opened or read (missing file, unreadable data, bad device spec).
    case sourceFailure(String)

    public var description: String {
        switch self {
        case .locationUnknown: "location unknown (transient)"
        case .denied(let m): "denied: \(m)"
        case .headingFailure: "heading unavailable"
        case .sourceFailure(let m): m
        }
    }
}

/// Where a LocationManager gets its data.
public enum LocationSource: Sendable {
    /// A capture file (Lodestar capture, NMEA log, GnssLogger log, IMU CSV) replayed through the pipeline, as fast as
    /// possible (`speed` nil) or paced at `speed` × the recorded pace (1 = real time).
    case replay(path: String, speed: Double? = nil)
    /// Live GNSS receivers: device specs as in `lodestar run --gps` (`/dev/ttyACM0@9600`, `gpsd://host:port`).
    case live(gps: [String])
    /// The board's location service (`lodestar run --service PATH`): the running service's events, shared with every
    /// other program on the board, as apps share locationd. A socket this process may not open is `.denied`.
    case service(path: String)
}

/// The Core Location–style API: one session over the pipeline (replay or live), many async sequences.
///
/// Create the sequences you need, then `start()`; every sequence applies its own policy to the one fix stream.
/// Time comes from the fixes, so a replay behaves exactly like the live session it recorded.
///
///     let manager = LocationManager(source: .replay(path: "captures/simulated-drive.lcap"))
///     let updates = manager.liveUpdates(.init(desiredAccuracy: .nearestTenMeters, distanceFilterMeters: 50))
///     manager.start()
///     for try await update in updates { print(update.location?.latitudeDegrees ?? "unavailable") }
public final class LocationManager: Sendable {
    public let source: LocationSource
    public let pipelineSettings: Pipeline.Settings
    private let subscribers = Mutex<[Subscriber]>([])
    private let running = Atomic<Bool>(false)
    private let stopRequested = Atomic<Bool>(false)
    private let finished = Mutex<LocationError?>(nil)

    public init(source: LocationSource, pipelineSettings: Pipeline.Settings = .default) {
        self.source = source
        self.pipelineSettings = pipelineSettings
    }

    // MARK: Sequences

    /// Configuration of one `liveUpdates` sequence (CLLocationUpdate.LiveConfiguration plus the classic knobs).
    public struct LiveConfiguration: Sendable {
        public var desiredAccuracy: DesiredAccuracy
        public var distanceFilterMeters: Double
        /// A fix older than this relative to the newest fix is never delivered.
        public var maximumAgeSeconds: Double
        public init(desiredAccuracy: DesiredAccuracy = .bestForNavigation, distanceFilterMeters: Double = 0,
                    maximumAgeSeconds: Double = 5) {
            self.desiredAccuracy = desiredAccuracy; self.distanceFilterMeters = distanceFilterMeters
            self.maximumAgeSeconds = maximumAgeSeconds
        }
        public static let `default` = LiveConfiguration()
    }

    /// Location updates (CLLocationUpdate.liveUpdates()): each carries the fix, `isStationary`,
    /// `locationUnavailable` (transient: keep iterating) and `accuracyLimited`. Ends when the session ends; throws
    /// `LocationError.denied` / `.sourceFailure` when the source cannot be used.
    public func liveUpdates(_ configuration: LiveConfiguration = .default) -> AsyncThrowingStream<LocationUpdate, any Error> {
        let (stream, continuation) = AsyncThrowingStream<LocationUpdate, any Error>.makeStream(bufferingPolicy: .unbounded)
        var policy = LocationUpdatePolicy(desiredAccuracy: configuration.desiredAccuracy,
                                          distanceFilterMeters: configuration.distanceFilterMeters,
                                          maximumAgeSeconds: configuration.maximumAgeSeconds)
        var lastTime: Timestamp?
        add(Subscriber(handle: { event in
            switch event {
            case .fix(let l):
                if let t = l.time { lastTime = t }
                for u in policy.process(l) { continuation.yield(u) }
            case .status(let s) where s.state == .unavailable:
                // A source went away: tell the consumer the location is (transiently) unknown.
                continuation.yield(LocationUpdate(location: nil, locationUnavailable: true, accuracyLimited: false,
                                                  time: lastTime ?? Timestamp(nanosecondsSince1970: 0)))
            default: break
            }
        }, finish: { error in
            if let error { continuation.finish(throwing: error) } else { continuation.finish() }
        }))
        return stream
    }

    /// Headings that pass `filterDegrees` (Core Location's headingFilter). An invalid heading (accuracy < 0) is
    /// delivered once when the sensor is lost. Ends with `LocationError.headingFailure` when the session produced
    /// no heading at all.
    public func headingUpdates(filterDegrees: Double = 1) -> AsyncThrowingStream<HeadingSample, any Error> {
        let (stream, continuation) = AsyncThrowingStream<HeadingSample, any Error>.makeStream(bufferingPolicy: .unbounded)
        var filter = HeadingFilter(filterDegrees: filterDegrees)
        var any = false
        add(Subscriber(handle: { event in
            guard case .heading(let h, _) = event else { return }
            any = true
            if filter.shouldDeliver(headingDegrees: h.trueHeadingDegrees ?? h.magneticHeadingDegrees,
                                    accuracyDegrees: h.headingAccuracyDegrees) {
                continuation.yield(HeadingSample(trueHeadingDegrees: h.trueHeadingDegrees,
                                                 magneticHeadingDegrees: h.magneticHeadingDegrees,
                                                 headingAccuracyDegrees: h.headingAccuracyDegrees,
                                                 sampleTimeSeconds: h.sampleTimeSeconds,
                                                 rawFieldMicrotesla: h.rawFieldMicrotesla))
            }
        }, finish: { error in
            if let error { continuation.finish(throwing: error) }
            else if !any { continuation.finish(throwing: LocationError.headingFailure) }
            else { continuation.finish() }
        }))
        return stream
    }

    /// Core Location's shouldDisplayHeadingCalibration: `true` when the magnetometer needs calibrating (a new hard
    /// iron, a lasting disturbance), `false` when the field fits again.
    public func calibrationPrompts() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream<Bool>.makeStream(bufferingPolicy: .unbounded)
        add(Subscriber(handle: { event in
            if case .calibrationNeeded(let c) = event { continuation.yield(c.needed) }
        }, finish: { _ in continuation.finish() }))
        return stream
    }

    /// Visits (arrivals and departures; see `VisitDetector` for the thresholds).
    public func visits(_ settings: VisitDetector.Settings = .init()) -> AsyncStream<Visit> {
        let (stream, continuation) = AsyncStream<Visit>.makeStream(bufferingPolicy: .unbounded)
        var detector = VisitDetector(settings: settings)
        add(Subscriber(handle: { event in
            if case .fix(let l) = event, let v = detector.process(l) { continuation.yield(v) }
        }, finish: { _ in continuation.finish() }))
        return stream
    }

    /// Significant location changes (≥ `thresholdMeters`, debounced against accuracy).
    public func significantChanges(thresholdMeters: Double = 500) -> AsyncStream<SignificantChange> {
        let (stream, continuation) = AsyncStream<SignificantChange>.makeStream(bufferingPolicy: .unbounded)
        var monitor = SignificantChangeMonitor(thresholdMeters: thresholdMeters)
        add(Subscriber(handle: { event in
            if case .fix(let l) = event, let c = monitor.process(l) { continuation.yield(c) }
        }, finish: { _ in continuation.finish() }))
        return stream
    }

    /// Deferred delivery: the fixes that pass `configuration`, in batches after `distanceMeters` of path or
    /// `seconds` (allowDeferredLocationUpdates(untilTraveled:timeout:)); the rest is delivered when the session ends.
    public func deferredUpdates(distanceMeters: Double?, seconds: Double?,
                                _ configuration: LiveConfiguration = .default) -> AsyncStream<LocationBatch> {
        let (stream, continuation) = AsyncStream<LocationBatch>.makeStream(bufferingPolicy: .unbounded)
        var policy = LocationUpdatePolicy(desiredAccuracy: configuration.desiredAccuracy,
                                          distanceFilterMeters: configuration.distanceFilterMeters,
                                          maximumAgeSeconds: configuration.maximumAgeSeconds)
        var batcher = DeferredBatcher(distanceMeters: distanceMeters, seconds: seconds)
        add(Subscriber(handle: { event in
            guard case .fix(let l) = event else { return }
            for u in policy.process(l) { if let x = u.location, let b = batcher.add(x) { continuation.yield(b) } }
            if let t = l.time, let b = batcher.advance(to: t) { continuation.yield(b) }
        }, finish: { _ in
            if let b = batcher.finish() { continuation.yield(b) }
            continuation.finish()
        }))
        return stream
    }

    /// A CLMonitor-like region monitor on this session's fixes.
    public func monitor(settings: RegionMonitor.Settings = .init()) -> Monitor {
        let m = Monitor(settings: settings)
        add(Subscriber(handle: { event in
            if case .fix(let l) = event { m.process(l) }
        }, finish: { _ in m.finish() }))
        return m
    }

    /// Circular conditions and their `events` (enter / exit with the hysteresis of `RegionMonitor`). Conditions can
    /// be added and removed at any time, from any thread.
    public final class Monitor: Sendable {
        private let state: Mutex<RegionMonitor>
        private let continuation: AsyncStream<RegionEvent>.Continuation
        public let events: AsyncStream<RegionEvent>

        init(settings: RegionMonitor.Settings) {
            state = Mutex(RegionMonitor(settings: settings))
            (events, continuation) = AsyncStream<RegionEvent>.makeStream(bufferingPolicy: .unbounded)
        }

        public func add(_ region: CircularRegion) { state.withLock { $0.add(region) } }
        public func remove(identifier: String) { state.withLock { $0.remove(identifier: identifier) } }
        public func state(of identifier: String) -> RegionState? { state.withLock { $0.state(of: identifier) } }
        /// The persisted form (see `RegionMonitor.encodeState`); restore before `start()` to carry states over.
        public func encodeState() -> [UInt8] { state.withLock { $0.encodeState() } }
        public func restoreState(_ bytes: [UInt8]) throws(RegionMonitor.StateError) {
            try state.withLock { (m: inout RegionMonitor) throws(RegionMonitor.StateError) in try m.restoreState(bytes) }
        }

        func process(_ fix: Location) {
            var out: [RegionEvent] = []
            state.withLock { $0.process(fix, into: &out) }
            for e in out { continuation.yield(e) }
        }

        func finish() { continuation.finish() }
    }

    // MARK: Session

    /// Starts the session on its own thread (once). Sequences created later see the events from then on.
    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let source = self.source
        let settings = self.pipelineSettings
        let body: @Sendable () -> Void = { [self] in
            let error = Self.runSession(source: source, settings: settings, stop: { self.stopRequested.load(ordering: .relaxed) },
                                        emit: { self.broadcast($0) })
            self.finishAll(error)
        }
        // No thread: run inline rather than silently never starting.
        if PosixThread.start(joinable: false, body) == nil { body() }
    }

    /// Asks the session to end; every sequence then finishes.
    public func stop() { stopRequested.store(true, ordering: .relaxed) }

    /// Runs the session on the calling thread until the source ends (replay) or `stop()` (live); for programs that
    /// consume the sequences in tasks.
    public func run() throws(LocationError) {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let error = Self.runSession(source: source, settings: pipelineSettings,
                                    stop: { self.stopRequested.load(ordering: .relaxed) }, emit: { self.broadcast($0) })
        finishAll(error)
        if let error { throw error }
    }

    private func add(_ s: Subscriber) {
        let done = finished.withLock { $0 }
        subscribers.withLock { $0.append(s) }
        if running.load(ordering: .relaxed), done != nil { s.finish(done) }
    }

    private func broadcast(_ e: OutputEvent) {
        let list = subscribers.withLock { $0 }
        for s in list { s.deliver(e) }
    }

    private func finishAll(_ error: LocationError?) {
        finished.withLock { $0 = error }
        let list = subscribers.withLock { $0 }
        for s in list { s.finish(error) }
    }

    /// The session for either kind of source (the same `SessionRunner` as `lodestar replay` and `run`, with the
    /// same reference-date rule). Returns the terminal error, if any.
    static func runSession(source: LocationSource, settings: Pipeline.Settings, stop: @escaping () -> Bool,
                           emit: @escaping (OutputEvent) -> Void) -> LocationError? {
        let clock = ClockPairing.now()
        var builder = SessionBuilder()
        builder.settings = settings
        // An explicit `settings.nmea.referenceDate` is the caller's; the capture's own date wins (ReferenceDate.resolve).
        builder.configuration.referenceDate = settings.nmea.referenceDate
        switch source {
        case .replay(let path, let speed):
            let reader: any CaptureReader
            do { reader = try CaptureDetector.open(path: path, format: nil, lineEvents: speed != nil) } catch {
                if case .permissionDenied = error { return .denied(error.description) }
                return .sourceFailure(error.description)
            }
            builder.consumers = [OutputEventHandler(emit)]
            let session = builder.replay(today: clock.date, speed: speed)
            do { try session.run(.capture(reader), shouldStop: stop) } catch { return .sourceFailure(error.description) }
            return nil
        case .service(let path):
            return ServiceConnection.run(path: path, stop: stop, emit: emit)
        case .live(let gps):
            var sources: [any LiveSource] = []
            for (i, text) in gps.enumerated() {
                do { sources.append(try DeviceSpec(parsing: text).makeSource(name: "gps\(i)")) } catch {
                    return .sourceFailure("gps \(text): \(error.description)")
                }
            }
            let queue = LiveEventQueue(sources: sources, clock: clock)
            var denied: String?
            builder.configuration = SessionConfiguration()
            builder.consumers = [OutputEventHandler { e in
                if case .status(let st) = e, st.state == .denied { denied = "\(st.source): \(st.message ?? "permission denied")" }
                emit(e)
            }]
            let session: SessionRunner
            do { session = try builder.live(queue: queue) } catch { return .sourceFailure(error.description) }
            do { try session.run(.live(queue), shouldStop: { stop() || denied != nil }) } catch {
                return .sourceFailure(error.description)
            }
            return denied.map { .denied($0) }
        }
    }
}

/// One consumer's handlers; called only on the session's thread.
final class Subscriber: @unchecked Sendable {
    private let handle: (OutputEvent) -> Void
    private let onFinish: (LocationError?) -> Void
    private var done = false
    private let lock = Mutex<Void>(())

    init(handle: @escaping (OutputEvent) -> Void, finish: @escaping (LocationError?) -> Void) {
        self.handle = handle
        self.onFinish = finish
    }

    func deliver(_ e: OutputEvent) { lock.withLock { _ in if !done { handle(e) } } }

    func finish(_ error: LocationError?) {
        lock.withLock { _ in
            guard !done else { return }
            done = true
            onFinish(error)
        }
    }
}

