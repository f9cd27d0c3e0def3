import Events
import Foundation
import LocationCore
import Magnetics
import Pipeline
@testable import Capture
@testable import Simulation

/// Runs `VehicleHeadingEstimator` over a simulated drive and scores it against the simulator's truth.
struct VehicleHeadingRun {
    struct Sample { var seconds: Double; var report: HeadingReport; var truth: Double; var interference: Bool; var status: VehicleHeadingEstimator.Status }
    var samples: [Sample] = []
    var settings: RouteSimulator.Settings
    var estimator: VehicleHeadingEstimator

    /// Writes the capture to a temporary file, reads it back and feeds the estimator: fixes from the pipeline's
    /// NMEA stage (no smoothing, its own heading off), motion samples directly.
    static func run(_ sim: RouteSimulator.Settings, estimator: VehicleHeadingEstimator = VehicleHeadingEstimator(),
                    headingFilterDegrees: Double = 0) throws -> VehicleHeadingRun {
        try withSimulatedCapture(sim) { reader in try run(reader, sim, estimator: estimator, headingFilterDegrees: headingFilterDegrees) }
    }

    /// The simulator's capture written to a temporary file and read back (removed afterwards).
    static func withSimulatedCapture<T>(_ sim: RouteSimulator.Settings, _ body: (LodestarCaptureReader) throws -> T) throws -> T {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("lodestar-vehicle-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("sim.lcap").path
        let writer = try CaptureWriter(path: path)
        _ = try RouteSimulator(settings: sim).write(to: writer)
        try writer.close()
        return try body(try LodestarCaptureReader(path: path))
    }

    static func run(_ reader: LodestarCaptureReader, _ sim: RouteSimulator.Settings, estimator: VehicleHeadingEstimator,
                    headingFilterDegrees: Double) throws -> VehicleHeadingRun {
        var ps = Pipeline.Settings()
        ps.heading.heading = nil
        ps.smoothing.smoothing = nil
        ps.nmea.emitSky = false
        let pipeline = Pipeline(settings: ps, encoder: LodestarJSONEncoder(), sinks: [])
        var fixes: [Location] = []
        pipeline.observer = { if case .fix(let l) = $0 { fixes.append(l) } }
        var est = estimator
        est.setOutput(headingFilterDegrees: headingFilterDegrees)
        let truth = SimulatedTruth(settings: sim)
        var run = VehicleHeadingRun(settings: sim, estimator: est)
        while let e = try reader.next() {
            guard let t = e.monotonicNanos else { continue }
            switch e.payload {
            case .nmea:
                pipeline.process(e)
                for f in fixes {
                    // Without a magnetometer the receiver's heading is delivered with the fix.
                    if let r = est.update(fix: f, monotonicNanos: t).report {
                        let s = SimulatedTruth.seconds(monotonicNanos: t)
                        run.samples.append(Sample(seconds: s, report: r, truth: truth.headingDegrees(atSeconds: s),
                                                  interference: truth.interference(atSeconds: s), status: est.status))
                    }
                }
                fixes.removeAll()
            case .motion(let m):
                if let r = est.process(m, monotonicNanos: t).report {
                    let s = SimulatedTruth.seconds(monotonicNanos: t)
                    run.samples.append(Sample(seconds: s, report: r, truth: truth.headingDegrees(atSeconds: s),
                                              interference: truth.interference(atSeconds: s), status: est.status))
                }
            default: break
            }
        }
        run.estimator = est
        return run
    }

    struct Score: CustomStringConvertible {
        var count = 0, valid = 0, honest = 0
        var sumSquares = 0.0, maxError = 0.0
        var accuracies: [Double] = []
        var medianAccuracy: Double { accuracies.isEmpty ? .nan : accuracies.sorted()[accuracies.count / 2] }
        var validShare: Double { count > 0 ? Double(valid) / Double(count) : 0 }
        var honestShare: Double { valid > 0 ? Double(honest) / Double(valid) : 1 }
        var rmse: Double { valid > 0 ? (sumSquares / Double(valid)).squareRoot() : .nan }
        var description: String {
            String(format: "n=%d valid=%.1f%% rmse=%.2f° max=%.1f° honest=%.1f%% median accuracy %.1f°", count,
                   100 * validShare, rmse, maxError, 100 * honestShare, medianAccuracy)
        }
    }

    /// Samples from `after` seconds, excluding `exclude` seconds around the interference window.
    func score(after: Double = 120, exclude: Double = 10, until: Double = .infinity) -> Score {
        let start = settings.interferenceStartSeconds, end = start + settings.interferenceDurationSeconds
        var s = Score()
        for x in samples where x.seconds >= after && x.seconds < until {
            if settings.interferenceDurationSeconds > 0, x.seconds >= start - exclude, x.seconds < end + exclude { continue }
            s.count += 1
            guard x.report.isValid, let th = x.report.trueHeadingDegrees else { continue }
            s.valid += 1
            let e = abs(Angle.differenceDegrees(th, x.truth))
            s.sumSquares += e * e
            s.maxError = max(s.maxError, e)
            s.accuracies.append(x.report.headingAccuracyDegrees)
            if e <= x.report.headingAccuracyDegrees { s.honest += 1 }
        }
        return s
    }

    /// Honesty over every valid sample, including the first seconds and interference.
    func honestyEverywhere() -> Score { score(after: 0, exclude: -1e9) }

    /// First flagged sample at or after the interference start, and first clean sample after its end.
    func interferenceTiming() -> (flagDelay: Double?, clearDelay: Double?) {
        let start = settings.interferenceStartSeconds, end = start + settings.interferenceDurationSeconds
        let flag = samples.first { $0.seconds >= start && $0.report.interference.isDisturbed }.map { $0.seconds - start }
        let clear = samples.first { $0.seconds >= end && !$0.report.interference.isDisturbed }.map { $0.seconds - end }
        return (flag, clear)
    }

    /// Share of samples flagged outside the interference window ± `margin`.
    func falseFlagShare(margin: Double = 3, after: Double = 0) -> Double {
        let start = settings.interferenceStartSeconds, end = start + settings.interferenceDurationSeconds
        let outside = samples.filter { $0.seconds >= after && ($0.seconds < start - margin || $0.seconds > end + margin) }
        guard !outside.isEmpty else { return 0 }
        return Double(outside.filter { $0.report.interference.isDisturbed }.count) / Double(outside.count)
    }

    /// The WMM's field at the simulator's origin, as the simulator's fixed earth field (NED, µT).
    static func wmmField(latitude: Double, longitude: Double) -> Vector3 {
        let e = WorldMagneticModel.wmm2025.field(latitudeDegrees: latitude, longitudeDegrees: longitude,
                                                 heightAboveEllipsoidKilometers: 0, decimalYear: 2025.42)
        return Vector3(x: e.northNanotesla / 1000, y: e.eastNanotesla / 1000, z: e.downNanotesla / 1000)
    }
}
