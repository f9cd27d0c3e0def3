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
import UBX
#if canImport(Glibc)
import Glibc
#endif

/// Builds live sources from specs; a bad spec is a usage error (exit 64).
enum SourceFactory {
    static func make(gps: [String], imu: [String], gpsdMode: GPSDSource.Mode, receiver: ReceiverSettings? = nil) throws -> [any LiveSource] {
        var sources: [any LiveSource] = []
        for (i, text) in gps.enumerated() {
            do {
                let spec = try DeviceSpec(parsing: text)
                if case .serial(let path, _) = spec, let type = Syscall.fileType(path), type == S_IFREG || type == S_IFDIR {
                    // Retrying "Inappropriate ioctl for device" for ever helps nobody: say what to do instead.
                    throw ValidationError("--gps \(text): \(path) is a \(type == S_IFREG ? "regular file" : "directory"), "
                                          + "not a serial device; to read a recorded log use: lodestar replay \(path)")
                }
                if case .serial(let path, let baud) = spec, let receiver {
                    // Receiver settings are applied at every open of the port (docs/receiver.md).
                    var settings = SerialSource.Settings()
                    settings.receiver = receiver
                    sources.append(SerialSource(name: "gps\(i)", path: path, baud: baud, settings: settings))
                } else {
                    sources.append(spec.makeSource(name: "gps\(i)", gpsdMode: gpsdMode))
                }
            } catch let error as DeviceSpecError {
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

/// Makes the stdout/FIFO sinks shared by replay and run. Live, standard output never blocks the pipeline: lines
/// that do not fit wait in a bounded queue (`liveQueueBytes`) that drops the oldest.
func makeSinks(_ options: OutputOptions, live: Bool = false) throws -> (sinks: [any OutputSink], fifo: FIFOSink?) {
    var sinks: [any OutputSink] = []
    if !options.fifoOnly { sinks.append(FileDescriptorSink(fd: 1, mode: live ? .live(maximumQueuedBytes: liveQueueBytes) : .filter)) }
    var fifo: FIFOSink?
    if let path = options.fifo {
        do { fifo = try FIFOSink(path: path) } catch {
            throw CommandFailure(error.description, code: error.isPermissionDenied ? Exit.permission : Exit.cannotCreate)
        }
        if let fifo { sinks.append(fifo) }
    }
    return (sinks, fifo)
}

/// The live standard-output queue: 256 KB of whole lines (about 1,000 fixes) before the oldest are dropped.
let liveQueueBytes = 256 * 1024

/// The first sink whose write failed (not a reader that left), for exit 74.
func failedSink(_ sinks: [any OutputSink]) -> (any OutputSink)? { sinks.first { $0.failure != nil } }

/// Reports newly failed sinks once each: on stderr and as a `status` event on the outputs that still work.
final class SinkWatcher {
    let sinks: [any OutputSink]
    private var reported = Set<ObjectIdentifier>()
    init(sinks: [any OutputSink]) { self.sinks = sinks }

    /// The status enters the session's input through `inbox` (recorded like every other status).
    func check(inbox: SessionInbox?, echo: Bool) {
        for s in sinks {
            guard let f = s.failure, !reported.contains(ObjectIdentifier(s)) else { continue }
            reported.insert(ObjectIdentifier(s))
            printError("lodestar: \(f.description)")
            inbox?.post(StatusReport(source: "output", state: .unavailable, message: f.description))
        }
    }

    /// Every sink is broken: nothing can be delivered any more.
    var allBroken: Bool { !sinks.isEmpty && sinks.allSatisfy(\.isBroken) }
}

/// Counts what a live session produced, for the end summary, and echoes status changes on stderr.
final class SessionCounter: OutputEventConsumer {
    var fixes = 0
    var statuses = 0
    /// The receivers' binary traffic (UBX messages by class, RTCM3 frames, checksum errors), for the end summary.
    var binary = MixedStreamStatistics()
    let echoStatus: Bool
    init(echoStatus: Bool) { self.echoStatus = echoStatus }
    func consume(_ e: OutputEvent) {
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
        commandName: "run",
        abstract: "Run the live pipeline: GNSS receivers (serial or gpsd) and motion sensors (I2C or IIO) to stdout or a FIFO.",
        discussion: """
        The same session as replay, fed by live sources, each on its own thread. Sources that fail (unplugged, \
        gpsd restarted, I2C errors) report `status` events, retry with backoff and resume; the rest keeps running. \
        SIGINT/SIGTERM flush and close outputs and captures. With --record, `lodestar replay` of the capture prints \
        byte for byte what this run printed (status and availability included).

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
    @OptionGroup(title: "Network outputs") var serveOptions: ServeOptions
    @OptionGroup(title: "MQTT (docs/fleet.md)") var mqttOptions: MQTTOptions
    @OptionGroup(title: "Receiver configuration (docs/receiver.md)") var receiverOptions: LiveReceiverOptions
    @OptionGroup(title: "NTRIP corrections (docs/ntrip.md)") var ntripOptions: NTRIPOptions

    @Option(name: .long, help: "With gpsd://: relay gpsd's raw NMEA (nmea, default; parsed by Lodestar) or take gpsd's own fixes (json; recorded as F records).")
    var gpsdMode: GPSDSource.Mode = .nmea

    @Option(name: .long, help: ArgumentHelp("Also record every raw event into this Lodestar capture.", valueName: "file"))
    var record: String?

    @Flag(name: .long, help: "Accept NMEA sentences without a checksum (a wrong checksum is always rejected); recorded in the capture.")
    var lenient = false

    @Flag(name: .long, help: "Do not echo source status changes and the summary on standard error.")
    var quiet = false

    func run() throws {
        clinux_install_stop_handlers()
        clinux_ignore_sigpipe()
        let resolved = try live.resolved()
        var sources = try SourceFactory.make(gps: resolved.gps, imu: resolved.imu, gpsdMode: gpsdMode,
                                             receiver: try receiverOptions.settings(config: resolved.settings))
        // NTRIP corrections: a pseudo-source (its status events go through the queue, so they are recorded) that
        // writes RTCM3 to the first serial receiver and uploads the latest fix as GGA.
        var ntripOptions = self.ntripOptions
        try ntripOptions.merge(config: resolved.settings)
        let latestFix = LatestFix()
        let ntrip = try ntripOptions.makeSource(receiver: sources.compactMap { $0 as? SerialSource }.first, fixes: latestFix)
        if let ntrip { sources.append(ntrip) }
        var options = outputOptions
        if options.fifo == nil, let f = resolved.settings["fifo"] { options.fifo = f }
        if let o = resolved.settings["output"], options.output == .json {
            guard let format = OutputFormat(rawValue: o) else { throw ValidationError("config: output must be json, gpsd or nmea") }
            options.output = format
        }
        let (sinks, fifo) = try makeSinks(options, live: true)
        let queue = LiveEventQueue(sources: sources)
        // Network outputs (docs/gpsd-compatibility.md, docs/chrony.md), flags first, then the config file.
        var serve = serveOptions
        if serve.serve.isEmpty, let v = resolved.settings["serve"] { serve.serve = [v] }
        if serve.serveNmea.isEmpty, let v = resolved.settings["serve-nmea"] { serve.serveNmea = [v] }
        if serve.nmeaUdp.isEmpty, let v = resolved.settings["nmea-udp"] { serve.nmeaUdp = [v] }
        if serve.chronySock == nil, let v = resolved.settings["chrony-sock"] { serve.chronySock = v }
        if serve.service == nil, let v = resolved.settings["service"] { serve.service = v }
        do { try serve.validate() } catch { throw ValidationError("config: \(error)") }
        let device = Self.deviceName(sources)
        let network = try serve.start(device: device)
        let filtersFixes = try serviceOptions.makeStage()?.filtersFixes ?? false
        network?.filtersFixes = filtersFixes
        var pps: PPSToChrony?
        if let device = serve.pps, let path = serve.ppsSock {
            do { pps = try PPSToChrony(device: device, socketPath: path) } catch {
                throw CommandFailure(error.description, code: error.errno == EACCES ? Exit.permission : Exit.noInput)
            }
            pps?.start()
        }
        var mqttOptions = self.mqttOptions
        try mqttOptions.merge(config: resolved.settings)
        let inbox = SessionInbox()
        // The broker's statuses enter the session's input (recorded with --record); the session's echo prints them.
        let mqtt = try mqttOptions.start(filtersFixes: filtersFixes, onStatus: postingStatuses(to: inbox, echo: false))
        let summary = try runLive(queue: queue, options: options, mounting: resolved.mounting, sinks: sinks,
                                  consumers: try makeConsumers(options) + (network.map { [$0] } ?? []) + (mqtt.map { [$0] } ?? [])
                                      + (ntrip == nil ? [] : [latestFix]),
                                  device: device, inbox: inbox)
        _ = mqtt?.finish(quiet: quiet)
        fifo?.close()
        pps?.stop()
        network?.shutdown(drainSeconds: 0.5)
        if !quiet { ServeOptions.summarize(network) }
        LiveHTTP.stop()
        if !quiet {
            var line = "lodestar: run: \(summary.fixes) fixes"
            if !summary.binary.isEmpty { line += "; " + summary.binary.summary }
            if let fifo, fifo.droppedLines > 0 { line += ", \(fifo.droppedLines) FIFO lines dropped (no reader or pipe full)" }
            if let out = sinks.first as? FileDescriptorSink, out.droppedLines > 0 {
                line += ", \(out.droppedLines) stdout lines dropped (\(out.droppedOldestLines) oldest from the full queue)"
            }
            if queue.dropped > 0 { line += ", \(queue.dropped) events dropped (pipeline behind)" }
            if let n = ntrip?.statistics {
                line += "; NTRIP: \(n.frames) RTCM3 frames to the receiver, \(n.corruptFrames) corrupt dropped, \(n.ggaSent) GGA sent"
                if n.unwrittenFrames > 0 { line += ", \(n.unwrittenFrames) not written (receiver closed)" }
            }
            printError(line)
        }
        let sig = clinux_stop_requested()
        if sig != 0 { throw ExitCode(128 + sig) }
        if failedSink(sinks) != nil { throw ExitCode(Exit.ioError) }
    }

    /// gpsd's `device` for the session's objects: the first receiver's device as its capture records it (so the
    /// replay of a recorded session prints the same bytes).
    static func deviceName(_ sources: [any LiveSource]) -> String {
        let gps = sources.first { $0.name.hasPrefix("gps") } ?? sources.first
        return gps?.captureAttributes["device"] ?? gps.map { "\($0.name)" } ?? GpsdJSONEncoder.defaultDevice
    }

    /// The live session (separate from `run()` so tests drive it with their own sources, sinks and consumers).
    func runLive(queue: LiveEventQueue, options: OutputOptions, mounting: String?, sinks: [any OutputSink],
                 consumers: [any OutputEventConsumer], device: String? = nil, inbox: SessionInbox = SessionInbox(),
                 shouldStop: @escaping () -> Bool = { false }) throws -> SessionCounter {
        let counter = SessionCounter(echoStatus: !quiet)
        var builder = try SessionBuilder(output: options, heading: headingOptions, smoothing: smoothingOptions,
                                         services: try serviceOptions.makeStage(),
                                         encoder: makeEncoder(options.output, device: device ?? Self.deviceName(queue.sources),
                                                              headingTalker: serveOptions.headingTalker),
                                         sinks: sinks, consumers: [counter] + consumers, inbox: inbox, today: queue.clock.date)
        if let mounting { builder.configuration.mounting = mounting }
        builder.configuration.lenient = lenient
        builder.configuration.platform = headingOptions.platform
        let session: SessionRunner
        do { session = try builder.live(queue: queue, record: record) } catch {
            throw CommandFailure(error.description, code: error == .permissionDenied(path: record ?? "") ? Exit.permission : Exit.cannotCreate)
        }
        let watcher = SinkWatcher(sinks: sinks)
        do {
            try session.run(.live(queue), shouldStop: {
                watcher.check(inbox: inbox, echo: !quiet)
                return clinux_stop_requested() != 0 || watcher.allBroken || shouldStop()
            })
        } catch {
            throw CommandFailure(error.description, code: Exit.code(for: error))
        }
        watcher.check(inbox: nil, echo: !quiet)
        if let p = session.pipeline { counter.binary = p.binaryStatistics }
        try serviceOptions.saveState(session.services)
        try headingOptions.saveState(session.pipeline)
        return counter
    }
}

struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record live sources into a Lodestar capture (every raw event with its timestamps), for replay.",
        discussion: """
        The capture holds NMEA bytes exactly as received, raw sensor counts with their scale, status changes and \
        gpsd's fixes (JSON mode), plus a header with the sources, the clock pairing and the session configuration \
        (mounting, source roles, lenient framing, reference date); `lodestar replay FILE` reproduces the live output. \
        Records are written as whole lines: SIGINT/SIGTERM never leave a truncated record.

        Example: lodestar record --gps /dev/ttyACM0@38400 --imu i2c:1:0x1e drive.lcap
        """)

    @Argument(help: ArgumentHelp("The capture to write.", valueName: "file"))
    var output: String

    @OptionGroup var live: LiveOptions

    @Option(name: .long, help: "With gpsd://: nmea (default; recorded raw) or json (gpsd's fixes, recorded as F records).")
    var gpsdMode: GPSDSource.Mode = .nmea

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Stop after this many seconds (default: until SIGINT/SIGTERM).", valueName: "seconds"))
    var duration: Double?

    @Flag(name: .long, help: "Accept NMEA sentences without a checksum; recorded in the capture for replay.")
    var lenient = false

    @Flag(name: .long, help: "Do not echo source status changes on standard error.")
    var quiet = false

    @OptionGroup(title: "Receiver configuration (docs/receiver.md)") var receiverOptions: LiveReceiverOptions

    func validate() throws {
        if let d = duration, !(d > 0 && d.isFinite) { throw ValidationError("--duration must be a positive number of seconds") }
    }

    func run() throws {
        clinux_install_stop_handlers()
        clinux_ignore_sigpipe()
        let resolved = try live.resolved()
        let sources = try SourceFactory.make(gps: resolved.gps, imu: resolved.imu, gpsdMode: gpsdMode,
                                             receiver: try receiverOptions.settings(config: resolved.settings))
        let queue = LiveEventQueue(sources: sources)
        let counter = SessionCounter(echoStatus: !quiet)
        var builder = SessionBuilder()
        builder.configuration.mounting = resolved.mounting
        builder.configuration.lenient = lenient
        builder.consumers = [counter]
        let session: SessionRunner
        do { session = try builder.live(queue: queue, record: output) } catch {
            throw CommandFailure(error.description, code: error == .permissionDenied(path: output) ? Exit.permission : Exit.code(for: error))
        }
        let deadline = duration.map { clinux_monotonic_ns() + Int64($0 * 1e9) }
        do {
            try session.run(.live(queue), shouldStop: {
                clinux_stop_requested() != 0 || deadline.map { clinux_monotonic_ns() >= $0 } ?? false
            })
        } catch {
            throw CommandFailure(error.description, code: Exit.code(for: error))
        }
        if !quiet { printError("lodestar: record: \(output): \(counter.fixes) fixes seen") }
        let sig = clinux_stop_requested()
        if sig != 0 { throw ExitCode(128 + sig) }
    }
}
