#if canImport(Glibc)
import Glibc
#endif
import LocationCore
import LocationServices
import Testing
import TestSupport

@Suite(.ownThreads) struct RegionMonitorTests {
    /// A straight drive at 10 m/s through a 100 m region with 5 m jitter: one enter, one exit, near the truth.
    @Test func straightCrossingGivesOneEnterAndOneExitAtTheRightTimes() {
        var rng = SeededRandom(seed: 7)
        let centre = Geo.offset(origin, northMeters: 1000, eastMeters: 0)
        var monitor = RegionMonitor(regions: [CircularRegion(identifier: "r", center: centre, radiusMeters: 100)])
        var fixes: [Location] = []
        for s in 0...200 {
            let truth = Geo.offset(origin, northMeters: Double(s) * 10, eastMeters: 0)
            fixes.append(fix(Double(s), jittered(truth, accuracy: 5, &rng), accuracy: 5))
        }
        let events = regionEvents(&monitor, fixes)
        #expect(events.map(\.kind) == [.enter, .exit])
        // Truth: inside from t = 90 s (900 m) to t = 110 s (1100 m); margin 10 m (1 s) + one confirming fix.
        if events.count == 2 {
            let enter = t0.seconds(to: events[0].time), exit = t0.seconds(to: events[1].time)
            #expect(enter >= 90 && enter <= 93, "enter at \(enter) s")
            #expect(exit >= 110 && exit <= 113, "exit at \(exit) s")
            #expect(events[0].previousState == .outside)
        }
    }

    /// A receiver parked exactly on the boundary for two hours, with Gaussian jitter of its stated accuracy,
    /// must not flap: at most the first determination.
    @Test(arguments: [3.0, 10.0, 30.0])
    func jitterAtTheBoundaryNeverFlaps(accuracy: Double) {
        var rng = SeededRandom(seed: UInt64(accuracy * 100))
        let centre = origin
        var monitor = RegionMonitor(regions: [CircularRegion(identifier: "b", center: centre, radiusMeters: 100)])
        let onBoundary = Geo.offset(centre, northMeters: 100, eastMeters: 0)
        let fixes = (0..<7200).map { fix(Double($0), jittered(onBoundary, accuracy: accuracy, &rng), accuracy: accuracy) }
        let events = regionEvents(&monitor, fixes)
        #expect(events.count <= 1, "\(events.count) events: \(events.map(\.kind))")
    }

    @Test func startingInsideReportsEnterFromUnknownAndAssumedStatesAreHonoured() {
        let r = CircularRegion(identifier: "here", center: origin, radiusMeters: 200)
        var unknown = RegionMonitor(regions: [r])
        var assumedInside = RegionMonitor(regions: [CircularRegion(identifier: "here", center: origin, radiusMeters: 200, assumedState: .inside)])
        var assumedOutside = RegionMonitor(regions: [CircularRegion(identifier: "here", center: origin, radiusMeters: 200, assumedState: .outside)])
        let fixes = (0..<5).map { fix(Double($0), origin) }
        let a = regionEvents(&unknown, fixes), b = regionEvents(&assumedInside, fixes), c = regionEvents(&assumedOutside, fixes)
        #expect(a.map(\.kind) == [.enter] && a.first?.previousState == .unknown)
        #expect(b.isEmpty)
        #expect(c.map(\.kind) == [.enter] && c.first?.previousState == .outside)
        #expect(unknown.state(of: "here") == .inside)
    }

    @Test func notifyFlagsSuppressEventsButStateFollows() {
        let centre = Geo.offset(origin, northMeters: 500, eastMeters: 0)
        var m = RegionMonitor(regions: [CircularRegion(identifier: "x", center: centre, radiusMeters: 100, notifyOnEntry: false)])
        let fixes = (0...100).map { fix(Double($0), Geo.offset(origin, northMeters: Double($0) * 10, eastMeters: 0)) }
        let events = regionEvents(&m, fixes)
        #expect(events.map(\.kind) == [.exit])
        #expect(m.state(of: "x") == .outside)
    }

