import Estimation
import Foundation
import LocationCore
import TestSupport

/// ACCSIM=1: the simulated receivers with an accelerometer (and a gyroscope unless NOGYRO) on the board
/// (`SimulatedIMU`: road vibration VIB m/s² per axis, default 0.12; an idling engine's shake IDLE, default 0), the
/// receivers' fixes without speed unless KEEPSPEED. Each row with the IMU and without, and how many epochs where the
/// truth moves ≥ 3 m/s are held. RATE: the receivers' fix rate (Hz, default 1). PARK=1 and STOPDIAG="IMU <row name>" as for the other rows.
func accSim() {
    let env = ProcessInfo.processInfo.environment
    guard env["ACCSIM"] != nil else { return }
    let vib = Double(env["VIB"] ?? "") ?? 0.12, idle = Double(env["IDLE"] ?? "") ?? 0
    let gyro = env["NOGYRO"] == nil, dropSpeed = env["KEEPSPEED"] == nil
    let seeds = Int(env["SEEDS"] ?? "") ?? 4
    let rate = Double(env["RATE"] ?? "") ?? 1
    for var r in SimulatedReceiver.catalogue {
        r.rateHz = rate
        var rows: [(fixes: [Location], truth: [Location], withIMU: [Location], without: [Location])] = []
        for seed in 1...seeds {
            let run = r.run(seed: UInt64(seed))
            let fixes = dropSpeed ? run.fixes.map(\.withoutVelocity) : run.fixes
            let imu = SimulatedIMU.samples(truth: run.truth, seed: UInt64(seed), vibration: vib, idle: idle)
            rows.append((fixes, run.truth, SimulatedIMU.smooth(fixes: fixes, imu: imu, gyroscope: gyro),
                         SmoothingEvaluation.smooth(fixes)))
        }
        let fixes = rows.flatMap(\.fixes), truth = rows.flatMap(\.truth)
        if env["PARK"] != nil { parkDebug("IMU " + r.name, rows.flatMap(\.withIMU), truth); parkDebug("noIMU " + r.name, rows.flatMap(\.without), truth) }
        stopDiag("IMU " + r.name, fixes, rows.flatMap(\.withIMU), truth)
        let a = SmoothingEvaluation.evaluate(raw: fixes, smoothed: rows.flatMap(\.withIMU), truth: truth)
        let b = SmoothingEvaluation.evaluate(raw: fixes, smoothed: rows.flatMap(\.without), truth: truth)
        let tk = keyed(truth)
        func heldMoving(_ l: [Location]) -> Int {
            l.filter { x in (tk[SmoothingEvaluation.key(x.time!)]?.speedMetersPerSecond ?? 0) >= 3 && x.isStationary == true }.count
        }
        print("ACCSIM \(r.name): IMU p50 \(f(a.smoothed.p50)) p95 \(f(a.smoothed.p95)) max \(f(a.smoothed.max)) parked \(f(a.smoothed.parkedPathPer180s)) within \(f3(a.smoothed.withinReportedAccuracy)) held moving \(heldMoving(rows.flatMap(\.withIMU))) | no IMU p50 \(f(b.smoothed.p50)) p95 \(f(b.smoothed.p95)) max \(f(b.smoothed.max)) parked \(f(b.smoothed.parkedPathPer180s)) within \(f3(b.smoothed.withinReportedAccuracy)) held moving \(heldMoving(rows.flatMap(\.without))) | raw p50 \(f(a.raw.p50)) p95 \(f(a.raw.p95))")
    }
}
