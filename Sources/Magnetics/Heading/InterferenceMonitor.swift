#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

/// Decides, sample by sample, whether the magnetometer can be trusted: compares the calibrated field's strength and
/// inclination with the expected field, and (with a gyroscope) watches the magnetometer heading against the
/// gyroscope's propagation. Also tells a lasting change (a new hard iron) from transient interference.
///
/// Expected field, in order of preference: strength from the calibration fit (what this sensor reads here, its gain
/// error included) or the WMM's F at the fix; inclination from the WMM; otherwise both learned from the first steady
/// second of data and then followed slowly while the field is clean.
struct InterferenceMonitor: Sendable {
    struct Input {
        var dt: Double
        /// |B|, µT.
        var field: Double
        /// Measured inclination, degrees (down positive).
        var inclination: Double
        /// Low-passed magnetometer − filter heading (degrees); NaN without a gyroscope.
        var inconsistency: Double
        /// The filter's current heading bound and the magnetometer's own (degrees).
        var bound: Double
        var magnetometerBound: Double
        /// The heading is lost (accuracy past the maximum): accept any field that passes strength and inclination.
        var headingLost: Bool
        /// The board has been still (gyroscope and accelerometer quiet) for `Settings.stationarySeconds`.
        var stationary: Bool
    }

    struct Decision {
        var rejecting: Bool
        var failed: MagneticInterference.Checks
        var calibration: (needed: Bool, reason: CalibrationNeededEvent.Reason)?
        /// Snapshot for the report (so the caller need not read the monitor again).
        var calibrationNeeded: Bool
        var fieldDeviation: Double
        var inclinationDeviation: Double
        var disturbedSeconds: Double
        var reference: MagneticInterference.ReferenceSource
    }

    @inline(__always)
    private func decision(_ rejecting: Bool, _ failed: MagneticInterference.Checks,
                          _ calibration: (needed: Bool, reason: CalibrationNeededEvent.Reason)?) -> Decision {
        Decision(rejecting: rejecting, failed: failed, calibration: calibration, calibrationNeeded: calibrationNeeded,
                 fieldDeviation: fieldDeviation, inclinationDeviation: inclinationDeviation,
                 disturbedSeconds: disturbedSeconds, reference: referenceSource)
    }

    /// The thresholds it needs from `HeadingEstimator.Settings` (not the whole struct: this one is copied less).
    struct Thresholds: Sendable {
        var magnitudeToleranceFraction: Double
        var inclinationToleranceDegrees: Double
        var headingConsistencyToleranceDegrees: Double
        var deviationTimeConstantSeconds: Double
        var recoveryDriftShare: Double
        var recoveryHoldSeconds: Double
        var stationaryRecoverySeconds: Double
        var referenceLearningSeconds: Double
        var referenceTimeConstantSeconds: Double
        var calibrationNeededAfterSeconds: Double
        var hardIronRotationDegrees: Double

        init(_ s: HeadingEstimator.Settings) {
            magnitudeToleranceFraction = s.magnitudeToleranceFraction
            inclinationToleranceDegrees = s.inclinationToleranceDegrees
            headingConsistencyToleranceDegrees = s.headingConsistencyToleranceDegrees
            deviationTimeConstantSeconds = max(s.deviationTimeConstantSeconds, 1e-6)
            recoveryDriftShare = s.recoveryDriftShare
            recoveryHoldSeconds = s.recoveryHoldSeconds
            stationaryRecoverySeconds = s.stationaryRecoverySeconds
            referenceLearningSeconds = s.referenceLearningSeconds
            referenceTimeConstantSeconds = max(s.referenceTimeConstantSeconds, 1e-6)
            calibrationNeededAfterSeconds = s.calibrationNeededAfterSeconds
            hardIronRotationDegrees = s.hardIronRotationDegrees
        }
    }

    let settings: Thresholds

    // References.
    var calibrationField: Double?
    var modelField: Double?
    var modelInclination: Double?
    private(set) var learnedField: Double?
    private(set) var learnedInclination: Double?

    // Learning window.
    private var learnSeconds = 0.0, learnCount = 0.0
    private var learnSum = 0.0, learnSumSquares = 0.0, learnInclinationSum = 0.0, learnInclinationSquares = 0.0

