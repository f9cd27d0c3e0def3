import ArgumentParser
import CLinux
import LocationCore
import LodestarIO
import LocationServices
import MQTT
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

@main
struct FleetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lodestar fleet",
        abstract: "Subscribe to every board's topics, write fixes to PostgreSQL/PostGIS, monitor regions per device.",
        discussion: """
        Fixes (Lodestar JSON on PREFIX/DEVICE/fix, OwnTracks on PREFIX/DEVICE) go to the `positions` table \
        (primary key device+time: a QoS 1 redelivery inserts nothing) and `last_positions`; with --regions, a \
        RegionMonitor per device publishes enter/exit events on PREFIX/DEVICE/fleet/event, prints them on stdout \
        and stores them in `region_events`. See docs/fleet.md.

        Example:
          lodestar fleet --mqtt mqtt://fleet@broker/lodestar --mqtt-password-file /etc/lodestar/mqtt.pw \\
                         --database 'host=db dbname=fleet user=fleet' --regions depots.json
        """)

    @Option(help: ArgumentHelp("Broker and topic prefix: mqtt[s]://[user@]host[:port]/topic-prefix.", valueName: "url"))
    var mqtt: String

    @Option(help: ArgumentHelp("File whose first line is the MQTT password.", valueName: "file"))
    var mqttPasswordFile: String?

    @Option(help: ArgumentHelp("With mqtts://: CA file.", valueName: "file")) var mqttCa: String?
    @Option(help: ArgumentHelp("With mqtts://: client certificate.", valueName: "file")) var mqttCert: String?
    @Option(help: ArgumentHelp("With mqtts://: client key.", valueName: "file")) var mqttKey: String?

    @Option(help: ArgumentHelp("MQTT client id; the broker keeps this persistent session's queue while the fleet is away (default lodestar-fleet[-K-of-N]).", valueName: "id"))
    var clientId: String?

    @Option(help: ArgumentHelp("libpq connection string (e.g. 'host=127.0.0.1 port=5432 dbname=fleet user=fleet'); a password goes in ~/.pgpass or PGPASSFILE, not here.", valueName: "conninfo"))
    var database: String

    @Option(help: ArgumentHelp("Regions file (the format of `lodestar replay --regions`), monitored for every device.", valueName: "file"))
    var regions: String?

    @Option(help: ArgumentHelp("Handle only devices whose id hashes to K of N (FNV-1a mod N), e.g. 0/4: run N fleets side by side.", valueName: "K/N"))
    var shard: String?

    @Option(help: ArgumentHelp("Commit a batch at least this often (milliseconds, default 100).", valueName: "ms"))
    var batchMilliseconds: Int = 100

    @Option(help: ArgumentHelp("Print a statistics line on stderr every S seconds (0: only at the end).", valueName: "seconds"))
    var statsInterval: Double = 0

    @Flag(help: "Do not print fleet region events on stdout.")
    var quiet = false

    func run() throws {
        clinux_install_stop_handlers()
        clinux_ignore_sigpipe()
        let url: MQTTURL
        do { url = try MQTTURL(parsing: mqtt) } catch { throw ValidationError("--mqtt \(error.description)") }
        var shardSpec: (Int, Int)?
        if let shard {
            let parts = shard.split(separator: "/").compactMap { Int($0) }
            guard parts.count == 2, parts[1] > 0, (0..<parts[1]).contains(parts[0]) else { throw ValidationError("--shard must be K/N with 0 ≤ K < N") }
            shardSpec = (parts[0], parts[1])
        }
        var regionList: [CircularRegion] = []
        if let regions {
            guard let bytes = readWholeFile(regions) else { failFleet("--regions \(regions): \(String(cString: strerror(errno)))", code: 66) }
            do { regionList = try RegionFile.parse(bytes) } catch { failFleet("--regions \(regions): \(error.description)", code: 65) }
        }
        var client = MQTTClientSettings(url: url, clientID: clientId ?? ("lodestar-fleet" + (shardSpec.map { "-\($0.0)-of-\($0.1)" } ?? "")))
        client.persistentSession = true
        if let f = mqttPasswordFile {
            do { client.password = try MQTTClientSettings.readPasswordFile(f) } catch { failFleet(error.description, code: 66) }
        }
        client.caFile = mqttCa; client.certFile = mqttCert; client.keyFile = mqttKey

        let store = FleetStore(conninfo: database)
        do { try store.open() } catch { failFleet("database: \(error.description)", code: 69) }
        let writer = FleetWriter(store: store, batchMilliseconds: batchMilliseconds)
        writer.start()
        let ingest = FleetIngest(client: client, prefix: url.topicPrefix, regions: regionList, shard: shardSpec,
                                 writer: writer, printEvents: !quiet, statsInterval: statsInterval)
        ingest.run()
        writer.finish()
        printErr(ingest.summary(writer: writer))
        let sig = clinux_stop_requested()
        if sig != 0 { throw ExitCode(128 + sig) }
    }
}

func failFleet(_ message: String, code: Int32) -> Never {
    printErr("lodestar fleet: \(message)")
    exit(code)
}

func printErr(_ s: String) { Syscall.writeMessage(s + "\n") }

func printOut(_ s: String) {
    var b = Array(s.utf8); b.append(0x0A)
    do { try Syscall.writeFully(1, b) } catch {
        // Standard output is where `lodestar fleet status` answers: a lost answer is an error, not a silent exit 0.
        printErr("lodestar-fleet: \(SystemError("write", path: "standard output", error))")
        exit(74)
    }
}

func readWholeFile(_ path: String) -> [UInt8]? {
    try? Syscall.readWholeFile(path)
}
