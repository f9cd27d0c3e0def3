import LocationCore

/// Register map of the MEMSIC MMC5983MA (datasheet Rev A, "Register Map" and "Register Details").
enum MMC5983MARegisters {
    static let address: UInt16 = 0x30             // fixed 0110000b
    static let xOut0: UInt8 = 0x00                // Xout[17:10], Xout[9:2], Y…, Z…, then XYZout2 (0x06):
                                                  // Xout[1:0] (7:6), Yout[1:0] (5:4), Zout[1:0] (3:2)
    static let status: UInt8 = 0x08               // OTP_Rd_Done (4), Meas_T_Done (1), Meas_M_Done (0)
    static let control0: UInt8 = 0x09             // write-only: OTP_Read, Auto_SR_en, RESET (4), SET (3),
                                                  // INT_meas_done_en, TM_T, TM_M (0)
    static let control1: UInt8 = 0x0A             // write-only: SW_RST (7), YZ/X inhibit, BW1-0 (1:0)
    static let control2: UInt8 = 0x0B             // write-only: En_prd_set, Prd_set, Cmm_en (3), CM_freq (2:0)
    static let productID: UInt8 = 0x2F            // 0x30
    static let productIDValue: UInt8 = 0x30
    static let measurementDone: UInt8 = 0x01
    static let takeMeasurement: UInt8 = 0x01
    static let set: UInt8 = 0x08
    static let reset: UInt8 = 0x10
    static let softwareReset: UInt8 = 0x80
    /// BW = 00: 100 Hz bandwidth, 8 ms per measurement.
    static let control1Value: UInt8 = 0x00
    /// Continuous mode and periodic SET off: the driver sequences SET/RESET itself.
    static let control2Value: UInt8 = 0x00
    /// Power-on / software-reset time (datasheet: 10 ms).
    static let resetNanos: Int64 = 10_000_000
    /// 18-bit: 16384 counts/G, null field at 131072; 16-bit: 4096 counts/G, null at 32768.
    static let countsPerGauss18 = 16384.0
    static let countsPerGauss16 = 4096.0
    static let max18: Int32 = 262_143
    static let max16: Int32 = 65_535
}

/// MEMSIC MMC5983MA magnetometer at 0x30 (product ID 0x2F = 0x30), with SET/RESET offset removal.
///
/// The AMR bridge has an offset that drifts with temperature. After a SET pulse the output is `+H + offset`,
/// after a RESET pulse `−H + offset`; half the difference is the field without the offset (datasheet "SET and
/// RESET" application note). Each sample therefore takes two measurements: SET, measure, read; RESET, measure,
/// read. Counts are the plain difference set − reset (exact integers) with the scale halved, so
/// value = (set − reset) × (100 µT / counts-per-gauss) / 2. `offset` holds (set + reset)/2 − null for diagnostics.
///
/// The driver never blocks: `read()` advances a small state machine by at most one measurement per call
/// (trigger → wait for Meas_M_Done → read → next trigger), so one sample takes two polls; polled at twice
/// `sampleRateHz` (what `I2CSensorSource` does), that is 50 samples/s with 8 ms measurements.
/// Overflow: an output at 0 or full scale (the bridge saturates) in either measurement → skipped and counted.
public final class MMC5983MA: MotionSensorDriver {
    public enum Resolution: Sendable, Hashable {
        case bits18, bits16
    }
    private enum Phase { case idle, afterSet, afterReset }

    public let address: UInt16
    public let resolution: Resolution
    private let bus: any I2CBus
    private var phase = Phase.idle
    private var setReading: (Int32, Int32, Int32) = (0, 0, 0)
    public private(set) var counters = DriverCounters()
    /// The bridge offset of the last sample in counts: (set + reset)/2 − null, per axis.
    public private(set) var offset: (x: Double, y: Double, z: Double) = (0, 0, 0)
    public var chip: I2CChip { .mmc5983ma }
    public var chipName: String { "MMC5983MA" }
    public var roles: [SensorRole] { [.magnetometer] }
    public var sampleRateHz: Double { 50 }
    /// µT per count of (set − reset).
    public var scale: Double {
        let countsPerGauss = resolution == .bits18 ? MMC5983MARegisters.countsPerGauss18 : MMC5983MARegisters.countsPerGauss16
        return Units.microteslaPerGauss / countsPerGauss / 2
    }

