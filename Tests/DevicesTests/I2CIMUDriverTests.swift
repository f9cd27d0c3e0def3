import Devices
import LocationCore
import TestSupport
import Testing

/// Accelerometer/gyroscope drivers (and the magnetometers behind MPU-9250/ICM-20948 bypass) against the
/// simulated chips.
@Suite("I2C IMU drivers", .ownThreads)
struct I2CIMUDriverTests {
    // MARK: LSM303AGR / LSM303DLHC accelerometer

    @Test func lsm303AccelerometerInitAndConversion() throws {
        let sim = I2CTest.bus([(0x19, SimulatedChips.lsm303Accelerometer([16, -32, 1020]))])
        let driver = LSM303Accelerometer(bus: sim, address: 0x19, variant: .lsm303agr)
        try driver.configure()
        // CTRL_REG4_A BDU ±2 g HR, then CTRL_REG1_A 100 Hz XYZ.
        #expect(sim.writes(to: 0x19) == [[0x23, 0x88], [0x20, 0x57]])
        #expect(try driver.read() == [])
        sim.tick()
        let samples = try driver.read()
        // 12-bit counts (16-bit left-justified >> 4); 0.98 mg/digit: 1020 → 0.9996 g = 9.80272734 m/s².
        #expect(samples == [.accelerometerRaw(RawSample(x: 16, y: -32, z: 1020, scale: 0.98e-3 * 9.80665))])
        I2CTest.expectVector(samples, 0.15376827, -0.30753654, 9.80272734, tolerance: 1e-8)
        #expect(sim.log.last?.register == 0xA7)

        let dlhc = LSM303Accelerometer(bus: sim, address: 0x19, variant: .lsm303dlhc)
        sim.update(0x19) { $0.sample = [0, 0, 1000] }
        sim.tick()
        I2CTest.expectVector(try dlhc.read(), 0, 0, 9.80665)   // 1 mg/LSB
    }

    // MARK: LSM9DS1 accelerometer + gyroscope

