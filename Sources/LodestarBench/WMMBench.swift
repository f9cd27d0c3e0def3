#if canImport(Glibc)
import Glibc
#endif
import CLinux
import LocationCore
import Magnetics

/// `LodestarBench wmm [N [K]]`: the World Magnetic Model on the same workload as GeographicLib's C++
/// MagneticModel in scripts/wmm-geographiclib/bench.cpp (scripts/wmm-geographiclib/run.sh runs both).
///
/// Prints, one "key value…" per line (the same keys as bench.cpp):
///   ns_per_eval_wall W / ns_per_eval_cpu C   best of 3 runs of N full evaluations (`field(…)`: the field, its
///                                            secular variation, the elements and their rates)
///   checksum S                               Σ D + F·1e-6 + Ḟ·1e-6 over the N points (the benchmarkSweep formula)
///   benchmark_sweep_ns_per_eval_wall W       `WorldMagneticModel.benchmarkSweep(evaluations: N)`, best of 3, and
///   benchmark_sweep_checksum_matches yes|no  whether its checksum equals the sweep's (it must: same points)
///   cache_hit_ns_per_sample_wall W / …_cpu C per-sample true-north correction through a `DeclinationCache` hit
///   check  lat lon h_km year D I F X Y Z Fdot   the fixed validation points (kCheckPoints in bench.cpp)
///   sweep  i lat lon h_km year D I F X Y Z Fdot the first K sweep points
///
/// THE SWEEP (keep identical to bench.cpp; it is the recurrence of `WorldMagneticModel.benchmarkSweep`): start at
/// latitude −90°, longitude −180°, height 0 km, year 2025.0 (validFrom); after each point: latitude += 1.7
/// (if > 90: −= 180); longitude += 7.3 (if ≥ 180: −= 360); height += 3.1 km (if > 100: −= 100); year +=
/// (validUntil − validFrom) / 1000 (if > validUntil: = validFrom). Plain IEEE double additions, so Swift and C++
/// produce bit-identical points.
enum WMMBenchmark {
    struct Point {
        var latitude: Double, longitude: Double, heightKilometers: Double, year: Double
    }

    struct Sweep {
        var point: Point
        let validFrom: Double, validUntil: Double, yearStep: Double

        init(model: WorldMagneticModel) {
            validFrom = model.validFrom
            validUntil = model.validUntil
            yearStep = (validUntil - validFrom) / 1000
            point = Point(latitude: -90, longitude: -180, heightKilometers: 0, year: validFrom)
        }

        @inline(__always)
        mutating func next() {
            point.latitude += 1.7; if point.latitude > 90 { point.latitude -= 180 }
            point.longitude += 7.3; if point.longitude >= 180 { point.longitude -= 360 }
            point.heightKilometers += 3.1; if point.heightKilometers > 100 { point.heightKilometers -= 100 }
            point.year += yearStep; if point.year > validUntil { point.year = validFrom }
        }
    }

    /// Fixed validation points (the same list as kCheckPoints in bench.cpp).
    static let checkPoints: [Point] = [
        (80, 0, 0, 2025.0), (0, 120, 0, 2025.0), (-80, 240, 0, 2025.0),
        (80, 0, 100, 2027.5), (0, 120, 100, 2027.5), (-80, 240, 100, 2027.5),
        (45.5, -122.6, 0.1, 2026.3), (-33.9, 151.2, 0.05, 2029.99), (51.5, -0.1, 850, 2030.0),
        (90, 0, 0, 2025.0), (-90, 45, 10, 2028.0), (89.999, 100, 50, 2026.2),
    ].map { Point(latitude: $0.0, longitude: $0.1, heightKilometers: $0.2, year: $0.3) }

