#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

/// Offline geocoder over the embedded data (Core Location's CLGeocoder, without a network).
///
/// `Geocoder.shared()` opens the embedded blob once; the synchronous methods are for the CLI and the pipeline,
/// the async ones are shaped like CLGeocoder's.
public final class Geocoder: Sendable {
    let db: GeoDatabase

    /// Localities farther than this from the query are not reported (the country and time zone still are).
    public static let maximumLocalityDistanceMeters = 50_000.0
    /// Outside every country polygon but this close to a place: the place's country (simplified coasts, harbours,
    /// territorial waters reach 22 km).
    public static let coastToleranceMeters = 20_000.0
    /// Outside every country polygon but this close to a country's boundary: that country (the polygons are
    /// simplified by up to 280 m, and Natural Earth 1:10m misses small islands' shapes by more).
    public static let coastBoundaryToleranceMeters = 5_000.0
    /// A GeoNames section (PPLX) nearer than the locality and at most this far is the subLocality.
    public static let maximumSubLocalityDistanceMeters = 5_000.0
    /// On land, administrative areas come from a place at most this far.
    public static let maximumAdminDistanceMeters = 500_000.0

    /// The search bounds as chords on the unit sphere.
    static let adminChord = chord(meters: maximumAdminDistanceMeters)
    static let coastChord = chord(meters: coastToleranceMeters)
    static let localityChord = chord(meters: maximumLocalityDistanceMeters)
    static let subLocalityChord = chord(meters: maximumSubLocalityDistanceMeters)
    static func chord(meters: Double) -> Float { Float(2 * sin(meters / (2 * 6_371_008.8))) }

    private static let opened: Result<Geocoder, GeoDataError> = {
        do throws(GeoDataError) { return .success(Geocoder(database: try GeoDatabase(blob: GeoBlob.embedded()))) }
        catch { return .failure(error) }
    }()

    init(database: GeoDatabase) { db = database }

    /// The geocoder over the embedded data, opened on first use.
    public static func shared() throws(GeoDataError) -> Geocoder { try opened.get() }

    public var placeCount: Int { db.placeCount }

    // MARK: Reverse

