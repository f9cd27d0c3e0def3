#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import LocationCore

/// Motion-aided position smoothing: a Kalman filter in a local east-north tangent frame.
///
/// State: east, north (m), east/north velocity (m/s) and a first-order Gauss–Markov receiver error (east, north; m)
/// that models the slowly wandering, time-correlated part of GNSS error (a phone's fix wanders metres over tens of
/// seconds; treating that as white noise would make the filter over-confident). A fix measures position + error + white noise.
///
/// Measurement noise: `horizontalAccuracyMeters` is a 68 % radius (Core Location, and what EpochAssembler derives from
/// GST or HDOP × UERE), so the per-axis σ is radius / 1.51 (`HorizontalError.sigma(fromRadius68:)`), times
/// `measurementNoiseScale`. GST's per-axis 1-σ (`latitudeErrorMeters`/`longitudeErrorMeters`) is used directly when present.
/// A fraction `correlatedErrorFraction` of that variance goes to the Gauss–Markov state, the rest is white.
///
/// Time comes only from the fixes (and accelerometer samples): duplicates and out-of-order epochs are ignored.
/// Pure value type: no clock, no I/O.
public struct PositionSmoother: Sendable {
    public struct Settings: Sendable, Hashable {
        /// White-acceleration spectral density for the constant-velocity model, m²/s³ (vehicle ≈ 1–4, pedestrian ≈ 0.5).
        public var accelerationNoiseDensity: Double = 2.0
        /// Used instead when accelerometer input (navigation frame) is fresh: the residual after the control input.
        public var aidedAccelerationNoiseDensity: Double = 0.5
        /// Multiplies the σ derived from the fix's accuracy.
        public var measurementNoiseScale: Double = 1.0
        /// Smallest per-axis σ ever assumed for a fix, m.
        public var minimumMeasurementSigmaMeters: Double = 0.05
        /// σ assumed when a fix has no accuracy at all, m (per axis).
        public var defaultMeasurementSigmaMeters: Double = 5.0
        /// Share of the fix variance that is time-correlated receiver error (0 = all white).
        public var correlatedErrorFraction: Double = 0.5
        /// Correlation time of that error, s.
        public var correlatedErrorTimeConstantSeconds: Double = 30
        /// Speed 1-σ when the fix has no speed accuracy, m/s; course 1-σ, degrees.
        public var speedSigmaMetersPerSecond: Double = 0.3
        public var courseSigmaDegrees: Double = 5
        /// Below this speed, course is not used (velocity update skipped unless stationary).
        public var minimumSpeedForCourseMetersPerSecond: Double = 1.0
        public var useVelocity = true
        /// χ² gate for a 2-D position innovation (13.8 ≈ 99.9 %).
        public var positionGateChiSquare: Double = 13.8
        /// χ² gate for a 2-D velocity innovation.
        public var velocityGateChiSquare: Double = 13.8
        /// After this many consecutive rejected fixes the filter re-initialises on the latest one.
        public var reinitialiseAfterRejections: Int = 5
        /// Stationary detection (hysteresis): enter when GNSS speed ≤ enter speed for `stationaryEnterSeconds`
        /// (and the accelerometer variance, if fresh, ≤ its enter threshold); leave when speed ≥ exit speed or
        /// variance ≥ exit threshold.
        public var stationaryEnterSpeedMetersPerSecond: Double = 0.25
        public var stationaryExitSpeedMetersPerSecond: Double = 0.7
        public var stationaryEnterSeconds: Double = 2.0
        public var accelerometerVarianceEnter: Double = 0.02
        public var accelerometerVarianceExit: Double = 0.15
        public var accelerometerWindowSeconds: Double = 1.0
        /// Accelerometer data older than this is not used (neither as control input nor for stationarity).
        public var accelerometerMaximumAgeSeconds: Double = 0.5
        /// While stationary the output is held; it moves only if the estimate leaves the held point by more than
        /// max(this, `holdDeadbandRadiusFactor` × the held point's 68 % radius).
        public var holdMinimumDeadbandMeters: Double = 0.5
        public var holdDeadbandRadiusFactor: Double = 2
        /// Dead-reckoning predictions stop (nil) after this long without a fix.
        public var maximumOutageSeconds: Double = 30
        /// Re-anchor the tangent frame when the estimate is this far from the anchor.
        public var reanchorDistanceMeters: Double = 10_000
        public init() {}
        public static let `default` = Settings()
    }

    /// What the last `process(fix:)` did.
    public enum Outcome: Sendable, Hashable {
        case initialised, accepted, rejected, reinitialised, held, duplicate, outOfOrder, noPosition
    }

    public let settings: Settings
    public internal(set) var frame: LocalTangentFrame?
    var kf = KalmanFilter(n: 6)
    public internal(set) var time: Timestamp?
    public internal(set) var isStationary = false
    public internal(set) var lastOutcome: Outcome = .noPosition
    public internal(set) var consecutiveRejections = 0
    public internal(set) var lastOutput: Location?
    var lowSpeedSince: Timestamp?
    var held: (east: Double, north: Double, radius: Double)?
    var lastMeasurementVariance = 25.0
    // Accelerometer: latest navigation-frame acceleration and a window of specific-force magnitudes.
    var accelerationENU: (east: Double, north: Double)?
    var accelerationTime: Timestamp?
    var accelWindow: [(t: Int64, m: Double)] = []

