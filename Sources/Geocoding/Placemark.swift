import LocationCore

/// A circular region (CLCircularRegion's shape): centre and radius in metres.
public struct CircularRegion: Sendable, Hashable {
    public var centerLatitudeDegrees: Double
    public var centerLongitudeDegrees: Double
    public var radiusMeters: Double

    public init(centerLatitudeDegrees: Double, centerLongitudeDegrees: Double, radiusMeters: Double) {
        self.centerLatitudeDegrees = centerLatitudeDegrees
        self.centerLongitudeDegrees = centerLongitudeDegrees
        self.radiusMeters = radiusMeters
    }
}

/// A geocoding result shaped like CLPlacemark. Fields the bundled data cannot give are nil, never invented.
public struct Placemark: Sendable, Hashable {
    /// The place name (the locality, or the sub-locality when it is nearer); nil offshore.
    public var name: String?
    /// City or town (GeoNames populated place chosen by population-weighted proximity, see docs/geocoding.md).
    public var locality: String?
    /// A section of a populated place (GeoNames PPLX) when one is nearer than the locality.
    public var subLocality: String?
    /// State / province (GeoNames admin1 name).
    public var administrativeArea: String?
    /// County / district (GeoNames admin2 name), when GeoNames has one.
    public var subAdministrativeArea: String?
    /// ISO 3166-1 alpha-2 code.
    public var isoCountryCode: String?
    public var country: String?
    /// Offshore (outside every country polygon): the ocean, sea, gulf or bay by Natural Earth's marine polygons.
    public var ocean: String?
    /// IANA time-zone identifier (timezone-boundary-builder polygons, Etc/GMT±N at sea).
    public var timeZone: String?
    /// Reverse geocoding: the queried location; forward geocoding: the place's coordinates.
    public var location: Location? {
        get { locationStorage.location }
        set { locationStorage = LocationStorage(newValue) }
    }
    public var region: CircularRegion?

    // Lodestar extensions (not in CLPlacemark).
    /// GeoNames admin1 code (e.g. "TX", "08"), for matching and evaluation.
    public var administrativeAreaCode: String?
    /// GeoNames id of the place behind locality/name.
    public var geonameID: Int?
    /// Forward geocoding: relative confidence in 0...1 (results are sorted by it).
    public var confidence: Double?
    /// Distance from the queried point to the locality's centre (reverse geocoding).
    public var distanceMeters: Double?

    /// `location`, kept small: a placemark's location is nearly always a bare coordinate, and a `Location` is over
    /// 500 bytes — stored inline it made every reverse answer that big to build, return and copy.
    var locationStorage = LocationStorage.none

    public init() {}

    /// Sets `location` to a `Location` holding only this coordinate.
    @inline(__always)
    mutating func setCoordinate(latitude: Double, longitude: Double) {
        locationStorage = .coordinate(latitude: latitude, longitude: longitude)
    }
}

/// `Placemark.location` as stored: none, a bare coordinate (a `Location` with only latitude and longitude set), or any
/// other `Location`, boxed. Compared and hashed as the `Location?` it stands for.
enum LocationStorage: Sendable, Hashable {
    case none
    case coordinate(latitude: Double, longitude: Double)
    case full(LocationBox)

    final class LocationBox: Sendable {
        let value: Location
        init(_ value: Location) { self.value = value }
    }

    init(_ location: Location?) {
        guard let location else { self = .none; return }
        if let lat = location.latitudeDegrees, let lon = location.longitudeDegrees,
           location == Self.plain(latitude: lat, longitude: lon) {
            self = .coordinate(latitude: lat, longitude: lon)
        } else {
            self = .full(LocationBox(location))
        }
    }

    static func plain(latitude: Double, longitude: Double) -> Location {
        var l = Location()
        l.latitudeDegrees = latitude
        l.longitudeDegrees = longitude
        return l
    }

    var location: Location? {
        switch self {
        case .none: nil
        case .coordinate(let lat, let lon): Self.plain(latitude: lat, longitude: lon)
        case .full(let box): box.value
        }
    }

    static func == (a: LocationStorage, b: LocationStorage) -> Bool { a.location == b.location }
    func hash(into hasher: inout Hasher) { hasher.combine(location) }
}
