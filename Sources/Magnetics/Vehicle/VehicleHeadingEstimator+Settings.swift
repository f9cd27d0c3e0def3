extension VehicleHeadingEstimator {
    /// Everything tunable. Angles in degrees, times in seconds of sample time, 1-σ unless said otherwise.
    public struct Settings: Sendable, Hashable {
        // MARK: Output
        /// Deliver a heading only when it moved at least this far from the last delivered one, or its validity
        /// or interference state changed (CLLocationManager's `headingFilter`; 0 delivers every magnetometer sample).
        public var headingFilterDegrees: Double = 1
        /// Reported accuracy = this × the filter's 1-σ (≈ 99 % for a Gaussian; the errors have heavier tails).
        public var accuracySigmas: Double = 2.5
        /// Beyond this the heading is reported unusable (accuracy −1).
        public var maximumAccuracyDegrees: Double = 30

        // MARK: GNSS course
        /// The course observes the heading only at or above this speed (m/s).
        public var minimumCourseSpeedMetersPerSecond: Double = 3
        /// Speed noise assumed when a fix carries no speed accuracy (m/s).
        public var speedSigmaMetersPerSecond: Double = 0.3
        /// Angle between course and heading (1-σ): sideslip of a car in turns ≈ 1°; boats (leeway, current) 5–10°.
        public var sideslipDegrees: Double = 1
        /// Time from a fix's epoch to its arrival (the receiver's output latency), and its uncertainty.
        public var courseLatencySeconds: Double = 0.07
        public var courseLatencySigmaSeconds: Double = 0.05
        /// Along-track acceleration and course rate are differences of fixes at least this far apart (s).
        public var derivativeBaselineSeconds: Double = 0.9

        // MARK: GNSS heading (dual antenna)
        /// σ of a receiver's true heading when it gives no accuracy (NMEA HDT/THS; NAV-RELPOSNED carries its
        /// own): 1° covers moving-base pairs and UM982-class receivers from about a 0.5 m baseline (they claim
        /// 0.1–0.3° at 1 m). Innovations larger than that scale it up (`receiverHeadingNoiseAdaptation`).
        public var receiverHeadingSigmaDegrees: Double = 1
        /// Weight of each innovation in the running mean that scales the receiver heading's noise (≈ 1/updates).
        public var receiverHeadingNoiseAdaptation: Double = 0.05
        /// How long a receiver heading's error stays correlated (multipath; seconds): its variance counts once per
        /// this time, not once per fix.
        public var receiverHeadingCorrelationSeconds: Double = 3
        /// The dual-antenna baseline's heading minus the vehicle's (degrees, clockwise; 0 when the secondary
        /// antenna is mounted straight ahead of the primary).
        public var receiverHeadingOffsetDegrees: Double = 0
        /// With no magnetometer sample for this long the fixes advance the filter and return the heading.
        public var magnetometerTimeoutSeconds: Double = 1

        // MARK: Heading filter
        /// Without a gyroscope: heading acceleration spectral density (°²/s³); a car's turns reach ≈ 7 °/s².
        public var headingAccelerationNoise: Double = 40
        /// Gyroscope angle random walk (°²/s), scale-factor error (fraction of the turn) and bias random walk
        /// (°²/s³); the initial bias uncertainty (°/s).
        public var gyroscopeAngleNoise: Double = 0.01
        public var gyroscopeScaleError: Double = 0.01
        public var gyroscopeBiasNoise: Double = 1e-4
        public var gyroscopeInitialBiasDegreesPerSecond: Double = 1
        /// The magnetometer heading's slowly varying error (calibration, tilt): random walk per second and per
        /// degree turned (°², °²/°).
        public var magneticBiasNoisePerSecond: Double = 0.002
        public var magneticBiasNoisePerDegree: Double = 0.01
        /// Magnetometer noise per axis (µT) — with the horizontal field it gives the heading noise.
        public var magnetometerNoiseMicrotesla: Double = 0.4
        /// Tilt error of the levelled field (degrees): base; the share of the vehicle's acceleration left
        /// uncompensated (body roll and pitch, speed and rate errors); and when
        /// the vehicle's acceleration is unknown (no recent fix while moving).
        public var tiltErrorDegrees: Double = 0.3
        public var tiltErrorPerAcceleration: Double = 0.05
        public var unknownAccelerationTiltDegrees: Double = 2
        /// How long tilt errors stay correlated (s): the magnetometer's measurement noise is inflated so that a
        /// second of samples does not count as independent evidence.
        public var tiltCorrelationSeconds: Double = 1

        // MARK: Calibration in motion
        /// A fit is adopted once it has this many course pairs, this coverage (smallest eigenvalue of the
        /// headings' covariance, 0…0.5) and a residual (as a heading RMS, degrees) at most this.
        public var adoptionPairs: Int = 12
        public var adoptionCoverage: Double = 0.08
        public var adoptionResidualDegrees: Double = 4
        /// Memory of the running fit (s of course pairs; older pairs fade exponentially). A residual limit above
        /// is for a field of inclination 63° (tan 2) and grows with tan(inclination) beyond, as tilt errors do.
        public var fitMemorySeconds: Double = 600
        /// Disturbed this long while moving with course fixes: start a fresh fit (a changed hard iron).
        public var relearnAfterSeconds: Double = 4

        // MARK: Calibration mismatch
        /// A reference heading (course, GNSS heading) the magnetometer heading misses by more than this many σ of
        /// their combined noise widens the heading's uncertainty at once by the unexplained part; so does a running
        /// mean of the normalised squared misses (memory `mismatchMemorySeconds`) above `mismatchMeanThreshold`.
        /// The unexplained variance fades with the same memory.
        public var mismatchGateSigmas: Double = 3
        public var mismatchMeanThreshold: Double = 2
        public var mismatchMemorySeconds: Double = 20
        /// While the magnetometer misfits, β may change by this share of the misfit variance per degree turned
        /// (a changed hard iron's heading error varies with the heading: up to its amplitude per radian).
        public var mismatchPerDegree: Double = 0.03
        /// A lasting misfit of at least this RMS (degrees) starts a fresh fit beside the adopted one; it replaces
        /// the adopted one once it qualifies.
        public var relearnMismatchDegrees: Double = 2
        /// After a disturbance of at least `relearnAfterSeconds` while moving, the magnetometer is counted as
        /// misfitting by this RMS (degrees) until the pairs show that the calibration fits (the misfit fades with
        /// `mismatchMemorySeconds`) or a fresh fit replaces it.
        public var suspectAfterDisturbanceDegrees: Double = 3

        // MARK: Interference
        /// Horizontal strength deviation allowed (fraction of the fitted horizontal field) and vertical deviation
        /// (fraction of the total field); low-pass time constant of both (s).
        public var horizontalTolerance: Double = 0.1
        public var verticalTolerance: Double = 0.1
        public var deviationTimeConstantSeconds: Double = 0.2
        /// Innovation gate of the magnetometer heading (sigmas) plus a floor (degrees); rejected this long in a
        /// row counts as a disturbance.
        public var innovationGateSigmas: Double = 4
        public var innovationGateFloorDegrees: Double = 4
        public var inconsistentSeconds: Double = 0.5
        /// The field must look clean this long before the magnetometer is trusted again.
        public var recoveryHoldSeconds: Double = 0.3

        // MARK: Tilt
        /// Accelerometer low-pass (s) and the slow average that gives the mounting's up axis (s).
        public var accelerometerTimeConstantSeconds: Double = 1
        public var mountingTimeConstantSeconds: Double = 120
        /// The gyroscope counts as present when its last sample is at most this old.
        public var gyroscopeTimeoutSeconds: Double = 0.25

        public init() {}
        public static let `default` = Settings()
        /// A boat: the course differs from the heading by leeway and current.
        public static var boat: Settings { var s = Settings(); s.sideslipDegrees = 8; return s }
    }
}
