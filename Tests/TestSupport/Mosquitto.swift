import CLinux
import Foundation

/// Debian's mosquitto broker started by a test with its own config on a free loopback port, stopped by PID.
public final class MosquittoBroker: @unchecked Sendable {
    public struct TLS: Sendable {
        public var caFile: String, certFile: String, keyFile: String
        public var requireClientCertificate = false
        public init(caFile: String, certFile: String, keyFile: String) { self.caFile = caFile; self.certFile = certFile; self.keyFile = keyFile }
    }

    public static let executable: String? = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"].first { FileManager.default.isExecutableFile(atPath: $0) }
    public static var isInstalled: Bool {
        executable != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_sub")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_passwd")
    }
    public static let skipMessage = "mosquitto / mosquitto-clients are not installed (make test installs them): skipping MQTT tests"

    public let port: Int
    /// The TLS listener's port (when `tls` was given).
    public let tlsPort: Int?
    public let configPath: String
    private let directory: TemporaryDirectory
    private var process: SpawnedProcess?
    private var starts = 0

    /// `users`: name → password (a password file; anonymous access off). `persistence`: subscriptions and
    /// queued QoS 1 messages survive a restart.
    public init(directory: TemporaryDirectory, users: [String: String] = [:], tls: TLS? = nil, persistence: Bool = false,
                extra: [String] = []) throws {
        self.directory = directory
        port = try GPSDProcess.freePort()
        var tlsPort: Int? = nil
        if tls != nil { var p = try GPSDProcess.freePort(); while p == port { p = try GPSDProcess.freePort() }; tlsPort = p }
        self.tlsPort = tlsPort
        var lines = ["user root", "per_listener_settings false", "max_queued_messages 100000", "max_inflight_messages 1000",
                     "log_dest stderr", "log_type error", "log_type warning", "log_type notice"]
        if persistence {
            lines += ["persistence true", "persistence_location \(directory.path("mosquitto-db"))/", "autosave_interval 1"]
            try FileManager.default.createDirectory(atPath: directory.path("mosquitto-db"), withIntermediateDirectories: true)
        } else {
            lines.append("persistence false")
        }
        if users.isEmpty {
            lines.append("allow_anonymous true")
        } else {
            let file = directory.path("mosquitto.passwd")
            FileManager.default.createFile(atPath: file, contents: Data())
            for (user, password) in users.sorted(by: { $0.key < $1.key }) {
                let r = try Tool.run("/usr/bin/mosquitto_passwd", ["-b", file, user, password])
                guard r.status == 0 else { throw NSError(domain: "mosquitto_passwd: \(r.output)", code: 1) }
            }
            lines += ["allow_anonymous false", "password_file \(file)"]
        }
        lines += ["listener \(port) 127.0.0.1"]
        if let tls, let tlsPort {
            lines += ["listener \(tlsPort) 127.0.0.1", "cafile \(tls.caFile)", "certfile \(tls.certFile)", "keyfile \(tls.keyFile)",
                      "require_certificate \(tls.requireClientCertificate)"]
        }
        lines += extra
        configPath = try directory.write("mosquitto-\(port).conf", lines.joined(separator: "\n") + "\n")
        try start()
    }

    /// (Re)starts the broker on the same ports; returns once it accepts connections.
    public func start(timeout: Double = 5) throws {
        guard let exe = Self.executable else { throw NSError(domain: "mosquitto not installed", code: 1) }
        // A running broker is stopped first: a second one cannot bind the port, yet the port answers (the first
        // one), so the second would be taken for started and the first lost.
        if process != nil { stop() }
        starts += 1
        let log = directory.path("mosquitto-\(port)-\(starts).log")
        let child = try SpawnedProcess(exe, ["-c", configPath], stdoutPath: log, stderrPath: log + ".err")
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if GPSDProcess.accepts(port: port) && (tlsPort.map(GPSDProcess.accepts(port:)) ?? true) { process = child; return }
            if child.wait(timeout: 0.02) != nil { break }
        }
        child.stop()
        throw NSError(domain: "mosquitto did not start on \(port): " + ((try? String(contentsOfFile: log + ".err", encoding: .utf8)) ?? ""), code: 2)
    }

    /// Stops the broker by PID (SIGTERM: orderly, the persistence file is written).
    public func stop(signal: Int32 = SIGTERM) {
        guard let p = process else { return }
        p.signal(signal)
        _ = p.wait(timeout: 5)
        p.stop()
        process = nil
    }

    public var log: String {
        (1...max(1, starts)).map { (try? String(contentsOfFile: directory.path("mosquitto-\(port)-\($0).log.err"), encoding: .utf8)) ?? "" }.joined()
    }

    deinit { stop() }

    /// A CA, a server certificate for 127.0.0.1 and a client certificate signed by it, and an unrelated second CA
    /// ("wrong-ca.crt"), generated with openssl (EC P-256, valid 2 days).
    public static func makeCertificates(in directory: TemporaryDirectory) throws -> (ca: String, serverCert: String, serverKey: String, clientCert: String, clientKey: String, wrongCA: String) {
        let d = directory.url.path
        let script = """
        set -e
        cd '\(d)'
        printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\n' > san.ext
        for ca in ca wrong-ca; do
          openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout $ca.key -out $ca.crt -days 2 -subj "/CN=Lodestar test $ca" 2>/dev/null
        done
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server.key -out server.csr -subj /CN=127.0.0.1 2>/dev/null
        openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 2 -extfile san.ext 2>/dev/null
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout client.key -out client.csr -subj /CN=board 2>/dev/null
        openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out client.crt -days 2 2>/dev/null
        chmod 644 *.key
        """
        let r = try Tool.run("/bin/sh", ["-c", script])
        guard r.status == 0 else { throw NSError(domain: "openssl: \(r.output)", code: 1) }
        return (d + "/ca.crt", d + "/server.crt", d + "/server.key", d + "/client.crt", d + "/client.key", d + "/wrong-ca.crt")
    }
}

