#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

/// Heading of a vehicle (car, boat, robot, tractor) from a magnetometer, an accelerometer, the GNSS course and,
/// when present, a gyroscope — with the magnetometer calibration, the sensor's mounting and its hard iron learned
/// while driving. See docs/heading.md.
///
/// - **Tilt**: gravity is the low-passed accelerometer minus the vehicle's own acceleration (along-track from the
///   GNSS speed, centripetal from speed × yaw rate), along the learned forward axis; the field is levelled with it.
/// - **Calibration in motion** (`CourseMagnetometerFit`): the levelled horizontal field is regressed on the
///   course-derived true heading: hard iron, 2-D soft iron, mounting yaw and declination in one linear fit, adopted
///   when coverage and residual allow, refined with every course pair, restarted when the field stays disturbed.
/// - **Fusion**: a 3-state Kalman filter — true heading ψ, r (the heading rate without a gyroscope, the gyroscope's
///   bias with one) and β (the magnetometer heading's slowly varying error). The gyroscope propagates ψ; the
///   magnetometer measures ψ + β; the course measures ψ (moving at speed). A disturbed field is gated out, and
///   while stopped the heading is held.
/// - **Accuracy**: `accuracySigmas` × the filter's σ of ψ; −1 before anything observed the heading or past
///   `maximumAccuracyDegrees`.
///
/// Pure: time comes only from the samples' monotonic stamps.
public struct VehicleHeadingEstimator: Sendable {
    public private(set) var settings: Settings
    /// The magnetometer calibration applied before everything (e.g. from `lodestar calibrate`), sensor frame.
    public private(set) var calibration: MagnetometerCalibration

    // Tilt.
    private var accelLP = Vector3.zero
    /// The specific force itself, averaged over about a second (for learning the forward axis).
    private var specificForceLP = Vector3.zero
    private var accelCount = 0
    private var lastAccelNanos: Int64?
    /// Mounting up axis (slow mean of gravity), forward axis (learned from along-track accelerations), sensor frame.
    private(set) var mountUp = Vector3(x: 0, y: 0, z: 1)
    private(set) var forward = Vector3(x: 1, y: 0, z: 0)
    private var forwardSum = Vector3.zero, forwardWeight = 0.0
    /// Sensor axis whose horizontal projection is the fit's x axis (fixed once chosen).
    private(set) var referenceAxis: Vector3?
    private var up = Vector3(x: 0, y: 0, z: 1)

    // GNSS.
    private var speed = 0.0, alongTrack = 0.0, alongTrackSlope = 0.0, alongTrackCentre: Int64 = 0
    private var lastCourse: Double?, lastCourseNanos: Int64 = 0
    private var courseRate = 0.0, courseRateSlope = 0.0, courseRateCentre: Int64 = 0, courseRateValid = false
    private var magneticRate = 0.0, magneticRateValid = false, lastMagneticHeading = Double.nan
    private var lastFixNanos: Int64?
    private var lastFixSpeed: Double?
    private var baseFixNanos: Int64?
    private var haveSpeed = false
    private var quietSeconds = 0.0

    // Gyroscope.
    private var lastGyroNanos: Int64?
    private var gyroTurn = 0.0, gyroSeconds = 0.0, gyroRate = 0.0
    private var usingGyro = false

    // Filter: x = [ψ, r, β], P upper triangle.
    private var psi = 0.0, rate = 0.0, beta = 0.0
    private var p00 = 1e6, p01 = 0.0, p02 = 0.0, p11 = 100.0, p12 = 0.0, p22 = 4.0
    private var initialized = false
    private var lastMagNanos: Int64?
    /// The time the filter's state refers to (the last magnetometer sample, or without one the last fix).
    private var lastFilterNanos: Int64?
    /// The magnetometer's white noise per axis (µT²), from second differences of its samples, and the last two.
    private var magnetometerNoiseVariance: Double?
    private var lastFields: (Vector3, Vector3)?
    /// Running mean of the receiver heading's normalised squared innovations (its claimed noise is scaled by it).
    private var receiverHeadingNoiseScale = 1.0
    private var receiverHeadingSeen = false
    private var lastReceiverHeadingNanos: Int64?

    // Calibration in motion.
    private var fit = CourseMagnetometerFit()
    private var lastPairNanos: Int64?
    /// The candidate fit's last pair (its pairs' succession, `CourseMagnetometerFit.whiteResidualMeanSquare`).
    private var lastCandidatePairNanos: Int64?
    private var candidate: CourseMagnetometerFit?
    public private(set) var solution: CourseMagnetometerFit.Solution?
    private var solutionFromState = false
    private var restored = false
    private var restoredCoverage = 0.0, restoredPairs = 0
    private var fitLatitude: Double?, fitLongitude: Double?
    private var lastLatitude: Double?, lastLongitude: Double?
    public private(set) var calibrationsAdopted = 0
    /// Samples of the levelled field for pairing with the course at its epoch: (t, x, y, vertical).
    private var history = [(Int64, Double, Double, Double)](repeating: (0, 0, 0, 0), count: 64)
    private var historyHead = 0, historyCount = 0

    // Interference.
    private var devH = 0.0, devV = 0.0
    private var disturbed = false, disturbedSeconds = 0.0, cleanSeconds = 0.0, inconsistent = 0.0
    private var failed: MagneticInterference.Checks = []
    private var magneticHeading = Double.nan

    // Calibration mismatch (the field no longer fits the calibration: a changed hard iron, lasting interference).
    /// The magnetometer heading's error the calibration and β no longer explain (°², as a variance).
    private var mismatchVariance = 0.0
    /// Running mean of the pairs' normalised squared residuals (1 when the calibration fits).
    private var mismatchMean = 1.0
    private var lastMismatchNanos: Int64?
    /// The misfit variance held while a fresh fit replaces a calibration that stopped fitting.
    private var mismatchFloor = 0.0

