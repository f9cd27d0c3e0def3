import ArgumentParser
import Capture
import CLinux
import Devices
import LocationCore
import NMEA
import Pipeline
#if canImport(Glibc)
import Glibc
#endif

/// Builds live sources from specs; a bad spec is a usage error (exit 64).
enum SourceFactory {
    static func make(gps: [String], imu: [String], mounting: String?, gpsdMode: GPSDSource.Mode) throws -> [any LiveSource] {
        var sources: [any LiveSource] = []
        for (i, text) in gps.enumerated() {
            do {
                let spec = try DeviceSpec(parsing: text)
                sources.append(spec.makeSource(name: "gps\(i)", gpsdMode: gpsdMode))
            } catch {
                throw ValidationError("--gps \(text): \(error.description)")
            }
        }
        for (i, text) in imu.enumerated() {
            sources.append(try imuSource(text, name: "imu\(i)"))
        }
        return sources
    }

    /// `i2c:BUS:ADDRESS[:CHIP]` or `iio:DEVICE`.
    static func imuSource(_ text: String, name: String) throws -> any LiveSource {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch parts.first {
        case "i2c":
            guard parts.count == 3 || parts.count == 4, let bus = Int(parts[1]), bus >= 0,
                  let address = parseAddress(parts[2]) else {
                throw ValidationError("--imu \(text): expected i2c:BUS:ADDRESS[:CHIP], e.g. i2c:1:0x1e")
            }
            var chip: I2CChip?
            if parts.count == 4 {
                guard let c = I2CChip(name: parts[3]) else {
                    throw ValidationError("--imu \(text): unknown chip '\(parts[3])'")
                }
                chip = c
            }
            return I2CSensorSource(name: name, busNumber: bus, address: address, chip: chip)
        case "iio":
            let device = parts.dropFirst().joined(separator: ":")
            guard !device.isEmpty else { throw ValidationError("--imu \(text): expected iio:deviceN or iio:NAME") }
            return IIOSource(name: name, device: device)
        default:
            throw ValidationError("--imu \(text): expected i2c:BUS:ADDRESS[:CHIP] or iio:deviceN")
        }
    }

    static func parseAddress(_ s: String) -> UInt16? {
        let v = s.lowercased().hasPrefix("0x") ? UInt16(s.dropFirst(2), radix: 16) : UInt16(s)
        guard let v, v >= 0x03, v <= 0x77 else { return nil }
        return v
    }
}

extension GPSDSource.Mode: ExpressibleByArgument {}

/// Makes the stdout/FIFO sinks shared by replay and run.
func makeSinks(_ options: OutputOptions) -> (sinks: [any OutputSink], fifo: FIFOSink?) {
    var sinks: [any OutputSink] = []
    if !options.fifoOnly { sinks.append(FileDescriptorSink(fd: 1)) }
    var fifo: FIFOSink?
    if let path = options.fifo {
        do { fifo = try FIFOSink(path: path) } catch {
            fail(error.description, code: error.isPermissionDenied ? Exit.permission : Exit.cannotCreate)
        }
        if let fifo { sinks.append(fifo) }
    }
    return (sinks, fifo)
}

