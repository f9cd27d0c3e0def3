#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore
import NMEA

/// A deterministic simulator that writes a Lodestar capture of a short drive: a GNSS receiver (NMEA, source 0)
/// and a magnetometer + accelerometer (raw counts, source 1), with the ground truth returned alongside.
///
/// Used by `lodestar simulate` for the demo capture and as a test tool (heading, smoothing, region/visit
/// monitoring). Everything is a function of `Settings`: the same settings (seed included) give byte-identical
/// output on the same platform (the only floating-point library calls are `sin`, `cos`, `atan2`, `exp`, `log`,
/// whose last-bit results could in principle differ between C libraries). No clock is read and no system
/// randomness is used.
///
/// **The drive.** The route is fixed by the settings other than `seed` (the seed only drives noise, jitter and
/// the satellites' SNR wobble), so different seeds describe the same drive seen through different noise.
/// In a local tangent plane around the origin, starting at `initialHeadingDegrees`: parked for 2 s, accelerate
/// to cruise, then a repeating closed circuit (460 s a lap) of straight legs, 90° turns (slowing to
/// `turnSpeedMetersPerSecond`), full 360° loops (a roundabout taken all the way round: every heading is seen,
/// which is what a magnetometer calibration needs), S-bends and a left-right jog. The vehicle brakes to rest exactly at
/// `stopStartSeconds`, stays still for `stopDurationSeconds` and drives on. Speed and heading follow
/// raised-cosine ramps, so acceleration and yaw rate are continuous and bounded (≈ 1.7 m/s², ≈ 18 °/s, lateral
/// ≈ 2 m/s² with the defaults). The vehicle is level, has no sideslip (course over ground = heading) and
/// drives on a flat road at `altitudeMSLMeters`.
///
/// With the defaults (300 s): parked 0–2 s, accelerate 2–14 s on 40°, straight, right turn 30–52 s (→ 130°),
/// straight, full left loop 62–108 s, brake 108–120 s, stopped 120–180 s, accelerate 180–192 s, straight through
/// the interference window 200–205 s, S-bend 206–222 s, left turn 232–254 s, right turn 266–288 s.
///
/// **Body frame** (both IMU chips, `mounting=identity`): x forward, y left, z up (right-handed). A level vehicle
/// at rest reads specific force (0, 0, +g); accelerating reads +x; a right turn (heading increasing) reads −y
/// (centripetal acceleration v·ω towards the right). The magnetometer reads the earth field rotated by the
/// heading ψ (clockwise from true north): B = (N cos ψ + E sin ψ, N sin ψ − E cos ψ, −D), so for a calibrated
/// sensor atan2(By, Bx) is the magnetic heading, ψ minus the declination atan2(E, N).
public struct RouteSimulator: Sendable {
    public struct Settings: Sendable {
        /// Seed of the noise generators (xoshiro256** seeded through SplitMix64). Default 1.
        public var seed: UInt64 = 1
        /// Length of the capture. Default 300 s.
        public var durationSeconds: Double = 300
        /// UTC of the first GNSS epoch (monotonic time 1 s). Default 2025-06-01T12:00:00Z.
        public var start: Timestamp = Timestamp(nanosecondsSince1970: 1_748_779_200_000_000_000)
        /// Origin of the local tangent plane, where the drive starts. Default Mountain View, CA (37.3861, −122.0839).
        public var originLatitudeDegrees: Double = 37.3861
        public var originLongitudeDegrees: Double = -122.0839
        /// Road height above mean sea level (the road is flat). Default 32 m.
        public var altitudeMSLMeters: Double = 32
        /// Geoid height above the WGS84 ellipsoid reported in GGA. Default −32 m (about right for the Bay Area).
        public var geoidSeparationMeters: Double = -32
        /// Initial heading, degrees clockwise from true north. Default 40°.
        public var initialHeadingDegrees: Double = 40
        /// Speed on straight legs. Default 13 m/s (about 29 mph); the drive stays within 0…15 m/s by default.
        public var cruiseSpeedMetersPerSecond: Double = 13
        /// Speed through 90° turns and the loop. Default 6 m/s.
        public var turnSpeedMetersPerSecond: Double = 6

