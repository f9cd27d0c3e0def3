import LocationCore

/// Register map of the ST LIS2MDL (datasheet, "Register description"); the LSM303AGR
/// magnetometer has the same map with `_M` names (LSM303AGR datasheet, magnetometer register description).
enum LIS2MDLRegisters {
    static let address: UInt16 = 0x1E             // fixed: SAD 0011110b
    static let whoAmI: UInt8 = 0x4F
    static let whoAmIValue: UInt8 = 0x40
    static let cfgRegA: UInt8 = 0x60              // COMP_TEMP_EN (7), REBOOT, SOFT_RST, LP (4), ODR1-0 (3:2), MD1-0
    static let cfgRegB: UInt8 = 0x61              // OFF_CANC_ONE_SHOT (4), INT_on_DataOFF, Set_FREQ, OFF_CANC (1), LPF
    static let cfgRegC: UInt8 = 0x62              // INT_on_PIN, I2C_DIS, BDU (4), BLE, 4WSPI, Self_test, DRDY_on_PIN
    static let statusReg: UInt8 = 0x67            // Zyxor (7) … Zyxda (3) …; OUTX_L_REG 0x68 … OUTZ_H_REG 0x6D follow
    static let newData: UInt8 = 0x08
    static let overrun: UInt8 = 0x80
    /// COMP_TEMP_EN = 1 (temperature compensation of the magnetometer), ODR = 10 → 50 Hz, MD = 00 continuous.
    static let cfgRegAValue: UInt8 = 0x88
    /// OFF_CANC = 1: offset cancellation by the chip's own set/reset pulses in continuous mode.
    static let cfgRegBValue: UInt8 = 0x02
    static let cfgRegCValue: UInt8 = 0x10         // BDU
    /// 1.5 mgauss/LSB (sensitivity, fixed ±49.152 G range) = 0.15 µT.
    static let gaussPerCount = 1.5e-3
}

/// ST LIS2MDL magnetometer, and the LSM303AGR's magnetometer (same die and registers, WHO_AM_I 0x4F = 0x40).
///
/// `I2CProbe` names it LSM303AGR when the LSM303AGR accelerometer (WHO_AM_I 0x33) answers at 0x19.
/// Unlike the LIS3MDL, the register address auto-increments without bit 7 (Linux st_magn: multi_read_bit = false
/// for LIS2MDL/LSM303AGR); bit 7 set would address 0xE7, which does not exist.
/// Init: CFG_REG_B (offset cancellation), CFG_REG_C (BDU), then CFG_REG_A (temperature compensation, 50 Hz,
/// continuous) last — the datasheet's start-up example writes only CFG_REG_A = 0x00 (10 Hz continuous) and
/// CFG_REG_C = 0x01 (DRDY on pin); the extra bits are the ones its register description recommends.
/// Read: one 7-byte burst from STATUS_REG: Zyxda clear → []; Zyxor → overrun; an axis at a rail → overflow.
public final class LIS2MDL: MotionSensorDriver {
    public enum Variant: Sendable, Hashable {
        case lis2mdl, lsm303agr
    }
    public let address: UInt16
    public let variant: Variant
    private let bus: any I2CBus
    public private(set) var counters = DriverCounters()
    public var chip: I2CChip { variant == .lis2mdl ? .lis2mdl : .lsm303agrMagnetometer }
    public var chipName: String { variant == .lis2mdl ? "LIS2MDL" : "LSM303AGR magnetometer" }
    public var roles: [SensorRole] { [.magnetometer] }
    public var sampleRateHz: Double { 50 }
    public static let scale = Units.microteslaPerGauss * LIS2MDLRegisters.gaussPerCount

    public convenience init(bus: any I2CBus, address: UInt16) { self.init(bus: bus, address: address, variant: .lis2mdl) }

    public init(bus: any I2CBus, address: UInt16 = 0x1E, variant: Variant) {
        self.bus = bus; self.address = address; self.variant = variant
    }

    public static func probe(bus: any I2CBus, address: UInt16) -> Bool {
        bus.peek(address, LIS2MDLRegisters.whoAmI) == LIS2MDLRegisters.whoAmIValue
    }

    public func configure() throws(I2CError) {
        typealias R = LIS2MDLRegisters
        for (register, value) in [(R.cfgRegB, R.cfgRegBValue), (R.cfgRegC, R.cfgRegCValue), (R.cfgRegA, R.cfgRegAValue)] {
            try bus.writeRegister(address: address, register: register, value: value)
        }
    }

    public func read() throws(I2CError) -> [MotionSample] {
        let b = try bus.readBlock(address: address, register: LIS2MDLRegisters.statusReg, count: 7)
        guard b[0] & LIS2MDLRegisters.newData != 0 else {
            counters.notReady += 1
            return []
        }
        if b[0] & LIS2MDLRegisters.overrun != 0 { counters.overruns += 1 }
        let x = b.int16LE(1), y = b.int16LE(3), z = b.int16LE(5)
        if x.isRail || y.isRail || z.isRail {
            counters.overflows += 1
            return []
        }
        counters.samples += 1
        return [.magnetometer(Int32(x), Int32(y), Int32(z), scale: Self.scale)]
    }
}
