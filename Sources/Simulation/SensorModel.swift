#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

// The IMU's sensor model of a level vehicle: specific force, the magnetometer's field with hard iron and the
// disturbance, noise, and the conversion to the chips' signed 16-bit counts (the tilted path is in
// SimulatedAttitude.swift).

extension RouteSimulator {
    static func raw(_ v: Vector3, scale: Double) -> RawSample {
        RawSample(x: counts(v.x, scale), y: counts(v.y, scale), z: counts(v.z, scale), scale: scale)
    }

    /// Rounds to counts and clamps to the sensors' signed 16-bit range.
    static func counts(_ value: Double, _ scale: Double) -> Int32 {
        let c = (value / scale).rounded()
        guard c.isFinite else { return 0 }
        return Int32(min(max(c, -32768), 32767))
    }

    func inInterference(_ seconds: Double) -> Bool {
        let start = settings.interferenceStartSeconds
        return settings.interferenceDurationSeconds > 0 && seconds >= start
            && seconds < start + settings.interferenceDurationSeconds
    }

    func hardIron(_ seconds: Double) -> Vector3 {
        seconds >= settings.hardIronChangeSeconds ? settings.hardIronAfterChangeMicrotesla : settings.hardIronMicrotesla
    }

    static let gravity = 9.80665

    /// Specific force in the body frame (x forward, y left, z up) of a level vehicle, m/s².
    func specificForce(_ k: Kinematics, random: inout SimulationRandom) -> Vector3 {
        let yawRateUp = -k.yawRateDegreesPerSecond * Double.pi / 180 // counter-clockwise about +z
        let sigma = settings.accelerometerNoiseMetersPerSecondSquared
            + settings.vibrationMetersPerSecondSquared * min(1, k.speed / 3)
        return Vector3(x: k.acceleration + sigma * random.normal(),
                       y: k.speed * yawRateUp + sigma * random.normal(),
                       z: Self.gravity + sigma * random.normal())
    }

    /// Magnetometer reading in the body frame, µT.
    func magneticField(_ k: Kinematics, seconds: Double, random: inout SimulationRandom) -> Vector3 {
        let b = settings.earthFieldNEDMicrotesla
        let psi = k.headingDegrees * Double.pi / 180
        let c = cos(psi), sn = sin(psi)
        var field = Vector3(x: b.x * c + b.y * sn, y: b.x * sn - b.y * c, z: -b.z) + hardIron(seconds)
        if inInterference(seconds) { field = field + settings.interferenceMicrotesla }
        let sigma = settings.magnetometerNoiseMicrotesla
        return Vector3(x: field.x + sigma * random.normal(), y: field.y + sigma * random.normal(),
                       z: field.z + sigma * random.normal())
    }
}
