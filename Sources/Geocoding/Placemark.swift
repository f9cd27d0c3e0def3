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
    public var location: Location?
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

    public init() {}
}
