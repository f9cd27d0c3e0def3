import Testing
import TestSupport
import LocationCore
@testable import Geocoding

/// The 1° shortcut tables built at load (`openSea`, `uniformCells`, `admin1Uniform`) give what the layer lookups give,
/// and `Placemark.location`'s compact storage behaves as the plain `Location?` it stands for.
@Suite(.ownThreads) struct DegreeCellTests {
    @Test func degreeTablesAgreeWithTheLayerLookups() throws {
        let db = try Geocoder.shared().db
        var points = BandedSearchTests.points(200_000, seed: 11)
        // Cell corners and edges, the poles and the antimeridian (the clamps of both grids must agree).
        for lat in stride(from: -90.0, through: 90.0, by: 0.5) {
            for lon in stride(from: -180.0, through: 179.9, by: 2.5) { points.append((lat, lon)) }
            points.append((lat, 179.999_999_9)); points.append((lat, -180))
        }
        var sea = 0, uniformCountry = 0, uniformTimeZone = 0, uniformAdmin1 = 0
        for (lat, lon) in points {
            let y = microDegrees(lat), x = microDegrees(lon)
            let cell = GeoDatabase.degreeCell(latE6: y, lonE6: x)
            let country = db.countryLayer.region(latE6: y, lonE6: x)
            let timeZone = db.timeZoneLayer.region(latE6: y, lonE6: x)
            let u = db.uniformCells[cell]
            #expect(db.countryRegion(latE6: y, lonE6: x, uniform: u) == country, "\(lat), \(lon)")
            #expect(db.timeZoneRegion(latE6: y, lonE6: x, uniform: u) == timeZone, "\(lat), \(lon)")
            if u & 0xFFFF != 0 { uniformCountry += 1 }
            if u >> 16 != 0 { uniformTimeZone += 1 }
            if let a = db.admin1UniformCode(latE6: y, lonE6: x) {
                uniformAdmin1 += 1
                #expect(a == Swift.max(db.admin1Layer?.region(latE6: y, lonE6: x) ?? -1, -1), "\(lat), \(lon)")
            }
            let bit = db.openSeaBits[cell >> 6] & (1 << UInt64(cell & 63)) != 0
            #expect(bit == (db.openSea[cell] != 0))
            if bit {
                sea += 1
                let v = db.openSea[cell]
                #expect(country == RegionLayer.outsideFarFromPlaces, "\(lat), \(lon)")
                #expect(Int(v & 0x7FFF) - 1 == timeZone, "\(lat), \(lon)")
                #expect(Int(v >> 15 & 0x7FFF) - 1 == db.marineLayer.region(latE6: y, lonE6: x), "\(lat), \(lon)")
            }
        }
        // The tables are used: most random points are in the open sea or in a country's interior.
        #expect(sea > points.count / 3)
        #expect(uniformCountry > points.count / 2)
        #expect(uniformTimeZone > points.count / 2)
        #expect(uniformAdmin1 > points.count / 10)
    }

    @Test func placemarkLocationStorage() {
        var a = Placemark()
        #expect(a.location == nil)
        a.setCoordinate(latitude: 48.85, longitude: 2.35)
        var plain = Location()
        plain.latitudeDegrees = 48.85
        plain.longitudeDegrees = 2.35
        #expect(a.location == plain)
        var b = Placemark()
        b.location = plain
        #expect(a == b && a.hashValue == b.hashValue)
        var full = plain
        full.altitudeMSLMeters = 35
        b.location = full
        #expect(b.location == full && a != b)
        b.location?.altitudeMSLMeters = nil
        #expect(a == b && a.hashValue == b.hashValue)
        b.location = nil
        #expect(b.location == nil && a != b)
    }
}
