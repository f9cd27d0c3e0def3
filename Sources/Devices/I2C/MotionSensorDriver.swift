import LocationCore

/// What a chip measures.
public enum SensorRole: String, Sendable, Hashable, CaseIterable {
    case magnetometer, accelerometer, gyroscope
}

/// What a driver counted while reading.
public struct DriverCounters: Sendable, Hashable {
    /// Samples returned (one per role per measurement).
    public var samples = 0
    /// Measurements skipped because the chip flagged an overflow or its output sat at a saturation value.
    public var overflows = 0
    /// Measurements the chip overwrote before they were read (its overrun flag): lost, the newer one is kept.
    public var overruns = 0
    /// Polls that found no new data (data-ready clear).
    public var notReady = 0
    public init() {}
}

/// A driver for one motion-sensor chip on an I2C bus.
///
/// Drivers are single-threaded objects owned by whoever polls them (`I2CSensorSource` creates one on its thread
/// and re-creates it after a fault). They return raw counts with the chip's scale (µT, m/s², rad/s per count)
/// in the chip's own axis frame; mounting and calibration happen downstream.
///
/// Register maps live at the top of each driver file, one `enum` of constants per chip, with the datasheet section
/// they come from; corrections to ../shared/CHIPS.md are noted there.
public protocol MotionSensorDriver: AnyObject {
    /// True when the ID register(s) at `address` say this is the chip. Read-only, except where a chip must be
    /// woken before its ID reads (BMM150, documented there).
    static func probe(bus: any I2CBus, address: UInt16) -> Bool

    init(bus: any I2CBus, address: UInt16)

    /// Which chip (and variant) this driver talks to.
    var chip: I2CChip { get }
    /// Human-readable chip name, e.g. "MPU-9250 + AK8963".
    var chipName: String { get }
    var roles: [SensorRole] { get }
    var address: UInt16 { get }
    /// The configured output data rate, Hz.
    var sampleRateHz: Double { get }
    var counters: DriverCounters { get }

    /// Writes the init sequence. Safe to call again after a fault: it re-initialises from any state.
    func configure() throws(I2CError)

    /// New raw samples since the last call: [] when the chip has no new data (data-ready clear) or the
    /// measurement overflowed (counted in `counters`).
    func read() throws(I2CError) -> [MotionSample]
}

/// Unit conversions shared by the drivers.
enum Units {
    /// Standard gravity (CGPM 1901), m/s² per g.
    static let standardGravity = 9.80665
    static let microteslaPerGauss = 100.0
    static let radiansPerDegree = Double.pi / 180
}

/// Byte decoding without traps: indices outside the array read as 0 (callers read blocks of checked length).
extension Array where Element == UInt8 {
    func byte(_ i: Int) -> UInt8 { indices.contains(i) ? self[i] : 0 }
    /// Little-endian signed 16-bit value at `i` (low byte first).
    func int16LE(_ i: Int) -> Int16 { Int16(bitPattern: UInt16(byte(i)) | UInt16(byte(i + 1)) << 8) }
    /// Big-endian signed 16-bit value at `i` (high byte first).
    func int16BE(_ i: Int) -> Int16 { Int16(bitPattern: UInt16(byte(i)) << 8 | UInt16(byte(i + 1))) }
    func uint16LE(_ i: Int) -> UInt16 { UInt16(byte(i)) | UInt16(byte(i + 1)) << 8 }
    func uint16BE(_ i: Int) -> UInt16 { UInt16(byte(i)) << 8 | UInt16(byte(i + 1)) }
}

extension MotionSample {
    static func magnetometer(_ x: Int32, _ y: Int32, _ z: Int32, scale: Double) -> MotionSample {
        .magnetometerRaw(RawSample(x: x, y: y, z: z, scale: scale))
    }
    static func accelerometer(_ x: Int32, _ y: Int32, _ z: Int32, scale: Double) -> MotionSample {
        .accelerometerRaw(RawSample(x: x, y: y, z: z, scale: scale))
    }
    static func gyroscope(_ x: Int32, _ y: Int32, _ z: Int32, scale: Double) -> MotionSample {
        .gyroscopeRaw(RawSample(x: x, y: y, z: z, scale: scale))
    }
}

extension Int16 {
    /// True at either rail of a signed 16-bit output (ST magnetometers saturate there without a flag).
    var isRail: Bool { self == .min || self == .max }
}
