/// Where a server listens: `ADDR:PORT` (TCP; `[v6]:PORT` for IPv6), `:PORT` (127.0.0.1) or `unix:/path`.
public enum ServerEndpoint: Sendable, Hashable, CustomStringConvertible {
    case tcp(host: String, port: Int)
    case unix(path: String)

    /// gpsd's port and the loopback address: gpsd's own default, so clients need no configuration.
    public static let gpsdDefault = ServerEndpoint.tcp(host: "127.0.0.1", port: 2947)
    /// NMEA 0183 over TCP: port 10110 (IANA "nmea-0183", used by OpenCPN and Signal K).
    public static let nmeaDefault = ServerEndpoint.tcp(host: "127.0.0.1", port: 10110)

    /// Parses `ADDR:PORT`, `:PORT`, `PORT`, `[v6]:PORT` or `unix:/path`; nil when malformed.
    public init?(parsing text: String, defaultPort: Int) {
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
        }
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
        case .bindFailed(let e, let reason):
            return "cannot serve on \(e): \(reason)"
        }
    }
}
