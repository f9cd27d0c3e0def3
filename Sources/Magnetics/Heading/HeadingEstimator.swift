#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

/// Core Location's CLHeading for a Linux board: a calibrated, tilt-compensated magnetic heading, a true heading from
/// the World Magnetic Model, and a `headingAccuracy` that grows under magnetic interference.
///
/// Feed it the board's motion samples in time order (`process`); every magnetometer sample yields a
/// `HeadingReport` (subject to `headingFilterDegrees`). Pure: time comes only from the samples' stamps.
///
/// **With a gyroscope** it is an AHRS — a complementary filter on a quaternion: the gyroscope propagates the
/// attitude, the accelerometer corrects tilt (ignored under linear acceleration), the magnetometer corrects only the
/// heading (a rotation about the vertical, so a disturbed field never tilts the attitude) and only while the
/// interference monitor trusts the field. While it does not, the gyroscope carries the heading and the accuracy
/// grows by the gyroscope's drift bound.
/// **Without a gyroscope** (none seen for `gyroscopeTimeoutSeconds`) it is a tilt-compensated e-compass over lightly
/// averaged accelerometer and magnetometer vectors; the accuracy grows with the linear acceleration and the rotation
/// rate, and the heading is unusable (−1) while the field is disturbed.
///
/// Frames: samples are remapped into the board frame by `Settings.mounting` (x forward — the heading's axis —, y
/// left, z up). Magnetometer calibration is applied in the sensor frame first (where it was fitted).
public struct HeadingEstimator: Sendable {
    public private(set) var settings: Settings
    public private(set) var calibration: MagnetometerCalibration
    /// The WMM elements at the latest fix or configured location.
    public private(set) var fieldElements: MagneticFieldElements?
    /// A declination set with `setDeclination`, used instead of the WMM's.
    public private(set) var declinationOverrideDegrees: Double?

    /// The declination in use (east positive), if any.
    public var declinationDegrees: Double? { declination }
    /// Core Location's `shouldDisplayHeadingCalibration`.
    public var calibrationNeeded: Bool { monitor.calibrationNeeded }
    /// The gyroscope bias learned while stationary (rad/s, board frame), if any.
    public var gyroscopeBiasRadiansPerSecond: Vector3? { gyroBiasKnown ? gyroBias : nil }

    private var declinationCache = DeclinationCache()
    /// Copies of what the per-sample path needs from `fieldElements` and `calibration` (no large copies per sample).
    private var declination: Double?
    private var blackout = false
    private var calibrationIsIdentity: Bool
    private var lastDecimalYear: Double?
    private var monitor: InterferenceMonitor

    // Attitude.
    private var attitude = AttitudeQuaternion.identity
    private var attitudeValid = false
    private var lastGyroNanos: Int64?
    private var lastAccelNanos: Int64?
    private var lastMagNanos: Int64?
    private var accel = Vector3.zero
    private var accelSlow = Vector3.zero
    private var accelFast = Vector3.zero
    private var haveAccel = false
    private var fieldAverage = Vector3.zero
    private var haveFieldAverage = false
    private var rateDegrees = 0.0
    private var rotationSinceMag = 0.0
    private var accelRejectedSeconds = 0.0
    private let cosineOfRejection: Double

    // Gyroscope bias.
    private var gyroBias = Vector3.zero
    private var gyroBiasKnown = false
    private var stillSeconds = 0.0
    private var biasSum = Vector3.zero, biasCount = 0.0, biasWindow = 0.0

    // Accuracy.
    private var bound = 180.0
    private var inconsistency = 0.0
    private var dynamics = 0.0
    /// After the magnetometer is trusted again while it still disagreed with the gyroscope by δ, either may have
    /// been wrong: δ stays in the accuracy and fades with `suspicionTimeConstantSeconds` while the field is trusted.
    private var suspicion = 0.0
    private var wasRejecting = false
    private var fieldRate = 0.0

