import LocationCore

/// Register map of the QST QMC5883L (datasheet "3-Axis Magnetic Sensor QMC5883L", Rev C: "Register Map" and
/// "Register Definition"; section numbers differ between revisions, so names are cited).
enum QMC5883LRegisters {
    static let address: UInt16 = 0x0D            // 7-bit address 0001101b ("I2C Interface")
    static let dataXLSB: UInt8 = 0x00            // "Output Data Register": X LSB, X MSB, Y LSB, Y MSB, Z LSB, Z MSB (little-endian)
    static let status: UInt8 = 0x06              // "Status Register": DOR (2), OVL (1), DRDY (0)
    static let control1: UInt8 = 0x09            // "Control Register 1": OSR (7:6), RNG (5:4), ODR (3:2), MODE (1:0)
    static let control2: UInt8 = 0x0A            // "Control Register 2": SOFT_RST (7), ROL_PNT (6), INT_ENB (0)
    static let setResetPeriod: UInt8 = 0x0B      // "SET/RESET Period Register": "recommended to set to 0x01"
    static let reserved: UInt8 = 0x0C            // reads 0x01 (checked by ArduPilot's AP_Compass_QMC5883L too)
    static let chipID: UInt8 = 0x0D              // "Chip ID Register": 0xFF
    static let chipIDValue: UInt8 = 0xFF
    static let dataReady: UInt8 = 0x01
    static let overflowFlag: UInt8 = 0x02
    static let dataSkipped: UInt8 = 0x04
    /// OSR 512 (00), RNG ±8 G (01), ODR 50 Hz (01), continuous (01). The datasheet's continuous-mode example writes
    /// 0x1D (200 Hz); 50 Hz is plenty for a heading and keeps the bus quiet.
    static let control1Value: UInt8 = 0x15
    /// ±8 G: 3000 LSB/G ("Magnetic Characteristics" table). (±2 G would be 12000 LSB/G.)
    static let countsPerGauss = 3000.0
}

/// QST QMC5883L magnetometer at 0x0D (the chip on most "HMC5883L" GY-271 boards sold since ~2016).
///
/// Probe: one dummy read of 0x00 (ArduPilot: "must read register 0x00 once … after can read the ID registers
/// reliably"), then 0x0C = 0x01 and 0x0D = 0xFF. 0xFF alone would also match a bus that floats high.
/// Read: status first; DRDY clear → []; OVL set → the sample is skipped (outputs saturate at ±32767) and counted;
/// DOR (a sample skipped because it was not read in time) is counted as an overrun.
/// ArduPilot's driver tests DOR (0x04) as its "new data" bit; the datasheet's DRDY is bit 0, used here.
public final class QMC5883L: MotionSensorDriver {
    public let address: UInt16
    private let bus: any I2CBus
    public private(set) var counters = DriverCounters()
    public var chip: I2CChip { .qmc5883l }
    public var chipName: String { "QMC5883L" }
    public var roles: [SensorRole] { [.magnetometer] }
    public var sampleRateHz: Double { 50 }
    public static let scale = Units.microteslaPerGauss / QMC5883LRegisters.countsPerGauss

    public init(bus: any I2CBus, address: UInt16 = 0x0D) {
        self.bus = bus; self.address = address
    }

    public static func probe(bus: any I2CBus, address: UInt16) -> Bool {
        _ = bus.peek(address, QMC5883LRegisters.dataXLSB)
        return bus.peek(address, QMC5883LRegisters.reserved) == 0x01
            && bus.peek(address, QMC5883LRegisters.chipID) == QMC5883LRegisters.chipIDValue
    }

    /// The datasheet's continuous-measurement example: SET/RESET period 0x01, then control 1.
    public func configure() throws(I2CError) {
        try bus.writeRegister(address: address, register: QMC5883LRegisters.setResetPeriod, value: 0x01)
        try bus.writeRegister(address: address, register: QMC5883LRegisters.control1, value: QMC5883LRegisters.control1Value)
    }

    public func read() throws(I2CError) -> [MotionSample] {
        let status = try bus.readRegister(address: address, register: QMC5883LRegisters.status)
        guard status & QMC5883LRegisters.dataReady != 0 else {
            counters.notReady += 1
            return []
        }
        let b = try bus.readBlock(address: address, register: QMC5883LRegisters.dataXLSB, count: 6)
        if status & QMC5883LRegisters.dataSkipped != 0 { counters.overruns += 1 }
        if status & QMC5883LRegisters.overflowFlag != 0 {
            counters.overflows += 1
            return []
        }
        counters.samples += 1
        return [.magnetometer(Int32(b.int16LE(0)), Int32(b.int16LE(2)), Int32(b.int16LE(4)), scale: Self.scale)]
    }
}
