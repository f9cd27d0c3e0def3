#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

/// The embedded geocoding data, opened once (tables read in place; only the places' unit vectors are computed).
final class GeoDatabase: @unchecked Sendable {
    struct Country { let code: String; let name: String; let hasPolygon: Bool }
    struct Admin { let country: Int; let code: String; let name: String? }

    let countries: [Country]
    let admin1: [Admin]
    let admin2: [Admin]
    let timeZones: [String]
    /// territory[polygonCountry] = GeoNames country codes folded into that Natural Earth polygon.
    let territories: [Int: Set<Int>]
    let strings: StringTable

    // Places, in implicit k-d tree order.
    let placeCount: Int
    let latE5: RawArray<Int32>
    let lonE5: RawArray<Int32>
    let population: RawArray<UInt32>
    let geonameID: RawArray<UInt32>
    let nameRef: RawArray<UInt32>
    let admin1Ref: RawArray<UInt32>
    let admin2Ref: RawArray<UInt32>
    let countryRef: RawArray<UInt16>
    let timeZoneRef: RawArray<UInt16>
    let splitDimension: RawArray<UInt8>
    let isSection: RawArray<UInt8>
    /// x, y, z of each place on the unit sphere (Float, 3 per place).
    let xyz: [Float]
    /// Population weight of each place (see `weight(population:)`), squared.
    let weight2: [Float]

    // Forward index: folded keys sorted bytewise.
    let keyCount: Int
    let keyRef: RawArray<UInt32>
    let keyPlace: RawArray<UInt32>
    let keyKind: RawArray<UInt8>

    let countryLayer: RegionLayer
    let timeZoneLayer: RegionLayer
    let countryIndexByCode: [String: Int]

    static let maximumWeight: Float = 4

    /// w = (max(population, 1000) / 1000)^(1/4), capped at 4 (population >= 256,000): a town of 50,000 counts as
    /// 2.7 times nearer than a hamlet of 1,000, a city of 256,000 or more 4 times.
    static func weight(population: UInt32) -> Float {
        let p = Float(Swift.max(population, 1000)) / 1000
        return Swift.min(Float(pow(Double(p), 0.25)), maximumWeight)
    }

    init(blob: GeoBlob) throws(GeoDataError) {
        var r = try blob.reader("STRS")
        strings = StringTable(base: r.base, length: r.length)

        r = try blob.reader("CTRY")
        var cs: [Country] = []
        let nc = Int(try r.u32())
        for _ in 0..<nc {
            let codeBytes: RawArray<UInt8> = try r.array(4, "country code")
            let code = String(decoding: [codeBytes[0], codeBytes[1]], as: UTF8.self)
            let name = strings.string(try r.u32()) ?? code
            cs.append(Country(code: code, name: name, hasPolygon: codeBytes[2] != 0))
        }
        countries = cs
        var byCode: [String: Int] = [:]
        for (i, c) in cs.enumerated() { byCode[c.code] = i }
        countryIndexByCode = byCode

        admin1 = try Self.admins(blob, "ADM1", strings, nc)
        admin2 = try Self.admins(blob, "ADM2", strings, nc)


        r = try blob.reader("TZNM")
        var tz: [String] = []
        for _ in 0..<Int(try r.u32()) { tz.append(strings.string(try r.u32()) ?? "") }
        timeZones = tz

        r = try blob.reader("TERR")
        var terr: [Int: Set<Int>] = [:]
        for _ in 0..<Int(try r.u32()) {
            let v = try r.u32()
            terr[Int(v & 0xFFFF), default: []].insert(Int(v >> 16))
        }
        territories = terr

        r = try blob.reader("PLAC")
        let n = Int(try r.u32())
        placeCount = n
        latE5 = try r.array(n, "lat"); lonE5 = try r.array(n, "lon")
        population = try r.array(n, "population"); geonameID = try r.array(n, "id")
        nameRef = try r.array(n, "name"); admin1Ref = try r.array(n, "admin1"); admin2Ref = try r.array(n, "admin2")
        countryRef = try r.array(n, "country"); timeZoneRef = try r.array(n, "tz")
        splitDimension = try r.array(n, "dims"); isSection = try r.array(n, "pplx")
        var v = [Float](repeating: 0, count: n * 3)
        var w = [Float](repeating: 1, count: n)
        for i in 0..<n {
            guard Int(countryRef[i]) < nc, admin1Ref[i] == StringTable.none || Int(admin1Ref[i]) < admin1.count,
                  admin2Ref[i] == StringTable.none || Int(admin2Ref[i]) < admin2.count, splitDimension[i] < 3 else {
                throw .truncated("places")
            }
            let (x, y, z) = unitVector(latitude: Double(latE5[i]) / 1e5, longitude: Double(lonE5[i]) / 1e5)
            v[3 * i] = Float(x); v[3 * i + 1] = Float(y); v[3 * i + 2] = Float(z)
            let wi = Self.weight(population: population[i])
            w[i] = wi * wi
        }
        xyz = v
        weight2 = w

        r = try blob.reader("NAMK")
        keyCount = Int(try r.u32())
        keyRef = try r.array(keyCount, "keys"); keyPlace = try r.array(keyCount, "key places")
        keyKind = try r.array(keyCount, "key kinds")
        for i in 0..<keyCount where Int(keyPlace[i]) >= n { throw .truncated("key places") }

        countryLayer = try RegionLayer(blob.reader("CGRD"))
        timeZoneLayer = try RegionLayer(blob.reader("TGRD"))
        guard countryLayer.regionCount <= nc, timeZoneLayer.regionCount <= tz.count else { throw .truncated("layers") }
    }

