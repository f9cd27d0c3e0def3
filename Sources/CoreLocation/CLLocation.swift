#if !canImport(Darwin)
import Foundation
import LocationCore

/// Where a location came from (CLLocationSourceInformation).
open class CLLocationSourceInformation: NSObject, @unchecked Sendable {
    var _isSimulatedBySoftware: Bool
    open var isSimulatedBySoftware: Bool { _isSimulatedBySoftware }
    var _isProducedByAccessory: Bool
    open var isProducedByAccessory: Bool { _isProducedByAccessory }
    public init(softwareSimulationState isSoftware: Bool, andExternalAccessoryState isAccessory: Bool) {
        _isSimulatedBySoftware = isSoftware
        _isProducedByAccessory = isAccessory
    }
    public override convenience init() { self.init(softwareSimulationState: false, andExternalAccessoryState: false) }
}

/// The floor of a building (CLFloor).
open class CLFloor: NSObject, @unchecked Sendable {
    var _level: Int
    open var level: Int { _level }
    init(level: Int) { self._level = level }
}

/// A location fix (CLLocation). Negative accuracies mean "invalid", as in Apple's.
open class CLLocation: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    public static var supportsSecureCoding: Bool { true }

    var _coordinate: CLLocationCoordinate2D

    open var coordinate: CLLocationCoordinate2D { _coordinate }
    var _altitude: CLLocationDistance
    open var altitude: CLLocationDistance { _altitude }
    var _ellipsoidalAltitude: CLLocationDistance
    open var ellipsoidalAltitude: CLLocationDistance { _ellipsoidalAltitude }
    var _horizontalAccuracy: CLLocationAccuracy
    open var horizontalAccuracy: CLLocationAccuracy { _horizontalAccuracy }
    var _verticalAccuracy: CLLocationAccuracy
    open var verticalAccuracy: CLLocationAccuracy { _verticalAccuracy }
    var _course: CLLocationDirection
    open var course: CLLocationDirection { _course }
    var _courseAccuracy: CLLocationDirectionAccuracy
    open var courseAccuracy: CLLocationDirectionAccuracy { _courseAccuracy }
    var _speed: CLLocationSpeed
    open var speed: CLLocationSpeed { _speed }
    var _speedAccuracy: CLLocationSpeedAccuracy
    open var speedAccuracy: CLLocationSpeedAccuracy { _speedAccuracy }
    var _timestamp: Date
    open var timestamp: Date { _timestamp }
    var _floor: CLFloor?
    open var floor: CLFloor? { _floor }
    var _sourceInformation: CLLocationSourceInformation?
    open var sourceInformation: CLLocationSourceInformation? { _sourceInformation }

    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        _coordinate = CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
        _altitude = 0; _ellipsoidalAltitude = 0; _horizontalAccuracy = 0; _verticalAccuracy = -1
        _course = -1; _courseAccuracy = -1; _speed = -1; _speedAccuracy = -1
        _timestamp = Date()
    }

    public init(coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy hAccuracy: CLLocationAccuracy,
                verticalAccuracy vAccuracy: CLLocationAccuracy, timestamp: Date) {
        self._coordinate = coordinate; self._altitude = altitude; _ellipsoidalAltitude = altitude
        _horizontalAccuracy = hAccuracy; _verticalAccuracy = vAccuracy
        _course = -1; _courseAccuracy = -1; _speed = -1; _speedAccuracy = -1
        self._timestamp = timestamp
    }

    public init(coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy hAccuracy: CLLocationAccuracy,
                verticalAccuracy vAccuracy: CLLocationAccuracy, course: CLLocationDirection, speed: CLLocationSpeed,
                timestamp: Date) {
        self._coordinate = coordinate; self._altitude = altitude; _ellipsoidalAltitude = altitude
        _horizontalAccuracy = hAccuracy; _verticalAccuracy = vAccuracy
        self._course = course; _courseAccuracy = -1; self._speed = speed; _speedAccuracy = -1
        self._timestamp = timestamp
    }

    public init(coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy hAccuracy: CLLocationAccuracy,
                verticalAccuracy vAccuracy: CLLocationAccuracy, course: CLLocationDirection,
                courseAccuracy: CLLocationDirectionAccuracy, speed: CLLocationSpeed, speedAccuracy: CLLocationSpeedAccuracy,
                timestamp: Date) {
        self._coordinate = coordinate; self._altitude = altitude; _ellipsoidalAltitude = altitude
        _horizontalAccuracy = hAccuracy; _verticalAccuracy = vAccuracy
        self._course = course; self._courseAccuracy = courseAccuracy; self._speed = speed; self._speedAccuracy = speedAccuracy
        self._timestamp = timestamp
    }

    public init(coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy hAccuracy: CLLocationAccuracy,
                verticalAccuracy vAccuracy: CLLocationAccuracy, course: CLLocationDirection,
                courseAccuracy: CLLocationDirectionAccuracy, speed: CLLocationSpeed, speedAccuracy: CLLocationSpeedAccuracy,
                timestamp: Date, sourceInfo: CLLocationSourceInformation) {
        self._coordinate = coordinate; self._altitude = altitude; _ellipsoidalAltitude = altitude
        _horizontalAccuracy = hAccuracy; _verticalAccuracy = vAccuracy
        self._course = course; self._courseAccuracy = courseAccuracy; self._speed = speed; self._speedAccuracy = speedAccuracy
        self._timestamp = timestamp
        _sourceInformation = sourceInfo
    }

    /// A location from the pipeline's fix (unknown values become Apple's "invalid" -1).
    convenience init(_ l: Location) {
        let msl = l.altitudeMSLMeters
        self.init(coordinate: CLLocationCoordinate2D(latitude: l.latitudeDegrees ?? kCLLocationCoordinate2DInvalid.latitude,
                                                     longitude: l.longitudeDegrees ?? kCLLocationCoordinate2DInvalid.longitude),
                  altitude: msl ?? 0, horizontalAccuracy: l.horizontalAccuracyMeters ?? -1,
                  verticalAccuracy: msl == nil ? -1 : (l.verticalAccuracyMeters ?? -1),
                  course: l.courseDegrees ?? -1, courseAccuracy: l.courseAccuracyDegrees ?? -1,
                  speed: l.speedMetersPerSecond ?? -1, speedAccuracy: l.speedAccuracyMetersPerSecond ?? -1,
                  timestamp: l.time.map { Date(timeIntervalSince1970: $0.secondsSince1970) } ?? Date())
        if let e = l.altitudeEllipsoidMeters ?? msl.flatMap({ m in l.geoidSeparationMeters.map { m + $0 } }) {
            _ellipsoidalAltitude = e
        }
    }

    public required init?(coder: NSCoder) {
        _coordinate = CLLocationCoordinate2D(latitude: coder.decodeDouble(forKey: "latitude"),
                                            longitude: coder.decodeDouble(forKey: "longitude"))
        _altitude = coder.decodeDouble(forKey: "altitude")
        _ellipsoidalAltitude = coder.decodeDouble(forKey: "ellipsoidalAltitude")
        _horizontalAccuracy = coder.decodeDouble(forKey: "horizontalAccuracy")
        _verticalAccuracy = coder.decodeDouble(forKey: "verticalAccuracy")
        _course = coder.decodeDouble(forKey: "course")
        _courseAccuracy = coder.decodeDouble(forKey: "courseAccuracy")
        _speed = coder.decodeDouble(forKey: "speed")
        _speedAccuracy = coder.decodeDouble(forKey: "speedAccuracy")
        _timestamp = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "timestamp"))
    }

    open func encode(with coder: NSCoder) {
        coder.encode(coordinate.latitude, forKey: "latitude"); coder.encode(coordinate.longitude, forKey: "longitude")
        coder.encode(altitude, forKey: "altitude"); coder.encode(ellipsoidalAltitude, forKey: "ellipsoidalAltitude")
        coder.encode(horizontalAccuracy, forKey: "horizontalAccuracy"); coder.encode(verticalAccuracy, forKey: "verticalAccuracy")
        coder.encode(course, forKey: "course"); coder.encode(courseAccuracy, forKey: "courseAccuracy")
        coder.encode(speed, forKey: "speed"); coder.encode(speedAccuracy, forKey: "speedAccuracy")
        coder.encode(timestamp.timeIntervalSinceReferenceDate, forKey: "timestamp")
    }

    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// Great-circle distance in metres (WGS 84 mean radius, as Core Location's).
    open func distance(from location: CLLocation) -> CLLocationDistance {
        Geo.distanceMeters(coordinate.latitude, coordinate.longitude, location.coordinate.latitude, location.coordinate.longitude)
    }

    @available(*, deprecated, renamed: "distance(from:)")
    open func getDistanceFrom(_ location: CLLocation) -> CLLocationDistance { distance(from: location) }

    open override var description: String {
        String(format: "<%+.8f,%+.8f> +/- %.2fm (speed %.2f mps / course %.2f) @ %@", coordinate.latitude,
               coordinate.longitude, horizontalAccuracy, speed, course, timestamp.description)
    }
}
#endif