    // Field model.
    private var declinationCache = DeclinationCache()
    public private(set) var declinationDegrees: Double?
    public private(set) var fieldElements: MagneticFieldElements?
    private var declinationAtFit: Double?
    private var lastDecimalYear: Double?

    // Delivery.
    private var lastDelivered: Double?
    private var lastDeliveredValid = false
    private var lastDeliveredInterference: MagneticInterference.State = .none

    public init(settings: Settings = .default, calibration: MagnetometerCalibration = .identity) {
        self.settings = settings
        self.calibration = calibration
    }

    public mutating func setOutput(headingFilterDegrees: Double) { settings.headingFilterDegrees = headingFilterDegrees }

    // MARK: - Status

    /// What the estimator currently knows (for diagnosis and the calibration state file).
    public struct Status: Sendable, Hashable {
        public var calibrated: Bool
        public var calibrationFromState: Bool
        public var coverage: Double
        public var pairs: Int
        public var residualDegrees: Double?
        public var horizontalFieldMicrotesla: Double?
        public var mountingYawDegrees: Double?
        public var disturbed: Bool
        public var usesGyroscope: Bool
        public var headingSigmaDegrees: Double
        public var magneticBiasDegrees: Double
        /// The magnetometer's own true heading (fit applied), NaN before a calibration.
        public var magneticHeadingDegrees: Double
        public var rateDegreesPerSecond: Double
        /// The running fit solved now (adopted or not): its residual as a heading RMS and horizontal field.
        public var fitResidualDegrees: Double?
        public var fitHorizontalMicrotesla: Double?
    }

    public var status: Status {
        Status(calibrated: solution != nil, calibrationFromState: solutionFromState, coverage: fit.coverage,
               pairs: fit.pairs, residualDegrees: solution.map(residualDegrees(_:)),
               horizontalFieldMicrotesla: solution?.horizontalMicrotesla, mountingYawDegrees: mountingYawDegrees,
               disturbed: disturbed, usesGyroscope: usingGyro, headingSigmaDegrees: p00.squareRoot(),
               magneticBiasDegrees: beta, magneticHeadingDegrees: magneticHeading, rateDegreesPerSecond: currentRate,
               fitResidualDegrees: fit.solve().map(residualDegrees(_:)), fitHorizontalMicrotesla: fit.solve()?.horizontalMicrotesla)
    }

    /// The reference axis' yaw relative to the vehicle's forward axis (degrees, clockwise; the sensor's x axis
    /// unless it points up or down), learned from the course: the fit's rotation is that yaw minus the declination.
    public var mountingYawDegrees: Double? {
        guard let s = solution, let d = declinationAtFit ?? declinationDegrees else { return nil }
        return HeadingMath.difference(s.rotationDegrees + d, 0)
    }

    /// The 3-D hard iron in the sensor frame: the fit's planar part, and the vertical part from the fit's mean
    /// vertical component and the World Magnetic Model's vertical field at the fix (nil before a fix).
    public var hardIronMicrotesla: Vector3? {
        guard let s = solution, let e = fieldElements, let axis = referenceAxis,
              let h1 = Self.project(axis, perpendicularTo: mountUp) else { return nil }
        let h2 = mountUp.cross(h1)
        let vertical = s.verticalMicrotesla + e.downNanotesla / 1000
        return h1.times(s.hardIron.x).plus(h2.times(s.hardIron.y)).plus(mountUp.times(vertical))
    }

    /// Bumped whenever a calibration is adopted or refined (persist the state when it changed).
    public private(set) var calibrationRevision = 0

    /// The learned calibration, for the state file (nil before one was adopted).
    public var calibrationState: VehicleCalibrationState? {
        guard let s = solution, let axis = referenceAxis else { return nil }
        return VehicleCalibrationState(
            referenceAxis: axis, mountUp: mountUp, forward: forward, solution: s, hardIronMicrotesla: hardIronMicrotesla,
            declinationDegrees: declinationAtFit ?? declinationDegrees, mountingYawDegrees: mountingYawDegrees,
            residualDegrees: residualDegrees(s), coverage: solutionFromState ? restoredCoverage : fit.coverage,
            pairs: solutionFromState ? restoredPairs : fit.pairs,
            latitudeDegrees: fitLatitude, longitudeDegrees: fitLongitude)
    }

    /// Starts from a persisted calibration: the magnetometer heading is usable from the first sample, with the
    /// state's residual (plus a margin: the board may have been moved or changed since) in its uncertainty.
    public mutating func restore(_ state: VehicleCalibrationState) {
        referenceAxis = state.referenceAxis.normalizedOrSelf
        mountUp = state.mountUp.normalizedOrSelf
        forward = state.forward.normalizedOrSelf
        forwardSum = forward.times(8); forwardWeight = 8
        solution = state.solution
        solutionFromState = true
        restoredCoverage = state.coverage; restoredPairs = state.pairs
        declinationAtFit = state.declinationDegrees
        fitLatitude = state.latitudeDegrees; fitLongitude = state.longitudeDegrees
        restored = true
        beta = 0; p02 = 0
        p22 = pow(state.residualDegrees + 2, 2)
    }

    /// How much a tilt error turns the heading: |vertical| / horizontal of the fitted field.
    private func tanInclination(_ s: CourseMagnetometerFit.Solution) -> Double {
        min(8, abs(s.verticalMicrotesla) / max(s.horizontalMicrotesla, 1e-3))
    }

    private func residualDegrees(_ s: CourseMagnetometerFit.Solution) -> Double {
        s.residualMeanSquare.squareRoot() / max(s.horizontalMicrotesla, 1e-6) * HeadingMath.degreesPerRadian
    }

    // MARK: - Inputs

