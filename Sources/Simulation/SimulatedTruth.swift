#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

/// The simulated drive's truth at any instant (for scoring per-sample outputs, which the 1 Hz `TruthSample` rows
/// cannot do through turns).
public struct SimulatedTruth: Sendable {
    private let simulator: RouteSimulator
    private let route: SimulatedRoute

    public init(settings: RouteSimulator.Settings) {
        simulator = RouteSimulator(settings: settings)
        let d = settings.durationSeconds.isFinite ? max(0, settings.durationSeconds) : 0
        route = SimulatedRoute(settings: settings, duration: d)
    }

    /// Seconds since the first epoch for a capture's monotonic stamp.
    public static func seconds(monotonicNanos: Int64) -> Double {
        Double(monotonicNanos - RouteSimulator.monotonicOrigin) / 1e9
    }

    /// True heading of the vehicle's forward axis, degrees [0, 360).
    public func headingDegrees(atSeconds t: Double) -> Double {
        Angle.normalizedDegrees(route.kinematics(at: t).headingDegrees)
    }
    public func speedMetersPerSecond(atSeconds t: Double) -> Double { route.kinematics(at: t).speed }
    public func yawRateDegreesPerSecond(atSeconds t: Double) -> Double { route.kinematics(at: t).yawRateDegreesPerSecond }
    public func interference(atSeconds t: Double) -> Bool { simulator.inInterference(t) }
    public func gnssOutage(atSeconds t: Double) -> Bool { simulator.inOutage(t) }
    /// The road's pitch (degrees, nose up).
    public func pitchDegrees(atSeconds t: Double) -> Double {
        let s = simulator.settings
        guard s.hillAmplitudeDegrees != 0, s.hillWavelengthMeters > 0 else { return 0 }
        return s.hillAmplitudeDegrees * sin(2 * Double.pi * route.distance(at: t) / s.hillWavelengthMeters)
    }
}
