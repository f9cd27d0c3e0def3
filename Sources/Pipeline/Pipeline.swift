import Estimation
import LocationCore
import LocationServices
import Magnetics
import NMEA

/// The one pipeline for live and replay: source events in, output events out. It never reads a clock and never
/// touches a device; sources and sinks are plugged in from outside.
///
/// Per NMEA source it keeps a framer (bytes → sentences), a parser (sentences → typed values) and an epoch
/// assembler (sentences → one fix per receiver cycle).
public final class Pipeline {
    public struct Settings: Sendable {
        public var framer = NMEAFramer.Options.default
        public var epoch = EpochAssembler.Settings.default
        /// Reference date for 2-digit years / rollover (from the capture header, or the CLI's system clock).
        public var referenceDate: CivilDate?
        /// Emit sky events.
        public var emitSky = true
        /// Pass proprietary and unsupported sentences through as `sentence` events.
        public var passthrough = false
        /// Emit fixes from external engines (GnssLogger Fix rows) when the source has no NMEA.
        public var useExternalFixes = true
        /// Which external providers count as receiver fixes. Android's FLP (Google's fused output) and NLP
        /// (network) are results of other engines, not measurements, so only the chipset's GPS fixes are used.
        public var externalFixProviders: Set<String> = ["GPS", "gps"]
        /// Flush encoded output to the sinks after every event (live) instead of in large blocks (replay).
        public var flushEveryEvent = false
        /// Heading from motion samples (nil: motion samples are ignored).
        public var heading: HeadingEstimator.Settings? = .default
        public var calibration: MagnetometerCalibration = .identity
        /// A fixed position for the true-north correction until (and unless) a fix arrives.
        public var configuredLocation: Location?
        /// Keep refining the magnetometer calibration from normal operation (`BackgroundRefiner`: adopts a new
        /// calibration only with good coverage, a lower residual, a plausible field strength and a plausible change).
        public var backgroundCalibration = true
        /// Names of live sources that feed the heading (their `unavailable` makes the heading invalid) and of
        /// GNSS sources (for `locationServicesEnabled`).
        public var headingSourceNames: Set<String> = []
        public var locationSourceNames: Set<String> = []
        /// Motion-aided position smoothing (nil: fixes are output as parsed). See docs/smoothing.md.
        public var smoothing: PositionSmoother.Settings? = .default
        /// Core Location's pausesLocationUpdatesAutomatically: while stationary, only the first stationary fix is
        /// output; updates resume with the first moving fix.
        public var pauseWhenStationary = false
        /// During a GNSS outage with inertial data flowing, a dead-reckoned fix is emitted at this interval, s.
        public var deadReckoningIntervalSeconds = 1.0
        /// Attaches a placemark to each fix with a position (`--placemark`; the provider decides when to recompute).
        public var placemarkProvider: (@Sendable (Location) -> PlacemarkSummary?)?
        public init() {}
        public static let `default` = Settings()
    }

    private final class NMEAStream {
        let framer: NMEAFramer
        let parser = NMEAParser()
        var assembler: EpochAssembler
        var sawNMEA = false
        init(settings: Settings) {
            framer = NMEAFramer(options: settings.framer)
            assembler = EpochAssembler(settings: settings.epoch, referenceDate: settings.referenceDate)
        }
    }

    public let settings: Settings
    private var streams: [Int: NMEAStream] = [:]
    private var encoder: any OutputEncoder
    private var sinks: [any OutputSink]
    private var buffer = ByteBuffer(capacity: 1 << 17)
    private let flushThreshold = 1 << 16
    /// Optional observer of every output event (tests, the Swift API).
    public var observer: ((OutputEvent) -> Void)?
    /// Location services applied to every fix (regions, visits, update policy…; see ServiceEventEncoding.swift).
    public var services: LocationServicesStage?

