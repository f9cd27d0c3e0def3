import Capture
import Events
import LocationCore
import Pipeline
import Testing
import TestSupport

@Suite("Replay of non-NMEA sources through the pipeline", .ownThreads)
struct ReplaySourcesTests {
    /// The fixes as parsed (smoothing off: these tests check which source rows become fixes).
    static func fixes(_ path: String) throws -> [Location] {
        var settings = Pipeline.Settings()
        settings.smoothing.smoothing = nil
        return try SessionReplay.fixes(path, settings: settings)
    }

    @Test func gnssLoggerUsesOnlyTheChipsetsGPSFixes() throws {
        let dir = try TemporaryDirectory()
        let p = try dir.write("log.txt", """
        # Version: v3.0.6.4 Platform: 14 Manufacturer: Google Model: Pixel 7
        # Fix,Provider,LatitudeDegrees,LongitudeDegrees,AltitudeMeters,SpeedMps,AccuracyMeters,BearingDegrees,UnixTimeMillis,SpeedAccuracyMps,BearingAccuracyDegrees,elapsedRealtimeNanos,VerticalAccuracyMeters,MockLocation
        Fix,GPS,37.4265,-122.1737,2.0,0.6,6.1,350.4,1699401140587,0.1,5.0,1000000000,4.7,0
        Fix,FLP,37.4266,-122.1738,2.0,0.6,3.0,350.4,1699401140600,0.1,5.0,1000100000,4.7,0
        Fix,NLP,37.4200,-122.1700,,,,,1699401140700,,,1000200000,,0

        """)
        let f = try Self.fixes(p)
        #expect(f.count == 1)
        #expect(f.first?.latitudeDegrees == 37.4265)
        #expect(f.first?.horizontalAccuracyMeters == 6.1)
    }

    @Test(.enabled(if: SharedData.available, Comment(rawValue: SharedData.skipMessage)))
    func realGnssLoggerWalkGivesItsGPSFixes() throws {
        // 94 `Fix,GPS` rows in the Pixel 7 walk (grep -c '^Fix,GPS').
        let f = try Self.fixes(SharedData.path("gnsslogger/pixel7_v3.0.6.4_walk_decimated.txt"))
        #expect(f.count == 94)
        #expect(f.isNonEmptyAndAllSatisfy { $0.time != nil && $0.latitudeDegrees != nil })
    }

    @Test(.enabled(if: SharedData.available, Comment(rawValue: SharedData.skipMessage)))
    func realPixel4DriveGivesOneFixPerSecond() throws {
        // GGA+RMC at 1 Hz: 3474 sentences → 1737 fixes, strictly increasing in time.
        let f = try Self.fixes(SharedData.path("gnss/gsdc2021-mtv1/Pixel4_chipset.nmea"))
        #expect(f.count == 1737)
        let times = f.compactMap(\.time)
        #expect(times.count == f.count)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
    }
}
