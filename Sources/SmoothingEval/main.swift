// Raw-vs-smoothed horizontal error on ../shared/data/gnss (GSDC 2021 Pixel 4 and u-blox F9K vs NovAtel SPAN).
// Usage: SmoothingEval [shared-data-dir]   (default ../shared/data from the current directory)
import Capture
import Foundation
import Estimation
import LocationCore
import NMEA
import Pipeline

func fixes(_ path: String, uereMeters: Double? = nil, date: CivilDate? = nil) throws -> [Location] {
    var settings = Pipeline.Settings()
    settings.emitSky = false
    settings.heading = nil
    settings.smoothing = nil   // the receiver's fixes as parsed: the smoother under test runs separately
    // SPAN RMC sentences in two reference files fail their checksums, so GGA alone gives no date: borrow the drive's.
    settings.referenceDate = date
    if let u = uereMeters { settings.epoch.horizontalUEREMeters = u }
    let p = Pipeline(settings: settings, encoder: LodestarJSONEncoder(), sinks: [])
    var out: [Location] = []
    p.observer = { e in if case .fix(let l) = e, l.latitudeDegrees != nil, l.time != nil { out.append(l) } }
    let reader = try CaptureDetector.open(path: path, format: nil)
    while let e = try reader.next() { p.process(e) }
    p.finish()
    return out
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
func f(_ x: Double) -> String {
    guard x.isFinite else { return "–" }
    let r = (x * 100).rounded() / 100
    return "\(r)"
}
print("| file | n | stopped s | p50 raw→sm | p68 raw→sm | p95 raw→sm (ratio) | max raw→sm | parked path /180 s raw→sm | worst 180 s raw→sm | parked excursion raw→sm | within acc raw→sm |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for (name, rawPath, truthPath, uere) in cases {
    do {
        let raw = try fixes(root + "/" + rawPath, uereMeters: uere)
        let truth = try truthFromGGA(root + "/" + truthPath, date: raw.first!.time!.civilDate)
        // VAR=key=value,… adds a row with changed settings (a tuning aid); otherwise only the defaults run.
        let variant = ProcessInfo.processInfo.environment["VAR"]
        for label in variant == nil ? ["default"] : ["default", "variant"] {
        var st = PositionSmoother.Settings.default
        if label == "variant" {
            for kv in (variant ?? "").split(separator: ",") {
                let p = kv.split(separator: "="); guard p.count == 2, let v = Double(p[1]) else { continue }
                switch p[0] {
                case "holdFactor": st.holdDeadbandRadiusFactor = v
                case "holdMin": st.holdMinimumDeadbandMeters = v
                case "adaptive": st.adaptiveMeasurementNoise = v != 0
                case "minScale": st.adaptiveScaleMinimum = v
                case "f": st.correlatedErrorFraction = v
                case "tau": st.correlatedErrorTimeConstantSeconds = v
                case "q": st.accelerationNoiseDensity = v
                case "w": st.adaptiveWeight = v
                case "share": st.reportedAccuracyShare = v
                case "exit": st.stationaryExitSpeedMetersPerSecond = v
                case "enter": st.stationaryEnterSpeedMetersPerSecond = v
                default: print("unknown \(p[0])")
                }
            }
        }
        let sm = SmoothingEvaluation.smooth(raw, settings: st)
        let r = SmoothingEvaluation.evaluate(raw: raw, smoothed: sm, truth: truth)
        let a = r.raw, b = r.smoothed
        print("| \(name) \(label) | \(r.matchedEpochs) | \(Int(r.stoppedSeconds)) | \(f(a.p50))→\(f(b.p50)) | \(f(a.p68))→\(f(b.p68)) | \(f(a.p95))→\(f(b.p95)) (\(f(b.p95 / a.p95))) | \(f(a.max))→\(f(b.max)) | \(f(a.parkedPathPer180s))→\(f(b.parkedPathPer180s)) | \(f(a.worstParkedPath180s))→\(f(b.worstParkedPath180s)) | \(f(a.parkedMaxExcursion))→\(f(b.parkedMaxExcursion)) | \(f(a.withinReportedAccuracy))→\(f(b.withinReportedAccuracy)) |")
        }
    } catch {
        print("| \(name) | error: \(error) |")
    }
}

walkEvaluation(root: root)