    /// A fix: speed and course (moving), position (WMM), and a receiver's true heading (dual antenna: NMEA
    /// HDT/THS, u-blox NAV-RELPOSNED) when it carries one. `monotonicNanos` is when it arrived.
    ///
    /// Without a magnetometer (none yet, or none for `magnetometerTimeoutSeconds`) the filter is advanced to the
    /// fix and, when the fix carried a receiver heading, the heading is returned here (the magnetometer's samples
    /// return it otherwise).
    @discardableResult
    public mutating func update(fix: Location, monotonicNanos t: Int64) -> HeadingUpdate {
        let withoutMagnetometer = lastMagNanos.map { Double(t &- $0) * 1e-9 > settings.magnetometerTimeoutSeconds } ?? true
        if withoutMagnetometer { advance(to: t) }
        let receiverHeading = fix.receiverHeadingDegrees.flatMap { $0.isFinite ? $0 : nil }
        courseAndPosition(fix: fix, monotonicNanos: t, pairCourse: receiverHeading == nil)
        guard let heading = receiverHeading else {
            // The second antenna lost its fix: without a magnetometer the course (and gyroscope) carry on.
            return withoutMagnetometer && receiverHeadingSeen ? deliver(t, raw: .zero, calibrated: .zero) : .none
        }
        receiverHeadingSeen = true
        receiverHeadingUpdate(heading, accuracy: fix.receiverHeadingAccuracyDegrees, t,
                              sinceFilter: withoutMagnetometer ? 0 : lastMagNanos.map { Double(t &- $0) * 1e-9 } ?? 0)
        guard withoutMagnetometer else { return .none }
        return deliver(t, raw: .zero, calibrated: .zero)
    }

    /// Advances the filter to `t` when no magnetometer sample does (the gyroscope's turn, or the rate model).
    private mutating func advance(to t: Int64) {
        let dt = lastFilterNanos.map { Double(t &- $0) * 1e-9 } ?? 0
        lastFilterNanos = t
        selectGyroscope(t)
        guard dt > 0 else { return }
        let fresh = lastFixNanos.map { Double(t &- $0) * 1e-9 < 2.5 } ?? false
        let stationary = fresh && speed < 0.5 && quietSeconds > 0.5
        up = accelLP.length > 0 ? accelLP.times(1 / accelLP.length) : up
        predict(dt: min(dt, 2), stationary: stationary)
    }

    /// The receiver's true heading (a dual-antenna baseline along the vehicle's forward axis, less
    /// `receiverHeadingOffsetDegrees`): a measurement of ψ with the receiver's accuracy (or the default σ), scaled
    /// up when its innovations show more noise than claimed; and, moving, a calibration pair for the
    /// magnetometer (it observes the hard iron and the mounting yaw like the course, without sideslip).
    private mutating func receiverHeadingUpdate(_ heading: Double, accuracy: Double?, _ t: Int64, sinceFilter: Double) {
        let claimed = accuracy.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? settings.receiverHeadingSigmaDegrees
        let turnRate = currentRate
        let latency = settings.courseLatencySeconds
        var variance = claimed * claimed + pow(turnRate * settings.courseLatencySigmaSeconds, 2)
        variance *= max(1, receiverHeadingNoiseScale)
        // Multipath keeps a dual-antenna heading's error for seconds: fixes closer than that are not independent.
        let gap = lastReceiverHeadingNanos.map { max(0.05, Double(t &- $0) * 1e-9) } ?? 1
        lastReceiverHeadingNanos = t
        let perCorrelation = max(1, settings.receiverHeadingCorrelationSeconds / gap)
        let measured = heading - settings.receiverHeadingOffsetDegrees
        let observed = measured + turnRate * (latency - sinceFilter)
        if !initialized {
            psi = HeadingMath.wrap360(observed); p00 = variance; p01 = 0; p02 = 0
            initialized = true
        } else {
            let nu = HeadingMath.difference(observed, psi)
            let s = p00 + variance
            receiverHeadingNoiseScale += (min(nu * nu / s, 25) - receiverHeadingNoiseScale)
                * settings.receiverHeadingNoiseAdaptation
            if nu * nu <= 25 * s || p00.squareRoot() > 20 {
                update(innovation: nu, h0: 1, h2: 0, variance: variance * perCorrelation)
            }
        }
        if speed >= 0.5 {
            pairWithCourse(measured, sigma: variance.squareRoot(), epochNanos: t &- Int64(latency * 1e9))
        }
    }

    private mutating func selectGyroscope(_ t: Int64) {
        let gyroNow = lastGyroNanos.map { Double(t &- $0) * 1e-9 <= settings.gyroscopeTimeoutSeconds } ?? false
        if gyroNow != usingGyro {
            usingGyro = gyroNow
            rate = 0; p01 = 0; p12 = 0
            let r0 = gyroNow ? settings.gyroscopeInitialBiasDegreesPerSecond : 10
            p11 = r0 * r0
            gyroTurn = 0; gyroSeconds = 0
        }
    }

