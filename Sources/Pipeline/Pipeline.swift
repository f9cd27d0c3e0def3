import Estimation
import Events
import LocationCore
import LocationServices
import LodestarIO
import Magnetics
import NMEA
import UBX

/// The one pipeline for live and replay: source events in, output events out. It never reads a clock and never
/// touches a device; sources and sinks are plugged in from outside.
///
/// It composes stages in order, each owning its state and settings and exposing a read-only snapshot:
/// `NMEAStage` (bytes → sentences → epochs) → `SmoothingStage` (motion-aided smoothing, dead reckoning, pause) →
/// `HeadingStage` (compass, background calibration, vehicle heading) → `AvailabilityStage` (status → session
/// availability) → `PlacemarkStage` → `LocationServicesStage` (regions, visits, update policy) → `OutputStage`
/// (encoder, buffer, sinks). Stages do not call each other: the pipeline hands each one's output to the next, so
/// adding a stage or an output touches no other stage. `Settings` is made of the stages' own settings; each stage gets
/// its part (`settings.nmea`, `settings.smoothing`, …).
public final class Pipeline {
    /// The session's settings: each stage's own `Settings` (the only copy of every field), plus the two rules the
    /// pipeline itself applies (which external fixes count as receiver fixes).
    public struct Settings: Sendable {
        /// Bytes → sentences → epochs: framing, epoch assembly, reference date, sky, passthrough.
        public var nmea = NMEAStage.Settings()
        /// Motion-aided smoothing, dead reckoning, pause (`smoothing.smoothing` nil: fixes are output as parsed).
        public var smoothing = SmoothingStage.Settings()
        /// Compass, calibration, vehicle heading (`heading.heading` nil: motion samples are ignored).
        public var heading = HeadingStage.Settings()
        /// Which live sources feed the heading and the location (their statuses decide availability).
        public var availability = AvailabilityStage.Settings()
        /// Attaches a placemark to each fix with a position (`--placemark`).
        public var placemark = PlacemarkStage.Settings()
        /// Flushing (after every event live, in blocks in a replay).
        public var output = OutputStage.Settings()
        /// Emit fixes from external engines (GnssLogger Fix rows) when the source has no NMEA.
        public var useExternalFixes = true
        /// Which external providers count as receiver fixes. Android's FLP (Google's fused output) and NLP
        /// (network) are results of other engines, not measurements, so only the chipset's GPS fixes are used.
        public var externalFixProviders: Set<String> = ["GPS", "gps"]
        public init() {}
        public static let `default` = Settings()
    }

    public let settings: Settings
    public let nmea: NMEAStage
    public let smoothing: SmoothingStage
    public let heading: HeadingStage
    private var availability: AvailabilityStage
    public let placemark: PlacemarkStage
    /// Location services applied to every fix (regions, visits, update policy…; see ServiceEventEncoding.swift).
    public var services: LocationServicesStage?
    public let output: OutputStage
    /// Optional observer of every output event (tests, the Swift API, the network outputs).
    public var observer: ((OutputEvent) -> Void)?
    /// Told (source ID, the chunk's monotonic stamp) when a chunk of receiver bytes held valid data: the live
    /// session hands it to the sources, which then need not frame the bytes themselves (framed once, here).
    public var validData: ((Int, Int64) -> Void)?

    /// The monotonic time of the event being processed (the time base of the vehicle heading and dead reckoning).
    private var currentMonotonicNanos: Int64?
    /// The UTC of the event being processed (the time of status reports the pipeline derives from receiver data).
    private var currentUTC: Timestamp?
    /// The receiver's integrity as last announced (status events only when jamming, spoofing or antenna change).
    private var announcedIntegrity = ReceiverIntegrity()
    /// Events caused by the one being delivered, delivered after it (`emit`).
    private var followUps: [OutputEvent] = []
    public private(set) var fixesEmitted = 0
    public private(set) var skyEmitted = 0
    /// Late receiver solutions handed to the outputs (`OutputEvent.lateFix`; gpsd's output writes them).
    public private(set) var lateFixesEmitted = 0
    public private(set) var eventsProcessed = 0
    /// UTC of the last fix emitted (replay pacing for logs without timestamps).
    public private(set) var lastFixTime: Timestamp?

    public var fixesSmoothed: Int { smoothing.fixesSmoothed }
    public var fixesDeadReckoned: Int { smoothing.fixesDeadReckoned }
    public var fixesPaused: Int { smoothing.fixesPaused }
    public var headingsEmitted: Int { heading.headingsEmitted }
    public var calibrationsAdopted: Int { heading.calibrationsAdopted }
    /// The vehicle heading (nil with `platform == .handheld` or heading off).
    public var vehicle: VehicleHeadingStage? { heading.vehicle }

