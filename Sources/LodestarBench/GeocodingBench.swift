// `LodestarBench geocode [N]`: offline geocoding cost — load time of the embedded data, reverse geocodes per second
// on one core (place + country + time zone, uniformly random points on the sphere: land and sea), forward
// microseconds per query, and peak RSS. scripts/bench.sh prints Python reverse_geocoder beside it.
#if canImport(Glibc)
import Glibc
#endif
import Geocoding

enum GeocodingBenchmark {
    static func peakRSSMegabytes() -> Double {
        guard let f = fopen("/proc/self/status", "r") else { return 0 }
        defer { fclose(f) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, 256, f) != nil {
            let s = String(cString: line)
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
        // Deterministic uniform points on the sphere (xorshift).
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Double(state >> 11) / Double(1 << 53)
        }
        var lats = [Double](), lons = [Double]()
        lats.reserveCapacity(queries); lons.reserveCapacity(queries)
        for _ in 0..<queries {
            lats.append(asin(2 * next() - 1) * 180 / .pi)
            lons.append(next() * 360 - 180)
        }
        var withCountry = 0
        var best = Double.infinity
        for _ in 0..<3 {
            let s = now()
            var c = 0
            for i in 0..<queries where geocoder.reverse(latitude: lats[i], longitude: lons[i])?.isoCountryCode != nil { c += 1 }
            best = Swift.min(best, now() - s)
            withCountry = c
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
        print("geocode: forward \(String(format4: fbest / fq * 1e6)) µs/query (\(found / 200) of \(names.count) names found; target <= 50 µs)")
        print("geocode: peak RSS \(String(format4: peakRSSMegabytes())) MB (target <= 60 MB)")
        return 0
    }
}
