import CLinux
import Foundation

/// A real gpsd on a test's own device (usually a `PseudoTerminal` slave) and its own free port:
/// `gpsd -N -n -b -S PORT DEVICE`, started with posix_spawn (`SpawnedProcess`) so SIGTERM reaches it despite
/// Swift Testing's blocked signal mask, and stopped by PID. Never uses 2947.
///
/// -N foreground, -n poll the device without clients, -b read-only (never reconfigures the "receiver").
public final class GPSDProcess: Sendable {
    public let port: Int
    public let device: String
    public let logPath: String
    private let process: SpawnedProcess

    public var pid: pid_t { process.pid }

    /// gpsd's executable, or nil when gpsd is not installed (tests are then disabled with a visible reason).
    public static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let dirs = ["/usr/sbin", "/usr/local/sbin", "/sbin", "/usr/bin", "/usr/local/bin"] + path.split(separator: ":").map(String.init)
        return dirs.map { $0 + "/gpsd" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    public static var isInstalled: Bool { executable != nil }
    public static let skipMessage = "gpsd is not installed (apt install gpsd): skipping tests against a real gpsd"

    /// A TCP port free right now on the loopback interface, chosen *below* the kernel's ephemeral range
    /// (/proc/sys/net/ipv4/ip_local_port_range, 32768–60999 by default). A port from `bind(0)` lies inside that
    /// range, so between closing the probe socket and gpsd's bind — or while gpsd is down for a restart — any
    /// outgoing connection on the machine (a libgps client, another test) may take it as its local port and
    /// gpsd then fails with EADDRINUSE. Outside the range only an explicit bind can take it.
    public static func freePort() throws -> Int {
        let lowestEphemeral = ephemeralRangeStart()
        if lowestEphemeral > 11_024 {
            for _ in 0..<64 {
                let candidate = Int.random(in: 10_000..<(lowestEphemeral - 1))
                if let port = try? bindProbe(port: candidate) { return port }
            }
        }
        return try bindProbe(port: 0)
    }

    private static func ephemeralRangeStart() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8),
              let first = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first,
              let value = Int(first) else { return 32_768 }
        return value
    }

    /// Binds 127.0.0.1:port (0: any), returns the bound port and closes the socket.
    private static func bindProbe(port: Int) throws -> Int {
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard s >= 0 else { throw NSError(domain: "socket", code: Int(errno)) }
        defer { close(s) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw NSError(domain: "bind", code: Int(errno)) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(s, $0, &length) }
        }
        guard named == 0 else { throw NSError(domain: "getsockname", code: Int(errno)) }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// True when something accepts TCP connections on 127.0.0.1:port.
    public static func accepts(port: Int) -> Bool {
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard s >= 0 else { return false }
        defer { close(s) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// Starts gpsd on `device`, on `port` (a fresh free one when nil), logging into `directory`; returns once
    /// gpsd accepts connections. Throws, with gpsd's stderr, if it exits or is not listening within `timeout`
    /// seconds; with a fresh port, a lost race for it (EADDRINUSE) is retried on another.
    public init(device: String, port: Int? = nil, directory: TemporaryDirectory, timeout: Double = 5) throws {
        guard let executable = Self.executable else { throw NSError(domain: "gpsd not installed", code: 1) }
        var attempt = 0
        while true {
            attempt += 1
            let chosen = try port ?? Self.freePort()
            let log = directory.path("gpsd-\(chosen)-\(UUID().uuidString.prefix(8)).log")
            let child = try SpawnedProcess(executable, ["-N", "-n", "-b", "-S", "\(chosen)", device],
                                           stdoutPath: log, stderrPath: log + ".err")
            let deadline = Date().addingTimeInterval(timeout)
            var listening = Self.accepts(port: chosen)
            while !listening, child.wait(timeout: 0.02) == nil, Date() < deadline {
                listening = Self.accepts(port: chosen)
            }
            if listening {
                self.port = chosen
                self.device = device
                self.logPath = log
                self.process = child
                return
            }
            child.stop()
            let stderr = (try? String(contentsOfFile: log + ".err", encoding: .utf8)) ?? ""
            if port == nil, attempt < 3, stderr.contains("already in use") { continue }
            throw NSError(domain: "gpsd did not start on port \(chosen): \(stderr)", code: 2)
        }
    }

    /// Kills gpsd by PID with `signal` (SIGTERM: orderly; SIGKILL: a crash) and reaps it.
    public func kill(signal: Int32 = SIGTERM) {
        process.signal(signal)
        _ = process.wait(timeout: 3)
        process.stop()
    }

    /// gpsd's stderr so far (for failure messages).
    public var log: String { (try? String(contentsOfFile: logPath + ".err", encoding: .utf8)) ?? "" }

    deinit { process.stop() }
}
