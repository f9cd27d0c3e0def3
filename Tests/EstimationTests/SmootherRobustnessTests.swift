import Foundation
import Testing
import LocationCore
import TestSupport
@testable import Estimation

/// Random drives that break the usual pattern, against their truth: gaps of up to a minute (tunnels, garages) in
/// which the vehicle may stop, start or turn, receivers with and without speed or with speed on some fixes only,
/// single outliers of tens of metres, and irregular intervals. Whatever happens, the output is finite and is never
/// far off for long: a smoother that holds a stop or a velocity across such an event draws hundreds of metres of
/// error until its gate gives up (`PositionStopTests.aStopEndsAtTheFirstFixAfterAGap`).
@Suite struct SmootherRobustnessTests {
    struct Scenario {
        var fixes: [Location]
        var truth: [(east: Double, north: Double)]
        var outlier: [Bool]
        var speedMode = 0
    }

    static let frame = LocalTangentFrame(latitudeDegrees: 45.5, longitudeDegrees: -73.6)

    /// A 20-minute drive at 1 Hz (or `rateHz`), at times 0.5–1.5 intervals apart (stops of 10–90 s, legs at 5–20 m/s with turns of up to
    /// 90° at most 20 °/s and 4 m/s²), 0.7 m of white noise and a 1.5 m, 60 s wander, an honest claim; speed and course
    /// on every fix, on none, or on about half.
    static func scenario(seed: UInt64, rateHz: Double = 1) -> Scenario {
        var rng = SplitMix64(seed: seed)
        func unit() -> Double { rng.openUnit() }
        let speedMode = Int(unit() * 3)   // 0: always, 1: never, 2: on some fixes
        let start = Timestamp(year: 2025, month: 6, day: 2, hour: 8)!
        var e = 0.0, n = 0.0, heading = unit() * 360, speed = 0.0, target = 0.0
        var targetHeading = heading
        var legLeft = 0.0, stopLeft = 20.0
        var biasE = 0.0, biasN = 0.0
        var gapLeft = 0.0
        var out = Scenario(fixes: [], truth: [], outlier: [], speedMode: speedMode)
        var t = 0.0
        while t < 1200 {
            let base = 1 / rateHz
            let dt = unit() < 0.05 ? base * (0.5 + unit()) : base
            t += dt
            // Motion: stop, then accelerate to a target speed, turning at times; brake into the next stop.
            if stopLeft > 0 {
                stopLeft -= dt; speed = 0
                if stopLeft <= 0 { legLeft = 30 + 120 * unit(); target = 5 + 15 * unit() }
            } else if legLeft > 0 {
                legLeft -= dt
                speed += Swift.max(-3 * dt, Swift.min(2 * dt, target - speed))
                if unit() < 0.03 * base { targetHeading = heading + (unit() - 0.5) * 180 }
            } else {
                speed = Swift.max(0, speed - 3 * dt)
                if speed == 0 { stopLeft = 10 + 80 * unit() }
            }
            // Turns at most 20 °/s and 4 m/s² across the track.
            let rate = Swift.min(20, 4 / Swift.max(speed, 0.1) * 180 / .pi) * dt
            heading += Swift.max(-rate, Swift.min(rate, targetHeading - heading))
            e += speed * sin(heading * .pi / 180) * dt
            n += speed * cos(heading * .pi / 180) * dt
            let a = exp(-dt / 60), q = 1.5 * (1 - a * a).squareRoot()
            biasE = a * biasE + q * rng.gaussian(); biasN = a * biasN + q * rng.gaussian()
            // Gaps of 5–60 s, about every 4 minutes.
            if gapLeft > 0 { gapLeft -= dt; continue }
            if unit() < base / 240 { gapLeft = 5 + 55 * unit(); continue }
            let outlier = unit() < 0.005 * base
            let oe = outlier ? (unit() - 0.5) * 100 : 0, on = outlier ? (unit() - 0.5) * 100 : 0
            let g = frame.geodetic(east: e + biasE + 0.7 * rng.gaussian() + oe, north: n + biasN + 0.7 * rng.gaussian() + on)
            var fix = Location()
            fix.time = start.adding(nanoseconds: Int64((t * 1e9).rounded()))
            fix.latitudeDegrees = g.latitudeDegrees; fix.longitudeDegrees = g.longitudeDegrees
            fix.mode = .threeD
            fix.horizontalAccuracyMeters = (0.49 + 2.25).squareRoot() * HorizontalError.radius68PerSigma
            if speedMode == 0 || (speedMode == 2 && unit() < 0.5) {
                let ve = speed * sin(heading * .pi / 180) + 0.1 * rng.gaussian()
                let vn = speed * cos(heading * .pi / 180) + 0.1 * rng.gaussian()
                fix.speedMetersPerSecond = (ve * ve + vn * vn).squareRoot()
                fix.courseDegrees = Angle.normalizedDegrees(atan2(ve, vn) * 180 / .pi)
            }
            out.fixes.append(fix)
            out.truth.append((e, n))
            out.outlier.append(outlier)
        }
        return out
    }

