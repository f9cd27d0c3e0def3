import LocationCore

/// Two-character talker id (`GP`, `GN`, `GL`, `GA`, `GB`, `BD`, `QZ`, `GI`, `IN`, `AP`, `HE`, `HC`, …),
/// stored as two bytes so comparisons never allocate.
public struct Talker: Hashable, Sendable, CustomStringConvertible {
    public let first: UInt8
    public let second: UInt8
    public init(_ first: UInt8, _ second: UInt8) { self.first = first; self.second = second }
    public init(_ text: StaticString) {
        let p = text.utf8Start
        self.init(p[0], p[1])
    }
    public var description: String { String(decoding: [first, second], as: UTF8.self) }

    /// The constellation this talker's satellites belong to, when the talker says so.
    public var constellation: Constellation? {
        switch (first, second) {
        case (0x47, 0x50): .gps                          // GP
        case (0x47, 0x4C): .glonass                      // GL
        case (0x47, 0x41): .galileo                      // GA
        case (0x47, 0x42), (0x42, 0x44): .beidou         // GB, BD
        case (0x47, 0x51), (0x51, 0x5A): .qzss           // GQ, QZ
        case (0x47, 0x49), (0x49, 0x4E): .navic          // GI, IN (NavIC)
        default: nil
        }
    }
}

/// A sentence formatter (`GGA`, `RMC`, …) packed into an integer for table dispatch.
public struct SentenceType: Hashable, Sendable, CustomStringConvertible {
    public let code: UInt32
    public init(code: UInt32) { self.code = code }
    public init(_ text: StaticString) {
        let p = text.utf8Start
        self.code = UInt32(p[0]) << 16 | UInt32(p[1]) << 8 | UInt32(p[2])
    }
    public var description: String {
        String(decoding: [UInt8(truncatingIfNeeded: code >> 16), UInt8(truncatingIfNeeded: code >> 8),
                          UInt8(truncatingIfNeeded: code)], as: UTF8.self)
    }
    public static let gga = SentenceType("GGA"), rmc = SentenceType("RMC"), gsa = SentenceType("GSA")
    public static let gsv = SentenceType("GSV"), vtg = SentenceType("VTG"), gll = SentenceType("GLL")
    public static let zda = SentenceType("ZDA"), gst = SentenceType("GST"), gns = SentenceType("GNS")
    public static let gbs = SentenceType("GBS"), hdt = SentenceType("HDT"), hdg = SentenceType("HDG")
    public static let hdm = SentenceType("HDM"), ths = SentenceType("THS"), rot = SentenceType("ROT")
    public static let txt = SentenceType("TXT"), dtm = SentenceType("DTM")
}

/// FAA mode indicator (NMEA 2.3+ RMC/GLL/VTG/GNS): what kind of solution a sentence describes.
public enum ModeIndicator: UInt8, Sendable, Hashable {
    case autonomous = 0x41      // A
    case differential = 0x44    // D
    case estimated = 0x45       // E (dead reckoning)
    case floatRTK = 0x46        // F
    case manual = 0x4D          // M
    case notValid = 0x4E        // N
    case precise = 0x50         // P
    case fixedRTK = 0x52        // R
    case simulator = 0x53       // S

    public var quality: FixQuality? {
        switch self {
        case .autonomous, .precise: .gps
        case .differential: .dgps
        case .estimated: .deadReckoning
        case .floatRTK: .rtkFloat
        case .fixedRTK: .rtkFixed
        case .manual: .timeOnly
        case .simulator: .simulated
        case .notValid: nil
        }
    }
}

public struct GGA: Sendable, Hashable {
    public var time: NMEATime?
    @CompactDouble public var latitudeDegrees: Double? = nil
    @CompactDouble public var longitudeDegrees: Double? = nil
    /// GGA quality digit 0–8 as sent.
    @CompactInt public var qualityIndicator: Int? = nil
    @CompactInt public var satellitesUsed: Int? = nil
    @CompactDouble public var hdop: Double? = nil
    @CompactDouble public var altitudeMSLMeters: Double? = nil
    @CompactDouble public var geoidSeparationMeters: Double? = nil
    @CompactDouble public var dgpsAgeSeconds: Double? = nil
    @CompactInt public var dgpsStation: Int? = nil

    public var quality: FixQuality? {
        switch qualityIndicator {
        case 1: .gps
        case 2, 9: .dgps
        case 3: .pps
        case 4: .rtkFixed
        case 5: .rtkFloat
        case 6: .deadReckoning
        case 7: .timeOnly
        case 8: .simulated
        default: nil
        }
    }
}

