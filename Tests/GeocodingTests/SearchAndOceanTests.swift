#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
@testable import Geocoding

/// The banded k-d tree search and the far-from-places cells against brute force over every place, and the marine
/// polygons' ocean names.
@Suite(.ownThreads) struct BandedSearchTests {
    /// Deterministic uniform points on the sphere (xorshift), as (latitude, longitude) in degrees.
    static func points(_ n: Int, seed: UInt64) -> [(Double, Double)] {
        var state = seed
        func next() -> Double {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Double(state >> 11) / Double(1 << 53)
        }
        var out: [(Double, Double)] = []
        for _ in 0..<n {
            let lat: Double = asin(2 * next() - 1) * 180 / Double.pi
            let lon: Double = next() * 360 - 180
            out.append((lat, lon))
        }
        return out
    }

    /// Brute force: the locality minimising chord² / w² among places within `maxChord`, optionally in one country.
    static func bruteForce(_ db: GeoDatabase, _ x: Float, _ y: Float, _ z: Float, country: Int = -1,
                           maxChord: Float) -> (index: Int, score: Float) {
        var best = -1
        var score = Float.infinity
        for band in db.bands where !band.isSections {
            for i in band.start..<band.end {
                let n = db.nodes[i]
                let d2 = (n.x - x) * (n.x - x) + (n.y - y) * (n.y - y) + (n.z - z) * (n.z - z)
                guard d2 <= maxChord * maxChord, country < 0 || Int(db.countryRef[i]) == country else { continue }
                if d2 / n.weight2 < score { score = d2 / n.weight2; best = i }
            }
        }
        return (best, score)
    }

    @Test func weightedSearchMatchesBruteForce() throws {
        let db = try Geocoder.shared().db
        var found = 0
        for (lat, lon) in Self.points(800, seed: 0x5DEECE66D) {
            let (xd, yd, zd) = unitVector(latitude: lat, longitude: lon)
            let (x, y, z) = (Float(xd), Float(yd), Float(zd))
            for chord in [Geocoder.adminChord, Geocoder.coastChord] {
                let fast = db.nearest(x: x, y: y, z: z, maxChord: chord)
                let slow = Self.bruteForce(db, x, y, z, maxChord: chord)
                #expect(fast.best == slow.index || fast.bestScore == slow.score, "at \(lat), \(lon)")
                if slow.index >= 0 { found += 1 }
            }
        }
        #expect(found > 250)   // the comparison covered real hits, not only empty searches
    }

    @Test func countryRestrictedSearchMatchesBruteForce() throws {
        let db = try Geocoder.shared().db
        guard let fr = db.countryIndexByCode["FR"] else { Issue.record("no FR"); return }
        for (lat, lon) in Self.points(300, seed: 42).map({ (45 + $0.0 / 18, 5 + $0.1 / 36) }) {   // around France
            let (xd, yd, zd) = unitVector(latitude: lat, longitude: lon)
            let (x, y, z) = (Float(xd), Float(yd), Float(zd))
            let fast = db.nearest(x: x, y: y, z: z, country: fr, maxChord: Geocoder.adminChord)
            let slow = Self.bruteForce(db, x, y, z, country: fr, maxChord: Geocoder.adminChord)
            #expect(slow.index >= 0)
            #expect(fast.best == slow.index || fast.bestScore == slow.score, "at \(lat), \(lon)")
        }
    }

    @Test func cellsMarkedFarFromPlacesHaveNoPlaceWithinTheCoastTolerance() throws {
        let db = try Geocoder.shared().db
        var far = 0
        for (lat, lon) in Self.points(4000, seed: 7) where db.countryIndex(latitude: lat, longitude: lon) == RegionLayer.outsideFarFromPlaces {
            far += 1
            let (xd, yd, zd) = unitVector(latitude: lat, longitude: lon)
            let slow = Self.bruteForce(db, Float(xd), Float(yd), Float(zd), maxChord: Geocoder.coastChord)
            #expect(slow.index == -1, "a place within 20 km of \(lat), \(lon)")
        }
        #expect(far > 2000)   // most of the sea is far from places
    }

    @Test func sectionSearchMatchesBruteForce() throws {
        let db = try Geocoder.shared().db
        let chord = Geocoder.chord(meters: 50_000)
        for (lat, lon) in Self.points(300, seed: 99).map({ (48 + $0.0 / 30, 2 + $0.1 / 60) }) {   // around Paris
            let (xd, yd, zd) = unitVector(latitude: lat, longitude: lon)
            let (x, y, z) = (Float(xd), Float(yd), Float(zd))
            let fast = db.nearestSection(x: x, y: y, z: z, maxChord: chord)
            var best = -1
            var bestD2 = Float.infinity
            for band in db.bands where band.isSections {
                for i in band.start..<band.end {
                    let n = db.nodes[i]
                    let d2 = (n.x - x) * (n.x - x) + (n.y - y) * (n.y - y) + (n.z - z) * (n.z - z)
                    if d2 <= chord * chord && d2 < bestD2 { bestD2 = d2; best = i }
                }
            }
            #expect(fast.index == best || fast.chord2 == bestD2)
        }
    }
}

