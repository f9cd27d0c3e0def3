/// How many dimensions the receiver solved (gpsd's `mode`).
public enum FixMode: Int, Sendable, Hashable, Codable {
    /// Nothing known yet (gpsd mode 0).
    case unknown = 0
    /// The receiver reports no fix (gpsd mode 1).
    case noFix = 1
    case twoD = 2
    case threeD = 3

    public var name: String {
        switch self {
        case .unknown: "unknown"
        case .noFix: "none"
        case .twoD: "2d"
        case .threeD: "3d"
        }
    }
}

/// What kind of solution the receiver reports; raw values are gpsd's TPV `status` codes.
public enum FixQuality: Int, Sendable, Hashable, Codable {
    case unknown = 0
    case gps = 1
    case dgps = 2
    case rtkFixed = 3
    case rtkFloat = 4
    case deadReckoning = 5
    case gnssDeadReckoning = 6
    case timeOnly = 7
    case simulated = 8
    case pps = 9

    public var name: String {
        switch self {
        case .unknown: "unknown"
        case .gps: "gps"
        case .dgps: "dgps"
        case .rtkFixed: "rtkFixed"
        case .rtkFloat: "rtkFloat"
        case .deadReckoning: "deadReckoning"
        case .gnssDeadReckoning: "gnssDeadReckoning"
        case .timeOnly: "timeOnly"
        case .simulated: "simulated"
        case .pps: "pps"
        }
    }
}

/// One fused position fix. Every field the receiver did not report is nil, never 0.
/// Accuracies follow Core Location: horizontal/vertical are 68 % radii in metres.
/// The optional numbers are stored without an Optional's tag byte (`CompactDouble`, `CompactInt`,
/// `CompactTimestamp`): 288 bytes instead of 496, and the fix is copied at every stage of the pipeline. A NaN stored
/// in a `Double?` field reads back as nil (a field is a measurement or absent; no output writes NaN).
public struct Location: Sendable, Hashable {
    @CompactTimestamp public var time: Timestamp? = nil
    /// System clock (UTC) when the first byte of the cycle's first timed sentence arrived (live sources; the
    /// capture's stamp in replay). Not part of any output format: chrony's SOCK refclock compares it with `time`.
    @CompactTimestamp public var receiveTime: Timestamp? = nil
    /// Digits of the receiver's time stamp after the decimal point (0 for "225308", 2 for "225308.00").
    public var timeFractionDigits: Int = 0
    /// The receiver reported second 60 (a leap second, 23:59:60). `time` is then the POSIX instant, which
    /// equals the next second's; outputs write 23:59:60 (as gpsd does), so no two fixes show one time.
    public var isLeapSecond = false
    @CompactDouble public var latitudeDegrees: Double? = nil
    @CompactDouble public var longitudeDegrees: Double? = nil
    /// Altitude above mean sea level (the geoid).
    @CompactDouble public var altitudeMSLMeters: Double? = nil
    /// Height above the WGS84 ellipsoid.
    @CompactDouble public var altitudeEllipsoidMeters: Double? = nil
    /// Geoid height above the ellipsoid (GGA field 11).
    @CompactDouble public var geoidSeparationMeters: Double? = nil
    public var mode: FixMode = .unknown
    public var quality: FixQuality = .unknown
    @CompactDouble public var horizontalAccuracyMeters: Double? = nil
    @CompactDouble public var verticalAccuracyMeters: Double? = nil
    /// 1-σ latitude / longitude / altitude errors from GST when present.
    @CompactDouble public var latitudeErrorMeters: Double? = nil
    @CompactDouble public var longitudeErrorMeters: Double? = nil
    @CompactDouble public var altitudeErrorMeters: Double? = nil
    @CompactDouble public var speedMetersPerSecond: Double? = nil
    @CompactDouble public var speedAccuracyMetersPerSecond: Double? = nil
    /// Course over ground, degrees clockwise from true north, [0, 360).
    @CompactDouble public var courseDegrees: Double? = nil
    @CompactDouble public var courseAccuracyDegrees: Double? = nil
    /// Magnetic variation (declination), degrees, east positive.
    @CompactDouble public var magneticVariationDegrees: Double? = nil
    @CompactInt public var satellitesUsed: Int? = nil
    @CompactInt public var satellitesVisible: Int? = nil
    @CompactDouble public var hdop: Double? = nil
    @CompactDouble public var vdop: Double? = nil
    @CompactDouble public var pdop: Double? = nil
    /// Age of differential corrections and the station id (GGA).
    @CompactDouble public var dgpsAgeSeconds: Double? = nil
    @CompactInt public var dgpsStation: Int? = nil
    /// Receiver-reported true heading (HDT/THS), degrees.
    @CompactDouble public var receiverHeadingDegrees: Double? = nil
    /// The receiver's own 1-σ accuracy of that heading, degrees (u-blox NAV-RELPOSNED `accHeading`); nil when the
    /// receiver gives none (HDT/THS): the heading estimator then assumes its documented default.
    @CompactDouble public var receiverHeadingAccuracyDegrees: Double? = nil
    /// The accuracies are the receiver's own estimates (u-blox `hAcc`, `vAcc`, `sAcc`, `headAcc`), not derived from
    /// DOP × UERE: gpsd reports them as they are (`eph`, `epv`, `eps`, `epd`).
    public var accuracyFromReceiver = false
    /// The receiver's own 1-σ time accuracy, seconds (u-blox `tAcc`; gpsd TPV `ept`).
    @CompactDouble public var timeAccuracySeconds: Double? = nil
    /// GPS − UTC leap seconds the receiver reported with this fix (gpsd TPV `leapseconds`).
    @CompactInt public var leapSeconds: Int? = nil
    /// Jamming, spoofing and antenna state reported by the receiver (nil: the receiver reports none).
    public var integrity: ReceiverIntegrity?
    /// Whether the device is judged stationary (CLLocationUpdate.isStationary); nil when smoothing is off.
    public var isStationary: Bool?
    /// The position was smoothed by the motion-aided filter (false: as the receiver reported it).
    public var isSmoothed = false
    /// The current placemark (`--placemark`), recomputed only when the position moved significantly.
    public var placemark: PlacemarkSummary?

    public init() {}

    /// Magnetic course: true course minus the east-positive variation (gpsd gets this sign wrong; see docs/nmea.md).
    public var magneticCourseDegrees: Double? {
        guard let c = courseDegrees, let v = magneticVariationDegrees else { return nil }
        return Angle.normalizedDegrees(c - v)
    }
}

public enum Angle {
    /// Wraps degrees into [0, 360).
    @inline(__always)
    public static func normalizedDegrees(_ d: Double) -> Double {
        guard d.isFinite else { return d }
        var r = d.truncatingRemainder(dividingBy: 360)
        if r < 0 { r += 360 }
        if r >= 360 { r -= 360 }
        return r
    }

    /// Signed smallest difference a − b in (−180, 180].
    @inline(__always)
    public static func differenceDegrees(_ a: Double, _ b: Double) -> Double {
        var d = (a - b).truncatingRemainder(dividingBy: 360)
        if d > 180 { d -= 360 } else if d <= -180 { d += 360 }
        return d
    }
}
