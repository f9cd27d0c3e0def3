#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

// The simulator's harder conditions: hills (pitch), a tilted and turned sensor mount and a gyroscope. Only used
// when `Settings.tilted` or `Settings.gyroscope` is set, so the default capture keeps its level-vehicle formulas.

/// The vehicle's and the sensor's attitude at one instant.
struct SimulatedAttitude {
    /// Unwrapped heading (rad, clockwise from north), pitch (rad, nose up) and their rates.
    var heading: Double, pitch: Double, headingRate: Double, pitchRate: Double
    /// body = mount × sensor.
    var mount: Matrix3

    init(settings s: RouteSimulator.Settings, route: SimulatedRoute, state: Kinematics, seconds: Double) {
        let deg = Double.pi / 180
        heading = state.headingDegrees * deg
        headingRate = state.yawRateDegreesPerSecond * deg
        if s.hillAmplitudeDegrees != 0, s.hillWavelengthMeters > 0 {
            let k = 2 * Double.pi / s.hillWavelengthMeters
            let phase = k * route.distance(at: seconds)
            pitch = s.hillAmplitudeDegrees * deg * sin(phase)
            pitchRate = s.hillAmplitudeDegrees * deg * cos(phase) * k * state.speed
        } else {
            pitch = 0; pitchRate = 0
        }
        mount = Self.mountMatrix(yaw: s.mountYawDegrees * deg, pitch: s.mountPitchDegrees * deg,
                                 roll: s.mountRollDegrees * deg)
    }

    /// Sensor axes in the body frame (x forward, y left, z up): yaw clockwise from above, then nose up, then left
    /// side up. Columns are the sensor's x, y, z.
    static func mountMatrix(yaw: Double, pitch: Double, roll: Double) -> Matrix3 {
        // Rz(−yaw) · Ry(−pitch) · Rx(roll), right-handed rotations about body axes.
        let rz = Matrix3(r0: Vector3(x: cos(yaw), y: sin(yaw), z: 0),
                         r1: Vector3(x: -sin(yaw), y: cos(yaw), z: 0),
                         r2: Vector3(x: 0, y: 0, z: 1))
        let ry = Matrix3(r0: Vector3(x: cos(pitch), y: 0, z: -sin(pitch)),
                         r1: Vector3(x: 0, y: 1, z: 0),
                         r2: Vector3(x: sin(pitch), y: 0, z: cos(pitch)))
        let rx = Matrix3(r0: Vector3(x: 1, y: 0, z: 0),
                         r1: Vector3(x: 0, y: cos(roll), z: -sin(roll)),
                         r2: Vector3(x: 0, y: sin(roll), z: cos(roll)))
        return rz * ry * rx
    }

    /// A vector of the level heading frame (forward, left, up) in the body frame.
    func body(levelForward f: Double, left l: Double, up u: Double) -> Vector3 {
        Vector3(x: f * cos(pitch) + u * sin(pitch), y: l, z: -f * sin(pitch) + u * cos(pitch))
    }

    /// A body vector in the sensor frame.
    func sensor(_ body: Vector3) -> Vector3 { mount.transposed * body }
}

extension RouteSimulator {
    /// Specific force in the sensor frame (m/s²): along-track acceleration, centripetal acceleration (turns and
    /// hill crests), gravity's reaction.
    func specificForce(_ a: SimulatedAttitude, _ k: Kinematics, random: inout SimulationRandom) -> Vector3 {
        let sigma = settings.accelerometerNoiseMetersPerSecondSquared
            + settings.vibrationMetersPerSecondSquared * min(1, k.speed / 3)
        let g = Self.gravity
        let body = Vector3(x: k.acceleration + g * sin(a.pitch),
                           y: -k.speed * a.headingRate,
                           z: g * cos(a.pitch) + k.speed * a.pitchRate)
        let s = a.sensor(body)
        return Vector3(x: s.x + sigma * random.normal(), y: s.y + sigma * random.normal(),
                       z: s.z + sigma * random.normal())
    }

    /// Magnetometer reading in the sensor frame (µT): the earth field turned into the body, the disturbance (body
    /// frame), into the sensor frame, plus the hard iron (sensor frame).
    func magneticField(_ a: SimulatedAttitude, _ k: Kinematics, seconds: Double,
                       random: inout SimulationRandom) -> Vector3 {
        let b = settings.earthFieldNEDMicrotesla
        let c = cos(a.heading), sn = sin(a.heading)
        var body = a.body(levelForward: b.x * c + b.y * sn, left: b.x * sn - b.y * c, up: -b.z)
        if inInterference(seconds) { body = body + settings.interferenceMicrotesla }
        let field = a.sensor(body) + hardIron(seconds)
        let sigma = settings.magnetometerNoiseMicrotesla
        return Vector3(x: field.x + sigma * random.normal(), y: field.y + sigma * random.normal(),
                       z: field.z + sigma * random.normal())
    }

    /// Gyroscope reading in the sensor frame (rad/s): yaw about the world's up axis, pitch about the body's y axis,
    /// plus bias and noise.
    func angularRate(_ a: SimulatedAttitude, random: inout SimulationRandom) -> Vector3 {
        let up = a.body(levelForward: 0, left: 0, up: 1)
        let body = up * (-a.headingRate) + Vector3(x: 0, y: -a.pitchRate, z: 0)
        let deg = Double.pi / 180
        let bias = settings.gyroscopeBiasDegreesPerSecond * deg
        let sigma = settings.gyroscopeNoiseDegreesPerSecond * deg
        let s = a.sensor(body) + bias
        return Vector3(x: s.x + sigma * random.normal(), y: s.y + sigma * random.normal(),
                       z: s.z + sigma * random.normal())
    }
}
