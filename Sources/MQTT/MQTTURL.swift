/// `mqtt[s]://[user@]host[:port]/topic-prefix` (docs/fleet.md). No password in the URL: it comes from a file.
public struct MQTTURL: Sendable, Hashable, CustomStringConvertible {
    public var useTLS: Bool
    public var username: String?
    public var host: String
    public var port: Int
    /// Topic prefix without leading or trailing '/', e.g. `lodestar` or `fleet/vans` (default `lodestar`).
    public var topicPrefix: String

    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    public init(useTLS: Bool = false, username: String? = nil, host: String, port: Int? = nil, topicPrefix: String = "lodestar") {
        self.useTLS = useTLS; self.username = username; self.host = host
        self.port = port ?? (useTLS ? 8883 : 1883); self.topicPrefix = topicPrefix
    }

    public init(parsing text: String) throws(ParseError) {
        func bad(_ m: String) -> ParseError { ParseError(message: "\(text): \(m) (expected mqtt[s]://[user@]host[:port]/topic-prefix)") }
        var rest: Substring
        if text.hasPrefix("mqtt://") { useTLS = false; rest = text.dropFirst(7) }
        else if text.hasPrefix("mqtts://") { useTLS = true; rest = text.dropFirst(8) }
        else { throw bad("scheme must be mqtt:// or mqtts://") }
        var authority = rest
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") { authority = rest[..<slash]; path = rest[rest.index(after: slash)...] }
        username = nil
        if let at = authority.lastIndex(of: "@") {
            let user = authority[..<at]
            if user.contains(":") { throw bad("no password in the URL: use --mqtt-password-file") }
            guard !user.isEmpty else { throw bad("empty user name") }
            username = String(user)
            authority = authority[authority.index(after: at)...]
        }
        var hostPart = authority
        var portNumber: Int? = nil
        if hostPart.hasPrefix("[") {   // [IPv6]:port
            guard let close = hostPart.firstIndex(of: "]") else { throw bad("unclosed '['") }
            let after = hostPart[hostPart.index(after: close)...]
            if after.hasPrefix(":") {
                guard let p = Int(after.dropFirst()) else { throw bad("bad port") }
                portNumber = p
            } else if !after.isEmpty { throw bad("bad host") }
            hostPart = hostPart[hostPart.index(after: hostPart.startIndex)..<close]
        } else if let colon = hostPart.lastIndex(of: ":") {
            guard let p = Int(hostPart[hostPart.index(after: colon)...]) else { throw bad("bad port") }
            portNumber = p
            hostPart = hostPart[..<colon]
        }
        guard !hostPart.isEmpty else { throw bad("missing host") }
        if let p = portNumber, !(1...65535).contains(p) { throw bad("port must be 1…65535") }
        host = String(hostPart)
        port = portNumber ?? (useTLS ? 8883 : 1883)
        while path.hasSuffix("/") { path = path.dropLast() }
        if path.isEmpty { path = "lodestar" }
        if path.contains("+") || path.contains("#") { throw bad("the topic prefix cannot contain + or #") }
        if path.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) { throw bad("empty topic level in the prefix") }
        topicPrefix = String(path)
    }

    public var description: String {
        "\(useTLS ? "mqtts" : "mqtt")://\(username.map { $0 + "@" } ?? "")\(host.contains(":") ? "[\(host)]" : host):\(port)/\(topicPrefix)"
    }

    /// True when `name` can be one topic level (a device id): non-empty, no '/', '+', '#' or NUL.
    public static func isValidTopicLevel(_ name: String) -> Bool {
        !name.isEmpty && !name.contains(where: { $0 == "/" || $0 == "+" || $0 == "#" || $0 == "\0" })
    }
}
