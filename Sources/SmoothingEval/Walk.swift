// The handheld walk (rtklibexplorer-walk): RTK fixes at 4 Hz as truth, a real MEMS IMU at ~152 Hz.
// 1. Noise test: the RTK track with added phone-like error (white σ and a Gauss–Markov wander, seeded) → raw vs smoothed.
// 2. Outage test: blank GNSS for 5/10/20 s at many start times while walking; the error at the end of the blank of
//    (a) the IMU-aided dead reckoning and (b) the constant-velocity prediction (same filter, no IMU).
import Foundation
import Estimation
import LocationCore
import TestSupport

struct IMUSample { var t: Timestamp; var accel: Vector3; var gyro: Vector3 }

func readWalkIMU(_ path: String) -> [IMUSample] {
    guard let data = FileManager.default.contents(atPath: path) else { return [] }
    var out: [IMUSample] = []
    let g = 9.806_65, d2r = Double.pi / 180
    for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).dropFirst() {
        let f = line.split(separator: ",").compactMap { Double($0) }
        guard f.count == 7 else { continue }
        // GPST (no leap seconds) → UTC: 18 s in 2025.
        out.append(IMUSample(t: Timestamp(secondsSince1970: f[0] - 18),
                             accel: Vector3(x: f[1] * g, y: f[2] * g, z: f[3] * g),
                             gyro: Vector3(x: f[4] * d2r, y: f[5] * d2r, z: f[6] * d2r)))
    }
    return out
}

func addNoise(_ fixes: [Location], whiteSigma: Double, wanderSigma: Double, wanderTau: Double, seed: UInt64) -> [Location] {
    var rng = SplitMix64(state: seed)
    var be = 0.0, bn = 0.0
    var last: Timestamp?
    return fixes.map { f in
        var o = f
        guard let lat = f.latitudeDegrees, let lon = f.longitudeDegrees, let t = f.time else { return o }
        let dt = last.map { Double(t.nanosecondsSince1970 - $0.nanosecondsSince1970) / 1e9 } ?? 1
        last = t
        let phi = exp(-dt / wanderTau), k = wanderSigma * (1 - phi * phi).squareRoot()
        be = phi * be + k * rng.gaussian(); bn = phi * bn + k * rng.gaussian()
        let fr = LocalTangentFrame(latitudeDegrees: lat, longitudeDegrees: lon)
        let g = fr.geodetic(east: be + whiteSigma * rng.gaussian(), north: bn + whiteSigma * rng.gaussian())
        o.latitudeDegrees = g.latitudeDegrees; o.longitudeDegrees = g.longitudeDegrees
        let sigma = (whiteSigma * whiteSigma + wanderSigma * wanderSigma).squareRoot()
        o.horizontalAccuracyMeters = HorizontalError.radius68PerSigma * sigma
        o.latitudeErrorMeters = nil; o.longitudeErrorMeters = nil
        o.hdop = nil
        return o
    }
}

/// Runs the smoother over fixes and IMU samples merged by time; fixes inside `blank` are withheld. Returns the
/// smoother's outputs at the fixes' times (dead-reckoned inside the blank).
func runMerged(fixes: [Location], imu: [IMUSample], blank: ClosedRange<Double>?, settings: PositionSmoother.Settings = .default)
    -> [Location] {
    var s = PositionSmoother(settings: settings)
    var out: [Location] = []
    var k = 0
    for f in fixes {
        guard let t = f.time else { continue }
        while k < imu.count, imu[k].t <= t {
            s.process(specificForceBody: imu[k].accel, at: imu[k].t)
            s.process(angularRateBody: imu[k].gyro, at: imu[k].t)
            k += 1
        }
        if let b = blank, b.contains(t.secondsSince1970) {
            if let p = s.deadReckon(to: t) { out.append(p) }
        } else {
            out.append(s.process(fix: f))
        }
    }
    return out
}

