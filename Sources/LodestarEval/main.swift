// Heading evaluation for `make eval`: the HeadingEstimator over the real recordings in ../shared/data/mag.
//
// Usage: LodestarEval [--data DIR] [--set NAME=VALUE]... [--estimator-only]
//                                                             evaluation table (with and without gyroscope), through
//                                                             the session pipeline (background calibration included)
//                                                             unless --estimator-only
//        LodestarEval bench [--data DIR]                       per-sample cost (build with -c release)
//        LodestarEval trace TRIAL [--no-gyro] [--set ...]      per-row CSV (t, truth, heading, accuracy, flagged)
//
// Recordings: BROAD trials 02, 05, 30 (Laidig et al., Data 6(7) 2021, CC-BY-4.0; optical motion-capture truth)
// and x-io Fusion's sample (MIT; no truth, a stationary magnetic disturbance at t = 99–116 s).
#if canImport(Glibc)
import Glibc
#endif
import Capture
import LocationCore
import LodestarIO
import Magnetics

var arguments = Array(CommandLine.arguments.dropFirst())
var dataDirectory = "../shared/data/mag"
var settings = HeadingEstimator.Settings.default
settings.headingFilterDegrees = 0
var command = "eval"
var traceTrial: String?
var traceGyroscope = true
var path = Evaluation.Path.pipeline

let tunables: [String: WritableKeyPath<HeadingEstimator.Settings, Double>] = [
    "accelerometerGain": \.accelerometerGain,
    "magnetometerGain": \.magnetometerGain,
    "convergenceGain": \.convergenceGain,
    "accelerationRejectionDegrees": \.accelerationRejectionDegrees,
    "magneticHeadingErrorDegrees": \.magneticHeadingErrorDegrees,
    "gyroscopeBiasBoundDegreesPerSecond": \.gyroscopeBiasBoundDegreesPerSecond,
    "uncalibratedGyroscopeBiasBoundDegreesPerSecond": \.uncalibratedGyroscopeBiasBoundDegreesPerSecond,
    "gyroscopeScaleErrorBound": \.gyroscopeScaleErrorBound,
    "tiltErrorDegrees": \.tiltErrorDegrees,
    "inconsistencyAccuracyShare": \.inconsistencyAccuracyShare,
    "maximumAccuracyDegrees": \.maximumAccuracyDegrees,
    "vectorTimeConstantSeconds": \.vectorTimeConstantSeconds,
    "linearAccelerationAccuracyDegrees": \.linearAccelerationAccuracyDegrees,
    "rotationLagAccuracySeconds": \.rotationLagAccuracySeconds,
    "magnitudeToleranceFraction": \.magnitudeToleranceFraction,
    "inclinationToleranceDegrees": \.inclinationToleranceDegrees,
    "headingConsistencyToleranceDegrees": \.headingConsistencyToleranceDegrees,
    "deviationTimeConstantSeconds": \.deviationTimeConstantSeconds,
    "headingConsistencyTimeConstantSeconds": \.headingConsistencyTimeConstantSeconds,
    "recoveryHoldSeconds": \.recoveryHoldSeconds,
    "recoveryDriftShare": \.recoveryDriftShare,
    "stationaryRecoverySeconds": \.stationaryRecoverySeconds,
    "suspicionTimeConstantSeconds": \.suspicionTimeConstantSeconds,
    "calibrationNeededAfterSeconds": \.calibrationNeededAfterSeconds,
    "hardIronRotationDegrees": \.hardIronRotationDegrees,
]

/// One line to standard error.
func printError(_ message: String) { Syscall.writeMessage(message + "\n") }

func fail(_ message: String) -> Never {
    printError("LodestarEval: \(message)")
    exit(64)
}

var index = 0
while index < arguments.count {
    let a = arguments[index]
    switch a {
    case "--data":
        index += 1
        guard index < arguments.count else { fail("--data needs a directory") }
        dataDirectory = arguments[index]
    case "--set":
        index += 1
        guard index < arguments.count else { fail("--set needs NAME=VALUE") }
        let parts = arguments[index].split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let key = tunables[parts[0]], let v = Double(parts[1]) else {
            fail("--set \(arguments[index]): known names are \(tunables.keys.sorted().joined(separator: ", "))")
        }
        settings[keyPath: key] = v
    case "--no-gyro":
        traceGyroscope = false
    case "--estimator-only":
        path = .estimator
    case "bench", "eval":
        command = a
    case "trace":
        command = a
        index += 1
        guard index < arguments.count else { fail("trace needs a trial (02, 05, 30, fusion)") }
        traceTrial = arguments[index]
    default:
        fail("unknown argument \(a)")
    }
    index += 1
}

let trials: [(key: String, file: String, disturbance: (Double, Double)?)] = [
    ("02", "broad_02_undisturbed_slow_rotation_B_dec4.csv", nil),
    ("05", "broad_05_undisturbed_slow_rotation_with_breaks_B_dec4.csv", nil),
    ("30", "broad_30_disturbed_stationary_magnet_C_dec4.csv", nil),
    ("fusion", "fusion_sensor_data.csv", (99, 116)),
]

