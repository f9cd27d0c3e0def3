// `LodestarBench geocode [N]`: offline geocoding cost — load time of the embedded data, reverse geocodes per second
// on one core (place + country + time zone, uniformly random points on the sphere: land and sea), forward
// microseconds per query, and peak RSS. scripts/bench.sh prints Python reverse_geocoder beside it.
#if canImport(Glibc)
import Glibc
#endif
import Geocoding
import LocationCore

/// FNV-1a over every field of the reverse placemarks (with field separators), to compare the answers of two builds.
struct Digest {
    var value: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func byte(_ b: UInt8) { value = (value ^ UInt64(b)) &* 0x100_0000_01b3 }
    mutating func add(_ s: String?) {
        if let s { byte(1); for b in s.utf8 { byte(b) } } else { byte(0) }
        byte(0xFF)
    }
    mutating func add(_ d: Double?) {
        if let d { byte(1); var b = d.bitPattern; for _ in 0..<8 { byte(UInt8(truncatingIfNeeded: b)); b >>= 8 } } else { byte(0) }
    }
    mutating func add(_ pm: Placemark?) {
        guard let pm else { byte(2); return }
        add(pm.name); add(pm.locality); add(pm.subLocality); add(pm.administrativeArea); add(pm.subAdministrativeArea)
        add(pm.isoCountryCode); add(pm.country); add(pm.ocean); add(pm.timeZone); add(pm.administrativeAreaCode)
        add(pm.geonameID.map(Double.init)); add(pm.confidence); add(pm.distanceMeters)
        add(pm.location?.latitudeDegrees); add(pm.location?.longitudeDegrees)
        if let l = pm.location {   // reverse placemarks carry only the coordinate
            var plain = Location()
            plain.latitudeDegrees = l.latitudeDegrees; plain.longitudeDegrees = l.longitudeDegrees
            byte(l == plain ? 3 : 4)
        } else { byte(5) }
        add(pm.region?.centerLatitudeDegrees); add(pm.region?.centerLongitudeDegrees); add(pm.region?.radiusMeters)
    }
}

enum GeocodingBenchmark {
    static func peakRSSMegabytes() -> Double {
        guard let f = fopen("/proc/self/status", "r") else { return 0 }
        defer { fclose(f) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, 256, f) != nil {
            let s = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if s.hasPrefix("VmHWM:") {
                let digits = s.filter(\.isNumber)
                return (Double(digits) ?? 0) / 1024
            }
        }
        return 0
    }

    static func run(queries: Int) -> Int32 {
        let t0 = now()
        guard let geocoder = try? Geocoder.shared() else { print("geocode: geodata unreadable"); return 65 }
        let load = now() - t0
        // Deterministic uniform points on the sphere (xorshift), made in blocks of 4,096 outside the timed calls (so
        // the queries cost no memory and the peak RSS is the geocoder's).
        let seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        var state = seed
        func next() -> Double {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Double(state >> 11) / Double(1 << 53)
        }
        let blockSize = 4096
        var lats = [Double](repeating: 0, count: blockSize), lons = [Double](repeating: 0, count: blockSize)
        var hasCountry = [Bool](repeating: false, count: blockSize)
        var landLats = [Double](), landLons = [Double]()
        var withCountry = 0
        var best = Double.infinity
        for _ in 0..<3 {
            state = seed
            var elapsed = 0.0
            var c = 0, done = 0
            while done < queries {
                let n = Swift.min(blockSize, queries - done)
                for k in 0..<n {
                    lats[k] = asin(2 * next() - 1) * 180 / .pi
                    lons[k] = next() * 360 - 180
                }
                let s = now()
                for k in 0..<n {
                    hasCountry[k] = geocoder.reverse(latitude: lats[k], longitude: lons[k])?.isoCountryCode != nil
                }
                elapsed += now() - s
                for k in 0..<n where hasCountry[k] { c += 1 }
                done += n
            }
            best = Swift.min(best, elapsed)
            withCountry = c
        }
        let rss = peakRSSMegabytes()   // the geocoder's (before the list of land points below)
        state = seed
        var digest = Digest()
        for _ in 0..<queries {
            let lat = asin(2 * next() - 1) * 180 / .pi, lon = next() * 360 - 180
            let pm = geocoder.reverse(latitude: lat, longitude: lon)
            digest.add(pm)
            if pm?.isoCountryCode != nil { landLats.append(lat); landLons.append(lon) }
        }
        // The same measure on the points with a country only (land and territorial waters: every lookup runs), in the
        // same random order.
        var landBest = Double.infinity
        for _ in 0..<3 {
            let s = now()
            var l = 0
            for k in 0..<landLats.count where geocoder.reverse(latitude: landLats[k], longitude: landLons[k])?.locality != nil { l += 1 }
            landBest = Swift.min(landBest, now() - s)
            if l < 0 { print(l) }
        }
        let names = ["Paris", "Paris, TX", "München", "san francisco ca", "Cupertino", "Springfield, IL", "Tokyo",
                     "Rio de Janeiro", "Zürich", "Kraków", "new york", "Sydney, Australia", "Lagos", "nowhere zz"]
        var fbest = Double.infinity
        var found = 0
        for _ in 0..<5 {
            let s = now()
            var k = 0
            for _ in 0..<200 { for n in names where !geocoder.geocode(n, limit: 5).isEmpty { k += 1 } }
            fbest = Swift.min(fbest, now() - s)
            found = k
        }
        let fq = Double(200 * names.count)
        print("geocode: load \(String(format4: load * 1000)) ms; \(geocoder.placeCount) places")
        print("geocode: reverse \(queries) random points (\(withCountry) with a country): \(Int(Double(queries) / best)) queries/s on one core (\(String(format4: best / Double(queries) * 1e6)) µs each; target >= 1,000,000/s)")
        print("geocode: reverse, the \(withCountry) of them with a country only: \(Int(Double(withCountry) / landBest)) queries/s (\(String(format4: landBest / Double(withCountry) * 1e6)) µs each)")
        print("geocode: forward \(String(format4: fbest / fq * 1e6)) µs/query (\(found / 200) of \(names.count) names found; target <= 50 µs)")
        print("geocode: reverse answers digest \(String(digest.value, radix: 16)) (FNV-1a of every field of every placemark; equal digests = same answers)")
        print("geocode: peak RSS \(String(format4: rss)) MB (target <= 60 MB)")
        return 0
    }
}
