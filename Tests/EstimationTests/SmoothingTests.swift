import Foundation
import Testing
import LocationCore
import TestSupport
@testable import Estimation

/// A synthetic track in a local frame around (37.4 N, 122.1 W), 1 Hz.
struct Track {
    static let frame = LocalTangentFrame(latitudeDegrees: 37.4, longitudeDegrees: -122.1)
    static let t0 = Timestamp(year: 2024, month: 5, day: 1, hour: 12)!

    /// East, north, speed, course at second `i`.
    var truth: [(e: Double, n: Double, speed: Double, course: Double)]

    func fixes(accuracy: Double, seed: UInt64, speedNoise: Double = 0.1) -> [Location] {
        var rng = SplitMix64(seed: seed)
        let sigma = HorizontalError.sigma(fromRadius68: accuracy)
        return truth.enumerated().map { i, p in
            let g = Self.frame.geodetic(east: p.e + sigma * rng.gaussian(), north: p.n + sigma * rng.gaussian())
            var l = Location()
            l.time = Self.t0.adding(nanoseconds: Int64(i) * 1_000_000_000)
            l.latitudeDegrees = g.latitudeDegrees; l.longitudeDegrees = g.longitudeDegrees
            l.mode = .threeD; l.quality = .gps
            l.horizontalAccuracyMeters = accuracy
            l.speedMetersPerSecond = max(0, p.speed + speedNoise * rng.gaussian())
            l.courseDegrees = p.speed > 0 ? p.course : 0
            return l
        }
    }

    func error(_ l: Location, _ i: Int) -> Double {
        let q = Self.frame.enu(latitudeDegrees: l.latitudeDegrees!, longitudeDegrees: l.longitudeDegrees!)
        return ((q.east - truth[i].e) * (q.east - truth[i].e) + (q.north - truth[i].n) * (q.north - truth[i].n)).squareRoot()
    }

    static func straight(seconds: Int, speed: Double) -> Track {
        Track(truth: (0..<seconds).map { (Double($0) * speed, 0, speed, 90) })
    }

    /// East at 8 m/s for 30 s, stopped at 240 m for `stopSeconds`, then east again at `speed` for 30 s.
    static func stopAndGo(stopSeconds: Int, thenSpeed speed: Double = 8) -> Track {
        var truth: [(e: Double, n: Double, speed: Double, course: Double)] = []
        for i in 0..<30 { truth.append((Double(i) * 8, 0, 8, 90)) }
        for _ in 0..<stopSeconds { truth.append((240, 0, 0, 0)) }
        for i in 0..<30 { truth.append((240 + Double(i) * speed, 0, speed, 90)) }
        return Track(truth: truth)
    }
}

/// The smoother's output for every fix, and whether it was stationary after each.
func smoothed(_ raw: [Location], settings: PositionSmoother.Settings = .default) -> (fixes: [Location], stationary: [Bool]) {
    var smoother = PositionSmoother(settings: settings)
    var out: [Location] = [], stationary: [Bool] = []
    for f in raw { out.append(smoother.process(fix: f)); stationary.append(smoother.isStationary) }
    return (out, stationary)
}

func rms(_ x: [Double]) -> Double { (x.reduce(0) { $0 + $1 * $1 } / Double(x.count)).squareRoot() }

func path(_ fixes: ArraySlice<Location>) -> Double {
    zip(fixes, fixes.dropFirst()).reduce(0) {
        $0 + LocalTangentFrame.distanceMeters($1.0.latitudeDegrees!, $1.0.longitudeDegrees!, $1.1.latitudeDegrees!, $1.1.longitudeDegrees!)
    }
}

@Suite(.ownThreads) struct SmoothingTests {
    @Test func radius68OfCircularAndElongatedGaussians() {
        #expect(abs(HorizontalError.radius68(pee: 1, pnn: 1, pen: 0) - 1.5096) < 1e-3)
        // A 1-D Gaussian: 68 % within 0.994 σ.
        #expect(abs(HorizontalError.radius68(pee: 4, pnn: 1e-9, pen: 0) - 2 * 0.9945) < 0.01)
    }

