/// The placemark attached to fixes with `--placemark` (CLPlacemark's address fields; nil = the data cannot say).
/// A class so that a `Location` carries one pointer, not nine strings, through the hot path.
public final class PlacemarkSummary: Sendable, Hashable {
    public let name: String?
    public let locality: String?
    public let subLocality: String?
    public let administrativeArea: String?
    public let subAdministrativeArea: String?
    public let isoCountryCode: String?
    public let country: String?
    public let ocean: String?
    public let timeZone: String?

    public init(name: String?, locality: String?, subLocality: String?, administrativeArea: String?,
                subAdministrativeArea: String?, isoCountryCode: String?, country: String?, ocean: String?, timeZone: String?) {
        self.name = name; self.locality = locality; self.subLocality = subLocality
        self.administrativeArea = administrativeArea; self.subAdministrativeArea = subAdministrativeArea
        self.isoCountryCode = isoCountryCode; self.country = country; self.ocean = ocean; self.timeZone = timeZone
    }

    private var fields: [String?] {
        [name, locality, subLocality, administrativeArea, subAdministrativeArea, isoCountryCode, country, ocean, timeZone]
    }
    public static func == (a: PlacemarkSummary, b: PlacemarkSummary) -> Bool { a === b || a.fields == b.fields }
    public func hash(into h: inout Hasher) { h.combine(fields) }
}