    private var smoother: PositionSmoother?
    /// Time base for inertial samples: the monotonic time of the event that carried the last fix, and its UTC.
    private var currentMonotonicNanos: Int64?
    private var lastFixMonotonicNanos: Int64?
    private var lastSmoothedFixTime: Timestamp?
    private var lastOutputFixTime: Timestamp?
    private var lastGoodMode: FixMode = .threeD
    private var reportedUnavailable = false
    private var pausedStationary = false
    public private(set) var fixesSmoothed = 0
    public private(set) var fixesDeadReckoned = 0
    public private(set) var fixesPaused = 0
    private var heading: HeadingEstimator?
    private var refiner: BackgroundRefiner?
    private var lastAcceleration: Vector3?
    private var lastHeading: HeadingReport?
    private var availability: AvailabilityStage
    public private(set) var calibrationsAdopted = 0
    public private(set) var fixesEmitted = 0
    public private(set) var headingsEmitted = 0
    public private(set) var skyEmitted = 0
    public private(set) var eventsProcessed = 0
    /// UTC of the last fix emitted (replay pacing for logs without timestamps).
    public private(set) var lastFixTime: Timestamp?

    public init(settings: Settings = .default, encoder: any OutputEncoder, sinks: [any OutputSink]) {
        self.settings = settings
        self.encoder = encoder
        self.sinks = sinks
        availability = AvailabilityStage(settings: AvailabilityStage.Settings(
            headingSourceNames: settings.headingSourceNames, locationSourceNames: settings.locationSourceNames))
        if let s = settings.smoothing { smoother = PositionSmoother(settings: s) }
        if let h = settings.heading {
            var estimator = HeadingEstimator(settings: h, calibration: settings.calibration)
            if let l = settings.configuredLocation { estimator.update(location: l) }
            heading = estimator
            if settings.backgroundCalibration {
                refiner = BackgroundRefiner(current: settings.calibration,
                                            referenceFieldMicrotesla: estimator.fieldElements.map { $0.totalNanotesla / 1000 })
            }
        }
    }

    /// True when every sink is broken (nobody can receive output any more).
    public var allSinksBroken: Bool { !sinks.isEmpty && sinks.allSatisfy(\.isBroken) }

    private func stream(_ id: Int) -> NMEAStream {
        if let s = streams[id] { return s }
        let s = NMEAStream(settings: settings)
        streams[id] = s
        return s
    }

    public func process(_ event: SensorEvent) {
        eventsProcessed += 1
        currentMonotonicNanos = event.monotonicNanos
        switch event.payload {
        case .nmea(let bytes):
            let s = stream(event.sourceID)
            s.sawNMEA = true
            bytes.withUnsafeBufferPointer { feed(s, $0) }
        case .fix(let external):
            if settings.useExternalFixes && settings.externalFixProviders.contains(external.provider)
                && streams[event.sourceID]?.sawNMEA != true {
                emitFix(external.location)
            }
        case .motion(let sample):
            processMotion(sample, event)
        case .orientation:
            break // a source's own orientation (Android) is a reference, not an input
        case .status(var report):
            // The event's UTC (clock pairing + monotonic stamp) is the report's time, live and replayed alike.
            if let utc = event.utc { report.time = utc }
            emit(.status(report))
        }
        if settings.flushEveryEvent { flush() }
    }

    /// Feeds raw NMEA bytes of source `sourceID` directly (replay fast path, no event allocation).
    public func feedNMEA(_ bytes: UnsafeBufferPointer<UInt8>, sourceID: Int = 0) {
        let s = stream(sourceID)
        s.sawNMEA = true
        feed(s, bytes)
        if settings.flushEveryEvent { flush() }
    }

    private func feed(_ s: NMEAStream, _ bytes: UnsafeBufferPointer<UInt8>) {
        s.framer.feed(bytes) { framed in
            guard let parsed = s.parser.parse(framed) else { return }
            switch parsed.sentence {
            case .proprietary, .unsupported:
                if settings.passthrough { emit(.sentence(Array(framed.bytes) + [0x0D, 0x0A])) }
            default:
                s.assembler.add(parsed) { emitEpoch($0) }
            }
        }
    }

    private func processMotion(_ sample: MotionSample, _ event: SensorEvent) {
        switch sample {
        case .accelerometer(let a, let bias): lastAcceleration = bias.map { a - $0 } ?? a
        case .accelerometerRaw(let raw): lastAcceleration = raw.vector
        default: break
        }
        if smoother != nil { smoothMotion(sample, event) }
        guard heading != nil else { return }
        let t = event.monotonicNanos ?? 0
        if refiner != nil {
            var raw: Vector3?
            switch sample {
            case .magnetometer(let field, _): raw = field
            case .magnetometerRaw(let r): raw = r.vector
            default: break
            }
            if let raw, case .adopted(let result)? = refiner?.add(raw, monotonicNanos: t) {
                heading?.setCalibration(result.calibration)
                calibrationsAdopted += 1
                emit(.calibrationRefined(result))
            }
        }
        let update = heading?.process(sample, monotonicNanos: t, sampleTimeSeconds: event.sampleTimeSeconds) ?? .none
        if let c = update.calibration { emit(.calibrationNeeded(c)) }
        if let r = update.report {
            lastHeading = r
            headingsEmitted += 1
            emit(.heading(r, accelerationMetersPerSecondSquared: lastAcceleration))
        }
    }