public struct RMC: Sendable, Hashable {
    public var time: NMEATime?
    /// true for status A (valid), false for V, nil when empty.
    public var valid: Bool?
    @CompactDouble public var latitudeDegrees: Double? = nil
    @CompactDouble public var longitudeDegrees: Double? = nil
    @CompactDouble public var speedKnots: Double? = nil
    @CompactDouble public var courseTrueDegrees: Double? = nil
    public var date: NMEADate?
    /// East positive.
    @CompactDouble public var magneticVariationDegrees: Double? = nil
    public var mode: ModeIndicator?
    /// NMEA 4.1 navigational status (S safe, C caution, U unsafe, V not valid).
    public var navigationalStatus: UInt8?
}

public struct GSA: Sendable, Hashable {
    /// M manual / A automatic 2D-3D switching.
    public var selectionMode: UInt8?
    /// 1 no fix, 2 2D, 3 3D.
    @CompactInt public var fixType: Int? = nil
    public var satelliteIDs: FixedList<16, Int16>
    @CompactDouble public var pdop: Double? = nil
    @CompactDouble public var hdop: Double? = nil
    @CompactDouble public var vdop: Double? = nil
    /// NMEA 4.11 GNSS system id (1 GPS, 2 GLONASS, 3 Galileo, 4 BeiDou, 5 QZSS, 6 NavIC).
    @CompactInt public var systemID: Int? = nil

}

/// One satellite of a GSV sentence. Stored compactly (Float, NaN for "not given") because GSV sentences are
/// the most frequent and the parse path copies them; values read back as Double? (nil when not given).
public struct GSVSatellite: Sendable, Hashable {
    private var storedID: Int32
    private var elevation: Float
    private var azimuth: Float
    private var snr: Float

    public init(id: Int, elevationDegrees: Double?, azimuthDegrees: Double?, snrDBHz: Double?) {
        storedID = Int32(truncatingIfNeeded: id)
        elevation = elevationDegrees.map { Float($0) } ?? .nan
        azimuth = azimuthDegrees.map { Float($0) } ?? .nan
        snr = snrDBHz.map { Float($0) } ?? .nan
    }

    public var id: Int { Int(storedID) }
    public var elevationDegrees: Double? { elevation.isNaN ? nil : Double(elevation) }
    public var azimuthDegrees: Double? { azimuth.isNaN ? nil : Double(azimuth) }
    public var snrDBHz: Double? { snr.isNaN ? nil : Double(snr) }

    public static func == (a: Self, b: Self) -> Bool {
        a.storedID == b.storedID && a.elevationDegrees == b.elevationDegrees && a.azimuthDegrees == b.azimuthDegrees
            && a.snrDBHz == b.snrDBHz
    }
    public func hash(into h: inout Hasher) {
        h.combine(storedID); h.combine(elevationDegrees); h.combine(azimuthDegrees); h.combine(snrDBHz)
    }
}

public struct GSV: Sendable, Hashable {
    @CompactInt public var totalMessages: Int? = nil
    @CompactInt public var messageNumber: Int? = nil
    @CompactInt public var satellitesInView: Int? = nil
    public var satellites: FixedList<4, GSVSatellite>
    /// NMEA 4.1 signal id (last field when the field count says so).
    @CompactInt public var signalID: Int? = nil
}

public struct VTG: Sendable, Hashable {
    @CompactDouble public var courseTrueDegrees: Double? = nil
    @CompactDouble public var courseMagneticDegrees: Double? = nil
    @CompactDouble public var speedKnots: Double? = nil
    @CompactDouble public var speedKilometersPerHour: Double? = nil
    public var mode: ModeIndicator?
}

public struct GLL: Sendable, Hashable {
    @CompactDouble public var latitudeDegrees: Double? = nil
    @CompactDouble public var longitudeDegrees: Double? = nil
    public var time: NMEATime?
    public var valid: Bool?
    public var mode: ModeIndicator?
}

public struct ZDA: Sendable, Hashable {
    public var time: NMEATime?
    @CompactInt public var day: Int? = nil
    @CompactInt public var month: Int? = nil
    @CompactInt public var year: Int? = nil
    @CompactInt public var localZoneHours: Int? = nil
    @CompactInt public var localZoneMinutes: Int? = nil
}

