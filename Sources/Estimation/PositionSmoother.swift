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
/// GST or HDOP × UERE), so the per-axis σ is radius / 1.51 (`HorizontalError.sigma(fromRadius68:)`). GST's per-axis
/// 1-σ (`latitudeErrorMeters`/`longitudeErrorMeters`) is used directly when present. A share
/// `correlatedErrorFraction` of that variance is the Gauss–Markov error's; the white rest is **adapted** to what the
/// innovations show (covariance matching): receivers' accuracy figures are often several times pessimistic about
/// epoch-to-epoch noise, and a filter that believed them would lag behind every turn.
///
/// Motion aiding: an accelerometer in the navigation frame drives the prediction as a control input; a gyroscope's
/// rate about the vertical (from the accelerometer's gravity direction, so no attitude or mounting is needed) turns
/// the velocity between fixes and through outages (dead reckoning on speed + yaw, the classic gyro-aided bridge).
///
/// Time comes only from the fixes and the inertial samples: duplicates and out-of-order epochs are ignored.
/// Pure value type: no clock, no I/O.
public struct PositionSmoother: Sendable {
    /// Every knob, with its unit in its name. `docs/smoothing.md` explains each; the CLI reads them from a
    /// `key = value` file (`--smoothing-config`).
    public struct Settings: Sendable, Hashable {
        /// White-acceleration spectral density for the constant-velocity model, m²/s³ (vehicle ≈ 1–4, pedestrian ≈ 0.5).
        public var accelerationNoiseDensity: Double = 2.0
        /// Used instead while inertial aiding is fresh (the residual after the control input): in every direction with
        /// a navigation-frame acceleration, across the track only with a body-frame gyroscope (which sees turns, not
        /// braking).
        public var aidedAccelerationNoiseDensity: Double = 0.5
        /// Multiplies the σ derived from the fix's accuracy.
        public var measurementNoiseScale: Double = 1.0
        /// Adapt the white measurement noise to the innovations (covariance matching).
        public var adaptiveMeasurementNoise = true
        /// Bounds of the adapted white variance as a multiple of the reported one. The minimum is lowered, for a
        /// receiver whose fixes' 1 s increments show less white noise than that, to what they show (S(1 s)); the
        /// maximum is raised, for a receiver whose fixes show its total error above its claim, by as much.
        public var adaptiveScaleMinimum: Double = 0.01
        public var adaptiveScaleMaximum: Double = 1
        /// Weight of each new innovation in the running covariance match (≈ 1 / window length in fixes).
        public var adaptiveWeight: Double = 0.05
        /// Smallest per-axis σ ever assumed for a fix, m.
        public var minimumMeasurementSigmaMeters: Double = 0.02
        /// σ assumed when a fix has no accuracy at all, m (per axis).
        public var defaultMeasurementSigmaMeters: Double = 5.0
        /// Share of the fix variance that is time-correlated receiver error (0 = all white).
        public var correlatedErrorFraction: Double = 0.5
        /// Correlation time of that error, s.
        public var correlatedErrorTimeConstantSeconds: Double = 60
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
        /// (the speed's recent mean at high fix rates, or the speed of the velocities' recent mean where the speed at
        /// rest is noise; and the accelerometer variance, if fresh, ≤ its enter threshold); leave when speed ≥ exit
        /// speed or variance ≥ exit threshold.
        public var stationaryEnterSpeedMetersPerSecond: Double = 0.25
        public var stationaryExitSpeedMetersPerSecond: Double = 0.7
        public var stationaryEnterSeconds: Double = 2.0
        /// Variance of the specific-force magnitude over `accelerometerWindowSeconds`, (m/s²)², that a stop may begin
        /// at (without a speed from the receiver) and that ends one: only until the board's own levels at rest and
        /// driving are known (`AccelerometerLevels`), and not where the board at rest is already louder.
        public var accelerometerVarianceEnter: Double = 0.02
        public var accelerometerVarianceExit: Double = 0.15
        public var accelerometerWindowSeconds: Double = 1.0
        /// Inertial data older than this is not used (neither as control input nor for stationarity), s.
        public var inertialMaximumAgeSeconds: Double = 0.5
        /// While stationary the output is held; it moves only if the estimate leaves the held point by more than
        /// max(this, `holdDeadbandRadiusFactor` × the held point's 68 % radius). 0 since the deadband holds the
        /// receiver's parked wander (0.5 m before: it kept a precise receiver's stop up to 0.5 m off its fixes).
        public var holdMinimumDeadbandMeters: Double = 0
        public var holdDeadbandRadiusFactor: Double = 2
        /// Dead-reckoning predictions stop (nil: location unavailable) after this long without a fix.
        public var maximumOutageSeconds: Double = 30
        /// When GNSS returns after dead reckoning, the output converges on the corrected estimate without a jump (beyond
        /// the vehicle's motion) larger than the accuracy it then reports: (distance + radius) / 2 per fix, at least the
        /// new fix's 68 % radius. Off: the output is the corrected estimate at once.
        public var limitConvergenceJump = true
        /// A dead-reckoned fix's radius from the drift the vehicle's own velocities show after as long
        /// (`DeadReckoningErrorLearning`), once learned; off: from the filter's process noise.
        public var deadReckoningFromLearnedDrift = true
        /// Re-anchor the tangent frame when the estimate is this far from the anchor.
        public var reanchorDistanceMeters: Double = 10_000
        /// Apply the receiver's velocity at the moment it describes (t − c·dt, c the fitted time tag) for the
        /// position, when moving without inertial aiding; speed and course are still reported as a velocity update
        /// at t would give them.
        public var velocityAtTimeTag = true
        /// Enter a stop from what the receiver's velocities say about the last interval: a stop begins at the fix
        /// whose speed, carried to the fix's time along its fitted time tag, has braked to the enter speed (one
        /// epoch before the reported speed shows it, for a receiver reporting the last interval's mean), and the
        /// output waits at the last estimate moved by the interval's displacement, weighed against the filter's
        /// estimate by their variances, instead of at the filter's estimate alone.
        public var stopFromVelocities = true
        /// Follow a vehicle creeping inside a stop: the held point moves to the recent fixes (an exponential mean,
        /// τ 1 s), each carried on by the receiver's velocities since it, when the velocities since the point was set
        /// add up to a move beyond their noise and the fixes agree with it (`StopCreep`). The receiver's speed at
        /// rest (its running median) sets the velocities' noise.
        public var holdFollowsCreep = true
        /// A held fix's accuracy: the 68 % radius about the held point of the stop's mean's error (the Rice quantile),
        /// instead of that error's radius plus the held point's distance from the mean (a bound).
        public var heldRadiusFromOffset = true
        /// Find stops from the positions where a fix has no speed and no accelerometer is fresh (a receiver sending
        /// GGA alone): the speed a straight-line fit over the recent fixes shows stands in for the receiver's
        /// (`PositionWindow`). Off, such a receiver never stops.
        public var stopFromPositions = true
        /// In a stop entered from motion, once the stop has lasted longer than the longest lag the parked fixes have
        /// shown the receiver's wander at, the hold allows its mean to wander by at least the learned slow part of the
        /// error (a wander's reach, which the radius already claims) before it moves the held point. Not in the stop a
        /// recording starts in, where a receiver's fixes converge after its start and following them is the gain.
        public var holdWanderBeyondShownLags = true
        /// With `stopFromPositions`: the output waits as soon as the last 2 s of fixes may be a stop (no significant
        /// slope, below the exit speed), at that line's point, before the longer window confirms a slow speed.
        public var waitFromShortSlope = true
        public init() {}
        public static let `default` = Settings()
    }