    @Test func straightLineReducesError() {
        let track = Track.straight(seconds: 300, speed: 10)
        let raw = track.fixes(accuracy: 5, seed: 1)
        let sm = SmoothingEvaluation.smooth(raw)
        let rawErr = raw.indices.dropFirst(20).map { track.error(raw[$0], $0) }
        let smErr = sm.indices.dropFirst(20).map { track.error(sm[$0], $0) }
        print("straight: raw rms \(rms(rawErr)) smoothed rms \(rms(smErr))")
        #expect(rms(smErr) < 0.5 * rms(rawErr))
        // Honest: with white noise and the white-noise model, about 68 % of errors within the reported radius.
        // (The default also models correlated receiver error, so on white noise it is conservative: printed, not asserted.)
        func within(_ s: [Location]) -> Double {
            Double(s.indices.dropFirst(20).filter { track.error(s[$0], $0) <= s[$0].horizontalAccuracyMeters! }.count)
                / Double(s.count - 20)
        }
        // Honest: white noise with an honest claim — the learned accuracy (white part averaged, nothing slow) holds
        // about 68 % of the errors.
        let w = within(sm)
        print("straight: within reported accuracy \(w)")
        #expect(w > 0.6)
        // Measured 0.75 since the real-error covariance's process noise is the position filter's own (2026-11-28; 0.771
        // with the velocity at its time tag and the reported velocity's share, 0.764 before the time tag; 0.86 before
        // the accuracy took the filter's real error, 2026-11-27; 0.85 before the gate's S(1 s) floor, 0.88 before that).
        // Still conservative: without stops there is no long-lag evidence, and the split of the claim into white and
        // slow (claim − S(1 s)) keeps the sampling error of S(1 s) as slow variance. The bound is the one this test
        // always had.
        #expect(w < 0.76)
    }

    @Test func turnIsFollowed() {
        // 10 m/s, 90° turn over 10 s (radius ≈ 64 m) between two straights.
        var truth: [(e: Double, n: Double, speed: Double, course: Double)] = []
        var e = 0.0, n = 0.0, course = 90.0
        for i in 0..<120 {
            if i >= 50 && i < 60 { course -= 9 }
            truth.append((e, n, 10, Angle.normalizedDegrees(course)))
            e += 10 * sin(course * .pi / 180); n += 10 * cos(course * .pi / 180)
        }
        let track = Track(truth: truth)
        let raw = track.fixes(accuracy: 5, seed: 2)
        let sm = SmoothingEvaluation.smooth(raw)
        let smErr = sm.indices.dropFirst(10).map { track.error(sm[$0], $0) }
        let rawErr = raw.indices.dropFirst(10).map { track.error(raw[$0], $0) }
        print("turn: raw rms \(rms(rawErr)) max \(rawErr.max()!), smoothed rms \(rms(smErr)) max \(smErr.max()!)")
        #expect(rms(smErr) < 0.7 * rms(rawErr))
        #expect(smErr.max()! < rawErr.max()!)
    }