    /// The placemark at a coordinate: country by point in polygon (Natural Earth, territories corrected from the
    /// locality's GeoNames country; just outside a simplified coast, the nearby boundary's or place's country),
    /// state/province by admin-1 polygon (else from the locality), locality by population-weighted proximity, time
    /// zone by polygon, and offshore the sea (`ocean`).
    /// Returns nil for coordinates that are not finite or out of range.
    public func reverse(latitude: Double, longitude: Double) -> Placemark? {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 360 else { return nil }
        var lon = longitude
        if lon >= 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        var pm = Placemark()
        pm.setCoordinate(latitude: latitude, longitude: longitude)
        let latE6 = microDegrees(latitude), lonE6 = microDegrees(lon)
        let degreeCell = GeoDatabase.degreeCell(latE6: latE6, lonE6: lonE6)
        if db.openSeaBits[degreeCell >> 6] & (1 << UInt64(degreeCell & 63)) != 0 {
            // Open sea far from every place, one sea and one time zone in the whole 1° cell: what the lookups below
            // would find, without them.
            let openSea = db.openSea[degreeCell]
            let m = Int(openSea >> 15 & 0x7FFF) - 1, tz = Int(openSea & 0x7FFF) - 1
            if m >= 0 { pm.ocean = db.marineNames[m] }
            if tz >= 0 { pm.timeZone = db.timeZones[tz] }
            return pm
        }
        db.prefetchLayers(latE6: latE6, lonE6: lonE6)
        let uniform = db.uniformCells[degreeCell]

        let cell = db.countryRegion(latE6: latE6, lonE6: lonE6, uniform: uniform)
        let farFromPlaces = cell == RegionLayer.outsideFarFromPlaces
        // The query on the unit sphere (not needed where no place can be near).
        let (xd, yd, zd) = farFromPlaces ? (0, 0, 0) : unitVector(latitude: latitude, longitude: lon)
        let x = Float(xd), y = Float(yd), z = Float(zd)
        var polygonCountry = Swift.max(cell, -1)
        if polygonCountry < 0 {
            // Offshore (outside every country polygon): the ocean or sea by Natural Earth's marine polygons.
            let m = db.marineLayer.region(latE6: latE6, lonE6: lonE6)
            if m >= 0 { pm.ocean = db.marineNames[m] }
        }
        if polygonCountry < 0 && !farFromPlaces,
           let coast = db.countryNearBoundary(latitude: latitude, longitude: lon, maxMeters: Self.coastBoundaryToleranceMeters) {
            // Just outside a (simplified) coast: the country whose boundary is that close.
            polygonCountry = coast
        }
        if polygonCountry >= 0 { db.prefetchAdmin1(latitude: latitude, longitude: lon) }
        // On land a place up to 500 km away still gives the administrative areas; offshore only the coast
        // tolerance matters, and in a cell the build found far from every place there is nothing to search.
        let maxChord = polygonCountry >= 0 ? Self.adminChord : Self.coastChord
        var near = farFromPlaces
            ? GeoDatabase.Nearest() : db.nearest(x: x, y: y, z: z, maxChord: maxChord)
        if near.best >= 0 { db.prefetchPlace(near.best) }
        if polygonCountry >= 0, near.best >= 0 {
            let placeCountry = Int(db.countryRef[near.best])
            if placeCountry != polygonCountry {
                if db.territories[polygonCountry]?.contains(placeCountry) == true || !db.countries[placeCountry].hasPolygon {
                    polygonCountry = placeCountry
                } else {
                    // The locality must be in the country the point is in.
                    let restricted = db.nearest(x: x, y: y, z: z, country: polygonCountry, maxChord: maxChord)
                    if restricted.best >= 0 { near = restricted }
                }
            }
        }
        if polygonCountry < 0, near.best >= 0 {
            // Just off a (simplified) coast next to a place: the place's country.
            polygonCountry = Int(db.countryRef[near.best])
        }
        if polygonCountry >= 0 {
            pm.isoCountryCode = db.countries[polygonCountry].code
            pm.country = db.countries[polygonCountry].name
        }
        let tz = db.timeZoneRegion(latE6: latE6, lonE6: lonE6, uniform: uniform)
        if tz >= 0 { pm.timeZone = db.timeZones[tz] }

        var meters = Double.infinity   // to the chosen place
        if near.best >= 0 {
            let chord = Double(sqrt(Swift.max(0, near.bestScore * db.nodes[near.best].weight2)))
            meters = chordToMeters(chord)
        }
        // The state/province by polygon, when the point is in an admin-1 polygon of the country it is in (not in a
        // gap between the simplified polygons, not offshore beyond their apron). Near the chosen place the answer is
        // often known without a lookup (PADM).
        var polygonAdmin1 = -1
        var localityAcrossBorder = false
        if polygonCountry >= 0 {
            let a = near.best >= 0
                ? db.admin1Index(latitude: latitude, longitude: lon, near: near.best, meters: meters)
                : db.admin1Index(latitude: latitude, longitude: lon)
            if a >= 0 && db.admin1[a].country == polygonCountry { polygonAdmin1 = a }
        }
        if polygonAdmin1 >= 0 {
            pm.administrativeArea = db.admin1[polygonAdmin1].name
            pm.administrativeAreaCode = db.admin1[polygonAdmin1].code
            // The locality must be in the state/province the point is in (as it must be in the country): near a
            // border the weighted-nearest place can lie across it (Dubai International → Sharjah, in another
            // emirate). Then the nearest place of that admin-1 area within locality reach, or no locality.
            if near.best >= 0, Int(db.countryRef[near.best]) == polygonCountry, db.admin1Ref[near.best] != StringTable.none,
               Int(db.admin1Ref[near.best]) != polygonAdmin1 {
                let restricted = db.nearest(x: x, y: y, z: z, country: polygonCountry, admin1: polygonAdmin1,
                                            maxChord: Self.localityChord)
                if restricted.best >= 0 {
                    near = restricted
                    meters = chordToMeters(Double(sqrt(Swift.max(0, near.bestScore * db.nodes[near.best].weight2))))
                } else {
                    localityAcrossBorder = true
                }
            }
        }
        if near.best >= 0 {
            let i = near.best
            let sameCountry = polygonCountry < 0 || Int(db.countryRef[i]) == polygonCountry
            if sameCountry && polygonCountry >= 0 {
                // Otherwise administrative areas come from the chosen place (same country as the polygon); its
                // county only when it is in the same admin1.
                let placeAdmin1 = db.admin1Ref[i] == StringTable.none ? -1 : Int(db.admin1Ref[i])
                if polygonAdmin1 < 0 && placeAdmin1 >= 0 {
                    pm.administrativeArea = db.admin1[placeAdmin1].name
                    pm.administrativeAreaCode = db.admin1[placeAdmin1].code
                }
                if db.admin2Ref[i] != StringTable.none && (polygonAdmin1 < 0 || polygonAdmin1 == placeAdmin1) {
                    pm.subAdministrativeArea = db.admin2[Int(db.admin2Ref[i])].name
                }
                if pm.timeZone == nil, db.timeZoneRef[i] != 0xFFFF { pm.timeZone = db.timeZones[Int(db.timeZoneRef[i])] }
            }
            if sameCountry && meters <= Self.maximumLocalityDistanceMeters && polygonCountry >= 0 && !localityAcrossBorder {
                pm.locality = db.name(i)
                pm.name = pm.locality
                pm.geonameID = Int(db.geonameID[i])
                pm.distanceMeters = meters
                pm.region = CircularRegion(centerLatitudeDegrees: db.latitude(i), centerLongitudeDegrees: db.longitude(i),
                                           radiusMeters: Swift.max(meters, 100))
                let sectionChord = meters < Self.maximumSubLocalityDistanceMeters ? Self.chord(meters: meters) : Self.subLocalityChord
                let section = db.nearestSection(x: x, y: y, z: z, maxChord: sectionChord)
                if section.index >= 0 && Int(db.countryRef[section.index]) == Int(db.countryRef[i]) {
                    pm.subLocality = db.name(section.index)
                    pm.name = pm.subLocality
                }
            }
        }
        return pm
    }

    /// Country code only (point in polygon with the territory correction), for callers that need no locality.
    public func isoCountryCode(latitude: Double, longitude: Double) -> String? {
        reverse(latitude: latitude, longitude: longitude)?.isoCountryCode
    }

    // MARK: Async, CLGeocoder-shaped

    public func reverseGeocodeLocation(_ location: Location) async -> [Placemark] {
        guard let lat = location.latitudeDegrees, let lon = location.longitudeDegrees,
              let pm = reverse(latitude: lat, longitude: lon) else { return [] }
        return [pm]
    }

    public func geocodeAddressString(_ address: String, in region: CircularRegion? = nil) async -> [Placemark] {
        geocode(address, regionHint: region)
    }
}