@Suite(.ownThreads) struct OceanNameTests {
    @Test(arguments: [
        (35.0, 18.0, "Mediterranean Sea"), (25.0, -90.0, "Gulf of Mexico"), (30.0, -150.0, "North Pacific Ocean"),
        (43.0, 34.0, "Black Sea"), (12.0, 88.0, "Bay of Bengal"), (56.0, 20.0, "Baltic Sea"),
        (-30.0, -20.0, "South Atlantic Ocean"), (-20.0, 80.0, "Indian Ocean"), (-62.0, -150.0, "Southern Ocean"),
        (0.0, -179.9, "South Pacific Ocean"), (85.0, 0.0, "Arctic Ocean"),
    ])
    func offshoreNamesTheSea(lat: Double, lon: Double, ocean: String) throws {
        let pm = try #require(try Geocoder.shared().reverse(latitude: lat, longitude: lon))
        #expect(pm.ocean == ocean)
        #expect(pm.isoCountryCode == nil)
    }

    @Test func onLandThereIsNoOcean() throws {
        for (lat, lon) in [(48.8566, 2.3522), (-33.8568, 151.2153), (39.74, -104.99), (-22.9711, -43.1822)] {
            let pm = try #require(try Geocoder.shared().reverse(latitude: lat, longitude: lon))
            #expect(pm.ocean == nil)
            #expect(pm.isoCountryCode != nil)
        }
    }

    @Test func withinTheCoastToleranceBothCountryAndSea() throws {
        // 2 km off Nice: outside the simplified coast, the country from the nearby place, the sea from its polygon.
        let pm = try #require(try Geocoder.shared().reverse(latitude: 43.66, longitude: 7.30))
        #expect(pm.isoCountryCode == "FR")
        #expect(pm.ocean == "Mediterranean Sea")
    }
}

@Suite(.ownThreads) struct CoastBoundaryTests {
    /// GeoNames villages just outside Natural Earth's simplified coasts and more than 20 km from any bundled place:
    /// the nearest country boundary within 5 km gives the country (the sea is still named).
    @Test(arguments: [
        (5.55144, 126.57946, "ID", "Philippine Sea"),       // Miangas
        (36.50805, 22.97885, "GR", "Mediterranean Sea"),    // Elafonisos
        (65.02528, 35.70969, "RU", "White Sea"),            // Solovetsky
    ])
    func islandVillages(lat: Double, lon: Double, country: String, ocean: String) throws {
        let pm = try #require(try Geocoder.shared().reverse(latitude: lat, longitude: lon))
        #expect(pm.isoCountryCode == country)
        #expect(pm.ocean == ocean)
    }

    @Test func nearestBoundaryIsWithinItsLimit() throws {
        let layer = try Geocoder.shared().db.countryLayer
        // Mid-Atlantic: no boundary within 5 km; 2 km off Nice: France's.
        #expect(layer.nearestBoundaryRegion(latE6: 0, lonE6: -30_000_000, maxMeters: 5_000) == nil)
        let nice = try #require(layer.nearestBoundaryRegion(latE6: 43_660_000, lonE6: 7_300_000, maxMeters: 5_000))
        #expect(nice.meters <= 5_000)
        #expect(try Geocoder.shared().db.countries[nice.region].code == "FR")
    }
}

@Suite(.ownThreads) struct RegionLayerIndexTests {
    /// The per-block index (one read for a block inside one run) against a binary search over the whole row.
    @Test func blockIndexMatchesRowSearch() throws {
        let db = try Geocoder.shared().db
        for layer in [db.countryLayer, db.timeZoneLayer, db.marineLayer] {
            var state: UInt64 = 0x2545_F491_4F6C_DD1D
            for _ in 0..<20_000 {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                let row = Int(state % UInt64(layer.rows)), col = Int((state >> 20) % UInt64(layer.columns))
                var lo = Int(layer.rowStart[row]), hi = Int(layer.rowStart[row + 1]) - 1
                while lo < hi {
                    let mid = (lo + hi + 1) >> 1
                    if Int(layer.runColumn[mid]) <= col { lo = mid } else { hi = mid - 1 }
                }
                #expect(layer.runValueAt(row: row, col: col) == layer.runValue[lo], "row \(row) column \(col)")
            }
        }
    }
}