    @Test(arguments: Array(UInt64(1)...UInt64(40)))
    func randomDrive(_ seed: UInt64) {
        check(seed: seed, rateHz: 1)
    }

    /// The same at 10 Hz (20 drives; the noise per fix as at 1 Hz): measured no fix more than 15 m off, worst 10.9 m.
    @Test(arguments: Array(UInt64(1)...UInt64(20)))
    func randomDriveAt10Hz(_ seed: UInt64) {
        check(seed: seed, rateHz: 10)
    }

    func check(seed: UInt64, rateHz: Double) {
        let s = Self.scenario(seed: seed, rateHz: rateHz)
        var smoother = PositionSmoother()
        var far = 0, worst = 0.0, finite = true
        // The worst error away from outliers (not within 6 fixes after one): a manoeuvre the filter did not follow.
        var worstClean = 0.0
        for (i, fix) in s.fixes.enumerated() {
            let out = smoother.process(fix: fix)
            guard let lat = out.latitudeDegrees, let lon = out.longitudeDegrees, lat.isFinite, lon.isFinite,
                  let acc = out.horizontalAccuracyMeters, acc.isFinite, acc > 0 else { finite = false; continue }
            let p = Self.frame.enu(latitudeDegrees: lat, longitudeDegrees: lon)
            let err = ((p.east - s.truth[i].east) * (p.east - s.truth[i].east)
                       + (p.north - s.truth[i].north) * (p.north - s.truth[i].north)).squareRoot()
            worst = Swift.max(worst, err)
            if !s.outlier[Swift.max(0, i - 6)...i].contains(true) { worstClean = Swift.max(worstClean, err) }
            // The raw error is up to ~6 m (0.7 m white, 1.5 m wander): 15 m off is a failure to follow the vehicle.
            if err > 15 { far += 1 }
        }
        print("random drive \(seed) at \(rateHz) Hz (speed \(["on every fix", "on none", "on some"][s.speedMode])): \(s.fixes.count) fixes, worst \((worst * 10).rounded() / 10) m (\((worstClean * 10).rounded() / 10) m away from outliers), \(far) fixes more than 15 m off")
        #expect(finite)
        if s.speedMode == 0 {
            // Measured: at most 3 fixes, 44.8 m (an outlier that is the first fix after a 53 s gap is taken; the next
            // fixes are rejected until the filter re-initialises). Away from outliers at most 5.7 m.
            #expect(far <= 3)
            #expect(worst < 50)
            #expect(worstClean < 10)
        } else {
            // Without a speed on every fix the constant-velocity filter learns a turn or a start only from positions,
            // and its gate rejects fixes until it restarts from the line through them (`speedFromPositions`):
            // measured up to 6 fixes and 53.8 m per drive, the worst next to outliers (up to 7 fixes and 41.2 m away
            // from outliers before the line's position test; up to 18 fixes and 76.5 m without `stopFromPositions`; up
            // to 280 m before the gap rules). With no speed at all, away from outliers, at most 22.9 m (41.2 before the
            // position test). A fix with a speed after a rejection skips that test; it restarts the filter instead where
            // it agrees with the rejected fix before it and the filter's motion does not (`rejectedFixesAgree`): with a
            // speed on some fixes, away from outliers, at most 23.3 m (39.1 m in a turn at 15 m/s before, and 32.8 m).
            #expect(far <= 15)
            #expect(worst < 80)
            #expect(worstClean < 25)
            withKnownIssue("no speed on every fix: \(far) fixes more than 15 m off, worst \(worst) m", isIntermittent: true) {
                #expect(far <= 3)
            }
        }
    }
    /// A receiver at 0.2 or 0.5 Hz (a tracker logging every 5 or 2 s), with speed, against the simulator's truth: the
    /// smoother is no worse than the raw fixes, and it still finds the stops. On 375c090 at 0.2 Hz its p68 was 2–4 × the
    /// raw one (white 2 m 2.99 → 6.24 m, GM 60 s 2.69 → 8.12 m), at 0.5 Hz its p95 up to 1.27 × (GM 10 s 1.27): the
    /// constant-velocity model's spread over 2–5 s is far below what a car turns or brakes in that time, and the gate
    /// rejected its fixes.
    @Test(arguments: [0, 2, 5], [0.2, 0.5])
    func lowRateReceiver(_ i: Int, _ rate: Double) {
        var r = SimulatedReceiver.catalogue[i]
        r.rateHz = rate
        let runs = (1...8).map { r.run(seed: UInt64($0)) }
        let smoothed = runs.flatMap { SmoothingEvaluation.smooth($0.fixes) }
        let rep = SmoothingEvaluation.evaluate(raw: runs.flatMap(\.fixes), smoothed: smoothed, truth: runs.flatMap(\.truth))
        // Stops: truth slower than 0.2 m/s; their fixes held.
        var stoppedFixes = 0, held = 0
        for (s, t) in zip(smoothed, runs.flatMap(\.truth)) where (t.speedMetersPerSecond ?? 1) < 0.2 {
            stoppedFixes += 1
            if s.isStationary == true { held += 1 }
        }
        let heldShare = Double(held) / Double(Swift.max(1, stoppedFixes))
        print("\(rate) Hz \(r.name): p68 \(rep.raw.p68) → \(rep.smoothed.p68), p95 \(rep.raw.p95) → \(rep.smoothed.p95), within \(rep.smoothed.withinReportedAccuracy), stopped fixes held \(heldShare)")
        #expect(rep.smoothed.p68 <= 1.02 * rep.raw.p68)
        #expect(rep.smoothed.p95 <= 1.02 * rep.raw.p95)
        let w = rep.smoothed.withinReportedAccuracy
        // (White 2 m at 0.5 Hz was 0.88 while the error structure learned nothing below 1 Hz: 0.75 now.)
        #expect(w >= 0.6 && w <= 0.85)
        #expect(heldShare >= 0.5)
    }