    public init(settings: Settings = .default, encoder: any OutputEncoder, sinks: [any OutputSink]) {
        self.settings = settings
        nmea = NMEAStage(settings: settings.nmea)
        smoothing = SmoothingStage(settings: settings.smoothing)
        heading = HeadingStage(settings: settings.heading)
        availability = AvailabilityStage(settings: settings.availability)
        placemark = PlacemarkStage(settings: settings.placemark)
        output = OutputStage(settings: settings.output, encoder: encoder, sinks: sinks)
    }

    /// True when every sink is broken (nobody can receive output any more).
    public var allSinksBroken: Bool { output.allSinksBroken }

    public func process(_ event: SensorEvent) {
        eventsProcessed += 1
        currentMonotonicNanos = event.monotonicNanos
        currentUTC = event.utc
        switch event.payload {
        case .nmea(let bytes):
            let completed = bytes.withUnsafeBufferPointer { nmea.feed($0, sourceID: event.sourceID, receiveUTC: event.utc, handNMEA) }
            if completed > 0, let validData, let t = event.monotonicNanos { validData(event.sourceID, t) }
        case .fix(let external):
            if settings.useExternalFixes && settings.externalFixProviders.contains(external.provider)
                && !nmea.hasNMEA(from: event.sourceID) {
                receiverFix(external.location)
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
        output.endOfEvent()
    }

    /// Feeds raw NMEA bytes of source `sourceID` directly (replay fast path, no event allocation).
    public func feedNMEA(_ bytes: UnsafeBufferPointer<UInt8>, sourceID: Int = 0) {
        nmea.feed(bytes, sourceID: sourceID, handNMEA)
        output.endOfEvent()
    }

    private func handNMEA(_ o: NMEAStage.Output) {
        switch o {
        case .epoch(.fix(let l)): receiverFix(l)
        case .epoch(.sky(let s)): emit(.sky(s))
        case .epoch(.notice(let m)): receiverStatus(m)
        case .sentence(let bytes): emit(.sentence(bytes))
        case .rtcm3: break  // counted by the stage; kept for a later NTRIP relay
        case .integrity(let i): integrityChanged(i)
        case .lateFix(let l):
            // gpsd's raw stream shows it; a smoothed stream would step back behind its own track (counted as late).
            if !smoothing.enabled { lateFixesEmitted += 1; emit(.lateFix(l)) }
        case .receiverVersion(let v):
            let identity = ReceiverIdentity(driver: "u-blox", model: v.module, firmware: v.firmwareVersion,
                                            protocolVersion: v.value("PROTVER"), software: v.softwareVersion,
                                            hardware: v.hardwareVersion, extensions: v.extensions)
            emit(.status(StatusReport(source: "receiver", state: .available, message: "receiver " + v.summary,
                                      time: currentUTC, receiver: identity)))
        }
    }

    /// Announces a change of the receiver's jamming, spoofing or antenna state as a status event (not every
    /// change of the jamming indicator: only of the states).
    private func integrityChanged(_ i: ReceiverIntegrity) {
        var parts: [String] = []
        if i.jamming != announcedIntegrity.jamming && i.jamming != .unknown {
            parts.append("jamming \(i.jamming.rawValue)" + (i.jammingIndicator.map { " (jamInd \($0))" } ?? ""))
        }
        if i.spoofing != announcedIntegrity.spoofing && i.spoofing != .unknown {
            switch i.spoofing {
            case .none: parts.append("no spoofing indicated")
            case .indicated: parts.append("spoofing indicated")
            case .multiple: parts.append("multiple spoofing indications")
            case .unknown: break
            }
        }
        if i.antenna != announcedIntegrity.antenna && i.antenna != .unknown { parts.append("antenna \(i.antenna.rawValue)") }
        announcedIntegrity = ReceiverIntegrity(jamming: i.jamming, spoofing: i.spoofing, antenna: i.antenna)
        if !parts.isEmpty { receiverStatus(parts.joined(separator: ", ")) }
    }

    private func receiverStatus(_ message: String) {
        emit(.status(StatusReport(source: "receiver", state: .available, message: message, time: currentUTC)))
    }

    private func processMotion(_ sample: MotionSample, _ event: SensorEvent) {
        if let fix = smoothing.motion(sample, monotonicNanos: event.monotonicNanos) {
            heading.fix(output: fix)
            emit(.fix(fix))
        }
        let h = heading.motion(sample, monotonicNanos: event.monotonicNanos, sampleTimeSeconds: event.sampleTimeSeconds)
        if let r = h.refined { emit(.calibrationRefined(r)) }
        if let c = h.calibrationNeeded { emit(.calibrationNeeded(c)) }
        if let r = h.report { emit(.heading(r, accelerationMetersPerSecondSquared: h.accelerationMetersPerSecondSquared)) }
    }

    /// A receiver fix (or a no-fix epoch): to the heading stage as parsed (vehicle heading), through the smoothing
    /// stage, then to the heading stage as output (magnetic model). The two stages share no state, so the order of
    /// the calls does not matter; the heading is emitted before the fix. With smoothing off the fix goes straight on
    /// (the stage would hand it back unchanged, after copying it four times).
    private func receiverFix(_ fix: Location) {
        let report = heading.fix(parsed: fix, monotonicNanos: currentMonotonicNanos)
        guard smoothing.enabled else {
            heading.fix(output: fix)
            if let report { emit(.heading(report, accelerationMetersPerSecondSquared: nil)) }
            emit(.fix(fix))
            return
        }
        let out = smoothing.fix(fix, monotonicNanos: currentMonotonicNanos)
        if let out { heading.fix(output: out) }
        if let report { emit(.heading(report, accelerationMetersPerSecondSquared: nil)) }
        if let jump = smoothing.pendingTimeJump {
            services?.timeBaseChanged()
            // Derived from the data alone, so a replay announces it exactly as the live session did.
            emit(.status(StatusReport(source: "receiver", state: .available, message: jump.message, time: fix.receiveTime)))
        }
        if let out { emit(.fix(out)) }
    }

    /// Every output event leaves through here (private: outside events enter through `process` like source events,
    /// so a live session records them and its replay reproduces them). Not re-entrant: what an event causes (the
    /// services' events for a fix, the invalid heading and the availability for a status) is queued as follow-ups
    /// and delivered after it, in order.
    private func emit(_ event: OutputEvent) {
        deliver(event)
        var i = 0
        while i < followUps.count {
            deliver(followUps[i])
            i += 1
        }
        followUps.removeAll(keepingCapacity: true)
    }

    private func deliver(_ event: OutputEvent) {
        var event = event
        if placemark.enabled, case .fix(var l) = event {
            placemark.annotate(&l)
            event = .fix(l)
        }
        switch event {
        case .fix(let l):
            fixesEmitted += 1
            if let t = l.time { lastFixTime = t }
        case .sky: skyEmitted += 1
        case .status(let s): noteStatus(s)
        default: break
        }
        observer?(event)
        if !event.isReplacedByServices(filtersFixes: services?.filtersFixes ?? false) { output.encode(event) }
        if let services, case .fix(let l) = event { services.process(l) { followUps.append(.service($0)) } }
        output.flushIfFull()
    }

    /// A live source's availability changed: an unavailable heading source makes the heading invalid (one
    /// heading event with accuracy −1, Core Location's "invalid" heading), and the session's availability is
    /// re-announced when it changes.
    private func noteStatus(_ s: StatusReport) {
        let outcome = availability.note(s)
        if outcome.headingSourceLost, let h = heading.sourceLost() {
            followUps.append(.heading(h, accelerationMetersPerSecondSquared: nil))
        }
        if let a = outcome.availability {
            followUps.append(.availability(locationServicesEnabled: a.locationServicesEnabled, headingAvailable: a.headingAvailable))
        }
    }

    /// A read-only view of the pipeline's internal state, per stage, for diagnosis (x-io Fusion's
    /// GetInternalStates shape). Taking it changes nothing.
    public struct Snapshot: Sendable {
        public var nmea: NMEAStage.Snapshot
        public var smoothing: SmoothingStage.Snapshot
        public var heading: HeadingStage.Snapshot
        public var availability: AvailabilityStage.Snapshot
        public var placemark: PlacemarkStage.Snapshot
        public var services: LocationServicesStage.Snapshot?
        public var output: OutputStage.Snapshot
        public var fixesEmitted: Int
        public var lastFixTime: Timestamp?
        public var skyEmitted: Int
        public var eventsProcessed: Int
    }

    public var snapshot: Snapshot {
        Snapshot(nmea: nmea.snapshot, smoothing: smoothing.snapshot, heading: heading.snapshot,
                 availability: availability.snapshot, placemark: placemark.snapshot, services: services?.snapshot,
                 output: output.snapshot, fixesEmitted: fixesEmitted, lastFixTime: lastFixTime, skyEmitted: skyEmitted,
                 eventsProcessed: eventsProcessed)
    }


    public func flush() { output.flush() }

    /// End of input: emit the last cycles and flush.
    public func finish() {
        nmea.finish(handNMEA)
        services?.finish { emit(.service($0)) }
        flush()
    }

    /// Framer + parser counters over all sources.
    public var nmeaStatistics: NMEAStatistics { nmea.statistics }
    /// UBX/RTCM3 framer and decoder counters over all sources.
    public var binaryStatistics: MixedStreamStatistics { nmea.binaryStatistics }
}
