// The handheld walk (../shared/data/gnss/rtklibexplorer-walk): RTK fixes at 4 Hz as truth and a real MEMS IMU at
// ~152 Hz. Shared by SmoothingEval (`make eval`) and EstimationTests (WalkTests), so both measure the same thing:
// 1. noise: the RTK track with added phone-like error (white σ and a Gauss–Markov wander, seeded) → raw vs smoothed;
// 2. outages: GNSS blanked for a few seconds at many start times while walking; the error at the end of the blank of
//    the IMU-aided dead reckoning and of the constant-velocity prediction (the same filter without the IMU).
import Foundation
import Estimation
import LocationCore
import Simulation

public enum WalkData {
    public static let directory = "gnss/rtklibexplorer-walk"
    public static let nmea = directory + "/gnss_1730_receiver_nmea.nmea"
    public static let imuCSV = directory + "/imu_1730_gpst_unfiltered.csv"

    public struct IMUSample: Sendable {
        public var t: Timestamp; public var accel: Vector3; public var gyro: Vector3
        public init(t: Timestamp, accel: Vector3, gyro: Vector3) { self.t = t; self.accel = accel; self.gyro = gyro }
    }

    /// The walk's IMU CSV (GPST seconds, accelerometer in g, gyroscope in °/s), as SI units on UTC.
    public static func readIMU(_ path: String) -> [IMUSample] {
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

    /// The fixes with white noise and a first-order Gauss–Markov wander added per axis (seeded), and an honest
    /// claim: the 68 % radius of the total σ.
    public static func addNoise(_ fixes: [Location], whiteSigma: Double, wanderSigma: Double, wanderTau: Double,
                                seed: UInt64) -> [Location] {
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

    /// Runs the smoother over fixes and IMU samples merged by time; fixes inside `blank` (s since 1970) are withheld.
    /// Returns the smoother's outputs at the fixes' times (dead-reckoned inside the blank).
    public static func runMerged(fixes: [Location], imu: [IMUSample], blank: ClosedRange<Double>?,
                                 settings: PositionSmoother.Settings = .default, gyroscope: Bool = true) -> [Location] {
        var s = PositionSmoother(settings: settings)
        var out: [Location] = []
        var k = 0
        for f in fixes {
            guard let t = f.time else { continue }
            while k < imu.count, imu[k].t <= t {
                s.process(specificForceBody: imu[k].accel, at: imu[k].t)
                if gyroscope { s.process(angularRateBody: imu[k].gyro, at: imu[k].t) }
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

    /// Horizontal error (m) of `l` against the truth fix of the same time (to 10 ms).
    public struct Truth: Sendable {
        public let fixes: [Location]
        let byTime: [Int64: Location]
        public init(_ fixes: [Location]) {
            self.fixes = fixes
            var m: [Int64: Location] = [:]
            for t in fixes { if let ts = t.time { m[ts.nanosecondsSince1970 / 10_000_000] = t } }
            byTime = m
        }
        public func error(_ l: Location) -> Double? {
            guard let t = l.time, let tr = byTime[t.nanosecondsSince1970 / 10_000_000], let a = l.latitudeDegrees,
                  let b = l.longitudeDegrees, let c = tr.latitudeDegrees, let d = tr.longitudeDegrees else { return nil }
            return LocalTangentFrame.distanceMeters(c, d, a, b)
        }
    }

    public struct NoiseResult: Sendable {
        /// Sorted horizontal errors (m) of the noisy fixes and of the smoothed output.
        public var raw: [Double], smoothed: [Double]
        /// Share of smoothed outputs whose error is within their `horizontalAccuracyMeters` (68 % is honest).
        public var within: Double
    }

    /// The noise test: the truth with `addNoise(…)`, smoothed with or without the IMU.
    public static func noise(truth: Truth, imu: [IMUSample], whiteSigma: Double = 1.5, wanderSigma: Double = 1.5,
                             wanderTau: Double = 20, seed: UInt64 = 1) -> NoiseResult {
        let noisy = addNoise(truth.fixes, whiteSigma: whiteSigma, wanderSigma: wanderSigma, wanderTau: wanderTau, seed: seed)
        let sm = runMerged(fixes: noisy, imu: imu, blank: nil)
        var inside = 0, counted = 0
        for l in sm {
            guard let e = truth.error(l), let a = l.horizontalAccuracyMeters else { continue }
            counted += 1
            if e <= a { inside += 1 }
        }
        return NoiseResult(raw: noisy.compactMap(truth.error).sorted(), smoothed: sm.compactMap(truth.error).sorted(),
                           within: Double(inside) / Double(Swift.max(1, counted)))
    }

    /// Outages of `length` s starting every 5 s while walking (truth speed > 0.5 m/s, 15 s from either end): the
    /// error at the end of each blank, IMU-aided and constant-velocity.
    public static func outages(truth: Truth, imu: [IMUSample], length: Double)
        -> (aided: [Double], constantVelocity: [Double]) {
        let times = truth.fixes.compactMap { $0.time?.secondsSince1970 }
        guard let t0 = times.first, let t1 = times.last else { return ([], []) }
        var aided: [Double] = [], cv: [Double] = []
        var start = t0 + 15
        while start + length < t1 - 15 {
            let endTime = start + length
            if let here = truth.fixes.first(where: { ($0.time?.secondsSince1970 ?? 0) >= start }),
               (here.speedMetersPerSecond ?? 0) > 0.5 {
                let a = runMerged(fixes: truth.fixes, imu: imu, blank: start...endTime)
                let c = runMerged(fixes: truth.fixes, imu: [], blank: start...endTime)
                func endError(_ l: [Location]) -> Double? {
                    l.last(where: { ($0.time?.secondsSince1970 ?? 0) <= endTime + 1e-6 && $0.quality == .gnssDeadReckoning })
                        .flatMap(truth.error)
                }
                if let ea = endError(a), let ec = endError(c) { aided.append(ea); cv.append(ec) }
            }
            start += 5
        }
        return (aided, cv)
    }
}
