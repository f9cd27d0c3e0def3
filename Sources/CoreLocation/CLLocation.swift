#if !canImport(Darwin)
import Foundation
import LocationCore

/// Where a location came from (CLLocationSourceInformation).
open class CLLocationSourceInformation: NSObject, @unchecked Sendable {
    open private(set) var isSimulatedBySoftware: Bool
    open private(set) var isProducedByAccessory: Bool
    public init(softwareSimulationState isSoftware: Bool, andExternalAccessoryState isAccessory: Bool) {
        isSimulatedBySoftware = isSoftware
        isProducedByAccessory = isAccessory
    }
    public override convenience init() { self.init(softwareSimulationState: false, andExternalAccessoryState: false) }
}

/// The floor of a building (CLFloor).
open class CLFloor: NSObject, @unchecked Sendable {
    open private(set) var level: Int
    init(level: Int) { self.level = level }
}

/// A location fix (CLLocation). Negative accuracies mean "invalid", as in Apple's.
open class CLLocation: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    public static var supportsSecureCoding: Bool { true }

    open private(set) var coordinate: CLLocationCoordinate2D
    open private(set) var altitude: CLLocationDistance
    open private(set) var ellipsoidalAltitude: CLLocationDistance
    open private(set) var horizontalAccuracy: CLLocationAccuracy
    open private(set) var verticalAccuracy: CLLocationAccuracy
    open private(set) var course: CLLocationDirection
    open private(set) var courseAccuracy: CLLocationDirectionAccuracy
    open private(set) var speed: CLLocationSpeed
    open private(set) var speedAccuracy: CLLocationSpeedAccuracy
    open private(set) var timestamp: Date
    open private(set) var floor: CLFloor?
    open private(set) var sourceInformation: CLLocationSourceInformation?

    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        coordinate = CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
        altitude = 0; ellipsoidalAltitude = 0; horizontalAccuracy = 0; verticalAccuracy = -1
        course = -1; courseAccuracy = -1; speed = -1; speedAccuracy = -1
        timestamp = Date()
    }

    public init(coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy hAccuracy: CLLocationAccuracy,
                verticalAccuracy vAccuracy: CLLocationAccuracy, timestamp: Date) {
        self.coordinate = coordinate; self.altitude = altitude; ellipsoidalAltitude = altitude
        horizontalAccuracy = hAccuracy; verticalAccuracy = vAccuracy
        course = -1; courseAccuracy = -1; speed = -1; speedAccuracy = -1
        self.timestamp = timestamp
    }

    public init(coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy hAccuracy: CLLocationAccuracy,
                verticalAccuracy vAccuracy: CLLocationAccuracy, course: CLLocationDirection, speed: CLLocationSpeed,
                timestamp: Date) {
        self.coordinate = coordinate; self.altitude = altitude; ellipsoidalAltitude = altitude
        horizontalAccuracy = hAccuracy; verticalAccuracy = vAccuracy
        self.course = course; courseAccuracy = -1; self.speed = speed; speedAccuracy = -1
        self.timestamp = timestamp
    }

    public init(coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy hAccuracy: CLLocationAccuracy,
                verticalAccuracy vAccuracy: CLLocationAccuracy, course: CLLocationDirection,
                courseAccuracy: CLLocationDirectionAccuracy, speed: CLLocationSpeed, speedAccuracy: CLLocationSpeedAccuracy,
                timestamp: Date) {
        self.coordinate = coordinate; self.altitude = altitude; ellipsoidalAltitude = altitude
        horizontalAccuracy = hAccuracy; verticalAccuracy = vAccuracy
        self.course = course; self.courseAccuracy = courseAccuracy; self.speed = speed; self.speedAccuracy = speedAccuracy
        self.timestamp = timestamp
    }

    public init(coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy hAccuracy: CLLocationAccuracy,
                verticalAccuracy vAccuracy: CLLocationAccuracy, course: CLLocationDirection,
                courseAccuracy: CLLocationDirectionAccuracy, speed: CLLocationSpeed, speedAccuracy: CLLocationSpeedAccuracy,
                timestamp: Date, sourceInfo: CLLocationSourceInformation) {
        self.coordinate = coordinate; self.altitude = altitude; ellipsoidalAltitude = altitude
        horizontalAccuracy = hAccuracy; verticalAccuracy = vAccuracy
        self.course = course; self.courseAccuracy = courseAccuracy; self.speed = speed; self.speedAccuracy = speedAccuracy
        self.timestamp = timestamp
        sourceInformation = sourceInfo
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
            ellipsoidalAltitude = e
        }
    }

    public required init?(coder: NSCoder) {
        coordinate = CLLocationCoordinate2D(latitude: coder.decodeDouble(forKey: "latitude"),
                                            longitude: coder.decodeDouble(forKey: "longitude"))
        altitude = coder.decodeDouble(forKey: "altitude")
        ellipsoidalAltitude = coder.decodeDouble(forKey: "ellipsoidalAltitude")
        horizontalAccuracy = coder.decodeDouble(forKey: "horizontalAccuracy")
        verticalAccuracy = coder.decodeDouble(forKey: "verticalAccuracy")
        course = coder.decodeDouble(forKey: "course")
        courseAccuracy = coder.decodeDouble(forKey: "courseAccuracy")
        speed = coder.decodeDouble(forKey: "speed")
        speedAccuracy = coder.decodeDouble(forKey: "speedAccuracy")
        timestamp = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "timestamp"))
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
