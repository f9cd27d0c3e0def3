import LocationCore

/// Register map of the ST LIS3MDL (datasheet DocID024204, section 7 "Register mapping", section 8 "Register
/// description"); the LSM9DS1 magnetometer has the same map with `_M` names (LSM9DS1 datasheet section 9,
/// "Magnetometer register description").
enum LIS3MDLRegisters {
    static let addresses: [UInt16] = [0x1C, 0x1E]  // SAD 00111x0b: SDO/SA1 low → 0x1C, high → 0x1E
    static let whoAmI: UInt8 = 0x0F
    static let whoAmIValue: UInt8 = 0x3D
    static let ctrlReg1: UInt8 = 0x20             // TEMP_EN (7), OM1-0 X/Y mode (6:5), DO2-0 rate (4:2), FAST_ODR, ST
    static let ctrlReg2: UInt8 = 0x21             // FS1-0 (6:5): 00 ±4, 01 ±8, 10 ±12, 11 ±16 gauss; REBOOT, SOFT_RST
    static let ctrlReg3: UInt8 = 0x22             // LP, SIM, MD1-0: 00 continuous, 01 single, 1x power-down (default)
    static let ctrlReg4: UInt8 = 0x23             // OMZ1-0 Z mode (3:2), BLE
    static let ctrlReg5: UInt8 = 0x24             // FAST_READ (7), BDU (6)
    static let statusReg: UInt8 = 0x27            // ZYXOR (7) … ZYXDA (3) …
    /// "In order to read multiple bytes, it is necessary to assert the most significant bit of the subaddress
    /// field" (I2C operation); Linux st_magn sets multi_read_bit for LIS3MDL/LSM9DS1 too.
    static let autoIncrement: UInt8 = 0x80
    static let newData: UInt8 = 0x08              // ZYXDA
    static let overrun: UInt8 = 0x80              // ZYXOR
    /// OM = 11 ultra-high-performance X/Y, DO = 111 80 Hz.
    static let ctrlReg1Value: UInt8 = 0x7C
    static let ctrlReg2Value: UInt8 = 0x00        // ±4 gauss
    static let ctrlReg3Value: UInt8 = 0x00        // continuous conversion
    static let ctrlReg4Value: UInt8 = 0x0C        // OMZ = 11 ultra-high-performance Z
    static let ctrlReg5Value: UInt8 = 0x40        // BDU: output registers not updated until both bytes are read
    /// LIS3MDL "Magnetic characteristics" table (GN, FS = ±4 gauss): 6842 LSB/gauss.
    static let lis3mdlCountsPerGauss = 6842.0
    /// LSM9DS1 "Sensor characteristics" table (M_GN, FS = ±4 gauss): 0.14 mgauss/LSB. Correction to CHIPS.md, which lists the LSM9DS1
    /// magnetometer with the LIS3MDL's 6842 LSB/G (≈ 0.146 mG/LSB, also what Linux st_magn uses for both).
    static let lsm9ds1MicroteslaPerCount = 0.014
}

/// ST LIS3MDL magnetometer, and the magnetometer die of the LSM9DS1 (same registers, WHO_AM_I 0x3D).
///
/// Addresses: 0x1C / 0x1E for both. Correction to CHIPS.md: the LSM9DS1 magnetometer is not at 0x1D/0x1F
/// (LSM9DS1 datasheet, I2C "SAD" table for the magnetic sensor: 00111x0b, i.e. 0x1C/0x1E); 0x1D/0x1E are the
/// LSM303D/LSM9DS0 addresses.
/// The two cannot be told apart by their registers; `I2CProbe` calls it an LSM9DS1 when an LSM9DS1
/// accelerometer/gyroscope (WHO_AM_I 0x68) answers at 0x6A/0x6B.
///
/// Init (all in power-down, the reset state, then continuous mode last): CTRL_REG2 ±4 G, CTRL_REG1 UHP 80 Hz,
/// CTRL_REG4 UHP Z, CTRL_REG5 BDU, CTRL_REG3 continuous. This is the register set Pololu's LIS3MDL library
/// writes (0x70, 0x00, 0x00, 0x0C: UHP, 10 Hz, ±4 G, continuous), at 80 Hz instead of 10 Hz and with BDU.
/// Read: one 7-byte burst from STATUS_REG (0x27 | 0x80): ZYXDA clear → []; ZYXOR → overrun counted;
/// an axis at ±32767/−32768 (the chip saturates without a flag) → overflow, skipped.
public final class LIS3MDL: MotionSensorDriver {
    public enum Variant: Sendable, Hashable {
        case lis3mdl, lsm9ds1
    }
    public let address: UInt16
    public let variant: Variant
    private let bus: any I2CBus
    public private(set) var counters = DriverCounters()
    public var chip: I2CChip { variant == .lis3mdl ? .lis3mdl : .lsm9ds1Magnetometer }
    public var chipName: String { variant == .lis3mdl ? "LIS3MDL" : "LSM9DS1 magnetometer" }
    public var roles: [SensorRole] { [.magnetometer] }
    public var sampleRateHz: Double { 80 }
    /// µT per count.
    public var scale: Double {
        switch variant {
        case .lis3mdl: Units.microteslaPerGauss / LIS3MDLRegisters.lis3mdlCountsPerGauss
        case .lsm9ds1: LIS3MDLRegisters.lsm9ds1MicroteslaPerCount
        }
    }

    public convenience init(bus: any I2CBus, address: UInt16) { self.init(bus: bus, address: address, variant: .lis3mdl) }

    public init(bus: any I2CBus, address: UInt16, variant: Variant) {
        self.bus = bus; self.address = address; self.variant = variant
    }

    public static func probe(bus: any I2CBus, address: UInt16) -> Bool {
        bus.peek(address, LIS3MDLRegisters.whoAmI) == LIS3MDLRegisters.whoAmIValue
    }

    public func configure() throws(I2CError) {
        typealias R = LIS3MDLRegisters
        for (register, value) in [(R.ctrlReg2, R.ctrlReg2Value), (R.ctrlReg1, R.ctrlReg1Value),
                                  (R.ctrlReg4, R.ctrlReg4Value), (R.ctrlReg5, R.ctrlReg5Value),
                                  (R.ctrlReg3, R.ctrlReg3Value)] {
            try bus.writeRegister(address: address, register: register, value: value)
        }
    }

    public func read() throws(I2CError) -> [MotionSample] {
        let b = try bus.readBlock(address: address, register: LIS3MDLRegisters.statusReg | LIS3MDLRegisters.autoIncrement,
                                  count: 7)
        let status = b[0]
        guard status & LIS3MDLRegisters.newData != 0 else {
            counters.notReady += 1
            return []
        }
        if status & LIS3MDLRegisters.overrun != 0 { counters.overruns += 1 }
        let x = b.int16LE(1), y = b.int16LE(3), z = b.int16LE(5)
        if x.isRail || y.isRail || z.isRail {
            counters.overflows += 1
            return []
        }
        counters.samples += 1
        return [.magnetometer(Int32(x), Int32(y), Int32(z), scale: scale)]
    }
}