    // Delivery.
    private var lastDeliveredHeading: Double?
    private var lastDeliveredValid = false
    private var lastDeliveredInterference: MagneticInterference.State = .none

    private static var degrees: Double { HeadingMath.degreesPerRadian }
    private static var radians: Double { HeadingMath.radiansPerDegree }
    private static var gravity: Double { 9.80665 }

    public init(settings: Settings = .default, calibration: MagnetometerCalibration = .identity) {
        self.settings = settings
        self.calibration = calibration
        calibrationIsIdentity = calibration == .identity
        cosineOfRejection = cos(settings.accelerationRejectionDegrees * HeadingMath.radiansPerDegree)
        monitor = InterferenceMonitor(settings: settings)
        monitor.calibrationChanged(fieldMicrotesla: calibration.fieldMicrotesla)
    }

    // MARK: - Configuration

    /// A new magnetometer calibration (after the user recalibrated). The interference monitor re-judges the field
    /// with it; `calibrationNeeded` clears once the field looks clean.
    public mutating func setCalibration(_ calibration: MagnetometerCalibration) {
        self.calibration = calibration
        calibrationIsIdentity = calibration == .identity
        monitor.calibrationChanged(fieldMicrotesla: calibration.fieldMicrotesla)
    }

    /// Changes the output settings (CLLocationManager's `headingFilter` and `headingOrientation`) without
    /// restarting the filter.
    public mutating func setOutput(headingFilterDegrees: Double? = nil, displayOffsetDegrees: Double? = nil) {
        if let f = headingFilterDegrees { settings.headingFilterDegrees = f }
        if let d = displayOffsetDegrees { settings.displayOffsetDegrees = d }
    }

    /// A new mounting: the attitude restarts from the next accelerometer and magnetometer pair (the learned
    /// gyroscope bias, a board-frame quantity, is forgotten too).
    public mutating func setMounting(_ mounting: SensorMounting) {
        guard mounting != settings.mounting else { return }
        settings.mounting = mounting
        attitudeValid = false
        haveAccel = false
        haveFieldAverage = false
        gyroBias = .zero
        gyroBiasKnown = false
        stillSeconds = 0; biasSum = .zero; biasCount = 0; biasWindow = 0
    }

    /// A configured location (no receiver): declination, inclination and total field from the WMM.
    /// Height above the WGS84 ellipsoid; `decimalYear` e.g. 2026.4 (see `WorldMagneticModel.decimalYear(of:)`).
    public mutating func setLocation(latitudeDegrees: Double, longitudeDegrees: Double,
                                     heightAboveEllipsoidMeters: Double = 0, decimalYear: Double) {
        guard latitudeDegrees.isFinite, longitudeDegrees.isFinite, heightAboveEllipsoidMeters.isFinite,
              decimalYear.isFinite, abs(latitudeDegrees) <= 90 else { return }
        lastDecimalYear = decimalYear
        let e = declinationCache.elements(latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees,
                                          heightAboveEllipsoidKilometers: heightAboveEllipsoidMeters / 1000,
                                          decimalYear: decimalYear)
        guard e.declinationDegrees.isFinite, e.totalNanotesla.isFinite else { return }
        fieldElements = e
        blackout = e.blackout
        declination = declinationOverrideDegrees ?? e.declinationDegrees
        monitor.modelField = e.totalNanotesla / 1000
        monitor.modelInclination = e.inclinationDegrees
    }

    /// The latest fix. Needs latitude and longitude; the height is the ellipsoidal one when known (else MSL +
    /// geoid separation, else MSL, else 0); without a time stamp the previous fix's date is used (else the model
    /// epoch: declination changes by about 0.1–0.2° a year).
    public mutating func update(location: Location) {
        guard let lat = location.latitudeDegrees, let lon = location.longitudeDegrees else { return }
        let height = location.altitudeEllipsoidMeters
            ?? location.altitudeMSLMeters.map { $0 + (location.geoidSeparationMeters ?? 0) } ?? 0
        let year = location.time.map(WorldMagneticModel.decimalYear(of:)) ?? lastDecimalYear
            ?? declinationCache.model.epoch
        setLocation(latitudeDegrees: lat, longitudeDegrees: lon, heightAboveEllipsoidMeters: height, decimalYear: year)
    }

