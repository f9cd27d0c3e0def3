import Events
import LocationCore
import Magnetics
import Pipeline

/// The pipeline's output without an encoding: the evaluation reads the events through the observer.
struct NoEncoding: OutputEncoder {
    mutating func encode(_ event: OutputEvent, into out: inout ByteBuffer) {}
}

/// What the estimator said about one row of a recording (nil fields: no report for that row).
struct RowOutput {
    var heading: Double?
    var accuracy: Double?
    var flagged = false
    var checks: UInt8 = 0
    var inconsistency = 0.0
    var fieldDeviation = 0.0
    var inclinationDeviation = 0.0
    var roll = 0.0
    var pitch = 0.0
}

struct Disturbance {
    var onset: Double
    var end: Double
    /// Seconds from onset to the first flagged report (negative: flagged before the truth's onset), nil if never.
    var flagDelay: Double?
    /// Seconds from the end to the first unflagged report, nil if never.
    var clearDelay: Double?
}

struct TrialResult {
    var name: String
    var gyroscope: Bool
    var hasTruth: Bool
    var scored = 0
    var valid = 0
    var rmseValid = Double.nan
    var rmseAll = Double.nan
    var offset = Double.nan
    var honesty = Double.nan
    var medianAccuracy = Double.nan
    var p95Error = Double.nan
    var maxError = Double.nan
    var disturbances: [Disturbance] = []
    var calibrationEvents: [(time: Double, needed: Bool, reason: CalibrationNeededEvent.Reason)] = []
    /// Calibrations background calibration adopted during the trial (pipeline path).
    var calibrationsAdopted = 0
    /// Recordings without truth (x-io Fusion): the heading is constant while stationary, so the change from the
    /// mean heading just before the known disturbance is the error during it.
    var stationaryMaxChange = Double.nan
    var stationaryHonesty = Double.nan
    var stationaryValid = Double.nan
}

enum Evaluation {
    static let degrees = 180 / Double.pi

    /// How the heading is computed: through the session's `Pipeline` (the default: background calibration,
    /// platform selection and everything `lodestar run` applies) or by the `HeadingEstimator` alone.
    enum Path: String { case pipeline, estimator }

    /// Runs a recording (without gyroscope events when `gyroscope` is false). `adopted` counts the calibrations
    /// background calibration adopted.
    static func run(_ rec: Recording, settings: HeadingEstimator.Settings, gyroscope: Bool, path: Path = .pipeline)
        -> (rows: [RowOutput], calibration: [(Double, Bool, CalibrationNeededEvent.Reason)], adopted: Int) {
        var rows = [RowOutput](repeating: RowOutput(), count: rec.times.count)
        var calibration: [(Double, Bool, CalibrationNeededEvent.Reason)] = []
        var row = 0
        let events = rec.events.lazy.filter { e in
            guard !gyroscope, case .motion(let m) = e.payload else { return true }
            switch m {
            case .gyroscope, .gyroscopeRaw: return false
            default: return true
            }
        }
        switch path {
        case .estimator:
            var estimator = HeadingEstimator(settings: settings)
            for e in events { record(estimator.process(e)) }
            return (rows, calibration, 0)
        case .pipeline:
            var pipelineSettings = Pipeline.Settings()
            pipelineSettings.heading.heading = settings
            pipelineSettings.smoothing.smoothing = nil
            let pipeline = Pipeline(settings: pipelineSettings, encoder: NoEncoding(), sinks: [])
            pipeline.observer = { event in
                switch event {
                case .heading(let r, _): record(HeadingUpdate(report: r))
                case .calibrationNeeded(let c): record(HeadingUpdate(calibration: c))
                default: break
                }
            }
            for e in events { pipeline.process(e) }
            return (rows, calibration, pipeline.calibrationsAdopted)
        }

        func record(_ u: HeadingUpdate) {
            if let c = u.calibration { calibration.append((c.sampleTimeSeconds ?? .nan, c.needed, c.reason)) }
            guard let r = u.report, let t = r.sampleTimeSeconds else { return }
            while row < rec.times.count && rec.times[row] < t - 1e-7 { row += 1 }
            guard row < rec.times.count, abs(rec.times[row] - t) <= 1e-7 else { return }
            rows[row] = RowOutput(heading: r.magneticHeadingDegrees,
                                  accuracy: r.headingAccuracyDegrees,
                                  flagged: r.interference.isDisturbed,
                                  checks: r.interference.failedChecks.rawValue,
                                  inconsistency: r.interference.headingInconsistencyDegrees,
                                  fieldDeviation: r.interference.magnitudeDeviationMicrotesla,
                                  inclinationDeviation: r.interference.inclinationDeviationDegrees,
                                  roll: r.rollDegrees, pitch: r.pitchDegrees)
        }
    }