    static func seconds(_ clock: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    /// Best of 3 (wall, thread CPU) seconds of `body`, and its last result.
    static func bestOf3(_ body: () -> Double) -> (wall: Double, cpu: Double, result: Double) {
        var wall = Double.infinity, cpu = Double.infinity, result = 0.0
        for _ in 0..<3 {
            let w0 = seconds(CLOCK_MONOTONIC), c0 = seconds(CLOCK_THREAD_CPUTIME_ID)
            result = body()
            let c1 = seconds(CLOCK_THREAD_CPUTIME_ID), w1 = seconds(CLOCK_MONOTONIC)
            wall = min(wall, w1 - w0); cpu = min(cpu, c1 - c0)
        }
        return (wall, cpu, result)
    }

    static func evaluate(_ model: WorldMagneticModel, _ p: Point) -> MagneticFieldElements {
        model.field(latitudeDegrees: p.latitude, longitudeDegrees: p.longitude,
                    heightAboveEllipsoidKilometers: p.heightKilometers, decimalYear: p.year)
    }

    static func line(_ key: String, _ p: Point, _ e: MagneticFieldElements, index: Int? = nil) -> String {
        let values = [p.latitude, p.longitude, p.heightKilometers, p.year,
                      e.declinationDegrees, e.inclinationDegrees, e.totalNanotesla,
                      e.northNanotesla, e.eastNanotesla, e.downNanotesla, e.secularVariation.totalNanoteslaPerYear]
        return ([key] + (index.map { ["\($0)"] } ?? []) + values.map { "\($0)" }).joined(separator: " ")
    }

    static func ns(_ seconds: Double, _ count: Int) -> String {
        String(Double(Int((seconds / Double(max(count, 1)) * 1e9 * 10).rounded())) / 10)
    }

    static func run(evaluations n: Int, sweepPoints k: Int) -> Int32 {
        let model = WorldMagneticModel.wmm2025          // parsed here, outside the timed runs
        print("library Lodestar WorldMagneticModel (\(model.modelName), degree \(model.maximumDegree))")

        // 1. Full evaluations over the sweep (the figure compared with GeographicLib).
        let full = bestOf3 {
            var sweep = Sweep(model: model)
            var sum = 0.0
            for _ in 0..<n {
                let e = evaluate(model, sweep.point)
                sum += e.declinationDegrees + e.totalNanotesla * 1e-6 + e.secularVariation.totalNanoteslaPerYear * 1e-6
                sweep.next()
            }
            return sum
        }
        print("evaluations \(n)")
        print("ns_per_eval_wall \(ns(full.wall, n))")
        print("ns_per_eval_cpu \(ns(full.cpu, n))")
        print("checksum \(full.result)")

        // 2. The library's own hook on the same points: same checksum, similar time (it is the same loop).
        let hook = bestOf3 { model.benchmarkSweep(evaluations: n) }
        print("benchmark_sweep_ns_per_eval_wall \(ns(hook.wall, n))")
        print("benchmark_sweep_checksum_matches \(hook.result == full.result ? "yes" : "no (\(hook.result))")")

        // 3. Per-sample true-north correction on a cache hit: a vehicle creeping a few metres around one point
        // (well inside the 1 km / 1 day / 0.01° thresholds), a new magnetic heading each sample.
        let samples = max(1, n) * 50
        var cache = DeclinationCache(model: model)
        let origin = Point(latitude: 48.1173, longitude: 11.5167, heightKilometers: 0.52, year: 2026.4)
        _ = cache.declinationDegrees(latitudeDegrees: origin.latitude, longitudeDegrees: origin.longitude,
                                     heightAboveEllipsoidKilometers: origin.heightKilometers, decimalYear: origin.year)
        let hit = bestOf3 {
            var sum = 0.0
            for i in 0..<samples {
                let d = Double(i & 1023) * 1e-7          // ≤ 1e-4°, ≈ 11 m
                let declination = cache.declinationDegrees(
                    latitudeDegrees: origin.latitude + d, longitudeDegrees: origin.longitude - d,
                    heightAboveEllipsoidKilometers: origin.heightKilometers, decimalYear: origin.year + d * 1e-3)
                sum += Angle.normalizedDegrees(Double(i % 360) + 0.25 + declination)
            }
            return sum
        }
        print("cache_samples \(samples) evaluations_during_samples \(cache.evaluationCount - 1)")
        print("cache_hit_ns_per_sample_wall \(ns(hit.wall, samples))")
        print("cache_hit_ns_per_sample_cpu \(ns(hit.cpu, samples))")

        // 4. Validation values.
        for p in checkPoints { print(line("check", p, evaluate(model, p))) }
        var sweep = Sweep(model: model)
        for i in 0..<max(0, k) {
            print(line("sweep", sweep.point, evaluate(model, sweep.point), index: i))
            sweep.next()
        }
        return hook.result == full.result && cache.evaluationCount == 1 ? 0 : 1
    }
}
