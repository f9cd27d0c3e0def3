import LocationCore

/// Keeps the current placemark for a stream of fixes and reverse-geocodes again only when the position moved more
/// than `thresholdMeters` (default 100 m) from where it was last computed (Apple's guidance: geocode on significant
/// movement only). Fixes without a position return the last placemark unchanged.
public struct PlacemarkTracker: Sendable {
    public let geocoder: Geocoder
    public let thresholdMeters: Double
    public private(set) var current: Placemark?
    public private(set) var recomputations = 0
    private var anchor: (Double, Double)?

    public init(geocoder: Geocoder, thresholdMeters: Double = 100) {
        self.geocoder = geocoder
        self.thresholdMeters = thresholdMeters
    }

    /// The placemark for this fix (recomputed when the fix is more than the threshold from the last anchor).
    public mutating func update(_ location: Location) -> Placemark? {
        guard let lat = location.latitudeDegrees, let lon = location.longitudeDegrees, lat.isFinite, lon.isFinite else {
            return current
        }
        if let (alat, alon) = anchor, Geo.distanceMeters(alat, alon, lat, lon) <= thresholdMeters { return current }
        anchor = (lat, lon)
        current = geocoder.reverse(latitude: lat, longitude: lon)
        recomputations += 1
        return current
    }
}