        /// GNSS epochs per second. Default 1 Hz. Zero or less writes no GNSS records.
        public var gnssRateHz: Double = 1
        /// IMU samples (one accelerometer and one magnetometer record each) per second. Default 50 Hz.
        /// Zero or less writes no IMU records.
        public var imuRateHz: Double = 50

        /// 1-σ white position noise on each horizontal axis (east, north), new every epoch. Default 1.5 m.
        public var gnssNoiseMeters: Double = 1.5
        /// Steady-state 1-σ of a slowly wandering, correlated position error on each horizontal axis
        /// (first-order Gauss–Markov process, time constant `gnssCorrelationTimeSeconds`). Default 2 m.
        public var gnssCorrelatedNoiseMeters: Double = 2
        /// Time constant of the correlated errors. Default 60 s.
        public var gnssCorrelationTimeSeconds: Double = 60
        /// 1-σ white altitude noise. Default 2.5 m.
        public var altitudeNoiseMeters: Double = 2.5
        /// Steady-state 1-σ of the correlated altitude error (same time constant). Default 3 m.
        public var altitudeCorrelatedNoiseMeters: Double = 3
        /// 1-σ noise on each horizontal velocity axis; reported speed and course come from the noisy velocity,
        /// so a parked receiver reports small nonzero speeds (course is left empty below 0.1 m/s). Default 0.05 m/s.
        public var speedNoiseMetersPerSecond: Double = 0.05

        /// When the vehicle comes to rest (it brakes before). Default 120 s.
        public var stopStartSeconds: Double = 120
        /// How long it stays at rest; zero disables the stop. Default 60 s.
        public var stopDurationSeconds: Double = 60

        /// Earth field at the origin in north/east/down, µT. A fixed vector (no magnetic model yet): NOAA's WMM
        /// gives about N 22.6, E 5.0, D 41.8 µT at Mountain View in 2025 (declination ≈ +12.5°, inclination ≈ 61°,
        /// total ≈ 47.8 µT). It is not varied with position or time.
        public var earthFieldNEDMicrotesla = Vector3(x: 22.6, y: 5.0, z: 41.8)
        /// Hard-iron offset added to every magnetometer sample, body frame, µT. Default (12, −8, 5).
        public var hardIronMicrotesla = Vector3(x: 12, y: -8, z: 5)
        /// Start and length of a magnetic disturbance (a passing truck, a steel bridge). Default 200 s, 5 s.
        public var interferenceStartSeconds: Double = 200
        public var interferenceDurationSeconds: Double = 5
        /// Field added during the disturbance, body frame, µT. Default 40 µT along −z (with the downward earth
        /// field this raises |B| by about 40 µT whatever the heading).
        public var interferenceMicrotesla = Vector3(x: 0, y: 0, z: -40)
        /// 1-σ magnetometer noise per axis (LIS3MDL: about 0.3 µT RMS). Default 0.3 µT.
        public var magnetometerNoiseMicrotesla: Double = 0.3
        /// 1-σ accelerometer noise per axis at rest. Default 0.02 m/s².
        public var accelerometerNoiseMetersPerSecondSquared: Double = 0.02
        /// Extra 1-σ per-axis vibration while moving (full from 3 m/s). Default 0.12 m/s².
        public var vibrationMetersPerSecondSquared: Double = 0.12

        /// Magnetometer scale, µT per count: LIS3MDL at ±4 gauss, 6842 LSB/gauss, 1 gauss = 100 µT.
        public var magnetometerScaleMicroteslaPerCount: Double = 100.0 / 6842.0
        /// Accelerometer scale, m/s² per count: LSM303AGR-like ±2 g high-resolution, 0.061 mg/LSB.
        public var accelerometerScaleMetersPerSecondSquaredPerCount: Double = 0.061e-3 * 9.80665

        // MARK: Harder conditions (all off by default: the default capture is unchanged byte for byte)

