#if !canImport(Darwin)
import Foundation
import Contacts
import LocationCore
import Geocoding

/// A geocoding result (CLPlacemark). Fields the bundled data cannot give (street, postal code, areas of interest)
/// are nil, never invented.
open class CLPlacemark: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    public static var supportsSecureCoding: Bool { true }

    var _location: CLLocation?

    open var location: CLLocation? { _location }
    var _region: CLRegion?
    open var region: CLRegion? { _region }
    var _timeZone: TimeZone?
    open var timeZone: TimeZone? { _timeZone }
    var _name: String?
    open var name: String? { _name }
    var _thoroughfare: String?
    open var thoroughfare: String? { _thoroughfare }
    var _subThoroughfare: String?
    open var subThoroughfare: String? { _subThoroughfare }
    var _locality: String?
    open var locality: String? { _locality }
    var _subLocality: String?
    open var subLocality: String? { _subLocality }
    var _administrativeArea: String?
    open var administrativeArea: String? { _administrativeArea }
    var _subAdministrativeArea: String?
    open var subAdministrativeArea: String? { _subAdministrativeArea }
    var _postalCode: String?
    open var postalCode: String? { _postalCode }
    var _isoCountryCode: String?
    open var isoCountryCode: String? { _isoCountryCode }
    var _country: String?
    open var country: String? { _country }
    var _inlandWater: String?
    open var inlandWater: String? { _inlandWater }
    var _ocean: String?
    open var ocean: String? { _ocean }
    var _areasOfInterest: [String]?
    open var areasOfInterest: [String]? { _areasOfInterest }

    /// The address as Contacts' postal address (nil when there is no country: offshore).
    open var postalAddress: CNPostalAddress? {
        guard country != nil || isoCountryCode != nil else { return nil }
        let a = CNMutablePostalAddress()
        a.street = [subThoroughfare, thoroughfare].compactMap { $0 }.joined(separator: " ")
        a.subLocality = subLocality ?? ""
        a.city = locality ?? ""
        a.subAdministrativeArea = subAdministrativeArea ?? ""
        a.state = administrativeArea ?? ""
        a.postalCode = postalCode ?? ""
        a.country = country ?? ""
        a.isoCountryCode = isoCountryCode ?? ""
        return a
    }

    public init(placemark: CLPlacemark) {
        _location = placemark.location; _region = placemark.region; _timeZone = placemark.timeZone; _name = placemark.name
        _thoroughfare = placemark.thoroughfare; _subThoroughfare = placemark.subThoroughfare; _locality = placemark.locality
        _subLocality = placemark.subLocality; _administrativeArea = placemark.administrativeArea
        _subAdministrativeArea = placemark.subAdministrativeArea; _postalCode = placemark.postalCode
        _isoCountryCode = placemark.isoCountryCode; _country = placemark.country; _inlandWater = placemark.inlandWater
        _ocean = placemark.ocean; _areasOfInterest = placemark.areasOfInterest
    }

    /// For subclasses (mocks), as CLPlacemark has no other public initializer.
    public override init() {}

    init(_ p: Placemark) {
        if let l = p.location { _location = CLLocation(l) }
        if let r = p.region {
            _region = CLCircularRegion(center: CLLocationCoordinate2D(latitude: r.centerLatitudeDegrees, longitude: r.centerLongitudeDegrees),
                                      radius: r.radiusMeters, identifier: p.name ?? p.locality ?? "")
        }
        _timeZone = p.timeZone.flatMap { TimeZone(identifier: $0) }
        _name = p.name ?? p.ocean
        _locality = p.locality; _subLocality = p.subLocality
        _administrativeArea = p.administrativeArea; _subAdministrativeArea = p.subAdministrativeArea
        _isoCountryCode = p.isoCountryCode; _country = p.country; _ocean = p.ocean
    }

    public required init?(coder: NSCoder) {
        func s(_ k: String) -> String? { coder.decodeObject(forKey: k) as? String }
        _name = s("name"); _thoroughfare = s("thoroughfare"); _subThoroughfare = s("subThoroughfare"); _locality = s("locality")
        _subLocality = s("subLocality"); _administrativeArea = s("administrativeArea")
        _subAdministrativeArea = s("subAdministrativeArea"); _postalCode = s("postalCode"); _isoCountryCode = s("isoCountryCode")
        _country = s("country"); _inlandWater = s("inlandWater"); _ocean = s("ocean")
        _timeZone = s("timeZone").flatMap { TimeZone(identifier: $0) }
    }

    open func encode(with coder: NSCoder) {
        let pairs: [(String, String?)] = [("name", name), ("thoroughfare", thoroughfare), ("subThoroughfare", subThoroughfare),
            ("locality", locality), ("subLocality", subLocality), ("administrativeArea", administrativeArea),
            ("subAdministrativeArea", subAdministrativeArea), ("postalCode", postalCode), ("isoCountryCode", isoCountryCode),
            ("country", country), ("inlandWater", inlandWater), ("ocean", ocean), ("timeZone", timeZone?.identifier)]
        for (k, v) in pairs { if let v { coder.encode(v, forKey: k) } }
    }

    open func copy(with zone: NSZone? = nil) -> Any { self }

    open override var description: String {
        [name, locality, administrativeArea, country].compactMap { $0 }.joined(separator: ", ")
    }
}

public typealias CLGeocodeCompletionHandler = @Sendable ([CLPlacemark]?, (any Error)?) -> Void