    /// What the last `process(fix:)` did.
    public enum Outcome: Sendable, Hashable {
        case initialised, accepted, rejected, reinitialised, held, duplicate, outOfOrder, noPosition
    }

    public let settings: Settings
    public internal(set) var frame: LocalTangentFrame?
    var kf = KalmanFilter()
    /// `process(fix:)`'s copy of the filter for the reported speed and course (used within one call; stored, not a
    /// local optional: each `reported!.` step copied the 633-byte filter out and back).
    var reportedFilter = KalmanFilter()
    public internal(set) var time: Timestamp?
    var lastFixWasLeapSecond = false
    public internal(set) var isStationary = false
    public internal(set) var lastOutcome: Outcome = .noPosition
    public internal(set) var consecutiveRejections = 0
    /// The smoother as it was before the last restart on rejected fixes (two that agree, or `reinitialiseAfterRejections`), for
    /// `maximumOutageSeconds` after it: a run of fixes that disagree with the track and with it agree among themselves
    /// may be a multipath excursion, not a new truth. When the fixes return to the old track (rejected by the restarted
    /// filter, accepted by this one), the smoother goes back to it at once instead of rejecting that many fixes again.
    var beforeRestart: RestartAlternative?
    /// How many times the smoother went back to its track before a restart (`beforeRestart`).
    public internal(set) var restartsUndone = 0
    /// How many times the error state's excess beyond its model was moved into the position (`boundErrorState`).
    public internal(set) var errorStateBounds = 0
    public var lastOutput: Location? { hasLastOutput ? lastOutputStorage : nil }
    /// `lastOutput`, built in place by `output(from:measured:measuredENU:)`; valid once `hasLastOutput`.
    var lastOutputStorage = Location()
    var hasLastOutput = false
    /// The adapted white-noise variance as a multiple of the reported one.
    public internal(set) var adaptiveScale = 1.0
    var innovationPower = Double.nan
    var predictedPower = Double.nan
    var adaptiveCount = 0
    /// Fixes left that covariance matching skips after a restart (`adapt`): the restarted filter's covariance is the
    /// initial guess, and its predicted spread (hundreds to thousands of m²) outweighed the innovations in the running
    /// means for minutes (a restart from the line keeps the means; a re-initialisation started them again from its 11th
    /// fix's spread), which held the adapted noise at its floor.
    var adaptTransient = 0
    var lowSpeedSince: Timestamp?
    /// The held point and its per-axis variance (m²).
    var held: (east: Double, north: Double, variance: Double)?
    /// How the receiver's error decorrelates, learned from its fixes (the accuracy's slow part and the white part).
    /// (Kept in a copy-on-write box, like the accelerometer window: the two rings are ~11 KB, and a smoother held
    /// inline was copied whole on every fix, e.g. to call a non-mutating method or to predict.)
    public internal(set) var errorStructure: ErrorStructure {
        _read { yield errorStructureBox.value }
        _modify { yield &errorStructureBox.value }
    }
    var errorStructureBox = CopyOnWrite(ErrorStructure())
    /// What the error structure shows after the last fix, read once per fix (reading `errorStructure.lags` copies its
    /// sums): S(1 s), an upper bound of the white variance (`ErrorStructure.Lags.white`), and the same with the motion
    /// placed where the velocity applies (the last output's `Estimate.white`); m² per axis, nil before evidence.
    var incrementWhite: Double?
    /// The velocity's time tag c fitted so far (`ErrorStructure.Lags.velocityTimeTag`), read once per fix with
    /// `incrementWhite`.
    var timeTag = 0.0
    var fittedWhite: Double?
    /// The receiver's total per-axis error variance as far as the evidence showed it at the last output
    /// (`ErrorStructure.Estimate.shown`: the claim, or more), m²; 0 before the first output.
    var shownTotal = 0.0
    /// What the velocity updates learn (`VelocityLearning`): kept apart from the filters, so that one update can run
    /// on either filter in place (`velocityUpdate(fix:role:)`).
    var velocityLearning = VelocityLearning()
    /// Velocity consistency: running mean of the normalised velocity innovation (χ²/2, 1 when the filter's velocity
    /// covariance is right), for honest speed and course accuracies.
    public var velocityConsistency: Double { velocityLearning.consistency }
    /// The same for the position innovations with the adapted noise: above 1, the filter's own covariance is too
    /// small for what its innovations show (model mismatch, e.g. lag in manoeuvres) and is scaled up in the accuracy.
    public internal(set) var positionConsistency = 1.0
    /// The receiver's velocity noise per axis (m²/s²): half the mean square of its 1 s velocity increments (an upper
    /// bound: true changes of velocity count too). The filter's speed is never less accurate than the receiver's.
    public internal(set) var dopplerNoise = Double.nan
    var lastDoppler: (east: Double, north: Double, t: Timestamp)?
    var dopplerCount = 0
    /// The receiver's per-axis velocity noise, m²/s²: from the median of its 1 s velocity increments (a manoeuvre
    /// does not carry it as it carries the mean square `dopplerNoise`); an upper bound, like S(1 s) for positions.
    public var dopplerNoiseRobust: Double { dopplerMedian / 0.693 }
    /// The running median of the per-axis 1 s increment power (NaN before the first increment).
    var dopplerMedian = Double.nan
    /// The running median's step once 1/n has fallen to 5 % (n ≥ 20): e^0.05.
    static let medianStep = exp(0.05)
    /// The velocity prior's real error against the filter's assumed one (`VelocityLearning.priorScale`).
    public var velocityPriorScale: Double { velocityLearning.priorScale }
    /// What a velocity update teaches. `.both`: the usual update (the filter's velocity is the one reported).
    /// With the velocity at its time tag (`velocityAtTimeTag`) the two are apart: `.positionFilter`, the update at the
    /// time tag, teaches only `processPriorScale`; `.reported`, the copy's update at t, teaches the reported velocity's
    /// statistics (`velocityPriorScale`, `velocityConsistency`) and its error covariance.
    enum VelocityRole { case both, positionFilter, reported }
    struct VelocityLearning: Sendable {
        /// Running mean of the normalised velocity innovation (`velocityConsistency`).
        var consistency = 1.0
        var innovations = 0
        /// The velocity prior's real error against the filter's assumed one (the velocity innovations' power beyond
        /// `dopplerNoiseRobust`, over the prior variance; a running mean).
        var priorScale = 1.0
        var priorCount = 0
        /// The same for the position filter's own velocity prior (at the velocity's time tag when `velocityAtTimeTag`
        /// applies, else the same innovations): the real-error covariance's share of the process noise.
        var processPriorScale = 1.0
        var processPriorCount = 0
        /// The velocity's error covariance (ee, en, nn) after the last velocity update, with the learned velocity noise
        /// in place of the filter's assumed one (the filter's gain kept): what its speed and course accuracies report.
        var errorCovariance: (Double, Double, Double)?
    }
    var positionInnovations = 0
    /// The last course taken apart (degrees) and its sine and cosine (`courseSinCos(_:)`).
    var courseTrig = (degrees: Double.nan, sin: 0.0, cos: 1.0)
    var stopSum: (east: Double, north: Double) = (0, 0)
    var stopStart: Timestamp?
    /// A stop left on the receiver's speed alone, kept until the next epochs show a start or a spike.
    struct SuspendedStop: Sendable {
        var held: (east: Double, north: Double, variance: Double)
        var sum: (east: Double, north: Double)
        var count: Int
        var start: Timestamp?
        /// The first speed at or above the exit speed, and when it came.
        var speed: Double
        var since: Timestamp
    }
    var suspendedStop: SuspendedStop?
    /// The estimate before a fix (local frame, m and m/s; per-axis variances, m² and (m/s)²), for a stop's entry point.
    struct StopEntryPrior: Sendable {
        var east: Double, north: Double, velocityEast: Double, velocityNorth: Double
        var positionVariance: Double, velocityVariance: Double
    }
    /// The last fix's speed (m/s; NaN: none) and time (ns since 1970), for the stop's early detection
    /// (`stopFromVelocities`).
    var lastReportedSpeed = Double.nan
    var lastReportedTime: Int64 = 0
    /// The reported speed's recent mean (m/s; NaN: none), for entering a stop at high fix rates (`recentSpeed`).
    var recentSpeedMean = Double.nan
    /// The reported velocity's recent mean (east, north, m/s) over `recentVelocityCount` fixes (0: none), for entering
    /// a stop on a receiver whose speed at rest is noise (`recentNetSpeed`).
    var recentVelocityMean = (east: 0.0, north: 0.0)
    var recentVelocityCount = 0
    /// The last fix used, in the local frame (m).
    var lastFixENU: (east: Double, north: Double)?
    /// The last fix the position gate rejected (local frame, m; its velocity, m/s, where it has one), while the next
    /// may be rejected too (`rejectedFixesAgree`).
    struct RejectedFix: Sendable {
        var east: Double, north: Double
        var velocity: (east: Double, north: Double)?
    }
    var lastRejectedFix: RejectedFix?
    var stopCount = 0
    /// The receiver has reported (or its positions have shown) the exit speed since the first fix, and the current
    /// stop began after that (`holdWanderBeyondShownLags`).
    var seenMoving = false
    var stopFromMotion = false
    /// The stop's creep (`holdFollowsCreep`), with the receiver's speed at rest.
    /// (In a copy-on-write box, like the error structure: held inline, its ~160 bytes made every fix ~40 ns slower.)
    var stopCreep: StopCreep {
        _read { yield stopCreepBox.value }
        _modify { yield &stopCreepBox.value }
    }
    var stopCreepBox = CopyOnWrite(StopCreep())
    /// The recent fixes of a receiver without speed (`stopFromPositions`); allocated at its first such fix.
    var positionWindowBox: CopyOnWrite<PositionWindow>?
    /// Where the line fitted for the last fix's speed from positions put that fix (local frame, m): a stop found from
    /// the positions waits there.
    var positionFitPoint: (east: Double, north: Double)?
    /// The receiver's usual interval between fixes (s; 0 before the second fix), and how long an interval must be to
    /// count as a gap in the fixes for the fix being processed.
    var typicalIntervalSeconds = 0.0
    var gapThresholdSeconds = 2.0
    var lastReportedVariance = 25.0
    /// The receiver's claimed per-axis variance (m²), without the filter's floor (`claimedVariance(_:settings:)`).
    var claimedVariance = 25.0
    /// Where the output was at the last fix (for the convergence limit) and whether the last output was dead reckoned.
    var outputENU: (east: Double, north: Double)?
    /// When the output was there (the fix's time, or the dead-reckoned fix's).
    var outputTime: Timestamp?
    /// Where the output waits while the speed is low but the stop is not yet confirmed.
    var provisional: (east: Double, north: Double)?
    /// Set for each fix by `updateMotionState`: a fix without a speed (`stopFromPositions`) whose last 2 s of fixes show no significant speed and less than
    /// the exit speed: the vehicle may be stopping, before the longer window can say so. The output waits at
    /// `positionShortPoint` (that line's point for the fix) instead of drawing the filter's overshoot as path.
    var positionsMaybeSlow = false
    var positionShortPoint: (east: Double, north: Double)?
    /// The longer window's point for the first slow fix (`positionFitPoint` then) and that fix's time: a stop found
    /// from the positions is seeded there even when the output already waits at an earlier, noisier point.
    var positionSeed: (east: Double, north: Double, since: Timestamp)?
    var afterOutage = false
    /// The velocity to report for the last fix, with its covariance, when it is not the filter's own
    /// (`velocityAtTimeTag`), nil otherwise.
    var outputVelocity: (east: Double, north: Double, cee: Double, cen: Double, cnn: Double)?
    // Inertial: navigation-frame acceleration, gravity direction and vertical rate, accumulated rotation since the
    // filter time, and a window of specific-force magnitudes for stationarity.
    var accelerationENU: (east: Double, north: Double)?
    var accelerationTime: Timestamp?
    var gravityBody: Vector3?
    var gyroTime: Timestamp?
    /// Heading change (radians, clockwise positive like a compass) and the dead-reckoned displacement (m) since `time`,
    /// integrated from the gyroscope with the filter's velocity at `time`.
    var yawSinceFix = 0.0
    var displacementSinceFix: (east: Double, north: Double) = (0, 0)
    var accelWindow: MagnitudeWindow {
        _read { yield accelWindowBox.value }
        _modify { yield &accelWindowBox.value }
    }
    var accelWindowBox = CopyOnWrite(MagnitudeWindow())
    /// The accelerometer's variance at rest and while moving, as the GNSS shows them (`AccelerometerLevels`).
    var accelerometerLevels = AccelerometerLevels()
    /// How far dead reckoning drifts on this vehicle's motion, learned from the receiver's velocities: the
    /// dead-reckoned radius (`deadReckoningFromLearnedDrift`).
    var deadReckoningDriftBox = CopyOnWrite(DeadReckoningErrorLearning())