    // Disturbance state.
    private(set) var rejecting = false
    private(set) var disturbedSeconds = 0.0
    private var cleanSeconds = 0.0
    private var stillPlausibleSeconds = 0.0
    private var boundAtOnset = 0.0
    private(set) var calibrationNeeded = false

    // Hard-iron signature: residual against the reference in the board and the level frame.
    private var residualCount = 0.0
    private var boardSum = Vector3.zero, boardSquares = 0.0
    private var levelSum = Vector3.zero, levelSquares = 0.0
    private var rotationSinceOnset = 0.0

    // Last deviations, for the report.
    private(set) var fieldDeviation = 0.0
    private(set) var inclinationDeviation = 0.0

    init(settings: HeadingEstimator.Settings) { self.settings = Thresholds(settings) }

    var referenceField: Double? { calibrationField ?? modelField ?? learnedField }
    var referenceInclination: Double? { modelInclination ?? learnedInclination }
    @inline(__always)
    var hasReference: Bool {
        (calibrationField != nil || modelField != nil || learnedField != nil)
            && (modelInclination != nil || learnedInclination != nil)
    }

    /// tan(inclination) of the reference, capped at 6 (80.5°): how much a tilt error turns the heading.
    var inclinationFactor: Double {
        guard let i = referenceInclination else { return 1 }
        return min(6, abs(tan(i * HeadingMath.radiansPerDegree)))
    }

    @inline(__always)
    var referenceSource: MagneticInterference.ReferenceSource {
        if modelField != nil || modelInclination != nil { return .worldMagneticModel }
        return hasReference ? .learned : .none
    }

    /// Forget the hard-iron evidence (a new calibration changes every residual).
    mutating func calibrationChanged(fieldMicrotesla: Double?) {
        calibrationField = fieldMicrotesla
        resetSignature()
    }

    private mutating func resetSignature() {
        residualCount = 0; boardSum = .zero; boardSquares = 0; levelSum = .zero; levelSquares = 0; rotationSinceOnset = 0
    }

    mutating func evaluate(_ s: Input) -> Decision {
        guard let refField = referenceField, let refInclination = referenceInclination else {
            learn(s)
            // No reference yet: only the gyroscope can object.
            var failed: MagneticInterference.Checks = []
            if abs(s.inconsistency) > settings.headingConsistencyToleranceDegrees + max(0, s.bound - s.magnetometerBound) {
                failed.insert(.headingConsistency)
            }
            return decision(false, failed, nil)
        }
        // Low-passed: single samples under fast motion (tilt error, sampling skew) are not interference.
        let a = min(1, s.dt / settings.deviationTimeConstantSeconds)
        fieldDeviation += (s.field - refField - fieldDeviation) * a
        inclinationDeviation += (s.inclination - refInclination - inclinationDeviation) * a
        let fieldTolerance = settings.magnitudeToleranceFraction * refField
        let inclinationTolerance = settings.inclinationToleranceDegrees
        var failed: MagneticInterference.Checks = []
        if !(abs(fieldDeviation) <= fieldTolerance) { failed.insert(.magnitude) }
        if !(abs(inclinationDeviation) <= inclinationTolerance) { failed.insert(.inclination) }
        let slack = max(0, s.bound - s.magnetometerBound)
        if abs(s.inconsistency) > settings.headingConsistencyToleranceDegrees + slack { // NaN: no gyroscope
            failed.insert(.headingConsistency)
        }

        var calibration: (needed: Bool, reason: CalibrationNeededEvent.Reason)?
        if !rejecting {
            if !failed.isEmpty {
                rejecting = true
                disturbedSeconds = 0
                cleanSeconds = 0
                stillPlausibleSeconds = 0
                boundAtOnset = s.bound
                resetSignature()
            } else {
                follow(s)
            }
        }
        if rejecting {
            disturbedSeconds += s.dt
            // Clean again, with hysteresis: tighter strength and inclination limits; the heading may differ by what
            // the gyroscope could have drifted since the onset.
            let gate = 0.5 * settings.headingConsistencyToleranceDegrees
                + settings.recoveryDriftShare * max(0, s.bound - boundAtOnset)
            let plausible = abs(fieldDeviation) <= 0.7 * fieldTolerance
                && abs(inclinationDeviation) <= 0.7 * inclinationTolerance
            var clean = plausible
            if clean, !s.headingLost, abs(s.inconsistency) > gate { clean = false }
            cleanSeconds = clean ? cleanSeconds + s.dt : 0
            // Still, with a plausible field that keeps disagreeing: waiting adds nothing (no rotation, no new
            // drift), and the magnetometer is the only absolute reference. Trust it (the caller keeps the
            // disagreement in the accuracy).
            stillPlausibleSeconds = plausible && s.stationary ? stillPlausibleSeconds + s.dt : 0
            if cleanSeconds >= settings.recoveryHoldSeconds
                || stillPlausibleSeconds >= settings.stationaryRecoverySeconds {
                rejecting = false
                disturbedSeconds = 0
                if calibrationNeeded {
                    calibrationNeeded = false
                    calibration = (false, .resolved)
                }
            } else if !calibrationNeeded {
                if disturbedSeconds >= settings.calibrationNeededAfterSeconds {
                    calibrationNeeded = true
                    calibration = (true, .persistentInterference)
                } else if hardIronSignature(fieldTolerance: fieldTolerance) {
                    calibrationNeeded = true
                    calibration = (true, .hardIronSignature)
                }
            }
        }
        return decision(rejecting, failed, calibration)
    }