    /// A receiver that reports the mean velocity over the last second (each position the previous one moved by the new
    /// velocity: time tag c = ½), driving north with a varying speed, turning east at a steady 8 m/s within one second,
    /// then braking at 2 m/s² to rest (reported means 7, 5, 3, 1, then 0 once the car stands). With `stopFromVelocities`
    /// the stop begins at the fix where the car came to rest (its reported 1 m/s carried on from 3 m/s: 1 + ½·(1 − 3) = 0),
    /// so the output waits there instead of stepping to the next fix; without it, one fix later. The turn is no stop.
    @Test func stopBeginsWhereTheSpeedCarriedToTheFixHasBraked() throws {
        var truth: [(e: Double, n: Double, speed: Double, course: Double)] = []
        var e = 0.0, n = 0.0
        func step(_ speed: Double, _ course: Double) {
            e += speed * sin(course * .pi / 180); n += speed * cos(course * .pi / 180)
            truth.append((e, n, speed, course))
        }
        for i in 0..<120 { step(8 + 4 * sin(Double(i) / 3), 0) }
        for i in 0..<60 { step(8 + 4 * sin(Double(i) / 3), 90) }   // turned at fix 120, at 8 m/s
        for _ in 0..<4 { step(8, 90) }
        for mean in [7.0, 5, 3, 1] { step(mean, 90) }              // fixes 184…187: the car is at rest at 187
        for _ in 0..<30 { step(0, 90) }
        let raw = Track(truth: truth).fixes(accuracy: 1, seed: 7, speedNoise: 0.05)
        var off = PositionSmoother.Settings.default
        off.stopFromVelocities = false
        func run(_ settings: PositionSmoother.Settings) -> (out: [Location], tag: Double) {
            var s = PositionSmoother(settings: settings)
            let out = raw.map { s.process(fix: $0) }
            return (out, s.timeTag)
        }
        let on = run(.default), before = run(off)
        try #require(on.tag > 0.25, "the fitted time tag \(on.tag)")
        func moved(_ out: [Location], _ i: Int) -> Double {
            LocalTangentFrame.distanceMeters(out[i].latitudeDegrees!, out[i].longitudeDegrees!,
                                             out[i + 1].latitudeDegrees!, out[i + 1].longitudeDegrees!)
        }
        print("time tag \(on.tag); from fix 187 to 188 the output moves \(moved(on.out, 187)) m (\(moved(before.out, 187)) m without); at the turn \(moved(on.out, 120)) m")
        #expect(moved(on.out, 187) == 0)
        #expect(moved(before.out, 187) > 0)
        // The turn: the output keeps moving with the car (8 m per fix), and nothing is stationary there.
        #expect(moved(on.out, 120) > 4 && moved(on.out, 121) > 4)
        #expect(!on.out[115...130].contains { $0.isStationary == true })
    }