/// Counts what a live session produced, for the end summary.
final class SessionCounter {
    var fixes = 0
    var statuses = 0
    func observe(_ e: OutputEvent, echoStatus: Bool) {
        switch e {
        case .fix: fixes += 1
        case .status(let s):
            statuses += 1
            if echoStatus { printError("lodestar: \(s.source): \(s.state.rawValue)" + (s.message.map { " — \($0)" } ?? "")) }
        default: break
        }
    }
}

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the live pipeline: GNSS receivers (serial or gpsd) and motion sensors (I2C or IIO) to stdout or a FIFO.",
        discussion: """
        The same pipeline as replay, fed by live sources, each on its own thread. Sources that fail (unplugged, \
        gpsd restarted, I2C errors) report `status` events, retry with backoff and resume; the rest keeps running. \
        SIGINT/SIGTERM flush and close outputs and captures.

        Examples:
          lodestar run --gps /dev/ttyACM0@9600
          lodestar run --gps gpsd://localhost:2947 --output gpsd --fifo /run/lodestar/tpv
          lodestar run --gps /dev/gps0 --imu i2c:1:0x1e --record session.lcap
          lodestar run --config /etc/lodestar.conf
        """)

    @OptionGroup var live: LiveOptions
    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var headingOptions: HeadingOptions
    @OptionGroup var smoothingOptions: SmoothingOptions
    @OptionGroup(title: "Location services") var serviceOptions: ServiceOptions

    @Option(name: .long, help: "With gpsd://: relay gpsd's raw NMEA (nmea, default; parsed by Lodestar) or take gpsd's own fixes (json).")
    var gpsdMode: GPSDSource.Mode = .nmea

    @Option(name: .long, help: ArgumentHelp("Also record every raw event into this Lodestar capture.", valueName: "file"))
    var record: String?

    @Flag(name: .long, help: "Do not echo source status changes and the summary on standard error.")
    var quiet = false

    func run() throws {
        clinux_install_stop_handlers()
        clinux_ignore_sigpipe()
        let resolved = try live.resolved()
        let sources = try SourceFactory.make(gps: resolved.gps, imu: resolved.imu, mounting: resolved.mounting, gpsdMode: gpsdMode)
        var options = outputOptions
        if options.fifo == nil, let f = resolved.settings["fifo"] { options.fifo = f }
        if let o = resolved.settings["output"], options.output == .json {
            guard let format = OutputFormat(rawValue: o) else { throw ValidationError("config: output must be json, gpsd or nmea") }
            options.output = format
        }
        let (sinks, fifo) = makeSinks(options)
        let live = LiveHTTP.start(options.http)
        var settings = Pipeline.Settings()
        settings.emitSky = !options.noSky
        settings.passthrough = options.passthrough
        settings.flushEveryEvent = true
        settings.referenceDate = CivilDate(daysSinceEpochFromClock: clinux_realtime_ns())
        settings.externalFixProviders.insert("gpsd")
        headingOptions.apply(to: &settings, today: CivilDate(daysSinceEpochFromClock: clinux_realtime_ns()))
        try smoothingOptions.apply(to: &settings)
        if options.placemark { settings.placemarkProvider = PlacemarkOption.provider() }
        settings.locationSourceNames = Set(sources.map(\.name).filter { $0.hasPrefix("gps") })
        settings.headingSourceNames = Set(sources.map(\.name).filter { $0.hasPrefix("imu") })
        let pipeline = Pipeline(settings: settings, encoder: makeEncoder(options.output), sinks: sinks)
        pipeline.services = serviceOptions.makeStage()
        let counter = SessionCounter()
        let echo = !quiet
        pipeline.observer = { counter.observe($0, echoStatus: echo); live?.hub.observe($0) }
        var recorder: CaptureWriter?
        if let record {
            do {
                recorder = try CaptureWriter(path: record)
                try recorder?.writeHeader(LiveRunner.captureHeader(sources: sources, extra: mountingHeader(resolved.mounting)))
            } catch {
                fail(error.description, code: Exit.cannotCreate)
            }
        }
        let runner = LiveRunner(sources: sources, pipeline: pipeline, recorder: recorder)
        do { try runner.run() } catch { fail(error.description, code: Exit.ioError) }
        serviceOptions.saveState(pipeline.services)
        fifo?.close()
        live?.server.stop()
        if !quiet {
            var line = "lodestar: run: \(counter.fixes) fixes"
            if let fifo, fifo.droppedLines > 0 { line += ", \(fifo.droppedLines) FIFO lines dropped (no reader or pipe full)" }
            if runner.dropped > 0 { line += ", \(runner.dropped) events dropped (pipeline behind)" }
            printError(line)
        }
        let sig = clinux_stop_requested()
        if sig != 0 { throw ExitCode(128 + sig) }
    }
}

func mountingHeader(_ mounting: String?) -> [(key: String, value: String)] {
    mounting.map { [("mounting", "axes=\($0)")] } ?? []
}

struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record live sources into a Lodestar capture (every raw event with its timestamps), for replay.",
        discussion: """
        The capture holds NMEA bytes exactly as received and raw sensor counts with their scale, plus a header with \
        the sources, the clock pairing and the mounting; `lodestar replay FILE` reproduces the live output. \
        Records are written as whole lines: SIGINT/SIGTERM never leave a truncated record.

        Example: lodestar record --gps /dev/ttyACM0@38400 --imu i2c:1:0x1e drive.lcap
        """)

    @Argument(help: ArgumentHelp("The capture to write.", valueName: "file"))
    var output: String

    @OptionGroup var live: LiveOptions

    @Option(name: .long, help: "With gpsd://: nmea (default; recorded raw) or json (gpsd's fixes; not recorded: use nmea to record).")
    var gpsdMode: GPSDSource.Mode = .nmea

    @Option(name: .long, help: ArgumentHelp("Stop after this many seconds (default: until SIGINT/SIGTERM).", valueName: "seconds"))
    var duration: Double?

    @Flag(name: .long, help: "Do not echo source status changes on standard error.")
    var quiet = false

    func validate() throws {
        if let d = duration, !(d > 0 && d.isFinite) { throw ValidationError("--duration must be a positive number of seconds") }
    }

    func run() throws {
        clinux_install_stop_handlers()
        clinux_ignore_sigpipe()
        let resolved = try live.resolved()
        let sources = try SourceFactory.make(gps: resolved.gps, imu: resolved.imu, mounting: resolved.mounting, gpsdMode: gpsdMode)
        let writer: CaptureWriter
        do {
            writer = try CaptureWriter(path: output)
            try writer.writeHeader(LiveRunner.captureHeader(sources: sources, extra: mountingHeader(resolved.mounting)))
        } catch {
            fail(error.description, code: error == .permissionDenied(path: output) ? Exit.permission : Exit.cannotCreate)
        }
        var settings = Pipeline.Settings()
        settings.referenceDate = CivilDate(daysSinceEpochFromClock: clinux_realtime_ns())
        let pipeline = Pipeline(settings: settings, encoder: LodestarJSONEncoder(), sinks: [])
        let counter = SessionCounter()
        let echo = !quiet
        pipeline.observer = { counter.observe($0, echoStatus: echo) }
        let runner = LiveRunner(sources: sources, pipeline: pipeline, recorder: writer)
        let deadline = duration.map { clinux_monotonic_ns() + Int64($0 * 1e9) }
        do {
            try runner.run(shouldStop: { deadline.map { clinux_monotonic_ns() >= $0 } ?? false })
        } catch {
            fail(error.description, code: Exit.ioError)
        }
        if !quiet { printError("lodestar: record: \(output): \(counter.fixes) fixes seen") }
        let sig = clinux_stop_requested()
        if sig != 0 { throw ExitCode(128 + sig) }
    }
}