/// `mosquitto_sub` running in the background, writing `topic payload` lines (-v) to a file.
public final class MosquittoSubscriber: @unchecked Sendable {
    private let process: SpawnedProcess
    public let outputPath: String

    public init(port: Int, topic: String, directory: TemporaryDirectory, extra: [String] = []) throws {
        outputPath = directory.path("sub-\(UUID().uuidString.prefix(8)).txt")
        process = try SpawnedProcess("/usr/bin/mosquitto_sub", ["-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-v", "-q", "1"] + extra,
                                     stdoutPath: outputPath, stderrPath: outputPath + ".err")
    }

    /// (topic, payload) per message received so far.
    public var messages: [(topic: String, payload: String)] {
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map { line in
            guard let sp = line.firstIndex(of: " ") else { return (String(line), "") }
            return (String(line[..<sp]), String(line[line.index(after: sp)...]))
        }
    }

    public var stderr: String { (try? String(contentsOfFile: outputPath + ".err", encoding: .utf8)) ?? "" }

    /// Waits until `condition` holds for the messages (polling), up to `timeout` s.
    @discardableResult
    public func wait(timeout: Double, until condition: ([(topic: String, payload: String)]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(messages) { return true }
            usleep(50_000)
        }
        return condition(messages)
    }

    public func stop() { process.stop() }
    deinit { process.stop() }
}

/// Runs a command to completion (posix_spawn, clean signal mask, reaped by PID), returning its exit status and
/// combined output. Output goes through a file: a daemon the command leaves behind (pg_ctl start) keeps a pipe
/// open forever, and Foundation's Process did not reap `runuser` here.
public enum Tool {
    public static func run(_ path: String, _ arguments: [String], timeout: Double = 120) throws -> (status: Int32, output: String) {
        let outPath = FileManager.default.temporaryDirectory.appendingPathComponent("lodestar-tool-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: outPath) }
        let p = try SpawnedProcess(path, arguments, stdoutPath: outPath, stderrPath: outPath + ".err")
        defer { try? FileManager.default.removeItem(atPath: outPath + ".err") }
        let status = p.wait(timeout: timeout) ?? -1
        if status == -1 { p.stop() }
        let text = ((try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "") + ((try? String(contentsOfFile: outPath + ".err", encoding: .utf8)) ?? "")
        return (status, text)
    }
}