    public init(settings: Settings = .default) { self.settings = settings }

    // MARK: fixes

    public mutating func process(fix: Location) -> Location {
        guard let lat = fix.latitudeDegrees, let lon = fix.longitudeDegrees, fix.mode != .noFix, let t = fix.time,
              lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180 else {
            lastOutcome = .noPosition
            return fix
        }
        if let last = time {
            // After a leap second (23:59:60) the next second has the same POSIX instant: a new fix, not a duplicate.
            let followsLeapSecond = lastFixWasLeapSecond && !fix.isLeapSecond
            lastFixWasLeapSecond = fix.isLeapSecond
            if t == last && !followsLeapSecond { lastOutcome = .duplicate; return lastOutput ?? fix }
            if t < last { lastOutcome = .outOfOrder; return lastOutput ?? fix }
        }
        let (sigE, sigN) = Self.measurementSigmas(fix, settings: measurementSettings)
        // This fix may be the rejection that restarts the filter (after at least one rejected fix): the smoother as it
        // is now is kept for going back.
        var beforeThisFix: PositionSmoother?
        if consecutiveRejections + 1 >= Swift.min(2, settings.reinitialiseAfterRejections), frame != nil {
            beforeThisFix = self
            beforeThisFix!.beforeRestart = nil
        }
        outputVelocity = nil
        guard let frame0 = frame, let last = time else {
            initialise(fix: fix, lat: lat, lon: lon, sigE: sigE, sigN: sigN, t: t)
            lastOutcome = .initialised
            return output(from: fix, measured: nil)
        }
        let dt = Double(t.nanosecondsSince1970 - last.nanosecondsSince1970) / 1e9
        // A gap in the fixes: longer than 2 s and than 3 of the receiver's usual intervals (a receiver at 0.2 Hz has
        // no gap every 5 s). The usual interval is a running mean of the intervals, each counted at most 3 × the mean.
        gapThresholdSeconds = Swift.max(Self.positionExitWindowSeconds, 3 * typicalIntervalSeconds)
        typicalIntervalSeconds = typicalIntervalSeconds == 0 ? dt
            : typicalIntervalSeconds + 0.1 * (Swift.min(dt, 3 * typicalIntervalSeconds) - typicalIntervalSeconds)
        let previous = settings.stopFromVelocities ? stopEntryPrior() : nil
        // The velocity at its time tag (`velocityAtTimeTag`): the filter is propagated to t − c·dt, given the fix's
        // velocity there, then propagated to t for the position. A receiver reporting the mean velocity over the last
        // interval (c ≈ ½) then moves the estimate by that mean, not by the last interval's velocity: a vehicle braking
        // into a stop is no longer carried a second further. `reported` is a copy of the filter that takes the
        // epoch in the usual order (position, then velocity at t), for speed and course only: the velocity at
        // t − c·dt, or after the position update that follows it, is either a moment old or pulled by the position's
        // noise (MTV-2's course within-share 0.57 with either, 0.79 this way and 0.83 without the time tag).
        let shift = velocityShift(fix: fix, dt: dt)
        var reported = false   // `reportedFilter` holds the copy
        if shift > 0 {
            reportedFilter = kf
            reportedFilter.velocityOnly = true
            reportedFilter.predict(dt: dt, accelerationDensity: settings.accelerationNoiseDensity,
                                   biasTimeConstant: settings.correlatedErrorTimeConstantSeconds, biasVariance: modelledBiasVariance)
            reported = true
            propagate(dt: dt - shift, at: t)
        } else {
            propagate(dt: dt, at: t)
        }
        time = t
        updateMotionState(fix: fix, t: t)
        if dt > 1, !isStationary { openAfterGap(dt: dt) }
        if shift > 0 {
            if isStationary {
                reported = false
            } else {
                velocityUpdate(fix: fix, role: .positionFilter)
            }
            kf.predict(dt: shift, accelerationDensity: isStationary ? 0 : settings.accelerationNoiseDensity,
                       biasTimeConstant: settings.correlatedErrorTimeConstantSeconds, biasVariance: modelledBiasVariance)
        }
        let z = frame0.enu(latitudeDegrees: lat, longitudeDegrees: lon)
        let f = settings.correlatedErrorFraction
        let varE = sigE * sigE, varN = sigN * sigN
        lastReportedVariance = (varE + varN) / 2
        claimedVariance = Self.claimedVariance(fix, settings: measurementSettings) ?? lastReportedVariance
        let w = settings.adaptiveMeasurementNoise ? adaptiveScale : 1
        let r = ((1 - f) * varE * w, 0.0, 0.0, (1 - f) * varN * w)
        let inn = kf.innovation((z.east, z.north), a: (0, 1), b: (4, 5), r: r)
        // Gate against the reported noise (the adapted one can be far smaller; gating with it would reject every
        // fix after an unmodelled manoeuvre, like moving off from a stop), and never against less white noise than
        // the fixes' own 1 s increments show (S(1 s)): the filter's white share of the claim, (1 − f), assumes the rest
        // is a wander shared by consecutive fixes. A receiver whose error is all white (or faster than the filter's
        // τ) has innovations larger than that gate expects: on the simulated white 2 m receiver 25–36 of 1,800 good
        // fixes per run, the largest errors, were rejected (0–7 with this floor), which left S(1 s) 5–9 % low and a
        // spurious slow part in the accuracy.
        let s1 = incrementWhite ?? 0
        let gate = w >= 1 && s1 <= (1 - f) * Swift.min(varE, varN) ? inn
            : kf.innovation((z.east, z.north), a: (0, 1), b: (4, 5),
                            r: (Swift.max((1 - f) * varE, s1), 0, 0, Swift.max((1 - f) * varN, s1)))
        if gate.nis > settings.positionGateChiSquare {
            // Back on the track before a restart: that smoother takes the fix (and is this one from now on), where its
            // prediction is sharp enough to tell the two apart: its 68 % radius at most half this fix's distance from
            // this filter's prediction. (An old track predicted for many seconds accepts almost any fix: on a held-out
            // phone it took a fix of a 75 m excursion the restarted filter had rejected.)
            let offTrack = (gate.y.0 * gate.y.0 + gate.y.1 * gate.y.1).squareRoot()
            if let b = beforeRestart, b.since.seconds(to: t) <= settings.maximumOutageSeconds,
               let r = b.smoother.predict(to: t)?.horizontalAccuracyMeters, r <= offTrack / 2 {
                var old = b.smoother
                let out = old.process(fix: fix)
                if old.lastOutcome == .accepted || old.lastOutcome == .held {
                    old.restartsUndone = restartsUndone + 1
                    self = old
                    return out
                }
            }
            consecutiveRejections += 1
            // Its velocity: a speed at or above the course threshold, with a course.
            let v = (fix.speedMetersPerSecond ?? 0) >= settings.minimumSpeedForCourseMetersPerSecond ? fixVelocity(fix) : nil
            var agree = false
            if consecutiveRejections >= 2, !isStationary, let v, let p = lastRejectedFix {
                agree = rejectedFixesAgree(p, (z.east, z.north), v, dt: dt, fix: fix)
            }
            lastRejectedFix = RejectedFix(east: z.east, north: z.north, velocity: v)   // (a restart clears it)
            if agree || consecutiveRejections >= settings.reinitialiseAfterRejections {
                initialise(fix: fix, lat: lat, lon: lon, sigE: sigE, sigN: sigN, t: t)
                beforeRestart = beforeThisFix.map { RestartAlternative(smoother: $0, since: t) }
                adaptTransient = Self.restartTransientFixes
                lastOutcome = .reinitialised
                return output(from: fix, measured: nil)
            }
            lastOutcome = .rejected
            return output(from: fix, measured: nil)
        }
        consecutiveRejections = 0
        lastRejectedFix = nil
        if inn.nis.isFinite {
            positionInnovations += 1
            let w = Swift.max(settings.adaptiveWeight, 1 / Double(positionInnovations))
            positionConsistency += w * (Swift.min(inn.nis, 4 * settings.positionGateChiSquare) / 2 - positionConsistency)
        }
        adapt(innovation: inn, reported: (1 - f) * (varE + varN) / 2, r: r)
        // The real error's share: the white noise the fixes' increments show (the last estimate's), once known.
        kf.update((z.east, z.north), a: (0, 1), b: (4, 5), r: r, rTrue: fittedWhite.map { ($0, 0, 0, $0) })
        learnErrorStructure(fix: fix, t: t, z: (z.east, z.north))
        if !isStationary { boundErrorState() }
        if isStationary {
            zeroVelocityUpdate()
            lastOutcome = .held
        } else if reported {
            // Speed and course: the copy takes the same position update, then the velocity update at t (learning the
            // velocity's noise and the prior's share from it, as without the time tag). The copy is updated in
            // place, the velocity update too (`velocityUpdate` runs on the filter its role names): no filter is copied.
            reportedFilter.update((z.east, z.north), a: (0, 1), b: (4, 5), r: r, rTrue: fittedWhite.map { ($0, 0, 0, $0) })
            velocityUpdate(fix: fix, role: .reported)
            outputVelocity = (reportedFilter.x[2], reportedFilter.x[3], reportedFilter[2, 2], reportedFilter[2, 3],
                              reportedFilter[3, 3])
            lastOutcome = .accepted
        } else {
            velocityUpdate(fix: fix)
            lastOutcome = .accepted
        }
        // The first fix of a possible stop found from the positions (`stopFromPositions`): the output waits where the
        // line through the recent fixes puts this one (the filter, without a speed, lags behind the braking), unless it
        // already waits where the last 2 s put the vehicle (`positionsMaybeSlow`); the stop is seeded here either way.
        if fix.speedMetersPerSecond == nil, !isStationary, lowSpeedSince == t, !afterOutage,
           let p = positionFitPoint {
            if provisional == nil { provisional = p }
            positionSeed = (p.east, p.north, t)
        }
        // The first fix of a possible stop: the output waits where the velocities put the vehicle (`stopFromVelocities`).
        if let prev = previous, !isStationary, lowSpeedSince == t, provisional == nil, dt <= 2, !afterOutage {
            provisional = stopEntry(previous: prev, fix: fix, dt: dt)
        }
        reanchorIfNeeded()
        return output(from: fix, measured: HorizontalError.radius68(pee: varE, pnn: varN, pen: 0), measuredENU: (z.east, z.north))
    }

