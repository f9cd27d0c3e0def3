import Estimation
import Foundation
import LocationCore
import TestSupport

/// PARK=1: where in the truth's stops the smoothed output draws its parked path (per 180 s stopped): each stop's
/// steps 1–5 (the braking into it), later steps while held (jumps of the hold) and later steps not held (the stop
/// ended early), and the settled parked path (after each stop's first 5 s). PARKJ=<row name>: every step of that row's
/// stops that moves the output, with its time, the output's accuracy and speed.
func parkDebug(_ name: String, _ sm: [Location], _ truth: [Location]) {
    let sortedTruth = SmoothingEvaluation.truthWithMotion(truth)
    var byKey: [Int64: Location] = [:]
    for t in sortedTruth { byKey[SmoothingEvaluation.key(t.time!)] = t }
    let segs = SmoothingEvaluation.stoppedRuns(sm, truth: byKey, stopped: SmoothingEvaluation.stoppedEpochs(sortedTruth))
    var byStep = [Double](repeating: 0, count: 6)
    var laterHeld = 0.0, laterMoving = 0.0, laterHeldJumps = 0, laterMovingSteps = 0, secs = 0.0
    let listed = ProcessInfo.processInfo.environment["PARKJ"] == name
    for s in segs where s.count >= 2 {
        let t0 = s[0].time!.secondsSince1970
        secs += s.last!.time!.secondsSince1970 - t0
        for j in 1..<s.count {
            let d = LocalTangentFrame.distanceMeters(s[j - 1].latitudeDegrees!, s[j - 1].longitudeDegrees!,
                                                     s[j].latitudeDegrees!, s[j].longitudeDegrees!)
            if listed, d > 0.001 {
                let t = s[j].time!.secondsSince1970
                print("  \(t) step \(j) t+\(f(t - t0)) d \(f(d)) held \(s[j].isStationary == true) acc \(f(s[j].horizontalAccuracyMeters ?? .nan)) speed \(f(s[j].speedMetersPerSecond ?? .nan))")
            }
            if j <= 5 { byStep[j] += d } else if s[j].isStationary == true {
                laterHeld += d; if d > 0.001 { laterHeldJumps += 1 }
            } else { laterMoving += d; laterMovingSteps += 1 }
        }
    }
    func p(_ x: Double) -> String { f(x / secs * 180) }
    print("PARK \(name): \(segs.count) stops, mean \(f(secs / Double(max(1, segs.count)))) s; per 180 s: steps 1…5 \((1...5).map { p(byStep[$0]) }.joined(separator: " ")), later held \(p(laterHeld)) (\(laterHeldJumps) jumps), later not held \(p(laterMoving)) (\(laterMovingSteps) steps)")
}

/// STOPDIAG=<row name>: each of the truth's stops: its duration, the truth's own path in it, the mean error of the
/// raw and the smoothed fixes, and the mean distance between the smoothed output and the raw fixes. With
/// STOPDIAG_T=<a stop's start, as printed>: every epoch of that stop, the raw and smoothed offsets east,north from the
/// truth (m), the receiver's speed and whether the output is held.
func stopDiag(_ name: String, _ raw: [Location], _ sm: [Location], _ truth: [Location]) {
    guard ProcessInfo.processInfo.environment["STOPDIAG"] == name else { return }
    let sortedTruth = SmoothingEvaluation.truthWithMotion(truth)
    var byKey: [Int64: Location] = [:]
    for t in sortedTruth { byKey[SmoothingEvaluation.key(t.time!)] = t }
    let rawByKey = keyed(raw)
    func d(_ a: Location, _ b: Location) -> Double {
        LocalTangentFrame.distanceMeters(a.latitudeDegrees!, a.longitudeDegrees!, b.latitudeDegrees!, b.longitudeDegrees!)
    }
    let segs = SmoothingEvaluation.stoppedRuns(sm, truth: byKey, stopped: SmoothingEvaluation.stoppedEpochs(sortedTruth))
    for s in segs where s.count >= 2 {
        var truthPath = 0.0, er = 0.0, es = 0.0, dsr = 0.0, n = 0.0, erMax = 0.0, esMax = 0.0
        var prevT: Location?, prevS: Location?, smPath = 0.0
        for x in s {
            if let p = prevS { smPath += d(p, x) }
            prevS = x
            let k = SmoothingEvaluation.key(x.time!)
            guard let tr = byKey[k], let r = rawByKey[k] else { continue }
            if let p = prevT { truthPath += d(p, tr) }
            prevT = tr
            er += d(r, tr); es += d(x, tr); dsr += d(x, r); n += 1
            if let w = ProcessInfo.processInfo.environment["STOPDIAG_T"], f(s[0].time!.secondsSince1970) == w {
                let fr = LocalTangentFrame(latitudeDegrees: tr.latitudeDegrees!, longitudeDegrees: tr.longitudeDegrees!)
                let re = fr.enu(latitudeDegrees: r.latitudeDegrees!, longitudeDegrees: r.longitudeDegrees!)
                let se = fr.enu(latitudeDegrees: x.latitudeDegrees!, longitudeDegrees: x.longitudeDegrees!)
                print("  \(f(x.time!.secondsSince1970)) raw \(f(re.east)),\(f(re.north)) sm \(f(se.east)),\(f(se.north)) v \(r.speedMetersPerSecond ?? -1) st \(x.isStationary ?? false)")
            }
            erMax = max(erMax, d(r, tr)); esMax = max(esMax, d(x, tr))
        }
        let held = s.filter { $0.isStationary == true }.count
        let acc = s.compactMap(\.horizontalAccuracyMeters).sorted()
        print("STOP \(f(s[0].time!.secondsSince1970)) \(s.count) fixes (\(held) held, acc p50 \(f(acc[acc.count / 2]))), truth path \(f(truthPath)), smoothed path \(f(smPath)), err raw \(f(er / n)) (max \(f(erMax))) sm \(f(es / n)) (max \(f(esMax))), sm–raw \(f(dsr / n))")
    }
}

