#if !canImport(Darwin)
import Foundation

/// A compass heading (CLHeading): magnetic and true north in degrees, accuracy (negative: invalid), raw field.
open class CLHeading: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    public static var supportsSecureCoding: Bool { true }

    open private(set) var magneticHeading: CLLocationDirection
    /// -1 when true north is unknown (no location yet for the declination).
    open private(set) var trueHeading: CLLocationDirection
    open private(set) var headingAccuracy: CLLocationDirection
    open private(set) var x: CLHeadingComponentValue
    open private(set) var y: CLHeadingComponentValue
    open private(set) var z: CLHeadingComponentValue
    open private(set) var timestamp: Date

    /// Apple gives CLHeading no public initializer; subclasses (mocks) call this one.
    public override init() {
        magneticHeading = 0; trueHeading = -1; headingAccuracy = -1; x = 0; y = 0; z = 0; timestamp = Date()
    }

    init(magneticHeading: Double, trueHeading: Double, headingAccuracy: Double, timestamp: Date) {
        self.magneticHeading = magneticHeading; self.trueHeading = trueHeading; self.headingAccuracy = headingAccuracy
        x = 0; y = 0; z = 0; self.timestamp = timestamp
    }

    public required init?(coder: NSCoder) {
        magneticHeading = coder.decodeDouble(forKey: "magneticHeading")
        trueHeading = coder.decodeDouble(forKey: "trueHeading")
        headingAccuracy = coder.decodeDouble(forKey: "headingAccuracy")
        x = coder.decodeDouble(forKey: "x"); y = coder.decodeDouble(forKey: "y"); z = coder.decodeDouble(forKey: "z")
        timestamp = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "timestamp"))
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

    open private(set) var arrivalDate: Date
    open private(set) var departureDate: Date
    open private(set) var coordinate: CLLocationCoordinate2D
    open private(set) var horizontalAccuracy: CLLocationAccuracy

    public override init() {
        arrivalDate = .distantPast; departureDate = .distantFuture; coordinate = kCLLocationCoordinate2DInvalid
        horizontalAccuracy = -1
    }

    init(arrivalDate: Date, departureDate: Date, coordinate: CLLocationCoordinate2D, horizontalAccuracy: Double) {
        self.arrivalDate = arrivalDate; self.departureDate = departureDate; self.coordinate = coordinate
        self.horizontalAccuracy = horizontalAccuracy
    }

    public required init?(coder: NSCoder) {
        arrivalDate = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "arrivalDate"))
        departureDate = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "departureDate"))
        coordinate = CLLocationCoordinate2D(latitude: coder.decodeDouble(forKey: "latitude"),
                                            longitude: coder.decodeDouble(forKey: "longitude"))
        horizontalAccuracy = coder.decodeDouble(forKey: "horizontalAccuracy")
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