    /// Dead-reckoned location at `t` (no state change): flagged `.gnssDeadReckoning` (gpsd status 6), mode kept, the
    /// covariance grown by the process noise; nil before the first fix, for a time before the last fix, or beyond
    /// `maximumOutageSeconds` (location unavailable).
    public func predict(to t: Timestamp) -> Location? {
        guard let last = time, frame != nil, let base = lastOutput, t >= last else { return nil }
        let dt = Double(t.nanosecondsSince1970 - last.nanosecondsSince1970) / 1e9
        guard dt <= settings.maximumOutageSeconds else { return nil }
        var copy = self
        copy.outputVelocity = nil   // the filter's own velocity, propagated
        copy.propagate(dt: dt, at: t, deadReckoning: true)
        copy.time = t
        var template = base
        template.time = t
        var out = copy.output(from: template, measured: nil)
        out.quality = .gnssDeadReckoning
        // The radius: at least the last fix's with the drift this vehicle's own motion shows after as long (its
        // velocities integrated against keeping the velocity, or with a gyroscope the speed), once learned; a moving
        // vehicle only.
        if settings.deadReckoningFromLearnedDrift, let r0 = base.horizontalAccuracyMeters, (base.speedMetersPerSecond ?? 0) >= 1,
           let drift = deadReckoningDriftBox.value.drift(after: dt, gyroscope: gyroTime.map { abs($0.seconds(to: t)) <= 2 } ?? false) {
            out.horizontalAccuracyMeters = Swift.max(out.horizontalAccuracyMeters ?? 0, (r0 * r0 + drift * drift).squareRoot())
        }
        return out
    }

