import ArgumentParser
import CLinux
import Devices
import LodestarIO
import NMEA
import UBX
#if canImport(Glibc)
import Glibc
#endif

/// `lodestar receiver info|configure` (docs/receiver.md).
struct ReceiverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receiver",
        abstract: "Identify a GNSS receiver and set its rate, constellations, dynamic model and messages (u-blox).",
        discussion: """
        u-blox generation 9 and later are configured with CFG-VALSET keys, generations 6–8 with CFG-RATE, CFG-NAV5, \
        CFG-GNSS, CFG-MSG and CFG-PRT; the generation comes from MON-VER. Settings go to RAM only unless --save. \
        Every message must be acknowledged (ACK-ACK): a refusal (ACK-NAK) or silence names the setting and exits 76.

        Examples:
          lodestar receiver info --gps /dev/ttyACM0@115200
          lodestar receiver configure --gps /dev/ttyACM0@115200 --rate 5 --constellations gps,galileo --dynamic-model automotive
        """,
        subcommands: [ReceiverInfo.self, ReceiverConfigure.self])
}

/// Opens `--gps` (a serial device only) at its fixed rate or by autobaud.
enum ReceiverPort {
    static func open(_ text: String) throws -> (port: SerialPort, baud: Int, chunks: [SerialChunk]) {
        let spec: DeviceSpec
        do { spec = try DeviceSpec(parsing: text) } catch { throw ValidationError("--gps \(text): \(error.description)") }
        guard case .serial(let path, let baud) = spec else {
            throw ValidationError("--gps \(text): receiver commands need a serial device (gpsd holds the port itself)")
        }
        if let type = Syscall.fileType(path), type == S_IFREG || type == S_IFDIR {
            throw ValidationError("--gps \(text): \(path) is not a serial device")
        }
        let port: SerialPort
        do { port = try SerialPort(path: path) } catch { throw failure(error, path: path) }
        switch baud {
        case .fixed(let rate):
            do { try port.setBaudRate(rate) } catch { port.close(); throw failure(error, path: path) }
            return (port, rate, [])
        case .automatic:
            do {
                let lock = try Autobaud.detect(port)
                return (port, lock.baudRate, lock.chunks)
            } catch {
                port.close()
                throw CommandFailure("\(path): \(error) (give the rate: --gps \(path)@115200)", code: Exit.receiverRefused)
            }
        }
    }

    static func failure(_ error: SystemError, path: String) -> CommandFailure {
        switch error.authorizationFailure {
        case .denied?: CommandFailure("\(path): permission denied: \(SerialPort.permissionHint(path: path))", code: Exit.permission)
        case .restricted?: CommandFailure("\(path) is held exclusively by another process (gpsd, lodestar run, a terminal?)", code: Exit.unavailable)
        default: CommandFailure(error.description, code: error.errno == ENOENT ? Exit.noInput : Exit.ioError)
        }
    }

    static func code(for error: ReceiverConfigurationError) -> Int32 {
        switch error {
        case .io(let e): e.errno == ENOENT ? Exit.noInput : Exit.ioError
        case .hungUp: Exit.ioError
        default: Exit.receiverRefused
        }
    }
}

