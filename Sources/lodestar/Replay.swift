import ArgumentParser
import Capture
import CLinux
import Devices
import Events
import LocationCore
import LodestarIO
import NMEA
import NetworkOutput
import Pipeline
import Session
#if canImport(Glibc)
import Glibc
#endif

struct OutputOptions: ParsableArguments {
    @Option(name: .long, help: "Output format: json (Lodestar JSON lines), gpsd (gpsd-compatible TPV/SKY JSON) or nmea (RMC+GGA).")
    var output: OutputFormat = .json

    @Option(name: .long, help: ArgumentHelp("Also write output into this FIFO (created with mode 0660 if missing). Never blocks: lines are dropped and counted while no reader is attached.", valueName: "path"))
    var fifo: String?

    @Flag(name: .long, help: "Write only to the FIFO, not to standard output (requires --fifo).")
    var fifoOnly = false

    @Flag(name: .long, help: "Do not emit satellite (sky) events.")
    var noSky = false

    @Flag(name: .long, help: "Attach the offline geocoder's placemark (country, admin areas, locality, time zone) to each JSON fix; recomputed only after 100 m of movement.")
    var placemark = false

    @Flag(name: .long, help: "Pass proprietary ($P…) and unsupported sentences through (as `nmea` events in JSON, verbatim in NMEA output).")
    var passthrough = false

    @Option(name: .long, help: ArgumentHelp("Serve a live page (position, accuracy, heading cone, track, satellites, availability; read-only, WebSocket) on [ADDR:]PORT, bound to 127.0.0.1 unless ADDR is given. After a replay the page stays until interrupted.", valueName: "addr:port"))
    var http: String?

    func validate() throws {
        if fifoOnly && fifo == nil { throw ValidationError("--fifo-only needs --fifo PATH") }
    }
}

