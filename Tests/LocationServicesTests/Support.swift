import Capture
import Events
import LocationCore
import LocationServices
import Pipeline
import TestSupport

/// Deterministic random numbers (SplitMix64) and Gaussian noise for simulated tracks.
struct SeededRandom {
    var generator: SplitMix64
    init(seed: UInt64) { generator = SplitMix64(seed: seed) }
    mutating func next() -> UInt64 { generator.next() }
    mutating func uniform() -> Double { Double(next() >> 11) * 0x1p-53 }
    mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * uniform() }
    mutating func normal() -> Double {
        let u1 = Swift.max(uniform(), 1e-300), u2 = uniform()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}

let origin = Coordinate(latitudeDegrees: 37.4, longitudeDegrees: -122.1)
let t0 = Timestamp(year: 2025, month: 6, day: 1, hour: 12) ?? Timestamp(nanosecondsSince1970: 0)

func fix(_ seconds: Double, _ c: Coordinate, accuracy: Double? = 5, speed: Double? = nil) -> Location {
    var l = Location()
    l.time = t0.adding(seconds: seconds)
    l.latitudeDegrees = c.latitudeDegrees
    l.longitudeDegrees = c.longitudeDegrees
    l.mode = .threeD
    l.quality = .gps
    l.horizontalAccuracyMeters = accuracy
    l.speedMetersPerSecond = speed
    return l
}

/// 1-σ per-axis noise for a 68 % horizontal radius `a` (2-D Gaussian: radius68 ≈ 1.515 σ).
func jittered(_ c: Coordinate, accuracy a: Double, _ rng: inout SeededRandom) -> Coordinate {
    let sigma = a / 1.515
    return Geo.offset(c, northMeters: sigma * rng.normal(), eastMeters: sigma * rng.normal())
}

/// Fixes of a capture run through the real pipeline (no heading), in order.
func pipelineFixes(_ path: String) throws -> [Location] {
    var settings = Pipeline.Settings()
    settings.heading.heading = nil
    settings.nmea.emitSky = false
    return try SessionReplay.fixes(path, settings: settings, today: CivilDate(year: 2020, month: 6, day: 1))
}

func regionEvents(_ monitor: inout RegionMonitor, _ fixes: [Location]) -> [RegionEvent] {
    var events: [RegionEvent] = []
    for f in fixes { monitor.process(f, into: &events) }
    return events
}

#if canImport(Glibc)
import Glibc
#endif
