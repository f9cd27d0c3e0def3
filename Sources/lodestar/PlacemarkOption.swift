import Geocoding
import LocationCore

/// `--placemark`: the offline geocoder's placemark on every fix, recomputed only after 100 m of movement
/// (Apple's guidance: geocode when the position changed significantly, not on every fix).
enum PlacemarkOption {
    /// The pipeline runs on one thread; the box only carries the tracker's state between calls.
    private final class Box: @unchecked Sendable {
        var tracker: PlacemarkTracker
        var lastPlacemark: Placemark?
        var summary: PlacemarkSummary?
        init(_ t: PlacemarkTracker) { tracker = t }
    }

    static func provider() throws -> (@Sendable (Location) -> PlacemarkSummary?) {
        let geocoder: Geocoder
        do { geocoder = try Geocoder.shared() } catch {
            throw CommandFailure("--placemark: the bundled geocoding data cannot be read (\(error))", code: Exit.dataError)
        }
        let box = Box(PlacemarkTracker(geocoder: geocoder))
        return { location in
            let p = box.tracker.update(location)
            if box.tracker.recomputations == 0 || p == nil { box.summary = nil; return nil }
            if let p, p != box.lastPlacemark {
                box.lastPlacemark = p
                box.summary = PlacemarkSummary(
                    name: p.name, locality: p.locality, subLocality: p.subLocality, administrativeArea: p.administrativeArea,
                    subAdministrativeArea: p.subAdministrativeArea, isoCountryCode: p.isoCountryCode, country: p.country,
                    ocean: p.ocean, timeZone: p.timeZone)
            }
            return box.summary
        }
    }
}
