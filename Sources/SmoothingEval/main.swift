// Raw-vs-smoothed horizontal error on ../shared/data/gnss (GSDC 2021 Pixel 4 and u-blox F9K vs NovAtel SPAN).
// Usage: SmoothingEval [shared-data-dir]   (default ../shared/data from the current directory)
// BREAKDOWN=1: per real drive, errors by the truth's speed and held/free, along/across track, S(1 s) over time;
// PREC=1: three decimals; COURSEDEBUG=<drive name>: that drive's course error against its claim by the truth's speed;
// WITHINDIAG=1: each row's within-h share split by held, free while the truth stands, and moving (ParkDebug.swift).
// NOSPEED=1: every receiver without speed and course (stops from the positions alone).
// MAXDIAG=<row name>: that row's largest errors, with the raw error, whether held, and the gap before the fix.
// TRACEFILE="<raw NMEA>|<UERE m>|<time>": each fix of a recording within 8 s of that time: outcome, hold, output − raw.
import Capture
import Events
import Foundation
import Estimation
import LocationCore
import NMEA
import Pipeline
import TestSupport

func fixes(_ path: String, uereMeters: Double? = nil, date: CivilDate? = nil) throws -> [Location] {
    // The receiver's fixes as parsed: the smoother under test runs separately. SPAN RMC sentences in two reference
    // files fail their checksums, so GGA alone gives no date: borrow the drive's.
    try SessionReplay.receiverFixes(path, horizontalUEREMeters: uereMeters, today: date ?? SessionReplay.today)
}

/// Truth from GGA alone (the SPAN RMC sentences of mtv2 and f9k fail their checksums, so the pipeline has no date
/// for them): time of day on the drive's date, lat/lon, quality 0 skipped. Checksums are not checked here.
func truthFromGGA(_ path: String, date: CivilDate) throws -> [Location] {
    guard let data = FileManager.default.contents(atPath: path) else { return [] }
    let text = String(decoding: data, as: UTF8.self)
    var out: [Location] = []
    for line in text.split(whereSeparator: \.isNewline) {
        let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard f.count > 9, f[0].hasSuffix("GGA"), f[0].count == 6, let q = Int(f[6]), q > 0,
              f[1].count >= 6, let hh = Int(f[1].prefix(2)), let mm = Int(f[1].dropFirst(2).prefix(2)),
              let ss = Double(f[1].dropFirst(4)), let la = Double(f[2]), let lo = Double(f[4]) else { continue }
        var l = Location()
        let lat = (la / 100).rounded(.down) + la.truncatingRemainder(dividingBy: 100) / 60
        let lon = (lo / 100).rounded(.down) + lo.truncatingRemainder(dividingBy: 100) / 60
        l.latitudeDegrees = f[3] == "S" ? -lat : lat
        l.longitudeDegrees = f[5] == "W" ? -lon : lon
        guard let day = Timestamp(year: date.year, month: date.month, day: date.day) else { continue }
        l.time = day.adding(nanoseconds: Int64(((Double(hh * 3600 + mm * 60) + ss) * 1e9).rounded()))
        l.mode = .threeD
        if let a = Double(f[9]) { l.altitudeMSLMeters = a; l.geoidSeparationMeters = f.count > 11 ? Double(f[11]) : nil }
        out.append(l)
    }
    return out
}

