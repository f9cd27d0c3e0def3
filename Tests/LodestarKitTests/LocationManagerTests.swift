import LodestarKit
import Testing
import TestSupport

@Suite(.ownThreads) struct LocationManagerTests {
    static let capture = SharedData.packageRoot.appendingPathComponent("captures/simulated-drive.lcap").path

    @Test func replayDeliversUpdatesRegionsVisitsHeadingsAndBatches() async throws {
        let manager = LocationManager(source: .replay(path: Self.capture))
        let all = manager.liveUpdates()
        let filtered = manager.liveUpdates(.init(desiredAccuracy: .bestForNavigation, distanceFilterMeters: 100))
        let monitor = manager.monitor()
        monitor.add(CircularRegion(identifier: "stop", center: Coordinate(latitudeDegrees: 37.38575, longitudeDegrees: -122.07683),
                                   radiusMeters: 100))
        monitor.add(CircularRegion(identifier: "never", center: Coordinate(latitudeDegrees: 38, longitudeDegrees: -122), radiusMeters: 500))
        var vs = VisitDetector.Settings()
        vs.minimumDwellSeconds = 45
        let visits = manager.visits(vs)
        let headings = manager.headingUpdates(filterDegrees: 10)
        let batches = manager.deferredUpdates(distanceMeters: 500, seconds: nil)
        try manager.run()   // replay on this thread; the sequences buffer

        var fixes: [Location] = []
        for try await u in all { if let l = u.location { fixes.append(l) } }
        #expect(fixes.count == 300)
        var delivered: [Location] = []
        for try await u in filtered { if let l = u.location { delivered.append(l) } }
        #expect(delivered.count > 5 && delivered.count < 60)
        for (a, b) in zip(delivered, delivered.dropFirst()) {
            #expect(Geo.distanceMeters(a.coordinate ?? Coordinate(latitudeDegrees: 0, longitudeDegrees: 0),
                                       b.coordinate ?? Coordinate(latitudeDegrees: 0, longitudeDegrees: 0)) >= 100)
        }
        var regionEvents: [RegionEvent] = []
        for await e in monitor.events { regionEvents.append(e) }
        #expect(regionEvents.map(\.kind) == [.enter, .exit])
        #expect(regionEvents.isNonEmptyAndAllSatisfy { $0.identifier == "stop" })
        #expect(monitor.state(of: "never") == .outside)
        var v: [Visit] = []
        for await x in visits { v.append(x) }
        #expect(v.map(\.kind) == [.arrival, .departure])
        var h: [HeadingSample] = []
        for try await x in headings { h.append(x) }
        #expect(h.count > 10)
        for (a, b) in zip(h, h.dropFirst()) where a.headingAccuracyDegrees >= 0 && b.headingAccuracyDegrees >= 0 {
            #expect(abs(Angle.differenceDegrees(a.trueHeadingDegrees ?? a.magneticHeadingDegrees,
                                                b.trueHeadingDegrees ?? b.magneticHeadingDegrees)) >= 10)
        }
        var b: [LocationBatch] = []
        for await x in batches { b.append(x) }
        #expect(b.reduce(0) { $0 + $1.locations.count } == 300)
        #expect(b.dropLast().isNonEmptyAndAllSatisfy { $0.reason == .distance && $0.distanceMeters >= 500 })
    }

    @Test func startOnItsOwnThreadAndIterateConcurrently() async throws {
        let manager = LocationManager(source: .replay(path: Self.capture))
        let updates = manager.liveUpdates(.init(distanceFilterMeters: 50))
        manager.start()
        var count = 0
        for try await u in updates where u.location != nil { count += 1 }
        #expect(count > 10)
    }

    @Test func missingCaptureEndsTheSequenceWithASourceFailure() async {
        let manager = LocationManager(source: .replay(path: "/nonexistent/drive.lcap"))
        let updates = manager.liveUpdates()
        manager.start()
        await #expect(throws: LocationError.self) { for try await _ in updates {} }
        let bad = LocationManager(source: .live(gps: ["not a device spec::"]))
        #expect(throws: LocationError.self) { try bad.run() }
    }

    @Test func aCaptureWithoutMotionSensorsEndsHeadingUpdatesWithHeadingFailure() async throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("fixes.nmea", """
        $GPRMC,120000.00,A,3723.16579,N,12205.03271,W,0.183,,010625,,,A*61
        $GPGGA,120000.00,3723.16579,N,12205.03271,W,1,10,1.1,34.5,M,-32.0,M,,*68

        """)
        let manager = LocationManager(source: .replay(path: path))
        let headings = manager.headingUpdates()
        let updates = manager.liveUpdates()
        try manager.run()
        await #expect(throws: LocationError.headingFailure) { for try await _ in headings {} }
        var n = 0
        for try await u in updates where u.location != nil { n += 1 }
        #expect(n == 1)
    }
}
