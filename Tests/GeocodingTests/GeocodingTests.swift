import LocationCore
import Testing
import TestSupport
@testable import Geocoding

private func geocoder() throws -> Geocoder { try Geocoder.shared() }

private func reverse(_ lat: Double, _ lon: Double) throws -> Placemark {
    try #require(try geocoder().reverse(latitude: lat, longitude: lon))
}

@Suite(.ownThreads) struct ReverseGeocodingTests {
    @Test(arguments: [
        (48.8566, 2.3522, "FR", "Europe/Paris"), (52.5200, 13.4050, "DE", "Europe/Berlin"),
        (35.6895, 139.6917, "JP", "Asia/Tokyo"), (-35.2809, 149.1300, "AU", "Australia/Sydney"),
        (38.8951, -77.0364, "US", "America/New_York"), (-15.7939, -47.8828, "BR", "America/Sao_Paulo"),
        (59.9139, 10.7522, "NO", "Europe/Oslo"), (42.6629, 21.1655, "XK", "Europe/Belgrade"),
        (-1.2921, 36.8219, "KE", "Africa/Nairobi"), (28.6139, 77.2090, "IN", "Asia/Kolkata"),
    ])
    func capitals(lat: Double, lon: Double, country: String, timeZone: String) throws {
        let pm = try reverse(lat, lon)
        #expect(pm.isoCountryCode == country)
        #expect(pm.timeZone == timeZone)
        #expect(pm.locality != nil)
        #expect(pm.country != nil)
    }

    @Test func parisLocalityAndAdmin() throws {
        let pm = try reverse(48.8566, 2.3522)
        #expect(pm.locality == "Paris")
        #expect(pm.administrativeArea == "Île-de-France")
        #expect(pm.country == "France")
    }

    @Test(arguments: [
        (-21.1151, 55.5364, "RE"), (4.9224, -52.3135, "GF"), (78.2232, 15.6267, "SJ"), (18.4655, -66.1057, "PR"),
        (16.24, -61.53, "GP"), (-12.7806, 45.2279, "YT"),
    ])
    func territories(lat: Double, lon: Double, country: String) throws {
        #expect(try reverse(lat, lon).isoCountryCode == country)
    }

    @Test func antimeridian() throws {
        // Fiji on both sides of 180°, Chukotka east of 180°, the Aleutians west of -180° seen as +.
        #expect(try reverse(-16.5, 179.5).isoCountryCode == "FJ")     // Vanua Levu
        #expect(try reverse(-18.22, -178.81).isoCountryCode == "FJ")  // Lakeba, Lau islands
        #expect(try reverse(65.0, -175.0).isoCountryCode == "RU")
        #expect(try reverse(52.85, 173.2).isoCountryCode == "US")   // Attu Island, Alaska
        #expect(try reverse(52.85, 173.2 - 360).isoCountryCode == "US")
        let fiji = try reverse(-18.14, 178.44)
        #expect(fiji.locality == "Suva")
        #expect(fiji.timeZone == "Pacific/Fiji")
    }

    @Test func polesDoNotCrash() throws {
        let south = try reverse(-90, 0)
        #expect(south.isoCountryCode == "AQ")
        let north = try reverse(90, 0)
        #expect(north.isoCountryCode == nil)
        #expect(north.locality == nil)
        #expect(try reverse(-89.99, 179.999).isoCountryCode == "AQ")
    }

    @Test func openSeaHasNoCountryNorLocality() throws {
        let pm = try reverse(0, -30)   // mid Atlantic
        #expect(pm.isoCountryCode == nil)
        #expect(pm.country == nil)
        #expect(pm.locality == nil)
        #expect(pm.timeZone == "Etc/GMT+2")
    }

    @Test func coastlines() throws {
        // Just inside the coast (Copacabana beach, Sydney Opera House); 2 km off Nice is within the coast tolerance
        // (territorial waters), 60 km off it is not.
        #expect(try reverse(-22.9711, -43.1822).isoCountryCode == "BR")
        #expect(try reverse(-33.8568, 151.2153).isoCountryCode == "AU")
        #expect(try reverse(43.66, 7.30).isoCountryCode == "FR")
        let offshore = try reverse(43.2, 7.6)
        #expect(offshore.isoCountryCode == nil)
        #expect(offshore.locality == nil)
    }

