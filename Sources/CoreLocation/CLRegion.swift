#if !canImport(Darwin)
import Foundation
import LocationCore

/// A monitored area (CLRegion): an identifier and what to notify.
open class CLRegion: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    public static var supportsSecureCoding: Bool { true }

    var _identifier: String

    open var identifier: String { _identifier }
    open var notifyOnEntry: Bool = true
    open var notifyOnExit: Bool = true

    @available(*, deprecated, message: "Use CLCircularRegion")
    open var center: CLLocationCoordinate2D { kCLLocationCoordinate2DInvalid }
    @available(*, deprecated, message: "Use CLCircularRegion")
    open var radius: CLLocationDistance { 0 }

    init(identifier: String) { self._identifier = identifier }

    public override init() { _identifier = UUID().uuidString }

    public required init?(coder: NSCoder) {
        _identifier = (coder.decodeObject(forKey: "identifier") as? String) ?? ""
        notifyOnEntry = coder.decodeBool(forKey: "notifyOnEntry")
        notifyOnExit = coder.decodeBool(forKey: "notifyOnExit")
    }

    open func encode(with coder: NSCoder) {
        coder.encode(identifier, forKey: "identifier")
        coder.encode(notifyOnEntry, forKey: "notifyOnEntry")
        coder.encode(notifyOnExit, forKey: "notifyOnExit")
    }

    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// Regions are equal by identifier (as Core Location's monitoredRegions treats them).
    open override func isEqual(_ object: Any?) -> Bool {
        guard let o = object as? CLRegion else { return false }
        return o.identifier == identifier && type(of: o) == type(of: self)
    }
    open override var hash: Int { identifier.hashValue }
}

/// A circular geographic region (CLCircularRegion).
open class CLCircularRegion: CLRegion, @unchecked Sendable {
    private let centerStorage: CLLocationCoordinate2D
    private let radiusStorage: CLLocationDistance

    open override var center: CLLocationCoordinate2D { centerStorage }
    open override var radius: CLLocationDistance { radiusStorage }

    public init(center: CLLocationCoordinate2D, radius: CLLocationDistance, identifier: String) {
        centerStorage = center
        radiusStorage = radius
        super.init(identifier: identifier)
    }

    public required init?(coder: NSCoder) {
        centerStorage = CLLocationCoordinate2D(latitude: coder.decodeDouble(forKey: "latitude"),
                                               longitude: coder.decodeDouble(forKey: "longitude"))
        radiusStorage = coder.decodeDouble(forKey: "radius")
        super.init(coder: coder)
    }

    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(center.latitude, forKey: "latitude"); coder.encode(center.longitude, forKey: "longitude")
        coder.encode(radius, forKey: "radius")
    }

    open func contains(_ coordinate: CLLocationCoordinate2D) -> Bool {
        Geo.distanceMeters(center.latitude, center.longitude, coordinate.latitude, coordinate.longitude) <= radius
    }

    open override var description: String {
        "CLCircularRegion (identifier:'\(identifier)', center:<\(center.latitude),\(center.longitude)>, radius:\(radius))"
    }
}

/// Identifies beacons (CLBeaconIdentityConstraint, iOS 13+).
open class CLBeaconIdentityConstraint: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    public static var supportsSecureCoding: Bool { true }
    var _uuid: UUID
    open var uuid: UUID { _uuid }
    var _major: CLBeaconMajorValue?
    open var major: CLBeaconMajorValue? { _major }
    var _minor: CLBeaconMinorValue?
    open var minor: CLBeaconMinorValue? { _minor }

    public init(uuid: UUID) { self._uuid = uuid }
    public init(uuid: UUID, major: CLBeaconMajorValue) { self._uuid = uuid; self._major = major }
    public init(uuid: UUID, major: CLBeaconMajorValue, minor: CLBeaconMinorValue) {
        self._uuid = uuid; self._major = major; self._minor = minor
    }
    public required init?(coder: NSCoder) {
        guard let s = coder.decodeObject(forKey: "uuid") as? String, let u = UUID(uuidString: s) else { return nil }
        _uuid = u
    }
    open func encode(with coder: NSCoder) { coder.encode(uuid.uuidString, forKey: "uuid") }
    open func copy(with zone: NSZone? = nil) -> Any { self }
}

