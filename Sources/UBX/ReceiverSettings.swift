/// What `lodestar receiver configure` (and the config file's `receiver-*` keys) ask of a receiver, independent of
/// its vendor and generation. Every field is optional: nil leaves the receiver's setting alone.
public struct ReceiverSettings: Sendable, Hashable {
    public var rateHertz: Double?
    public var constellations: Set<Constellation>?
    public var dynamicModel: DynamicModel?
    /// Output rates per message: 1 = every navigation epoch, 0 = off.
    public var messages: [MessageRate]
    public var baudRate: Int?

    public init(rateHertz: Double? = nil, constellations: Set<Constellation>? = nil, dynamicModel: DynamicModel? = nil,
                messages: [MessageRate] = [], baudRate: Int? = nil) {
        self.rateHertz = rateHertz; self.constellations = constellations; self.dynamicModel = dynamicModel
        self.messages = messages; self.baudRate = baudRate
    }

    /// Nothing to change.
    public var isEmpty: Bool {
        rateHertz == nil && constellations == nil && dynamicModel == nil && messages.isEmpty && baudRate == nil
    }

    /// Highest navigation rate accepted (u-blox F9 RTK tops out near 20–25 Hz; the measurement period's floor is 25 ms).
    public static let maximumRateHertz = 40.0
    /// Lowest: one measurement every 65.535 s (the 16-bit measurement period in ms).
    public static let minimumRateHertz = 1000.0 / 65_535

    public enum Constellation: String, Sendable, Hashable, CaseIterable, Comparable {
        case gps, galileo, glonass, beidou, qzss, sbas, navic
        public static func < (a: Self, b: Self) -> Bool {
            allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
        }
    }

    /// u-blox dynamic platform models, with their CFG-NAVSPG-DYNMODEL / CFG-NAV5 dynModel numbers.
    public enum DynamicModel: String, Sendable, Hashable, CaseIterable {
        case portable, stationary, pedestrian, automotive, sea, airborne1g, airborne2g, airborne4g, wrist, bike, mower, escooter

        public var ubloxValue: UInt8 {
            switch self {
            case .portable: 0
            case .stationary: 2
            case .pedestrian: 3
            case .automotive: 4
            case .sea: 5
            case .airborne1g: 6
            case .airborne2g: 7
            case .airborne4g: 8
            case .wrist: 9
            case .bike: 10
            case .mower: 11
            case .escooter: 12
            }
        }
    }

    public struct MessageRate: Sendable, Hashable {
        public var message: OutputMessage
        /// Per navigation epoch: 1 every epoch, 2 every other, 0 off.
        public var rate: Int
        public init(_ message: OutputMessage, rate: Int) { self.message = message; self.rate = rate }
    }

    /// Messages `--messages` can switch, with their UBX class/id (NMEA standard messages are class 0xF0) and
    /// generation-9 CFG-MSGOUT keys for UART1 and USB.
    public enum OutputMessage: String, Sendable, Hashable, CaseIterable {
        case navPVT = "nav-pvt", navEOE = "nav-eoe", navSAT = "nav-sat", navDOP = "nav-dop", navSTATUS = "nav-status",
             navHPPOSLLH = "nav-hpposllh", navRELPOSNED = "nav-relposned", navATT = "nav-att", navPVAT = "nav-pvat",
             monHW = "mon-hw", monRF = "mon-rf", gga, rmc, gsa, gsv, vtg, gll, zda, gst

        public var classAndID: (UInt8, UInt8) {
            switch self {
            case .navPVT: (0x01, 0x07)
            case .navEOE: (0x01, 0x61)
            case .navSAT: (0x01, 0x35)
            case .navDOP: (0x01, 0x04)
            case .navSTATUS: (0x01, 0x03)
            case .navHPPOSLLH: (0x01, 0x14)
            case .navRELPOSNED: (0x01, 0x3C)
            case .navATT: (0x01, 0x05)
            case .navPVAT: (0x01, 0x17)
            case .monHW: (0x0A, 0x09)
            case .monRF: (0x0A, 0x38)
            case .gga: (0xF0, 0x00)
            case .gll: (0xF0, 0x01)
            case .gsa: (0xF0, 0x02)
            case .gsv: (0xF0, 0x03)
            case .rmc: (0xF0, 0x04)
            case .vtg: (0xF0, 0x05)
            case .gst: (0xF0, 0x07)
            case .zda: (0xF0, 0x08)
            }
        }