    /// Like `predict(to:)` but remembers that the output was dead reckoned, so the next fix converges without a jump.
    public mutating func deadReckon(to t: Timestamp) -> Location? {
        guard let out = predict(to: t) else {
            // Beyond the outage limit the output is withdrawn (location unavailable): the next fix is not a jump from
            // the last dead-reckoned one, and is output where the filter puts it.
            if let last = time, last.seconds(to: t) > settings.maximumOutageSeconds { afterOutage = false; outputENU = nil; outputTime = nil }
            return nil
        }
        afterOutage = true
        if let fr = frame, let lat = out.latitudeDegrees, let lon = out.longitudeDegrees {
            let p = fr.enu(latitudeDegrees: lat, longitudeDegrees: lon)
            outputENU = (p.east, p.north)
            outputTime = t
        }
        return out
    }

    // MARK: inertial

    /// Acceleration in the navigation frame (x east, y north, z up; gravity removed), m/s². Used as the control input
    /// between fixes while fresh, and its magnitude's variance for stationary detection.
    public mutating func process(accelerationENU a: Vector3, at t: Timestamp) {
        accelerationENU = (a.x, a.y)
        accelerationTime = t
        accelWindow.add(a.norm, at: t.nanosecondsSince1970, windowNanos: Int64(settings.accelerometerWindowSeconds * 1e9))
    }

