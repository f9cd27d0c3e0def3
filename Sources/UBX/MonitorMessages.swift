import LocationCore

/// UBX-MON-VER (0x0A 0x04): software and hardware version, and extension strings (`FWVER=HPG 1.32`,
/// `PROTVER=27.31`, `MOD=ZED-F9P`, the GNSS list). 40 + 30·N bytes.
public struct MonVER: Sendable, Hashable {
    public var softwareVersion: String
    public var hardwareVersion: String
    public var extensions: [String]

    public init(softwareVersion: String, hardwareVersion: String, extensions: [String] = []) {
        self.softwareVersion = softwareVersion; self.hardwareVersion = hardwareVersion; self.extensions = extensions
    }

    public init?(payload: UnsafeBufferPointer<UInt8>) {
        guard payload.count >= 40, (payload.count - 40) % 30 == 0 else { return nil }
        let p = LittleEndian(payload)
        softwareVersion = p.string(0, length: 30)
        hardwareVersion = p.string(30, length: 10)
        extensions = stride(from: 40, to: payload.count, by: 30).map { p.string($0, length: 30) }.filter { !$0.isEmpty }
    }

    /// The value of an extension `KEY=value` (`FWVER`, `PROTVER`, `MOD`), nil when absent.
    public func value(_ key: String) -> String? {
        for e in extensions where e.hasPrefix(key + "=") { return String(e.dropFirst(key.count + 1)) }
        return nil
    }

    public var firmwareVersion: String? { value("FWVER") }
    public var module: String? { value("MOD") }
    /// `PROTVER=27.31` (or the older `PROTVER 14.00`) as 27.31.
    public var protocolVersion: Double? {
        if let v = value("PROTVER") { return Double(v) }
        for e in extensions where e.hasPrefix("PROTVER ") { return Double(e.dropFirst(8)) }
        return nil
    }

    /// The receiver generation: 9 for F9 (protocol 27–33), 10 for M10 (34–39), 20 for X20 (≥ 40), 8 for
    /// u-blox 8 (15–23), 7 (14), 6 (12–13); from the hardware version when no protocol version is reported.
    public var generation: Int? {
        if let v = protocolVersion {
            switch v {
            case 40...: return 20
            case 34..<40: return 10
            case 27..<34: return 9
            case 15..<27: return 8
            case 14..<15: return 7
            case 12..<14: return 6
            default: return 5
            }
        }
        switch hardwareVersion {
        case "00190000": return 9
        case "000A0000": return 10
        case "00080000": return 8
        case "00070000": return 7
        case "00040007": return 6
        case "00040005": return 5
        case "00040001": return 4
        default: return nil
        }
    }

    /// One line for a status message: `u-blox ZED-F9P HPG 1.32 PROTVER 27.31`.
    public var summary: String {
        var parts = ["u-blox"]
        if let m = module { parts.append(m) }
        if let f = firmwareVersion { parts.append(f) } else { parts.append(softwareVersion) }
        if let v = value("PROTVER") { parts.append("PROTVER \(v)") }
        return parts.joined(separator: " ")
    }
}

/// UBX-MON-HW (0x0A 0x09): hardware status, antenna and jamming. 60 bytes (68 on u-blox 6 and older).
public struct MonHW: Sendable, Hashable {
    public var noisePerMillisecond: Int
    public var agcCount: Int
    /// aStatus: 0 init, 1 don't know, 2 ok, 3 short, 4 open.
    public var antennaStatus: Int
    public var antennaPower: Int
    /// flags jammingState: 0 unknown, 1 ok, 2 warning, 3 critical.
    public var jammingState: Int
    /// Continuous-wave jamming indicator 0–255.
    public var jammingIndicator: Int

    public init?(payload: UnsafeBufferPointer<UInt8>) {
        guard payload.count == 60 || payload.count == 68 else { return nil }
        let p = LittleEndian(payload)
        noisePerMillisecond = Int(p.u2(16))
        agcCount = Int(p.u2(18))
        antennaStatus = Int(p.u1(20))
        antennaPower = Int(p.u1(21))
        jammingState = Int((p.u1(22) >> 2) & 3)
        jammingIndicator = Int(p.u1(payload.count == 60 ? 45 : 53))
    }
}

/// UBX-MON-RF (0x0A 0x38, F9+): per RF block antenna and jamming state. 4 + 24·nBlocks bytes.
public struct MonRF: Sendable, Hashable {
    public struct Block: Sendable, Hashable {
        public var blockID: Int
        public var jammingState: Int
        public var antennaStatus: Int
        public var antennaPower: Int
        public var noisePerMillisecond: Int
        public var agcCount: Int
        public var jammingIndicator: Int
    }
    public var version: Int
    public var blocks: [Block]

    public init?(payload: UnsafeBufferPointer<UInt8>) {
        let p = LittleEndian(payload)
        guard payload.count >= 4 else { return nil }
        let n = Int(p.u1(1))
        guard payload.count == 4 + 24 * n else { return nil }
        version = Int(p.u1(0))
        blocks = (0..<n).map { k in
            let o = 4 + 24 * k
            return Block(blockID: Int(p.u1(o)), jammingState: Int(p.u1(o + 1) & 3), antennaStatus: Int(p.u1(o + 2)),
                         antennaPower: Int(p.u1(o + 3)), noisePerMillisecond: Int(p.u2(o + 12)),
                         agcCount: Int(p.u2(o + 14)), jammingIndicator: Int(p.u1(o + 16)))
        }
    }
}

extension ReceiverIntegrity.Jamming {
    /// From u-blox jammingState.
    init(ublox state: Int) {
        switch state {
        case 1: self = .ok
        case 2: self = .warning
        case 3: self = .critical
        default: self = .unknown
        }
    }
}

extension ReceiverIntegrity.Antenna {
    /// From u-blox aStatus.
    init(ublox status: Int) {
        switch status {
        case 0: self = .initializing
        case 2: self = .ok
        case 3: self = .short
        case 4: self = .open
        default: self = .unknown
        }
    }
}

extension ReceiverIntegrity.Spoofing {
    /// From u-blox spoofDetState.
    init(ublox state: Int) {
        switch state {
        case 1: self = .none
        case 2: self = .indicated
        case 3: self = .multiple
        default: self = .unknown
        }
    }
}
