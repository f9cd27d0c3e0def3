/// Settings by name, for configuration files (`key = value`).
extension PositionSmoother.Settings {
    public enum SettingError: Error, CustomStringConvertible, Equatable {
        case unknownKey(String), badValue(key: String, value: String)
        public var description: String {
            switch self {
            case .unknownKey(let k): "unknown smoothing setting '\(k)' (see docs/smoothing.md for the names)"
            case .badValue(let k, let v): "smoothing setting '\(k)': '\(v)' is not a valid value"
            }
        }
    }

    nonisolated(unsafe) static let numericKeys: [String: WritableKeyPath<PositionSmoother.Settings, Double>] = [  // immutable after init
        "accelerationNoiseDensity": \.accelerationNoiseDensity,
        "aidedAccelerationNoiseDensity": \.aidedAccelerationNoiseDensity,
        "measurementNoiseScale": \.measurementNoiseScale,
        "adaptiveScaleMinimum": \.adaptiveScaleMinimum,
        "adaptiveScaleMaximum": \.adaptiveScaleMaximum,
        "adaptiveWeight": \.adaptiveWeight,
        "minimumMeasurementSigmaMeters": \.minimumMeasurementSigmaMeters,
        "defaultMeasurementSigmaMeters": \.defaultMeasurementSigmaMeters,
        "correlatedErrorFraction": \.correlatedErrorFraction,
        "correlatedErrorTimeConstantSeconds": \.correlatedErrorTimeConstantSeconds,
        "speedSigmaMetersPerSecond": \.speedSigmaMetersPerSecond,
        "courseSigmaDegrees": \.courseSigmaDegrees,
        "minimumSpeedForCourseMetersPerSecond": \.minimumSpeedForCourseMetersPerSecond,
        "positionGateChiSquare": \.positionGateChiSquare,
        "velocityGateChiSquare": \.velocityGateChiSquare,
        "stationaryEnterSpeedMetersPerSecond": \.stationaryEnterSpeedMetersPerSecond,
        "stationaryExitSpeedMetersPerSecond": \.stationaryExitSpeedMetersPerSecond,
        "stationaryEnterSeconds": \.stationaryEnterSeconds,
        "accelerometerVarianceEnter": \.accelerometerVarianceEnter,
        "accelerometerVarianceExit": \.accelerometerVarianceExit,
        "accelerometerWindowSeconds": \.accelerometerWindowSeconds,
        "inertialMaximumAgeSeconds": \.inertialMaximumAgeSeconds,
        "holdMinimumDeadbandMeters": \.holdMinimumDeadbandMeters,
        "holdDeadbandRadiusFactor": \.holdDeadbandRadiusFactor,
        "maximumOutageSeconds": \.maximumOutageSeconds,
        "reanchorDistanceMeters": \.reanchorDistanceMeters,
    ]
    nonisolated(unsafe) static let booleanKeys: [String: WritableKeyPath<PositionSmoother.Settings, Bool>] = [  // immutable after init
        "adaptiveMeasurementNoise": \.adaptiveMeasurementNoise,
        "useVelocity": \.useVelocity,
        "limitConvergenceJump": \.limitConvergenceJump,
        "deadReckoningFromLearnedDrift": \.deadReckoningFromLearnedDrift,
        "velocityAtTimeTag": \.velocityAtTimeTag,
        "stopFromVelocities": \.stopFromVelocities,
        "holdFollowsCreep": \.holdFollowsCreep,
        "heldRadiusFromOffset": \.heldRadiusFromOffset,
        "stopFromPositions": \.stopFromPositions,
        "holdWanderBeyondShownLags": \.holdWanderBeyondShownLags,
        "waitFromShortSlope": \.waitFromShortSlope,
    ]

    /// Every setting name accepted by `set(_:_:)`.
    public static var keys: [String] { (Array(numericKeys.keys) + Array(booleanKeys.keys) + ["reinitialiseAfterRejections"]).sorted() }

    /// Sets one setting by its property name; values must be finite and non-negative.
    public mutating func set(_ key: String, _ value: String) throws(SettingError) {
        if let kp = Self.numericKeys[key] {
            guard let v = Double(value), v.isFinite, v >= 0 else { throw .badValue(key: key, value: value) }
            self[keyPath: kp] = v
        } else if let kp = Self.booleanKeys[key] {
            switch value { case "true", "yes", "1": self[keyPath: kp] = true
            case "false", "no", "0": self[keyPath: kp] = false
            default: throw .badValue(key: key, value: value) }
        } else if key == "reinitialiseAfterRejections" {
            guard let v = Int(value), v >= 1 else { throw .badValue(key: key, value: value) }
            reinitialiseAfterRejections = v
        } else {
            throw .unknownKey(key)
        }
    }
}