struct ReceiverInfo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print the receiver's module, firmware, protocol version and generation (u-blox MON-VER); for an NMEA-only receiver, its talkers, sentences and rate.")

    @Option(name: .long, help: ArgumentHelp("The receiver: /dev/ttyACM0@115200 (or without @rate: autobaud on NMEA).", valueName: "device[@baud]"))
    var gps: String

    @Option(name: .long, help: ArgumentHelp("How long to listen to an NMEA-only receiver (default 3).", valueName: "seconds"))
    var listenSeconds: Double = 3

    func validate() throws {
        guard listenSeconds > 0, listenSeconds <= 60 else { throw ValidationError("--listen-seconds must be in (0, 60]") }
    }

    func run() throws {
        let (port, baud, early) = try ReceiverPort.open(gps)
        defer { port.close() }
        var seen = NMEAInventory()
        for c in early { seen.feed(c) }
        print("device: \(port.path) at \(baud) baud")
        do {
            let version = try UBloxConfigurator().identify(port) { seen.feed($0) }
            let v = version.monVER
            print("vendor: u-blox")
            print("module: \(v.module ?? "unknown")")
            print("firmware: \(v.firmwareVersion ?? v.softwareVersion)")
            print("protocol: \(v.value("PROTVER") ?? v.protocolVersion.map { String($0) } ?? "unknown")")
            print("generation: \(version.generation.map(String.init) ?? "unknown")")
            print("hardware: \(v.hardwareVersion)")
            print("software: \(v.softwareVersion)")
            let other = v.extensions.filter { !$0.hasPrefix("FWVER") && !$0.hasPrefix("PROTVER") && !$0.hasPrefix("MOD=") }
            if !other.isEmpty { print("extensions: \(other.joined(separator: "; "))") }
            return
        } catch .noAnswer {
            // Not u-blox (or UBX disabled): what the NMEA shows.
        } catch {
            throw CommandFailure(error.description, code: ReceiverPort.code(for: error))
        }
        let deadline = clinux_monotonic_ns() + Int64(listenSeconds * 1e9)
        while clinux_monotonic_ns() < deadline {
            let r: SerialReadResult
            do { r = try port.read(timeoutMilliseconds: 100) } catch { throw ReceiverPort.failure(error, path: port.path) }
            if case .chunk(let c) = r { seen.feed(c) }
            if case .hungUp = r { throw CommandFailure("\(port.path): device hung up (unplugged?)", code: Exit.ioError) }
        }
        print("vendor: unknown (no answer to UBX MON-VER)")
        guard seen.sentences > 0 else {
            throw CommandFailure("\(port.path): no valid NMEA and no UBX answer at \(baud) baud (wrong rate?)", code: Exit.receiverRefused)
        }
        print("protocol: NMEA 0183")
        print("talkers: \(seen.talkers.sorted().joined(separator: ", "))")
        print("sentences: \(seen.types.sorted().joined(separator: ", "))")
        if let (rate, type) = seen.rate { print("rate: \(Calibrate.fixed(rate, 1)) Hz (\(type) per second)") }
    }
}

/// Talkers, sentence types and the rate seen on an NMEA stream.
struct NMEAInventory {
    private let framer = MixedStreamFramer()
    var talkers = Set<String>()
    var types = Set<String>()
    var sentences = 0
    private var stamps: [String: [Int64]] = [:]

    mutating func feed(_ chunk: SerialChunk) {
        var found: [String] = []
        framer.feed(chunk.bytes) { frame in
            guard case .nmea(let s) = frame, s.bodyEnd >= 6 else { return }
            found.append(String(decoding: UnsafeBufferPointer(rebasing: s.bytes[1..<6]), as: UTF8.self))
        }
        for address in found {
            sentences += 1
            let talker = address.hasPrefix("P") ? "P" : String(address.prefix(2))
            let type = address.hasPrefix("P") ? address : String(address.dropFirst(2))
            talkers.insert(talker); types.insert(type)
            stamps[type, default: []].append(chunk.monotonicNanos)
        }
    }

    /// Sentences per second of the epoch sentence (RMC, else GGA, else the most frequent).
    var rate: (Double, String)? {
        let type = ["RMC", "GGA"].first { (stamps[$0]?.count ?? 0) >= 2 } ?? stamps.max { $0.value.count < $1.value.count }?.key
        guard let type, let t = stamps[type], t.count >= 2, let first = t.first, let last = t.last, last > first else { return nil }
        return (Double(t.count - 1) / (Double(last - first) / 1e9), type)
    }
}

struct ReceiverConfigure: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "configure",
        abstract: "Set the receiver's rate, constellations, dynamic model, messages and baud rate (u-blox; RAM only unless --save).",
        discussion: """
        Exit codes: 0 every setting acknowledged; 64 a bad value; 76 the receiver refused a setting (ACK-NAK), \
        did not acknowledge it in time, does not support it, or did not answer MON-VER; 66/74/77 the device is \
        missing, failed or not permitted.
        """)

    @Option(name: .long, help: ArgumentHelp("The receiver: /dev/ttyACM0@115200 (or without @rate: autobaud on NMEA).", valueName: "device[@baud]"))
    var gps: String

    @OptionGroup var receiver: ReceiverOptions

    @Option(name: .long, help: ArgumentHelp("Switch the receiver's UART1 to this rate (sent last; the port follows): 4800 … 921600.", valueName: "baud"))
    var baud: String?

    @Flag(name: .long, help: "Also store the settings in battery-backed RAM and flash (generation 9+: layers BBR+Flash; 6–8: CFG-CFG).")
    var save = false

    func validate() throws {
        let s = try receiver.settings()
        if let baud { do { _ = try ReceiverSettings.parseBaudRate(baud) } catch { throw ValidationError(error.description) } }
        if s.isEmpty && baud == nil && !save {
            throw ValidationError("nothing to configure: give --rate, --constellations, --dynamic-model, --messages, --baud or --save")
        }
    }

    func run() throws {
        var settings = try receiver.settings()
        if let baud { settings.baudRate = try ReceiverSettings.parseBaudRate(baud) }
        let (port, _, _) = try ReceiverPort.open(gps)
        defer { port.close() }
        let configurator = UBloxConfigurator()
        do {
            let version = try configurator.identify(port) { _ in }
            let generation = version.generation.map { "generation \($0)" } ?? "generation unknown"
            print("receiver: \(version.monVER.summary) (\(generation))")
            _ = try configurator.apply(settings, save: save, version: version, port: port, passthrough: { _ in },
                                       acknowledged: { print("acknowledged: \($0)") })
            print("configured: \(settings.summary)" + (save ? " (RAM, battery-backed RAM and flash)" : " (RAM only; --save to keep)"))
        } catch {
            throw CommandFailure(error.description, code: ReceiverPort.code(for: error))
        }
    }
}