/// A beacon region (CLBeaconRegion). There is no Bluetooth ranging here: monitoring one fails with
/// `CLError.Code.regionMonitoringFailure`, ranging with `.rangingUnavailable`.
open class CLBeaconRegion: CLRegion, @unchecked Sendable {
    var _uuid: UUID
    open var uuid: UUID { _uuid }
    var _major: NSNumber?
    open var major: NSNumber? { _major }
    var _minor: NSNumber?
    open var minor: NSNumber? { _minor }
    var _beaconIdentityConstraint: CLBeaconIdentityConstraint
    open var beaconIdentityConstraint: CLBeaconIdentityConstraint { _beaconIdentityConstraint }
    open var notifyEntryStateOnDisplay: Bool = false

    @available(*, deprecated, renamed: "uuid")
    open var proximityUUID: UUID { uuid }

    public init(uuid: UUID, identifier: String) {
        self._uuid = uuid; _beaconIdentityConstraint = CLBeaconIdentityConstraint(uuid: uuid)
        super.init(identifier: identifier)
    }
    public init(uuid: UUID, major: CLBeaconMajorValue, identifier: String) {
        self._uuid = uuid; self._major = NSNumber(value: major)
        _beaconIdentityConstraint = CLBeaconIdentityConstraint(uuid: uuid, major: major)
        super.init(identifier: identifier)
    }
    public init(uuid: UUID, major: CLBeaconMajorValue, minor: CLBeaconMinorValue, identifier: String) {
        self._uuid = uuid; self._major = NSNumber(value: major); self._minor = NSNumber(value: minor)
        _beaconIdentityConstraint = CLBeaconIdentityConstraint(uuid: uuid, major: major, minor: minor)
        super.init(identifier: identifier)
    }
    public init(beaconIdentityConstraint: CLBeaconIdentityConstraint, identifier: String) {
        _uuid = beaconIdentityConstraint.uuid
        _major = beaconIdentityConstraint.major.map { NSNumber(value: $0) }
        _minor = beaconIdentityConstraint.minor.map { NSNumber(value: $0) }
        self._beaconIdentityConstraint = beaconIdentityConstraint
        super.init(identifier: identifier)
    }
    public required init?(coder: NSCoder) {
        guard let c = CLBeaconIdentityConstraint(coder: coder) else { return nil }
        _uuid = c.uuid; _beaconIdentityConstraint = c
        super.init(coder: coder)
    }
    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        beaconIdentityConstraint.encode(with: coder)
    }
    open func peripheralData(withMeasuredPower measuredPower: NSNumber?) -> NSMutableDictionary { NSMutableDictionary() }
}

/// A ranged beacon (CLBeacon); never produced here (no Bluetooth ranging).
open class CLBeacon: NSObject, @unchecked Sendable {
    open var uuid: UUID { UUID(uuidString: "00000000-0000-0000-0000-000000000000")! }
    open var major: NSNumber { NSNumber(value: 0) }
    open var minor: NSNumber { NSNumber(value: 0) }
    var _proximity: CLProximity = .unknown
    open var proximity: CLProximity { _proximity }
    var _accuracy: CLLocationAccuracy = -1
    open var accuracy: CLLocationAccuracy { _accuracy }
    var _rssi: Int = 0
    open var rssi: Int { _rssi }
    open var timestamp: Date { Date() }
    open var beaconIdentityConstraint: CLBeaconIdentityConstraint { CLBeaconIdentityConstraint(uuid: uuid) }
}
#endif