    public convenience init(bus: any I2CBus, address: UInt16) { self.init(bus: bus, address: address, resolution: .bits18) }

    public init(bus: any I2CBus, address: UInt16 = 0x30, resolution: Resolution) {
        self.bus = bus; self.address = address; self.resolution = resolution
    }

    public static func probe(bus: any I2CBus, address: UInt16) -> Bool {
        bus.peek(address, MMC5983MARegisters.productID) == MMC5983MARegisters.productIDValue
    }

    public func configure() throws(I2CError) {
        typealias R = MMC5983MARegisters
        try bus.writeRegister(address: address, register: R.control1, value: R.softwareReset)
        bus.wait(nanoseconds: R.resetNanos)
        try bus.writeRegister(address: address, register: R.control1, value: R.control1Value)
        try bus.writeRegister(address: address, register: R.control2, value: R.control2Value)
        phase = .idle
    }

    public func read() throws(I2CError) -> [MotionSample] {
        typealias R = MMC5983MARegisters
        switch phase {
        case .idle:
            try start(R.set)
            phase = .afterSet
            counters.notReady += 1
            return []
        case .afterSet:
            guard let reading = try measurement() else { return [] }
            setReading = reading
            try start(R.reset)
            phase = .afterReset
            return []
        case .afterReset:
            guard let reset = try measurement() else { return [] }
            try start(R.set)
            phase = .afterSet
            let set = setReading
            let full = resolution == .bits18 ? R.max18 : R.max16
            let rails = [set.0, set.1, set.2, reset.0, reset.1, reset.2]
            if rails.contains(0) || rails.contains(full) {
                counters.overflows += 1
                return []
            }
            let null = Double(full + 1) / 2
            offset = (Double(set.0 + reset.0) / 2 - null, Double(set.1 + reset.1) / 2 - null, Double(set.2 + reset.2) / 2 - null)
            counters.samples += 1
            return [.magnetometer(set.0 - reset.0, set.1 - reset.1, set.2 - reset.2, scale: scale)]
        }
    }

    /// A SET or RESET pulse (500 ns, over long before the next transaction ends) and a measurement trigger.
    private func start(_ pulse: UInt8) throws(I2CError) {
        try bus.writeRegister(address: address, register: MMC5983MARegisters.control0, value: pulse)
        try bus.writeRegister(address: address, register: MMC5983MARegisters.control0, value: MMC5983MARegisters.takeMeasurement)
    }

    /// The finished measurement, or nil while Meas_M_Done is clear.
    private func measurement() throws(I2CError) -> (Int32, Int32, Int32)? {
        let status = try bus.readRegister(address: address, register: MMC5983MARegisters.status)
        guard status & MMC5983MARegisters.measurementDone != 0 else {
            counters.notReady += 1
            return nil
        }
        switch resolution {
        case .bits18:
            let b = try bus.readBlock(address: address, register: MMC5983MARegisters.xOut0, count: 7)
            func axis(_ i: Int, _ shift: UInt8) -> Int32 {
                Int32(b[i]) << 10 | Int32(b[i + 1]) << 2 | Int32((b[6] >> shift) & 0x03)
            }
            return (axis(0, 6), axis(2, 4), axis(4, 2))
        case .bits16:
            let b = try bus.readBlock(address: address, register: MMC5983MARegisters.xOut0, count: 6)
            return (Int32(b.uint16BE(0)), Int32(b.uint16BE(2)), Int32(b.uint16BE(4)))
        }
    }
}
