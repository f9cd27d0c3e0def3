import LocationCore

/// Keeps refining the magnetometer calibration during normal operation, with safeguards.
///
/// Every sample goes to a `CalibrationCollector` (per-direction reservoir, samples older than
/// `Settings.maximumSampleAgeNanos` dropped). At most every `evaluationIntervalNanos` (sample time) the kept
/// samples are fitted and the fit is adopted only when **all** hold:
/// - coverage ≥ `minimumCoveragePercent` (and not a circle: a planar fit cannot correct the third axis);
/// - the fitted field strength is within ±`fieldTolerance` of the World Magnetic Model's F, when F is known;
/// - the hard iron moves by at most `maximumHardIronChangeMicrotesla` (larger jumps are a magnet nearby, not drift);
/// - on the same recent samples, its residual std is below the current calibration's by `minimumImprovement`;
/// - at least `minimumAdoptionIntervalNanos` since the last adoption.
/// So a worse calibration is never applied. Pure: time comes only from the sample stamps.
public struct BackgroundRefiner: Sendable {
    public struct Settings: Sendable, Hashable {
        public var minimumCoveragePercent = 50.0
        /// Allowed |fitted field − WMM F| / F.
        public var fieldTolerance = 0.15
        public var maximumHardIronChangeMicrotesla = 20.0
        /// The candidate's residual must be below (1 − this) × the current one's.
        public var minimumImprovement = 0.10
        /// Sample time between adoptions (default 10 minutes).
        public var minimumAdoptionIntervalNanos: Int64 = 600_000_000_000
        /// Sample time between fits (default 30 s): bounds the CPU spent.
        public var evaluationIntervalNanos: Int64 = 30_000_000_000
        /// Kept samples older than this are dropped (default 30 minutes).
        public var maximumSampleAgeNanos: Int64 = 1_800_000_000_000
        public var collector: CalibrationCollector.Settings = {
            var s = CalibrationCollector.Settings.default
            s.refitEverySamples = Int.max  // the refiner decides when to fit
            return s
        }()

        public init() {}
        public static let `default` = Settings()
    }

    /// Why a candidate was not adopted.
    public enum Rejection: Sendable, Hashable, CustomStringConvertible {
        case tooSoon(secondsUntilAllowed: Double)
        case fitFailed(CalibrationFitError)
        case insufficientCoverage(percent: Double)
        case planar
        case implausibleFieldStrength(fittedMicrotesla: Double, referenceMicrotesla: Double)
        case implausibleHardIronChange(microtesla: Double)
        case notBetter(candidateResidualMicrotesla: Double, currentResidualMicrotesla: Double)

        public var description: String {
            switch self {
            case .tooSoon(let s): "rate-limited: next adoption allowed in \(CalibrationMath.decimal(s, digits: 0)) s"
            case .fitFailed(let e): "fit failed: \(e)"
            case .insufficientCoverage(let p): "coverage \(CalibrationMath.decimal(p, digits: 0)) % is too low"
            case .planar: "the directions span one plane only"
            case .implausibleFieldStrength(let f, let r):
                "field strength \(CalibrationMath.decimal(f, digits: 1)) µT is not within tolerance of the model's \(CalibrationMath.decimal(r, digits: 1)) µT"
            case .implausibleHardIronChange(let d): "hard iron would move by \(CalibrationMath.decimal(d, digits: 1)) µT"
            case .notBetter(let c, let k):
                "residual \(CalibrationMath.decimal(c, digits: 3)) µT is not clearly below the current \(CalibrationMath.decimal(k, digits: 3)) µT"
            }
        }
    }

    public enum Decision: Sendable, Hashable {
        case adopted(CalibrationResult)
        case rejected(Rejection)
    }

