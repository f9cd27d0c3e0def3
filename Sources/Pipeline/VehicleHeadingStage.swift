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

    public init(platform: Platform, settings: VehicleHeadingEstimator.Settings, calibration: MagnetometerCalibration) {
        self.platform = platform
        estimator = VehicleHeadingEstimator(settings: settings, calibration: calibration)
        active = platform == .vehicle
    }

    func fix(_ l: Location, monotonicNanos: Int64?) {
        guard let t = monotonicNanos else { return }
        if platform == .automatic, !active, let v = l.speedMetersPerSecond, v >= 3, l.mode != .noFix { active = true }
        estimator.update(fix: l, monotonicNanos: t)
    }

    func motion(_ sample: MotionSample, monotonicNanos t: Int64) -> HeadingUpdate {
        estimator.process(sample, monotonicNanos: t)
    }
}