    private func emitEpoch(_ output: EpochOutput) {
        switch output {
        case .fix(let l): emitFix(l)
        case .sky(let s): if settings.emitSky { emit(.sky(s)) }
        }
    }

    public func emit(_ event: OutputEvent) {
        var event = event
        if let provider = settings.placemarkProvider, case .fix(var l) = event, l.latitudeDegrees != nil {
            l.placemark = provider(l)
            event = .fix(l)
        }
        if case .status(let s) = event { noteStatus(s) }
        switch event {
        case .fix(let l):
            fixesEmitted += 1
            if let t = l.time { lastFixTime = t }
            if l.latitudeDegrees != nil, l.mode == .twoD || l.mode == .threeD {
                heading?.update(location: l)
                if let f = heading?.fieldElements { refiner?.referenceFieldMicrotesla = f.totalNanotesla / 1000 }
            }
        case .sky: skyEmitted += 1
        default: break
        }
        observer?(event)
        if shouldEncode(event) { encoder.encode(event, into: &buffer) }
        if let services, case .fix(let l) = event { services.process(l) { emit(.service($0)) } }
        if !emitAfterStatus.isEmpty {
            let followUps = emitAfterStatus
            emitAfterStatus.removeAll()
            for e in followUps { emit(e) }
        }
        if buffer.count >= flushThreshold { flush() }
    }

