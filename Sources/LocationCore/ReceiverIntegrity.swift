/// What the receiver says about the integrity of its own signal chain (u-blox MON-HW / MON-RF / NAV-STATUS, and
/// any vendor that reports the same): jamming, spoofing and the antenna. Every field the receiver did not report
/// stays `.unknown` / nil. Carried on fixes (`Location.integrity`) and announced as status events when it changes.
public struct ReceiverIntegrity: Sendable, Hashable {
    /// u-blox `jammingState` (MON-HW flags bits 2–3, MON-RF): 0 unknown, 1 ok, 2 warning, 3 critical.
    public enum Jamming: String, Sendable, Hashable, CaseIterable {
        case unknown, ok, warning, critical
    }
    /// u-blox `spoofDetState` (NAV-STATUS flags2 bits 3–4): 0 unknown or deactivated, 1 no spoofing indicated,
    /// 2 spoofing indicated, 3 multiple spoofing indications.
    public enum Spoofing: String, Sendable, Hashable, CaseIterable {
        case unknown, none, indicated, multiple
    }
    /// u-blox antenna supervisor state `aStatus` (MON-HW, MON-RF): 0 init, 1 don't know, 2 ok, 3 short, 4 open.
    public enum Antenna: String, Sendable, Hashable, CaseIterable {
        case unknown, initializing, ok, short, open
    }

    public var jamming: Jamming = .unknown
    /// Continuous-wave jamming indicator, 0 (none) … 255 (strong) (MON-HW `jamInd`, MON-RF `jamInd`).
    public var jammingIndicator: Int?
    public var spoofing: Spoofing = .unknown
    public var antenna: Antenna = .unknown

    public init(jamming: Jamming = .unknown, jammingIndicator: Int? = nil, spoofing: Spoofing = .unknown,
                antenna: Antenna = .unknown) {
        self.jamming = jamming; self.jammingIndicator = jammingIndicator
        self.spoofing = spoofing; self.antenna = antenna
    }

    /// True when anything is reported as wrong (jamming warning or critical, spoofing, antenna short or open).
    public var isDegraded: Bool {
        jamming == .warning || jamming == .critical || spoofing == .indicated || spoofing == .multiple
            || antenna == .short || antenna == .open
    }
}

/// Who the receiver is, as it said itself (u-blox MON-VER, or what an NMEA-only receiver's sentences reveal).
public struct ReceiverIdentity: Sendable, Hashable {
    /// The protocol family gpsd names as the driver: "u-blox", "NMEA0183".
    public var driver: String
    /// Module name (MOD=ZED-F9P), firmware (FWVER=HPG 1.32), protocol version (PROTVER=27.31), when known.
    public var model: String?
    public var firmware: String?
    public var protocolVersion: String?
    /// The raw version strings: software and hardware version, then the extension strings (gpsd's `subtype`,
    /// `subtype1`).
    public var software: String?
    public var hardware: String?
    public var extensions: [String]

    public init(driver: String, model: String? = nil, firmware: String? = nil, protocolVersion: String? = nil,
                software: String? = nil, hardware: String? = nil, extensions: [String] = []) {
        self.driver = driver; self.model = model; self.firmware = firmware; self.protocolVersion = protocolVersion
        self.software = software; self.hardware = hardware; self.extensions = extensions
    }

    /// gpsd's DEVICE `subtype` ("SW …,HW …") and `subtype1` (the extensions joined by commas).
    public var subtype: String? {
        guard let software else { return nil }
        return hardware.map { "SW \(software),HW \($0)" } ?? "SW \(software)"
    }
    public var subtype1: String? { extensions.isEmpty ? nil : extensions.joined(separator: ",") }

    /// One line for a status event: "u-blox ZED-F9P, firmware HPG 1.32, protocol 27.31".
    public var summary: String {
        var parts = [driver + (model.map { " " + $0 } ?? "")]
        if let firmware { parts.append("firmware \(firmware)") }
        if let protocolVersion { parts.append("protocol \(protocolVersion)") }
        if firmware == nil, let software { parts.append("software \(software)") }
        return parts.joined(separator: ", ")
    }
}