    public init(settings: Settings = .default) { self.settings = settings }

    // MARK: fixes

    public mutating func process(fix: Location) -> Location {
        guard let lat = fix.latitudeDegrees, let lon = fix.longitudeDegrees, fix.mode != .noFix, let t = fix.time else {
            lastOutcome = .noPosition
            return fix
        }
        if let last = time {
            if t == last { lastOutcome = .duplicate; return lastOutput ?? fix }
            if t < last { lastOutcome = .outOfOrder; return lastOutput ?? fix }
        }
        let (sigE, sigN) = measurementSigmas(fix)
        guard let frame0 = frame, time != nil else {
            initialise(fix: fix, lat: lat, lon: lon, sigE: sigE, sigN: sigN, t: t)
            lastOutcome = .initialised
            return output(from: fix)
        }
        let dt = Double(t.nanosecondsSince1970 - time!.nanosecondsSince1970) / 1e9
        propagate(dt: dt, at: t)
        time = t
        updateMotionState(fix: fix, t: t)
        let z = frame0.enu(latitudeDegrees: lat, longitudeDegrees: lon)
        let f = settings.correlatedErrorFraction
        let varE = sigE * sigE, varN = sigN * sigN
        lastMeasurementVariance = (varE + varN) / 2
        let h: [Double] = [1, 0, 0, 0, 1, 0,
                           0, 1, 0, 0, 0, 1]
        let r: [Double] = [(1 - f) * varE, 0, 0, (1 - f) * varN]
        let inn = kf.innovation(z: [z.east, z.north], h: h, r: r)
        if inn.nis > settings.positionGateChiSquare {
            consecutiveRejections += 1
            if consecutiveRejections >= settings.reinitialiseAfterRejections {
                initialise(fix: fix, lat: lat, lon: lon, sigE: sigE, sigN: sigN, t: t)
                lastOutcome = .reinitialised
                return output(from: fix)
            }
            lastOutcome = .rejected
            return output(from: fix)
        }
        consecutiveRejections = 0
        kf.update(z: [z.east, z.north], h: h, r: r)
        if isStationary {
            zeroVelocityUpdate()
            lastOutcome = .held
        } else {
            velocityUpdate(fix: fix)
            lastOutcome = .accepted
        }
        reanchorIfNeeded()
        return output(from: fix)
    }

    /// Dead-reckoned location at `time` (no state change), flagged `.deadReckoning`, with the covariance grown by the
    /// process noise; nil before the first fix, for a time before the last fix, or beyond `maximumOutageSeconds`.
    public func predict(to t: Timestamp) -> Location? {
        guard let last = time, frame != nil, let base = lastOutput, t >= last else { return nil }
        let dt = Double(t.nanosecondsSince1970 - last.nanosecondsSince1970) / 1e9
        guard dt <= settings.maximumOutageSeconds else { return nil }
        var copy = self
        copy.propagate(dt: dt, at: t)
        copy.time = t
        var template = base
        template.time = t
        var out = copy.output(from: template)
        out.quality = .deadReckoning
        return out
    }

    // MARK: accelerometer

    /// Acceleration in the navigation frame (x east, y north, z up; gravity removed), m/s². Used as the control input
    /// between fixes while fresh, and its magnitude's variance for stationary detection.
    public mutating func process(accelerationENU a: Vector3, at t: Timestamp) {
        accelerationENU = (a.x, a.y)
        accelerationTime = t
        accelWindow.append((t.nanosecondsSince1970, a.norm))
        let keep = t.nanosecondsSince1970 - Int64(settings.accelerometerWindowSeconds * 1e9)
        if let i = accelWindow.firstIndex(where: { $0.t >= keep }), i > 0 { accelWindow.removeFirst(i) }
    }

    /// Specific force in the sensor frame (m/s², gravity included) rotated into ENU by the heading stack's attitude
    /// (`bodyToENU`), gravity removed.
    public mutating func process(specificForce f: Vector3, bodyToENU: Matrix3, at t: Timestamp,
                                 gravityMetersPerSecondSquared g: Double = 9.806_65) {
        let a = bodyToENU * f
        process(accelerationENU: Vector3(x: a.x, y: a.y, z: a.z - g), at: t)
    }

    /// Variance of the acceleration magnitude over the window, when the accelerometer is fresh at `t`.
    public func accelerometerVariance(at t: Timestamp) -> Double? {
        guard let at = accelerationTime,
              Double(t.nanosecondsSince1970 - at.nanosecondsSince1970) / 1e9 <= settings.accelerometerMaximumAgeSeconds,
              accelWindow.count >= 5 else { return nil }
        let mean = accelWindow.reduce(0) { $0 + $1.m } / Double(accelWindow.count)
        return accelWindow.reduce(0) { $0 + ($1.m - mean) * ($1.m - mean) } / Double(accelWindow.count - 1)
    }
}