extension OutputFormat: ExpressibleByArgument {}
extension CaptureFormat: ExpressibleByArgument {}

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay capture files through the same pipeline as live input.",
        discussion: """
        Formats are detected from the content (override with --format): Lodestar captures (#!lodestar-capture), \
        NMEA logs (including gpsd test logs whose '# Date:' header resolves 2-digit years and GPS week \
        rollover), Android GnssLogger logs, and IMU CSV files. Corrupt records are counted and skipped; a \
        summary of records read, accepted and rejected by reason goes to standard error at the end.

        Examples:
          lodestar replay captures/simulated-drive.lcap
          lodestar replay --output gpsd receiver.nmea        # gpsd TPV/SKY objects for gpsd clients
          lodestar replay --realtime --fifo /run/lodestar/fix captures/simulated-drive.lcap
        """)

    @Argument(help: ArgumentHelp("Capture files to replay, in order ('-' reads NMEA from standard input).", valueName: "file"))
    var files: [String]

    @Option(name: .long, help: "Input format instead of detecting it: lodestar, nmea, gnsslogger, imu-csv.")
    var format: CaptureFormat?

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var headingOptions: HeadingOptions
    @OptionGroup var smoothingOptions: SmoothingOptions
    @OptionGroup(title: "Location services") var serviceOptions: ServiceOptions
    @OptionGroup(title: "Network outputs") var serveOptions: ServeOptions

    @Option(name: .long, help: ArgumentHelp("With --serve/--serve-nmea/--service: wait for this many clients to watch (gpsd ?WATCH enabled, NMEA or service clients connected) before replaying.", valueName: "n"))
    var waitClients = 0

    @Option(name: .long, help: ArgumentHelp("With --serve/--serve-nmea/--service: keep serving this many seconds after the end of the capture (clients keep the last state).", valueName: "seconds"))
    var linger: Double = 0

    @OptionGroup(title: "MQTT (docs/fleet.md)") var mqttOptions: MQTTOptions

    @Flag(name: .long, help: "Replay at recorded pace (same as --speed 1).")
    var realtime = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Replay at this multiple of recorded pace (e.g. 10). Default: as fast as possible.", valueName: "factor"))
    var speed: Double?

    @Flag(name: .long, help: "Accept NMEA sentences without a checksum (a wrong checksum is always rejected).")
    var lenient = false

    @Option(name: .long, help: ArgumentHelp("Date (YYYY-MM-DD) near the recording, for 2-digit years and GPS week rollover, when the capture has no '# Date:' header. Default: today.", valueName: "date"))
    var referenceDate: String?

    @Flag(name: .long, help: "Do not print the summary on standard error.")
    var quiet = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one capture file (try: lodestar replay captures/simulated-drive.lcap)") }
        if let s = speed, !(s > 0 && s.isFinite) { throw ValidationError("--speed must be a positive number") }
        if realtime && speed != nil { throw ValidationError("use either --realtime or --speed, not both") }
        if let d = referenceDate, parseISODate(d) == nil { throw ValidationError("--reference-date must be YYYY-MM-DD, got '\(d)'") }
        if waitClients < 0 || !(linger >= 0 && linger.isFinite) { throw ValidationError("--wait-clients and --linger must not be negative") }
        if let h = outputOptions.http, LiveHTTP.parse(h) == nil { throw ValidationError("--http must be PORT or ADDR:PORT, got '\(h)'") }
    }

    func run() throws {
        clinux_install_stop_handlers()
        clinux_ignore_sigpipe()
        let (sinks, fifo) = try makeSinks(outputOptions)
        // Network outputs (docs/gpsd-compatibility.md): servers start before the replay; unpaced, the replay keeps
        // pace with its clients.
        let readers = try openReaders()
        let network = try serveOptions.start(device: Self.deviceName(readers[0]))
        if let network {
            network.pacesWithClients = !realtime && speed == nil
            network.filtersFixes = (try serviceOptions.makeStage())?.filtersFixes ?? false
            if let server = network.gpsd ?? network.nmea ?? network.events, waitClients > 0 {
                server.waitForWatchers(waitClients) { clinux_stop_requested() != 0 }
            }
        }
        try replay(sinks: sinks, fifo: fifo, consumers: try makeConsumers(outputOptions) + (network.map { [$0] } ?? []), readers: readers)
        if let network {
            let end = clinux_monotonic_ns() + Int64(linger * 1e9)
            while clinux_stop_requested() == 0 && clinux_monotonic_ns() < end { _ = clinux_sleep_ns(20_000_000) }
            network.shutdown()
            if !quiet { ServeOptions.summarize(network) }
        }
        LiveHTTP.lingerUntilStopped(quiet: quiet)
        let sig = clinux_stop_requested()
        if sig != 0 { throw ExitCode(128 + sig) }
        if let failed = failedSink(sinks), let f = failed.failure { throw CommandFailure(f.description, code: Exit.ioError) }
    }

    /// gpsd's `device` in a replay: the receiver's device recorded in a Lodestar capture's header (so a live session
    /// and the replay of its capture print the same bytes), else the file's name.
    /// The header is read from the already opened reader (never by opening the path again: a pipe, `-` or a named
    /// pipe cannot be read twice).
    static func deviceName(_ input: (file: String, reader: any CaptureReader)) -> String {
        if let reader = input.reader as? LodestarCaptureReader {
            reader.readHeader()
            if let device = reader.sources.values.sorted(by: { $0.id < $1.id })
                .first(where: { $0.attributes["kind"] == "nmea" || $0.attributes["kind"] == "gpsd" })?.attributes["device"] {
                return device
            }
        }
        if input.file == "-" { return "stdin" }
        return input.file.split(separator: "/").last.map(String.init) ?? input.file
    }

    /// Opens every file first, so a bad argument fails before any output.
    func openReaders() throws -> [(file: String, reader: any CaptureReader)] {
        let pace = realtime ? 1.0 : speed
        var readers: [(file: String, reader: any CaptureReader)] = []
        for file in files {
            do {
                readers.append((file, try CaptureDetector.open(path: file, format: format, lineEvents: pace != nil)))
            } catch {
                throw CommandFailure(error.description, code: Exit.code(for: error))
            }
        }
        return readers
    }

    /// The replay itself (separate from `run()` so tests drive it in-process with their own sinks).
    func replay(sinks: [any OutputSink], fifo: FIFOSink?, consumers: [any OutputEventConsumer],
                readers opened: [(file: String, reader: any CaptureReader)]? = nil) throws {
        let readers = try opened ?? openReaders()
        let pace = realtime ? 1.0 : speed
        let device = Self.deviceName(readers[0])
        let today = CivilDate(daysSinceEpochFromClock: clinux_realtime_ns())
        var totals = ReplaySummary()
        let services = try serviceOptions.makeStage()
        let inbox = SessionInbox()
        let mqtt = try mqttOptions.start(filtersFixes: services?.filtersFixes ?? false,
                                         onStatus: postingStatuses(to: inbox, echo: !quiet))
        var builder = try SessionBuilder(output: outputOptions, heading: headingOptions, smoothing: smoothingOptions,
                                         services: services,
                                         encoder: makeEncoder(outputOptions.output, device: device,
                                                              headingTalker: serveOptions.headingTalker),
                                         sinks: sinks, consumers: consumers + (mqtt.map { [$0] } ?? []), inbox: inbox,
                                         today: today)
        // What the command line says explicitly overrides the capture's recorded session configuration.
        if lenient { builder.configuration.lenient = true }
        builder.configuration.referenceDate = referenceDate.flatMap(parseISODate)
        // --platform left at its default leaves the capture's recorded platform in force.
        if headingOptions.platform != "automatic" { builder.configuration.platform = headingOptions.platform }
        for (file, reader) in readers {
            let session = builder.replay(today: today, speed: pace)
            do {
                try session.run(.capture(reader), shouldStop: { clinux_stop_requested() != 0 || failedSink(sinks) != nil })
            } catch {
                throw CommandFailure(error.description, code: Exit.code(for: error))
            }
            try headingOptions.saveState(session.pipeline)
            let summary = ReplaySummary(file: file, reader: reader, pipeline: session.pipeline)
            if !quiet { printError(summary.line(prefix: "lodestar: \(file)")) }
            totals.add(summary)
            if clinux_stop_requested() != 0 || (session.pipeline?.allSinksBroken ?? false) || failedSink(sinks) != nil { break }
        }
        try serviceOptions.saveState(services)
        let mqttComplete = mqtt?.finish(quiet: quiet) ?? true
        if let fifo {
            if !quiet && fifo.droppedLines > 0 {
                printError("lodestar: FIFO \(fifo.path): \(fifo.droppedLines) lines dropped while no reader was attached or the pipe was full")
            }
            fifo.close()
        }
        if !quiet && readers.count > 1 { printError(totals.line(prefix: "lodestar: total")) }
        if !mqttComplete && clinux_stop_requested() == 0 { throw ExitCode(Exit.unavailable) }
    }
}

extension CivilDate {
    init(daysSinceEpochFromClock ns: Int64) {
        self.init(daysSince1970: Int(ns / 86_400_000_000_000))
    }
}