        /// Write a gyroscope record (source 1, after each magnetometer record) per IMU sample. Default false.
        public var gyroscope = false
        /// Gyroscope bias, sensor frame, degrees per second. Default (0.3, −0.2, 0.4).
        public var gyroscopeBiasDegreesPerSecond = Vector3(x: 0.3, y: -0.2, z: 0.4)
        /// 1-σ gyroscope noise per axis, degrees per second. Default 0.05.
        public var gyroscopeNoiseDegreesPerSecond: Double = 0.05
        /// Gyroscope scale, rad/s per count: L3GD20-like ±250 °/s, 8.75 m°/s per LSB.
        public var gyroscopeScaleRadiansPerSecondPerCount: Double = 8.75e-3 * Double.pi / 180
        /// Hills: the road's pitch is `hillAmplitudeDegrees · sin(2π · distance / hillWavelengthMeters)` (nose up
        /// positive), so the vehicle pitches while it drives and stays pitched where it stops. Default 0 (flat).
        /// The reported GNSS altitude stays at `altitudeMSLMeters` (the climb is not simulated in the fixes).
        public var hillAmplitudeDegrees: Double = 0
        public var hillWavelengthMeters: Double = 700
        /// How the IMU sits in the vehicle: the sensor frame is the vehicle frame turned by yaw (clockwise seen
        /// from above, so a sensor with yaw 10° reads headings 10° larger), then pitch (nose up), then roll (left
        /// side up). The capture header still says `mounting=identity`: the estimator must learn it. Default 0.
        public var mountYawDegrees: Double = 0
        public var mountPitchDegrees: Double = 0
        public var mountRollDegrees: Double = 0
        /// GNSS outages (tunnels): no NMEA at all from `start` for `duration` seconds. Default none.
        public var gnssOutages: [(startSeconds: Double, durationSeconds: Double)] = []
        /// From this time on the hard iron is `hardIronAfterChangeMicrotesla` (something magnetic was put next to
        /// the sensor). Default never.
        public var hardIronChangeSeconds: Double = .infinity
        public var hardIronAfterChangeMicrotesla = Vector3(x: -6, y: 10, z: -4)
        /// A dual-antenna heading receiver (a moving-base pair, a Unicore UM982): an HDT sentence after each epoch's
        /// fix with the true heading of the vehicle's forward axis plus this noise (1-σ, degrees); nil (default)
        /// none. HDT carries no accuracy. While the vehicle stands it still reports (the antennas keep their fix).
        public var dualAntennaHeadingSigmaDegrees: Double? = nil
        /// The second antenna loses its fix (trees, a bridge): HDT with an empty heading from `start` for
        /// `duration` seconds.
        public var dualAntennaOutages: [(startSeconds: Double, durationSeconds: Double)] = []
        /// false: no magnetometer samples (accelerometer, and gyroscope if set, only). Default true.
        public var magnetometer = true

        public init() {}

        /// True when the vehicle or the sensor is tilted (the general attitude path is used).
        var tilted: Bool {
            hillAmplitudeDegrees != 0 || mountYawDegrees != 0 || mountPitchDegrees != 0 || mountRollDegrees != 0
        }

        public static let `default` = Settings()
    }

    /// The true state at one GNSS epoch.
    public struct TruthSample: Sendable, Hashable {
        public var time: Timestamp
        public var latitudeDegrees: Double
        public var longitudeDegrees: Double
        public var speedMetersPerSecond: Double
        /// Course over ground, degrees from true north, [0, 360). Equals the heading (no sideslip), also at rest.
        public var courseDegrees: Double
        /// True heading of the vehicle's x axis, degrees from true north, [0, 360).
        public var headingDegrees: Double
        /// The vehicle is at rest (speed exactly 0).
        public var stationary: Bool
        /// The magnetic disturbance is on.
        public var interference: Bool

        public init(time: Timestamp, latitudeDegrees: Double, longitudeDegrees: Double, speedMetersPerSecond: Double,
                    courseDegrees: Double, headingDegrees: Double, stationary: Bool, interference: Bool) {
            self.time = time; self.latitudeDegrees = latitudeDegrees; self.longitudeDegrees = longitudeDegrees
            self.speedMetersPerSecond = speedMetersPerSecond; self.courseDegrees = courseDegrees
            self.headingDegrees = headingDegrees; self.stationary = stationary; self.interference = interference
        }
    }