@MainActor func load(_ key: String, _ file: String) -> Recording {
    do {
        return try Recording(name: key, path: dataDirectory + "/" + file)
    } catch {
        fail("\(dataDirectory)/\(file): \(error) (run from the package root, or pass --data)")
    }
}

func format(_ v: Double, _ digits: Int = 2) -> String {
    guard v.isFinite else { return "–" }
    var p = 1.0
    for _ in 0..<digits { p *= 10 }
    let r = (v * p).rounded() / p
    var s = "\(r)"
    if let dot = s.firstIndex(of: ".") {
        let decimals = s.distance(from: dot, to: s.endIndex) - 1
        if decimals < digits { s += String(repeating: "0", count: digits - decimals) }
    } else if digits > 0 {
        s += "." + String(repeating: "0", count: digits)
    }
    return s
}

func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }

switch command {
case "bench":
    Bench.run(load("02", trials[0].file))
case "trace":
    guard let key = traceTrial, let t = trials.first(where: { $0.key == key }) else { fail("unknown trial") }
    let rec = load(t.key, t.file)
    let (rows, calibration, _) = Evaluation.run(rec, settings: settings, gyroscope: traceGyroscope, path: path)
    print("t,truth_heading,elevation,heading,accuracy,flagged,checks,inconsistency,dF,dI,roll,pitch")
    for i in rec.times.indices {
        var truthHeading = Double.nan, elevation = Double.nan
        if let q = rec.truth[i] {
            let axis = truthAxis(q)
            truthHeading = atan2(axis.x, axis.y) * Evaluation.degrees
            elevation = asin(max(-1, min(1, axis.z))) * Evaluation.degrees
        }
        let r = rows[i]
        print("\(rec.times[i]),\(truthHeading),\(elevation),\(r.heading ?? .nan),\(r.accuracy ?? .nan),\(r.flagged ? 1 : 0),"
              + "\(r.checks),\(r.inconsistency),\(r.fieldDeviation),\(r.inclinationDeviation),\(r.roll),\(r.pitch)")
    }
    for c in calibration { printError("calibrationNeeded \(c.1) at \(c.0) s (\(c.2))") }
default:
    print("Heading of the board's x axis vs motion-capture truth (BROAD; rows with that axis within 45° of horizontal,")
    print("one constant offset removed per trial). RMSE over rows reported valid; honesty = share of valid rows whose")
    print("error is within headingAccuracy; flag = seconds from a disturbance's onset to the first flagged report.")
    print(path == .pipeline
          ? "Computed through the session pipeline (lodestar run's stages: background calibration on; adopted = calibrations it adopted)."
          : "Computed by the HeadingEstimator alone (--estimator-only: no background calibration).")
    print("")
    print("| trial  | sensors   | RMSE valid ° | RMSE all ° | p95 ° | valid % | honesty % | median acc ° | disturbances: flag s (clear s) | calibrationNeeded |")
    print("|--------|-----------|-------------:|-----------:|------:|--------:|----------:|-------------:|--------------------------------|-------------------|")
    for t in trials {
        let rec = load(t.key, t.file)
        for gyro in [true, false] {
            let r = Evaluation.evaluate(rec, settings: settings, gyroscope: gyro, knownDisturbance: t.disturbance, path: path)
            let flags = r.disturbances.map { d -> String in
                let f = d.flagDelay.map { format($0, 2) } ?? "never"
                let c = d.clearDelay.map { format($0, 1) } ?? "–"
                return "\(format(d.onset, 1))s: \(f) (\(c))"
            }.joined(separator: "; ")
            var cal = r.calibrationEvents.map { "\($0.needed ? "↑" : "↓")\(format($0.time, 1))" }.joined(separator: " ")
            if r.calibrationsAdopted > 0 { cal += (cal.isEmpty ? "" : " ") + "adopted \(r.calibrationsAdopted)" }
            let sensors = gyro ? "acc+gyr+mag" : "acc+mag"
            if r.hasTruth {
                let validShare = r.scored > 0 ? 100 * Double(r.valid) / Double(r.scored) : .nan
                print("| \(t.key.padding(6)) | \(sensors.padding(9)) | \(pad(format(r.rmseValid), 12)) | \(pad(format(r.rmseAll), 10)) | "
                      + "\(pad(format(r.p95Error, 1), 5)) | \(pad(format(validShare, 1), 7)) | \(pad(format(100 * r.honesty, 1), 9)) | "
                      + "\(pad(format(r.medianAccuracy), 12)) | \(flags.isEmpty ? "–" : flags) | \(cal.isEmpty ? "–" : cal) |")
            } else {
                print("| \(t.key.padding(6)) | \(sensors.padding(9)) | (no truth: max heading change while still, 99–118 s: "
                      + "\(format(r.stationaryMaxChange)) °; valid \(format(100 * r.stationaryValid, 1)) %; honesty "
                      + "\(format(100 * r.stationaryHonesty, 1)) %) | \(flags) | \(cal.isEmpty ? "–" : cal) |")
            }
        }
    }
}

extension String {
    func padding(_ n: Int) -> String { count >= n ? self : self + String(repeating: " ", count: n - count) }
}