    private mutating func courseAndPosition(fix: Location, monotonicNanos t: Int64, pairCourse: Bool) {
        if let lat = fix.latitudeDegrees, let lon = fix.longitudeDegrees, fix.mode != .noFix {
            let h = fix.altitudeEllipsoidMeters
                ?? fix.altitudeMSLMeters.map { $0 + (fix.geoidSeparationMeters ?? 0) } ?? 0
            let year = fix.time.map(WorldMagneticModel.decimalYear(of:)) ?? lastDecimalYear ?? 2025.5
            lastDecimalYear = year
            if lat.isFinite, lon.isFinite, abs(lat) <= 90, h.isFinite {
                let e = declinationCache.elements(latitudeDegrees: lat, longitudeDegrees: lon,
                                                  heightAboveEllipsoidKilometers: h / 1000, decimalYear: year)
                if e.declinationDegrees.isFinite { fieldElements = e; declinationDegrees = e.declinationDegrees }
                lastLatitude = lat; lastLongitude = lon
            }
        }
        guard fix.mode != .noFix, let v = fix.speedMetersPerSecond, v.isFinite, v >= 0 else { return }
        // Differences over at least `derivativeBaselineSeconds` (at 5–10 Hz, fix-to-fix differences are noise).
        let baseline = settings.derivativeBaselineSeconds
        if let last = baseFixNanos, let lastV = lastFixSpeed {
            let dt = Double(t &- last) * 1e-9
            if dt >= baseline && dt < 3 {
                let previous = alongTrack
                alongTrack = max(-8, min(8, (v - lastV) / dt))
                // The difference is the mean over the interval (centred half of it back): extrapolate by its trend.
                alongTrackSlope = max(-3, min(3, (alongTrack - previous) / dt))
                alongTrackCentre = t &- Int64(dt * 0.5e9) &- Int64(settings.courseLatencySeconds * 1e9)
                baseFixNanos = t; lastFixSpeed = v
            } else if dt >= 3 || dt < 0 {
                alongTrack = 0; alongTrackSlope = 0; baseFixNanos = t; lastFixSpeed = v
            }
        } else {
            baseFixNanos = t; lastFixSpeed = v
        }
        lastFixNanos = t; speed = v; haveSpeed = true
        learnForward(v)

        guard v >= settings.minimumCourseSpeedMetersPerSecond, let course = fix.courseDegrees, course.isFinite
        else { lastCourse = nil; courseRateValid = v < 0.5; courseRate = 0; courseRateSlope = 0; return }
        let sv = fix.speedAccuracyMetersPerSecond ?? settings.speedSigmaMetersPerSecond
        var sigma = fix.courseAccuracyDegrees ?? atan2(sv, v) * HeadingMath.degreesPerRadian
        let turnRate = currentRate
        let latency = settings.courseLatencySeconds
        let sinceMag = lastMagNanos.map { Double(t &- $0) * 1e-9 } ?? 0
        sigma = (sigma * sigma + settings.sideslipDegrees * settings.sideslipDegrees
                 + pow(turnRate * settings.courseLatencySigmaSeconds, 2)).squareRoot()
        // The course at its epoch, carried to the filter's time (the last magnetometer sample).
        let observed = course + turnRate * (latency - sinceMag)
        courseUpdate(observed, sigma: sigma)
        var newBase = lastCourse == nil
        if !usingGyro, let previous = lastCourse {
            let gap = Double(t &- lastCourseNanos) * 1e-9
            if gap >= 2.5 { newBase = true }
            if gap >= baseline && gap < 2.5 {
                newBase = true
                // The mean rate over the interval: the filter's rate, within what the turn could change in it.
                let z = HeadingMath.difference(course, previous) / gap
                courseRateSlope = courseRateValid ? max(-20, min(20, (z - courseRate) / gap)) : 0
                courseRate = z; courseRateValid = true
                courseRateCentre = t &- Int64(gap * 0.5e9) &- Int64(settings.courseLatencySeconds * 1e9)
                let r = 2 * sigma * sigma / (gap * gap) + pow(settings.headingAccelerationNoise.squareRoot() * gap, 2) / 4
                rateUpdate(z, variance: r)
            }
        }
        if newBase || usingGyro { lastCourse = course; lastCourseNanos = t }
        if pairCourse { pairWithCourse(course, sigma: sigma, epochNanos: t &- Int64(latency * 1e9)) }
    }

    /// Heading rate (°/s, clockwise): the gyroscope's, else the filter's.
    private var currentRate: Double { usingGyro ? gyroRate - rate : rate }
    /// For the centripetal acceleration: the gyroscope's rate, else the magnetometer heading's (when calibrated
    /// and clean), else the filter's.
    /// Without a gyroscope the course's rate of change (carried forward by its trend), not the magnetometer's:
    /// the magnetometer heading depends on the tilt, and closing that loop at speed is unstable.
    private func turnRateForTilt(_ t: Int64) -> Double {
        if usingGyro { return gyroRate - rate }
        guard courseRateValid, Double(t &- lastCourseNanos) * 1e-9 < 3.5 else { return 0 }
        let ahead = min(1.5, max(0, Double(t &- courseRateCentre) * 1e-9))
        return courseRate + courseRateSlope * ahead
    }

    /// Along-track acceleration now (m/s²): the last speed difference carried forward by its trend (limited).
    private func alongTrackNow(_ t: Int64) -> Double {
        let ahead = min(1.5, max(0, Double(t &- alongTrackCentre) * 1e-9))
        return alongTrack + alongTrackSlope * ahead
    }

    public mutating func process(_ sample: MotionSample, monotonicNanos t: Int64) -> HeadingUpdate {
        switch sample {
        case .accelerometer(let a, let b): accelerometer(b.map { a - $0 } ?? a, t)
        case .accelerometerRaw(let r): accelerometer(r.vector, t)
        case .gyroscope(let w, let d): gyroscope(d.map { w - $0 } ?? w, t)
        case .gyroscopeRaw(let r): gyroscope(r.vector, t)
        case .magnetometer(let f, let b):
            return magnetometer(calibration == .identity ? (b.map { f - $0 } ?? f) : calibration.apply(f), raw: f, t)
        case .magnetometerRaw(let r): return magnetometer(calibration.apply(r.vector), raw: r.vector, t)
        }
        return .none
    }

    private static func seconds(_ last: inout Int64?, _ t: Int64) -> Double? {
        guard let p = last else { last = t; return 0 }
        guard t >= p else { if p &- t > 1_000_000_000 { last = t; return 0 }; return nil }
        last = t
        return Double(t &- p) * 1e-9
    }

