import Events
import LodestarIO
import Capture
import Devices
import LocationCore
import LocationServices
import Pipeline

/// The one session: an event source (a capture reader, or the live queue fed by devices), the pipeline, and its
/// outputs (the encoder's sinks plus any `OutputEventConsumer`s). `lodestar replay`, `run`, `record` and
/// LodestarKit's `LocationManager` all run through it, so a live session and the replay of its capture take
/// the same path: the same configuration rule, the same reference date, the same pipeline.
public final class SessionRunner {
    public enum Input {
        case capture(any CaptureReader)
        case live(LiveEventQueue)
    }

    /// Pipeline settings from the command line / API (the session configuration is applied on top).
    public var settings: Pipeline.Settings
    /// What the command line (or API) said explicitly; for a capture, it overrides the capture's header.
    public var configuration: SessionConfiguration
    /// The session's clock date: the reference date when neither the capture nor the caller gives one.
    public var today: CivilDate
    public var encoder: any OutputEncoder
    public var sinks: [any OutputSink]
    public var consumers: [any OutputEventConsumer] = []
    public var services: LocationServicesStage?
    /// Replay pace (1 = recorded pace); nil: as fast as possible. Ignored for live input.
    public var speed: Double?
    /// Live sessions: every event is recorded here before the pipeline sees it.
    public var recorder: CaptureRecorder?
    /// Outside events (MQTT, a broken output, other services' statuses): they enter the input like source events.
    public var inbox: SessionInbox?

    /// The pipeline of the last run (nil until the first event).
    public private(set) var pipeline: Pipeline?
    /// The configuration in effect for the last run (command line over capture header).
    public private(set) var effectiveConfiguration = SessionConfiguration()

    public init(settings: Pipeline.Settings, configuration: SessionConfiguration = SessionConfiguration(), today: CivilDate,
                encoder: any OutputEncoder, sinks: [any OutputSink]) {
        self.settings = settings
        self.configuration = configuration
        self.today = today
        self.encoder = encoder
        self.sinks = sinks
    }

    /// Runs until the input ends, `shouldStop` returns true, or every sink is broken. Only I/O errors of the
    /// capture being read or written and a configuration value that does not parse (command line or capture
    /// header) throw; the pipeline is finished (outputs flushed) either way.
    public func run(_ input: Input, shouldStop: () -> Bool = { false }) throws(SessionError) {
        switch input {
        case .capture(let reader): try runCapture(reader, shouldStop: shouldStop)
        case .live(let queue): try runLive(queue, shouldStop: shouldStop)
        }
    }

    private func makePipeline(header: SessionConfiguration) throws(SessionError) -> Pipeline {
        var effective = configuration.overriding(header)
        effective.referenceDate = ReferenceDate.resolve(header: header.referenceDate, explicit: configuration.referenceDate,
                                                        today: today)
        effectiveConfiguration = effective
        var s = settings
        do { try effective.apply(to: &s) } catch { throw .configuration(error) }
        let p = Pipeline(settings: s, encoder: encoder, sinks: sinks)
        p.services = services
        let consumers = self.consumers
        if !consumers.isEmpty { p.observer = { e in for c in consumers { c.consume(e) } } }
        pipeline = p
        return p
    }

    private func finish(_ p: Pipeline?) {
        p?.finish()
        for c in consumers { c.finish() }
    }

    private func runCapture(_ reader: any CaptureReader, shouldStop: () -> Bool) throws(SessionError) {
        var pacer = Pacer(speed: speed)
        var p: Pipeline?
        do throws(SessionError) {
            while !shouldStop(), let event = try Self.next(reader) {
                let pipeline: Pipeline
                if let p { pipeline = p } else { pipeline = try makePipeline(header: SessionConfiguration(header: reader.header)) }
                p = pipeline
                pacer.wait(for: event, lastFixTime: pipeline.lastFixTime)
                if let inbox {
                    for status in inbox.take() { pipeline.process(SensorEvent(payload: .status(status))) }
                }
                pipeline.process(event)
                if pipeline.allSinksBroken { break }
            }
        } catch {
            finish(p)
            throw error
        }
        finish(p)
    }

    private static func next(_ reader: any CaptureReader) throws(SessionError) -> SensorEvent? {
        do { return try reader.next() } catch { throw .capture(error) }
    }

    private func runLive(_ queue: LiveEventQueue, shouldStop: () -> Bool) throws(SessionError) {
        let p: Pipeline
        do { p = try makePipeline(header: SessionConfiguration()) } catch {
            try? recorder?.close()
            throw error
        }
        inbox?.attach(queue)
        // The pipeline frames every receiver chunk; the sources learn from it that their data is valid.
        p.validData = { [queue] id, t in queue.noteValidData(sourceID: id, monotonicNanos: t) }
        queue.start()
        var failure: CaptureError?
        loop: while true {
            if shouldStop() || p.allSinksBroken { queue.stop() }
            switch queue.next() {
            case .event(let e):
                if let recorder, failure == nil {
                    do { try recorder.record(e) } catch { failure = error; queue.stop() }
                }
                p.process(e)
            case .idle:
                p.flush()
                if let recorder, failure == nil {
                    do { try recorder.flush() } catch { failure = error; queue.stop() }
                }
            case .finished:
                break loop
            }
        }
        finish(p)
        if let recorder {
            do { try recorder.close() } catch { if failure == nil { failure = error } }
        }
        if let failure { throw .capture(failure) }
    }
}

/// Why a session ended with an error: the capture being read or written failed, or a configuration value (from the
/// command line, the API or the capture's header) does not parse.
public enum SessionError: Error, Sendable, Equatable, CustomStringConvertible {
    case capture(CaptureError)
    case configuration(SessionConfigurationError)

    public var description: String {
        switch self {
        case .capture(let e): e.description
        case .configuration(let e): e.description
        }
    }
}
