import LocationCore

/// Which rung of the fit ladder produced a calibration.
public enum CalibrationMethod: String, Sendable, Hashable, CaseIterable {
    /// Hard iron and a symmetric soft-iron matrix (broad, well-conditioned coverage).
    case ellipsoid
    /// Hard iron and field strength only; soft iron is the identity.
    case sphere
    /// Directions in one plane only (a level vehicle turning): hard iron within the plane; the offset along the
    /// plane's normal is unobservable and left at 0 (`CalibrationResult.unobservableAxis`).
    case circle
}

/// How good a fit is, on the samples it used.
public struct CalibrationMetrics: Sendable, Hashable {
    /// Samples given to the fit.
    public var sampleCount: Int
    /// Samples kept after outlier rejection.
    public var inlierCount: Int
    /// Standard deviation of |calibrated field| over the inliers, µT: how far from a sphere the corrected data lie.
    public var residualStdMicrotesla: Double
    /// Percentage of the `DirectionBins.standard` cells the corrected inlier directions reach.
    public var coveragePercent: Double
    /// The field strength the fit saw, µT: the sphere radius (sphere, ellipsoid) or the circle radius, i.e. the
    /// field's component in the plane (circle).
    public var fieldMicrotesla: Double
    /// The World Magnetic Model's total intensity F at the location, µT, when a location was given.
    public var referenceTotalMicrotesla: Double?
    /// The model's horizontal intensity H, µT: what a circle fit should see when its plane is level.
    public var referenceHorizontalMicrotesla: Double?
    /// √(smallest / middle eigenvalue) of the inlier samples' covariance: ≈ 0 for one plane of directions.
    public var thicknessRatio: Double
    /// Longest over shortest semi-axis of the fitted ellipsoid (1 for sphere and circle fits).
    public var axisRatio: Double

    public init(sampleCount: Int, inlierCount: Int, residualStdMicrotesla: Double, coveragePercent: Double,
                fieldMicrotesla: Double, referenceTotalMicrotesla: Double? = nil,
                referenceHorizontalMicrotesla: Double? = nil, thicknessRatio: Double, axisRatio: Double = 1) {
        self.sampleCount = sampleCount; self.inlierCount = inlierCount
        self.residualStdMicrotesla = residualStdMicrotesla; self.coveragePercent = coveragePercent
        self.fieldMicrotesla = fieldMicrotesla; self.referenceTotalMicrotesla = referenceTotalMicrotesla
        self.referenceHorizontalMicrotesla = referenceHorizontalMicrotesla
        self.thicknessRatio = thicknessRatio; self.axisRatio = axisRatio
    }
}

/// A fitted calibration with how it was made and how good it is.
public struct CalibrationResult: Sendable, Hashable {
    public var calibration: MagnetometerCalibration
    public var method: CalibrationMethod
    public var metrics: CalibrationMetrics
    /// Circle fits only: the unit normal of the plane of directions (sensor frame). The hard-iron component along
    /// it cannot be seen in the data and is left at 0.
    public var unobservableAxis: Vector3?
    /// What the ladder decided and why (a rejected ellipsoid, an unobservable axis), one sentence each.
    public var notes: [String]

    public init(calibration: MagnetometerCalibration, method: CalibrationMethod, metrics: CalibrationMetrics,
                unobservableAxis: Vector3? = nil, notes: [String] = []) {
        self.calibration = calibration; self.method = method; self.metrics = metrics
        self.unobservableAxis = unobservableAxis; self.notes = notes
    }

    /// The reference the fitted strength should match: F for sphere/ellipsoid, H for a circle (assuming a level
    /// plane); nil without a location.
    public var referenceFieldMicrotesla: Double? {
        method == .circle ? metrics.referenceHorizontalMicrotesla : metrics.referenceTotalMicrotesla
    }

    /// (fitted − reference) / reference, when a reference is known.
    public var fieldDeviationFraction: Double? {
        guard let ref = referenceFieldMicrotesla, ref > 0 else { return nil }
        return (metrics.fieldMicrotesla - ref) / ref
    }
}

/// Why samples could not be turned into a calibration.
public enum CalibrationFitError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Fewer samples than the fit needs.
    case tooFewSamples(count: Int, minimum: Int)
    /// The samples do not span enough directions (the device was hardly turned); the detail says how little.
    case insufficientMotion(String)
    /// The equations had no unique solution, or the result is not physically meaningful.
    case degenerate(String)

    public var description: String {
        switch self {
        case .tooFewSamples(let n, let m):
            "only \(n) magnetometer samples (at least \(m) needed)"
        case .insufficientMotion(let why):
            "\(why): turn the device through more orientations"
        case .degenerate(let why):
            "no usable fit: \(why)"
        }
    }
}
