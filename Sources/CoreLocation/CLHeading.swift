#if !canImport(Darwin)
import Foundation

/// A compass heading (CLHeading): magnetic and true north in degrees, accuracy (negative: invalid), raw field.
open class CLHeading: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    public static var supportsSecureCoding: Bool { true }

    var _magneticHeading: CLLocationDirection

    open var magneticHeading: CLLocationDirection { _magneticHeading }
    /// -1 when true north is unknown (no location yet for the declination).
    var _trueHeading: CLLocationDirection
    open var trueHeading: CLLocationDirection { _trueHeading }
    var _headingAccuracy: CLLocationDirection
    open var headingAccuracy: CLLocationDirection { _headingAccuracy }
    var _x: CLHeadingComponentValue
    open var x: CLHeadingComponentValue { _x }
    var _y: CLHeadingComponentValue
    open var y: CLHeadingComponentValue { _y }
    var _z: CLHeadingComponentValue
    open var z: CLHeadingComponentValue { _z }
    var _timestamp: Date
    open var timestamp: Date { _timestamp }

    /// Apple gives CLHeading no public initializer; subclasses (mocks) call this one.
    public override init() {
        _magneticHeading = 0; _trueHeading = -1; _headingAccuracy = -1; _x = 0; _y = 0; _z = 0; _timestamp = Date()
    }

    init(magneticHeading: Double, trueHeading: Double, headingAccuracy: Double, timestamp: Date,
         x: Double = 0, y: Double = 0, z: Double = 0) {
        self._magneticHeading = magneticHeading; self._trueHeading = trueHeading; self._headingAccuracy = headingAccuracy
        _x = x; _y = y; _z = z; self._timestamp = timestamp
    }

    public required init?(coder: NSCoder) {
        _magneticHeading = coder.decodeDouble(forKey: "magneticHeading")
        _trueHeading = coder.decodeDouble(forKey: "trueHeading")
        _headingAccuracy = coder.decodeDouble(forKey: "headingAccuracy")
        _x = coder.decodeDouble(forKey: "x"); _y = coder.decodeDouble(forKey: "y"); _z = coder.decodeDouble(forKey: "z")
        _timestamp = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "timestamp"))
    }

    open func encode(with coder: NSCoder) {
        coder.encode(magneticHeading, forKey: "magneticHeading"); coder.encode(trueHeading, forKey: "trueHeading")
        coder.encode(headingAccuracy, forKey: "headingAccuracy")
        coder.encode(x, forKey: "x"); coder.encode(y, forKey: "y"); coder.encode(z, forKey: "z")
        coder.encode(timestamp.timeIntervalSinceReferenceDate, forKey: "timestamp")
    }

    open func copy(with zone: NSZone? = nil) -> Any { self }

    open override var description: String {
        String(format: "magneticHeading %.2f trueHeading %.2f accuracy %.2f", magneticHeading, trueHeading, headingAccuracy)
    }
}

/// A place the user visited (CLVisit): `arrivalDate` is `.distantPast` when unknown, `departureDate`
/// `.distantFuture` while the visit goes on.
open class CLVisit: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    public static var supportsSecureCoding: Bool { true }

    var _arrivalDate: Date

    open var arrivalDate: Date { _arrivalDate }
    var _departureDate: Date
    open var departureDate: Date { _departureDate }
    var _coordinate: CLLocationCoordinate2D
    open var coordinate: CLLocationCoordinate2D { _coordinate }
    var _horizontalAccuracy: CLLocationAccuracy
    open var horizontalAccuracy: CLLocationAccuracy { _horizontalAccuracy }

    public override init() {
        _arrivalDate = .distantPast; _departureDate = .distantFuture; _coordinate = kCLLocationCoordinate2DInvalid
        _horizontalAccuracy = -1
    }

    init(arrivalDate: Date, departureDate: Date, coordinate: CLLocationCoordinate2D, horizontalAccuracy: Double) {
        self._arrivalDate = arrivalDate; self._departureDate = departureDate; self._coordinate = coordinate
        self._horizontalAccuracy = horizontalAccuracy
    }

    public required init?(coder: NSCoder) {
        _arrivalDate = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "arrivalDate"))
        _departureDate = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "departureDate"))
        _coordinate = CLLocationCoordinate2D(latitude: coder.decodeDouble(forKey: "latitude"),
                                            longitude: coder.decodeDouble(forKey: "longitude"))
        _horizontalAccuracy = coder.decodeDouble(forKey: "horizontalAccuracy")
    }

    open func encode(with coder: NSCoder) {
        coder.encode(arrivalDate.timeIntervalSinceReferenceDate, forKey: "arrivalDate")
        coder.encode(departureDate.timeIntervalSinceReferenceDate, forKey: "departureDate")
        coder.encode(coordinate.latitude, forKey: "latitude"); coder.encode(coordinate.longitude, forKey: "longitude")
        coder.encode(horizontalAccuracy, forKey: "horizontalAccuracy")
    }

    open func copy(with zone: NSZone? = nil) -> Any { self }
}
#endif
