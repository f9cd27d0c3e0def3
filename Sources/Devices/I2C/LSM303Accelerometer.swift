import LocationCore

/// Register map of the accelerometer of the ST LSM303AGR (datasheet, accelerometer register
/// description) and LSM303DLHC (datasheet section 7.1): the same LIS3DH-style map.
enum LSM303AccelRegisters {
    static let address: UInt16 = 0x19             // SA0 tied high in both packages: 0011001b
    static let whoAmI: UInt8 = 0x0F               // WHO_AM_I_A
    static let whoAmIValue: UInt8 = 0x33          // LSM303AGR documents it; the DLHC answers the same (Linux st_accel)
    static let ctrlReg1: UInt8 = 0x20             // ODR3-0 (7:4), LPen (3), Zen, Yen, Xen
    static let ctrlReg4: UInt8 = 0x23             // BDU (7), BLE, FS1-0 (5:4), HR (3), …
    static let statusReg: UInt8 = 0x27            // ZYXOR (7), ZYXDA (3); OUT_X_L_A 0x28 … OUT_Z_H_A 0x2D follow
    /// "In order to read multiple bytes, it is necessary to assert the most significant bit of the sub-address
    /// field" (accelerometer I2C operation, both chips).
    static let autoIncrement: UInt8 = 0x80
    static let newData: UInt8 = 0x08
    static let overrun: UInt8 = 0x80
    /// ODR = 0101 (100 Hz), normal mode (LPen = 0), X/Y/Z enabled.
    static let ctrlReg1Value: UInt8 = 0x57
    /// BDU, ±2 g, HR = 1 (12-bit, left-justified in the 16-bit output).
    static let ctrlReg4Value: UInt8 = 0x88
    /// LSM303AGR "Mechanical characteristics", high-resolution mode, ±2 g: 0.98 mg/digit.
    static let agrGPerCount = 0.98e-3
    /// LSM303DLHC Table 3, ±2 g: 1 mg/LSB.
    static let dlhcGPerCount = 1.0e-3
}

/// The accelerometer of the LSM303AGR or LSM303DLHC at 0x19 (WHO_AM_I 0x33).
///
/// WHO_AM_I 0x33 is shared with the LIS3DH and LIS2DH12; `I2CProbe` picks the variant from the magnetometer at 0x1E and
/// defaults to the LSM303AGR (whose 0.98 mg/digit is within 2 % of the others' 1 mg/digit).
/// Init: CTRL_REG4_A (BDU, ±2 g, high resolution), then CTRL_REG1_A (100 Hz, all axes) to start.
/// Read: 7-byte burst from STATUS_REG_A | 0x80: ZYXDA clear → []; ZYXOR → overrun. Counts are the 12-bit values
/// (16-bit output shifted right by 4). No overflow flag exists; a saturated accelerometer still reports its rail.
public final class LSM303Accelerometer: MotionSensorDriver {
    public enum Variant: Sendable, Hashable {
        case lsm303agr, lsm303dlhc
    }
    public let address: UInt16
    public let variant: Variant
    private let bus: any I2CBus
    public private(set) var counters = DriverCounters()
    public var chip: I2CChip { variant == .lsm303agr ? .lsm303agrAccelerometer : .lsm303dlhcAccelerometer }
    public var chipName: String { variant == .lsm303agr ? "LSM303AGR accelerometer" : "LSM303DLHC accelerometer" }
    public var roles: [SensorRole] { [.accelerometer] }
    public var sampleRateHz: Double { 100 }
    /// m/s² per count.
    public var scale: Double {
        (variant == .lsm303agr ? LSM303AccelRegisters.agrGPerCount : LSM303AccelRegisters.dlhcGPerCount) * Units.standardGravity
    }

    public convenience init(bus: any I2CBus, address: UInt16) { self.init(bus: bus, address: address, variant: .lsm303agr) }

    public init(bus: any I2CBus, address: UInt16 = 0x19, variant: Variant) {
        self.bus = bus; self.address = address; self.variant = variant
    }

    public static func probe(bus: any I2CBus, address: UInt16) -> Bool {
        bus.peek(address, LSM303AccelRegisters.whoAmI) == LSM303AccelRegisters.whoAmIValue
    }

    public func configure() throws(I2CError) {
        typealias R = LSM303AccelRegisters
        try bus.writeRegister(address: address, register: R.ctrlReg4, value: R.ctrlReg4Value)
        try bus.writeRegister(address: address, register: R.ctrlReg1, value: R.ctrlReg1Value)
    }

    public func read() throws(I2CError) -> [MotionSample] {
        let b = try bus.readBlock(address: address, register: LSM303AccelRegisters.statusReg | LSM303AccelRegisters.autoIncrement,
                                  count: 7)
        guard b[0] & LSM303AccelRegisters.newData != 0 else {
            counters.notReady += 1
            return []
        }
        if b[0] & LSM303AccelRegisters.overrun != 0 { counters.overruns += 1 }
        counters.samples += 1
        return [.accelerometer(Int32(b.int16LE(1) >> 4), Int32(b.int16LE(3) >> 4), Int32(b.int16LE(5) >> 4), scale: scale)]
    }
}