    private mutating func accelerometer(_ a: Vector3, _ t: Int64) {
        guard a.isFinite, let dt0 = Self.seconds(&lastAccelNanos, t) else { return }
        let dt = min(dt0, 0.5)
        accelCount += 1
        if accelCount == 1 {
            accelLP = a; specificForceLP = a
            if restored { return }
            mountUp = a.times(1 / max(a.length, 1e-9))
            chooseReferenceAxis()
            forward = Self.project(Vector3(x: 1, y: 0, z: 0), perpendicularTo: mountUp)
                ?? Self.project(Vector3(x: 0, y: 1, z: 0), perpendicularTo: mountUp)!
            return
        }
        let before = accelLP
        // Gravity: the specific force minus the vehicle's own acceleration (along track, centripetal), low-passed.
        let fresh = lastFixNanos.map { Double(t &- $0) * 1e-9 < 2.5 } ?? false
        let along = fresh ? alongTrackNow(t) : 0
        let v = fresh ? max(0, speed + along * 0) : speed
        let lateral = -v * turnRateForTilt(t) * HeadingMath.radiansPerDegree
        let left = mountUp.cross(forward)
        let g = a.minus(forward.times(along)).minus(left.times(lateral))
        accelLP = accelLP.plus(g.minus(accelLP).times(min(1, dt / settings.accelerometerTimeConstantSeconds)))
        specificForceLP = specificForceLP.plus(a.minus(specificForceLP).times(min(1, dt / 0.5)))
        let k = accelCount < 100 && !restored ? 1 / Double(accelCount) : min(1, dt / settings.mountingTimeConstantSeconds)
        let n = a.length
        if n > 0 { mountUp = mountUp.plus(a.times(1 / n).minus(mountUp).times(k)).normalizedOrSelf }
        // Quiet: accelerometer steady (a parked vehicle; an idling engine stays under the threshold).
        let jerk = accelLP.minus(before).length / max(dt, 1e-6)
        quietSeconds = jerk < 0.5 && (a.minus(accelLP)).length < 0.35 ? quietSeconds + dt : 0
    }

    private mutating func chooseReferenceAxis() {
        guard referenceAxis == nil else { return }
        let axes = [Vector3(x: 1, y: 0, z: 0), Vector3(x: 0, y: 1, z: 0), Vector3(x: 0, y: 0, z: 1)]
        // The sensor's x axis unless it points too far up or down (then y, then z): the learned mounting yaw is
        // this axis' yaw.
        referenceAxis = axes.first { abs($0.dot(mountUp)) < 0.7 } ?? axes.min { abs($0.dot(mountUp)) < abs($1.dot(mountUp)) }
    }

    private static func project(_ v: Vector3, perpendicularTo u: Vector3) -> Vector3? {
        let p = v.minus(u.times(v.dot(u)))
        let n = p.length
        return n > 0.3 ? p.times(1 / n) : nil
    }

    /// Along-track accelerations seen by the accelerometer give the forward axis.
    private mutating func learnForward(_ v: Double) {
        guard accelCount > 0, abs(alongTrack) > 0.4, v > 1 else { return }
        let horizontal = specificForceLP.minus(mountUp.times(specificForceLP.dot(mountUp)))
        forwardSum = forwardSum.plus(horizontal.times(alongTrack))
        forwardWeight += alongTrack * alongTrack
        if forwardWeight > 4, let f = Self.project(forwardSum, perpendicularTo: mountUp) { forward = f }
    }

    private mutating func gyroscope(_ w: Vector3, _ t: Int64) {
        guard w.isFinite, let dt = Self.seconds(&lastGyroNanos, t), dt < 1 else { return }
        // Clockwise heading rate: minus the rotation about the up axis.
        let r = -w.dot(up) * HeadingMath.degreesPerRadian
        gyroRate = r
        gyroTurn += r * dt
        gyroSeconds += dt
    }

    // MARK: - Magnetometer