/// Geocoding over the bundled offline data (CLGeocoder without a network). Completion handlers run on the main
/// queue, as Apple's; one request at a time per geocoder (a second one while busy fails with `.network`, as
/// Apple's does when throttled... here only while the first is in flight).
open class CLGeocoder: NSObject, @unchecked Sendable {
    private let lock = NSLock()
    private var busy = false
    private var cancelled = false

    public override init() {}

    open var isGeocoding: Bool { lock.lock(); defer { lock.unlock() }; return busy }

    open func cancelGeocode() { lock.lock(); if busy { cancelled = true }; lock.unlock() }

    open func reverseGeocodeLocation(_ location: CLLocation, completionHandler: @escaping CLGeocodeCompletionHandler) {
        let lat = location.coordinate.latitude, lon = location.coordinate.longitude
        run(completionHandler) { g in g.reverse(latitude: lat, longitude: lon).map { [$0] } ?? [] }
    }

    open func reverseGeocodeLocation(_ location: CLLocation, preferredLocale locale: Locale?,
                                     completionHandler: @escaping CLGeocodeCompletionHandler) {
        reverseGeocodeLocation(location, completionHandler: completionHandler)
    }

    open func geocodeAddressString(_ addressString: String, completionHandler: @escaping CLGeocodeCompletionHandler) {
        geocodeAddressString(addressString, in: nil, preferredLocale: nil, completionHandler: completionHandler)
    }

    open func geocodeAddressString(_ addressString: String, in region: CLRegion?,
                                   completionHandler: @escaping CLGeocodeCompletionHandler) {
        geocodeAddressString(addressString, in: region, preferredLocale: nil, completionHandler: completionHandler)
    }

    open func geocodeAddressString(_ addressString: String, in region: CLRegion?, preferredLocale locale: Locale?,
                                   completionHandler: @escaping CLGeocodeCompletionHandler) {
        let hint = (region as? CLCircularRegion).map {
            Geocoding.CircularRegion(centerLatitudeDegrees: $0.center.latitude, centerLongitudeDegrees: $0.center.longitude,
                                     radiusMeters: $0.radius)
        }
        run(completionHandler) { g in g.geocode(addressString, regionHint: hint) }
    }

    /// The address's city, state and country as one query (the bundled data has no streets).
    open func geocodePostalAddress(_ postalAddress: CNPostalAddress, completionHandler: @escaping CLGeocodeCompletionHandler) {
        geocodeAddressString(Self.query(postalAddress), completionHandler: completionHandler)
    }

    open func geocodePostalAddress(_ postalAddress: CNPostalAddress, preferredLocale locale: Locale?,
                                   completionHandler: @escaping CLGeocodeCompletionHandler) {
        geocodePostalAddress(postalAddress, completionHandler: completionHandler)
    }

    static func query(_ a: CNPostalAddress) -> String {
        [a.city, a.state, a.country].filter { !$0.isEmpty }.joined(separator: ", ")
    }

    // Async forms (as the SDK's overlay generates them from the completion handlers).

    open func reverseGeocodeLocation(_ location: CLLocation) async throws -> [CLPlacemark] {
        try await withCheckedThrowingContinuation { k in
            reverseGeocodeLocation(location) { p, e in if let p { k.resume(returning: p) } else { k.resume(throwing: e!) } }
        }
    }

    open func reverseGeocodeLocation(_ location: CLLocation, preferredLocale locale: Locale?) async throws -> [CLPlacemark] {
        try await reverseGeocodeLocation(location)
    }

    open func geocodeAddressString(_ addressString: String) async throws -> [CLPlacemark] {
        try await geocodeAddressString(addressString, in: nil, preferredLocale: nil)
    }

    open func geocodeAddressString(_ addressString: String, in region: CLRegion?) async throws -> [CLPlacemark] {
        try await geocodeAddressString(addressString, in: region, preferredLocale: nil)
    }

    open func geocodeAddressString(_ addressString: String, in region: CLRegion?, preferredLocale locale: Locale?) async throws -> [CLPlacemark] {
        try await withCheckedThrowingContinuation { k in
            geocodeAddressString(addressString, in: region, preferredLocale: locale) { p, e in
                if let p { k.resume(returning: p) } else { k.resume(throwing: e!) }
            }
        }
    }

    open func geocodePostalAddress(_ postalAddress: CNPostalAddress) async throws -> [CLPlacemark] {
        try await geocodeAddressString(Self.query(postalAddress))
    }

    open func geocodePostalAddress(_ postalAddress: CNPostalAddress, preferredLocale locale: Locale?) async throws -> [CLPlacemark] {
        try await geocodePostalAddress(postalAddress)
    }

    private func run(_ completion: @escaping CLGeocodeCompletionHandler, _ work: @escaping @Sendable (Geocoder) -> [Placemark]) {
        lock.lock()
        if busy {
            lock.unlock()
            DispatchQueue.main.async { completion(nil, CLError(.network)) }
            return
        }
        busy = true; cancelled = false
        lock.unlock()
        DispatchQueue.global().async { [self] in
            var result: [CLPlacemark]?
            var error: (any Error)?
            do {
                let found = work(try Geocoder.shared())
                if found.isEmpty { error = CLError(.geocodeFoundNoResult) } else { result = found.map(CLPlacemark.init) }
            } catch {
                result = nil
            }
            if result == nil && error == nil { error = CLError(.network) }
            lock.lock()
            let wasCancelled = cancelled
            busy = false; cancelled = false
            lock.unlock()
            if wasCancelled { result = nil; error = CLError(.geocodeCanceled) }
            let r = UncheckedBox((result, error))
            DispatchQueue.main.async { completion(r.value.0, r.value.1) }
        }
    }
}
#endif