    /// A receiver fix (or a no-fix epoch) through the smoother: smoothed when it has a position; dead reckoned
    /// (status 6, mode kept) when it has none and the outage is young; as parsed otherwise ("location unavailable").
    private func emitFix(_ fix: Location) {
        guard smoother != nil else { emit(.fix(fix)); return }
        if fix.latitudeDegrees != nil, fix.longitudeDegrees != nil, fix.mode != .noFix, fix.time != nil {
            guard let out = smoother?.process(fix: fix) else { return }
            if smoother?.lastOutcome == .duplicate || smoother?.lastOutcome == .outOfOrder { return }
            if fix.mode != .unknown { lastGoodMode = fix.mode }
            lastSmoothedFixTime = fix.time
            lastFixMonotonicNanos = currentMonotonicNanos
            reportedUnavailable = false
            fixesSmoothed += 1
            if settings.pauseWhenStationary {
                if out.isStationary == true {
                    if pausedStationary { fixesPaused += 1; return }
                    pausedStationary = true
                } else {
                    pausedStationary = false
                }
            }
            lastOutputFixTime = out.time
            emit(.fix(out))
            return
        }
        if let t = fix.time, let dr = deadReckoned(at: t, template: fix) {
            emit(.fix(dr))
            return
        }
        emit(.fix(fix))
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
    /// fixes gone but inertial data flowing, emits a dead-reckoned fix every `deadReckoningIntervalSeconds` until the
    /// outage limit, then one "no fix" (location unavailable).
    private func smoothMotion(_ sample: MotionSample, _ event: SensorEvent) {
        guard let fixTime = lastSmoothedFixTime, let fixMono = lastFixMonotonicNanos, let mono = event.monotonicNanos,
              mono >= fixMono else { return }
        let t = fixTime.adding(nanoseconds: mono - fixMono)
        switch sample {
        case .accelerometer(let a, let bias): smoother?.process(specificForceBody: bias.map { a - $0 } ?? a, at: t)
        case .accelerometerRaw(let raw): smoother?.process(specificForceBody: raw.vector, at: t)
        case .gyroscope(let w, let drift): smoother?.process(angularRateBody: drift.map { w - $0 } ?? w, at: t)
        case .gyroscopeRaw(let raw): smoother?.process(angularRateBody: raw.vector, at: t)
        default: return
        }
        let sinceFix = Double(t.nanosecondsSince1970 - fixTime.nanosecondsSince1970) / 1e9
        let sinceOutput = lastOutputFixTime.map { Double(t.nanosecondsSince1970 - $0.nanosecondsSince1970) / 1e9 } ?? .infinity
        guard sinceFix >= 1.5 * settings.deadReckoningIntervalSeconds, sinceOutput >= settings.deadReckoningIntervalSeconds,
              !reportedUnavailable else { return }
        var template = Location()
        template.time = t
        if let dr = deadReckoned(at: t, template: template) {
            emit(.fix(dr))
        } else {
            reportedUnavailable = true
            var none = Location()
            none.time = t
            none.mode = .noFix
            lastOutputFixTime = t
            emit(.fix(none))
        }
    }

    /// A live source's availability changed: an unavailable heading source makes the heading invalid (one
    /// heading event with accuracy −1, Core Location's "invalid" heading), and the session's availability is
    /// re-announced when it changes.
    private func noteStatus(_ s: StatusReport) {
        let outcome = availability.note(s)
        if outcome.headingSourceLost, var h = lastHeading, h.headingAccuracyDegrees >= 0 {
            h.headingAccuracyDegrees = -1
            lastHeading = h
            headingsEmitted += 1
            emitAfterStatus.append(.heading(h, accelerationMetersPerSecondSquared: nil))
        }
        if let a = outcome.availability {
            emitAfterStatus.append(.availability(locationServicesEnabled: a.locationServicesEnabled, headingAvailable: a.headingAvailable))
        }
    }

    /// A read-only view of the pipeline's internal state, per stage, for diagnosis (x-io Fusion's
    /// GetInternalStates shape). Taking it changes nothing.
    public struct Snapshot: Sendable {
        public var nmea: NMEAStatistics
        public var nmeaSources: [Int]
        public var fixesEmitted: Int
        public var fixesSmoothed: Int
        public var fixesDeadReckoned: Int
        public var fixesPaused: Int
        public var pausedStationary: Bool
        public var lastFixTime: Timestamp?
        public var headingsEmitted: Int
        public var lastHeadingAccuracyDegrees: Double?
        public var calibrationsAdopted: Int
        public var availability: AvailabilityStage.Snapshot
        public var skyEmitted: Int
        public var eventsProcessed: Int
    }

    public var snapshot: Snapshot {
        Snapshot(nmea: nmeaStatistics, nmeaSources: streams.keys.sorted(), fixesEmitted: fixesEmitted,
                 fixesSmoothed: fixesSmoothed, fixesDeadReckoned: fixesDeadReckoned, fixesPaused: fixesPaused,
                 pausedStationary: pausedStationary, lastFixTime: lastFixTime, headingsEmitted: headingsEmitted,
                 lastHeadingAccuracyDegrees: lastHeading?.headingAccuracyDegrees, calibrationsAdopted: calibrationsAdopted,
                 availability: availability.snapshot, skyEmitted: skyEmitted, eventsProcessed: eventsProcessed)
    }

    /// The output stage's one rule: with an update policy or deferral, the raw fix stream is replaced by the
    /// delivered fixes (service events).
    func shouldEncode(_ event: OutputEvent) -> Bool {
        if case .fix = event, services?.filtersFixes == true { return false }
        return true
    }

    private var emitAfterStatus: [OutputEvent] = []

    public func flush() {
        guard !buffer.isEmpty else { return }
        let sinks = self.sinks
        buffer.withBytes { p in for sink in sinks { sink.write(p) } }
        buffer.removeAll()
    }

    /// End of input: emit the last cycles and flush.
    public func finish() {
        for id in streams.keys.sorted() {
            guard let s = streams[id] else { continue }
            s.framer.finish { framed in
                if let parsed = s.parser.parse(framed) { s.assembler.add(parsed) { emitEpoch($0) } }
            }
            s.assembler.finish { emitEpoch($0) }
        }
        services?.finish { emit(.service($0)) }
        flush()
    }

    /// Framer + parser counters over all sources.
    public var nmeaStatistics: NMEAStatistics {
        streams.values.reduce(NMEAStatistics()) { acc, s in
            var parserStats = s.parser.statistics
            parserStats.framed = 0 // framed is counted by the framer; the parser's copy counts the same sentences
            return acc + s.framer.statistics + parserStats
        }
    }
}