/// DRHONEST=1: the outage receiver, seeds 1–8: the dead-reckoned fixes' within-share, mean error and mean accuracy by
/// how long the outage has lasted (`DeadReckoningHonesty`, Tests/TestSupport); then the fixes after each return, by
/// seconds since it (`AfterOutage`).
func drHonesty() {
    guard ProcessInfo.processInfo.environment["DRHONEST"] != nil else { return }
    let receiver = SimulatedReceiver.catalogue.first { !$0.outages.isEmpty }!
    let bands = DeadReckoningHonesty.measure(receiver, seeds: 1...8)
    for (k, b) in bands.enumerated() where b.count > 0 {
        let from = k == 0 ? 0 : DeadReckoningHonesty.bandEnds[k - 1]
        print("DR \(f(from))–\(f(DeadReckoningHonesty.bandEnds[k])) s: n \(b.count) within \(f(b.withinShare)) mean error \(f(b.errorSum / Double(b.count))) mean accuracy \(f(b.accuracySum / Double(b.count)))")
    }
    for (k, b) in AfterOutage.measure(receiver, seeds: 1...8).enumerated() where b.count > 0 {
        let from = k == 0 ? 0 : DeadReckoningHonesty.bandEnds[k - 1]
        print("after the return \(f(from))–\(f(DeadReckoningHonesty.bandEnds[k])) s: n \(b.count) within \(f(b.withinShare)) mean error \(f(b.meanError)) raw \(f(b.meanRawError))")
    }
}

