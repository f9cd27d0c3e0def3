// The handheld walk (rtklibexplorer-walk): RTK fixes at 4 Hz as truth, a real MEMS IMU at ~152 Hz. The measurement
// itself is `WalkData` (Tests/TestSupport), shared with EstimationTests' WalkTests.
import Foundation
import Estimation
import LocationCore
import TestSupport

func walkEvaluation(root: String) {
    let dir = root + "/" + WalkData.directory
    guard let truthFixes = try? fixes(root + "/" + WalkData.nmea), !truthFixes.isEmpty else {
        print("walk: \(dir) not readable — skipped"); return
    }
    let truth = WalkData.Truth(truthFixes)
    let imu = WalkData.readIMU(root + "/" + WalkData.imuCSV)
    let p = SmoothingEvaluation.percentile
    print("")
    print("Walk (rtklibexplorer, \(truthFixes.count) RTK fixes at 4 Hz, \(imu.count) IMU samples):")
    // 1. Noise test.
    for (label, useIMU) in [("smoothed, no IMU", false), ("smoothed + IMU", true)] {
        let r = WalkData.noise(truth: truth, imu: useIMU ? imu : [])
        print("  noise σ 1.5 m white + 1.5 m wander (τ 20 s): p50 \(f(p(r.raw, 0.5)))→\(f(p(r.smoothed, 0.5))), p95 \(f(p(r.raw, 0.95)))→\(f(p(r.smoothed, 0.95))) (ratio \(f(p(r.smoothed, 0.95) / p(r.raw, 0.95)))), max \(f(r.raw.last ?? .nan))→\(f(r.smoothed.last ?? .nan)), within accuracy \(f(r.within))  [\(label)]")
    }
    // 2. Outages on the clean RTK track, starting every 5 s while walking.
    for length in [5.0, 10.0, 20.0] {
        let (aided, cv) = WalkData.outages(truth: truth, imu: imu, length: length)
        let ma = aided.reduce(0, +) / Double(max(1, aided.count)), mc = cv.reduce(0, +) / Double(max(1, cv.count))
        print("  outage \(Int(length)) s (\(aided.count) blanks): error at the end, IMU-aided mean \(f(ma)) m (p50 \(f(p(aided.sorted(), 0.5)))) vs constant-velocity mean \(f(mc)) m (p50 \(f(p(cv.sorted(), 0.5)))) → ratio \(f(ma / mc))")
    }
}
