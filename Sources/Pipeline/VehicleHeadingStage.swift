import LocationCore
import Magnetics

/// The heading for a vehicle (docs/heading.md): `VehicleHeadingEstimator` fed with the receiver's fixes (as
/// parsed, before smoothing: the course is the receiver's own Doppler velocity) and the motion samples.
///
/// `automatic` (the default) switches to it once a fix shows the board moving at vehicle speed (≥ 3 m/s): before
/// that, and for a board that never moves, the hand-held `HeadingEstimator` reports. `vehicle` uses it from the
/// start; `handheld` never.
public final class VehicleHeadingStage {
    public enum Platform: String, Sendable, CaseIterable { case automatic, vehicle, handheld }

    public private(set) var estimator: VehicleHeadingEstimator
    public let platform: Platform
    /// True once the vehicle estimator's reports replace the hand-held ones.
    public private(set) var active: Bool

    /// Called when the estimator adopted or refined its calibration (persist `estimator.calibrationState`).
    public var calibrationChanged: ((VehicleCalibrationState) -> Void)?
    private var revision = 0

    public init(platform: Platform, settings: VehicleHeadingEstimator.Settings, calibration: MagnetometerCalibration,
                state: VehicleCalibrationState? = nil) {
        self.platform = platform
        estimator = VehicleHeadingEstimator(settings: settings, calibration: calibration)
        if let state { estimator.restore(state) }
        // A restored calibration is a vehicle's: use it from the start.
        active = platform == .vehicle || (platform == .automatic && state != nil)
    }

    private func noteRevision() {
        guard estimator.calibrationRevision != revision else { return }
        revision = estimator.calibrationRevision
        if let c = calibrationChanged, let s = estimator.calibrationState { c(s) }
    }

    /// A receiver fix; returns a heading when there is no magnetometer and the fix carried the receiver's own
    /// true heading (dual antenna), which also makes the vehicle estimator report (`automatic`).
    func fix(_ l: Location, monotonicNanos: Int64?) -> HeadingUpdate {
        guard let t = monotonicNanos else { return .none }
        if platform == .automatic, !active, let v = l.speedMetersPerSecond, v >= 3, l.mode != .noFix { active = true }
        if platform == .automatic, !active, l.receiverHeadingDegrees != nil { active = true }
        let update = estimator.update(fix: l, monotonicNanos: t)
        noteRevision()
        return active ? update : .none
    }

    func motion(_ sample: MotionSample, monotonicNanos t: Int64) -> HeadingUpdate {
        estimator.process(sample, monotonicNanos: t)
    }
}