    /// A known declination (degrees, east positive) used instead of the WMM's; nil returns to the WMM.
    public mutating func setDeclination(_ degrees: Double?) {
        declinationOverrideDegrees = degrees.flatMap { $0.isFinite ? $0 : nil }
        declination = declinationOverrideDegrees ?? fieldElements?.declinationDegrees
    }

    // MARK: - Samples

    /// Takes one event: motion samples (time from `monotonicNanos`, else `sampleTimeSeconds`; events with
    /// neither are ignored) and external fixes (`update(location:)`). Other payloads are ignored.
    public mutating func process(_ event: borrowing SensorEvent) -> HeadingUpdate {
        // Borrowed and matched in place: a SensorEvent is ~460 bytes (its payload can hold a whole Location), and
        // copying it per sample cost more than the heading update itself.
        switch event.payload {
        case .motion(let sample):
            let stamp: Int64
            if let t = event.monotonicNanos {
                stamp = t
            } else if let s = event.sampleTimeSeconds, s.isFinite, abs(s) < 9.2e9 {
                stamp = Int64((s * 1e9).rounded())
            } else {
                return .none
            }
            return process(sample, monotonicNanos: stamp, sampleTimeSeconds: event.sampleTimeSeconds)
        case .fix(let fix):
            update(location: fix.location)
            return .none
        default:
            return .none
        }
    }

    /// Takes one sample stamped `monotonicNanos`. Samples with non-finite values, and samples older than the
    /// previous one of the same sensor, are ignored.
    public mutating func process(_ sample: MotionSample, monotonicNanos: Int64,
                                 sampleTimeSeconds: Double? = nil) -> HeadingUpdate {
        let raw: Vector3, bias: Vector3?
        switch sample {
        case .accelerometer(let a, let b):
            accelerometer(b.map { a.minus($0) } ?? a, monotonicNanos)
            return .none
        case .accelerometerRaw(let r):
            accelerometer(r.vector, monotonicNanos)
            return .none
        case .gyroscope(let w, let drift):
            gyroscope(drift.map { w.minus($0) } ?? w, monotonicNanos)
            return .none
        case .gyroscopeRaw(let r):
            gyroscope(r.vector, monotonicNanos)
            return .none
        case .magnetometer(let f, let b):
            raw = f; bias = b
        case .magnetometerRaw(let r):
            raw = r.vector; bias = nil
        }
        return magnetometer(raw: raw, sourceBias: bias, monotonicNanos, sampleTimeSeconds)
    }

    /// Seconds since `last` (then set to `t`): 0 for a sensor's first sample, nil for a stale one (older than the
    /// previous sample: ignored), +∞ when the stamps jumped back by over a second — a new time base (a restarted
    /// source, concatenated captures) — which the callers treat as a gap of unknown length.
    @inline(__always)
    private static func elapsed(since last: inout Int64?, to t: Int64) -> Double? {
        guard let previous = last else { last = t; return 0 }
        if t >= previous { last = t; return Double(t &- previous) * 1e-9 }
        guard previous &- t > 1_000_000_000 else { return nil }
        last = t
        return .infinity
    }

    private func gyroscopePresent(at t: Int64) -> Bool {
        guard let last = lastGyroNanos else { return false }
        return Double(t &- last) * 1e-9 <= settings.gyroscopeTimeoutSeconds
    }

    // MARK: Gyroscope