    @Test func hamletNextToTownPicksTown() throws {
        // Near the edge of Cupertino (pop ~60k); a point 1 km from its centre must not report a hamlet.
        let pm = try reverse(37.3230, -122.0322)
        #expect(pm.locality == "Cupertino")
        // Population weighting: the weight grows with population and is capped.
        #expect(GeoDatabase.weight(population: 50_000) > 2 * GeoDatabase.weight(population: 1_000))
        #expect(GeoDatabase.weight(population: 10_000_000) == GeoDatabase.maximumWeight)
    }

    @Test func badInputIsNil() throws {
        let g = try geocoder()
        #expect(g.reverse(latitude: .nan, longitude: 0) == nil)
        #expect(g.reverse(latitude: 91, longitude: 0) == nil)
    }
}

@Suite(.ownThreads) struct ForwardGeocodingTests {
    @Test func parisIsFranceFirst() throws {
        let r = try geocoder().geocode("Paris")
        #expect(r.first?.isoCountryCode == "FR")
        #expect(r.contains { $0.isoCountryCode == "US" })
        let conf = r.compactMap(\.confidence)
        #expect(conf == conf.sorted(by: >))
    }

    @Test func qualifiers() throws {
        let tx = try geocoder().geocode("Paris, TX")
        #expect(tx.first?.isoCountryCode == "US")
        #expect(tx.first?.administrativeAreaCode == "TX")
        let sf = try geocoder().geocode("san francisco ca")
        #expect(sf.first?.isoCountryCode == "US")
        #expect(sf.first?.administrativeAreaCode == "CA")
        let cupertino = try geocoder().geocode("Cupertino")
        #expect(cupertino.first?.administrativeAreaCode == "CA")
    }

    @Test(arguments: ["München", "munchen", "Munich", "MÜNCHEN"])
    func munich(_ q: String) throws {
        let r = try geocoder().geocode(q)
        #expect(r.first?.isoCountryCode == "DE")
        #expect(r.first?.name == "Munich")
    }

    @Test func regionHintBiases() throws {
        // Without a hint Paris FR wins; near Texas Paris TX does.
        let hint = CircularRegion(centerLatitudeDegrees: 33.0, centerLongitudeDegrees: -96.0, radiusMeters: 200_000)
        let r = try geocoder().geocode("Paris", regionHint: hint)
        #expect(r.first?.isoCountryCode == "US")
        #expect(r.first?.administrativeAreaCode == "TX")
    }

    @Test func nothingMatches() throws {
        #expect(try geocoder().geocode("xqzzyv qwrtp").isEmpty)
        #expect(try geocoder().geocode("  ,, ").isEmpty)
    }

    @Test func folding() {
        #expect(Folding.fold("Straße") == "strasse")
        #expect(Folding.fold("Ærøskøbing") == "aeroskobing")
        #expect(Folding.fold("Łódź") == "lodz")
        #expect(Folding.fold("  São-Paulo!! ") == "sao paulo")
        #expect(Folding.fold("Hà Nội") == "ha noi")
    }
}

@Suite(.ownThreads) struct PlacemarkTrackerTests {
    @Test func recomputesOnlyAfterMovingPastThreshold() throws {
        var t = PlacemarkTracker(geocoder: try geocoder(), thresholdMeters: 100)
        func fix(_ lat: Double, _ lon: Double) -> Location {
            var l = Location(); l.latitudeDegrees = lat; l.longitudeDegrees = lon; return l
        }
        #expect(t.update(fix(48.8566, 2.3522))?.locality == "Paris")
        _ = t.update(fix(48.8570, 2.3522))   // ~45 m
        #expect(t.recomputations == 1)
        _ = t.update(fix(48.8600, 2.3522))   // ~380 m
        #expect(t.recomputations == 2)
        #expect(t.update(Location())?.locality == "Paris")
        #expect(t.recomputations == 2)
    }
}