    @Test func inaccurateUntimedAndOldFixesDecideNothing() {
        var m = RegionMonitor(regions: [CircularRegion(identifier: "x", center: origin, radiusMeters: 100)])
        var untimed = fix(0, origin); untimed.time = nil
        var events: [RegionEvent] = []
        m.process(fix(0, origin, accuracy: 150), into: &events)
        m.process(fix(1, origin, accuracy: nil), into: &events)
        m.process(untimed, into: &events)
        #expect(events.isEmpty && m.state(of: "x") == .unknown)
        m.process(fix(10, origin), into: &events)
        m.process(fix(11, origin), into: &events)
        #expect(events.count == 1)
        // Fixes not newer than the last processed one are ignored (a replayed stretch gives no duplicate).
        let far = Geo.offset(origin, northMeters: 5000, eastMeters: 0)
        m.process(fix(5, far), into: &events)
        m.process(fix(6, far), into: &events)
        #expect(events.count == 1)
    }

    /// Property: regions the track never comes near produce no event, whatever the track (random walks).
    @Test func noEventForRegionsTheTrackNeverReaches() {
        var rng = SeededRandom(seed: 42)
        for trial in 0..<20 {
            var track: [Coordinate] = []
            var p = Geo.offset(origin, northMeters: rng.uniform(-2000, 2000), eastMeters: rng.uniform(-2000, 2000))
            for _ in 0..<600 {
                p = Geo.offset(p, northMeters: rng.uniform(-15, 15), eastMeters: rng.uniform(-15, 15))
                track.append(p)
            }
            var regions: [CircularRegion] = []
            while regions.count < 200 {
                let c = Geo.offset(origin, northMeters: rng.uniform(-6000, 6000), eastMeters: rng.uniform(-6000, 6000))
                let r = rng.uniform(20, 400)
                // Never reached: every fix (with its jitter and accuracy) stays far outside.
                let nearest = track.map { Geo.distanceMeters($0, c) }.min() ?? 0
                if nearest > r + 60 { regions.append(CircularRegion(identifier: "far\(regions.count)", center: c, radiusMeters: r)) }
            }
            var m = RegionMonitor(regions: regions)
            let fixes = track.enumerated().map { fix(Double($0.offset), jittered($0.element, accuracy: 5, &rng), accuracy: 5) }
            let events = regionEvents(&m, fixes)
            #expect(events.isEmpty, "trial \(trial): \(events.map(\.identifier))")
            #expect(regions.isNonEmptyAndAllSatisfy { m.state(of: $0.identifier) == .outside })
        }
    }

    /// The index must agree with a brute-force check: same events with 5,000 regions as without the grid.
    @Test func spatialIndexAgreesWithBruteForce() {
        var rng = SeededRandom(seed: 3)
        var regions: [CircularRegion] = []
        for i in 0..<5000 {
            let c = Geo.offset(origin, northMeters: rng.uniform(-5000, 5000), eastMeters: rng.uniform(-5000, 5000))
            regions.append(CircularRegion(identifier: "r\(i)", center: c, radiusMeters: rng.uniform(30, 300)))
        }
        var track: [Location] = []
        var p = origin
        for s in 0..<1500 {
            p = Geo.offset(p, northMeters: 6 + rng.normal(), eastMeters: 4 * sin(Double(s) / 60))
            track.append(fix(Double(s), jittered(p, accuracy: 4, &rng), accuracy: 4))
        }
        var indexed = RegionMonitor(regions: regions)
        let got = regionEvents(&indexed, track)
        // Brute force: one monitor per region (a one-region grid always holds its region).
        var expected: [RegionEvent] = []
        for r in regions {
            var single = RegionMonitor(regions: [r])
            expected += regionEvents(&single, track)
        }
        func key(_ e: RegionEvent) -> String { "\(e.time.nanosecondsSince1970) \(e.identifier) \(e.kind)" }
        #expect(!got.isEmpty)
        #expect(got.map(key).sorted() == expected.map(key).sorted())
    }

