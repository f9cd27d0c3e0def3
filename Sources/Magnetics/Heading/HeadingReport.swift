import LocationCore

/// One heading, as Core Location's CLHeading delivers it, for one magnetometer sample.
///
/// Headings are of the board's x axis (see `SensorMounting`) projected onto the horizontal plane, in degrees
/// clockwise from north, [0, 360), plus `Settings.displayOffsetDegrees`.
public struct HeadingReport: Sendable, Hashable {
    /// The magnetometer sample's monotonic stamp (ns).
    public var monotonicNanos: Int64
    /// The input's own sample time (IMU CSV `t_s`), echoed when the event carried one.
    public var sampleTimeSeconds: Double?
    /// Degrees clockwise from magnetic north, [0, 360).
    public var magneticHeadingDegrees: Double
    /// Degrees clockwise from true north, [0, 360): magnetic + declination; nil until a location (WMM) or a
    /// configured declination exists. `trueHeadingOrMinusOne` gives Core Location's −1 convention.
    public var trueHeadingDegrees: Double?
    /// The declination used (degrees, east positive), if any.
    public var declinationDegrees: Double?
    /// Maximum deviation (degrees) between the reported and the actual magnetic heading, meant to hold at least
    /// 95 % of the time; −1 when the heading is unusable (no reference yet, heavy interference without a gyroscope,
    /// or a gyroscope-only stretch whose uncertainty passed `Settings.maximumAccuracyDegrees`).
    public var headingAccuracyDegrees: Double
    /// Rotation about the board's x axis, degrees (−180, 180], positive when the left side (+y) rises.
    public var rollDegrees: Double
    /// Elevation of the board's x axis above the horizontal, degrees [−90, 90], positive nose up.
    public var pitchDegrees: Double
    /// The magnetometer reading as received (µT, sensor frame, before calibration).
    public var rawFieldMicrotesla: Vector3
    /// After calibration (hard/soft iron, or the source's own bias) and mounting: µT, board frame.
    public var calibratedFieldMicrotesla: Vector3
    /// What the interference monitor saw for this sample.
    public var interference: MagneticInterference
    /// True when the heading is propagated with the gyroscope (an AHRS); false for accelerometer + magnetometer only.
    public var usesGyroscope: Bool

    /// False when `headingAccuracyDegrees` is −1.
    public var isValid: Bool { headingAccuracyDegrees >= 0 }

    /// The true heading, or −1 when unknown (CLHeading's convention).
    public var trueHeadingOrMinusOne: Double { trueHeadingDegrees ?? -1 }
}

/// The interference monitor's view of one magnetometer sample.
public struct MagneticInterference: Sendable, Hashable {
    /// Which checks failed.
    public struct Checks: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// |B| differs from the expected total field by more than the tolerance.
        public static let magnitude = Checks(rawValue: 1 << 0)
        /// The angle between the field and the horizontal plane (from gravity) differs from the expected inclination.
        public static let inclination = Checks(rawValue: 1 << 1)
        /// The magnetometer's heading disagrees with the gyroscope's propagation (low-passed).
        public static let headingConsistency = Checks(rawValue: 1 << 2)
    }

    public enum State: Sendable, Hashable {
        /// The field looks like the reference: the magnetometer steers the heading.
        case none
        /// The field is disturbed: the magnetometer is ignored (the gyroscope carries the heading when present).
        case transient
        /// Disturbed for long enough, or with a body-fixed (hard-iron) signature, to ask for calibration.
        case persistent
    }

    public var state: State = .none
    /// Checks failing on this sample.
    public var failedChecks: Checks = []
    /// |B| − expected total field (µT); 0 before a reference exists.
    public var magnitudeDeviationMicrotesla: Double = 0
    /// Measured − expected inclination (degrees); 0 before a reference exists.
    public var inclinationDeviationDegrees: Double = 0
    /// Magnetometer heading − filter heading, low-passed (degrees); 0 without a gyroscope.
    public var headingInconsistencyDegrees: Double = 0
    /// How long the current disturbance has lasted (seconds, from sample stamps); 0 when none.
    public var disturbedSeconds: Double = 0
    /// Where the expected field comes from.
    public var reference: ReferenceSource = .none

    public enum ReferenceSource: Sendable, Hashable {
        /// Nothing yet: the first undisturbed-looking second of data will become the reference.
        case none
        /// Learned from the data (no fix, or the WMM value was not matched by the environment).
        case learned
        /// The World Magnetic Model at the latest fix or configured location.
        case worldMagneticModel
    }

    public init() {}

    /// True while the magnetometer is ignored.
    public var isDisturbed: Bool { state != .none }
}

/// A change of Core Location's `shouldDisplayHeadingCalibration`: raised for a lasting change (a new hard iron),
/// cleared when the field matches the reference again (after recalibration or when the disturbance left).
public struct CalibrationNeededEvent: Sendable, Hashable {
    public enum Reason: Sendable, Hashable {
        /// The disturbance stays fixed to the sensor while it rotates: a new hard iron; recalibrate.
        case hardIronSignature
        /// The disturbance has lasted `Settings.calibrationNeededAfterSeconds`.
        case persistentInterference
        /// The field matches the reference again.
        case resolved
    }

    public var needed: Bool
    public var reason: Reason
    public var monotonicNanos: Int64
    public var sampleTimeSeconds: Double?
}

/// What one input sample produced: at most one heading (magnetometer samples that pass `headingFilter`) and at
/// most one calibration transition.
public struct HeadingUpdate: Sendable, Hashable {
    public var report: HeadingReport?
    public var calibration: CalibrationNeededEvent?

    public init(report: HeadingReport? = nil, calibration: CalibrationNeededEvent? = nil) {
        self.report = report
        self.calibration = calibration
    }

    public static var none: HeadingUpdate { HeadingUpdate() }
}
