#if canImport(Glibc)
import Glibc
#endif
import LocationCore
import LocationServices
import Testing
import TestSupport

@Suite(.ownThreads) struct UpdatePolicyTests {
    /// Property: consecutive delivered fixes are never closer than the distance filter (random tracks and filters).
    @Test func noTwoDeliveredFixesCloserThanTheDistanceFilter() {
        var rng = SeededRandom(seed: 5)
        for _ in 0..<30 {
            let filter = rng.uniform(1, 200)
            let level = DesiredAccuracy.allCases[Int(rng.next() % 6)]
            var policy = LocationUpdatePolicy(desiredAccuracy: level, distanceFilterMeters: filter)
            var p = origin
            var delivered: [Location] = []
            for s in 0..<800 {
                p = Geo.offset(p, northMeters: 4 + rng.uniform(-12, 12), eastMeters: rng.uniform(-12, 12))
                let a = rng.uniform(2, 40)
                for u in policy.process(fix(Double(s), jittered(p, accuracy: a, &rng), accuracy: a)) {
                    if let l = u.location { delivered.append(l) }
                }
            }
            #expect(delivered.count > 1)
            for (a, b) in zip(delivered, delivered.dropFirst()) {
                let d = Geo.distanceMeters(a.coordinate ?? origin, b.coordinate ?? origin)
                #expect(d >= filter, "\(d) m < filter \(filter) m (\(level))")
            }
        }
    }

    @Test func desiredAccuracyWaitsForABetterFixThenDeliversTheBestSeen() {
        var p = LocationUpdatePolicy(desiredAccuracy: .nearestTenMeters)
        #expect(p.process(fix(0, origin, accuracy: 30)).isEmpty)
        #expect(p.process(fix(1, origin, accuracy: 20)).isEmpty)
        #expect(p.process(fix(2, origin, accuracy: 25)).isEmpty)
        let out = p.process(fix(5, origin, accuracy: 40))  // 5 s after the first held fix: the wait is over
        #expect(out.count == 1)
        #expect(out.first?.accuracyLimited == true)
        #expect(out.first?.location?.horizontalAccuracyMeters == 20)
        #expect(out.first?.time == t0.adding(seconds: 1))  // its own timestamp, not the current time
        let good = p.process(fix(6, origin, accuracy: 8))
        #expect(good.count == 1 && good.first?.accuracyLimited == false)
        // bestForNavigation delivers everything at once.
        var nav = LocationUpdatePolicy(desiredAccuracy: .bestForNavigation)
        #expect(nav.process(fix(0, origin, accuracy: 500)).count == 1)
    }

    @Test func staleAndUntimedFixesAreNeverDeliveredAndUnavailabilityIsReportedOnce() {
        var p = LocationUpdatePolicy(maximumAgeSeconds: 5)
        #expect(p.process(fix(100, origin)).count == 1)
        #expect(p.process(fix(90, origin)).isEmpty)        // a cached fix from 10 s ago
        #expect(p.staleDropped == 1)
        var untimed = fix(0, origin); untimed.time = nil
        #expect(p.process(untimed).isEmpty && p.untimedDropped == 1)
        var none = Location(); none.time = t0.adding(seconds: 101); none.mode = .noFix
        let u = p.process(none)
        #expect(u.count == 1 && u.first?.locationUnavailable == true && u.first?.location == nil)
        none.time = t0.adding(seconds: 102)
        #expect(p.process(none).isEmpty)
        #expect(p.process(fix(103, origin)).first?.locationUnavailable == false)
    }

    @Test func headingFilterDeliversOnlyChangesAtLeastTheFilter() {
        var f = HeadingFilter(filterDegrees: 5)
        let headings: [Double] = [10, 12, 14.9, 15.1, 359, 352, 351]
        let delivered = headings.filter { f.shouldDeliver(headingDegrees: $0, accuracyDegrees: 3) }
        #expect(delivered == [10, 15.1, 359, 352])
        let lost = f.shouldDeliver(headingDegrees: 0, accuracyDegrees: -1)      // lost: told once
        let lostAgain = f.shouldDeliver(headingDegrees: 0, accuracyDegrees: -1)
        let back = f.shouldDeliver(headingDegrees: 351.5, accuracyDegrees: 3)
        #expect(lost && !lostAgain && back)
    }