    /// Below 1 Hz the error structure learns from the receiver's own interval. Its shortest lag (the white part's upper
    /// bound, as S(1 s) is at 1 Hz) is compared with the simulator's true half mean-square increment of consecutive
    /// errors: measured 0.82–1.04 × the truth at 0.2 Hz (from the stops alone: a 5 s interval removes no motion) and
    /// 1.04–1.97 × at 0.5 Hz (moving increments too, which hold 2 s of error in the motion the velocities remove, as
    /// S(1 s) holds 1 s of it at 1 Hz); asserted 0.7–2.5 ×. Counting 2^k samples back, every increment of a 0.5 Hz
    /// receiver spanned twice its lag and none was taken: the white estimate stayed nil, and with it the hold, the
    /// gate's floor and the accuracy's split fell back on the claim (at 0.5 Hz, 3.1–11.4 m of parked path per 180 s on
    /// the catalogue, 0.95–4.45 m now).
    @Test(arguments: [0, 2, 5], [0.2, 0.5])
    func lowRateErrorStructure(_ i: Int, _ rate: Double) {
        var r = SimulatedReceiver.catalogue[i]
        r.rateHz = rate
        let run = r.run(seed: 2)
        var s = PositionSmoother()
        for x in run.fixes { _ = s.process(fix: x) }
        let truth = SimulatedReceiver.trueIncrementVariance(fixes: run.fixes, truth: run.truth)
        let learned = s.errorStructure.lags.white
        print("\(rate) Hz \(r.name): shortest-lag S \(learned ?? .nan) m², true \(truth) m²")
        #expect(learned.map { $0 >= 0.7 * truth && $0 <= 2.5 * truth } == true)
    }

    /// The receiver's clock jumps back mid-drive (27 minutes, or 1,024 weeks: a week-number rollover) and the smoother is
    /// re-based as `SmoothingStage` does. What it learns about the receiver's error goes on learning on the new time
    /// base: before, every later sample looked older than the last one, and the error structure took nothing more
    /// (27 minutes after the jump, never after a rollover). The stops go on being held.
    @Test(arguments: [-1_620.0, -1_024 * 7 * 86_400.0])
    func timeJumpKeepsLearning(_ jumpSeconds: Double) {
        let r = SimulatedReceiver.catalogue[2]
        let run = r.run(seed: 3)
        let half = run.fixes.count / 2
        var s = PositionSmoother()
        for x in run.fixes[..<half] { _ = s.process(fix: x) }
        let before = s.errorStructure.lags
        let shift = Int64(jumpSeconds * 1e9)
        s.rebaseTime(to: run.fixes[half].time!.adding(nanoseconds: shift - 1))
        var stopped = 0, held = 0
        for (x, t) in zip(run.fixes[half...], run.truth[half...]) {
            var y = x
            y.time = x.time!.adding(nanoseconds: shift)
            let out = s.process(fix: y)
            #expect(s.lastOutcome != .outOfOrder)
            if (t.speedMetersPerSecond ?? 1) < 0.2 { stopped += 1; if out.isStationary == true { held += 1 } }
        }
        let after = s.errorStructure.lags
        let fixesAfter = Double(run.fixes.count - half)
        print("jump \(jumpSeconds) s: 1 s increments \(before.counts[0]) → \(after.counts[0]), 4 s \(before.counts[2]) → \(after.counts[2]), stopped fixes held \(held)/\(stopped)")
        #expect(after.counts[0] - before.counts[0] >= 0.5 * fixesAfter)
        #expect(after.counts[2] > before.counts[2])
        #expect(stopped > 0 && Double(held) >= 0.5 * Double(stopped))
    }
}