        /// CFG-MSGOUT-… keys (UART1, USB); the USB key is the UART1 key + 2 for every message here.
        public var uart1Key: UInt32 {
            switch self {
            case .navPVT: 0x2091_0007
            case .navEOE: 0x2091_0160
            case .navSAT: 0x2091_0016
            case .navDOP: 0x2091_0039
            case .navSTATUS: 0x2091_001B
            case .navHPPOSLLH: 0x2091_0034
            case .navRELPOSNED: 0x2091_008E
            case .navATT: 0x2091_0020
            case .navPVAT: 0x2091_062B
            case .monHW: 0x2091_01B5
            case .monRF: 0x2091_035A
            case .gga: 0x2091_00BB
            case .rmc: 0x2091_00AC
            case .gsa: 0x2091_00C0
            case .gsv: 0x2091_00C5
            case .vtg: 0x2091_00B1
            case .gll: 0x2091_00CA
            case .zda: 0x2091_00D9
            case .gst: 0x2091_00D4
            }
        }

        public var displayName: String { rawValue.uppercased() }
    }
}

/// A value that does not parse: one line naming the setting, the value and what is accepted.
public struct ReceiverSettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension ReceiverSettings {
    /// `5`, `0.5`, `10` Hz.
    public static func parseRate(_ text: String) throws(ReceiverSettingsError) -> Double {
        guard let v = Double(text.trimmed), v.isFinite, v >= minimumRateHertz, v <= maximumRateHertz else {
            throw ReceiverSettingsError("rate '\(text)': expected a number of Hz from 0.016 to \(Int(maximumRateHertz)), e.g. 5")
        }
        return v
    }

    /// `gps,galileo,glonass` (any of gps, galileo, glonass, beidou, qzss, sbas, navic; at least one).
    public static func parseConstellations(_ text: String) throws(ReceiverSettingsError) -> Set<Constellation> {
        var out = Set<Constellation>()
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = String(part).trimmed.lowercased()
            guard let c = Constellation(rawValue: name) else {
                throw ReceiverSettingsError("constellation '\(name)' is unknown (known: "
                                            + Constellation.allCases.map(\.rawValue).joined(separator: ", ") + ")")
            }
            out.insert(c)
        }
        guard !out.isEmpty else { throw ReceiverSettingsError("constellations: give at least one, e.g. gps,galileo") }
        return out
    }

    public static func parseDynamicModel(_ text: String) throws(ReceiverSettingsError) -> DynamicModel {
        guard let m = DynamicModel(rawValue: text.trimmed.lowercased()) else {
            throw ReceiverSettingsError("dynamic model '\(text)' is unknown (known: "
                                        + DynamicModel.allCases.map(\.rawValue).joined(separator: ", ") + ")")
        }
        return m
    }

    /// `nav-pvt,nav-eoe=1,gsv=0`: NAME[=RATE], RATE 0–255 per epoch (default 1).
    public static func parseMessages(_ text: String) throws(ReceiverSettingsError) -> [MessageRate] {
        var out: [MessageRate] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { String($0).trimmed }
            guard let m = OutputMessage(rawValue: pieces[0].lowercased()) else {
                throw ReceiverSettingsError("message '\(pieces[0])' is unknown (known: "
                                            + OutputMessage.allCases.map(\.rawValue).joined(separator: ", ") + ")")
            }
            var rate = 1
            if pieces.count == 2 {
                guard let r = Int(pieces[1]), (0...255).contains(r) else {
                    throw ReceiverSettingsError("message rate '\(pieces[1])' for \(pieces[0]): expected 0 (off) to 255 (per epoch)")
                }
                rate = r
            }
            out.removeAll { $0.message == m }
            out.append(MessageRate(m, rate: rate))
        }
        return out
    }

    /// Rates a u-blox UART takes.
    public static let ubloxBaudRates = [4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600]

    public static func parseBaudRate(_ text: String) throws(ReceiverSettingsError) -> Int {
        guard let v = Int(text.trimmed), ubloxBaudRates.contains(v) else {
            throw ReceiverSettingsError("baud rate '\(text)': expected one of "
                                        + ubloxBaudRates.map(String.init).joined(separator: ", "))
        }
        return v
    }

    /// One line for status messages and the CLI: `rate 5 Hz, constellations gps+galileo, dynamic model automotive`.
    public var summary: String {
        var parts: [String] = []
        if let r = rateHertz { parts.append("rate \(Self.format(r)) Hz") }
        if let c = constellations { parts.append("constellations " + c.sorted().map(\.rawValue).joined(separator: "+")) }
        if let d = dynamicModel { parts.append("dynamic model \(d.rawValue)") }
        if !messages.isEmpty { parts.append("messages " + messages.map { "\($0.message.rawValue)=\($0.rate)" }.joined(separator: ",")) }
        if let b = baudRate { parts.append("baud \(b)") }
        return parts.isEmpty ? "nothing" : parts.joined(separator: ", ")
    }

    static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : String(v)
    }
}

extension String {
    fileprivate var trimmed: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