    /// The first steady `referenceLearningSeconds` of data become the reference.
    private mutating func learn(_ s: Input) {
        learnSeconds += s.dt
        learnCount += 1
        learnSum += s.field; learnSumSquares += s.field * s.field
        learnInclinationSum += s.inclination; learnInclinationSquares += s.inclination * s.inclination
        guard learnSeconds >= settings.referenceLearningSeconds, learnCount >= 5 else { return }
        let mean = learnSum / learnCount
        let sd = max(0, learnSumSquares / learnCount - mean * mean).squareRoot()
        let meanI = learnInclinationSum / learnCount
        let sdI = max(0, learnInclinationSquares / learnCount - meanI * meanI).squareRoot()
        if sd <= 0.03 * mean, sdI <= 2, mean > 0 {
            learnedField = mean
            learnedInclination = meanI
        }
        learnSeconds = 0; learnCount = 0; learnSum = 0; learnSumSquares = 0; learnInclinationSum = 0; learnInclinationSquares = 0
    }

    /// Follow slow changes of a learned reference while the field is clean.
    private mutating func follow(_ s: Input) {
        let a = min(1, s.dt / settings.referenceTimeConstantSeconds)
        if let f = learnedField, calibrationField == nil, modelField == nil { learnedField = f + (s.field - f) * a }
        if let i = learnedInclination, modelInclination == nil { learnedInclination = i + (s.inclination - i) * a }
    }

    /// While disturbed (with a gyroscope): the residual against the reference field in the level frame (`level`,
    /// the measured field there) and in the board frame, and how far the board turned since the last call.
    mutating func accumulateSignature(level: Vector3, levelToBoard: Matrix3, rotationDegrees: Double) {
        guard rejecting, !calibrationNeeded, let refField = referenceField, let refInclination = referenceInclination
        else { return }
        let inc = refInclination * HeadingMath.radiansPerDegree
        // The reference field in the level frame: magnetic north and down (z is up).
        let reference = Vector3(x: refField * cos(inc), y: 0, z: -refField * sin(inc))
        let residual = level.minus(reference)
        let board = levelToBoard * residual
        residualCount += 1
        levelSum = levelSum.plus(residual); levelSquares += residual.dot(residual)
        boardSum = boardSum.plus(board); boardSquares += board.dot(board)
        rotationSinceOnset += rotationDegrees
    }

    /// A residual that stays put in the board frame while the board turns — and scatters in the level frame — is
    /// carried by the sensor: a new hard iron.
    private func hardIronSignature(fieldTolerance: Double) -> Bool {
        guard residualCount >= 20, rotationSinceOnset >= settings.hardIronRotationDegrees else { return false }
        let n = residualCount
        let boardMean = boardSum.times(1 / n), levelMean = levelSum.times(1 / n)
        let boardSpread = max(0, boardSquares / n - boardMean.dot(boardMean))
        let levelSpread = max(0, levelSquares / n - levelMean.dot(levelMean))
        return boardMean.length > fieldTolerance && boardSpread < 0.25 * levelSpread
    }
}
