/// Three axes of a vector quantity in the sensor's own frame.
public struct Vector3: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public var z: Double
    public init(x: Double, y: Double, z: Double) { self.x = x; self.y = y; self.z = z }
    public static let zero = Vector3(x: 0, y: 0, z: 0)
    public var norm: Double { (x * x + y * y + z * z).squareRoot() }
    public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(x: a.x + b.x, y: a.y + b.y, z: a.z + b.z) }
    public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(x: a.x - b.x, y: a.y - b.y, z: a.z - b.z) }
    public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(x: a.x * s, y: a.y * s, z: a.z * s) }
}

/// Raw counts as a sensor delivered them plus the scale that converts them to SI units
/// (value = counts × scale). Kept raw so captures replay bit-for-bit through the same conversion as live.
public struct RawSample: Sendable, Hashable {
    public var x: Int32
    public var y: Int32
    public var z: Int32
    public var scale: Double
    public init(x: Int32, y: Int32, z: Int32, scale: Double) { self.x = x; self.y = y; self.z = z; self.scale = scale }
    public var vector: Vector3 { Vector3(x: Double(x) * scale, y: Double(y) * scale, z: Double(z) * scale) }
}

/// A sensor sample already in SI units (from logs that only carry converted values: GnssLogger, IMU CSV).
public enum MotionSample: Sendable, Hashable {
    /// Magnetic field, µT; `bias` is a hard-iron estimate the source already made (Android UncalMag), if any.
    case magnetometer(fieldMicrotesla: Vector3, biasMicrotesla: Vector3?)
    /// Specific force, m/s² (gravity included); `bias` as reported by the source, if any.
    case accelerometer(metersPerSecondSquared: Vector3, biasMetersPerSecondSquared: Vector3?)
    case gyroscope(radiansPerSecond: Vector3, driftRadiansPerSecond: Vector3?)
    case magnetometerRaw(RawSample)
    case accelerometerRaw(RawSample)
    case gyroscopeRaw(RawSample)
}

/// A fix computed by another positioning engine (Android's Fix rows), replayed as a receiver report.
public struct ExternalFix: Sendable, Hashable {
    public var provider: String
    public var location: Location
    public init(provider: String, location: Location) { self.provider = provider; self.location = location }
}

/// Orientation the source itself computed (Android OrientationDeg): a reference, not an input to fusion.
public struct ReportedOrientation: Sendable, Hashable {
    public var yawDegrees: Double
    public var rollDegrees: Double
    public var pitchDegrees: Double
    public init(yawDegrees: Double, rollDegrees: Double, pitchDegrees: Double) {
        self.yawDegrees = yawDegrees; self.rollDegrees = rollDegrees; self.pitchDegrees = pitchDegrees
    }
}

/// What a source produced: raw bytes or samples, never anything interpreted.
public enum EventPayload: Sendable {
    /// Receiver bytes exactly as received — NMEA, u-blox UBX, RTCM3, or a mix on one port — in any chunking (a
    /// whole log block, a serial read, one sentence). The pipeline's mixed-stream framer splits them; the name
    /// stays `nmea` for the capture format's `N` records.
    case nmea([UInt8])
    case motion(MotionSample)
    /// Indirect: a Location is large and rare in streams of sensor samples; keeping it out of line makes every
    /// event small to copy.
    indirect case fix(ExternalFix)
    case orientation(ReportedOrientation)
    /// A source's availability changed (live sources; `S` records in captures). The pipeline passes it on as a
    /// `status` output event and derives the session's availability from it.
    indirect case status(StatusReport)
}

/// One timestamped event from a source. Live sources stamp `monotonicNanos` on receipt; captures carry the
/// recorded stamps. The core never reads a clock: these stamps are its only time base besides receiver UTC.
public struct SensorEvent: Sendable {
    /// Monotonic receive time (ns), comparable between sources of one session. nil when the log has none.
    public var monotonicNanos: Int64?
    /// Wall-clock UTC receive time, when known.
    public var utc: Timestamp?
    /// Which source produced it (index into the session's source list).
    public var sourceID: Int
    public var payload: EventPayload
    /// Sample time as the input gave it, seconds (IMU CSV `t_s`), echoed on derived outputs.
    public var sampleTimeSeconds: Double?

    public init(monotonicNanos: Int64? = nil, utc: Timestamp? = nil, sourceID: Int = 0, payload: EventPayload,
                sampleTimeSeconds: Double? = nil) {
        self.monotonicNanos = monotonicNanos; self.utc = utc; self.sourceID = sourceID
        self.payload = payload; self.sampleTimeSeconds = sampleTimeSeconds
    }
}
