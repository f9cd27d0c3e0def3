import Foundation
import Testing
import LocationCore
import TestSupport
@testable import Estimation

/// Stops found from the positions alone (`stopFromPositions`): a receiver that sends no speed (GGA alone) on a board
/// without an accelerometer. Judged against the simulator's truth and the real drives' SPAN truth, with the receivers'
/// speed and course removed, and against the same smoother with the setting off (such a receiver never stopped).
@Suite(.ownThreads) struct PositionStopTests {
    static var off: PositionSmoother.Settings {
        var s = PositionSmoother.Settings.default
        s.stopFromPositions = false
        return s
    }

    /// Fixes along an east-going road at 1 Hz from 09:00, 0.5 m of white noise per axis, an honest claim.
    struct Road {
        let frame = LocalTangentFrame(latitudeDegrees: 48.1, longitudeDegrees: 11.6)
        let start = Timestamp(year: 2025, month: 3, day: 1, hour: 9)!
        var rng: SplitMix64

        /// The fix at `k` s, `east` m along the road, with a speed (m/s; course east while moving) when given.
        mutating func fix(_ k: Int, east: Double, speed: Double? = nil) -> Location {
            let g = frame.geodetic(east: east + 0.5 * rng.gaussian(), north: 0.5 * rng.gaussian())
            var fix = Location()
            fix.time = start.adding(nanoseconds: Int64(k) * 1_000_000_000)
            fix.latitudeDegrees = g.latitudeDegrees; fix.longitudeDegrees = g.longitudeDegrees
            fix.mode = .threeD
            fix.horizontalAccuracyMeters = 0.5 * HorizontalError.radius68PerSigma
            if let v = speed {
                fix.speedMetersPerSecond = v > 1 ? v + 0.1 * rng.gaussian() : abs(0.05 * rng.gaussian())
                fix.courseDegrees = v > 1 ? 90 : nil
            }
            return fix
        }

        /// How far (m) an output is from the point `east` m along the road.
        func error(_ out: Location, east: Double) -> Double {
            let p = frame.enu(latitudeDegrees: out.latitudeDegrees!, longitudeDegrees: out.longitudeDegrees!)
            return ((p.east - east) * (p.east - east) + p.north * p.north).squareRoot()
        }
    }

    /// A vehicle at 10 m/s east for 60 s, parked for 60 s, then off again at 2 m/s²; 0.5 m of white noise per axis at
    /// 1 Hz, no speed. The stop is found within 8 s and left within 3 s, and no moving fix is held.
    @Test func stopAndStartFoundFromThePositions() throws {
        var road = Road(rng: SplitMix64(seed: 7))
        var smoother = PositionSmoother()
        // Position along the road (m) at k s: 10 m/s to 60 s, parked to 120 s, then 2 m/s² up to 10 m/s.
        func along(_ k: Double) -> Double {
            if k <= 60 { return 10 * k }
            if k <= 120 { return 600 }
            let t = k - 120
            return t <= 5 ? 600 + t * t : 625 + 10 * (t - 5)
        }
        var firstHeld: Int?, lastHeld: Int?
        var heldWhileMoving = 0
        for k in 0..<180 {
            let speed: Double = k < 60 ? 10 : (k < 120 ? 0 : Swift.min(10, 2 * Double(k - 120)))
            let out = smoother.process(fix: road.fix(k, east: along(Double(k))))
            if out.isStationary == true {
                if firstHeld == nil { firstHeld = k }
                lastHeld = k
                if speed > 1 { heldWhileMoving += 1 }
            }
        }
        let first = try #require(firstHeld), last = try #require(lastHeld)
        print("position stop: held from \(first) s to \(last) s (stopped 60–120 s), \(heldWhileMoving) moving fixes held")
        #expect(first >= 60 && first <= 68)
        #expect(last >= 118 && last <= 122)
        #expect(heldWhileMoving <= 1)
    }