    private mutating func magnetometer(_ m: Vector3, raw: Vector3, _ t: Int64) -> HeadingUpdate {
        guard m.isFinite, accelCount > 0, let dt0 = Self.seconds(&lastMagNanos, t) else { return .none }
        let dt = min(dt0, 1)
        selectGyroscope(t)
        lastFilterNanos = t
        // Second differences: the vehicle's turns are negligible in them, the white noise is 6σ² per axis.
        if let (a, b) = lastFields {
            let dd = m.minus(b.times(2)).plus(a)
            let v = dd.dot(dd) / 18
            if v.isFinite { magnetometerNoiseVariance = magnetometerNoiseVariance.map { $0 + (v - $0) * 0.002 } ?? v }
            lastFields = (b, m)
        } else {
            lastFields = (m, m)
        }
        let fresh = lastFixNanos.map { Double(t &- $0) * 1e-9 < 2.5 } ?? false
        let stationary = (fresh && speed < 0.5 && quietSeconds > 0.5) || (!fresh && quietSeconds > 2)

        let v = speed
        up = accelLP.times(1 / max(accelLP.length, 1e-9))
        guard let axis = referenceAxis, let h1 = Self.project(axis, perpendicularTo: up) else { return .none }
        let h2 = up.cross(h1)
        let mv = m
        let x = mv.dot(h1), y = mv.dot(h2), vertical = mv.dot(up)
        history[historyHead] = (t, x, y, vertical)
        historyHead = (historyHead + 1) & 63
        historyCount = min(64, historyCount + 1)

        predict(dt: dt, stationary: stationary)

        // Magnetometer heading and interference.
        var accepted = false
        failed = []
        if let s = solution {
            let u = s.unit(x: x, y: y)
            let norm = (u.c * u.c + u.s * u.s).squareRoot()
            magneticHeading = HeadingMath.atan2Degrees(u.s, u.c) + declinationShift
            if lastMagneticHeading.isFinite, dt > 0 {
                let step = HeadingMath.difference(magneticHeading, lastMagneticHeading) / dt
                magneticRate += (step - magneticRate) * min(1, dt / 0.3)
                magneticRateValid = true
            }
            lastMagneticHeading = magneticHeading
            let a = min(1, dt / settings.deviationTimeConstantSeconds)
            devH += (norm - 1 - devH) * a
            devV += (vertical - s.verticalMicrotesla - devV) * a
            let total = (s.horizontalMicrotesla * s.horizontalMicrotesla
                         + s.verticalMicrotesla * s.verticalMicrotesla).squareRoot()
            if abs(devV) > max(settings.verticalTolerance * total, 4 * s.verticalStdMicrotesla) {
                failed.insert(.inclination)
            }
            // Heading noise and the correlated tilt error.
            let hField = max(s.horizontalMicrotesla * norm, 1e-3)
            let white = settings.magnetometerNoiseMicrotesla / hField * HeadingMath.degreesPerRadian
            let tanI = min(8, abs(s.verticalMicrotesla) / hField)
            let accelError = fresh || stationary ? abs(alongTrack) * 0 : settings.unknownAccelerationTiltDegrees
            // Uncompensated acceleration (m/s²): a share of the centripetal and along-track terms, and the
            // along-track trend over the half second the GNSS difference lags.
            let lateral = abs(currentRate) * v * HeadingMath.radiansPerDegree
            let residualAcceleration = settings.tiltErrorPerAcceleration * (lateral + abs(alongTrack))
                + (usingGyro ? 0 : 0.5 * abs(alongTrackSlope))
            let tilt = (settings.tiltErrorDegrees + residualAcceleration / 9.80665 * HeadingMath.degreesPerRadian
                        + accelError) * tanI
            // A tilt error ε leaks the vertical field into the horizontal one: tan(I)·ε of its strength.
            if abs(devH) > settings.horizontalTolerance + 2 * tilt * HeadingMath.radiansPerDegree {
                failed.insert(.magnitude)
            }
            let samplesPerCorrelation = max(1, settings.tiltCorrelationSeconds / max(dt, 1e-3))
            let r = white * white + samplesPerCorrelation * (tilt * tilt + mismatchVariance)
            let innovation = HeadingMath.difference(magneticHeading, psi + beta)
            let innovationVariance = p00 + 2 * p02 + p22 + r
            if initialized, abs(innovation) > settings.innovationGateSigmas * innovationVariance.squareRoot()
                + settings.innovationGateFloorDegrees {
                inconsistent += dt
            } else {
                inconsistent = 0
            }
            if inconsistent > settings.inconsistentSeconds { failed.insert(.headingConsistency) }
            let clean = failed.isEmpty
            if disturbed {
                cleanSeconds = clean ? cleanSeconds + dt : 0
                if cleanSeconds >= settings.recoveryHoldSeconds {
                    // A long disturbance while driving may have been a change (the hard iron): the calibration is
                    // suspect until the pairs show it fits again, or a fresh fit replaces it.
                    if disturbedSeconds >= settings.relearnAfterSeconds, !stationary {
                        mismatchVariance = max(mismatchVariance, pow(settings.suspectAfterDisturbanceDegrees, 2))
                    }
                    disturbed = false; disturbedSeconds = 0
                }
            } else if !clean {
                disturbed = true; cleanSeconds = 0
            }
            if disturbed { disturbedSeconds += dt }
            if !disturbed && inconsistent == 0 {
                if !initialized {
                    psi = HeadingMath.wrap360(magneticHeading - beta); p00 = r + p22; p02 = -p22
                    initialized = true
                } else {
                    update(innovation: innovation, h0: 1, h2: 1, variance: r)
                }
                accepted = true
            }
        }
        _ = accepted
        return deliver(t, raw: raw, calibrated: m)
    }

    private mutating func deliver(_ t: Int64, raw: Vector3, calibrated m: Vector3) -> HeadingUpdate {
        var accuracy = settings.accuracySigmas * p00.squareRoot()
        if !initialized || !(accuracy <= settings.maximumAccuracyDegrees) { accuracy = -1 }
        let trueHeading = HeadingMath.wrap360(psi)
        let declination = declinationDegrees ?? declinationAtFit
        let magnetic = HeadingMath.wrap360(trueHeading - (declination ?? 0))
        let valid = accuracy >= 0
        let state: MagneticInterference.State = disturbed
            ? (disturbedSeconds > 45 || candidate != nil ? .persistent : .transient) : .none
        if let last = lastDelivered, valid == lastDeliveredValid, state == lastDeliveredInterference,
           abs(HeadingMath.difference(magnetic, last)) < settings.headingFilterDegrees {
            return .none
        }
        lastDelivered = magnetic; lastDeliveredValid = valid; lastDeliveredInterference = state
        var interference = MagneticInterference()
        interference.state = state
        interference.failedChecks = failed
        interference.magnitudeDeviationMicrotesla = devH * (solution?.horizontalMicrotesla ?? 0)
        interference.inclinationDeviationDegrees = 0
        interference.headingInconsistencyDegrees = magneticHeading.isFinite
            ? HeadingMath.difference(magneticHeading, psi + beta) : 0
        interference.disturbedSeconds = disturbedSeconds
        interference.reference = solution == nil ? .none : .learned
        let f = forward, l = mountUp.cross(forward)
        let report = HeadingReport(
            monotonicNanos: t, sampleTimeSeconds: nil, magneticHeadingDegrees: magnetic,
            trueHeadingDegrees: declination == nil && solution == nil && !initialized ? nil : trueHeading,
            declinationDegrees: declination, headingAccuracyDegrees: accuracy,
            rollDegrees: HeadingMath.asinDegrees(up.dot(l)), pitchDegrees: HeadingMath.asinDegrees(up.dot(f)),
            rawFieldMicrotesla: raw, calibratedFieldMicrotesla: m, interference: interference,
            usesGyroscope: usingGyro)
        return HeadingUpdate(report: report)
    }

    /// The WMM's declination here minus the one where the fit was made (the fit holds the declination).
    private var declinationShift: Double {
        guard let now = declinationDegrees, let then = declinationAtFit else { return 0 }
        return now - then
    }

    // MARK: - Filter