    /// Specific force in the sensor frame (m/s², gravity included) rotated into ENU by the heading stack's attitude
    /// (`bodyToENU`), gravity removed.
    public mutating func process(specificForce f: Vector3, bodyToENU: Matrix3, at t: Timestamp,
                                 gravityMetersPerSecondSquared g: Double = 9.806_65) {
        let a = bodyToENU * f
        process(accelerationENU: Vector3(x: a.x, y: a.y, z: a.z - g), at: t)
    }

    /// A body-frame accelerometer sample without attitude (m/s², gravity included): tracks the gravity direction
    /// (for the gyroscope's vertical rate) and the stationarity window.
    public mutating func process(specificForceBody f: Vector3, at t: Timestamp) {
        if let g = gravityBody {
            gravityBody = g * 0.98 + f * 0.02   // ≈ 0.5 s low-pass at 100 Hz: gravity, not the swing of a step
        } else {
            gravityBody = f
        }
        accelWindow.add(f.norm, at: t.nanosecondsSince1970, windowNanos: Int64(settings.accelerometerWindowSeconds * 1e9))
    }

    /// A body-frame gyroscope sample (rad/s): its rate about the vertical turns the dead-reckoned velocity.
    public mutating func process(angularRateBody w: Vector3, at t: Timestamp) {
        defer { gyroTime = t }
        guard let g = gravityBody, let last = time, t > last else { return }
        let gn = g.norm
        guard gn > 1 else { return }
        let prev = max(gyroTime ?? last, last)
        let dt = Double(t.nanosecondsSince1970 - prev.nanosecondsSince1970) / 1e9
        guard dt > 0, dt < 0.5 else { return }
        // Counter-clockwise rate about "up" (specific force at rest points up) → compass rate is its negative.
        let upRate = (w.x * g.x + w.y * g.y + w.z * g.z) / gn
        yawSinceFix -= upRate * dt
        // An outage: no fix for longer than the receiver's usual interval allows (`gapThresholdSeconds`).
        let still = isStationaryNow(at: t, outage: Double(t.nanosecondsSince1970 - last.nanosecondsSince1970) / 1e9 > gapThresholdSeconds)
        if !still {
            let ve = kf.x[2], vn = kf.x[3]
            let c = cos(yawSinceFix), s = sin(yawSinceFix)
            // Rotate the velocity clockwise by the heading change.
            displacementSinceFix.east += (ve * c + vn * s) * dt
            displacementSinceFix.north += (-ve * s + vn * c) * dt
        }
        gyroCoveredUntil = t
    }
    var gyroCoveredUntil: Timestamp?