let args = CommandLine.arguments
let root = args.count > 1 ? args[1] : "../shared/data"
// Pixel 4 "chipset" NMEA: HDOP field = Android accuracy / 10, so UERE 10 m restores Android's 68 % accuracy.
let cases: [(String, String, String, Double?)] = [
    ("gsdc2021-mtv1 Pixel4", "gnss/gsdc2021-mtv1/Pixel4_chipset.nmea", "gnss/gsdc2021-mtv1/SPAN_Pixel4_1Hz.nmea", 10),
    ("gsdc2021-mtv2 Pixel4", "gnss/gsdc2021-mtv2/Pixel4_chipset.nmea", "gnss/gsdc2021-mtv2/SPAN_Pixel4_10Hz.nmea", 10),
    ("google-mtv-f9k F9K", "gnss/google-mtv-f9k/MTV.Local1.ublox-F9K.20200206-181434.nmea",
     "gnss/google-mtv-f9k/MTV.Local1.SPAN.20200206-181434.gga", nil),
]
let precision = ProcessInfo.processInfo.environment["PREC"] != nil ? 1000.0 : 100.0
func f(_ x: Double) -> String {
    guard x.isFinite else { return "–" }
    let r = (x * precision).rounded() / precision
    return "\(r)"
}
func f3(_ x: Double) -> String { x.isFinite ? "\((x * 1000).rounded() / 1000)" : "–" }
print("| file | n | stopped s | p50 raw→sm | p68 raw→sm | p95 raw→sm (ratio) | max raw→sm | parked path /180 s raw→sm | worst 180 s raw→sm | parked excursion raw→sm | within h raw→sm | within speed raw→sm | within course raw→sm | median h acc raw→sm | within v raw→sm (vertical p68) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
/// SMOOTHING_CONFIG=FILE: `key = value` settings as `--smoothing-config` reads them, for trying a setting on every row.
let evalSettings: PositionSmoother.Settings = {
    guard let path = ProcessInfo.processInfo.environment["SMOOTHING_CONFIG"],
          let text = try? String(contentsOfFile: path, encoding: .utf8) else { return .default }
    var st = PositionSmoother.Settings.default
    for line in text.split(whereSeparator: \.isNewline) {
        let kv = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard kv.count == 2, !kv[0].hasPrefix("#") else { continue }
        do { try st.set(kv[0], kv[1]) } catch { print("SMOOTHING_CONFIG: \(error)"); exit(64) }
    }
    return st
}()
func row(_ name: String, raw: [Location], truth: [Location], settings st: PositionSmoother.Settings = evalSettings) {
    row(name, runs: [(raw, truth)], settings: st)
}
/// Runs smoothed separately (one smoother each), evaluated pooled.
func row(_ name: String, runs: [(fixes: [Location], truth: [Location])], settings st: PositionSmoother.Settings = evalSettings) {
    let runs = noSpeed ? runs.map { ($0.fixes.map(\.withoutVelocity), $0.truth) } : runs
    let raw = runs.flatMap(\.fixes), truth = runs.flatMap(\.truth)
    let sm = runs.flatMap { SmoothingEvaluation.smooth($0.fixes, settings: st) }
    if ProcessInfo.processInfo.environment["DEBUG"] != nil { debugStructure(raw, st) }
    let r = SmoothingEvaluation.evaluate(raw: raw, smoothed: sm, truth: truth)
    stopDiag(name, raw, sm, truth)
    p95Diag(name, raw, sm, truth)
    withinDiag(name, sm, truth)
    maxDiag(name, raw, sm, truth)
    velDiag(name, sm, truth)
    epochDump(name, raw, sm, truth)
    if ProcessInfo.processInfo.environment["PARK"] != nil {
        parkDebug(name, sm, truth)
        print("PARK \(name): settled parked path /180 s raw \(f(r.raw.settledParkedPathPer180s)) smoothed \(f(r.smoothed.settledParkedPathPer180s))")
    }
    let a = r.raw, b = r.smoothed
    print("| \(name) | \(r.matchedEpochs) | \(Int(r.stoppedSeconds)) | \(f(a.p50))→\(f(b.p50)) | \(f(a.p68))→\(f(b.p68)) | \(f(a.p95))→\(f(b.p95)) (\(f(b.p95 / a.p95))) | \(f(a.max))→\(f(b.max)) | \(f(a.parkedPathPer180s))→\(f(b.parkedPathPer180s)) | \(f(a.worstParkedPath180s))→\(f(b.worstParkedPath180s)) | \(f(a.parkedMaxExcursion))→\(f(b.parkedMaxExcursion)) | \(f(a.withinReportedAccuracy))→\(f3(b.withinReportedAccuracy)) | \(f(a.withinSpeedAccuracy))→\(f(b.withinSpeedAccuracy)) | \(f(a.withinCourseAccuracy))→\(f(b.withinCourseAccuracy)) | \(f(medianAccuracy(raw)))→\(f(medianAccuracy(sm))) | \(f(a.withinVerticalAccuracy))→\(f(b.withinVerticalAccuracy)) (\(f(a.verticalP68))) |")
}
/// NOSPEED=1: every receiver's fixes without speed and course (and their accuracies), as from a receiver that sends
/// GGA alone: stops must then be found from the positions.
let noSpeed = ProcessInfo.processInfo.environment["NOSPEED"] != nil
/// Median claimed 68 % radius (how useful the accuracy is, next to how honest).
func medianAccuracy(_ fixes: [Location]) -> Double {
    SmoothingEvaluation.percentile(fixes.compactMap(\.horizontalAccuracyMeters).sorted(), 0.5)
}
// EXTRA="name|raw.nmea|truth.nmea|uere;…" (absolute paths; uere empty for the receiver's own): drives kept outside
// the project, evaluated the same way (not part of `make eval`).
var allCases = cases.map { ($0.0, root + "/" + $0.1, root + "/" + $0.2, $0.3) }
for spec in (ProcessInfo.processInfo.environment["EXTRA"] ?? "").split(separator: ";") {
    let p = spec.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
    if p.count == 4 { allCases.append((p[0], p[1], p[2], Double(p[3]))) }
}
for (name, rawPath, truthPath, uere) in allCases {
    do {
        let raw = try fixes(rawPath, uereMeters: uere)
        let truth = try truthFromGGA(truthPath, date: raw.first!.time!.civilDate)
        row(name, raw: raw, truth: truth)
        if ProcessInfo.processInfo.environment["WORSTFILE"] == name { debugWorst(raw, truth) }
        if ProcessInfo.processInfo.environment["BREAKDOWN"] != nil { breakdown(raw, truth) }
    } catch {
        print("| \(name) | error: \(error) |")
    }
}
drHonesty()
accSim()
// Simulated receivers (Tests/TestSupport/SimulatedReceiver.swift): 30-minute stop-and-go drives, seeds 1…8, each
// smoothed on its own, evaluated pooled.
let simulatedSeeds = Int(ProcessInfo.processInfo.environment["SEEDS"] ?? "") ?? 8
// RATE=5 (Hz): the same receivers at another fix rate (the catalogue is 1 Hz).
let simulatedRate = Double(ProcessInfo.processInfo.environment["RATE"] ?? "") ?? 1
// RECEIVERS="white m|σ,τ;σ,τ|claim factor", several separated by "/": receivers of one's own in place of the
// catalogue, e.g. "1|0.3,300|1" (τ "inf": a constant offset), for a case the catalogue does not have.
var simulated = SimulatedReceiver.catalogue
if let spec = ProcessInfo.processInfo.environment["RECEIVERS"] {
    simulated = spec.split(separator: "/").compactMap { one in
        let p = one.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard p.count == 3, let w = Double(p[0]), let c = Double(p[2]) else { return nil }
        let biases = p[1].split(separator: ";").compactMap { b -> SimulatedReceiver.Bias? in
            let q = b.split(separator: ",").map(String.init)
            guard q.count == 2, let sg = Double(q[0]), let tau = Double(q[1]) else { return nil }
            return SimulatedReceiver.Bias(sigmaMeters: sg, tauSeconds: tau)
        }
        return SimulatedReceiver(name: "white \(w) m + \(p[1]), claim × \(c)", whiteSigmaMeters: w, biases: biases, claimFactor: c)
    }
}
// CREEP=1: every simulated vehicle creeps forward once in each stop (`SimulatedReceiver.creepsInStops`).
let simulatedCreep = ProcessInfo.processInfo.environment["CREEP"] != nil
// VSIGMA=0.05 (m/s): every simulated receiver's Doppler velocity noise per axis (the catalogue's is 0.1, RTK 0.02).
let simulatedVelocitySigma = Double(ProcessInfo.processInfo.environment["VSIGMA"] ?? "")
for var receiver in simulated {
    receiver.rateHz = simulatedRate
    if let v = simulatedVelocitySigma { receiver.velocitySigma = v }
    receiver.creepsInStops = simulatedCreep
    // DROP=0.1: every simulated receiver loses that share of its fixes at random.
    receiver.dropoutProbability = Double(ProcessInfo.processInfo.environment["DROP"] ?? "") ?? 0
    // SWING=0.5: every simulated receiver's error and claim swing together by ±50 % over 10 minutes (its geometry).
    receiver.geometrySwing = Double(ProcessInfo.processInfo.environment["SWING"] ?? "") ?? 0
    row("sim: \(receiver.name)", runs: (1...simulatedSeeds).map { receiver.run(seed: UInt64($0)) })
}

trace()
traceFile()
walkEvaluation(root: root)

func debugStructure(_ raw: [Location], _ st: PositionSmoother.Settings) {
    var sm = PositionSmoother(settings: st)
    var i = 0
    for r in raw {
        _ = sm.process(fix: r); i += 1
        if i % 300 == 0 || i == raw.count {
            let claim = pow((r.horizontalAccuracyMeters ?? 0) / 1.5096, 2)
            let e = sm.errorStructure.estimate(claim: claim)
            let lags = (0..<8).map { k in "\(f(sm.errorStructure.structure(lag: k) ?? .nan))/\(f(sm.errorStructure.independentSamples(lag: k)))" }
            if ProcessInfo.processInfo.environment["DEBUG"] == "2" {
                print("    mp: " + (0..<8).map { k in "\(f(sm.errorStructure.movingPositionStructure(lag: k) ?? .nan))/\(f(sm.errorStructure.movingIndependentSamples(lag: k)))" }.joined(separator: " ") + " vrest \(sm.errorStructure.restVelocityVariance ?? .nan)")
            }
            print("  [\(i)] claim \(f(claim)) white \(f(e.white ?? .nan)) total \(f(e.total)) slow \(f(e.slow)) L* \(e.longestLagSeconds) n \(f(e.evidence)) rising \(f(e.rising)) | \(lags.joined(separator: " ")) | c \(f(sm.errorStructure.velocityTimeTag)) vrest \(f(sm.errorStructure.restVelocityVariance ?? .nan)) trusted \(sm.errorStructure.trustedMovingLag().map { "\(1 << $0.lag) s \(f($0.value))" } ?? "–") moving \((0..<8).map { f(sm.errorStructure.movingStructure(lag: $0) ?? .nan) }.joined(separator: " "))")
        }
    }
}
func debugWorst(_ raw: [Location], _ truth: [Location]) {
    let sm = SmoothingEvaluation.smooth(raw)
    var tb: [Int64: Location] = [:]
    for t in truth { tb[t.time!.nanosecondsSince1970 / 10_000_000] = t }
    var rows: [(Double, Int)] = []
    for (i, s) in sm.enumerated() {
        guard let tr = tb[s.time!.nanosecondsSince1970 / 10_000_000] else { continue }
        rows.append((LocalTangentFrame.distanceMeters(tr.latitudeDegrees!, tr.longitudeDegrees!, s.latitudeDegrees!, s.longitudeDegrees!), i))
    }
    let worst = rows.max { $0.0 < $1.0 }!
    let big = rows.filter { $0.0 > 2.6 }
    print("big errors at: \(big.map { "\($0.1):\(f($0.0))" }.joined(separator: " "))")
    for i in max(0, worst.1 - 8)...min(sm.count - 1, worst.1 + 3) {
        let s = sm[i], r = raw[i], tr = tb[s.time!.nanosecondsSince1970 / 10_000_000]!
        let e = LocalTangentFrame.distanceMeters(tr.latitudeDegrees!, tr.longitudeDegrees!, s.latitudeDegrees!, s.longitudeDegrees!)
        print("   \(i) sacc \(f(s.speedAccuracyMetersPerSecond ?? .nan)) cacc \(f(s.courseAccuracyDegrees ?? .nan)) c \(f(s.courseDegrees ?? .nan)) tc \(f(tr.courseDegrees ?? .nan)) err \(f(e)) acc \(f(s.horizontalAccuracyMeters ?? .nan)) stat \(s.isStationary ?? false) sp raw \(f(r.speedMetersPerSecond ?? .nan)) sm \(f(s.speedMetersPerSecond ?? .nan)) truth \(f(tr.speedMetersPerSecond ?? .nan))")
    }
}
if ProcessInfo.processInfo.environment["WORST"] != nil {
    var worstReceiver = SimulatedReceiver.catalogue[Int(ProcessInfo.processInfo.environment["WORST"]!)!]
    worstReceiver.rateHz = simulatedRate
    let (raw, truth) = worstReceiver.run(seed: 1)
    debugWorst(raw, truth)
    let sm = SmoothingEvaluation.smooth(raw)
    var tb: [Int64: Location] = [:]
    for t in truth { tb[t.time!.nanosecondsSince1970 / 10_000_000] = t }
    var c = [0, 0, 0, 0]
    for s in sm {
        let tr = tb[s.time!.nanosecondsSince1970 / 10_000_000]!
        let e = LocalTangentFrame.distanceMeters(tr.latitudeDegrees!, tr.longitudeDegrees!, s.latitudeDegrees!, s.longitudeDegrees!)
        let k = s.isStationary == true ? 2 : 0
        c[k] += 1; if e <= s.horizontalAccuracyMeters! { c[k + 1] += 1 }
    }
    print("moving within \(c[1])/\(c[0]) stationary within \(c[3])/\(c[2])")
}
if ProcessInfo.processInfo.environment["ESTIMATEBENCH"] != nil {
    // Cost of the learned-accuracy estimate alone, on the structure MTV-1 leaves.
    let raw = try fixes(root + "/" + cases[0].1, uereMeters: 10)
    var sm = PositionSmoother()
    for r in raw { _ = sm.process(fix: r) }
    let es = sm.errorStructure
    let clock = ContinuousClock()
    var sink = 0.0
    let n = 1_000_000
    let d = clock.measure { for i in 0..<n { sink += es.estimate(claim: 6 + Double(i & 1)).total } }
    print("estimate: \(Double(d.components.attoseconds) / 1e9 / Double(n) + Double(d.components.seconds) * 1e9 / Double(n)) ns (\(sink > 0))")
}

/// Where a drive's smoothed error comes from: by the truth's speed (from its positions ±0.5 s) and whether the output
/// was held, the along/across-track error while moving, and S(1 s) over the drive ("s": stationary at that fix).
func breakdown(_ raw: [Location], _ truth: [Location]) {
    let sm = SmoothingEvaluation.smooth(raw)
    var q = PositionSmoother()
    var line = ""
    for (i, r) in raw.enumerated() {
        _ = q.process(fix: r)
        if i < 400 && i % 20 == 0 || i % 200 == 0 {
            line += " \(i):\(f3(q.errorStructure.structure(lag: 0) ?? .nan))\(q.isStationary ? "s" : "")"
        }
    }
    print("   rest velocity variance \(q.errorStructure.restVelocityVariance ?? .nan); S(1 s) by fix:\(line)")
    var tb: [Int64: Location] = [:]
    for t in truth { tb[(t.time!.nanosecondsSince1970 + 5_000_000) / 10_000_000] = t }
    func tspeed(_ t: Timestamp) -> Double? {
        let k = (t.nanosecondsSince1970 + 5_000_000) / 10_000_000
        guard let a = tb[k - 50] ?? tb[k - 100], let b = tb[k + 50] ?? tb[k + 100] else { return nil }
        let dt = b.time!.secondsSince1970 - a.time!.secondsSince1970
        return LocalTangentFrame.distanceMeters(a.latitudeDegrees!, a.longitudeDegrees!, b.latitudeDegrees!, b.longitudeDegrees!) / dt
    }
    var cls: [String: ([Double], [Double])] = [:]
    var alongR: [Double] = [], alongS: [Double] = [], crossR: [Double] = [], crossS: [Double] = []
    for (i, s) in sm.enumerated() {
        guard let t = s.time, let tr = tb[(t.nanosecondsSince1970 + 5_000_000) / 10_000_000], let v = tspeed(t) else { continue }
        let r = raw[i]
        let er = LocalTangentFrame.distanceMeters(tr.latitudeDegrees!, tr.longitudeDegrees!, r.latitudeDegrees!, r.longitudeDegrees!)
        let es = LocalTangentFrame.distanceMeters(tr.latitudeDegrees!, tr.longitudeDegrees!, s.latitudeDegrees!, s.longitudeDegrees!)
        let c = (v < 0.2 ? "A:v<0.2" : v < 1 ? "B:v<1" : v < 3 ? "C:v<3" : v < 10 ? "D:v<10" : "E:v>=10") + (s.isStationary == true ? " held" : " free")
        cls[c, default: ([], [])].0.append(er); cls[c, default: ([], [])].1.append(es)
        if v >= 1 {
            // Signed along-track error (positive: ahead of the truth), the track from the truth's displacement.
            let k = (t.nanosecondsSince1970 + 5_000_000) / 10_000_000
            if let a = tb[k - 50] ?? tb[k - 100], let b = tb[k + 50] ?? tb[k + 100] {
                let fr = LocalTangentFrame(latitudeDegrees: tr.latitudeDegrees!, longitudeDegrees: tr.longitudeDegrees!)
                let da = fr.enu(latitudeDegrees: a.latitudeDegrees!, longitudeDegrees: a.longitudeDegrees!)
                let db = fr.enu(latitudeDegrees: b.latitudeDegrees!, longitudeDegrees: b.longitudeDegrees!)
                let ue = db.east - da.east, un = db.north - da.north, nn = (ue * ue + un * un).squareRoot()
                let pr = fr.enu(latitudeDegrees: r.latitudeDegrees!, longitudeDegrees: r.longitudeDegrees!)
                let ps = fr.enu(latitudeDegrees: s.latitudeDegrees!, longitudeDegrees: s.longitudeDegrees!)
                alongR.append((pr.east * ue + pr.north * un) / nn); alongS.append((ps.east * ue + ps.north * un) / nn)
                crossR.append((pr.east * un - pr.north * ue) / nn); crossS.append((ps.east * un - ps.north * ue) / nn)
            }
        }
    }
    func ms(_ x: [Double]) -> String { let m = x.reduce(0, +) / Double(x.count); return "mean \(f(m)) sd \(f((x.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(x.count)).squareRoot()))" }
    print("   moving along raw \(ms(alongR)) sm \(ms(alongS)); cross raw \(ms(crossR)) sm \(ms(crossS)); along diff sm-raw \(ms(zip(alongS, alongR).map { $0 - $1 })) cross diff \(ms(zip(crossS, crossR).map { $0 - $1 }))")
    for k in cls.keys.sorted() {
        let (a, b) = cls[k]!
        let sa = a.sorted(), sb = b.sorted()
        print("   \(k): n \(a.count) mean \(f(a.reduce(0, +) / Double(a.count)))→\(f(b.reduce(0, +) / Double(b.count))) p50 \(f(SmoothingEvaluation.percentile(sa, 0.5)))→\(f(SmoothingEvaluation.percentile(sb, 0.5))) p95 \(f(SmoothingEvaluation.percentile(sa, 0.95)))→\(f(SmoothingEvaluation.percentile(sb, 0.95)))")
    }
}

/// COURSEDEBUG=name: a real drive's course error against its claimed accuracy by the truth's speed (the truth's
/// speed and course as the evaluation takes them).
if let name = ProcessInfo.processInfo.environment["COURSEDEBUG"], let c = cases.first(where: { $0.0 == name }) {
    let raw = try fixes(root + "/" + c.1, uereMeters: c.3)
    let truth = SmoothingEvaluation.truthWithMotion(try truthFromGGA(root + "/" + c.2, date: raw.first!.time!.civilDate))
    var tb: [Int64: Location] = [:]
    for t in truth { tb[(t.time!.nanosecondsSince1970 + 5_000_000) / 10_000_000] = t }
    var bands: [Int: [(Double, Double)]] = [:]
    for s in SmoothingEvaluation.smooth(raw) {
        guard let tr = tb[(s.time!.nanosecondsSince1970 + 5_000_000) / 10_000_000], let v = tr.speedMetersPerSecond, v >= 2,
              let tc = tr.courseDegrees, let cd = s.courseDegrees, let a = s.courseAccuracyDegrees else { continue }
        let band = v < 5 ? 0 : v < 10 ? 1 : v < 20 ? 2 : 3
        bands[band, default: []].append((abs(Angle.normalizedDegrees(cd - tc + 180) - 180), a))
    }
    for b in bands.keys.sorted() {
        let x = bands[b]!
        let e = x.map(\.0).sorted(), a = x.map(\.1).sorted()
        let w = Double(x.filter { $0.0 <= $0.1 }.count) / Double(x.count)
        print("band \(b): n \(x.count) err p50 \(f(e[e.count / 2])) p68 \(f(e[e.count * 68 / 100])) claim p50 \(f(a[a.count / 2])) within \(f(w))")
    }
}
// SPLIT=k (RATE=…): catalogue receiver k, seed 1: the learned split every 600 s (EVERY=seconds) with the stationary
// structure's longest lag and the moving structure's trusted lag, and the within-share while moving and while stationary.
if let k = ProcessInfo.processInfo.environment["SPLIT"].flatMap(Int.init) {
    var rc = SimulatedReceiver.catalogue[k]
    rc.rateHz = simulatedRate
    let (raw, truth) = rc.run(seed: 1)
    var tb: [Int64: Location] = [:]
    for t in truth { tb[t.time!.nanosecondsSince1970 / 10_000_000] = t }
    var sm = PositionSmoother(settings: .default)
    var rows: [(stat: Bool, err: Double, acc: Double)] = []
    var fast: [(raw: Double, sm: Double)] = [], stopped: [(raw: Double, sm: Double)] = [], slow: [(raw: Double, sm: Double)] = []
    for (i, r) in raw.enumerated() {
        let s = sm.process(fix: r)
        guard let tr = tb[s.time!.nanosecondsSince1970 / 10_000_000] else { continue }
        let e = LocalTangentFrame.distanceMeters(tr.latitudeDegrees!, tr.longitudeDegrees!, s.latitudeDegrees!, s.longitudeDegrees!)
        if (tr.speedMetersPerSecond ?? 0) == 0 {
            stopped.append((LocalTangentFrame.distanceMeters(tr.latitudeDegrees!, tr.longitudeDegrees!, r.latitudeDegrees!, r.longitudeDegrees!), e))
        } else if (tr.speedMetersPerSecond ?? 0) < 2 {
            slow.append((LocalTangentFrame.distanceMeters(tr.latitudeDegrees!, tr.longitudeDegrees!, r.latitudeDegrees!, r.longitudeDegrees!), e))
        }
        if (tr.speedMetersPerSecond ?? 0) >= 2 {
            fast.append((LocalTangentFrame.distanceMeters(tr.latitudeDegrees!, tr.longitudeDegrees!, r.latitudeDegrees!, r.longitudeDegrees!), e))
        }
        rows.append((s.isStationary ?? false, e, s.horizontalAccuracyMeters!))
        if i % Int((Double(ProcessInfo.processInfo.environment["EVERY"] ?? "") ?? 600) * simulatedRate) == 0 {
            let claim = pow((r.horizontalAccuracyMeters ?? 0) / 1.5096, 2)
            let est = sm.errorStructure.estimate(claim: claim)
            let lg = sm.errorStructure.lags
            var top = -1
            for k in 2..<8 where lg.independentSamples(lag: k) >= 2 { top = k }
            if top >= 2 {
                print("   top \(1 << top) s N \(f(lg.independentSamples(lag: top))) S \(f(lg.structure(lag: top)!)) quarter \(f(lg.structure(lag: top - 2) ?? .nan)) S1 \(f(lg.structure(lag: 0) ?? .nan)) moving \(sm.errorStructure.trustedMovingLag().map { "lag \(1 << $0.lag) v \(f($0.value)) q \(f($0.quarter)) w \(f($0.white)) N \(f(lg.movingIndependentSamples(lag: $0.lag)))" } ?? "-")")
            }
            print("[\(i)] claim \(claim) plain \(sm.errorStructure.lags.white ?? .nan) mp1 \(sm.errorStructure.movingPositionStructure(lag: 0) ?? .nan) pw \(sm.errorStructure.lags.positionWhite ?? .nan) w \(sm.adaptiveScale) c \(f(sm.errorStructure.velocityTimeTag)) white \(f(est.white ?? .nan)) total \(f(est.total)) slow \(f(est.slow)) acc \(f(s.horizontalAccuracyMeters!)) err \(f(e)) stat \(s.isStationary ?? false)")
        }
    }
    let pc = SmoothingEvaluation.percentile
    for (label, set) in [("truth stopped", stopped), ("truth 0–2 m/s", slow)] {
        print("\(label): n \(set.count) raw p50/p95 \(f(pc(set.map(\.raw).sorted(), 0.5)))/\(f(pc(set.map(\.raw).sorted(), 0.95))) smoothed \(f(pc(set.map(\.sm).sorted(), 0.5)))/\(f(pc(set.map(\.sm).sorted(), 0.95)))")
    }
    print("truth ≥ 2 m/s: n \(fast.count) raw p50/p95 \(f(pc(fast.map(\.raw).sorted(), 0.5)))/\(f(pc(fast.map(\.raw).sorted(), 0.95))) smoothed \(f(pc(fast.map(\.sm).sorted(), 0.5)))/\(f(pc(fast.map(\.sm).sorted(), 0.95)))")
    for st in [false, true] {
        let sel = rows.filter { $0.stat == st }
        let w = Double(sel.filter { $0.err <= $0.acc }.count) / Double(max(1, sel.count))
        print("stationary \(st): n \(sel.count) within \(f(w)) p50 err \(f(SmoothingEvaluation.percentile(sel.map(\.err).sorted(), 0.5))) p50 acc \(f(SmoothingEvaluation.percentile(sel.map(\.acc).sorted(), 0.5)))")
    }
}
// S1=1: the white 2 m receiver's S(1 s) from its true errors against the smoother's, and the fixes the gate rejected.
if ProcessInfo.processInfo.environment["S1"] != nil {
    for seed in 1...4 {
        let (raw, truth) = SimulatedReceiver.catalogue[0].run(seed: UInt64(seed))
        let all = SimulatedReceiver.trueIncrementVariance(fixes: raw, truth: truth)
        let stopped = SimulatedReceiver.trueIncrementVariance(fixes: raw, truth: truth) { ($0.speedMetersPerSecond ?? 1) == 0 }
        var sm = PositionSmoother(settings: .default)
        var rej = 0, stat = 0
        for r in raw { _ = sm.process(fix: r); if sm.lastOutcome == .rejected || sm.lastOutcome == .reinitialised { rej += 1 }; if sm.lastOutcome == .held { stat += 1 } }
        print("rejected \(rej) held \(stat) scale \(sm.adaptiveScale)")
        print("seed \(seed): true S(1 s) \(f(all)) stationary \(f(stopped)); smoother's plain \(f(sm.errorStructure.lags.white ?? .nan)) stationary-lag-1 \(f(sm.errorStructure.structure(lag: 0) ?? .nan))")
    }
}
