import LocationCore
import Magnetics

/// The heading stage: the hand-held `HeadingEstimator` (tilt-compensated compass, interference check, true north
/// from the World Magnetic Model at the last fix), background calibration (`BackgroundRefiner`), and for a vehicle
/// the `VehicleHeadingStage` (docs/heading.md). Owns its state; `snapshot` is a read-only view for diagnosis.
/// Without heading settings motion samples are ignored.
public final class HeadingStage {
    public struct Settings: Sendable {
        /// nil: motion samples are ignored.
        public var heading: HeadingEstimator.Settings? = .default
        public var calibration: MagnetometerCalibration = .identity
        /// A fixed position for the true-north correction until (and unless) a fix arrives.
        public var configuredLocation: Location?
        /// Keep refining the magnetometer calibration from normal operation (adopts a new calibration only with
        /// good coverage, a lower residual, a plausible field strength and a plausible change).
        public var backgroundCalibration = true
        public var platform: VehicleHeadingStage.Platform = .automatic
        public var vehicleHeading = VehicleHeadingEstimator.Settings.default
        /// A calibration learned in motion by an earlier session: the vehicle heading starts calibrated.
        public var vehicleCalibrationState: VehicleCalibrationState?
        /// Called when the vehicle estimator adopts or refines its calibration.
        public var vehicleCalibrationChanged: (@Sendable (VehicleCalibrationState) -> Void)?
        public init() {}
    }

    /// What one motion sample produced, in the order it is output.
    public struct Output {
        /// Background calibration adopted a new calibration (before the sample was processed with it).
        public var refined: CalibrationResult?
        public var calibrationNeeded: CalibrationNeededEvent?
        public var report: HeadingReport?
        /// The last accelerometer sample (bias removed), reported with the heading.
        public var accelerationMetersPerSecondSquared: Vector3?
    }

    /// x-io Fusion's `GetInternalStates`/`GetFlags` shape for the heading.
    public struct Snapshot: Sendable {
        public var enabled: Bool
        public var headingsEmitted: Int
        public var lastHeadingAccuracyDegrees: Double?
        public var lastInterference: MagneticInterference?
        public var calibrationNeeded: Bool
        public var calibration: MagnetometerCalibration?
        public var calibrationsAdopted: Int
        /// The background calibration's sample collection (coverage, samples kept).
        public var backgroundProgress: CalibrationCollector.Progress?
        public var declinationDegrees: Double?
        public var gyroscopeBiasRadiansPerSecond: Vector3?
        public var vehicleActive: Bool
    }

    public let settings: Settings
    private var heading: HeadingEstimator?
    private var refiner: BackgroundRefiner?
    /// The vehicle heading (nil with `platform == .handheld` or heading off).
    public private(set) var vehicle: VehicleHeadingStage?
    private var lastAcceleration: Vector3?
    private var lastHeading: HeadingReport?
    public private(set) var calibrationsAdopted = 0
    public private(set) var headingsEmitted = 0

    public init(settings: Settings) {
        self.settings = settings
        guard let h = settings.heading else { return }
        var estimator = HeadingEstimator(settings: h, calibration: settings.calibration)
        if let l = settings.configuredLocation { estimator.update(location: l) }
        heading = estimator
        if settings.platform != .handheld {
            var v = settings.vehicleHeading
            v.headingFilterDegrees = h.headingFilterDegrees
            vehicle = VehicleHeadingStage(platform: settings.platform, settings: v, calibration: settings.calibration,
                                          state: settings.vehicleCalibrationState)
            vehicle?.calibrationChanged = settings.vehicleCalibrationChanged
        }
        if settings.backgroundCalibration {
            refiner = BackgroundRefiner(current: settings.calibration,
                                        referenceFieldMicrotesla: estimator.fieldElements.map { $0.totalNanotesla / 1000 })
        }
    }

    /// A motion sample (any sensor) at `monotonicNanos`.
    public func motion(_ sample: MotionSample, monotonicNanos: Int64?, sampleTimeSeconds: Double?) -> Output {
        switch sample {
        case .accelerometer(let a, let bias): lastAcceleration = bias.map { a - $0 } ?? a
        case .accelerometerRaw(let raw): lastAcceleration = raw.vector
        default: break
        }
        var out = Output()
        guard heading != nil else { return out }
        let t = monotonicNanos ?? 0
        if refiner != nil {
            var raw: Vector3?
            switch sample {
            case .magnetometer(let field, _): raw = field
            case .magnetometerRaw(let r): raw = r.vector
            default: break
            }
            if let raw, case .adopted(let result)? = refiner?.add(raw, monotonicNanos: t) {
                heading?.setCalibration(result.calibration)
                calibrationsAdopted += 1
                out.refined = result
            }
        }
        var update = heading?.process(sample, monotonicNanos: t, sampleTimeSeconds: sampleTimeSeconds) ?? .none
        if let vehicle {
            var v = vehicle.motion(sample, monotonicNanos: t)
            if vehicle.active {
                v.report?.sampleTimeSeconds = sampleTimeSeconds
                update = v
            }
        }
        out.calibrationNeeded = update.calibration
        if let r = update.report {
            lastHeading = r
            headingsEmitted += 1
            out.report = r
            out.accelerationMetersPerSecondSquared = lastAcceleration
        }
        return out
    }

    /// A receiver fix as parsed, handed over once (not a dead-reckoned fix: the vehicle estimator uses the
    /// receiver's own course and speed). Returns a heading when the receiver's own (dual-antenna) heading is the
    /// heading: no magnetometer. (Two methods rather than one taking optionals: wrapping a fix in an optional and
    /// unwrapping it again copied all its bytes each time, 496 then.)
    public func fix(parsed: Location, monotonicNanos: Int64?) -> HeadingReport? {
        guard let vehicle, let r = vehicle.fix(parsed, monotonicNanos: monotonicNanos).report else { return nil }
        lastHeading = r
        headingsEmitted += 1
        return r
    }

    /// The fix as the pipeline outputs it, handed over once: its position sets the magnetic model for true north
    /// and the background calibration's expected field strength.
    public func fix(output l: Location) {
        guard heading != nil, l.latitudeDegrees != nil, l.mode == .twoD || l.mode == .threeD else { return }
        heading?.update(location: l)
        if let f = heading?.fieldElements { refiner?.referenceFieldMicrotesla = f.totalNanotesla / 1000 }
    }

    /// A heading source went down: the last valid heading, now reported invalid (accuracy −1, Core Location's
    /// "invalid" heading); nil when there is none or it is already invalid.
    public func sourceLost() -> HeadingReport? {
        guard var h = lastHeading, h.headingAccuracyDegrees >= 0 else { return nil }
        h.headingAccuracyDegrees = -1
        lastHeading = h
        headingsEmitted += 1
        return h
    }

    public var snapshot: Snapshot {
        Snapshot(enabled: heading != nil, headingsEmitted: headingsEmitted,
                 lastHeadingAccuracyDegrees: lastHeading?.headingAccuracyDegrees,
                 lastInterference: lastHeading?.interference, calibrationNeeded: heading?.calibrationNeeded ?? false,
                 calibration: heading?.calibration, calibrationsAdopted: calibrationsAdopted,
                 backgroundProgress: refiner?.collector.progress, declinationDegrees: heading?.declinationDegrees,
                 gyroscopeBiasRadiansPerSecond: heading?.gyroscopeBiasRadiansPerSecond, vehicleActive: vehicle?.active ?? false)
    }
}