/// The settings `receiver configure` takes and `run`/`record` apply at every open of a serial receiver
/// (config file: `receiver-rate = 5`, `receiver-constellations = gps,galileo`, `receiver-dynamic-model = automotive`,
/// `receiver-messages = nav-pvt,nav-eoe`).
struct ReceiverOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Navigation rate in Hz (e.g. 5).", valueName: "Hz"))
    var rate: String?

    @Option(name: .long, help: ArgumentHelp("Constellations to use, the others off: gps,galileo,glonass,beidou,qzss,sbas,navic.", valueName: "list"))
    var constellations: String?

    @Option(name: .long, help: ArgumentHelp("Dynamic platform model: portable, stationary, pedestrian, automotive, sea, airborne1g, airborne2g, airborne4g, wrist, bike, mower, escooter.", valueName: "model"))
    var dynamicModel: String?

    @Option(name: .long, help: ArgumentHelp("Message output rates per epoch, NAME[=RATE] (0 off): nav-pvt, nav-eoe, nav-sat, nav-dop, nav-status, nav-hpposllh, nav-relposned, nav-att, nav-pvat, mon-hw, mon-rf, gga, rmc, gsa, gsv, vtg, gll, zda, gst.", valueName: "list"))
    var messages: String?

    func settings() throws -> ReceiverSettings {
        var s = ReceiverSettings()
        do {
            if let rate { s.rateHertz = try ReceiverSettings.parseRate(rate) }
            if let constellations { s.constellations = try ReceiverSettings.parseConstellations(constellations) }
            if let dynamicModel { s.dynamicModel = try ReceiverSettings.parseDynamicModel(dynamicModel) }
            if let messages { s.messages = try ReceiverSettings.parseMessages(messages) }
        } catch {
            throw ValidationError(error.description)
        }
        return s
    }
}

/// `run`/`record`: the same settings as `--receiver-rate` … (config keys `receiver-rate` …).
struct LiveReceiverOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Set the serial receiver's navigation rate at every open (u-blox; RAM only).", valueName: "Hz"))
    var receiverRate: String?

    @Option(name: .long, help: ArgumentHelp("Constellations to set at every open: gps,galileo,glonass,beidou,qzss,sbas,navic.", valueName: "list"))
    var receiverConstellations: String?

    @Option(name: .long, help: ArgumentHelp("Dynamic platform model to set at every open (portable, automotive, …).", valueName: "model"))
    var receiverDynamicModel: String?

    @Option(name: .long, help: ArgumentHelp("Message output rates to set at every open, NAME[=RATE] (as receiver configure --messages).", valueName: "list"))
    var receiverMessages: String?

    func settings(config: [String: String] = [:]) throws -> ReceiverSettings? {
        let options = ReceiverOptions(rate: receiverRate ?? config["receiver-rate"],
                                      constellations: receiverConstellations ?? config["receiver-constellations"],
                                      dynamicModel: receiverDynamicModel ?? config["receiver-dynamic-model"],
                                      messages: receiverMessages ?? config["receiver-messages"])
        let s = try options.settings()
        return s.isEmpty ? nil : s
    }

    static let configKeys: Set<String> = ["receiver-rate", "receiver-constellations", "receiver-dynamic-model", "receiver-messages"]
}

extension ReceiverOptions {
    init(rate: String?, constellations: String?, dynamicModel: String?, messages: String?) {
        self.init()
        self.rate = rate; self.constellations = constellations; self.dynamicModel = dynamicModel; self.messages = messages
    }
}