    /// Variance of the acceleration magnitude over the window, when the accelerometer is fresh at `t`.
    public func accelerometerVariance(at t: Timestamp) -> Double? {
        Self.accelerometerVariance(accelWindowBox, at: t, maximumAgeSeconds: settings.inertialMaximumAgeSeconds)
    }

    /// `accelerometerVariance(at:)` from the window's box: the smoother's mutating methods call this one (calling the
    /// method copied the whole smoother, 2.3 KB, on every fix; passing the window itself copied its 4 KB).
    static func accelerometerVariance(_ box: CopyOnWrite<MagnitudeWindow>, at t: Timestamp, maximumAgeSeconds: Double)
        -> Double? {
        guard let at = box.value.lastNanos, Double(t.nanosecondsSince1970 - at) / 1e9 <= maximumAgeSeconds,
              box.value.count >= 5 else { return nil }
        return box.value.variance
    }
}

/// A value kept on the heap and copied only when written while shared (as Array does): large fixed-size state
/// (InlineArray rings) that is allocated once and not copied with every copy of its owner.
struct CopyOnWrite<Value: Sendable>: Sendable {
    // Safe to share across threads: it is never mutated while shared (written only after
    // isKnownUniquelyReferenced, copied otherwise), like the standard library's collections.
    final class Box: @unchecked Sendable {
        var value: Value
        init(_ value: Value) { self.value = value }
    }
    private var box: Box
    init(_ value: Value) { box = Box(value) }
    var value: Value {
        _read { yield box.value }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
            yield &box.value
        }
    }
}

