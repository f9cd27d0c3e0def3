/// GNSS constellations with gpsd's `gnssid` numbering.
public enum Constellation: Int, Sendable, Hashable {
    case gps = 0, sbas = 1, galileo = 2, beidou = 3, imes = 4, qzss = 5, glonass = 6, navic = 7, unknown = 255

    public var name: String {
        switch self {
        case .gps: "GPS"
        case .sbas: "SBAS"
        case .galileo: "Galileo"
        case .beidou: "BeiDou"
        case .imes: "IMES"
        case .qzss: "QZSS"
        case .glonass: "GLONASS"
        case .navic: "NavIC"
        case .unknown: "unknown"
        }
    }
}

public struct SatelliteInfo: Sendable, Hashable {
    /// The satellite number as the receiver's NMEA gave it.
    public var nmeaID: Int
    public var constellation: Constellation
    /// The satellite's number inside its constellation (gpsd's `svid`).
    public var svid: Int
    public var elevationDegrees: Double?
    public var azimuthDegrees: Double?
    /// Carrier-to-noise density, dB-Hz.
    public var snrDBHz: Double?
    public var used: Bool
    /// NMEA 4.1 signal id (GSV last field), when given.
    public var signalID: Int?

    public init(nmeaID: Int, constellation: Constellation, svid: Int, elevationDegrees: Double? = nil,
                azimuthDegrees: Double? = nil, snrDBHz: Double? = nil, used: Bool = false, signalID: Int? = nil) {
        self.nmeaID = nmeaID; self.constellation = constellation; self.svid = svid
        self.elevationDegrees = elevationDegrees; self.azimuthDegrees = azimuthDegrees
        self.snrDBHz = snrDBHz; self.used = used; self.signalID = signalID
    }
}

/// Satellites in view and dilution of precision for one epoch.
public struct SkyReport: Sendable, Hashable {
    public var time: Timestamp?
    public var satellites: [SatelliteInfo] = []
    public var hdop: Double?
    public var vdop: Double?
    public var pdop: Double?
    public var satellitesUsed: Int?
    public init() {}
}