    /// A vehicle creeping forward inside a stop, below the exit speed (the F9K's stops: 0.3–1 m at 0.1–0.3 m/s): the
    /// held point follows a precise receiver's fixes once the velocities add up to the move and the fixes agree
    /// (`holdFollowsCreep`). A phone-like receiver whose speed reads 0.4 m/s at rest while its fixes stay put does not
    /// move the hold, nor does a receiver at rest whose speed noise always points one way (a course held at rest).
    @Test func holdFollowsACreepingVehicle() {
        var truth: [(e: Double, n: Double, speed: Double, course: Double)] = []
        for i in 0..<30 { truth.append((Double(i) * 8, 0, 8, 90)) }
        for _ in 0..<60 { truth.append((240, 0, 0, 0)) }
        for i in 1...5 { truth.append((240 + 0.2 * Double(i), 0, 0.2, 90)) }   // fixes 90…94: 1 m at 0.2 m/s
        for _ in 0..<60 { truth.append((241, 0, 0, 0)) }
        let track = Track(truth: truth)
        let raw = track.fixes(accuracy: 0.05, seed: 11, speedNoise: 0.005)
        var off = PositionSmoother.Settings.default
        off.holdFollowsCreep = false
        func run(_ settings: PositionSmoother.Settings, _ raw: [Location]) -> (out: [Location], stationary: [Bool]) {
            let r = smoothed(raw, settings: settings)
            return (r.fixes, r.stationary)
        }
        let on = run(.default, raw), before = run(off, raw)
        let last = truth.count - 1
        print("creep of 1 m: error at the end \(track.error(on.out[last], last)) m (\(track.error(before.out[last], last)) m without); path in the stops \(path(on.out[40..<90])), \(path(on.out[100...]))")
        #expect(on.stationary[40...].allSatisfy { $0 } && before.stationary[40...].allSatisfy { $0 })
        #expect(track.error(on.out[last], last) <= 0.1)
        #expect(track.error(before.out[last], last) >= 0.3)
        for i in 100...last { #expect(track.error(on.out[i], i) <= on.out[i].horizontalAccuracyMeters!) }
        // Still within each stop: no path while the vehicle stands.
        #expect(path(on.out[40..<90]) == 0 && path(on.out[100...]) == 0)

        // A phone at rest: 2 m noise, the speed 0.4 m/s for 3 s with a course (below the exit speed), fixes unmoved.
        let parked = Track.stopAndGo(stopSeconds: 120)
        var phone = parked.fixes(accuracy: 2, seed: 12, speedNoise: 0.05)
        for i in 100..<103 { phone[i].speedMetersPerSecond = 0.4; phone[i].courseDegrees = 90 }
        let p = run(.default, phone), pOff = run(off, phone)
        #expect(zip(p.out, pOff.out).allSatisfy { $0.latitudeDegrees == $1.latitudeDegrees && $0.longitudeDegrees == $1.longitudeDegrees })
        // A precise receiver at rest whose speed noise is always northward (Track's course 0 at rest): summed over two
        // minutes it is a move the fixes do not make.
        let still = parked.fixes(accuracy: 0.05, seed: 13, speedNoise: 0.02)
        let s = run(.default, still)
        #expect(path(s.out[40..<150]) <= 0.05)
    }

    @Test func parkedFalsePathUnderOneMeterPerThreeMinutes() {
        // Drive 30 s, stop 180 s, drive again; 5 m (68 %) noise; GNSS speed ≈ 0 (σ 0.05) while parked.
        let track = Track.stopAndGo(stopSeconds: 180)
        let raw = track.fixes(accuracy: 5, seed: 3, speedNoise: 0.05)
        let (sm, stationary) = smoothed(raw)
        let parkedRaw = path(raw[30..<210]), parkedSm = path(sm[30..<210])
        print("parked 180 s: raw path \(parkedRaw) m, smoothed \(parkedSm) m; stationary at \(stationary.firstIndex(of: true) ?? -1)")
        // Target from issue 5: ≤ 1 m per 3 min.
        #expect(parkedSm <= 6.0)
        #expect(parkedSm <= 1.0)
        #expect(stationary[40] && !stationary[215])
        // Held at a point near the truth (5 m noise): within the reported radius.
        #expect(track.error(sm[150], 150) <= sm[150].horizontalAccuracyMeters!)
    }

    @Test func speedSpikeWhileParkedKeepsTheStop() {
        // Phones report ~1 m/s for a second or two while parked (the Pixel 4 XL: 0.82, 0.87 m/s where SPAN moves
        // < 0.2 m/s). A start from rest accelerates or moves the fixes; a spike does neither, and the stop goes on
        // where it was held.
        let track = Track.stopAndGo(stopSeconds: 120)
        var raw = track.fixes(accuracy: 2, seed: 5, speedNoise: 0.05)
        raw[100].speedMetersPerSecond = 0.82; raw[100].courseDegrees = 350
        raw[101].speedMetersPerSecond = 0.87; raw[101].courseDegrees = 349
        let (sm, stationary) = smoothed(raw)
        let settled = path(sm[40..<150])
        print("spike while parked: settled path \(settled) m; stationary at 99…103: \(stationary[99...103])")
        #expect(settled <= 1.0)
        #expect(stationary[99] && stationary[102] && stationary[103])
        #expect(sm[99].latitudeDegrees == sm[103].latitudeDegrees && sm[99].longitudeDegrees == sm[103].longitudeDegrees)
        // During the spike the radius still covers the truth (the output stays put; its radius grows by its distance
        // from the filter's estimate).
        for i in 100...101 { #expect(track.error(sm[i], i) <= sm[i].horizontalAccuracyMeters!) }
        // The real start after the stop is followed: moving again within 2 epochs.
        #expect(!stationary[152])
    }

    @Test func gentleStartFromAStopIsFollowedAtOnce() {
        // A precise receiver starting at a steady 1.5 m/s (the F9K's starts include 1.54, 1.53, 1.51 m/s): the speed
        // does not double, but the fix moves further than its 1 s increments ever do, so the output leaves the stop at
        // the first moving epoch instead of waiting for the speed to settle the question.
        let track = Track.stopAndGo(stopSeconds: 60, thenSpeed: 1.5)
        let raw = track.fixes(accuracy: 0.1, seed: 6, speedNoise: 0.01)
        let (sm, stationary) = smoothed(raw)
        print("gentle start: errors \((90...94).map { track.error(sm[$0], $0) })")
        #expect(stationary[85])
        for i in 90...94 { #expect(track.error(sm[i], i) < 0.75) }
    }

    @Test func singleOutlierIsRejected() {
        let track = Track.straight(seconds: 60, speed: 10)
        var raw = track.fixes(accuracy: 3, seed: 4)
        let g = Track.frame.geodetic(east: track.truth[40].e + 60, north: 40)
        raw[40].latitudeDegrees = g.latitudeDegrees; raw[40].longitudeDegrees = g.longitudeDegrees
        var smoother = PositionSmoother()
        var out: [Location] = []
        for (i, f) in raw.enumerated() {
            out.append(smoother.process(fix: f))
            if i == 40 { #expect(smoother.lastOutcome == .rejected) }
        }
        print("outlier: smoothed error at the outlier \(track.error(out[40], 40)) m (raw \(track.error(raw[40], 40)) m)")
        #expect(track.error(out[40], 40) < 3)
    }

    @Test func runOfOutliersReinitialises() {
        // The receiver jumps 200 m north and stays there (e.g. the filter was wrong, not the receiver).
        var track = Track.straight(seconds: 80, speed: 10)
        for i in 40..<80 { track.truth[i].n += 200 }
        let raw = track.fixes(accuracy: 3, seed: 5)
        var smoother = PositionSmoother()
        var outcomes: [PositionSmoother.Outcome] = []
        var out: [Location] = []
        for f in raw { out.append(smoother.process(fix: f)); outcomes.append(smoother.lastOutcome) }
        let reinit = outcomes.firstIndex(of: .reinitialised)
        print("run of outliers: reinitialised at \(reinit ?? -1), error at 60: \(track.error(out[60], 60)) m")
        #expect(reinit == 40 + PositionSmoother.Settings.default.reinitialiseAfterRejections - 1)
        #expect(track.error(out[60], 60) < 4)
        #expect(track.error(out[79], 79) < 4)
    }

    @Test func outageBridgedByDeadReckoningThenConverges() {
        let track = Track.straight(seconds: 120, speed: 10)
        let raw = track.fixes(accuracy: 3, seed: 6)
        var smoother = PositionSmoother()
        var last: Location?
        for f in raw[0..<60] { last = smoother.process(fix: f) }
        var accuracies: [Double] = []
        for s in [1, 5, 10, 20] {
            let p = smoother.predict(to: Track.t0.adding(nanoseconds: Int64(59 + s) * 1_000_000_000))
            #expect(p?.quality == .gnssDeadReckoning)
            accuracies.append(p?.horizontalAccuracyMeters ?? 0)
            if let p { print("outage +\(s) s: error \(track.error(p, 59 + s)) m, accuracy \(p.horizontalAccuracyMeters!) m") }
        }
        #expect(accuracies == accuracies.sorted() && accuracies[0] < accuracies[3])
        #expect(accuracies[3] > last!.horizontalAccuracyMeters!)
        #expect(smoother.predict(to: Track.t0.adding(nanoseconds: Int64(59 + 31) * 1_000_000_000)) == nil)
        // GNSS returns at 80 s: no jump larger than the new fix's accuracy.
        let before = smoother.predict(to: raw[80].time!)!
        let after = smoother.process(fix: raw[80])
        let jump = LocalTangentFrame.distanceMeters(before.latitudeDegrees!, before.longitudeDegrees!,
                                                    after.latitudeDegrees!, after.longitudeDegrees!)
        print("outage end: jump \(jump) m, new fix accuracy \(raw[80].horizontalAccuracyMeters!) m")
        #expect(jump <= raw[80].horizontalAccuracyMeters!)
        #expect(smoother.lastOutcome == .accepted)
    }

    @Test func duplicateAndOutOfOrderEpochsIgnored() {
        let raw = Track.straight(seconds: 10, speed: 10).fixes(accuracy: 3, seed: 7)
        var smoother = PositionSmoother()
        for f in raw[0..<6] { _ = smoother.process(fix: f) }
        let a = smoother.process(fix: raw[5])
        #expect(smoother.lastOutcome == .duplicate)
        let b = smoother.process(fix: raw[3])
        #expect(smoother.lastOutcome == .outOfOrder)
        #expect(a == b && a.time == raw[5].time)
        _ = smoother.process(fix: raw[6])
        #expect(smoother.lastOutcome == .accepted)
    }

    @Test func irregularRatesUseEventTime() {
        // 20 Hz then 1 Hz fixes on the same straight line: the error stays small across the rate change.
        var truth: [(e: Double, n: Double, speed: Double, course: Double)] = []
        for i in 0..<100 { truth.append((Double(i) * 10, 0, 10, 90)) }
        let track = Track(truth: truth)
        var raw = track.fixes(accuracy: 3, seed: 8)
        var smoother = PositionSmoother()
        var errs: [Double] = []
        for i in 0..<100 {
            // Time: the first 50 at 0.05 s spacing (truth scaled accordingly), then 1 s.
            let tNanos: Int64 = i < 50 ? Int64(i) * 50_000_000 : 2_450_000_000 + Int64(i - 49) * 1_000_000_000
            raw[i].time = Track.t0.adding(nanoseconds: tNanos)
            let tSec = Double(tNanos) / 1e9
            let g = Track.frame.geodetic(east: tSec * 10, north: 0)
            var f = raw[i]
            let noisy = Track.frame.enu(latitudeDegrees: f.latitudeDegrees!, longitudeDegrees: f.longitudeDegrees!)
            let ng = Track.frame.geodetic(east: tSec * 10 + (noisy.east - truth[i].e), north: noisy.north)
            f.latitudeDegrees = ng.latitudeDegrees; f.longitudeDegrees = ng.longitudeDegrees
            let o = smoother.process(fix: f)
            errs.append(LocalTangentFrame.distanceMeters(g.latitudeDegrees, g.longitudeDegrees, o.latitudeDegrees!, o.longitudeDegrees!))
        }
        print("irregular: rms after 20 Hz \(rms(Array(errs[30..<50]))), after 1 Hz \(rms(Array(errs[60...])))")
        #expect(rms(Array(errs[60...])) < 2.5)
    }

    /// SmoothingEval's table (docs/smoothing.md) as a test: each real drive parsed by the real session, as `lodestar
    /// replay --no-smoothing` reads it, smoothed by the filter under test and scored against the SPAN truth.
    /// `p50`/`p95`: the smoothed horizontal errors measured here (m; raw as parsed: mtv1 0.83/1.83, mtv2 0.98/2.75,
    /// F9K 0.49/0.83 — smoothing costs a little on these clean drives, docs/smoothing.md).
    static let realDrives: [(name: String, raw: String, truth: String, uere: Double?, p50: Double, p95: Double)] = [
        ("gsdc2021-mtv1 Pixel 4", "gnss/gsdc2021-mtv1/Pixel4_chipset.nmea", "gnss/gsdc2021-mtv1/SPAN_Pixel4_1Hz.nmea", 10,
         0.85, 2.00),
        ("gsdc2021-mtv2 Pixel 4", "gnss/gsdc2021-mtv2/Pixel4_chipset.nmea", "gnss/gsdc2021-mtv2/SPAN_Pixel4_10Hz.nmea", 10,
         1.00, 2.43),
        ("google-mtv-f9k F9K", "gnss/google-mtv-f9k/MTV.Local1.ublox-F9K.20200206-181434.nmea",
         "gnss/google-mtv-f9k/MTV.Local1.SPAN.20200206-181434.gga", nil, 0.52, 0.87),
    ]

    @Test(.enabled(if: SharedData.available, Comment(rawValue: SharedData.skipMessage)), arguments: realDrives.indices)
    func realDrivesEvaluation(_ i: Int) throws {
        let d = Self.realDrives[i]
        let raw = try SessionReplay.receiverFixes(SharedData.path(d.raw), horizontalUEREMeters: d.uere)
        try #require(raw.count > 1000, "\(d.name): \(raw.count) fixes parsed")
        let truth = MiniNMEA.fixes(SharedData.path(d.truth), uere: 1, date: raw[0].time!.civilDate).map {
            var t = $0; t.speedMetersPerSecond = nil; t.courseDegrees = nil; return t
        }
        let rep = SmoothingEvaluation.evaluate(raw: raw, smoothed: SmoothingEvaluation.smooth(raw), truth: truth)
        print("\(d.name): \(rep.matchedEpochs) epochs, p50 \(rep.raw.p50)→\(rep.smoothed.p50) m, p95 \(rep.raw.p95)→\(rep.smoothed.p95) m")
        #expect(rep.matchedEpochs > 1000)
        // Bounds: the smoothed errors measured on this drive (table above), plus 10 %.
        #expect(rep.smoothed.p50 <= d.p50 * 1.1, "\(d.name): smoothed p50 \(rep.smoothed.p50) m")
        #expect(rep.smoothed.p95 <= d.p95 * 1.1, "\(d.name): smoothed p95 \(rep.smoothed.p95) m")
    }
}
