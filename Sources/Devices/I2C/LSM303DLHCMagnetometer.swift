import LocationCore

/// Register map of the ST LSM303DLHC magnetometer (datasheet, section 7.2 "Magnetic field
/// sensing register description").
enum LSM303DLHCMagRegisters {
    static let address: UInt16 = 0x1E            // "I2C operation": SAD 0011110b
    static let craReg: UInt8 = 0x00              // 7.2.1 CRA_REG_M: TEMP_EN (7), DO2-0 (4:2); default 0x10 (15 Hz)
    static let crbReg: UInt8 = 0x01              // 7.2.2 CRB_REG_M: GN2-0 (7:5)
    static let mrReg: UInt8 = 0x02               // 7.2.3 MR_REG_M: MD1-0: 00 continuous, 01 single, 1x sleep
    // OUT_X_H_M 0x03, OUT_X_L_M 0x04, OUT_Z_H_M 0x05, OUT_Z_L_M 0x06, OUT_Y_H_M 0x07, OUT_Y_L_M 0x08 (X, Z, Y),
    // SR_REG_M 0x09 (LOCK, DRDY), IRA/IRB/IRC_REG_M 0x0A-0x0C = 'H','4','3': as HMC5883LRegisters.
    /// 75 Hz output rate, temperature sensor off.
    static let craValue: UInt8 = 0x18
    /// GN = 001: ±1.3 gauss. Table 3 ("Mechanical characteristics", GN): 1100 LSB/gauss for X and Y, 980 LSB/gauss for Z.
    static let crbValue: UInt8 = 0x20
    static let countsPerGaussXY = 1100.0
    static let countsPerGaussZ = 980.0
    static let singleConversion: UInt8 = 0x01
    /// Not documented for the DLHC; the Linux st_magn driver identifies DLHC/DLM by 0x3C here (the older DLH
    /// reads 0). Correction to CHIPS.md: this is the value to expect, not a WHO_AM_I the datasheet promises.
    static let whoAmI: UInt8 = 0x3C
}

/// ST LSM303DLHC magnetometer at 0x1E (its accelerometer at 0x19 is `LSM303Accelerometer`).
///
/// The magnetometer has no documented WHO_AM_I and shares the HMC5883L's 'H','4','3' identification; it is told
/// apart by 0x3C at register 0x0F (HMC5883L: 0). Scales differ per axis (1100 LSB/G for X/Y, 980 for Z at ±1.3 G),
/// and `RawSample` has one scale, so the counts are scaled exactly onto a common grid: x·49, y·49, z·55 with
/// scale 100/53900 µT (53900 = lcm(1100, 980)), i.e. value = raw/1100 G for X/Y and raw/980 G for Z, no rounding.
/// The −4096 overflow code is the HMC5883L's; the DLHC datasheet does not document one, so it is treated the same.
public final class LSM303DLHCMagnetometer: MotionSensorDriver {
    public let address: UInt16
    public var chip: I2CChip { .lsm303dlhcMagnetometer }
    public var chipName: String { "LSM303DLHC magnetometer" }
    public var roles: [SensorRole] { [.magnetometer] }
    public var sampleRateHz: Double { 50 }
    public var counters: DriverCounters { core.counters }
    private var core: H43SingleShot
    /// µT per (scaled) count.
    public static let scale = Units.microteslaPerGauss / 53900
    static let xyFactor: Int32 = 49   // 53900 / 1100
    static let zFactor: Int32 = 55    // 53900 / 980

    public init(bus: any I2CBus, address: UInt16 = 0x1E) {
        self.address = address
        core = H43SingleShot(bus: bus, address: address, initSequence: [
            (LSM303DLHCMagRegisters.craReg, LSM303DLHCMagRegisters.craValue),
            (LSM303DLHCMagRegisters.crbReg, LSM303DLHCMagRegisters.crbValue),
            (LSM303DLHCMagRegisters.mrReg, LSM303DLHCMagRegisters.singleConversion),
        ])
    }

    public static func probe(bus: any I2CBus, address: UInt16) -> Bool {
        H43SingleShot.hasH43(bus, address) && bus.peek(address, 0x0F) == LSM303DLHCMagRegisters.whoAmI
    }

    public func configure() throws(I2CError) { try core.configure() }

    public func read() throws(I2CError) -> [MotionSample] {
        guard let v = try core.read() else { return [] }
        core.counters.samples += 1
        return [.magnetometer(Int32(v.x) * Self.xyFactor, Int32(v.y) * Self.xyFactor, Int32(v.z) * Self.zFactor,
                              scale: Self.scale)]
    }
}
