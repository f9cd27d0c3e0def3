#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

struct Kinematics {
    /// m/s, ≥ 0 (exactly 0 at rest).
    var speed: Double
    /// Longitudinal acceleration, m/s².
    var acceleration: Double
    /// Unwrapped heading, degrees clockwise from north.
    var headingDegrees: Double
    /// dψ/dt, degrees per second, positive turning right.
    var yawRateDegreesPerSecond: Double
}

/// The drive as piecewise raised-cosine segments: within a segment of length d, with u = (t − start)/d,
/// speed = v0 + (v1 − v0)(1 − cos πu)/2 and heading = ψ0 + turn·(1 − cos πu)/2.
struct SimulatedRoute {
    struct Segment {
        var start: Double, duration: Double, v0: Double, v1: Double, heading0: Double, turn: Double
    }

    enum Maneuver {
        case cruise(Double)
        /// Slow to turn speed, turn by the given degrees (positive right), speed up again.
        case turn(Double)
        /// A gentle bend at cruise speed.
        case bend(Double)
    }

    /// The repeating part of the drive: a closed circuit A R B R A R B R (R a right turn). Every maneuver starts
    /// and ends at cruise speed, so each copy of A or B is the previous one rotated by 180° and the circuit
    /// returns exactly to where it began: however long the drive, it stays within about 2 km of the
    /// origin (the stop only shifts the circuit once).
    static let pattern: [Maneuver] = {
        let a: [Maneuver] = [.cruise(16)]
        let b: [Maneuver] = [.cruise(10), .turn(-360), .cruise(14), .bend(-25), .bend(25), .cruise(10), .turn(-90),
                             .cruise(12), .turn(90), .cruise(18)]
        return a + [.turn(90)] + b + [.turn(90)] + a + [.turn(90)] + b + [.turn(90)]
    }()

    private(set) var segments: [Segment] = []
    private var t = 0.0, speed = 0.0, heading: Double
    private let cruise: Double, turnSpeed: Double

    init(settings s: RouteSimulator.Settings, duration: Double) {
        cruise = max(0, s.cruiseSpeedMetersPerSecond.isFinite ? s.cruiseSpeedMetersPerSecond : 0)
        turnSpeed = max(0, min(cruise, s.turnSpeedMetersPerSecond.isFinite ? s.turnSpeedMetersPerSecond : 0))
        heading = s.initialHeadingDegrees.isFinite ? s.initialHeadingDegrees : 0
        // Raised-cosine ramps peaking at about 1.7 m/s², in whole seconds: 12 s between rest and 13 m/s.
        let ramp = max(4, (cruise * Double.pi / (2 * 1.7)).rounded())
        let parked = 2.0
        let stopStart = s.stopStartSeconds, stopLength = s.stopDurationSeconds
        let stopEnabled = stopLength.isFinite && stopLength > 0 && stopStart.isFinite && stopStart >= 0
            && stopStart < duration
        var index = 0
        if stopEnabled && stopStart < parked + 2 * ramp {
            // Too early to drive off and brake again: stay parked through the stop.
            add(until: stopStart + stopLength, endSpeed: 0, turn: 0)
            add(ramp, endSpeed: cruise, turn: 0)
        } else {
            add(parked, endSpeed: 0, turn: 0)
            add(ramp, endSpeed: cruise, turn: 0)
            if stopEnabled {
                while t + Self.length(Self.pattern[index % Self.pattern.count]) + ramp <= stopStart {
                    expand(Self.pattern[index % Self.pattern.count])
                    index += 1
                }
                if stopStart - ramp - t > 1e-9 { add(stopStart - ramp - t, endSpeed: cruise, turn: 0) }
                add(until: stopStart, endSpeed: 0, turn: 0)
                add(until: stopStart + stopLength, endSpeed: 0, turn: 0)
                add(ramp, endSpeed: cruise, turn: 0)
            }
        }
        while t < duration {
            expand(Self.pattern[index % Self.pattern.count])
            index += 1
        }
    }

    private static func turnDuration(_ degrees: Double) -> Double { max(4, abs(degrees) / 11.25) }

    private static func length(_ m: Maneuver) -> Double {
        switch m {
        case .cruise(let d): d
        case .turn(let deg): 6 + turnDuration(deg) + 8
        case .bend: 8
        }
    }

    private mutating func expand(_ m: Maneuver) {
        switch m {
        case .cruise(let d):
            add(d, endSpeed: cruise, turn: 0)
        case .turn(let deg):
            add(6, endSpeed: turnSpeed, turn: 0)
            add(Self.turnDuration(deg), endSpeed: turnSpeed, turn: deg)
            add(8, endSpeed: cruise, turn: 0)
        case .bend(let deg):
            add(8, endSpeed: cruise, turn: deg)
        }
    }

    private mutating func add(_ duration: Double, endSpeed: Double, turn: Double) {
        add(until: t + duration, endSpeed: endSpeed, turn: turn)
    }

    private mutating func add(until end: Double, endSpeed: Double, turn: Double) {
        guard end > t else { return }
        segments.append(Segment(start: t, duration: end - t, v0: speed, v1: endSpeed, heading0: heading, turn: turn))
        t = end
        speed = endSpeed
        heading = Angle.normalizedDegrees(heading + turn)
    }

    func kinematics(at time: Double) -> Kinematics {
        guard let first = segments.first, let lastSegment = segments.last else {
            return Kinematics(speed: 0, acceleration: 0, headingDegrees: heading, yawRateDegreesPerSecond: 0)
        }
        // Last segment starting at or before `time`.
        var lo = 0, hi = segments.count - 1
        if time <= first.start { hi = 0 }
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if segments[mid].start <= time { lo = mid } else { hi = mid - 1 }
        }
        let seg = segments[lo]
        if time >= lastSegment.start + lastSegment.duration && lo == segments.count - 1 {
            return Kinematics(speed: seg.v1, acceleration: 0, headingDegrees: seg.heading0 + seg.turn,
                              yawRateDegreesPerSecond: 0)
        }
        let u = min(1, max(0, (time - seg.start) / seg.duration))
        let ramp = (1 - cos(Double.pi * u)) / 2
        let slope = Double.pi / (2 * seg.duration) * sin(Double.pi * u)
        var v = seg.v0 + (seg.v1 - seg.v0) * ramp
        if v < 1e-9 { v = 0 }
        return Kinematics(speed: v, acceleration: v == 0 ? 0 : (seg.v1 - seg.v0) * slope,
                          headingDegrees: seg.heading0 + seg.turn * ramp,
                          yawRateDegreesPerSecond: seg.turn * slope)
    }
}

extension SimulatedRoute {
    /// Distance driven since the start (m): the integral of the raised-cosine speed, exact per segment.
    func distance(at time: Double) -> Double {
        var d = 0.0
        for seg in segments {
            if time <= seg.start { break }
            let u = min(1, (time - seg.start) / seg.duration)
            // ∫ v0 + (v1 − v0)(1 − cos πu)/2 over [0, u]·duration.
            d += seg.duration * (seg.v0 * u + (seg.v1 - seg.v0) * (u - sin(Double.pi * u) / Double.pi) / 2)
        }
        return d
    }
}