    private mutating func gyroscope(_ sensorRate: Vector3, _ t: Int64) {
        guard sensorRate.isFinite, let dt = Self.elapsed(since: &lastGyroNanos, to: t), dt > 0 else { return }
        if dt > settings.maximumGyroscopeGapSeconds {
            attitudeValid = false
            stillSeconds = 0
            return
        }
        let w = settings.mounting.boardVector(sensorRate)
        let corrected = w - gyroBias
        let rate = corrected.length
        rateDegrees = rate * Self.degrees
        learnBias(w, rateDegrees: rateDegrees, dt: dt)
        guard attitudeValid else { return }
        attitude = (attitude * .small(corrected * dt)).normalized
        let turned = rateDegrees * dt
        rotationSinceMag += turned
        let biasBound = gyroBiasKnown ? settings.gyroscopeBiasBoundDegreesPerSecond
            : settings.uncalibratedGyroscopeBiasBoundDegreesPerSecond
        bound += biasBound * dt + settings.gyroscopeScaleErrorBound * turned
    }

    /// Averages the gyroscope while the board is still (slow rotation, steady accelerometer).
    private mutating func learnBias(_ w: Vector3, rateDegrees: Double, dt: Double) {
        let steady = haveAccel && (accel - accelSlow).length <= settings.stationaryAccelerationTolerance
        guard rateDegrees < settings.stationaryRateDegreesPerSecond, steady else {
            stillSeconds = 0; biasSum = .zero; biasCount = 0; biasWindow = 0
            return
        }
        stillSeconds += dt
        guard stillSeconds >= settings.stationarySeconds else { return }
        biasSum = biasSum + w
        biasCount += 1
        biasWindow += dt
        guard biasWindow >= settings.stationarySeconds, biasCount >= 5 else { return }
        let mean = biasSum * (1 / biasCount)
        gyroBias = gyroBiasKnown ? gyroBias + (mean - gyroBias) * 0.5 : mean
        gyroBiasKnown = true
        biasSum = .zero; biasCount = 0; biasWindow = 0
    }

    // MARK: Accelerometer

    private mutating func accelerometer(_ sensorForce: Vector3, _ t: Int64) {
        guard sensorForce.isFinite, let dtRaw = Self.elapsed(since: &lastAccelNanos, to: t) else { return }
        let dt = min(dtRaw, 0.1)
        let a = settings.mounting.boardVector(sensorForce)
        accel = a
        if !haveAccel {
            accelSlow = a; accelFast = a; haveAccel = true
        } else {
            accelSlow = accelSlow.plus(a.minus(accelSlow).times(min(1, dt * 5)))
            accelFast = accelFast.plus(a.minus(accelFast).times(min(1, dt / max(settings.vectorTimeConstantSeconds, 1e-6))))
        }
        let n = a.length
        // Linear acceleration seen by the accelerometer alone: fast attack, 0.5 s decay.
        let seen = abs(n - Self.gravity) + a.minus(accelSlow).length
        dynamics = max(seen, dynamics - dynamics * min(1, dt * 2))

        guard attitudeValid, gyroscopePresent(at: t), n > 0.1 * Self.gravity else { return }
        let up = attitude.upInBoard // the level frame's up axis seen from the board
        let measured = a.times(1 / n)
        let error = measured.cross(up)
        var gain = settings.accelerometerGain
        // Within the rejection cone: cos(angle) ≥ cos(limit), no trigonometry per sample.
        if measured.dot(up) >= cosineOfRejection {
            accelRejectedSeconds = 0
        } else {
            accelRejectedSeconds += dt
            let quiet = rateDegrees < 10 && abs(n - Self.gravity) < 0.05 * Self.gravity
            guard accelRejectedSeconds >= settings.accelerationRecoverySeconds, quiet else { return }
            gain = settings.convergenceGain
        }
        attitude = (attitude * .small(error.times(min(1, gain * dt)))).normalized
    }

    // MARK: Magnetometer

