/// The chips Lodestar drives over I2C. `rawValue` is the name used in capture headers (`chip=`) and on the CLI.
public enum I2CChip: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case hmc5883l = "HMC5883L"
    case qmc5883l = "QMC5883L"
    case lis3mdl = "LIS3MDL"
    case lis2mdl = "LIS2MDL"
    case lsm303agrMagnetometer = "LSM303AGR-mag"
    case lsm303agrAccelerometer = "LSM303AGR-accel"
    case lsm303dlhcMagnetometer = "LSM303DLHC-mag"
    case lsm303dlhcAccelerometer = "LSM303DLHC-accel"
    case lsm9ds1AccelGyro = "LSM9DS1-accel-gyro"
    case lsm9ds1Magnetometer = "LSM9DS1-mag"
    case mpu9250 = "MPU-9250"
    case icm20948 = "ICM-20948"
    case bmm150 = "BMM150"
    case mmc5983ma = "MMC5983MA"

    public var description: String { rawValue }

    /// Looks a chip up by name, ignoring case and `-`/`_` (`lis3mdl`, `mpu9250`, `LSM303AGR_accel`).
    public init?(name: String) {
        func key(_ s: String) -> String { String(s.lowercased().filter { $0 != "-" && $0 != "_" }) }
        guard let chip = Self.allCases.first(where: { key($0.rawValue) == key(name) }) else { return nil }
        self = chip
    }

    public var roles: [SensorRole] {
        switch self {
        case .hmc5883l, .qmc5883l, .lis3mdl, .lis2mdl, .lsm303agrMagnetometer, .lsm303dlhcMagnetometer,
             .lsm9ds1Magnetometer, .bmm150, .mmc5983ma: [.magnetometer]
        case .lsm303agrAccelerometer, .lsm303dlhcAccelerometer: [.accelerometer]
        case .lsm9ds1AccelGyro: [.accelerometer, .gyroscope]
        case .mpu9250, .icm20948: [.accelerometer, .gyroscope, .magnetometer]
        }
    }

    /// The 7-bit addresses the chip can have.
    public var addresses: [UInt16] {
        switch self {
        case .hmc5883l, .lis2mdl, .lsm303agrMagnetometer, .lsm303dlhcMagnetometer: [0x1E]
        case .qmc5883l: [0x0D]
        case .lis3mdl, .lsm9ds1Magnetometer: LIS3MDLRegisters.addresses
        case .lsm303agrAccelerometer, .lsm303dlhcAccelerometer: [0x19]
        case .lsm9ds1AccelGyro: LSM9DS1Registers.addresses
        case .mpu9250, .icm20948: [0x68, 0x69]
        case .bmm150: BMM150Registers.addresses
        case .mmc5983ma: [0x30]
        }
    }

    /// The ID-register check of this chip's driver (variants share their family's check).
    public func probe(bus: any I2CBus, address: UInt16) -> Bool {
        switch self {
        case .hmc5883l: HMC5883L.probe(bus: bus, address: address)
        case .qmc5883l: QMC5883L.probe(bus: bus, address: address)
        case .lis3mdl, .lsm9ds1Magnetometer: LIS3MDL.probe(bus: bus, address: address)
        case .lis2mdl, .lsm303agrMagnetometer: LIS2MDL.probe(bus: bus, address: address)
        case .lsm303agrAccelerometer, .lsm303dlhcAccelerometer: LSM303Accelerometer.probe(bus: bus, address: address)
        case .lsm303dlhcMagnetometer: LSM303DLHCMagnetometer.probe(bus: bus, address: address)
        case .lsm9ds1AccelGyro: LSM9DS1AccelGyro.probe(bus: bus, address: address)
        case .mpu9250: MPU9250.probe(bus: bus, address: address)
        case .icm20948: ICM20948.probe(bus: bus, address: address)
        case .bmm150: BMM150.probe(bus: bus, address: address)
        case .mmc5983ma: MMC5983MA.probe(bus: bus, address: address)
        }
    }

    /// A driver for this chip at `address` (not yet configured).
    public func makeDriver(bus: any I2CBus, address: UInt16) -> any MotionSensorDriver {
        switch self {
        case .hmc5883l: HMC5883L(bus: bus, address: address)
        case .qmc5883l: QMC5883L(bus: bus, address: address)
        case .lis3mdl: LIS3MDL(bus: bus, address: address, variant: .lis3mdl)
        case .lsm9ds1Magnetometer: LIS3MDL(bus: bus, address: address, variant: .lsm9ds1)
        case .lis2mdl: LIS2MDL(bus: bus, address: address, variant: .lis2mdl)
        case .lsm303agrMagnetometer: LIS2MDL(bus: bus, address: address, variant: .lsm303agr)
        case .lsm303agrAccelerometer: LSM303Accelerometer(bus: bus, address: address, variant: .lsm303agr)
        case .lsm303dlhcAccelerometer: LSM303Accelerometer(bus: bus, address: address, variant: .lsm303dlhc)
        case .lsm303dlhcMagnetometer: LSM303DLHCMagnetometer(bus: bus, address: address)
        case .lsm9ds1AccelGyro: LSM9DS1AccelGyro(bus: bus, address: address)
        case .mpu9250: MPU9250(bus: bus, address: address)
        case .icm20948: ICM20948(bus: bus, address: address)
        case .bmm150: BMM150(bus: bus, address: address)
        case .mmc5983ma: MMC5983MA(bus: bus, address: address)
        }
    }
}
