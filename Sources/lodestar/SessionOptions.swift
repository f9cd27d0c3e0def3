import Events
import LocationCore
import LocationServices
import LodestarIO
import Pipeline
import Session

extension SessionBuilder {
    /// The session that the output, heading and smoothing options describe — the one wiring `replay` and `run`
    /// share. Each command then adds what only it says (lenient framing, the reference date, the platform).
    init(output: OutputOptions, heading: HeadingOptions, smoothing: SmoothingOptions, services: LocationServicesStage?,
         encoder: any OutputEncoder, sinks: [any OutputSink], consumers: [any OutputEventConsumer],
         inbox: SessionInbox?, today: CivilDate) throws {
        self.init()
        settings.nmea.emitSky = !output.noSky
        settings.nmea.passthrough = output.passthrough
        try heading.apply(to: &settings, today: today)
        try smoothing.apply(to: &settings)
        if output.placemark { settings.placemark.provider = try PlacemarkOption.provider() }
        if heading.calibration != nil { configuration.calibration = settings.heading.calibration }
        configuration.mounting = heading.sensorMounting
        self.services = services
        self.encoder = encoder
        self.sinks = sinks
        self.consumers = consumers
        self.inbox = inbox
    }
}

/// Outside statuses (the MQTT publisher's) into the session's inbox, echoed on stderr when `echo` (a replay has
/// no status echo of its own).
func postingStatuses(to inbox: SessionInbox, echo: Bool) -> @Sendable (StatusReport) -> Void {
    { s in
        if echo { printError("lodestar: \(s.source): \(s.state.rawValue)" + (s.message.map { " — \($0)" } ?? "")) }
        inbox.post(s)
    }
}
