import LocationCore

/// Register map of the ST LSM9DS1 accelerometer/gyroscope (datasheet DocID025715, section 7 "Register mapping",
/// section 8 "Accelerometer and gyroscope register description").
enum LSM9DS1Registers {
    static let addresses: [UInt16] = [0x6A, 0x6B]  // SAD 110101xb (SDO_A/G low → 0x6A, high → 0x6B)
    static let whoAmI: UInt8 = 0x0F
    static let whoAmIValue: UInt8 = 0x68
    static let ctrlReg1G: UInt8 = 0x10            // ODR_G2-0 (7:5), FS_G1-0 (4:3), BW_G1-0
    static let statusReg: UInt8 = 0x17            // … TDA (2), GDA (1), XLDA (0); OUT_X_L_G 0x18 … OUT_Z_H_G 0x1D follow
    static let ctrlReg6XL: UInt8 = 0x20           // ODR_XL2-0 (7:5), FS_XL1-0 (4:3), BW_SCAL_ODR, BW_XL1-0
    static let ctrlReg8: UInt8 = 0x22             // BOOT, BDU (6), H_LACTIVE, PP_OD, SIM, IF_ADD_INC (2), BLE, SW_RESET
    static let outXLXL: UInt8 = 0x28              // OUT_X_L_XL … OUT_Z_H_XL 0x2D
    static let gyroReady: UInt8 = 0x02
    static let accelReady: UInt8 = 0x01
    /// BDU + IF_ADD_INC (auto-increment is on by default; written explicitly so a re-init restores it).
    static let ctrlReg8Value: UInt8 = 0x44
    /// ODR_G = 011 (119 Hz), FS_G = 00 (245 dps). With the gyroscope on, the accelerometer runs at the same ODR.
    static let ctrlReg1GValue: UInt8 = 0x60
    /// ODR_XL = 011 (119 Hz), FS_XL = 00 (±2 g).
    static let ctrlReg6XLValue: UInt8 = 0x60
    /// "Sensor characteristics" table: LA_So ±2 g 0.061 mg/LSB; G_So 245 dps 8.75 mdps/LSB.
    static let gPerCount = 0.061e-3
    static let degreesPerSecondPerCount = 8.75e-3
}

/// ST LSM9DS1 accelerometer + gyroscope at 0x6A/0x6B (WHO_AM_I 0x68). Its magnetometer is a separate I2C device
/// (`LIS3MDL` with variant `.lsm9ds1`).
///
/// Init: CTRL_REG8 (BDU, auto-increment), CTRL_REG1_G (119 Hz, 245 dps), CTRL_REG6_XL (119 Hz, ±2 g).
/// Read: STATUS_REG and the gyroscope in one 7-byte burst from 0x17 (auto-increment by IF_ADD_INC, no bit 7),
/// then the accelerometer's 6 bytes when XLDA is set. Neither flag set → [].
public final class LSM9DS1AccelGyro: MotionSensorDriver {
    public let address: UInt16
    private let bus: any I2CBus
    public private(set) var counters = DriverCounters()
    public var chip: I2CChip { .lsm9ds1AccelGyro }
    public var chipName: String { "LSM9DS1 accelerometer/gyroscope" }
    public var roles: [SensorRole] { [.accelerometer, .gyroscope] }
    public var sampleRateHz: Double { 119 }
    public static let accelerometerScale = LSM9DS1Registers.gPerCount * Units.standardGravity
    public static let gyroscopeScale = LSM9DS1Registers.degreesPerSecondPerCount * Units.radiansPerDegree

    public init(bus: any I2CBus, address: UInt16) {
        self.bus = bus; self.address = address
    }

    public static func probe(bus: any I2CBus, address: UInt16) -> Bool {
        bus.peek(address, LSM9DS1Registers.whoAmI) == LSM9DS1Registers.whoAmIValue
    }

    public func configure() throws(I2CError) {
        typealias R = LSM9DS1Registers
        for (register, value) in [(R.ctrlReg8, R.ctrlReg8Value), (R.ctrlReg1G, R.ctrlReg1GValue), (R.ctrlReg6XL, R.ctrlReg6XLValue)] {
            try bus.writeRegister(address: address, register: register, value: value)
        }
    }

    public func read() throws(I2CError) -> [MotionSample] {
        let g = try bus.readBlock(address: address, register: LSM9DS1Registers.statusReg, count: 7)
        let status = g[0]
        var samples: [MotionSample] = []
        if status & LSM9DS1Registers.accelReady != 0 {
            let a = try bus.readBlock(address: address, register: LSM9DS1Registers.outXLXL, count: 6)
            samples.append(.accelerometer(Int32(a.int16LE(0)), Int32(a.int16LE(2)), Int32(a.int16LE(4)),
                                          scale: Self.accelerometerScale))
        }
        if status & LSM9DS1Registers.gyroReady != 0 {
            samples.append(.gyroscope(Int32(g.int16LE(1)), Int32(g.int16LE(3)), Int32(g.int16LE(5)), scale: Self.gyroscopeScale))
        }
        if samples.isEmpty { counters.notReady += 1 }
        counters.samples += samples.count
        return samples
    }
}