    @Test func lsm9ds1AccelGyroInitAndConversion() throws {
        let sim = I2CTest.bus([(0x6B, SimulatedChips.lsm9ds1AccelGyro([0, 0, 16393, 1000, -1000, 0]))])
        let driver = LSM9DS1AccelGyro(bus: sim, address: 0x6B)
        try driver.configure()
        // CTRL_REG8 BDU + IF_ADD_INC, CTRL_REG1_G 119 Hz 245 dps, CTRL_REG6_XL 119 Hz ±2 g.
        #expect(sim.writes(to: 0x6B) == [[0x22, 0x44], [0x10, 0x60], [0x20, 0x60]])
        #expect(try driver.read() == [])
        sim.tick()
        let samples = try driver.read()
        // 0.061 mg/LSB: 16393 → 0.999973 g; 8.75 mdps/LSB: 1000 → 8.75 °/s = 0.1527163 rad/s.
        #expect(samples == [.accelerometerRaw(RawSample(x: 0, y: 0, z: 16393, scale: 0.00059820565)),
                            .gyroscopeRaw(RawSample(x: 1000, y: -1000, z: 0, scale: 8.75e-3 * .pi / 180))])
        I2CTest.expectVector(samples.accelerometer, 0, 0, 9.80638522045, tolerance: 1e-9)
        I2CTest.expectVector(samples.gyroscope, 0.15271630954950383, -0.15271630954950383, 0, tolerance: 1e-12)
    }

    // MARK: MPU-9250 + AK8963

    static let mpuInit: [[UInt8]] = [
        [0x68, 0x6B, 0x80],              // PWR_MGMT_1 H_RESET
        [0x68, 0x6B, 0x01],              // PWR_MGMT_1 CLKSEL auto
        [0x68, 0x6C, 0x00],              // PWR_MGMT_2 all axes on
        [0x68, 0x1A, 0x03],              // CONFIG DLPF 41 Hz
        [0x68, 0x19, 0x09],              // SMPLRT_DIV 100 Hz
        [0x68, 0x1B, 0x00],              // GYRO_CONFIG ±250 °/s
        [0x68, 0x1C, 0x00],              // ACCEL_CONFIG ±2 g
        [0x68, 0x1D, 0x03],              // ACCEL_CONFIG2 41 Hz
        [0x68, 0x6A, 0x00],              // USER_CTRL I2C master off
        [0x68, 0x37, 0x02],              // INT_PIN_CFG BYPASS_EN
        [0x68, 0x38, 0x01],              // INT_ENABLE RAW_RDY_EN
        [0x0C, 0x0A, 0x00],              // AK8963 CNTL1 power-down
        [0x0C, 0x0A, 0x0F],              //   fuse ROM access (ASA read here)
        [0x0C, 0x0A, 0x00],              //   power-down
        [0x0C, 0x0A, 0x16],              //   16-bit, continuous mode 2 (100 Hz)
    ]

    @Test func mpu9250InitTraceFuseROMAndConversion() throws {
        let sim = I2CTest.bus([(0x68, SimulatedChips.mpu9250([0, 0, 16384, 131, -262, 0])),
                               (0x0C, SimulatedChips.ak8963([1000, -400, 300], asa: [0xB0, 0x80, 0x40]))])
        let driver = MPU9250(bus: sim, address: 0x68)
        try driver.configure()
        #expect(sim.writes(to: [0x68, 0x0C]) == Self.mpuInit)
        #expect(sim.waits == [100_000_000, 100_000, 100_000])
        #expect(driver.sensitivityAdjustment == [0xB0, 0x80, 0x40])
        #expect(try driver.read() == [])
        sim.tick()
        let samples = try driver.read()
        #expect(samples.count == 3)
        // Accelerometer 16384 LSB/g, gyroscope 131 LSB/(°/s).
        #expect(samples.accelerometer == .accelerometerRaw(RawSample(x: 0, y: 0, z: 16384, scale: 9.80665 / 16384)))
        I2CTest.expectVector(samples.accelerometer, 0, 0, 9.80665)
        I2CTest.expectVector(samples.gyroscope, 0.017453292519943295, -0.03490658503988659, 0, tolerance: 1e-15)
        // ASA 0xB0 → (176 − 128) × 0.5 / 128 + 1 = 1.1875; 0x80 → 1; 0x40 → 0.75. Counts × (ASA + 128), scale 0.15/256.
        #expect(samples.magnetometer == .magnetometerRaw(RawSample(x: 304_000, y: -102_400, z: 57_600, scale: 0.15 / 256)))
        I2CTest.expectVector(samples.magnetometer, 178.125, -60, 33.75)   // 1000 × 0.15 × 1.1875 …
    }

    @Test func mpu9250MagnetometerOverflowAndDataReady() throws {
        let sim = I2CTest.bus([(0x68, SimulatedChips.mpu9250()), (0x0C, SimulatedChips.ak8963([10, 20, 30]))])
        let driver = MPU9250(bus: sim, address: 0x68)
        try driver.configure()
        sim.update(0x0C) { $0.state["hofl"] = 1 }
        sim.tick()
        let samples = try driver.read()
        #expect(samples.magnetometer == nil, "HOFL: magnetometer sample skipped")
        #expect(samples.accelerometer != nil && samples.gyroscope != nil)
        #expect(driver.counters.overflows == 1)
        #expect(try driver.read() == [], "INT_STATUS and ST1 cleared by the reads")
        sim.update(0x0C) { $0.state["hofl"] = 0 }
        sim.tick(2)
        #expect(try driver.read().magnetometer != nil)
        #expect(driver.counters.overruns == 1, "AK8963 DOR after a missed sample")
    }

    @Test func mpu9250WithoutItsMagnetometerFailsToConfigure() {
        let sim = I2CTest.bus([(0x68, SimulatedChips.mpu9250())])
        #expect(throws: I2CError.nack(address: 0x0C)) { try MPU9250(bus: sim, address: 0x68).configure() }
    }

    // MARK: ICM-20948 + AK09916

    static let icmInit: [[UInt8]] = [
        [0x68, 0x7F, 0x00],              // REG_BANK_SEL bank 0
        [0x68, 0x06, 0x80],              // PWR_MGMT_1 DEVICE_RESET
        [0x68, 0x06, 0x01],              // PWR_MGMT_1 wake, auto clock
        [0x68, 0x07, 0x00],              // PWR_MGMT_2 all on
        [0x68, 0x7F, 0x20],              // bank 2
        [0x68, 0x00, 0x0A],              // GYRO_SMPLRT_DIV 10 → 102.3 Hz
        [0x68, 0x01, 0x19],              // GYRO_CONFIG_1 DLPF 3, ±250 dps, FCHOICE
        [0x68, 0x10, 0x00],              // ACCEL_SMPLRT_DIV_1
        [0x68, 0x11, 0x0A],              // ACCEL_SMPLRT_DIV_2 10
        [0x68, 0x14, 0x19],              // ACCEL_CONFIG DLPF 3, ±2 g, FCHOICE
        [0x68, 0x7F, 0x00],              // bank 0
        [0x68, 0x03, 0x00],              // USER_CTRL I2C master off
        [0x68, 0x0F, 0x02],              // INT_PIN_CFG BYPASS_EN
        [0x68, 0x11, 0x01],              // INT_ENABLE_1 RAW_DATA_0_RDY_EN
        [0x0C, 0x31, 0x00],              // AK09916 CNTL2 power-down
        [0x0C, 0x31, 0x08],              //   continuous 100 Hz
    ]

    @Test func icm20948InitTraceBanksAndConversion() throws {
        let sim = I2CTest.bus([(0x68, SimulatedChips.icm20948([0, 16384, 0, 0, 0, 131])),
                               (0x0C, SimulatedChips.ak09916([333, -100, 0]))])
        let driver = ICM20948(bus: sim, address: 0x68)
        try driver.configure()
        #expect(sim.writes(to: [0x68, 0x0C]) == Self.icmInit)
        // The bank-2 writes landed in bank 2, and bank 0's registers with the same numbers are untouched.
        #expect(sim.register(0x68, 2 * 256 + 0x01) == 0x19 && sim.register(0x68, 2 * 256 + 0x14) == 0x19)
        #expect(sim.register(0x68, 0x01) == 0x00 && sim.register(0x68, 0x14) == 0x00)
        #expect(abs(driver.sampleRateHz - 102.27272727272727) < 1e-9)
        sim.tick()
        let samples = try driver.read()
        I2CTest.expectVector(samples.accelerometer, 0, 9.80665, 0)
        I2CTest.expectVector(samples.gyroscope, 0, 0, 0.017453292519943295, tolerance: 1e-15)
        // AK09916: 0.15 µT/LSB, no fuse-ROM adjustment.
        #expect(samples.magnetometer == .magnetometerRaw(RawSample(x: 333, y: -100, z: 0, scale: 0.15)))
        I2CTest.expectVector(samples.magnetometer, 49.95, -15, 0, tolerance: 1e-12)
        sim.update(0x0C) { $0.state["hofl"] = 1 }
        sim.tick()
        #expect(try driver.read().magnetometer == nil)
        #expect(driver.counters.overflows == 1)
    }
}