    static func evaluate(_ rec: Recording, settings: HeadingEstimator.Settings, gyroscope: Bool,
                         knownDisturbance: (Double, Double)?, path: Path = .pipeline) -> TrialResult {
        let (rows, calibration, adopted) = run(rec, settings: settings, gyroscope: gyroscope, path: path)
        var result = TrialResult(name: rec.name, gyroscope: gyroscope, hasTruth: rec.hasTruth)
        result.calibrationsAdopted = adopted
        result.calibrationEvents = calibration.map { (time: $0.0, needed: $0.1, reason: $0.2) }
        if rec.hasTruth {
            scoreAgainstTruth(rec, rows, &result)
            result.disturbances = truthDisturbances(rec).map { flagTiming(rec, rows, onset: $0.0, end: $0.1) }
        } else if let (start, end) = knownDisturbance {
            result.disturbances = [flagTiming(rec, rows, onset: start, end: end)]
            stationaryCheck(rec, rows, start: start, end: end, &result)
        }
        return result
    }

    // MARK: Metric

    /// Heading of the board's x axis against the truth, over rows where that axis is within 45° of horizontal,
    /// after removing one constant offset (circular mean of the error) per trial.
    static func scoreAgainstTruth(_ rec: Recording, _ rows: [RowOutput], _ result: inout TrialResult) {
        var errors: [(error: Double, accuracy: Double)] = []
        var allErrors: [Double] = []
        for i in rec.times.indices {
            guard let q = rec.truth[i] else { continue }
            let axis = truthAxis(q)
            let elevation = asin(max(-1, min(1, axis.z))) * degrees
            guard abs(elevation) <= 45 else { continue }
            result.scored += 1
            guard let h = rows[i].heading, let a = rows[i].accuracy else { continue }
            let truthHeading = atan2(axis.x, axis.y) * degrees
            let e = Angle.differenceDegrees(h, truthHeading)
            allErrors.append(e)
            if a >= 0 { errors.append((e, a)) }
        }
        result.valid = errors.count
        guard !errors.isEmpty else { return }
        let offset = circularMean(errors.map(\.error))
        result.offset = offset
        let residuals = errors.map { abs(Angle.differenceDegrees($0.error, offset)) }
        result.rmseValid = rms(residuals)
        result.maxError = residuals.max() ?? .nan
        result.p95Error = percentile(residuals, 95)
        result.honesty = Double(zip(residuals, errors).filter { $0.0 <= $0.1.accuracy }.count) / Double(errors.count)
        result.medianAccuracy = percentile(errors.map(\.accuracy), 50)
        let allOffset = circularMean(allErrors)
        result.rmseAll = rms(allErrors.map { Angle.differenceDegrees($0, allOffset) })
    }