    /// Persistence: stopping at any point, saving, restoring into a new monitor and going on gives exactly the
    /// events of one uninterrupted run (no duplicate, none missed), also when the restart replays old fixes.
    @Test func persistenceRoundTripGivesNoDuplicateAndNoMissedEvent() throws {
        var rng = SeededRandom(seed: 11)
        let regions = (0..<30).map { i in
            CircularRegion(identifier: "r\(i) \"quoted\"", center: Geo.offset(origin, northMeters: Double(i) * 150, eastMeters: rng.uniform(-80, 80)),
                           radiusMeters: rng.uniform(40, 120), assumedState: i % 3 == 0 ? .outside : .unknown)
        }
        var fixes: [Location] = []
        for s in 0..<900 {
            let north = Double(s) * 5 + 30 * sin(Double(s) / 40)
            fixes.append(fix(Double(s), jittered(Geo.offset(origin, northMeters: north, eastMeters: 0), accuracy: 6, &rng), accuracy: 6))
        }
        var whole = RegionMonitor(regions: regions)
        let all = regionEvents(&whole, fixes)
        #expect(all.count > 20)
        for split in stride(from: 1, to: fixes.count, by: 37) {
            var first = RegionMonitor(regions: regions)
            var events = regionEvents(&first, Array(fixes[..<split]))
            let saved = first.encodeState()
            var second = RegionMonitor(regions: regions)
            try second.restoreState(saved)
            // A restart that replays the last 20 fixes again must not repeat their events.
            events += regionEvents(&second, Array(fixes[Swift.max(0, split - 20)...]))
            #expect(events == all, "split at \(split)")
        }
    }

    @Test func regionFileParsesAndRejectsBadInputWithClearMessages() throws {
        let good = #"[{"identifier":"a","latitude":37.1,"longitude":-122,"radius":50},{"identifier":"b\u00e9","latitude":1,"longitude":2,"radius":3,"notifyOnEntry":false,"initialState":"inside"}]"#
        let regions = try RegionFile.parse(Array(good.utf8))
        #expect(regions.count == 2)
        #expect(regions[1].identifier == "bé" && !regions[1].notifyOnEntry && regions[1].notifyOnExit && regions[1].assumedState == .inside)
        let bad: [(String, String)] = [
            (#"{"identifier":"a"}"#, "expected a JSON array"),
            (#"[{"identifier":"a","latitude":91,"longitude":0,"radius":5}]"#, "region 0: \"latitude\""),
            (#"[{"identifier":"a","latitude":1,"longitude":0,"radius":-5}]"#, "region 0: \"radius\""),
            (#"[{"identifier":"a","latitude":1,"longitude":0,"radius":5},{"identifier":"a","latitude":1,"longitude":0,"radius":5}]"#, "region 1: duplicate"),
            (#"[{"latitude":1,"longitude":0,"radius":5}]"#, "identifier"),
            (#"[{"identifier":"a","latitude":1,"longitude":0,"radius":5,"notifyOnExit":"yes"}]"#, "notifyOnExit"),
            (#"[{"identifier":"a","latitude":1,"#, "invalid JSON"),
        ]
        for (text, message) in bad {
            #expect { try RegionFile.parse(Array(text.utf8)) } throws: { error in
                "\(error)".contains(message)
            }
        }
        var m = RegionMonitor(regions: regions)
        #expect(throws: RegionMonitor.StateError.self) { try m.restoreState(Array("{\"version\":2,\"regions\":[]}".utf8)) }
        #expect(throws: RegionMonitor.StateError.self) { try m.restoreState(Array("not json".utf8)) }
    }
}
