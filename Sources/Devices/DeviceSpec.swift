/// A serial line's rate: fixed, or found by autobaud.
public enum BaudSetting: Sendable, Hashable, CustomStringConvertible {
    case fixed(Int)
    case automatic

    public var description: String {
        switch self {
        case .fixed(let rate): "\(rate)"
        case .automatic: "auto"
        }
    }
}

/// Where a GNSS receiver is, as given to the CLI's `--gps`:
///
/// - `/dev/ttyUSB0@9600` — a serial device at a fixed rate (any rate, standard or not: `@250000`)
/// - `/dev/ttyUSB0` or `/dev/ttyUSB0@auto` — a serial device, rate found by autobaud
/// - `gpsd://host:port/device` — a gpsd daemon; host defaults to `localhost`, port to 2947, the device
///   (gpsd's path for it, e.g. `/dev/ttyACM0`) is optional; IPv6 hosts in brackets: `gpsd://[::1]:2947`
///
/// `description` gives the canonical form, which parses back to the same value.
public enum DeviceSpec: Sendable, Hashable, CustomStringConvertible {
    case serial(path: String, baud: BaudSetting)
    case gpsd(host: String, port: Int, device: String?)

    public static let defaultGPSDHost = "localhost"
    public static let defaultGPSDPort = 2947

    public init(parsing text: String) throws(DeviceSpecError) {
        let input = text.trimmingSpaces
        func fail(_ reason: String) -> DeviceSpecError { DeviceSpecError(input: text, reason: reason) }
        guard !input.isEmpty else { throw fail("empty device") }
        if let schemeEnd = input.firstRange(of: "://") {
            let scheme = input[..<schemeEnd.lowerBound].lowercased()
            guard scheme == "gpsd" else { throw fail("unknown scheme \"\(scheme)\" (only gpsd:// is supported)") }
            self = try Self.parseGPSD(String(input[schemeEnd.upperBound...]), fail: fail)
            return
        }
        self = try Self.parseSerial(input, fail: fail)
    }

    private static func parseSerial(_ input: String, fail: (String) -> DeviceSpecError) throws(DeviceSpecError) -> DeviceSpec {
        var path = input
        var baud = BaudSetting.automatic
        if let at = input.lastIndex(of: "@") {
            path = String(input[..<at])
            let rate = String(input[input.index(after: at)...])
            if rate.lowercased() == "auto" {
                baud = .automatic
            } else if rate.isEmpty {
                throw fail("missing baud rate after \"@\" (e.g. @9600 or @auto)")
            } else if rate.allSatisfy({ $0.isASCII && $0.isNumber }) {
                guard let value = Int(rate), SerialPort.supportedRates.contains(value) else {
                    throw fail("baud rate \(rate) is outside \(SerialPort.supportedRates.lowerBound)…\(SerialPort.supportedRates.upperBound)")
                }
                baud = .fixed(value)
            } else {
                throw fail("baud rate \"\(rate)\" is not a number or \"auto\"")
            }
        }
        guard !path.isEmpty else { throw fail("missing device path before \"@\"") }
        guard path.hasPrefix("/") else { throw fail("serial device must be an absolute path such as /dev/ttyUSB0") }
        return .serial(path: path, baud: baud)
    }

    private static func parseGPSD(_ rest: String, fail: (String) -> DeviceSpecError) throws(DeviceSpecError) -> DeviceSpec {
        var authority = Substring(rest)
        var device: String?
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            let path = String(rest[slash...])
            device = path == "/" ? nil : path
        }
        var host = Substring("")
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw fail("unclosed \"[\" in IPv6 address") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("expected \":port\" after \"]\"") }
                portText = after.dropFirst()
            }
            guard !host.isEmpty else { throw fail("empty IPv6 address in brackets") }
        } else {
            let colons = authority.filter { $0 == ":" }.count
            guard colons <= 1 else { throw fail("IPv6 addresses need brackets: gpsd://[::1]:2947") }
            if let colon = authority.firstIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                host = authority
            }
            guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") }) else {
                throw fail("invalid host name \"\(host)\"")
            }
        }
        var port = defaultGPSDPort
        if let portText {
            guard !portText.isEmpty, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(portText),
                  (1...65535).contains(value) else {
                throw fail("port \"\(portText)\" is not a number in 1…65535")
            }
            port = value
        }
        return .gpsd(host: host.isEmpty ? defaultGPSDHost : String(host), port: port, device: device)
    }

    public var description: String {
        switch self {
        case .serial(let path, .automatic): path.contains("@") ? "\(path)@auto" : path
        case .serial(let path, .fixed(let rate)): "\(path)@\(rate)"
        case .gpsd(let host, let port, let device):
            "gpsd://\(host.contains(":") ? "[\(host)]" : host):\(port)\(device ?? "")"
        }
    }

    /// The live source for this spec, named `name` in status events and captures.
    public func makeSource(name: String = "gps0", gpsdMode: GPSDSource.Mode = .nmea) -> any LiveSource {
        switch self {
        case .serial(let path, let baud): SerialSource(name: name, path: path, baud: baud)
        case .gpsd(let host, let port, let device): GPSDSource(name: name, host: host, port: port, device: device, mode: gpsdMode)
        }
    }
}

/// A `--gps` value that does not parse, with the reason and the accepted forms.
public struct DeviceSpecError: Error, Sendable, Hashable, CustomStringConvertible {
    public let input: String
    public let reason: String

    public var description: String {
        "invalid device \"\(input)\": \(reason). Expected /dev/ttyUSB0 (autobaud), /dev/ttyUSB0@9600, "
            + "/dev/ttyUSB0@auto or gpsd://host:port/device"
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
