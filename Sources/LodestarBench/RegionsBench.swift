#if canImport(Glibc)
import Glibc
#endif
import LocationCore
import LocationServices

/// `LodestarBench regions [N]`: N (default 10,000) circular regions of 50–500 m over a 20 × 20 km area; a 1 Hz
/// drive of 20,000 fixes (12 m/s with turns, 5 m jitter) through them. Prints the region monitor's time per fix
/// (best of 5) next to a brute-force check of every region per fix in the same run (target ≤ 10 µs per fix).
enum RegionsBenchmark {
    struct Random {
        var s: UInt64
        mutating func next() -> Double {
            s &+= 0x9E37_79B9_7F4A_7C15
            var z = s
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) * 0x1p-53
        }
    }

    static func run(regionCount: Int) -> Int32 {
        var rng = Random(s: 1)
        let origin = Coordinate(latitudeDegrees: 37.4, longitudeDegrees: -122.1)
        var regions: [CircularRegion] = []
        for i in 0..<regionCount {
            let c = Geo.offset(origin, northMeters: rng.next() * 20_000 - 10_000, eastMeters: rng.next() * 20_000 - 10_000)
            regions.append(CircularRegion(identifier: "r\(i)", center: c, radiusMeters: 50 + rng.next() * 450))
        }
        var fixes: [Location] = []
        var p = Geo.offset(origin, northMeters: -9000, eastMeters: -9000)
        var course = 0.7
        let t0 = Timestamp(nanosecondsSince1970: 1_750_000_000_000_000_000)
        for k in 0..<20_000 {
            course += (rng.next() - 0.5) * 0.2
            p = Geo.offset(p, northMeters: 12 * cos(course), eastMeters: 12 * sin(course))
            if abs(p.latitudeDegrees - origin.latitudeDegrees) > 0.09 || abs(p.longitudeDegrees - origin.longitudeDegrees) > 0.11 { course += Double.pi }
            var l = Location()
            let j = Geo.offset(p, northMeters: (rng.next() - 0.5) * 10, eastMeters: (rng.next() - 0.5) * 10)
            l.time = t0.adding(nanoseconds: Int64(k) * 1_000_000_000)
            l.latitudeDegrees = j.latitudeDegrees; l.longitudeDegrees = j.longitudeDegrees
            l.mode = .threeD; l.horizontalAccuracyMeters = 5
            fixes.append(l)
        }
        var best = Double.infinity
        var events = 0
        for _ in 0..<5 {
            var monitor = RegionMonitor(regions: regions)
            var out: [RegionEvent] = []
            monitor.process(fixes[0], into: &out)  // builds the index and determines the initial states
            out.removeAll()
            let start = now()
            for f in fixes.dropFirst() { monitor.process(f, into: &out) }
            best = Swift.min(best, now() - start)
            events = out.count
        }
        // Brute force in the same run: the distance to every region's centre, per fix.
        var bruteBest = Double.infinity
        var inside = 0
        for _ in 0..<2 {
            let start = now()
            inside = 0
            for f in fixes.prefix(2000) {
                guard let c = f.coordinate else { continue }
                for r in regions where Geo.distanceMeters(r.center, c) <= r.radiusMeters { inside += 1 }
            }
            bruteBest = Swift.min(bruteBest, (now() - start) / 2000 * Double(fixes.count - 1))
        }
        let perFix = best / Double(fixes.count - 1) * 1e6
        let brutePerFix = bruteBest / Double(fixes.count - 1) * 1e6
        print("regions: \(regionCount) regions, \(fixes.count - 1) fixes, \(events) enter/exit events: "
              + "\(String(format4: perFix)) µs per fix (target ≤ 10 µs); brute force \(String(format4: brutePerFix)) µs per fix "
              + "(\(String(format4: brutePerFix / perFix))x; \(inside) inside-samples)")
        return 0
    }
}
