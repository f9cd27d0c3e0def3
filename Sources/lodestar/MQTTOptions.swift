import ArgumentParser
import CLinux
import Events
import LocationCore
import LodestarIO
import MQTT
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

extension MQTTFormat: ExpressibleByArgument {}

/// `--mqtt` and friends for `run` and `replay` (docs/fleet.md). The same keys work in the config file
/// (`mqtt = mqtt://…`, `mqtt-password-file = …`); flags win.
struct MQTTOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Also publish to an MQTT broker: mqtt[s]://[user@]host[:port]/topic-prefix (password only from --mqtt-password-file).", valueName: "url"))
    var mqtt: String?

    @Option(name: .long, help: ArgumentHelp("File whose first line is the MQTT password (for the user in the URL).", valueName: "file"))
    var mqttPasswordFile: String?

    @Option(name: .long, help: ArgumentHelp("With mqtts://: the CA certificate file that signed the broker's certificate (default: the system's CAs).", valueName: "file"))
    var mqttCa: String?

    @Option(name: .long, help: ArgumentHelp("With mqtts://: a client certificate (with --mqtt-key).", valueName: "file"))
    var mqttCert: String?

    @Option(name: .long, help: ArgumentHelp("With mqtts://: the client certificate's private key.", valueName: "file"))
    var mqttKey: String?

    @Option(name: .long, help: ArgumentHelp("Device id: one topic level under the prefix (default: the host name).", valueName: "name"))
    var mqttDevice: String?

    @Option(name: .long, help: "Payloads of fixes and region events: lodestar (Lodestar JSON) or owntracks (OwnTracks location/transition).")
    var mqttFormat: MQTTFormat?

    @Flag(name: .long, help: "Announce a Home Assistant device_tracker and heading sensor (MQTT discovery, retained).")
    var mqttHomeassistant = false

    @Option(name: .long, help: ArgumentHelp("Home Assistant's discovery prefix (default homeassistant).", valueName: "prefix"))
    var mqttDiscoveryPrefix: String?

    @Option(name: .long, help: ArgumentHelp("Store-and-forward spool directory (default /var/lib/lodestar/mqtt/DEVICE, or ~/.local/state/lodestar/mqtt/DEVICE when that is not writable).", valueName: "dir"))
    var mqttSpool: String?

    @Option(name: .long, help: ArgumentHelp("Spool size limit in MiB (default 64); past it the oldest records are dropped and counted.", valueName: "MiB"))
    var mqttSpoolMaxMb: Double?

    @Option(name: .long, help: ArgumentHelp("Spool age limit in hours (default 168); older records are dropped and counted.", valueName: "hours"))
    var mqttSpoolMaxAgeHours: Double?

    @Option(name: .long, help: ArgumentHelp("At the end, wait up to this many seconds for the broker to acknowledge what is queued (default 10).", valueName: "seconds"))
    var mqttDrainSeconds: Double?

    /// Fills unset options from config-file keys of the same names (`mqtt`, `mqtt-password-file`, …).
    mutating func merge(config: [String: String]) throws {
        func number(_ key: String) throws -> Double? {
            guard let v = config[key] else { return nil }
            guard let d = Double(v), d > 0, d.isFinite else { throw ValidationError("config: \(key) must be a positive number") }
            return d
        }
        mqtt = mqtt ?? config["mqtt"]
        mqttPasswordFile = mqttPasswordFile ?? config["mqtt-password-file"]
        mqttCa = mqttCa ?? config["mqtt-ca"]
        mqttCert = mqttCert ?? config["mqtt-cert"]
        mqttKey = mqttKey ?? config["mqtt-key"]
        mqttDevice = mqttDevice ?? config["mqtt-device"]
        if mqttFormat == nil, let f = config["mqtt-format"] {
            guard let v = MQTTFormat(rawValue: f) else { throw ValidationError("config: mqtt-format must be lodestar or owntracks") }
            mqttFormat = v
        }
        if !mqttHomeassistant, let v = config["mqtt-homeassistant"] { mqttHomeassistant = v == "true" || v == "yes" || v == "1" }
        mqttDiscoveryPrefix = mqttDiscoveryPrefix ?? config["mqtt-discovery-prefix"]
        mqttSpool = mqttSpool ?? config["mqtt-spool"]
        mqttSpoolMaxMb = try mqttSpoolMaxMb ?? number("mqtt-spool-max-mb")
        mqttSpoolMaxAgeHours = try mqttSpoolMaxAgeHours ?? number("mqtt-spool-max-age-hours")
        mqttDrainSeconds = try mqttDrainSeconds ?? number("mqtt-drain-seconds")
    }

    static let configKeys: Set<String> = ["mqtt", "mqtt-password-file", "mqtt-ca", "mqtt-cert", "mqtt-key", "mqtt-device",
                                          "mqtt-format", "mqtt-homeassistant", "mqtt-discovery-prefix", "mqtt-spool",
                                          "mqtt-spool-max-mb", "mqtt-spool-max-age-hours", "mqtt-drain-seconds"]

    func validate() throws {
        if mqtt == nil && (mqttPasswordFile != nil || mqttCa != nil || mqttCert != nil || mqttDevice != nil || mqttHomeassistant) {
            throw ValidationError("the --mqtt-… options need --mqtt URL")
        }
        if (mqttCert == nil) != (mqttKey == nil) { throw ValidationError("--mqtt-cert and --mqtt-key go together") }
    }

    /// Builds and starts the publisher (nil without --mqtt). Bad settings end the run with one line (exit 64/66/73).
    func start(filtersFixes: Bool, onStatus: @escaping @Sendable (StatusReport) -> Void) throws -> MQTTSession? {
        guard let text = mqtt else { return nil }
        try validate()
        let url: MQTTURL
        do { url = try MQTTURL(parsing: text) } catch { throw ValidationError("--mqtt \(error.description)") }
        let device = mqttDevice ?? Self.hostName()
        guard MQTTURL.isValidTopicLevel(device) else { throw ValidationError("--mqtt-device '\(device)': one topic level, without / + #") }
        var client = MQTTClientSettings(url: url, clientID: "lodestar-\(device)")
        if let f = mqttPasswordFile {
            do { client.password = try MQTTClientSettings.readPasswordFile(f) } catch .unreadable(let e) {
                throw CommandFailure(e, option: "--mqtt-password-file")
            } catch {
                throw CommandFailure(error.description, code: Exit.noInput)
            }
            if url.username == nil { throw ValidationError("--mqtt-password-file needs a user in the URL (mqtt://USER@host/prefix)") }
        }
        for (flag, path) in [("--mqtt-ca", mqttCa), ("--mqtt-cert", mqttCert), ("--mqtt-key", mqttKey)] {
            guard let path else { continue }
            if !url.useTLS { throw ValidationError("\(flag) needs an mqtts:// URL") }
            if access(path, R_OK) != 0 { throw CommandFailure("\(flag) \(path): \(String(cString: strerror(errno)))", code: errno == ENOENT ? Exit.noInput : Exit.permission) }
        }
        client.caFile = mqttCa; client.certFile = mqttCert; client.keyFile = mqttKey
        let topics = MQTTTopics(prefix: url.topicPrefix, device: device, format: mqttFormat ?? .lodestar)
        let ann = MQTTOutput.announcements(topics: topics, homeAssistantPrefix: mqttHomeassistant ? (mqttDiscoveryPrefix ?? "homeassistant") : nil)
        client.will = ann.will
        var config = MQTTPublisher.Configuration(client: client, spoolDirectory: mqttSpool ?? Self.defaultSpool(device))
        config.onConnect = ann.onConnect
        config.onDisconnect = ann.onDisconnect
        if let mb = mqttSpoolMaxMb { config.spoolLimits.maxBytes = Int(mb * 1_048_576) }
        if let h = mqttSpoolMaxAgeHours { config.spoolLimits.maxAgeSeconds = h * 3600 }
        let publisher: MQTTPublisher
        do { publisher = try MQTTPublisher(config) } catch {
            throw CommandFailure(error, option: "--mqtt-spool")
        }
        publisher.onStatus = onStatus
        let output = MQTTOutput(publisher: publisher, topics: topics)
        output.filtersFixes = filtersFixes
        publisher.start()
        return MQTTSession(output: output, drainSeconds: mqttDrainSeconds ?? 10)
    }

    static func hostName() -> String {
        var buf = [CChar](repeating: 0, count: 256)
        guard gethostname(&buf, buf.count) == 0 else { return "lodestar" }
        let name = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return MQTTURL.isValidTopicLevel(name) ? name : "lodestar"
    }

    static func defaultSpool(_ device: String) -> String {
        let system = "/var/lib/lodestar"
        if access(system, W_OK) == 0 || (geteuid() == 0 && access("/var/lib", W_OK) == 0) { return "\(system)/mqtt/\(device)" }
        let home = getenv("HOME").map { String(cString: $0) } ?? "/tmp"
        return "\(home)/.local/state/lodestar/mqtt/\(device)"
    }
}

