import LocationCore

extension HeadingReport {
    /// A heading as another process reported it (the location service's event stream, decoded by a client).
    public init(reportedAtMonotonicNanos monotonicNanos: Int64, sampleTimeSeconds: Double? = nil, magneticHeadingDegrees: Double,
                trueHeadingDegrees: Double?, declinationDegrees: Double? = nil, headingAccuracyDegrees: Double,
                rollDegrees: Double = 0, pitchDegrees: Double = 0, rawFieldMicrotesla: Vector3 = .zero,
                calibratedFieldMicrotesla: Vector3 = .zero, interference: MagneticInterference = MagneticInterference(),
                usesGyroscope: Bool = false) {
        self.monotonicNanos = monotonicNanos
        self.sampleTimeSeconds = sampleTimeSeconds
        self.magneticHeadingDegrees = magneticHeadingDegrees
        self.trueHeadingDegrees = trueHeadingDegrees
        self.declinationDegrees = declinationDegrees
        self.headingAccuracyDegrees = headingAccuracyDegrees
        self.rollDegrees = rollDegrees
        self.pitchDegrees = pitchDegrees
        self.rawFieldMicrotesla = rawFieldMicrotesla
        self.calibratedFieldMicrotesla = calibratedFieldMicrotesla
        self.interference = interference
        self.usesGyroscope = usesGyroscope
    }
}

extension CalibrationNeededEvent {
    /// A calibration prompt as another process reported it (the location service's event stream).
    public init(reportedNeeded needed: Bool, reason: Reason, monotonicNanos: Int64, sampleTimeSeconds: Double?) {
        self.needed = needed; self.reason = reason; self.monotonicNanos = monotonicNanos; self.sampleTimeSeconds = sampleTimeSeconds
    }
}
