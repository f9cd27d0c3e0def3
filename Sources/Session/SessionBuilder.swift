import Capture
import Devices
import Events
import LocationCore
import LocationServices
import LodestarIO
import Pipeline

/// The one way a session is built, for a replay and a live run alike: `lodestar replay`, `run` and `record`,
/// LodestarKit's `LocationManager` and the tests all say what they want here and get a `SessionRunner` wired the
/// same way (settings, configuration rule, outputs, services, outside events, recorder).
public struct SessionBuilder {
    /// The stages' settings from the command line / API (the session configuration is applied on top).
    public var settings = Pipeline.Settings()
    /// What the command line / API said explicitly: over a capture's header in a replay; in a live session the
    /// sources' roles, gpsd's fixes and the clock's date are added (`SessionConfiguration.live`).
    public var configuration = SessionConfiguration()
    public var encoder: any OutputEncoder = LodestarJSONEncoder()
    public var sinks: [any OutputSink] = []
    public var consumers: [any OutputEventConsumer] = []
    public var services: LocationServicesStage?
    /// Outside events (MQTT statuses, a broken output): they enter the session's input.
    public var inbox: SessionInbox?

    public init() {}

    private func runner(settings: Pipeline.Settings, configuration: SessionConfiguration, today: CivilDate) -> SessionRunner {
        let session = SessionRunner(settings: settings, configuration: configuration, today: today, encoder: encoder, sinks: sinks)
        session.services = services
        session.consumers = consumers
        session.inbox = inbox
        return session
    }

    /// A replay of captures: `today` is the reference date when neither the capture nor the configuration gives
    /// one; `speed` nil replays as fast as possible with output in blocks, a pace flushes after every event.
    public func replay(today: CivilDate, speed: Double? = nil) -> SessionRunner {
        var s = settings
        if speed != nil { s.output.flushEveryEvent = true }
        let session = runner(settings: s, configuration: configuration, today: today)
        session.speed = speed
        return session
    }

    /// A live session on `queue`: output flushed after every event; recorded into a new capture at `record` (its
    /// header: the sources, the clock pairing and the session configuration) when given.
    public func live(queue: LiveEventQueue, record: String? = nil) throws(CaptureError) -> SessionRunner {
        var s = settings
        s.output.flushEveryEvent = true
        let live = liveConfiguration(queue)
        let session = runner(settings: s, configuration: live, today: queue.clock.date)
        if let record {
            session.recorder = try CaptureRecorder(path: record, sourceHeader: queue.captureHeader(), configuration: live)
        }
        return session
    }

    /// The configuration a live session on `queue` records: what was said explicitly, plus the sources' roles.
    public func liveConfiguration(_ queue: LiveEventQueue) -> SessionConfiguration {
        var live = SessionConfiguration.live(sourceNames: queue.sources.map(\.name), mounting: configuration.mounting,
                                             lenient: configuration.lenient ?? false,
                                             calibration: configuration.calibration, clock: queue.clock)
        live.platform = configuration.platform
        return live
    }
}
