#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore
import LodestarGeoData

/// The embedded geocoding data, opened once (tables read in place; only the places' unit vectors are computed).
final class GeoDatabase: @unchecked Sendable {
    struct Country { let code: String; let name: String; let hasPolygon: Bool }
    struct Admin { let country: Int; let code: String; let name: String? }
    /// A contiguous range of places forming one implicit k-d tree: localities of one population band, or sections.
    struct Band { let start: Int; let end: Int; let isSections: Bool; let maxWeight2: Float }

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
    /// Locality bands (largest weight first), then the sections band.
    let bands: [Band]
    /// What the locality search reads of each place, in 16 bytes (four places per cache line).
    struct Node {
        /// The place on the unit sphere.
        var x: Float, y: Float, z: Float
        /// Population weight (see `weight(population:)`) squared, with the k-d split dimension (0 x, 1 y, 2 z) in the
        /// two lowest mantissa bits (a relative change below 5e-7).
        var packed: UInt32
        init(x: Float, y: Float, z: Float, weight2: Float, dimension: UInt8) {
            self.x = x; self.y = y; self.z = z
            packed = (weight2.bitPattern & ~3) | UInt32(dimension & 3)
        }
        @inline(__always) var weight2: Float { Float(bitPattern: packed & ~3) }
        @inline(__always) var dimension: UInt32 { packed & 3 }
    }
    let nodes: [Node]

    // Forward index: folded keys sorted bytewise.
    let keyCount: Int
    let keyRef: RawArray<UInt32>
    let keyPlace: RawArray<UInt32>
    let keyKind: RawArray<UInt8>

    let countryLayer: RegionLayer
    let timeZoneLayer: RegionLayer
    /// Natural Earth marine polygons (oceans, seas, gulfs, bays), smallest first where they overlap.
    let marineLayer: RegionLayer
    let marineNames: [String]
    /// Admin-1 (state/province) polygons, region index = `admin1` index (Natural Earth 10m admin-1 borders, each face
    /// named by the GeoNames admin1 most of its places carry; see docs/geocoding.md). Nil in a blob without `AGRD`.
    let admin1Layer: RegionLayer?
    /// Per place (PADM): the admin-1 layer's region at the place (low 16 bits, 0xFFFF none) and the radius (high 16
    /// bits, 10 m units) of a disc around it that no layer edge crosses — a query in it has the same answer without a
    /// lookup.
    let placeAdmin1: RawArray<UInt32>?
    let countryIndexByCode: [String: Int]
    /// Per 1° cell (`degreeCell`): nonzero when the whole cell is open sea far from every place (country layer
    /// `farFromPlaces`) with one time zone and one marine value — then the answer is known without a lookup: bits 0–14
    /// the time-zone layer's run value (region + 1, 0 none), bits 15–29 the marine layer's, bit 31 set.
    let openSea: [UInt32]
    /// Per 1° cell: the country layer's answer when the whole cell has one (low 16 bits: 0 not uniform, 0xFFFF
    /// `outsideFarFromPlaces`, else region + 2, i.e. 1 = no country), the time-zone layer's likewise (high 16 bits, 0 not
    /// uniform, else region + 2) — in the interior of a country most points need neither lookup.
    let uniformCells: [UInt32]
    /// Per 1° cell: the admin-1 layer's region + 2 when the whole cell has one (1 = none), else 0 (empty without the
    /// layer).
    let admin1Uniform: [UInt16]
    /// Bit i set when `openSea[i]` is nonzero (8 KB, stays in cache: land points test it without a miss).
    let openSeaBits: [UInt64]
    /// The layers' rings for drawing (Geocoder+Outlines.swift), split on first use.
    let outlines = OutlineCache()

    static let maximumWeight: Float = 4
    /// Subtrees of at most this many places are scanned rather than descended.
    static let leafSize = 16

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
        var v: [Node] = []
        v.reserveCapacity(n)
        for i in 0..<n {
            guard Int(countryRef[i]) < nc, admin1Ref[i] == StringTable.none || Int(admin1Ref[i]) < admin1.count,
                  admin2Ref[i] == StringTable.none || Int(admin2Ref[i]) < admin2.count, splitDimension[i] < 3 else {
                throw .truncated("places")
            }
            let (x, y, z) = unitVector(latitude: Double(latE5[i]) / 1e5, longitude: Double(lonE5[i]) / 1e5)
            let wi = Self.weight(population: population[i])
            v.append(Node(x: Float(x), y: Float(y), z: Float(z), weight2: wi * wi, dimension: splitDimension[i]))
        }
        nodes = v

