#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Capture
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

    func inOutage(_ seconds: Double) -> Bool {
        settings.gnssOutages.contains { seconds >= $0.startSeconds && seconds < $0.startSeconds + $0.durationSeconds }
    }
}
