import LocationCore

/// Register map of the Bosch BMM150 (datasheet BST-BMM150-DS001, section 5 "Register description"; the trim
/// registers are not in the datasheet but in Bosch's sensor API, BMM050_driver / BMM150_SensorAPI).
enum BMM150Registers {
    static let addresses: [UInt16] = [0x10, 0x11, 0x12, 0x13]  // SDO/CSB2 strapping
    static let chipID: UInt8 = 0x40               // 0x32, readable only with the power control bit set
    static let chipIDValue: UInt8 = 0x32
    static let dataXLSB: UInt8 = 0x42             // X (13 bit, 7:3 of LSB), Y (13 bit), Z (15 bit, 7:1), RHALL (14 bit, 7:2)
    static let powerControl: UInt8 = 0x4B         // soft reset (7, 1), power control bit (0)
    static let opMode: UInt8 = 0x4C               // data rate (5:3), opmode (2:1): 00 normal, 01 forced, 11 sleep
    static let repXY: UInt8 = 0x51                // nXY = 1 + 2 × REP_XY
    static let repZ: UInt8 = 0x52                 // nZ = 1 + REP_Z
    static let trimStart: UInt8 = 0x5D            // dig_x1 … dig_xy1 at 0x5D … 0x71 (21 bytes)
    static let trimCount = 21
    static let dataReady: UInt8 = 0x01            // bit 0 of RHALL LSB (0x48)
    static let powerOn: UInt8 = 0x01
    /// Suspend → sleep start-up time (datasheet "Electrical specification": 3 ms).
    static let startupNanos: Int64 = 3_000_000
    /// Bosch "regular" preset: nXY = 9, nZ = 15.
    static let repXYValue: UInt8 = 0x04
    static let repZValue: UInt8 = 0x0E
    /// Data rate 101 = 20 Hz, normal mode.
    static let opModeValue: UInt8 = 0x28
    /// Overflow codes of the raw ADC values (Bosch API: BMM150_OVERFLOW_ADCVAL_XYAXES_FLIP, …_ZAXIS_HALL).
    static let overflowXY: Int16 = -4096
    static let overflowZ: Int16 = -16384
    /// The compensated output is in 1/16 µT (16 LSB/µT; Linux bmc150_magn scale 0.000625 G).
    static let microteslaPerCount = 1.0 / 16
}

/// Bosch BMM150 magnetometer (also in the BMX055/BMC150/BMC156) at 0x10…0x13.
///
/// Probe: CHIP_ID reads 0 in suspend mode (the power-on state), so when 0x40 and 0x4B both read 0x00 the probe
/// sets the power control bit, waits 3 ms and reads CHIP_ID again, restoring 0x4B if it is not 0x32. That is the
/// only register write any probe makes to an unknown device; the 0x00/0x00 precondition keeps it off most other
/// chips that live at 0x10…0x13.
/// Init: power control bit, 3 ms, ID check, trim registers, regular preset (nXY 9, nZ 15), normal mode 20 Hz.
/// Read: one 8-byte burst 0x42…0x49 (the chip shadows the data registers during a burst). DRDY clear → [];
/// an overflow code on any axis → skipped and counted; otherwise Bosch's temperature/trim compensation
/// (`Trim.compensate`) in fixed point → counts of 1/16 µT.
public final class BMM150: MotionSensorDriver {
    public let address: UInt16
    private let bus: any I2CBus
    public private(set) var counters = DriverCounters()
    public private(set) var trim: Trim?
    public var chip: I2CChip { .bmm150 }
    public var chipName: String { "BMM150" }
    public var roles: [SensorRole] { [.magnetometer] }
    public var sampleRateHz: Double { 20 }
    public static let scale = BMM150Registers.microteslaPerCount

    public init(bus: any I2CBus, address: UInt16) {
        self.bus = bus; self.address = address
    }

    public static func probe(bus: any I2CBus, address: UInt16) -> Bool {
        typealias R = BMM150Registers
        guard let id = bus.peek(address, R.chipID) else { return false }
        if id == R.chipIDValue { return true }
        guard id == 0x00, let power = bus.peek(address, R.powerControl), power == 0x00 else { return false }
        guard (try? bus.writeRegister(address: address, register: R.powerControl, value: R.powerOn)) != nil else { return false }
        bus.wait(nanoseconds: R.startupNanos)
        if bus.peek(address, R.chipID) == R.chipIDValue { return true }
        _ = try? bus.writeRegister(address: address, register: R.powerControl, value: power)
        return false
    }

    public func configure() throws(I2CError) {
        typealias R = BMM150Registers
        try bus.writeRegister(address: address, register: R.powerControl, value: R.powerOn)
        bus.wait(nanoseconds: R.startupNanos)
        let id = try bus.readRegister(address: address, register: R.chipID)
        guard id == R.chipIDValue else {
            throw .unexpectedDevice(address: address, detail: "BMM150 CHIP_ID reads \(hexAddress(UInt16(id))), expected 0x32")
        }
        trim = Trim(registers: try bus.readBlock(address: address, register: R.trimStart, count: R.trimCount))
        try bus.writeRegister(address: address, register: R.repXY, value: R.repXYValue)
        try bus.writeRegister(address: address, register: R.repZ, value: R.repZValue)
        try bus.writeRegister(address: address, register: R.opMode, value: R.opModeValue)
    }

    public func read() throws(I2CError) -> [MotionSample] {
        typealias R = BMM150Registers
        let b = try bus.readBlock(address: address, register: R.dataXLSB, count: 8)
        guard b[6] & R.dataReady != 0 else {
            counters.notReady += 1
            return []
        }
        let x = b.int16LE(0) >> 3, y = b.int16LE(2) >> 3, z = b.int16LE(4) >> 1
        let rhall = b.uint16LE(6) >> 2
        guard let trim, x != R.overflowXY, y != R.overflowXY, z != R.overflowZ,
              let field = trim.compensate(x: x, y: y, z: z, rhall: rhall) else {
            counters.overflows += 1
            return []
        }
        counters.samples += 1
        return [.magnetometer(field.x, field.y, field.z, scale: Self.scale)]
    }
}
