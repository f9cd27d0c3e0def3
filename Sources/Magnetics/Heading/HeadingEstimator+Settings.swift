extension HeadingEstimator {
    /// Everything tunable; `default` holds the values chosen on the BROAD recordings (`swift run LodestarEval`
    /// prints the evaluation; `--set NAME=VALUE` tries others).
    /// Rates are per second of sample time; angles in degrees.
    public struct Settings: Sendable, Hashable {
        // MARK: Output

        /// Deliver a heading only when it moved at least this far from the last delivered one (CLLocationManager's
        /// `headingFilter`; 0 delivers every magnetometer sample). A change of validity or of the interference state
        /// (none, transient, persistent) is always delivered.
        public var headingFilterDegrees: Double = 1
        /// How the sensor sits on the board; headings are of the board's x axis.
        public var mounting: SensorMounting = .identity
        /// Added to every heading (e.g. 90 when the display's "up" is the board's −y axis), wrapped to [0, 360).
        public var displayOffsetDegrees: Double = 0

        // MARK: Attitude filter (complementary filter on a quaternion, gyroscope-propagated)

        /// Tilt correction rate from the accelerometer (1/s of the tilt error).
        public var accelerometerGain: Double = 0.5
        /// Heading correction rate from the magnetometer while the field looks clean (1/s of the heading error).
        public var magnetometerGain: Double = 0.5
        /// Heading correction rate while the heading is far less certain than one magnetometer reading (start-up,
        /// after a long disturbance): converges in about 1/rate seconds.
        public var convergenceGain: Double = 5
        /// Accelerometer samples whose direction differs from the filter's gravity by more than this are ignored
        /// (linear acceleration).
        public var accelerationRejectionDegrees: Double = 10
        /// After this long with every accelerometer sample rejected while the board is quiet, the filter trusts
        /// the accelerometer again (its tilt, not the accelerometer, was wrong).
        public var accelerationRecoverySeconds: Double = 2
        /// The gyroscope counts as present when its last sample is at most this old; otherwise the estimator
        /// falls back to accelerometer + magnetometer only.
        public var gyroscopeTimeoutSeconds: Double = 0.25
        /// A gap between gyroscope samples longer than this restarts the filter from the next accelerometer and
        /// magnetometer pair (nothing is known about the rotation in between).
        public var maximumGyroscopeGapSeconds: Double = 1

        // MARK: Gyroscope bias (learned while stationary)

        /// Below this rate (after the current bias estimate) and with a steady accelerometer, the board may be still.
        public var stationaryRateDegreesPerSecond: Double = 3
        /// Accelerometer change (m/s², from its 0.2 s average) still counted as still.
        public var stationaryAccelerationTolerance: Double = 0.3
        /// Still for this long before the gyroscope readings are averaged into the bias.
        public var stationarySeconds: Double = 1

        // MARK: Accuracy model

        /// The magnetometer's own heading error bound with a good calibration and a clean field (calibration
        /// residuals, noise, field inhomogeneity indoors).
        public var magneticHeadingErrorDegrees: Double = 2.5
        /// Heading drift bound of the gyroscope once its bias was learned (°/s).
        public var gyroscopeBiasBoundDegreesPerSecond: Double = 0.05
        /// Heading drift bound before any stationary period taught the bias (°/s).
        public var uncalibratedGyroscopeBiasBoundDegreesPerSecond: Double = 0.5
        /// Tilt error bound of the gyroscope-aided attitude; near vertical it turns the x axis's azimuth by up to
        /// this × tan(pitch), so the heading of an upright board becomes unusable (−1) rather than wrong.
        public var tiltErrorDegrees: Double = 0.5
        /// Gyroscope scale-factor and axis-misalignment bound (fraction of the rotation rate).
        public var gyroscopeScaleErrorBound: Double = 0.003
        /// Share of the low-passed magnetometer-vs-gyroscope disagreement added to the reported accuracy while the
        /// magnetometer is trusted (the truth lies between the two).
        public var inconsistencyAccuracyShare: Double = 1
        /// When the magnetometer is trusted again while it still disagrees with the gyroscope, that disagreement
        /// stays in the accuracy and fades with this time constant (seconds) while the field stays trusted: it may
        /// have been the gyroscope that drifted, or a steady disturbance that outlasted the rejection.
        public var suspicionTimeConstantSeconds: Double = 30
        /// Beyond this the heading is reported unusable (accuracy −1).
        public var maximumAccuracyDegrees: Double = 30

        // MARK: Without a gyroscope

        /// Averaging of the accelerometer and magnetometer vectors when no gyroscope is present (seconds).
        public var vectorTimeConstantSeconds: Double = 0.05
        /// Heading error bound per m/s² of estimated linear acceleration, per unit of tan(inclination) + tan(pitch):
        /// a tilt error turns the tilt-compensated heading through the field's dip and through the projection of a
        /// pitched x axis.
        public var linearAccelerationAccuracyDegrees: Double = 0.8
        /// Heading error bound per °/s of rotation (the averaging and sampling lag).
        public var rotationLagAccuracySeconds: Double = 0.04

        // MARK: Interference

        /// |B| may differ from the reference by this share before the field counts as disturbed.
        public var magnitudeToleranceFraction: Double = 0.1
        /// The inclination may differ from the reference by this much.
        public var inclinationToleranceDegrees: Double = 6
        /// Low-pass time constant of the strength and inclination deviations (seconds).
        public var deviationTimeConstantSeconds: Double = 0.25
        /// The low-passed magnetometer-vs-gyroscope heading disagreement allowed.
        public var headingConsistencyToleranceDegrees: Double = 5
        /// Low-pass time constant of that disagreement (seconds).
        public var headingConsistencyTimeConstantSeconds: Double = 0.5
        /// While disturbed, the magnetometer heading may differ from the gyroscope's by half the consistency
        /// tolerance plus this share of the drift bound accumulated since the onset before it is trusted again.
        /// The bound is a worst case; the typical drift is a fraction of it, and a larger share lets a steady
        /// disturbance back in sooner.
        public var recoveryDriftShare: Double = 0.25
        /// The field must look clean this long before the magnetometer is trusted again.
        public var recoveryHoldSeconds: Double = 0.5
        /// A board kept still in a field of plausible strength and inclination trusts the magnetometer again after
        /// this long even if it disagrees with the gyroscope (the disagreement stays in the accuracy, see
        /// `suspicionTimeConstantSeconds`).
        public var stationaryRecoverySeconds: Double = 3
        /// Without a fix or calibration strength, the first this-many seconds of steady field become the reference.
        public var referenceLearningSeconds: Double = 1
        /// The reference follows the clean field with this time constant (seconds; slow drift, temperature).
        public var referenceTimeConstantSeconds: Double = 60
        /// A disturbance that lasts this long raises `calibrationNeeded`.
        public var calibrationNeededAfterSeconds: Double = 45
        /// A disturbance fixed to the sensor (a hard iron) raises `calibrationNeeded` once the board has turned
        /// this far while it lasted.
        public var hardIronRotationDegrees: Double = 90

        public init() {}

        public static let `default` = Settings()
    }
}