        r = try blob.reader("BAND")
        var bs: [Band] = []
        var expectedStart = 0
        for _ in 0..<Int(try r.u32()) {
            let start = Int(try r.u32()), end = Int(try r.u32()), flags = try r.u32()
            guard start == expectedStart, end >= start, end <= n else { throw .truncated("bands") }
            expectedStart = end
            let maxW2 = v[start..<end].lazy.map(\.weight2).max() ?? 1
            bs.append(Band(start: start, end: end, isSections: flags & 1 != 0, maxWeight2: maxW2))
        }
        guard expectedStart == n else { throw .truncated("bands") }
        bands = bs

        r = try blob.reader("NAMK")
        keyCount = Int(try r.u32())
        keyRef = try r.array(keyCount, "keys"); keyPlace = try r.array(keyCount, "key places")
        keyKind = try r.array(keyCount, "key kinds")
        for i in 0..<keyCount where Int(keyPlace[i]) >= n { throw .truncated("key places") }

        countryLayer = try RegionLayer(blob.reader("CGRD"))
        timeZoneLayer = try RegionLayer(blob.reader("TGRD"))
        r = try blob.reader("MRNM")
        var marine: [String] = []
        for _ in 0..<Int(try r.u32()) { marine.append(strings.string(try r.u32()) ?? "") }
        marineNames = marine
        marineLayer = try RegionLayer(blob.reader("MGRD"))
        admin1Layer = blob.sections["AGRD"] == nil ? nil : try RegionLayer(blob.reader("AGRD"))
        if admin1Layer != nil, blob.sections["PADM"] != nil {
            r = try blob.reader("PADM")
            guard Int(try r.u32()) == n else { throw .truncated("PADM") }
            let entries: RawArray<UInt32> = try r.array(n, "PADM")
            let count = admin1Layer?.regionCount ?? 0
            for i in 0..<n where entries[i] & 0xFFFF != 0xFFFF && Int(entries[i] & 0xFFFF) >= count {
                throw .truncated("PADM regions")
            }
            placeAdmin1 = entries
        } else {
            placeAdmin1 = nil
        }
        guard countryLayer.regionCount <= nc, timeZoneLayer.regionCount <= tz.count,
              marineLayer.regionCount <= marine.count, (admin1Layer?.regionCount ?? 0) <= admin1.count else {
            throw .truncated("layers")
        }
        let countryUniform = countryLayer.uniformDegreeValues(), timeZoneUniform = timeZoneLayer.uniformDegreeValues()
        let sea = Self.openSeaCells(countryUniform, timeZoneUniform, marineLayer.uniformDegreeValues())
        var bits = [UInt64](repeating: 0, count: (sea.count + 63) / 64)
        for i in sea.indices where sea[i] != 0 { bits[i >> 6] |= 1 << UInt64(i & 63) }
        openSea = sea
        uniformCells = Self.uniformCells(countryUniform, timeZoneUniform)
        admin1Uniform = admin1Layer.map { layer in
            layer.uniformDegreeValues().map { v in v < 0xFFFD ? UInt16(v + 1) : 0 }
        } ?? []
        openSeaBits = bits
    }

    /// `openSea` from the three layers' `uniformDegreeValues`.
    static func openSeaCells(_ c: [UInt32], _ t: [UInt32], _ m: [UInt32]) -> [UInt32] {
        func small(_ v: UInt32) -> Bool { v < 0x7FFF }   // region + 1 or 0: not mixed, not far, not `notUniform`
        return (0..<c.count).map { i in
            c[i] == RegionLayer.farFromPlaces && small(t[i]) && small(m[i]) ? 0x8000_0000 | m[i] << 15 | t[i] : 0
        }
    }

    /// `uniformCells` from the country and time-zone layers' `uniformDegreeValues`.
    static func uniformCells(_ c: [UInt32], _ t: [UInt32]) -> [UInt32] {
        /// A uniform run value as a 16-bit code (region + 2, 1 none), 0 when it has none.
        func code(_ v: UInt32) -> UInt32 { v < 0xFFFD ? v + 1 : 0 }
        return (0..<c.count).map { i in
            (c[i] == RegionLayer.farFromPlaces ? 0xFFFF : code(c[i])) | code(t[i]) << 16
        }
    }

    /// Country layer region of a point (as `RegionLayer.region`), from `uniformCells` when its 1° cell has one.
    @inline(__always)
    func countryRegion(latE6: Int64, lonE6: Int64, uniform: UInt32) -> Int {
        let code = Int(uniform & 0xFFFF)
        if code == 0 { return countryLayer.region(latE6: latE6, lonE6: lonE6) }
        return code == 0xFFFF ? RegionLayer.outsideFarFromPlaces : code - 2
    }

    /// Time-zone layer region of a point (as `RegionLayer.region`), from `uniformCells` when its 1° cell has one.
    @inline(__always)
    func timeZoneRegion(latE6: Int64, lonE6: Int64, uniform: UInt32) -> Int {
        let code = Int(uniform >> 16)
        return code == 0 ? timeZoneLayer.region(latE6: latE6, lonE6: lonE6) : code - 2
    }

    /// The 1° cell of a point (micro-degrees; rows and columns clamp like the layers' cells).
    @inline(__always)
    static func degreeCell(latE6 y: Int64, lonE6 x: Int64) -> Int {
        Int(Swift.min(Swift.max((y + 90_000_000) / 1_000_000, 0), 179)) * 360
            + Int(Swift.min(Swift.max((x + 180_000_000) / 1_000_000, 0), 359))
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

    /// Best place by population-weighted chord distance (score = chord² / w²), optionally restricted to one country.
    /// Exact: each band's k-d tree prunes with the band's largest weight, and the bands are searched largest weight
    /// first, so a near town bounds the search for hamlets to a small ball.
    struct Nearest { var best = -1; var bestScore: Float = .infinity }

    /// `maxChord`: only places at most this far (chord on the unit sphere, before weighting) are considered; it bounds
    /// the search far from any place (open sea, Antarctica).
    func nearest(x: Float, y: Float, z: Float, country: Int = -1, admin1: Int = -1, maxChord: Float = 2) -> Nearest {
        var result = Nearest()
        for band in bands where !band.isSections {
            search(band, x: x, y: y, z: z, country: country, admin1: admin1, weighted: true, limit2: maxChord * maxChord,
                   best: &result.best, bestScore: &result.bestScore)
        }
        return result
    }

    /// Nearest GeoNames section of a populated place (PPLX) at most `maxChord` away, unweighted: (index, chord²).
    func nearestSection(x: Float, y: Float, z: Float, maxChord: Float) -> (index: Int, chord2: Float) {
        var best = -1
        var d2: Float = .infinity
        for band in bands where band.isSections {
            search(band, x: x, y: y, z: z, country: -1, admin1: -1, weighted: false, limit2: maxChord * maxChord,
                   best: &best, bestScore: &d2)
        }
        return (best, d2)
    }

    /// One band's implicit k-d tree (node of [lo, hi) = (lo + hi) / 2), depth-first, nearer side first.
    @inline(__always)
    private func search(_ band: Band, x: Float, y: Float, z: Float, country: Int, admin1: Int, weighted: Bool, limit2: Float,
                        best: inout Int, bestScore: inout Float) {
        let maxW2 = weighted ? band.maxWeight2 : 1
        nodes.withUnsafeBufferPointer { p in
            /// Place i as a candidate; returns its offset from the query (for the split-plane test).
            @inline(__always) func consider(_ i: Int) -> (dx: Float, dy: Float, dz: Float) {
                let node = p[i]
                let dx = node.x - x, dy = node.y - y, dz = node.z - z
                let d2 = dx * dx + dy * dy + dz * dz
                if d2 <= limit2 && (country < 0 || Int(countryRef[i]) == country)
                    && (admin1 < 0 || Int(admin1Ref[i]) == admin1) {
                    let score = weighted ? d2 / node.weight2 : d2
                    if score < bestScore { bestScore = score; best = i }
                }
                return (dx, dy, dz)
            }
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 128) { s in
                s[0] = Int32(band.start); s[1] = Int32(band.end)
                var top = 2
                while top > 0 {
                    top -= 2
                    let lo = Int(s[top]), hi = Int(s[top + 1])
                    if lo >= hi { continue }
                    if hi - lo <= Self.leafSize {
                        // A small subtree is contiguous in the in-order layout: scan it (one or two cache lines).
                        for i in lo..<hi { _ = consider(i) }
                        continue
                    }
                    let mid = (lo + hi) >> 1
                    // The four grandchildren's nodes: their addresses do not depend on the data read on the way.
                    if let base = p.baseAddress, hi - lo > 8 {
                        let a = (lo + mid) >> 1, b = (mid + 1 + hi) >> 1
                        lodestar_prefetch(base + ((lo + a) >> 1)); lodestar_prefetch(base + ((a + 1 + mid) >> 1))
                        lodestar_prefetch(base + ((mid + 1 + b) >> 1)); lodestar_prefetch(base + ((b + 1 + hi) >> 1))
                    }
                    let (dx, dy, dz) = consider(mid)
                    let dimension = p[mid].dimension
                    let diff = dimension == 0 ? -dx : (dimension == 1 ? -dy : -dz)
                    let plane2 = diff * diff
                    let (nearLo, nearHi, farLo, farHi) = diff < 0 ? (lo, mid, mid + 1, hi) : (mid + 1, hi, lo, mid)
                    if plane2 <= limit2 && plane2 < bestScore * maxW2 && top + 4 <= s.count {
                        s[top] = Int32(farLo); s[top + 1] = Int32(farHi); top += 2
                    }
                    if top + 2 <= s.count { s[top] = Int32(nearLo); s[top + 1] = Int32(nearHi); top += 2 }
                }
            }
        }
    }

    func countryIndex(latitude: Double, longitude: Double) -> Int {
        countryLayer.region(latE6: microDegrees(latitude), lonE6: microDegrees(longitude))
    }

    /// Starts loading the country, time-zone and marine layers' index entries for the point, so their cache misses
    /// overlap.
    @inline(__always)
    func prefetchLayers(latE6: Int64, lonE6: Int64) {
        countryLayer.prefetch(latE6: latE6, lonE6: lonE6)
        timeZoneLayer.prefetch(latE6: latE6, lonE6: lonE6)
        marineLayer.prefetch(latE6: latE6, lonE6: lonE6)
    }

    /// Starts loading what is read of place `i` once it is chosen (its tables are separate arrays: one miss each).
    @inline(__always)
    func prefetchPlace(_ i: Int) {
        countryRef.prefetch(i); admin1Ref.prefetch(i); admin2Ref.prefetch(i); nameRef.prefetch(i)
        latE5.prefetch(i); lonE5.prefetch(i); geonameID.prefetch(i); timeZoneRef.prefetch(i)
        placeAdmin1?.prefetch(i)
    }

    /// The country whose boundary passes within `maxMeters` of the point, nearest first (see
    /// `RegionLayer.nearestBoundaryRegion`).
    func countryNearBoundary(latitude: Double, longitude: Double, maxMeters: Double) -> Int? {
        countryLayer.nearestBoundaryRegion(latE6: microDegrees(latitude), lonE6: microDegrees(longitude),
                                           maxMeters: maxMeters)?.region
    }

    /// Index into `admin1` of the admin-1 polygon holding the point, or -1 (none, or a gap between the simplified
    /// polygons, or a face no admin1 could be given to).
    func admin1Index(latitude: Double, longitude: Double) -> Int {
        let y = microDegrees(latitude), x = microDegrees(longitude)
        if let u = admin1UniformCode(latE6: y, lonE6: x) { return u }
        return Swift.max(admin1Layer?.region(latE6: y, lonE6: x) ?? -1, -1)
    }

    /// `admin1Index` from `admin1Uniform` when the point's 1° cell has one answer, else nil.
    @inline(__always)
    func admin1UniformCode(latE6: Int64, lonE6: Int64) -> Int? {
        guard !admin1Uniform.isEmpty else { return nil }
        let code = Int(admin1Uniform[Self.degreeCell(latE6: latE6, lonE6: lonE6)])
        return code == 0 ? nil : Swift.max(code - 2, -1)
    }

    /// Starts loading what `admin1Index` reads first (called before the place search, whose work hides the miss).
    @inline(__always)
    func prefetchAdmin1(latitude: Double, longitude: Double) {
        let y = microDegrees(latitude), x = microDegrees(longitude)
        admin1Layer?.prefetch(latE6: y, lonE6: x)
        admin1Uniform.withUnsafeBufferPointer { b in
            if let base = b.baseAddress { lodestar_prefetch(base + Self.degreeCell(latE6: y, lonE6: x)) }
        }
    }

    /// `admin1Index` of a point `meters` from place `place`: read from PADM when the point is inside the place's
    /// edge-free disc (most land queries), else looked up.
    @inline(__always)
    func admin1Index(latitude: Double, longitude: Double, near place: Int, meters: Double) -> Int {
        if let u = admin1UniformCode(latE6: microDegrees(latitude), lonE6: microDegrees(longitude)) { return u }
        if let entries = placeAdmin1 {
            let e = entries[place]
            if meters < Double(e >> 16) * 10 { return e & 0xFFFF == 0xFFFF ? -1 : Int(e & 0xFFFF) }
        }
        return admin1Index(latitude: latitude, longitude: longitude)
    }
}

@inline(__always)
func unitVector(latitude: Double, longitude: Double) -> (Double, Double, Double) {
    let la = latitude * .pi / 180, lo = longitude * .pi / 180
    let c = cos(la)
    return (c * cos(lo), c * sin(lo), sin(la))
}

/// Degrees → the layers' integer micro-degrees.
@inline(__always)
func microDegrees(_ degrees: Double) -> Int64 { Int64((degrees * 1e6).rounded()) }

/// Chord length on the unit sphere → great-circle metres (mean Earth radius 6,371,008.8 m).
@inline(__always)
func chordToMeters(_ chord: Double) -> Double {
    2 * Geo.earthRadiusMeters * asin(Swift.min(1, chord / 2))
}