    private mutating func magnetometer(raw: Vector3, sourceBias: Vector3?, _ t: Int64,
                                       _ sampleTime: Double?) -> HeadingUpdate {
        guard raw.isFinite, let dtRaw = Self.elapsed(since: &lastMagNanos, to: t) else { return .none }
        let dt = min(dtRaw, 1)
        let calibrated: Vector3
        if let sourceBias, calibrationIsIdentity, sourceBias.isFinite {
            calibrated = raw.minus(sourceBias)
        } else {
            calibrated = calibration.apply(raw)
        }
        let field = settings.mounting.boardVector(calibrated)
        let strength = field.length
        guard haveAccel, strength > 0, strength.isFinite else { return .none }

        let withGyro = gyroscopePresent(at: t)
        let magneticBound = settings.magneticHeadingErrorDegrees
        let decision: InterferenceMonitor.Decision
        var headingDegrees: Double
        var accepted = true
        let matrix: Matrix3
        if withGyro {
            if !attitudeValid {
                guard let start = AttitudeQuaternion.triad(up: accel, field: field) else { return .none }
                attitude = start
                attitudeValid = true
                bound = settings.maximumAccuracyDegrees
                inconsistency = 0
                rotationSinceMag = 0
            }
            matrix = attitude.matrix
            let level = matrix * field
            let horizontal = (level.x * level.x + level.y * level.y).squareRoot()
            // Azimuth of the measured field from the filter's magnetic north: true − estimated heading.
            let disagreement = HeadingMath.atan2Degrees(level.y, level.x)
            // Low-passed on the circle, kept in (−180, 180]: a field turning against the gyroscope (a hard iron
            // while rotating) must not wind it up.
            inconsistency = HeadingMath.difference(inconsistency + HeadingMath.difference(disagreement, inconsistency)
                * min(1, dt / settings.headingConsistencyTimeConstantSeconds), 0)
            decision = monitor.evaluate(.init(
                dt: dt, field: strength, inclination: HeadingMath.atan2Degrees(-level.z, horizontal),
                inconsistency: inconsistency, bound: bound, magnetometerBound: magneticBound,
                headingLost: !(bound + suspicion <= settings.maximumAccuracyDegrees),
                stationary: stillSeconds >= settings.stationarySeconds))
            if decision.rejecting {
                accepted = false
                monitor.accumulateSignature(level: level, levelToBoard: matrix.transposed,
                                            rotationDegrees: rotationSinceMag)
            } else if wasRejecting {
                suspicion = max(suspicion, abs(inconsistency))
            } else {
                suspicion -= suspicion * min(1, dt / settings.suspicionTimeConstantSeconds)
            }
            wasRejecting = decision.rejecting
            rotationSinceMag = 0
            headingDegrees = HeadingMath.atan2Degrees(-matrix.r1.x, matrix.r0.x)
            if accepted {
                let gain = bound > 2 * magneticBound ? settings.convergenceGain : settings.magnetometerGain
                let k = min(1, gain * dt)
                // Turn the heading by k × disagreement: a rotation about the vertical (tilt untouched).
                attitude = (AttitudeQuaternion.aboutVertical(-k * disagreement * Self.radians) * attitude).normalized
                headingDegrees += k * disagreement
                bound = (1 - k) * bound + k * magneticBound
            }
        } else {
            // Accelerometer + magnetometer only: an e-compass on lightly averaged vectors.
            let previous = fieldAverage
            if haveFieldAverage {
                fieldAverage = fieldAverage.plus(field.minus(fieldAverage)
                    .times(min(1, dt / max(settings.vectorTimeConstantSeconds, 1e-6))))
            } else {
                fieldAverage = field
                haveFieldAverage = true
            }
            guard let m = AttitudeQuaternion.triadMatrix(up: accelFast, field: fieldAverage) else { return .none }
            // The gyroscope filter restarts from TRIAD when a gyroscope appears.
            attitudeValid = false
            matrix = m
            let level = matrix * field
            let horizontal = (level.x * level.x + level.y * level.y).squareRoot()
            if dt > 0 {
                // How fast the averaged field turns in the board frame: the board's rotation rate, roughly.
                let turned = HeadingMath.atan2Degrees(previous.cross(fieldAverage).length, previous.dot(fieldAverage))
                fieldRate = max(turned / dt, fieldRate - fieldRate * min(1, dt / 0.3))
            }
            inconsistency = 0
            decision = monitor.evaluate(.init(
                dt: dt, field: strength, inclination: HeadingMath.atan2Degrees(-level.z, horizontal),
                inconsistency: .nan, bound: bound, magnetometerBound: magneticBound, headingLost: false,
                stationary: false))
            headingDegrees = HeadingMath.atan2Degrees(-matrix.r1.x, matrix.r0.x)
            accepted = !decision.rejecting
            // A tilt error turns the heading through the field's dip and through the projection of a pitched x axis.
            let sinPitch = min(0.95, abs(matrix.r2.x))
            let pitchFactor = sinPitch / (1 - sinPitch * sinPitch).squareRoot()
            let tilt = settings.linearAccelerationAccuracyDegrees * dynamics * (monitor.inclinationFactor + pitchFactor)
            bound = magneticBound + tilt + settings.rotationLagAccuracySeconds * fieldRate
        }

        // Accuracy: −1 without a reference, when lost, in the blackout zone, or disturbed without a gyroscope.
        let hasReference = monitor.hasReference
        var accuracy = bound
        if withGyro {
            accuracy += suspicion
            if accepted { accuracy += settings.inconsistencyAccuracyShare * abs(inconsistency) }
            // The x axis's azimuth is ill-defined near vertical: a tilt error ε turns it by up to ε·tan(pitch).
            let sinPitch = min(0.99999, abs(matrix.r2.x))
            accuracy += settings.tiltErrorDegrees * sinPitch / (1 - sinPitch * sinPitch).squareRoot()
        }
        if !hasReference || !(accuracy <= settings.maximumAccuracyDegrees) || (!withGyro && !accepted) || blackout {
            accuracy = -1
        }

        var update = HeadingUpdate()
        if let c = decision.calibration {
            update.calibration = CalibrationNeededEvent(needed: c.needed, reason: c.reason, monotonicNanos: t,
                                                        sampleTimeSeconds: sampleTime)
        }
        let magnetic = HeadingMath.wrap360(headingDegrees + settings.displayOffsetDegrees)
        let valid = accuracy >= 0
        let state: MagneticInterference.State = decision.rejecting
            ? (decision.calibrationNeeded ? .persistent : .transient) : .none
        if let last = lastDeliveredHeading, valid == lastDeliveredValid, state == lastDeliveredInterference,
           abs(HeadingMath.difference(magnetic, last)) < settings.headingFilterDegrees {
            return update
        }
        lastDeliveredHeading = magnetic
        lastDeliveredValid = valid
        lastDeliveredInterference = state

        var interference = MagneticInterference()
        interference.state = state
        interference.failedChecks = decision.failed
        if hasReference {
            interference.magnitudeDeviationMicrotesla = decision.fieldDeviation
            interference.inclinationDeviationDegrees = decision.inclinationDeviation
        }
        interference.headingInconsistencyDegrees = inconsistency
        interference.disturbedSeconds = decision.disturbedSeconds
        interference.reference = decision.reference
        update.report = HeadingReport(
            monotonicNanos: t, sampleTimeSeconds: sampleTime, magneticHeadingDegrees: magnetic,
            trueHeadingDegrees: declination.map { HeadingMath.wrap360(magnetic + $0) },
            declinationDegrees: declination, headingAccuracyDegrees: accuracy,
            rollDegrees: HeadingMath.atan2Degrees(matrix.r2.y, matrix.r2.z),
            pitchDegrees: HeadingMath.asinDegrees(matrix.r2.x),
            rawFieldMicrotesla: raw, calibratedFieldMicrotesla: field, interference: interference,
            usesGyroscope: withGyro)
        return update
    }
}