/// P95DIAG=<row name>: the epochs whose smoothed error is above the raw p95, by what the truth does there (turning,
/// accelerating, cruising, stopped), with the error along and across the truth's track.
func p95Diag(_ name: String, _ raw: [Location], _ sm: [Location], _ truth: [Location]) {
    guard ProcessInfo.processInfo.environment["P95DIAG"] == name else { return }
    let sortedTruth = SmoothingEvaluation.truthWithMotion(truth)
    var byKey: [Int64: Int] = [:]
    for (i, t) in sortedTruth.enumerated() { byKey[SmoothingEvaluation.key(t.time!)] = i }
    let rawByKey = keyed(raw)
    struct Row { var raw, sm, along, across, speed, turn, acc, t: Double }
    var rows: [Row] = []
    for x in sm {
        let k = SmoothingEvaluation.key(x.time!)
        guard let i = byKey[k], let r = rawByKey[k], i > 0, i + 1 < sortedTruth.count else { continue }
        let tr = sortedTruth[i], a = sortedTruth[i - 1], b = sortedTruth[i + 1]
        let fr = LocalTangentFrame(latitudeDegrees: tr.latitudeDegrees!, longitudeDegrees: tr.longitudeDegrees!)
        let s = fr.enu(latitudeDegrees: x.latitudeDegrees!, longitudeDegrees: x.longitudeDegrees!)
        let rr = fr.enu(latitudeDegrees: r.latitudeDegrees!, longitudeDegrees: r.longitudeDegrees!)
        let c = (tr.courseDegrees ?? 0) * .pi / 180
        let along = s.east * sin(c) + s.north * cos(c), across = s.east * cos(c) - s.north * sin(c)
        var turn = ((b.courseDegrees ?? 0) - (a.courseDegrees ?? 0)).truncatingRemainder(dividingBy: 360)
        if turn > 180 { turn -= 360 } else if turn < -180 { turn += 360 }
        let dtt = b.time!.secondsSince1970 - a.time!.secondsSince1970
        rows.append(Row(raw: (rr.east * rr.east + rr.north * rr.north).squareRoot(),
                        sm: (s.east * s.east + s.north * s.north).squareRoot(), along: along, across: across,
                        speed: tr.speedMetersPerSecond ?? 0, turn: abs(turn) / dtt,
                        acc: ((b.speedMetersPerSecond ?? 0) - (a.speedMetersPerSecond ?? 0)) / dtt, t: x.time!.secondsSince1970))
    }
    let rawP95 = rows.map(\.raw).sorted()[rows.count * 95 / 100]
    let smP95 = rows.map(\.sm).sorted()[rows.count * 95 / 100]
    func cat(_ r: Row) -> String {
        if r.speed < 0.5 { return "stopped" }
        if r.turn > 3 { return "turning" }
        if abs(r.acc) > 0.5 { return r.acc > 0 ? "accelerating" : "braking" }
        return "cruising"
    }
    print("P95DIAG \(name): raw p95 \(f(rawP95)) smoothed p95 \(f(smP95))")
    for c in ["stopped", "turning", "accelerating", "braking", "cruising"] {
        let all = rows.filter { cat($0) == c }
        let bigSm = all.filter { $0.sm > rawP95 }, bigRaw = all.filter { $0.raw > rawP95 }
        func mean(_ v: (Row) -> Double) -> Double { bigSm.isEmpty ? 0 : bigSm.map(v).reduce(0, +) / Double(bigSm.count) }
        let ma = mean { abs($0.along) }, mx = mean { abs($0.across) }, sa = mean(\.along)
        print("  \(c): \(all.count) epochs, smoothed > raw p95: \(bigSm.count) (raw: \(bigRaw.count)); |along| \(f(ma)) (mean \(f(sa))) |across| \(f(mx))")
    }
    if ProcessInfo.processInfo.environment["P95LIST"] != nil {
        for r in rows where r.sm > rawP95 { print("  \(f(r.t)) \(cat(r)) sm \(f(r.sm)) raw \(f(r.raw)) along \(f(r.along)) across \(f(r.across)) v \(f(r.speed)) turn \(f(r.turn)) acc \(f(r.acc))") }
    }
}

/// The fixes by their time key (`SmoothingEvaluation.key`), as the truth is matched.
func keyed(_ fixes: [Location]) -> [Int64: Location] {
    var byKey: [Int64: Location] = [:]
    for r in fixes { if let t = r.time { byKey[SmoothingEvaluation.key(t)] = r } }
    return byKey
}

/// WITHINDIAG=1: each row's within-h share split by what the output does there: held (`isStationary`), free while
/// the truth stands (where the truth gives its speed: the simulated rows; the GGA truths of the real drives give none),
/// and moving, with each part's share of the epochs, its within share and its median error over radius.
func withinDiag(_ name: String, _ sm: [Location], _ truth: [Location]) {
    guard ProcessInfo.processInfo.environment["WITHINDIAG"] != nil else { return }
    var byKey: [Int64: Location] = [:]
    for t in truth { byKey[SmoothingEvaluation.key(t.time!)] = t }
    var parts: [String: (n: Int, within: Int, ratios: [Double])] = [:]
    for o in sm {
        guard let t = o.time, let tr = byKey[SmoothingEvaluation.key(t)], let h = o.horizontalAccuracyMeters,
              let lat = o.latitudeDegrees, let lon = o.longitudeDegrees else { continue }
        let e = LocalTangentFrame.distanceMeters(tr.latitudeDegrees!, tr.longitudeDegrees!, lat, lon)
        let key = o.isStationary == true ? "held" : ((tr.speedMetersPerSecond ?? 1) < 0.2 ? "free, truth stopped" : "moving")
        var p = parts[key] ?? (0, 0, [])
        p.n += 1; if e <= h { p.within += 1 }; p.ratios.append(e / Swift.max(h, 1e-9))
        parts[key] = p
    }
    let total = parts.values.reduce(0) { $0 + $1.n }
    let text = parts.keys.sorted().map { k -> String in
        let p = parts[k]!
        return "\(k) \(f(Double(p.n) / Double(total))) of epochs, within \(f3(Double(p.within) / Double(p.n))), median error/radius \(f(SmoothingEvaluation.percentile(p.ratios.sorted(), 0.5)))"
    }.joined(separator: "; ")
    print("WITHIN \(name): \(text)")
}