    static func admins(_ blob: GeoBlob, _ tag: String, _ strings: StringTable, _ nc: Int) throws(GeoDataError) -> [Admin] {
        var r = try blob.reader(tag)
        let n = Int(try r.u32())
        var out: [Admin] = []
        out.reserveCapacity(n)
        for _ in 0..<n {
            let cc = Int(try r.u32() & 0xFFFF)
            let code = strings.string(try r.u32()) ?? ""
            let name = strings.string(try r.u32())
            guard cc < nc else { throw .truncated(tag) }
            out.append(Admin(country: cc, code: code, name: name))
        }
        return out
    }

    // MARK: Places

    func latitude(_ i: Int) -> Double { Double(latE5[i]) / 1e5 }
    func longitude(_ i: Int) -> Double { Double(lonE5[i]) / 1e5 }
    func name(_ i: Int) -> String { strings.string(nameRef[i]) ?? "" }

    /// Best place by population-weighted chord distance (score = chord² / w²) and the nearest section (PPLX),
    /// optionally restricted to one country. Exact: the k-d tree prunes with the largest weight.
    struct Nearest { var best = -1; var bestScore: Float = .infinity; var section = -1; var sectionD2: Float = .infinity }

    /// `maxChord`: places farther than this (chord on the unit sphere, before weighting) need not be found; it bounds
    /// the search far from any place (open sea, Antarctica).
    func nearest(x: Float, y: Float, z: Float, country: Int = -1, maxChord: Float = 2) -> Nearest {
        var result = Nearest()
        result.bestScore = maxChord * maxChord
        result.sectionD2 = Swift.min(result.sectionD2, maxChord * maxChord)
        let maxW2 = Self.maximumWeight * Self.maximumWeight
        xyz.withUnsafeBufferPointer { p in
            weight2.withUnsafeBufferPointer { w in
                // Explicit stack of [lo, hi) ranges.
                var stack: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int,
                            Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int,
                            Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int,
                            Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int)
                    = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                       0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                withUnsafeMutableBytes(of: &stack) { raw in
                    let s = raw.bindMemory(to: Int.self)
                    var top = 0
                    s[0] = 0; s[1] = placeCount; top = 2
                    while top > 0 {
                        top -= 2
                        let lo = s[top], hi = s[top + 1]
                        if lo >= hi { continue }
                        let mid = (lo + hi) >> 1
                        let px = p[3 * mid], py = p[3 * mid + 1], pz = p[3 * mid + 2]
                        let dx = px - x, dy = py - y, dz = pz - z
                        let d2 = dx * dx + dy * dy + dz * dz
                        if country < 0 || Int(countryRef[mid]) == country {
                            if isSection[mid] != 0 {
                                if d2 < result.sectionD2 { result.sectionD2 = d2; result.section = mid }
                            } else {
                                let score = d2 / w[mid]
                                if score < result.bestScore { result.bestScore = score; result.best = mid }
                            }
                        }
                        let dim = Int(splitDimension[mid])
                        let diff = dim == 0 ? x - px : (dim == 1 ? y - py : z - pz)
                        let (nearLo, nearHi, farLo, farHi) = diff < 0 ? (lo, mid, mid + 1, hi) : (mid + 1, hi, lo, mid)
                        let plane2 = diff * diff
                        if (plane2 / maxW2 < result.bestScore || plane2 < result.sectionD2) && top + 4 <= s.count {
                            s[top] = farLo; s[top + 1] = farHi; top += 2
                        }
                        if top + 2 <= s.count { s[top] = nearLo; s[top + 1] = nearHi; top += 2 }
                    }
                }
            }
        }
        return result
    }

    func countryIndex(latitude: Double, longitude: Double) -> Int {
        countryLayer.region(latE6: Int64((latitude * 1e6).rounded()), lonE6: Int64((longitude * 1e6).rounded()))
    }

    func timeZoneIndex(latitude: Double, longitude: Double) -> Int {
        timeZoneLayer.region(latE6: Int64((latitude * 1e6).rounded()), lonE6: Int64((longitude * 1e6).rounded()))
    }
}

@inline(__always)
func unitVector(latitude: Double, longitude: Double) -> (Double, Double, Double) {
    let la = latitude * .pi / 180, lo = longitude * .pi / 180
    let c = cos(la)
    return (c * cos(lo), c * sin(lo), sin(la))
}

/// Chord length on the unit sphere → great-circle metres (mean Earth radius 6,371,008.8 m).
@inline(__always)
func chordToMeters(_ chord: Double) -> Double {
    2 * 6_371_008.8 * asin(Swift.min(1, chord / 2))
}