    public let settings: Settings
    /// The calibration in use.
    public private(set) var current: MagnetometerCalibration
    /// The World Magnetic Model's F at the current location, µT (nil when unknown: the field check is skipped).
    public var referenceFieldMicrotesla: Double?
    public private(set) var collector: CalibrationCollector
    public private(set) var lastAdoptionNanos: Int64?
    private var lastEvaluationNanos: Int64?

    public init(current: MagnetometerCalibration, referenceFieldMicrotesla: Double? = nil, settings: Settings = .default) {
        self.current = current
        self.referenceFieldMicrotesla = referenceFieldMicrotesla
        self.settings = settings
        var c = settings.collector
        c.maximumSampleAgeNanos = settings.maximumSampleAgeNanos
        collector = CalibrationCollector(settings: c, initial: current)
    }

    /// Offers one raw sample (µT) stamped with monotonic time. Returns a decision when a fit was evaluated.
    public mutating func add(_ raw: Vector3, monotonicNanos t: Int64) -> Decision? {
        collector.add(raw, monotonicNanos: t)
        // The first fit comes one evaluation interval after the first sample, not on it.
        guard let last = lastEvaluationNanos else { lastEvaluationNanos = t; return nil }
        if t - last < settings.evaluationIntervalNanos, t >= last { return nil }
        if let last = lastAdoptionNanos, t - last < settings.minimumAdoptionIntervalNanos, t >= last { return nil }
        lastEvaluationNanos = t
        do {
            let candidate = try collector.fit()
            return consider(candidate, recent: collector.samples, atNanos: t)
        } catch {
            return .rejected(.fitFailed(error))
        }
    }

    /// Applies the safeguards to `candidate`, comparing both calibrations on `recent` raw samples, and adopts it
    /// when it passes. Public so a fit made elsewhere (an explicit calibration) goes through the same checks.
    public mutating func consider(_ candidate: CalibrationResult, recent: [Vector3], atNanos t: Int64) -> Decision {
        if let last = lastAdoptionNanos, t >= last, t - last < settings.minimumAdoptionIntervalNanos {
            return .rejected(.tooSoon(secondsUntilAllowed: Double(settings.minimumAdoptionIntervalNanos - (t - last)) / 1e9))
        }
        if candidate.method == .circle { return .rejected(.planar) }
        let coverage = candidate.metrics.coveragePercent
        guard coverage >= settings.minimumCoveragePercent else { return .rejected(.insufficientCoverage(percent: coverage)) }
        if let f = referenceFieldMicrotesla, f > 0,
           abs(candidate.metrics.fieldMicrotesla - f) > settings.fieldTolerance * f {
            return .rejected(.implausibleFieldStrength(fittedMicrotesla: candidate.metrics.fieldMicrotesla, referenceMicrotesla: f))
        }
        let change = (candidate.calibration.hardIronMicrotesla - current.hardIronMicrotesla).norm
        guard change <= settings.maximumHardIronChangeMicrotesla else {
            return .rejected(.implausibleHardIronChange(microtesla: change))
        }
        let mine = Self.residualStd(candidate.calibration, on: recent)
        let theirs = Self.residualStd(current, on: recent)
        guard mine < (1 - settings.minimumImprovement) * theirs else {
            return .rejected(.notBetter(candidateResidualMicrotesla: mine, currentResidualMicrotesla: theirs))
        }
        current = candidate.calibration
        lastAdoptionNanos = t
        return .adopted(candidate)
    }

    /// Standard deviation of |calibrated| over `samples`, after dropping 3σ (MAD) outliers so one disturbance does
    /// not decide the comparison. Infinity without samples.
    public static func residualStd(_ calibration: MagnetometerCalibration, on samples: [Vector3]) -> Double {
        guard samples.count >= 2 else { return .infinity }
        let norms = samples.map { calibration.apply($0).norm }
        let mask = RobustStatistics.inlierMask(norms, k: 3, floor: RobustStatistics.floorMicrotesla)
        return RobustStatistics.standardDeviation(norms, mask: mask)
    }
}