/// MAXDIAG=<row name>: that row's largest smoothed errors, with the raw error, whether held, and the gap before the fix;
/// MAXDIAG_T=<time>: every fix within 8 s of it.
func maxDiag(_ name: String, _ raw: [Location], _ sm: [Location], _ truth: [Location]) {
    guard ProcessInfo.processInfo.environment["MAXDIAG"] == name else { return }
    let tb = keyed(truth), rb = keyed(raw)
    var rows: [(e: Double, r: Double, t: Double, held: Bool, gap: Double)] = []
    var last: Double?
    for s in sm {
        let t = s.time!.secondsSince1970
        defer { last = t }
        guard let tr = tb[SmoothingEvaluation.key(s.time!)], let r = rb[SmoothingEvaluation.key(s.time!)] else { continue }
        let e = LocalTangentFrame.distanceMeters(tr.latitudeDegrees!, tr.longitudeDegrees!, s.latitudeDegrees!, s.longitudeDegrees!)
        let re = LocalTangentFrame.distanceMeters(tr.latitudeDegrees!, tr.longitudeDegrees!, r.latitudeDegrees!, r.longitudeDegrees!)
        rows.append((e, re, t, s.isStationary == true, last.map { t - $0 } ?? 0))
    }
    if let w = ProcessInfo.processInfo.environment["MAXDIAG_T"].flatMap(Double.init) {
        for s in sm where abs(s.time!.secondsSince1970 - w) <= 8 {
            guard let tr = tb[SmoothingEvaluation.key(s.time!)], let r = rb[SmoothingEvaluation.key(s.time!)] else { continue }
            let e = LocalTangentFrame.distanceMeters(tr.latitudeDegrees!, tr.longitudeDegrees!, s.latitudeDegrees!, s.longitudeDegrees!)
            print("  \(f(s.time!.secondsSince1970)) error \(f(e)) held \(s.isStationary == true) speed raw \(f(r.speedMetersPerSecond ?? .nan)) sm \(f(s.speedMetersPerSecond ?? .nan)) truth \(f(tr.speedMetersPerSecond ?? .nan)) acc \(f(s.horizontalAccuracyMeters ?? .nan))")
        }
    }
    for x in rows.sorted(by: { $0.e > $1.e }).prefix(12) {
        print("MAX \(name): t \(f(x.t)) error \(f(x.e)) raw \(f(x.r)) held \(x.held) gap \(f(x.gap))")
    }
}

/// TRACE="<catalogue index>|<seed>|<time>": the smoother's outcome for each fix within 8 s of that time.
func trace() {
    guard let spec = ProcessInfo.processInfo.environment["TRACE"] else { return }
    let p = spec.split(separator: "|").map(String.init)
    guard p.count == 3, let i = Int(p[0]), let seed = UInt64(p[1]), let w = Double(p[2]) else { return }
    var r = SimulatedReceiver.catalogue[i]
    r.rateHz = simulatedRate
    traceFixes(r.run(seed: seed).fixes, around: w, label: "TRACE")
}

/// TRACEFILE="<raw NMEA>|<UERE m>|<time>": as TRACE, for a recording.
func traceFile() {
    guard let spec = ProcessInfo.processInfo.environment["TRACEFILE"] else { return }
    let p = spec.split(separator: "|").map(String.init)
    guard p.count == 3, let uere = Double(p[1]), let w = Double(p[2]), let raw = try? fixes(p[0], uereMeters: uere) else { return }
    traceFixes(raw, around: w, label: "TRACEFILE")
}

/// Smooths `fixes` (without their velocity under NOSPEED) and prints, for each fix within 8 s of `w` (s since 1970):
/// the outcome, the hold, the speed in and out, the output's offset from the fix (east, north, m), its radius and
/// the rejections in a row.
func traceFixes(_ fixes: [Location], around w: Double, label: String) {
    var s = PositionSmoother(settings: evalSettings)
    for x in noSpeed ? fixes.map(\.withoutVelocity) : fixes {
        let out = s.process(fix: x)
        let t = x.time!.secondsSince1970
        guard abs(t - w) <= 8 else { continue }
        let fr = LocalTangentFrame(latitudeDegrees: x.latitudeDegrees!, longitudeDegrees: x.longitudeDegrees!)
        let o = fr.enu(latitudeDegrees: out.latitudeDegrees!, longitudeDegrees: out.longitudeDegrees!)
        print("\(label) \(f(t)) \(s.lastOutcome) stationary \(s.isStationary) speed in \(f(x.speedMetersPerSecond ?? .nan)) out \(f(out.speedMetersPerSecond ?? .nan)) out−fix \(f(o.east)),\(f(o.north)) acc \(f(out.horizontalAccuracyMeters ?? .nan)) rejections \(s.consecutiveRejections)")
    }
}