    private mutating func predict(dt: Double, stationary: Bool) {
        guard dt > 0 else { return }
        let turned: Double
        if usingGyro {
            let turn = gyroSeconds > 0 ? gyroTurn * (dt / max(gyroSeconds, dt)) : gyroRate * dt
            gyroTurn = 0; gyroSeconds = 0
            turned = stationary ? 0 : turn - rate * dt
            psi += turned
            let q = settings.gyroscopeAngleNoise * dt + (settings.gyroscopeScaleError * turn) * (settings.gyroscopeScaleError * turn)
            p00 += -2 * dt * p01 + dt * dt * p11 + q
            p01 -= dt * p11
            p02 -= dt * p12
            p11 += settings.gyroscopeBiasNoise * dt
            if stationary {
                // Still: the gyroscope's reading is its bias.
                let z = gyroRate
                let s = p11 + 0.05 * 0.05 * 100
                let k0 = p01 / s, k1 = p11 / s, k2 = p12 / s
                let nu = z - rate
                psi += 0; rate += k1 * nu; beta += k2 * nu * 0
                _ = k0
                p11 -= k1 * p11
            }
        } else if stationary {
            turned = 0
            rate = 0; p01 = 0; p11 = 0; p12 = 0
            p00 += 0.001 * dt
        } else {
            if p11 == 0 { p11 = 25 }
            turned = rate * dt
            psi += turned
            let q = settings.headingAccelerationNoise
            p00 += 2 * dt * p01 + dt * dt * p11 + q * dt * dt * dt / 3
            p01 += dt * p11 + q * dt * dt / 2
            p02 += dt * p12
            p11 += q * dt
        }
        p22 += settings.magneticBiasNoisePerSecond * dt
            + (settings.magneticBiasNoisePerDegree + settings.mismatchPerDegree * mismatchVariance) * abs(turned)
        psi = HeadingMath.wrap360(psi)
    }

    /// Scalar update of z = h0·ψ + h2·β (h1 = 0) with innovation ν and variance R.
    private mutating func update(innovation nu: Double, h0: Double, h2: Double, variance r: Double) {
        let a0 = p00 * h0 + p02 * h2, a1 = p01 * h0 + p12 * h2, a2 = p02 * h0 + p22 * h2
        let s = h0 * a0 + h2 * a2 + r
        guard s > 0, s.isFinite else { return }
        let k0 = a0 / s, k1 = a1 / s, k2 = a2 / s
        psi = HeadingMath.wrap360(psi + k0 * nu)
        rate += k1 * nu
        beta += k2 * nu
        p00 -= k0 * a0; p01 -= k0 * a1; p02 -= k0 * a2
        p11 -= k1 * a1; p12 -= k1 * a2; p22 -= k2 * a2
        p00 = max(p00, 1e-6); p11 = max(p11, 0); p22 = max(p22, 1e-6)
    }

    /// Scalar update of z = r (the heading rate, without a gyroscope).
    private mutating func rateUpdate(_ z: Double, variance: Double) {
        let s = p11 + variance
        guard s > 0, s.isFinite else { return }
        let nu = z - rate
        let k0 = p01 / s, k1 = p11 / s, k2 = p12 / s
        let a0 = p01, a1 = p11, a2 = p12
        psi = HeadingMath.wrap360(psi + k0 * nu); rate += k1 * nu; beta += k2 * nu
        p00 -= k0 * a0; p01 -= k0 * a1; p02 -= k0 * a2
        p11 -= k1 * a1; p12 -= k1 * a2; p22 -= k2 * a2
        p00 = max(p00, 1e-6); p11 = max(p11, 0); p22 = max(p22, 1e-6)
    }

    private mutating func courseUpdate(_ course: Double, sigma: Double) {
        if !initialized {
            psi = HeadingMath.wrap360(course); p00 = sigma * sigma; p01 = 0; p02 = 0
            initialized = true
            return
        }
        var nu = HeadingMath.difference(course, psi)
        // Reversing: the course points backwards.
        if abs(nu) > 150, p00.squareRoot() < 15 { nu = HeadingMath.difference(course + 180, psi) }
        let s = p00 + sigma * sigma
        guard nu * nu <= 25 * s || p00.squareRoot() > 20 else { return }
        update(innovation: nu, h0: 1, h2: 0, variance: sigma * sigma)
    }

    // MARK: - Calibration in motion

    private mutating func pairWithCourse(_ course: Double, sigma: Double, epochNanos: Int64) {
        guard historyCount > 0 else { return }
        // The levelled field nearest the course's epoch.
        var best = -1, bestGap = Int64.max
        for i in 0..<historyCount {
            let gap = abs(history[i].0 &- epochNanos)
            if gap < bestGap { bestGap = gap; best = i }
        }
        guard best >= 0, bestGap < 200_000_000 else { return }
        let (_, x, y, v) = history[best]
        let hField = solution?.horizontalMicrotesla ?? (x * x + y * y).squareRoot()
        let noise = settings.magnetometerNoiseMicrotesla / max(hField, 1) * HeadingMath.degreesPerRadian
        let s2 = sigma * sigma + noise * noise
        let w = 1 / max(s2, 0.01)
        if !disturbed { checkMismatch(x: x, y: y, reference: course, variance: s2, epochNanos: epochNanos) }
        let moving = !disturbed
        if moving {
            let gap = lastPairNanos.map { min(10, max(0, Double(epochNanos &- $0) * 1e-9)) } ?? 0
            lastPairNanos = epochNanos
            // Pairs more than a couple of fixes apart do not follow one another (`whiteResidualMeanSquare`).
            if gap > Self.successionGapSeconds { fit.interruptSuccession() }
            fit.add(x: x, y: y, vertical: v, headingDegrees: course, weight: w,
                    forgetting: exp(-gap / settings.fitMemorySeconds))
        }
        let mismatched = mismatchMean > settings.mismatchMeanThreshold
            && mismatchVariance >= settings.relearnMismatchDegrees * settings.relearnMismatchDegrees
        if (disturbed && disturbedSeconds >= settings.relearnAfterSeconds) || (!disturbed && mismatched) {
            if candidate == nil { candidate = CourseMagnetometerFit() }
            if let l = lastCandidatePairNanos, Double(epochNanos &- l) * 1e-9 > Self.successionGapSeconds {
                candidate?.interruptSuccession()
            }
            lastCandidatePairNanos = epochNanos
            candidate?.add(x: x, y: y, vertical: v, headingDegrees: course, weight: w)
        } else if !disturbed && mismatchVariance < 1 {
            candidate = nil
        }
        considerAdoption()
    }

