import ArgumentParser
import NetworkOutput
#if canImport(Glibc)
import Glibc
#endif

/// Network outputs shared by `run` and `replay` (docs/gpsd-compatibility.md, docs/output.md): the gpsd-protocol
/// server, NMEA over TCP and UDP, chrony's SOCK refclock and PPS.
struct ServeOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Serve the gpsd protocol (TPV/SKY/ATT, ?WATCH, ?POLL, ?DEVICES …) on ADDR:PORT (ADDR defaults to 127.0.0.1, PORT to 2947: '--serve 2947', '--serve 0.0.0.0:2947'), on a Unix socket 'unix:/run/lodestar.sock', or on the sockets systemd passes ('systemd': socket activation by lodestar.socket). Repeatable. Refuses to start if the port is taken (e.g. by gpsd).", valueName: "addr:port"))
    var serve: [String] = []

    @Option(name: .long, help: ArgumentHelp("Serve NMEA 0183 over TCP on ADDR:PORT (PORT defaults to 10110, the marine convention of OpenCPN and Signal K), or 'systemd' for the socket lodestar.socket names 'nmea'.", valueName: "addr:port"))
    var serveNmea: [String] = []

    @Option(name: .long, help: ArgumentHelp("Serve the board's location service on this Unix socket (or 'systemd' for the socket lodestar.socket names 'service'): every event (fixes with every accuracy, headings, sky, statuses, region and visit events) as Lodestar JSON lines, to every client from its connection on. Swift programs' CLLocationManager (import CoreLocation) connect here, so several programs share one receiver and one magnetometer. The socket is mode 0660, group lodestar when that group exists: a process whose user is not in it is denied.", valueName: "path"))
    var service: String?

    @Option(name: .long, help: ArgumentHelp("Send NMEA 0183 as UDP datagrams to HOST:PORT (a numeric address; broadcast allowed).", valueName: "host:port"))
    var nmeaUdp: [String] = []

    @Option(name: .long, help: ArgumentHelp("Feed chrony's 'refclock SOCK PATH': one time sample per fix (fix time vs the system clock when its first byte arrived; live sources only). See docs/chrony.md.", valueName: "path"))
    var chronySock: String?

    @Option(name: .long, help: ArgumentHelp("A PPS device (/dev/ppsN) whose pulses go to chrony through --pps-sock (run only).", valueName: "device"))
    var pps: String?

    @Option(name: .long, help: ArgumentHelp("chrony's SOCK path for --pps pulses (a second 'refclock SOCK PATH' line).", valueName: "path"))
    var ppsSock: String?

    @Option(name: .long, help: ArgumentHelp("Talker of NMEA heading sentences (HDT/HDG/HDM) in NMEA output: HC (magnetic compass, the default; the only one gpsd 3.22 accepts) or e.g. HE, GP.", valueName: "XX"))
    var headingTalker = "HC"

    @Option(name: .long, help: ArgumentHelp("Per-client queue of the servers, in events: past it a client that does not read loses its oldest events (counted; see ?CLIENTS and ?DEVICES).", valueName: "events"))
    var serveQueue = 256

    func validate() throws {
        for s in serve where ServerEndpoint(parsing: s, defaultPort: 2947) == nil {
            throw ValidationError("--serve \(s): expected ADDR:PORT, PORT or unix:/path")
        }
        for s in serveNmea where ServerEndpoint(parsing: s, defaultPort: 10110) == nil {
            throw ValidationError("--serve-nmea \(s): expected ADDR:PORT, PORT or unix:/path")
        }
        for s in nmeaUdp {
            guard case .tcp? = ServerEndpoint(parsing: s, defaultPort: 10110) else {
                throw ValidationError("--nmea-udp \(s): expected HOST:PORT")
            }
        }
        if headingTalker.utf8.count != 2 || !headingTalker.utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) {
            throw ValidationError("--heading-talker must be two capital letters, e.g. HC")
        }
        if serveQueue < 1 { throw ValidationError("--serve-queue must be at least 1") }
        if let service, service.isEmpty { throw ValidationError("--service needs a socket path (or 'systemd')") }
        if (pps == nil) != (ppsSock == nil) { throw ValidationError("--pps and --pps-sock go together") }
    }

    var isActive: Bool { !serve.isEmpty || !serveNmea.isEmpty || !nmeaUdp.isEmpty || chronySock != nil || service != nil }

    /// The service socket's endpoint: a path (with or without `unix:`), or systemd's socket.
    var serviceEndpoint: ServerEndpoint? {
        guard let service else { return nil }
        if service == "systemd" { return .systemd }
        return .unix(path: service.hasPrefix("unix:") ? String(service.dropFirst(5)) : service)
    }

    /// Starts the configured servers; a port in use or any other bind failure ends the run with one line (exit 69).
    func start(device: String) throws -> NetworkOutputs? {
        guard isActive else { return nil }
        let outputs = NetworkOutputs(device: device, headingTalker: headingTalker)
        var settings = OutputServer.Settings()
        settings.maximumQueuedPerClient = serveQueue
        do {
            if !serve.isEmpty {
                outputs.gpsd = try OutputServer(kind: .gpsd, endpoints: serve.compactMap { ServerEndpoint(parsing: $0, defaultPort: 2947) },
                                                device: device, settings: settings)
            }
            if !serveNmea.isEmpty {
                outputs.nmea = try OutputServer(kind: .nmea, endpoints: serveNmea.compactMap { ServerEndpoint(parsing: $0, defaultPort: 10110) },
                                                device: device, settings: settings)
            }
            if let e = serviceEndpoint {
                outputs.events = try OutputServer(kind: .events, endpoints: [e], device: device, settings: settings)
            }
            if let udp = nmeaUdp.first, case .tcp(let host, let port)? = ServerEndpoint(parsing: udp, defaultPort: 10110) {
                outputs.udp = try UDPNMEASender(host: host, port: port)
            }
        } catch let error as ServerError {
            outputs.shutdown(drainSeconds: 0)
            throw CommandFailure(error.description, code: Exit.unavailable)
        } catch {
            outputs.shutdown(drainSeconds: 0)
            throw CommandFailure("\(error)", code: Exit.usage)
        }
        if let path = chronySock { outputs.chrony = ChronySOCKSink(path: path) }
        for server in [outputs.gpsd, outputs.nmea, outputs.events].compactMap({ $0 }) {
            printError("lodestar: serving \(server.serviceName) on "
                       + server.endpoints.map(\.description).joined(separator: ", "))
        }
        return outputs
    }

    /// One summary line per server (drops per client), on stderr.
    static func summarize(_ outputs: NetworkOutputs?) {
        guard let outputs else { return }
        for server in [outputs.gpsd, outputs.nmea, outputs.events].compactMap({ $0 }) {
            let s = server.statistics
            var line = "lodestar: \(server.kind == .gpsd ? "gpsd" : server.kind == .nmea ? "NMEA" : "location service") server: \(s.connections) connections"
            if s.dropped > 0 {
                line += ", \(s.dropped) events dropped for slow clients ("
                    + s.dropsByClient.map { "\($0.peer): \($0.dropped)" }.joined(separator: ", ") + ")"
            }
            printError(line)
        }
        if let udp = outputs.udp, udp.failed > 0 { printError("lodestar: NMEA UDP: \(udp.failed) datagrams not sent") }
        if let c = outputs.chrony {
            printError("lodestar: chrony \(c.path): \(c.sent) samples sent" + (c.notSent > 0 ? ", \(c.notSent) not sent (\(String(cString: strerror(c.lastError))))" : ""))
        }
    }
}