    /// Parked for 60 s, then no fixes for 30 s (a garage exit) while the car drives 300 m: the first fix after the gap
    /// ends the stop, with or without a speed, whether the car is still driving (10 m/s) or parked again. Held, the
    /// filter rejected that fix and the next four (299 m off); with the receiver's 10 m/s against a velocity held at
    /// zero, the velocity update was gated out and the fixes after it too.
    @Test(arguments: [false, true], [false, true])
    func aStopEndsAtTheFirstFixAfterAGap(_ reportsSpeed: Bool, _ parkedAgain: Bool) throws {
        var road = Road(rng: SplitMix64(seed: 11))
        var smoother = PositionSmoother()
        var afterGap: [Double] = []
        for k in 0..<120 where k < 60 || k >= 90 {
            let moving = k >= 60 && !parkedAgain
            let east = k < 60 ? 0 : (parkedAgain ? 300 : 10 * Double(k - 60))
            let out = smoother.process(fix: road.fix(k, east: east, speed: reportsSpeed ? (moving ? 10 : 0) : nil))
            if k == 59 { #expect(out.isStationary == true) }
            if k >= 90 {
                afterGap.append(road.error(out, east: east))
                if k == 90 && !parkedAgain { #expect(out.isStationary == false) }
            }
        }
        print("after the gap (speed \(reportsSpeed), parked again \(parkedAgain)): errors \(afterGap.prefix(6).map { ($0 * 100).rounded() / 100 })")
        #expect(afterGap.prefix(6).allSatisfy { $0 < 5 })
    }

    /// Stopping when the fixes stop (an underground car park's ramp): two slow fixes, not yet a stop, then 30 s without
    /// fixes in which the car drives 300 m and parks. The stop's clock does not run through the gap, and the output
    /// does not wait at the point from before it.
    @Test(arguments: [false, true])
    func aStopIsNotEnteredAcrossAGap(_ reportsSpeed: Bool) throws {
        var road = Road(rng: SplitMix64(seed: 13))
        var smoother = PositionSmoother()
        var afterGap: [Double] = []
        for k in 0..<120 where k < 62 || k >= 92 {
            let east = k < 60 ? 10 * Double(k) : (k < 62 ? 600 : 900)
            let out = smoother.process(fix: road.fix(k, east: east, speed: reportsSpeed ? (k < 60 ? 10 : 0) : nil))
            if k >= 92 { afterGap.append(road.error(out, east: east)) }
        }
        print("stopping into a gap (speed \(reportsSpeed)): errors after it \(afterGap.prefix(6).map { ($0 * 100).rounded() / 100 })")
        #expect(afterGap.prefix(6).allSatisfy { $0 < 5 })
    }

    /// Catalogue receiver `i` at `rate` without its speed, 8 seeds: smoothed with the default settings and with
    /// `other`, both against the simulator's truth.
    static func withoutSpeed(_ i: Int, rate: Double, against other: PositionSmoother.Settings)
        -> (SimulatedReceiver, SmoothingEvaluation.Report, SmoothingEvaluation.Report) {
        var r = SimulatedReceiver.catalogue[i]
        r.rateHz = rate
        let runs = AccuracyHonestyTests.seeds.map { r.run(seed: $0) }
        let raw = runs.flatMap { $0.fixes.map(\.withoutVelocity) }
        let truth = runs.flatMap(\.truth)
        let on = SmoothingEvaluation.evaluate(
            raw: raw, smoothed: runs.flatMap { SmoothingEvaluation.smooth($0.fixes.map(\.withoutVelocity)) }, truth: truth)
        let off = SmoothingEvaluation.evaluate(
            raw: raw, smoothed: runs.flatMap { SmoothingEvaluation.smooth($0.fixes.map(\.withoutVelocity), settings: other) },
            truth: truth)
        return (r, on, off)
    }

    /// Without a speed, the output waits from the first fix whose recent fixes (2 s, or as many as show the exit speed
    /// at 2 σ) may be a stop, instead of drawing the filter's overshoot of the braking (2026-12-07): against the
    /// simulator's truth, white 2 m, white 1 m + GM 60 s 1.5 m and the 0.5 m white-noise receivers (GM 300 s, constant
    /// offset, the phone mix) at 1 and 2 Hz, 8 seeds. Measured 0.67–0.78 of the parked path without it on the 0.5 m
    /// rows; p50 and p95 stay below raw.
    @Test(arguments: [(0, 1.0), (0, 2.0), (2, 1.0), (3, 1.0), (3, 2.0), (4, 1.0), (4, 2.0), (5, 1.0), (5, 2.0)])
    func withoutSpeedTheOutputWaitsFromTheShortSlope(_ i: Int, _ rate: Double) {
        var without = PositionSmoother.Settings.default
        without.waitFromShortSlope = false
        let (r, on, off) = Self.withoutSpeed(i, rate: rate, against: without)
        print("no speed, \(r.name) at \(rate) Hz: parked /180 s \(off.smoothed.parkedPathPer180s) → \(on.smoothed.parkedPathPer180s), p50 \(on.raw.p50) / \(off.smoothed.p50) → \(on.smoothed.p50), p95 \(on.raw.p95) / \(off.smoothed.p95) → \(on.smoothed.p95)")
        #expect(on.smoothed.parkedPathPer180s <= 0.85 * off.smoothed.parkedPathPer180s)
        #expect(on.smoothed.p50 <= on.raw.p50 && on.smoothed.p95 <= on.raw.p95)
        #expect(on.smoothed.p50 <= off.smoothed.p50 + 0.15)
    }

    /// Simulated receivers (white 2 m, white + GM 60 s, the phone mix, RTK) without speed at 1 and 10 Hz, 8 seeds.
    @Test(arguments: [0, 2, 5, 11], [1.0, 10.0])
    func simulatedReceiverWithoutSpeed(_ i: Int, _ rate: Double) {
        let (r, on, before) = Self.withoutSpeed(i, rate: rate, against: Self.off)
        let park = on.smoothed.parkedPathPer180s, w = on.smoothed.withinReportedAccuracy
        print("no speed, \(r.name) at \(rate) Hz: parked /180 s raw \(on.raw.parkedPathPer180s), off \(before.smoothed.parkedPathPer180s), on \(park); p95 raw \(on.raw.p95) → \(on.smoothed.p95) (off \(before.smoothed.p95)); within \(w) (off \(before.smoothed.withinReportedAccuracy))")
        // Measured 0.02–0.09 of the path drawn without the setting.
        #expect(park <= 0.25 * before.smoothed.parkedPathPer180s)
        #expect(w >= 0.6 && w <= 0.85)
        if i == 5 && rate == 10 {
            withKnownIssue("phone mix at 10 Hz without speed: p95 \(on.raw.p95) → \(on.smoothed.p95)") {
                #expect(on.smoothed.p95 <= on.raw.p95)
            }
        } else {
            #expect(on.smoothed.p95 <= on.raw.p95)
        }
        if r.quality == .rtkFixed {
            #expect(park <= 1)
        } else {
            // The stop is entered seconds late (the speed must be known to 0.2 m/s from noisy positions), and the
            // output follows the noise until then: 5–56 m per 180 s.
            withKnownIssue("no speed: parked path \(park) m per 180 s") { #expect(park <= 1) }
        }
    }

    /// The real drives with their speed and course removed, against SPAN.
    @Test(.enabled(if: SharedData.available, Comment(rawValue: SharedData.skipMessage)),
          arguments: AccuracyHonestyTests.drives.indices)
    func realDriveWithoutSpeed(_ i: Int) throws {
        let d = AccuracyHonestyTests.drives[i]
        let raw = MiniNMEA.fixes(SharedData.path(d.raw), uere: d.uere).map(\.withoutVelocity)
        try #require(raw.count > 1000)
        let truth = MiniNMEA.fixes(SharedData.path(d.truth), uere: 1, date: raw.first!.time!.civilDate).map {
            var t = $0; t.speedMetersPerSecond = nil; t.courseDegrees = nil; return t
        }
        let on = SmoothingEvaluation.evaluate(raw: raw, smoothed: SmoothingEvaluation.smooth(raw), truth: truth)
        let before = SmoothingEvaluation.evaluate(raw: raw, smoothed: SmoothingEvaluation.smooth(raw, settings: Self.off),
                                                  truth: truth)
        let park = on.smoothed.parkedPathPer180s
        print("no speed, \(d.name): parked /180 s raw \(on.raw.parkedPathPer180s), off \(before.smoothed.parkedPathPer180s), on \(park); p50 \(on.raw.p50) → \(on.smoothed.p50), p95 \(on.raw.p95) → \(on.smoothed.p95) (off \(before.smoothed.p95))")
        // Measured 0.37, 0.39 and 0.60 of the path drawn without the setting.
        #expect(park <= 0.7 * before.smoothed.parkedPathPer180s)
        #expect(on.smoothed.withinReportedAccuracy >= 0.6)
        if d.name.contains("F9K") {
            // Its vehicle creeps inside stops; without a speed the hold follows a creep only once three fixes stand
            // off the stop (0.90 against 0.83 raw; 1.07 without following).
            withKnownIssue("F9K without speed: p95 \(on.raw.p95) → \(on.smoothed.p95)") { #expect(on.smoothed.p95 <= on.raw.p95) }
        } else {
            #expect(on.smoothed.p95 <= on.raw.p95)
        }
        withKnownIssue("no speed: \(d.name) parked path \(park) m per 180 s", isIntermittent: true) { #expect(park <= 1) }
    }
}