    /// Monotonic time of the first GNSS epoch and IMU sample (the `clock` header pairs it with `start`).
    public static let monotonicOrigin: Int64 = 1_000_000_000

    public let settings: Settings

    public init(settings: Settings = .default) { self.settings = settings }

    /// Writes header + records. Returns the ground truth, one row per GNSS epoch.
    public func write(to writer: CaptureWriter) throws(CaptureError) -> [TruthSample] {
        let s = settings
        let t0 = Self.monotonicOrigin
        let duration = s.durationSeconds.isFinite ? max(0, s.durationSeconds) : 0
        try writer.writeHeader(headerFields(duration: duration))

        let route = SimulatedRoute(settings: s, duration: duration)
        var integrator = PositionIntegrator(route: route)
        let geo = LocalTangentPlane(latitudeDegrees: s.originLatitudeDegrees, longitudeDegrees: s.originLongitudeDegrees,
                                    ellipsoidHeightMeters: s.altitudeMSLMeters + s.geoidSeparationMeters)
        var gnss = GNSSModel(settings: s)
        var imuRandom = SimulationRandom(seed: s.seed, stream: 2)
        var gyroRandom = SimulationRandom(seed: s.seed, stream: 4)
        var antennaRandom = SimulationRandom(seed: s.seed, stream: 5)

        let epochCount = Self.count(duration: duration, rate: s.gnssRateHz)
        let sampleCount = Self.count(duration: duration, rate: s.imuRateHz)
        var truth: [TruthSample] = []
        truth.reserveCapacity(epochCount)

        // NMEA sentences wait here until every IMU record before them has been written.
        var pending: [(time: Int64, bytes: [UInt8])] = []
        var pendingHead = 0
        var lastWritten = t0

        func emitPending(upTo limit: Int64) throws(CaptureError) {
            while pendingHead < pending.count && pending[pendingHead].time <= limit {
                let p = pending[pendingHead]
                let t = max(p.time, lastWritten)
                try writer.writeNMEA(monotonicNanos: t, source: 0, bytes: p.bytes)
                lastWritten = t
                pendingHead += 1
            }
            if pendingHead == pending.count { pending.removeAll(keepingCapacity: true); pendingHead = 0 }
        }

        var k = 0, i = 0
        while k < epochCount || i < sampleCount {
            let epochNanos = k < epochCount ? Self.nanos(index: k, rate: s.gnssRateHz) : Int64.max
            let sampleNanos = i < sampleCount ? Self.nanos(index: i, rate: s.imuRateHz) : Int64.max
            if epochNanos <= sampleNanos {
                let seconds = Double(epochNanos) / 1e9
                let state = route.kinematics(at: seconds)
                let (east, north) = integrator.position(at: seconds)
                let (lat, lon) = geo.geodetic(east: east, north: north)
                let time = s.start.adding(nanoseconds: epochNanos)
                let heading = Angle.normalizedDegrees(state.headingDegrees)
                truth.append(TruthSample(time: time, latitudeDegrees: lat, longitudeDegrees: lon,
                                         speedMetersPerSecond: state.speed, courseDegrees: heading,
                                         headingDegrees: heading, stationary: state.speed == 0,
                                         interference: inInterference(seconds)))
                var last = pending.last?.time ?? lastWritten
                let sentences = gnss.epoch(index: k, seconds: seconds, time: time, state: state,
                                           east: east, north: north, geo: geo)
                if !inOutage(seconds) {
                    for (offset, bytes) in sentences {
                        last = max(last, t0 + epochNanos + offset)
                        pending.append((last, bytes))
                    }
                    if let sigma = s.dualAntennaHeadingSigmaDegrees {
                        let noise = sigma * antennaRandom.normal()
                        // In an outage the receiver still sends HDT, with an empty heading (as UM982s do).
                        let lost = s.dualAntennaOutages.contains {
                            seconds >= $0.startSeconds && seconds < $0.startSeconds + $0.durationSeconds }
                        let hdt = gnss.encoder.hdt(headingTrueDegrees: lost ? nil : Angle.normalizedDegrees(heading + noise))
                        last += 4_000_000
                        pending.append((last, Array(hdt.utf8)))
                    }
                }
                k += 1
            } else {
                let seconds = Double(sampleNanos) / 1e9
                let state = route.kinematics(at: seconds)
                // Read latency: the accelerometer, then the magnetometer a little later.
                let accelTime = max(lastWritten, t0 + sampleNanos + Int64(imuRandom.uniform() * 200_000))
                let magTime = accelTime + 150_000
                let accel: Vector3, field: Vector3
                if s.tilted {
                    let attitude = SimulatedAttitude(settings: s, route: route, state: state, seconds: seconds)
                    accel = specificForce(attitude, state, random: &imuRandom)
                    field = magneticField(attitude, state, seconds: seconds, random: &imuRandom)
                } else {
                    accel = specificForce(state, random: &imuRandom)
                    field = magneticField(state, seconds: seconds, random: &imuRandom)
                }
                try emitPending(upTo: accelTime)
                try writer.writeSample(monotonicNanos: accelTime, source: 1, kind: .accelerometer,
                                       Self.raw(accel, scale: s.accelerometerScaleMetersPerSecondSquaredPerCount))
                lastWritten = accelTime
                if s.magnetometer {
                    try emitPending(upTo: magTime)
                    try writer.writeSample(monotonicNanos: magTime, source: 1, kind: .magnetometer,
                                           Self.raw(field, scale: s.magnetometerScaleMicroteslaPerCount))
                    lastWritten = magTime
                }
                if s.gyroscope {
                    let gyroTime = magTime + 150_000
                    let attitude = SimulatedAttitude(settings: s, route: route, state: state, seconds: seconds)
                    let rate = angularRate(attitude, random: &gyroRandom)
                    try emitPending(upTo: gyroTime)
                    try writer.writeSample(monotonicNanos: gyroTime, source: 1, kind: .gyroscope,
                                           Self.raw(rate, scale: s.gyroscopeScaleRadiansPerSecondPerCount))
                    lastWritten = gyroTime
                }
                i += 1
            }
        }
        try emitPending(upTo: Int64.max)
        try writer.flush()
        return truth
    }