    @Test func significantChangeIsDebouncedAgainstAccuracy() {
        var m = SignificantChangeMonitor(thresholdMeters: 500)
        #expect(m.process(fix(0, origin, accuracy: 5))?.distanceMeters == nil)   // monitoring starts
        #expect(m.process(fix(1, Geo.offset(origin, northMeters: 505, eastMeters: 0), accuracy: 5)) == nil) // < 500 + 5 + 5
        #expect(m.process(fix(2, Geo.offset(origin, northMeters: 900, eastMeters: 0), accuracy: 300)) == nil) // too inaccurate
        let e = m.process(fix(3, Geo.offset(origin, northMeters: 520, eastMeters: 0), accuracy: 5))
        #expect((e?.distanceMeters ?? 0) > 510)
    }

    @Test func deferredBatchesAfterDistanceOrTime() {
        var b = DeferredBatcher(distanceMeters: 100, seconds: 30)
        var batches: [LocationBatch] = []
        for s in 0..<50 { if let x = b.add(fix(Double(s), Geo.offset(origin, northMeters: Double(s) * 30, eastMeters: 0))) { batches.append(x) } }
        #expect(batches.allSatisfy { $0.reason == .distance && $0.distanceMeters >= 100 && $0.locations.count == 5 })
        var slow = DeferredBatcher(distanceMeters: 100, seconds: 30)
        var got: [LocationBatch] = []
        for s in 0..<70 { if let x = slow.add(fix(Double(s), origin)) { got.append(x) } }
        #expect(got.map(\.reason) == [.timeout, .timeout] && got.first?.locations.count == 31)
        #expect(slow.finish()?.locations.count == 8)
    }
}

@Suite(.ownThreads) struct VisitTests {
    /// A drive with a 40 s traffic-light stop, a 10 min visit and jitter while parked: one arrival and one
    /// departure, at the right place and times; the traffic light gives nothing.
    @Test func visitAtTheRealStopAndNotAtTheTrafficLight() {
        var rng = SeededRandom(seed: 9)
        var d = VisitDetector()
        var fixes: [Location] = []
        var north = 0.0, t = 0.0
        func drive(_ seconds: Int, speed: Double) {
            for _ in 0..<seconds {
                north += speed; t += 1
                fixes.append(fix(t, jittered(Geo.offset(origin, northMeters: north, eastMeters: 0), accuracy: 4, &rng), accuracy: 4, speed: speed))
            }
        }
        drive(60, speed: 12); drive(40, speed: 0)          // traffic light at t 61–100
        drive(60, speed: 12); let stopStart = t + 1
        drive(600, speed: 0); let stopEnd = t             // visit: t 161–760
        drive(120, speed: 12)
        let visits = fixes.compactMap { d.process($0) }
        #expect(visits.map(\.kind) == [.arrival, .departure])
        guard visits.count == 2 else { return }
        let place = Geo.offset(origin, northMeters: 1440, eastMeters: 0)
        #expect(Geo.distanceMeters(visits[0].coordinate, place) < 5)
        #expect(abs(t0.seconds(to: visits[0].arrivalDate) - stopStart) <= 1)
        #expect(visits[0].departureDate == .distantFuture)
        // The dwell counts from the first fix inside the area (up to radius / speed ≈ 4 s before the stop).
        let detected = t0.seconds(to: visits[0].detectionDate)
        #expect(detected >= stopStart + 120 - 5 && detected <= stopStart + 121, "detected at \(detected) s")
        #expect(abs(t0.seconds(to: visits[1].departureDate) - stopEnd) <= 1)
        #expect(visits[1].arrivalDate == visits[0].arrivalDate)
    }

    /// The shipped simulated drive stops for 60 s (12:02:00–12:03:00): not a visit with the default 120 s dwell,
    /// a visit with the right times when the dwell is lowered to 45 s.
    @Test func simulatedDriveStop() throws {
        let fixes = try pipelineFixes(SharedData.packageRoot.appendingPathComponent("captures/simulated-drive.lcap").path)
        #expect(fixes.count == 300)
        var byDefault = VisitDetector()
        #expect(fixes.compactMap { byDefault.process($0) }.isEmpty)
        var s = VisitDetector.Settings()
        s.minimumDwellSeconds = 45
        var lowered = VisitDetector(settings: s)
        let visits = fixes.compactMap { lowered.process($0) }
        #expect(visits.map(\.kind) == [.arrival, .departure])
        let stopStart = Timestamp(year: 2025, month: 6, day: 1, hour: 12, minute: 2)
        let stopEnd = Timestamp(year: 2025, month: 6, day: 1, hour: 12, minute: 3)
        if visits.count == 2, let stopStart, let stopEnd {
            #expect(abs(stopStart.seconds(to: visits[0].arrivalDate)) <= 3)
            #expect(abs(stopEnd.seconds(to: visits[1].departureDate)) <= 3)
        }
    }
}
