import Capture
import LocationCore
import LodestarIO
import Events
import Pipeline
import Session

/// A capture replayed the way `lodestar replay` and LodestarKit replay it: built by `SessionBuilder` and run by
/// `SessionRunner`, so the session's rules (the configuration in the capture's header, `ReferenceDate.resolve`)
/// apply and no test re-implements them. The one capture→fixes helper for every test target.
public enum SessionReplay {
    /// The session's clock date for tests: fixed, so a capture that states no date replays the same on every day.
    public static let today = CivilDate(year: 2025, month: 6, day: 1)

    /// Collects the pipeline's output events in order.
    public final class Collector: OutputEventConsumer {
        public private(set) var events: [OutputEvent] = []
        public init() {}
        public func consume(_ event: OutputEvent) { events.append(event) }
        public var fixes: [Location] { events.compactMap { if case .fix(let l) = $0 { l } else { nil } } }
    }

    /// Runs the capture at `path` through a session; returns the runner (its `pipeline` and `effectiveConfiguration`
    /// describe the run) and every output event.
    @discardableResult
    public static func run(_ path: String, settings: Pipeline.Settings = Pipeline.Settings(),
                           configuration: SessionConfiguration = SessionConfiguration(), today: CivilDate = today,
                           lineEvents: Bool = false, encoder: any OutputEncoder = LodestarJSONEncoder(),
                           sinks: [any OutputSink] = []) throws -> (runner: SessionRunner, events: [OutputEvent]) {
        let reader = try CaptureDetector.open(path: path, format: nil, lineEvents: lineEvents)
        let collector = Collector()
        var builder = SessionBuilder()  // the one session builder, as the CLI and LodestarKit build a replay
        builder.settings = settings
        builder.configuration = configuration
        builder.encoder = encoder
        builder.sinks = sinks
        builder.consumers = [collector]
        let runner = builder.replay(today: today)
        try runner.run(.capture(reader))
        return (runner, collector.events)
    }

    /// The fixes of a capture, in order (see `run`).
    public static func fixes(_ path: String, settings: Pipeline.Settings = Pipeline.Settings(),
                             configuration: SessionConfiguration = SessionConfiguration(),
                             today: CivilDate = today) throws -> [Location] {
        try run(path, settings: settings, configuration: configuration, today: today).events
            .compactMap { if case .fix(let l) = $0 { l } else { nil } }
    }

    /// The receiver's fixes as parsed, the input smoothing is evaluated on: no smoothing, heading or sky; only fixes
    /// with a position and a time. `horizontalUEREMeters` replaces the epoch assembler's UERE (HDOP × UERE = the 68 %
    /// radius); `today` is the reference date when the capture states none.
    public static func receiverFixes(_ path: String, horizontalUEREMeters: Double? = nil,
                                     today: CivilDate = today) throws -> [Location] {
        var settings = Pipeline.Settings()
        settings.nmea.emitSky = false
        settings.heading.heading = nil
        settings.smoothing.smoothing = nil
        if let u = horizontalUEREMeters { settings.nmea.epoch.horizontalUEREMeters = u }
        return try fixes(path, settings: settings, today: today).filter { $0.latitudeDegrees != nil && $0.time != nil }
    }

    /// What the encoder wrote for a capture (see `run`).
    public static func output(_ path: String, settings: Pipeline.Settings = Pipeline.Settings(),
                              encoder: any OutputEncoder, today: CivilDate = today) throws -> String {
        let sink = MemorySink()
        try run(path, settings: settings, today: today, encoder: encoder, sinks: [sink])
        return sink.text
    }
}
