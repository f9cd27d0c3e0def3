#if canImport(Glibc)
import Glibc
#endif

/// Where a server listens: `ADDR:PORT` (TCP; `[v6]:PORT` for IPv6), `:PORT` (127.0.0.1), `unix:/path`, or
/// `systemd`: the listening sockets systemd passed (socket activation, `systemd/lodestar.socket`).
public enum ServerEndpoint: Sendable, Hashable, CustomStringConvertible {
    case tcp(host: String, port: Int)
    case unix(path: String)
    case systemd

    /// gpsd's port and the loopback address: gpsd's own default, so clients need no configuration.
    public static let gpsdDefault = ServerEndpoint.tcp(host: "127.0.0.1", port: 2947)
    /// NMEA 0183 over TCP: port 10110 (IANA "nmea-0183", used by OpenCPN and Signal K).
    public static let nmeaDefault = ServerEndpoint.tcp(host: "127.0.0.1", port: 10110)

    /// Parses `ADDR:PORT`, `:PORT`, `PORT`, `[v6]:PORT` or `unix:/path`; nil when malformed.
    public init?(parsing text: String, defaultPort: Int) {
        if text == "systemd" { self = .systemd; return }
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard !path.isEmpty else { return nil }
            self = .unix(path: path)
            return
        }
        if text.isEmpty { self = .tcp(host: "127.0.0.1", port: defaultPort); return }
        if let port = Int(text) {
            guard (1...65535).contains(port) else { return nil }
            self = .tcp(host: "127.0.0.1", port: port)
            return
        }
        var host: Substring, portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            portText = rest.hasPrefix(":") ? rest.dropFirst() : ""
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = Substring(text); portText = ""
        }
        if host.isEmpty { host = "127.0.0.1" }
        let port = portText.isEmpty ? defaultPort : Int(portText)
        guard let port, (1...65535).contains(port) else { return nil }
        self = .tcp(host: String(host), port: port)
    }

    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        case .systemd: "systemd"
        }
    }
}

/// The listening sockets systemd passes to a socket-activated service (sd_listen_fds(3)): `LISTEN_PID` must be this
/// process, `LISTEN_FDS` descriptors start at 3, `LISTEN_FDNAMES` (colon-separated) names them after the socket
/// unit's `FileDescriptorName=`. Read by hand — three environment variables — rather than linking libsystemd.
public enum SystemdSockets {
    /// Descriptors whose name is in `names` (an unnamed descriptor is called "unknown" by systemd; "" matches
    /// every name).
    public static func listening(named names: Set<String>) -> [Int32] {
        guard let pidText = getenv("LISTEN_PID").map({ String(cString: $0) }), pid_t(pidText) == getpid(),
              let countText = getenv("LISTEN_FDS").map({ String(cString: $0) }), let count = Int32(countText), count > 0
        else { return [] }
        let fdNames = getenv("LISTEN_FDNAMES").map { String(cString: $0).split(separator: ":", omittingEmptySubsequences: false).map(String.init) } ?? []
        var fds: [Int32] = []
        for i in 0..<count {
            let name = Int(i) < fdNames.count ? fdNames[Int(i)] : "unknown"
            guard names.contains("") || names.contains(name) else { continue }
            let fd = 3 + i
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)  // never inherited by a child (gpsd, a script)
            fds.append(fd)
        }
        return fds
    }
}

/// A server could not start; `description` is one line for `lodestar:`.
public enum ServerError: Error, CustomStringConvertible, Sendable {
    case addressInUse(ServerEndpoint, service: String)
    case bindFailed(ServerEndpoint, reason: String)

    public var description: String {
        switch self {
        case .addressInUse(let e, let service):
            var hint = ""
            if case .tcp(_, 2947) = e { hint = " (gpsd is probably running: stop it, or serve on another port with --serve ADDR:PORT)" }
            return "cannot serve \(service) on \(e): address already in use\(hint)"
        case .bindFailed(.systemd, let reason):
            return "cannot serve on the sockets from systemd: \(reason)"
        case .bindFailed(let e, let reason):
            return "cannot serve on \(e): \(reason)"
        }
    }
}