/// GNSS pseudorange error statistics: 1-σ errors in metres.
public struct GST: Sendable, Hashable {
    public var time: NMEATime?
    @CompactDouble public var rmsRange: Double? = nil
    @CompactDouble public var semiMajorMeters: Double? = nil
    @CompactDouble public var semiMinorMeters: Double? = nil
    @CompactDouble public var orientationDegrees: Double? = nil
    @CompactDouble public var latitudeErrorMeters: Double? = nil
    @CompactDouble public var longitudeErrorMeters: Double? = nil
    @CompactDouble public var altitudeErrorMeters: Double? = nil
}

public struct GNS: Sendable, Hashable {
    public var time: NMEATime?
    @CompactDouble public var latitudeDegrees: Double? = nil
    @CompactDouble public var longitudeDegrees: Double? = nil
    /// One mode character per constellation (GPS, GLONASS, Galileo, BeiDou, …), first ones only.
    public var modes: FixedList<6, UInt8>
    @CompactInt public var satellitesUsed: Int? = nil
    @CompactDouble public var hdop: Double? = nil
    @CompactDouble public var altitudeMSLMeters: Double? = nil
    @CompactDouble public var geoidSeparationMeters: Double? = nil
    @CompactDouble public var dgpsAgeSeconds: Double? = nil
    @CompactInt public var dgpsStation: Int? = nil
    public var navigationalStatus: UInt8?

    /// The best mode among the constellations.
    public var bestMode: ModeIndicator? {
        var best: ModeIndicator?
        func rank(_ m: ModeIndicator) -> Int {
            switch m {
            case .fixedRTK: 7
            case .floatRTK: 6
            case .precise, .differential: 5
            case .autonomous: 4
            case .estimated: 3
            case .manual, .simulator: 2
            case .notValid: 0
            }
        }
        for c in modes {
            if let m = ModeIndicator(rawValue: c), best.map({ rank(m) > rank($0) }) ?? true { best = m }
        }
        return best
    }
}

/// GNSS satellite fault detection (RAIM): expected errors, 1-σ metres.
public struct GBS: Sendable, Hashable {
    public var time: NMEATime?
    @CompactDouble public var latitudeErrorMeters: Double? = nil
    @CompactDouble public var longitudeErrorMeters: Double? = nil
    @CompactDouble public var altitudeErrorMeters: Double? = nil
    @CompactInt public var failedSatellite: Int? = nil
    @CompactDouble public var probabilityOfMissedDetection: Double? = nil
    @CompactDouble public var biasMeters: Double? = nil
    @CompactDouble public var biasStandardDeviationMeters: Double? = nil
}

public struct HDT: Sendable, Hashable { public var headingTrueDegrees: Double? }
public struct HDM: Sendable, Hashable { public var headingMagneticDegrees: Double? }
public struct HDG: Sendable, Hashable {
    public var headingMagneticSensorDegrees: Double?
    /// Deviation and variation, east positive.
    public var deviationDegrees: Double?
    public var variationDegrees: Double?
}
public struct THS: Sendable, Hashable {
    public var headingTrueDegrees: Double?
    /// A autonomous, E estimated, M manual, S simulator, V not valid.
    public var mode: UInt8?
}
public struct ROT: Sendable, Hashable {
    /// Rate of turn, degrees per minute; negative turns to port.
    public var degreesPerMinute: Double?
    public var valid: Bool?
}
public struct TXT: Sendable, Hashable {
    public var totalMessages: Int?
    public var messageNumber: Int?
    public var identifier: Int?
    public var text: String?
}
public struct DTM: Sendable, Hashable {
    public var localDatum: String?
    public var localDatumSubdivision: String?
    public var latitudeOffsetMinutes: Double?
    public var longitudeOffsetMinutes: Double?
    public var altitudeOffsetMeters: Double?
    public var referenceDatum: String?
}

/// A parsed sentence. Proprietary sentences (`$P…`) are recognised and passed through with their raw text.
public enum NMEASentence: Sendable, Hashable {
    case gga(GGA), rmc(RMC), gsa(GSA), gsv(GSV), vtg(VTG), gll(GLL), zda(ZDA), gst(GST), gns(GNS), gbs(GBS)
    case hdt(HDT), hdg(HDG), hdm(HDM), ths(THS), rot(ROT), txt(TXT), dtm(DTM)
    /// `$P` + manufacturer: the address (e.g. `PGRME`, `PUBX`) is kept; fields are not interpreted.
    case proprietary(address: String)
    /// A well-formed standard sentence of a type Lodestar does not interpret (e.g. `RMB`, `BOD`).
    case unsupported(SentenceType)
}

public struct ParsedSentence: Sendable, Hashable {
    /// nil for proprietary sentences.
    public var talker: Talker?
    public var type: SentenceType?
    public var sentence: NMEASentence
}