    /// Disturbances from the truth: the world-frame field's azimuth (mag rotated by the truth) against its mean over
    /// the first 10 s (all BROAD trials start at rest, undisturbed), averaged over 1 s. A disturbance is a stretch
    /// where that exceeds 8° (undisturbed trials stay below 7.3°), merged across gaps under 5 s, at least 1 s long,
    /// starting where the deviation first passed 4°.
    static func truthDisturbances(_ rec: Recording) -> [(Double, Double)] {
        let n = rec.times.count
        var world = [Vector3?](repeating: nil, count: n)
        var reference = Vector3.zero
        for i in 0..<n {
            guard let q = rec.truth[i] else { continue }
            let w = truthRotate(q, rec.fields[i])
            world[i] = w
            if rec.times[i] < 10 { reference = reference + w }
        }
        let referenceAzimuth = atan2(reference.x, reference.y) * degrees
        let azimuth: [Double?] = world.map { $0.map { Angle.differenceDegrees(atan2($0.x, $0.y) * degrees, referenceAzimuth) } }
        // Centred 1 s moving average (71 rows at 71.4 Hz) over the rows with truth.
        let half = 35
        var smooth = [Double](repeating: .nan, count: n)
        var sum = 0.0, count = 0
        for i in 0..<(n + half) {
            if i < n, let a = azimuth[i] { sum += a; count += 1 }
            let out = i - 2 * half - 1
            if out >= 0, let a = azimuth[out] { sum -= a; count -= 1 }
            let centre = i - half
            if centre >= 0 && centre < n && count > half { smooth[centre] = sum / Double(count) }
        }
        var spans: [(Int, Int)] = []
        var start: Int?
        for i in 0..<n {
            let high = abs(smooth[i]) > 8
            if high, start == nil { start = i }
            if !high, let s = start { spans.append((s, i)); start = nil }
        }
        if let s = start { spans.append((s, n - 1)) }
        var merged: [(Int, Int)] = []
        for s in spans {
            if let last = merged.last, rec.times[s.0] - rec.times[last.1] < 5 {
                merged[merged.count - 1] = (last.0, s.1)
            } else {
                merged.append(s)
            }
        }
        return merged.filter { rec.times[$0.1] - rec.times[$0.0] >= 1 }.map { span in
            var onset = span.0
            while onset > 0, !(abs(smooth[onset - 1]) <= 4) { onset -= 1 }
            return (rec.times[onset], rec.times[span.1])
        }
    }

    static func flagTiming(_ rec: Recording, _ rows: [RowOutput], onset: Double, end: Double) -> Disturbance {
        var d = Disturbance(onset: onset, end: end)
        for i in rec.times.indices where rec.times[i] >= onset - 1 && rec.times[i] <= end {
            if rows[i].flagged { d.flagDelay = rec.times[i] - onset; break }
        }
        for i in rec.times.indices where rec.times[i] >= end {
            if rows[i].heading != nil && !rows[i].flagged { d.clearDelay = rec.times[i] - end; break }
        }
        return d
    }

    /// x-io Fusion's sample sits still through its disturbance: the heading should not move.
    static func stationaryCheck(_ rec: Recording, _ rows: [RowOutput], start: Double, end: Double,
                                _ result: inout TrialResult) {
        let before = rec.times.indices.filter { rec.times[$0] >= start - 4 && rec.times[$0] < start - 0.5 }
            .compactMap { rows[$0].heading }
        guard !before.isEmpty else { return }
        let reference = circularMean(before)
        var maxChange = 0.0, honest = 0, valid = 0, total = 0
        for i in rec.times.indices where rec.times[i] >= start && rec.times[i] <= end + 2 {
            guard let h = rows[i].heading, let a = rows[i].accuracy else { continue }
            total += 1
            guard a >= 0 else { continue }
            valid += 1
            let change = abs(Angle.differenceDegrees(h, reference))
            maxChange = max(maxChange, change)
            if change <= a { honest += 1 }
        }
        result.stationaryMaxChange = maxChange
        result.stationaryHonesty = valid > 0 ? Double(honest) / Double(valid) : .nan
        result.stationaryValid = total > 0 ? Double(valid) / Double(total) : .nan
    }

    // MARK: Statistics

    static func circularMean(_ degreesValues: [Double]) -> Double {
        var s = 0.0, c = 0.0
        for d in degreesValues { s += sin(d / degrees); c += cos(d / degrees) }
        return atan2(s, c) * degrees
    }

    static func rms(_ v: [Double]) -> Double {
        guard !v.isEmpty else { return .nan }
        return (v.reduce(0) { $0 + $1 * $1 } / Double(v.count)).squareRoot()
    }

    static func percentile(_ v: [Double], _ p: Double) -> Double {
        guard !v.isEmpty else { return .nan }
        let s = v.sorted()
        let i = min(s.count - 1, max(0, Int((p / 100 * Double(s.count - 1)).rounded())))
        return s[i]
    }
}

#if canImport(Glibc)
import Glibc
#endif