/// A running MQTT publication: the pipeline's events go to `consume`; `finish` drains and reports.
final class MQTTSession: OutputEventConsumer {
    let output: MQTTOutput
    let drainSeconds: Double
    init(output: MQTTOutput, drainSeconds: Double) { self.output = output; self.drainSeconds = drainSeconds }

    func consume(_ e: OutputEvent) { output.consume(e) }
    /// One replay session ends per file: the publisher keeps running until the command calls `finish(quiet:)`.
    func finish() {}

    /// Stops publishing; one summary line on stderr (unless quiet). Returns false when records stayed undelivered.
    func finish(quiet: Bool) -> Bool {
        let s = output.publisher.finish(drainSeconds: drainSeconds)
        let spool = output.publisher.configuration.spoolDirectory
        var line = "lodestar: mqtt: \(s.delivered) messages delivered"
        var extras: [String] = []
        if s.pending > 0 { extras.append("\(s.pending) kept in \(spool) for the next start") }
        if s.droppedForSize > 0 { extras.append("\(s.droppedForSize) dropped (spool full)") }
        if s.droppedForAge > 0 { extras.append("\(s.droppedForAge) dropped (too old)") }
        if s.handoverDropped > 0 { extras.append("\(s.handoverDropped) dropped (publisher behind)") }
        if s.volatileDropped > 0 { extras.append("\(s.volatileDropped) headings/sky not sent while disconnected") }
        if s.corruptRecords > 0 { extras.append("\(s.corruptRecords) corrupt spool records skipped") }
        if s.spoolWriteErrors > 0 { extras.append("\(s.spoolWriteErrors) spool write errors") }
        if s.missingRecords > 0 { extras.append("\(s.missingRecords) missing from the spool (skipped)") }
        if s.unaccounted != 0 {
            extras.append("\(s.unaccounted) unaccounted for (\(s.handedOver) handed over, \(s.recovered) recovered from the spool)")
        }
        if !extras.isEmpty { line += ", " + extras.joined(separator: ", ") }
        if s.pending > 0, let e = s.lastError { line += " (broker: \(e))" }
        if !quiet || s.pending > 0 || s.unaccounted != 0 { printError(line) }
        return s.pending == 0 && s.unaccounted == 0
    }
}


/// `lodestar fleet …` runs `lodestar-fleet` from the same directory (so the board's binary never links libpq).
struct Fleet: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Fleet side: subscribe to every board's topics and write fixes to PostgreSQL/PostGIS (runs lodestar-fleet; see docs/fleet.md).")

    @Argument(parsing: .captureForPassthrough, help: "Arguments for lodestar-fleet (try: lodestar fleet --help).")
    var arguments: [String] = []

    func run() throws {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        let exe = n > 0 ? String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
        let dir = exe.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let path = (dir.isEmpty ? "." : dir) + "/lodestar-fleet"
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) }
        argv.append(nil)
        execv(path, &argv)
        throw CommandFailure("fleet: cannot run \(path): \(String(cString: strerror(errno))) (build it with `swift build --product lodestar-fleet`; make install installs it)", code: Exit.noInput)
    }
}