/// Running mean/variance of a scalar over a sliding time window (a ring of the last samples; O(1) per sample).
struct MagnitudeWindow: Sendable {
    private var values = InlineArray<256, Double>(repeating: 0)
    private var times = InlineArray<256, Int64>(repeating: 0)
    private var head = 0
    private(set) var count = 0
    private var sum = 0.0, sumSquares = 0.0
    private(set) var lastNanos: Int64?

    mutating func add(_ v: Double, at t: Int64, windowNanos: Int64) {
        guard v.isFinite else { return }
        if count == 256 { drop() }
        values[(head + count) % 256] = v
        times[(head + count) % 256] = t
        count += 1
        sum += v; sumSquares += v * v
        while count > 0, t - times[head] > windowNanos { drop() }
        lastNanos = t
    }

    private mutating func drop() {
        let v = values[head]
        sum -= v; sumSquares -= v * v
        head = (head + 1) % 256
        count -= 1
        if count == 0 { sum = 0; sumSquares = 0 }
    }

    var variance: Double {
        guard count > 1 else { return 0 }
        let mean = sum / Double(count)
        return max(0, (sumSquares - Double(count) * mean * mean) / Double(count - 1))
    }
}

/// A smoother kept as it was before a restart (`PositionSmoother.beforeRestart`): immutable, shared by the copies of
/// the smoother that hold it, copied out to be used.
final class RestartAlternative: Sendable {
    let smoother: PositionSmoother
    let since: Timestamp
    init(smoother: PositionSmoother, since: Timestamp) { self.smoother = smoother; self.since = since }
}