func walkEvaluation(root: String) {
    let dir = root + "/gnss/rtklibexplorer-walk"
    guard let truth = try? fixes(dir + "/gnss_1730_receiver_nmea.nmea"), !truth.isEmpty else {
        print("walk: \(dir) not readable — skipped"); return
    }
    let imu = readWalkIMU(dir + "/imu_1730_gpst_unfiltered.csv")
    var truthByTime: [Int64: Location] = [:]
    for t in truth { if let ts = t.time { truthByTime[ts.nanosecondsSince1970 / 10_000_000] = t } }
    func error(_ l: Location) -> Double? {
        guard let t = l.time, let tr = truthByTime[t.nanosecondsSince1970 / 10_000_000], let a = l.latitudeDegrees,
              let b = l.longitudeDegrees, let c = tr.latitudeDegrees, let d = tr.longitudeDegrees else { return nil }
        return LocalTangentFrame.distanceMeters(c, d, a, b)
    }
    print("")
    print("Walk (rtklibexplorer, \(truth.count) RTK fixes at 4 Hz, \(imu.count) IMU samples):")
    // 1. Noise test.
    let noisy = addNoise(truth, whiteSigma: 1.5, wanderSigma: 1.5, wanderTau: 20, seed: 1)
    let rawErrors = noisy.compactMap(error).sorted()
    for (label, useIMU) in [("smoothed, no IMU", false), ("smoothed + IMU", true)] {
        let sm = runMerged(fixes: noisy, imu: useIMU ? imu : [], blank: nil)
        let e = sm.compactMap(error).sorted()
        let within = zip(sm, sm.map(error)).filter { $0.1 != nil && $0.0.horizontalAccuracyMeters != nil }
        let honest = Double(within.filter { $0.1! <= $0.0.horizontalAccuracyMeters! }.count) / Double(max(1, within.count))
        print("  noise σ 1.5 m white + 1.5 m wander (τ 20 s): p50 \(f(SmoothingEvaluation.percentile(rawErrors, 0.5)))→\(f(SmoothingEvaluation.percentile(e, 0.5))), p95 \(f(SmoothingEvaluation.percentile(rawErrors, 0.95)))→\(f(SmoothingEvaluation.percentile(e, 0.95))) (ratio \(f(SmoothingEvaluation.percentile(e, 0.95) / SmoothingEvaluation.percentile(rawErrors, 0.95)))), max \(f(rawErrors.last ?? .nan))→\(f(e.last ?? .nan)), within accuracy \(f(honest))  [\(label)]")
    }
    // 2. Outages on the clean RTK track, starting every 5 s while walking (truth speed > 0.5 m/s).
    let times = truth.compactMap { $0.time?.secondsSince1970 }
    guard let t0 = times.first, let t1 = times.last else { return }
    for length in [5.0, 10.0, 20.0] {
        var aided: [Double] = [], cv: [Double] = []
        var start = t0 + 15
        while start + length < t1 - 15 {
            let endTime = start + length
            // Only blanks that begin while walking.
            if let here = truth.first(where: { ($0.time?.secondsSince1970 ?? 0) >= start }), (here.speedMetersPerSecond ?? 0) > 0.5 {
                let a = runMerged(fixes: truth, imu: imu, blank: start...endTime)
                let c = runMerged(fixes: truth, imu: [], blank: start...endTime)
                func endError(_ l: [Location]) -> Double? {
                    l.last(where: { ($0.time?.secondsSince1970 ?? 0) <= endTime + 1e-6 && $0.quality == .gnssDeadReckoning }).flatMap(error)
                }
                if let ea = endError(a), let ec = endError(c) { aided.append(ea); cv.append(ec) }
            }
            start += 5
        }
        let ma = aided.reduce(0, +) / Double(max(1, aided.count)), mc = cv.reduce(0, +) / Double(max(1, cv.count))
        print("  outage \(Int(length)) s (\(aided.count) blanks): error at the end, IMU-aided mean \(f(ma)) m (p50 \(f(SmoothingEvaluation.percentile(aided.sorted(), 0.5)))) vs constant-velocity mean \(f(mc)) m (p50 \(f(SmoothingEvaluation.percentile(cv.sorted(), 0.5)))) → ratio \(f(ma / mc))")
    }
}