    /// Course pairs further apart than this (s) do not follow one another: the next one's residual is not compared
    /// with the last one's (a gap of more than two fixes at 1 Hz: an outage, a stop, a disturbance between them).
    static let successionGapSeconds = 2.5

    /// Compares the magnetometer heading (fit and β applied) with a reference heading (course or GNSS heading) at
    /// its epoch. A residual beyond its noise means the field stopped fitting the calibration: the heading's and β's
    /// uncertainty grow at once by the unexplained part (the heading may already have followed the magnetometer),
    /// and the magnetometer counts for less until it fits again (or a fresh fit replaces it).
    private mutating func checkMismatch(x: Double, y: Double, reference: Double, variance: Double, epochNanos: Int64) {
        guard let s = solution, initialized else { return }
        let gap = lastMismatchNanos.map { min(30, max(0, Double(epochNanos &- $0) * 1e-9)) } ?? 0
        lastMismatchNanos = epochNanos
        let decay = exp(-gap / settings.mismatchMemorySeconds)
        // While a fresh fit is being learned the old calibration stays suspect by the largest misfit seen: a
        // changed hard iron's error returns with every turn even when β has caught up on a straight road.
        if candidate == nil { mismatchFloor = 0 }
        mismatchVariance = max(mismatchVariance * decay, mismatchFloor)
        let u = s.unit(x: x, y: y)
        let heading = HeadingMath.atan2Degrees(u.s, u.c) + declinationShift
        let d = HeadingMath.difference(heading - beta, reference)
        let residual = residualDegrees(s)
        let expected = max(variance, residual * residual) + p22
        let z2 = d * d / expected
        mismatchMean += (min(z2, 25) - mismatchMean) * (1 - exp(-max(gap, 0.2) / settings.mismatchMemorySeconds))
        var excess = 0.0
        if z2 > settings.mismatchGateSigmas * settings.mismatchGateSigmas { excess = d * d - expected }
        if mismatchMean > settings.mismatchMeanThreshold { excess = max(excess, (mismatchMean - 1) * expected) }
        if candidate != nil { mismatchFloor = max(mismatchFloor, min(excess, mismatchVariance)) }
        guard excess > mismatchVariance else { return }
        let grow = excess - mismatchVariance
        mismatchVariance = excess
        p00 += grow; p22 += grow
    }

    private func qualifies(_ f: CourseMagnetometerFit) -> CourseMagnetometerFit.Solution? {
        guard f.pairs >= settings.adoptionPairs, f.coverage >= settings.adoptionCoverage, let s = f.solve(), s.isUsable
        else { return nil }
        // The magnetometer's own white noise is in the residual (both horizontal components): a noisy sensor in a
        // weak field is not a bad fit. Allowed: the limit for the fit's errors plus that noise as a heading RMS, or
        // plus all the white noise the pairs show from one to the next, whichever is larger: a GNSS speed's noise
        // in the tilt compensation, the course's. It averages away over the pairs, where a misfit does not.
        let limit = settings.adoptionResidualDegrees * max(1, tanInclination(s) / 2)
        let toDegrees = HeadingMath.degreesPerRadian * HeadingMath.degreesPerRadian / max(s.horizontalMicrotesla * s.horizontalMicrotesla, 1e-6)
        var noise = 2 * (magnetometerNoiseVariance ?? 0) * toDegrees
        if let white = f.whiteResidualMeanSquare { noise = max(noise, white * toDegrees) }
        guard residualDegrees(s) <= (limit * limit + noise).squareRoot() else { return nil }
        if let e = fieldElements {
            let ratio = s.horizontalMicrotesla / max(e.horizontalNanotesla / 1000, 1e-3)
            guard ratio > 0.5 && ratio < 2 else { return nil }
        }
        return s
    }

    private mutating func considerAdoption() {
        if let c = candidate, let s = qualifies(c) {
            adopt(s)
            fit = c
            candidate = nil
            disturbed = false; disturbedSeconds = 0; devH = 0; devV = 0; inconsistent = 0
            // A new calibration: the old one's bias and mismatch do not carry over.
            beta = 0; p02 = 0; p22 = pow(residualDegrees(s), 2) + 1
            mismatchVariance = 0; mismatchMean = 1; mismatchFloor = 0
            return
        }
        guard !disturbed, let s = qualifies(fit) else { return }
        adopt(s)
    }

    private mutating func adopt(_ s: CourseMagnetometerFit.Solution) {
        let first = solution == nil || solutionFromState
        if first || residualDegrees(s) < 20 {
            if solution == nil || solutionFromState { calibrationsAdopted += 1 }
            solution = s
            solutionFromState = false
            declinationAtFit = declinationDegrees
            fitLatitude = lastLatitude; fitLongitude = lastLongitude
            calibrationRevision += 1
            if first {
                beta = 0
                p22 = max(p22, pow(residualDegrees(s), 2) + 1)
                p02 = 0
            }
        }
    }
}

extension Vector3 {
    var normalizedOrSelf: Vector3 {
        let n = (x * x + y * y + z * z).squareRoot()
        return n > 0 ? Vector3(x: x / n, y: y / n, z: z / n) : self
    }
}