/// VELDIAG=<row name>: where the truth moves (≥ 2 m/s), the quantiles of the smoothed speed's and course's errors
/// over their claimed accuracies (an honest 1-D 68 % bound puts the 50 % quantile near 0.67 and the 68 % one at 1),
/// with the median error and the median claim, by the truth's acceleration (|a| < 0.3 m/s²: steady).
func velDiag(_ name: String, _ sm: [Location], _ truth: [Location]) {
    guard ProcessInfo.processInfo.environment["VELDIAG"] == name else { return }
    let sortedTruth = SmoothingEvaluation.truthWithMotion(truth)
    var byKey: [Int64: Int] = [:]
    for (i, t) in sortedTruth.enumerated() { byKey[SmoothingEvaluation.key(t.time!)] = i }
    var rows: [(steady: Bool, se: Double, sa: Double, ce: Double, ca: Double)] = []
    for x in sm {
        guard let i = byKey[SmoothingEvaluation.key(x.time!)], i > 0, i + 1 < sortedTruth.count else { continue }
        let tr = sortedTruth[i]
        guard let ts = tr.speedMetersPerSecond, ts >= 2, let sp = x.speedMetersPerSecond, let sa = x.speedAccuracyMetersPerSecond,
              let tc = tr.courseDegrees, let c = x.courseDegrees, let ca = x.courseAccuracyDegrees else { continue }
        let a = sortedTruth[i - 1], b = sortedTruth[i + 1]
        let acc = ((b.speedMetersPerSecond ?? 0) - (a.speedMetersPerSecond ?? 0)) / (b.time!.secondsSince1970 - a.time!.secondsSince1970)
        rows.append((abs(acc) < 0.3, abs(sp - ts), sa, abs(Angle.normalizedDegrees(c - tc + 180) - 180), ca))
    }
    func q(_ v: [Double], _ p: Double) -> String { f(SmoothingEvaluation.percentile(v.sorted(), p)) }
    for (label, part) in [("all", rows), ("steady", rows.filter(\.steady)), ("accelerating", rows.filter { !$0.steady })] {
        let sr = part.map { $0.se / $0.sa }, cr = part.map { $0.ce / $0.ca }
        print("VELDIAG \(name) \(label) n \(part.count): speed err/acc p50 \(q(sr, 0.5)) p68 \(q(sr, 0.68)) (err p50 \(q(part.map(\.se), 0.5)), acc p50 \(q(part.map(\.sa), 0.5))); course err/acc p50 \(q(cr, 0.5)) p68 \(q(cr, 0.68)) (err p50 \(q(part.map(\.ce), 0.5)), acc p50 \(q(part.map(\.ca), 0.5)))")
    }
}

/// EPOCHDUMP=<row name>: every smoothed fix of that row as "time error raw-error accuracy held" lines in
/// /tmp/epochdump-<row>.txt, to compare two builds epoch by epoch.
func epochDump(_ name: String, _ raw: [Location], _ sm: [Location], _ truth: [Location]) {
    guard ProcessInfo.processInfo.environment["EPOCHDUMP"] == name else { return }
    let tb = keyed(truth), rb = keyed(raw)
    var text = ""
    for s in sm {
        guard let tr = tb[SmoothingEvaluation.key(s.time!)], let r = rb[SmoothingEvaluation.key(s.time!)] else { continue }
        let e = LocalTangentFrame.distanceMeters(tr.latitudeDegrees!, tr.longitudeDegrees!, s.latitudeDegrees!, s.longitudeDegrees!)
        let re = LocalTangentFrame.distanceMeters(tr.latitudeDegrees!, tr.longitudeDegrees!, r.latitudeDegrees!, r.longitudeDegrees!)
        text += "\(f(s.time!.secondsSince1970)) \(f(e)) \(f(re)) \(f(s.horizontalAccuracyMeters ?? .nan)) \(s.isStationary == true)\n"
    }
    let path = "/tmp/epochdump-\(name.split(separator: " ").first ?? "row").txt"
    FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    print("EPOCHDUMP \(name): \(path)")
}
