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
public struct Location: Sendable, Hashable {
    @usableFromInline var _time = PackedTimestamp()
    public var time: Timestamp? {
        @inlinable get { _time.value }
        @inlinable set { _time = PackedTimestamp(newValue) }
    }
    /// System clock (UTC) when the first byte of the cycle's first timed sentence arrived (live sources; the
    /// capture's stamp in replay). Not part of any output format: chrony's SOCK refclock compares it with `time`.
    @usableFromInline var _receiveTime = PackedTimestamp()
    public var receiveTime: Timestamp? {
        @inlinable get { _receiveTime.value }
        @inlinable set { _receiveTime = PackedTimestamp(newValue) }
    }
    /// Digits of the receiver's time stamp after the decimal point (0 for "225308", 2 for "225308.00").
    public var timeFractionDigits: Int = 0
    /// The receiver reported second 60 (a leap second, 23:59:60). `time` is then the POSIX instant, which
    /// equals the next second's; outputs write 23:59:60 (as gpsd does), so no two fixes show one time.
    public var isLeapSecond = false
    @usableFromInline var _latitudeDegrees = PackedDouble()
    public var latitudeDegrees: Double? {
        @inlinable get { _latitudeDegrees.value }
        @inlinable set { _latitudeDegrees = PackedDouble(newValue) }
    }
    @usableFromInline var _longitudeDegrees = PackedDouble()
    public var longitudeDegrees: Double? {
        @inlinable get { _longitudeDegrees.value }
        @inlinable set { _longitudeDegrees = PackedDouble(newValue) }
    }
    /// Altitude above mean sea level (the geoid).
    @usableFromInline var _altitudeMSLMeters = PackedDouble()
    public var altitudeMSLMeters: Double? {
        @inlinable get { _altitudeMSLMeters.value }
        @inlinable set { _altitudeMSLMeters = PackedDouble(newValue) }
    }
    /// Height above the WGS84 ellipsoid.
    @usableFromInline var _altitudeEllipsoidMeters = PackedDouble()
    public var altitudeEllipsoidMeters: Double? {
        @inlinable get { _altitudeEllipsoidMeters.value }
        @inlinable set { _altitudeEllipsoidMeters = PackedDouble(newValue) }
    }
    /// Geoid height above the ellipsoid (GGA field 11).
    @usableFromInline var _geoidSeparationMeters = PackedDouble()
    public var geoidSeparationMeters: Double? {
        @inlinable get { _geoidSeparationMeters.value }
        @inlinable set { _geoidSeparationMeters = PackedDouble(newValue) }
    }
    public var mode: FixMode = .unknown
    public var quality: FixQuality = .unknown
    @usableFromInline var _horizontalAccuracyMeters = PackedDouble()
    public var horizontalAccuracyMeters: Double? {
        @inlinable get { _horizontalAccuracyMeters.value }
        @inlinable set { _horizontalAccuracyMeters = PackedDouble(newValue) }
    }
    @usableFromInline var _verticalAccuracyMeters = PackedDouble()
    public var verticalAccuracyMeters: Double? {
        @inlinable get { _verticalAccuracyMeters.value }
        @inlinable set { _verticalAccuracyMeters = PackedDouble(newValue) }
    }
    /// 1-σ latitude / longitude / altitude errors from GST when present.
    @usableFromInline var _latitudeErrorMeters = PackedDouble()
    public var latitudeErrorMeters: Double? {
        @inlinable get { _latitudeErrorMeters.value }
        @inlinable set { _latitudeErrorMeters = PackedDouble(newValue) }
    }
    @usableFromInline var _longitudeErrorMeters = PackedDouble()
    public var longitudeErrorMeters: Double? {
        @inlinable get { _longitudeErrorMeters.value }
        @inlinable set { _longitudeErrorMeters = PackedDouble(newValue) }
    }
    @usableFromInline var _altitudeErrorMeters = PackedDouble()
    public var altitudeErrorMeters: Double? {
        @inlinable get { _altitudeErrorMeters.value }
        @inlinable set { _altitudeErrorMeters = PackedDouble(newValue) }
    }
    @usableFromInline var _speedMetersPerSecond = PackedDouble()
    public var speedMetersPerSecond: Double? {
        @inlinable get { _speedMetersPerSecond.value }
        @inlinable set { _speedMetersPerSecond = PackedDouble(newValue) }
    }
    @usableFromInline var _speedAccuracyMetersPerSecond = PackedDouble()
    public var speedAccuracyMetersPerSecond: Double? {
        @inlinable get { _speedAccuracyMetersPerSecond.value }
        @inlinable set { _speedAccuracyMetersPerSecond = PackedDouble(newValue) }
    }
    /// Course over ground, degrees clockwise from true north, [0, 360).
    @usableFromInline var _courseDegrees = PackedDouble()
    public var courseDegrees: Double? {
        @inlinable get { _courseDegrees.value }
        @inlinable set { _courseDegrees = PackedDouble(newValue) }
    }
    @usableFromInline var _courseAccuracyDegrees = PackedDouble()
    public var courseAccuracyDegrees: Double? {
        @inlinable get { _courseAccuracyDegrees.value }
        @inlinable set { _courseAccuracyDegrees = PackedDouble(newValue) }
    }
    /// Magnetic variation (declination), degrees, east positive.
    @usableFromInline var _magneticVariationDegrees = PackedDouble()
    public var magneticVariationDegrees: Double? {
        @inlinable get { _magneticVariationDegrees.value }
        @inlinable set { _magneticVariationDegrees = PackedDouble(newValue) }
    }
    @usableFromInline var _satellitesUsed = PackedInt()
    public var satellitesUsed: Int? {
        @inlinable get { _satellitesUsed.value }
        @inlinable set { _satellitesUsed = PackedInt(newValue) }
    }
    @usableFromInline var _satellitesVisible = PackedInt()
    public var satellitesVisible: Int? {
        @inlinable get { _satellitesVisible.value }
        @inlinable set { _satellitesVisible = PackedInt(newValue) }
    }
    @usableFromInline var _hdop = PackedDouble()
    public var hdop: Double? {
        @inlinable get { _hdop.value }
        @inlinable set { _hdop = PackedDouble(newValue) }
    }
    @usableFromInline var _vdop = PackedDouble()
    public var vdop: Double? {
        @inlinable get { _vdop.value }
        @inlinable set { _vdop = PackedDouble(newValue) }
    }
    @usableFromInline var _pdop = PackedDouble()
    public var pdop: Double? {
        @inlinable get { _pdop.value }
        @inlinable set { _pdop = PackedDouble(newValue) }
    }
    /// Age of differential corrections and the station id (GGA).
    @usableFromInline var _dgpsAgeSeconds = PackedDouble()
    public var dgpsAgeSeconds: Double? {
        @inlinable get { _dgpsAgeSeconds.value }
        @inlinable set { _dgpsAgeSeconds = PackedDouble(newValue) }
    }
    @usableFromInline var _dgpsStation = PackedInt()
    public var dgpsStation: Int? {
        @inlinable get { _dgpsStation.value }
        @inlinable set { _dgpsStation = PackedInt(newValue) }
    }
    /// Receiver-reported true heading (HDT/THS), degrees.
    @usableFromInline var _receiverHeadingDegrees = PackedDouble()
    public var receiverHeadingDegrees: Double? {
        @inlinable get { _receiverHeadingDegrees.value }
        @inlinable set { _receiverHeadingDegrees = PackedDouble(newValue) }
    }
    /// The receiver's own 1-σ accuracy of that heading, degrees (u-blox NAV-RELPOSNED `accHeading`); nil when the
    /// receiver gives none (HDT/THS): the heading estimator then assumes its documented default.
    @usableFromInline var _receiverHeadingAccuracyDegrees = PackedDouble()
    public var receiverHeadingAccuracyDegrees: Double? {
        @inlinable get { _receiverHeadingAccuracyDegrees.value }
        @inlinable set { _receiverHeadingAccuracyDegrees = PackedDouble(newValue) }
    }
    /// The accuracies are the receiver's own estimates (u-blox `hAcc`, `vAcc`, `sAcc`, `headAcc`), not derived from
    /// DOP × UERE: gpsd reports them as they are (`eph`, `epv`, `eps`, `epd`).
    public var accuracyFromReceiver = false
    /// The receiver's own 1-σ time accuracy, seconds (u-blox `tAcc`; gpsd TPV `ept`).
    @usableFromInline var _timeAccuracySeconds = PackedDouble()
    public var timeAccuracySeconds: Double? {
        @inlinable get { _timeAccuracySeconds.value }
        @inlinable set { _timeAccuracySeconds = PackedDouble(newValue) }
    }
    /// GPS − UTC leap seconds the receiver reported with this fix (gpsd TPV `leapseconds`).
    @usableFromInline var _leapSeconds = PackedInt()
    public var leapSeconds: Int? {
        @inlinable get { _leapSeconds.value }
        @inlinable set { _leapSeconds = PackedInt(newValue) }
    }
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
