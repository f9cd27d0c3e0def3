/// `ntrip://USER@HOST[:PORT]/MOUNT` (docs/ntrip.md). No password in the URL: it comes from a file, as for MQTT.
public struct NTRIPURL: Sendable, Hashable, CustomStringConvertible {
    public var user: String?
    public var host: String
    public var port: Int
    /// Empty for the source table.
    public var mountpoint: String

    public static let defaultPort = 2101

    public init(user: String? = nil, host: String, port: Int = defaultPort, mountpoint: String) {
        self.user = user; self.host = host; self.port = port; self.mountpoint = mountpoint
    }

    public init(parsing text: String) throws(NTRIPError) {
        func bad(_ reason: String) -> NTRIPError { .badURL("\"\(text)\": \(reason) (expected ntrip://USER@HOST[:PORT]/MOUNT)") }
        guard text.hasPrefix("ntrip://") else { throw bad("the scheme must be ntrip://") }
        var rest = Substring(text.dropFirst("ntrip://".count))
        var user: String?
        if let at = rest.lastIndex(of: "@") {
            let u = rest[..<at]
            if u.contains(":") { throw bad("no password in the URL: use --ntrip-password-file") }
            guard !u.isEmpty else { throw bad("empty user before @") }
            user = String(u)
            rest = rest[rest.index(after: at)...]
        }
        var mount = ""
        if let slash = rest.firstIndex(of: "/") {
            mount = String(rest[rest.index(after: slash)...])
            rest = rest[..<slash]
        }
        guard !mount.isEmpty else { throw bad("missing /MOUNT") }
        guard mount.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "/" }) else { throw bad("mountpoint \"\(mount)\" has spaces or slashes") }
        let (host, port) = try Self.hostPort(String(rest), fail: bad)
        self.init(user: user, host: host, port: port, mountpoint: mount)
    }

    /// `HOST[:PORT]` (IPv6 in brackets).
    public static func hostPort(_ text: String, fail: (String) -> NTRIPError) throws(NTRIPError) -> (String, Int) {
        var host = Substring(text), portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw fail("unclosed [ in IPv6 address") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("expected :PORT after ]") }
                portText = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]; portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-_:".contains($0)) }) else {
            throw fail("invalid host \"\(host)\"")
        }
        var port = defaultPort
        if let portText {
            guard let p = Int(portText), (1...65535).contains(p) else { throw fail("port \"\(portText)\" is not a number in 1…65535") }
            port = p
        }
        return (String(host), port)
    }

    public var description: String {
        "ntrip://" + (user.map { "\($0)@" } ?? "") + (host.contains(":") ? "[\(host)]" : host) + ":\(port)/\(mountpoint)"
    }
}

public enum NTRIPError: Error, Sendable, Hashable, CustomStringConvertible {
    case badURL(String)
    case connect(String)
    case refused(String)
    case protocolError(String)
    case closed

    public var description: String {
        switch self {
        case .badURL(let s): "invalid NTRIP URL \(s)"
        case .connect(let s), .refused(let s), .protocolError(let s): s
        case .closed: "the caster closed the connection"
        }
    }
}

/// One `STR` line of a caster's source table (NTRIP 2.0, table 7).
public struct NTRIPStream: Sendable, Hashable {
    public var mountpoint: String
    public var identifier: String
    public var format: String
    public var formatDetails: String
    public var navigationSystem: String
    public var country: String
    public var latitudeDegrees: Double?
    public var longitudeDegrees: Double?
    /// The caster wants the client's position (GGA): VRS and nearest-base mountpoints.
    public var needsNMEA: Bool

    /// Parses `STR;mount;identifier;format;format-details;carrier;nav-system;network;country;lat;lon;nmea;…`;
    /// nil for other lines or too few fields.
    public init?(line: String) {
        let f = line.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        guard f.count >= 12, f[0] == "STR", !f[1].isEmpty else { return nil }
        mountpoint = f[1]; identifier = f[2]; format = f[3]; formatDetails = f[4]; navigationSystem = f[6]; country = f[8]
        latitudeDegrees = Double(f[9]); longitudeDegrees = Double(f[10])
        needsNMEA = f[11] == "1"
    }

    public static func table(_ text: String) -> [NTRIPStream] {
        text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).compactMap {
            NTRIPStream(line: String($0).trimmingCharacters(while: { $0 == "\r" || $0 == " " }))
        }
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(while p: (Character) -> Bool) -> String {
        var s = Substring(self)
        while let f = s.first, p(f) { s = s.dropFirst() }
        while let l = s.last, p(l) { s = s.dropLast() }
        return String(s)
    }
}

/// HTTP/1.1 chunked transfer decoding, fed in arbitrary pieces (NTRIP 2.0 casters use it).
public struct ChunkedDecoder: Sendable {
    private enum State: Sendable { case size, sizeExtension, sizeLF, data(Int), dataCR, dataLF, done }
    private var state = State.size
    private var size = 0
    private var sizeDigits = 0
    public private(set) var failed = false
    public var isDone: Bool { if case .done = state { true } else { false } }
    public init() {}

    /// The payload bytes in `input`; sets `failed` (and returns what came before) on a malformed stream.
    public mutating func decode(_ input: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < input.count, !failed {
            let b = input[i]
            switch state {
            case .size:
                if let v = Self.hex(b) {
                    size = size * 16 + v; sizeDigits += 1
                    if sizeDigits > 7 { failed = true }
                } else if b == 0x0D { state = .sizeLF }
                else if b == 0x3B { state = .sizeExtension }
                else { failed = true }
                i += 1
            case .sizeExtension:
                if b == 0x0D { state = .sizeLF }
                i += 1
            case .sizeLF:
                guard b == 0x0A, sizeDigits > 0 else { failed = true; break }
                state = size == 0 ? .done : .data(size)
                i += 1
            case .data(let left):
                let n = min(left, input.count - i)
                out += input[i..<(i + n)]
                i += n
                state = left - n == 0 ? .dataCR : .data(left - n)
            case .dataCR:
                guard b == 0x0D else { failed = true; break }
                state = .dataLF; i += 1
            case .dataLF:
                guard b == 0x0A else { failed = true; break }
                state = .size; size = 0; sizeDigits = 0; i += 1
            case .done:
                i = input.count
            }
        }
        return out
    }

    private static func hex(_ b: UInt8) -> Int? {
        switch b {
        case 0x30...0x39: Int(b - 0x30)
        case 0x41...0x46: Int(b - 0x41 + 10)
        case 0x61...0x66: Int(b - 0x61 + 10)
        default: nil
        }
    }
}