    /// CSV text of truth rows with a header line.
    public static func truthCSV(_ rows: [TruthSample]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(80 * (rows.count + 1))
        out.append(contentsOf: "time,latitude_deg,longitude_deg,speed_mps,course_deg,heading_deg,stationary,interference\n".utf8)
        for r in rows {
            out.append(contentsOf: r.time.iso8601(fractionDigits: 3).utf8)
            out.append(0x2C); FixedFormat.append(r.latitudeDegrees, decimals: 8, to: &out)
            out.append(0x2C); FixedFormat.append(r.longitudeDegrees, decimals: 8, to: &out)
            out.append(0x2C); FixedFormat.append(r.speedMetersPerSecond, decimals: 3, to: &out)
            out.append(0x2C); FixedFormat.append(r.courseDegrees, decimals: 2, to: &out)
            out.append(0x2C); FixedFormat.append(r.headingDegrees, decimals: 2, to: &out)
            out.append(0x2C); out.append(r.stationary ? 0x31 : 0x30)
            out.append(0x2C); out.append(r.interference ? 0x31 : 0x30)
            out.append(0x0A)
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - Header

    func headerFields(duration: Double) -> [(key: String, value: String)] {
        let s = settings
        func v(_ x: Vector3) -> String { "\(Self.number(x.x)),\(Self.number(x.y)),\(Self.number(x.z))" }
        let simulation = [
            "hard_iron_uT=\(v(s.hardIronMicrotesla))",
            "interference_start_s=\(Self.number(s.interferenceStartSeconds))",
            "interference_duration_s=\(Self.number(s.interferenceDurationSeconds))",
            "interference_uT=\(v(s.interferenceMicrotesla))",
            "stop_start_s=\(Self.number(s.stopStartSeconds))",
            "stop_duration_s=\(Self.number(s.stopDurationSeconds))",
            "earth_field_ned_uT=\(v(s.earthFieldNEDMicrotesla))",
            "duration_s=\(Self.number(duration))",
            "gnss_rate_hz=\(Self.number(s.gnssRateHz))",
            "imu_rate_hz=\(Self.number(s.imuRateHz))",
        ].joined(separator: " ")
            + (s.dualAntennaHeadingSigmaDegrees.map { " dual_antenna_heading_sigma_deg=\(Self.number($0))" } ?? "")
            + (s.magnetometer ? "" : " magnetometer=none")
        return [
            ("created", s.start.iso8601(fractionDigits: 0)),
            ("clock", "monotonic_ns=\(Self.monotonicOrigin) utc=\(s.start.iso8601(fractionDigits: 9))"),
            ("source", "0 kind=nmea name=gps0 device=simulated"),
            ("source", "1 kind=imu name=imu0 chip=LIS3MDL+LSM303AGR-accel device=simulated mounting=identity"),
            ("note", "simulated by lodestar simulate seed=\(s.seed)"),
            ("simulation", simulation),
        ]
    }

    /// Integral values without a decimal point ("12", "-8"), others in Swift's shortest round-trip form.
    static func number(_ d: Double) -> String {
        if d.isFinite && d == d.rounded() && abs(d) < 1e15 { return String(Int64(d)) }
        return String(d)
    }

    // MARK: - Sampling

    /// Number of samples at `rate` whose time k/rate lies in [0, duration).
    static func count(duration: Double, rate: Double) -> Int {
        guard rate.isFinite, rate > 0, duration > 0 else { return 0 }
        let n = (duration * rate - 1e-9).rounded(.up)
        return n > 0 ? Int(min(n, 1e12)) : 0
    }

    static func nanos(index: Int, rate: Double) -> Int64 { Int64((Double(index) * 1e9 / rate).rounded()) }

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

    func inOutage(_ seconds: Double) -> Bool {
        settings.gnssOutages.contains { seconds >= $0.startSeconds && seconds < $0.startSeconds + $0.durationSeconds }
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

// MARK: - Random numbers

/// xoshiro256** (Blackman & Vigna) seeded through SplitMix64, with Box–Muller normals. Each use (GNSS, IMU, sky)
/// has its own stream so changing, say, the IMU rate leaves the GNSS noise untouched.
struct SimulationRandom {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64
    private var spare: Double?

    init(seed: UInt64, stream: UInt64) {
        var x = seed &+ stream &* 0xD1B5_4A32_D192_ED03
        func splitMix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitMix(); s1 = splitMix(); s2 = splitMix(); s3 = splitMix()
        if s0 | s1 | s2 | s3 == 0 { s0 = 1 }
    }

    mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }

    /// Uniform in [0, 1).
    mutating func uniform() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Standard normal (Box–Muller; the second value of each pair is kept for the next call).
    mutating func normal() -> Double {
        if let v = spare { spare = nil; return v }
        let u1 = 1 - uniform() // (0, 1]
        let u2 = uniform()
        let r = (-2 * log(u1)).squareRoot()
        let theta = 2 * Double.pi * u2
        spare = r * sin(theta)
        return r * cos(theta)
    }
}

// MARK: - Route

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

/// East/north position by integrating the velocity on a fixed 10 ms grid (Simpson's rule), so positions do not
/// depend on which times are asked for. Queries must not go backwards.
struct PositionIntegrator {
    let route: SimulatedRoute
    static let step = 0.01
    private var node = 0
    private var east = 0.0, north = 0.0

    init(route: SimulatedRoute) { self.route = route }

    private func velocity(_ t: Double) -> (Double, Double) {
        let k = route.kinematics(at: t)
        let psi = k.headingDegrees * Double.pi / 180
        return (k.speed * sin(psi), k.speed * cos(psi))
    }

    private func simpson(from a: Double, length h: Double) -> (Double, Double) {
        let (e0, n0) = velocity(a), (em, nm) = velocity(a + h / 2), (e1, n1) = velocity(a + h)
        return (h / 6 * (e0 + 4 * em + e1), h / 6 * (n0 + 4 * nm + n1))
    }

    mutating func position(at t: Double) -> (east: Double, north: Double) {
        while Double(node + 1) * Self.step <= t {
            let (de, dn) = simpson(from: Double(node) * Self.step, length: Self.step)
            east += de; north += dn; node += 1
        }
        let rest = t - Double(node) * Self.step
        guard rest > 0 else { return (east, north) }
        let (de, dn) = simpson(from: Double(node) * Self.step, length: rest)
        return (east + de, north + dn)
    }
}

/// Local east/north offsets to latitude/longitude: a first-order local approximation on the WGS84 ellipsoid,
/// using the meridian (M) and prime-vertical (N) radii of curvature at the origin,
/// lat = lat0 + north / (M + h), lon = lon0 + east / ((N + h) cos lat0). The neglected terms grow as d²/R:
/// well under a metre within about 3 km of the origin, a few metres at 10 km. Truth and reported positions go
/// through the same mapping, so the simulated errors are exactly the injected ones.
struct LocalTangentPlane {
    let latitude0: Double, longitude0: Double
    let metersPerRadianNorth: Double, metersPerRadianEast: Double

    init(latitudeDegrees: Double, longitudeDegrees: Double, ellipsoidHeightMeters h: Double) {
        latitude0 = latitudeDegrees
        longitude0 = longitudeDegrees
        let a = 6_378_137.0, f = 1 / 298.257_223_563
        let e2 = f * (2 - f)
        let phi = latitudeDegrees * Double.pi / 180
        let w = (1 - e2 * sin(phi) * sin(phi)).squareRoot()
        metersPerRadianNorth = a * (1 - e2) / (w * w * w) + h
        metersPerRadianEast = (a / w + h) * cos(phi)
    }

    func geodetic(east: Double, north: Double) -> (latitude: Double, longitude: Double) {
        let lat = latitude0 + north / metersPerRadianNorth * 180 / Double.pi
        var lon = longitude0 + east / metersPerRadianEast * 180 / Double.pi
        if lon >= 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        return (lat, lon)
    }
}

// MARK: - GNSS receiver

/// The simulated receiver: noisy position and velocity, DOPs and a fixed sky, encoded as NMEA.
struct GNSSModel {
    struct Satellite { var id: Int; var elevation: Double; var azimuth: Double; var period: Double; var phase: Double }

    let settings: RouteSimulator.Settings
    let encoder = NMEAEncoder(talker: "GP", coordinateDecimals: 5)
    var random: SimulationRandom
    var sky: [Satellite]
    var skyRandom: SimulationRandom
    let dopPhase: Double
    /// Gauss–Markov states east, north, up (m) and the time of the last update.
    var correlated = (east: 0.0, north: 0.0, up: 0.0)
    var lastSeconds: Double?

    /// GPS satellites over the Bay Area, fixed for the few minutes of a drive: (PRN, elevation, azimuth).
    static let fixedSky: [(Int, Double, Double)] = [
        (2, 62, 41), (5, 18, 289), (10, 35, 132), (12, 71, 318), (13, 24, 197), (15, 48, 243),
        (18, 9, 78), (20, 41, 60), (24, 15, 162), (25, 53, 105), (29, 28, 21), (32, 12, 340),
    ]
    /// Satellites above this elevation are used in the fix.
    static let elevationMask = 15.0

    init(settings: RouteSimulator.Settings) {
        self.settings = settings
        random = SimulationRandom(seed: settings.seed, stream: 1)
        skyRandom = SimulationRandom(seed: settings.seed, stream: 3)
        var sky: [Satellite] = []
        for (n, (id, el, az)) in Self.fixedSky.enumerated() {
            sky.append(Satellite(id: id, elevation: el, azimuth: az, period: 70 + 13 * Double(n),
                                 phase: 2 * Double.pi * skyRandom.uniform()))
        }
        self.sky = sky
        dopPhase = 2 * Double.pi * skyRandom.uniform()
    }

    var usedIDs: [Int] { sky.filter { $0.elevation >= Self.elevationMask }.map(\.id) }

    /// The sentences of one epoch with their arrival offsets (ns after the epoch): output starts 45–55 ms after
    /// the epoch and each sentence arrives when its last byte would at 115200 baud (a few ms apart).
    mutating func epoch(index: Int, seconds: Double, time: Timestamp, state: Kinematics, east: Double, north: Double,
                        geo: LocalTangentPlane) -> [(Int64, [UInt8])] {
        let s = settings
        // Correlated errors: x ← φx + σ√(1−φ²)·w, started from the stationary distribution.
        if let last = lastSeconds {
            let tau = s.gnssCorrelationTimeSeconds
            let phi = tau > 0 && tau.isFinite ? exp(-(seconds - last) / tau) : 0
            let q = (1 - phi * phi).squareRoot()
            correlated.east = phi * correlated.east + s.gnssCorrelatedNoiseMeters * q * random.normal()
            correlated.north = phi * correlated.north + s.gnssCorrelatedNoiseMeters * q * random.normal()
            correlated.up = phi * correlated.up + s.altitudeCorrelatedNoiseMeters * q * random.normal()
        } else {
            correlated = (s.gnssCorrelatedNoiseMeters * random.normal(), s.gnssCorrelatedNoiseMeters * random.normal(),
                          s.altitudeCorrelatedNoiseMeters * random.normal())
        }
        lastSeconds = seconds
        let reportedEast = east + correlated.east + s.gnssNoiseMeters * random.normal()
        let reportedNorth = north + correlated.north + s.gnssNoiseMeters * random.normal()
        let altitude = s.altitudeMSLMeters + correlated.up + s.altitudeNoiseMeters * random.normal()
        let (lat, lon) = geo.geodetic(east: reportedEast, north: reportedNorth)

        // Velocity from Doppler: independent of the position errors.
        let psi = state.headingDegrees * Double.pi / 180
        let ve = state.speed * sin(psi) + s.speedNoiseMetersPerSecond * random.normal()
        let vn = state.speed * cos(psi) + s.speedNoiseMetersPerSecond * random.normal()
        let speed = (ve * ve + vn * vn).squareRoot()

        // HDOP wanders slowly within 0.9…1.3.
        let hdop = min(1.3, max(0.9, 1.1 + 0.15 * sin(2 * Double.pi * seconds / 173 + dopPhase)
                                       + 0.03 * random.normal()))
        let vdop = hdop * 1.45
        let pdop = (hdop * hdop + vdop * vdop).squareRoot()

        var l = Location()
        l.time = time
        l.timeFractionDigits = 2
        l.latitudeDegrees = lat
        l.longitudeDegrees = lon
        l.altitudeMSLMeters = altitude
        l.geoidSeparationMeters = s.geoidSeparationMeters
        l.mode = .threeD
        l.quality = .gps
        l.satellitesUsed = usedIDs.count
        l.satellitesVisible = sky.count
        l.hdop = hdop; l.vdop = vdop; l.pdop = pdop
        l.speedMetersPerSecond = speed
        l.courseDegrees = speed >= 0.1 ? Angle.normalizedDegrees(atan2(ve, vn) * 180 / Double.pi) : nil

        var sentences = [encoder.rmc(l), encoder.gga(l),
                         encoder.gsa(mode: .threeD, usedIDs: usedIDs, pdop: pdop, hdop: hdop, vdop: vdop)]
        if index % 5 == 0 {
            var view: [(id: Int, elevation: Double?, azimuth: Double?, snr: Double?)] = []
            for sat in sky {
                let base = 22 + 22 * sin(sat.elevation * Double.pi / 180)
                let snr = base + 2.5 * sin(2 * Double.pi * seconds / sat.period + sat.phase) + 0.7 * skyRandom.normal()
                view.append((sat.id, sat.elevation, sat.azimuth, min(55, max(0, snr))))
            }
            sentences += encoder.gsv(view)
        }

        let latency = 45_000_000 + Int64(random.uniform() * 10_000_000)
        var bytesSent: Int64 = 0
        var out: [(Int64, [UInt8])] = []
        out.reserveCapacity(sentences.count)
        for sentence in sentences {
            let bytes = Array(sentence.utf8)
            bytesSent += Int64(bytes.count)
            out.append((latency + bytesSent * 10 * 1_000_000_000 / 115_200, bytes))
        }
        return out
    }
}
