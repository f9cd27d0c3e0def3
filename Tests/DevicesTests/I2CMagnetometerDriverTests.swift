import Devices
import LocationCore
import TestSupport
import Testing

/// Magnetometer drivers against the simulated chips: the init sequence as a literal register trace, conversion
/// of known counts to µT, data-ready and overflow handling.
@Suite("I2C magnetometer drivers", .ownThreads)
struct I2CMagnetometerDriverTests {
    // MARK: HMC5883L

    @Test func hmc5883lInitReadsXZYAndConverts() throws {
        let sim = I2CTest.bus([(0x1E, SimulatedChips.hmc5883l([545, -218, 1090]))])
        let driver = HMC5883L(bus: sim, address: 0x1E)
        try driver.configure()
        // CRA 8-average 15 Hz, CRB ±1.3 Ga, MODE single measurement.
        #expect(sim.writes(to: 0x1E) == [[0x00, 0x70], [0x01, 0x20], [0x02, 0x01]])
        #expect(try driver.read() == [], "RDY clear before the first measurement")
        sim.tick()
        #expect(try driver.read() == [], "the first measurement after a gain change is discarded")
        sim.tick()
        let samples = try driver.read()
        // 1090 LSB/G: 545 → 0.5 G = 50 µT; Y and Z come from 0x07 and 0x05 (X, Z, Y register order).
        #expect(samples == [.magnetometerRaw(RawSample(x: 545, y: -218, z: 1090, scale: 100.0 / 1090))])
        I2CTest.expectVector(samples, 50, -20, 100)
        // Every read that took data triggered the next single measurement.
        #expect(sim.writes(to: 0x1E).suffix(2) == [[0x02, 0x01], [0x02, 0x01]])
        #expect(driver.counters.notReady == 1 && driver.counters.samples == 1)
    }

    @Test func hmc5883lOverflowCodeIsSkippedAndCounted() throws {
        let sim = I2CTest.bus([(0x1E, SimulatedChips.hmc5883l([100, -4096, 100]))])
        let driver = HMC5883L(bus: sim, address: 0x1E)
        try driver.configure()
        sim.tick(); _ = try driver.read()
        sim.tick()
        #expect(try driver.read() == [])
        #expect(driver.counters.overflows == 1)
        sim.update(0x1E) { $0.sample = [100, 200, 300] }
        sim.tick()
        #expect(try driver.read() == [.magnetometerRaw(RawSample(x: 100, y: 200, z: 300, scale: 100.0 / 1090))])
    }

    // MARK: LSM303DLHC magnetometer

    @Test func lsm303dlhcScalesXYAndZDifferently() throws {
        let sim = I2CTest.bus([(0x1E, SimulatedChips.lsm303dlhcMagnetometer([1100, -550, 980]))])
        let driver = LSM303DLHCMagnetometer(bus: sim, address: 0x1E)
        try driver.configure()
        // CRA_REG_M 75 Hz, CRB_REG_M GN=001 (±1.3 G), MR_REG_M single conversion.
        #expect(sim.writes(to: 0x1E) == [[0x00, 0x18], [0x01, 0x20], [0x02, 0x01]])
        sim.tick(); _ = try driver.read()
        sim.tick()
        let samples = try driver.read()
        // X/Y 1100 LSB/G, Z 980 LSB/G, on the common grid 53900 counts/G: x·49, z·55.
        #expect(samples == [.magnetometerRaw(RawSample(x: 53900, y: -26950, z: 53900, scale: 100.0 / 53900))])
        I2CTest.expectVector(samples, 100, -50, 100)
    }

    // MARK: QMC5883L

    @Test func qmc5883lInitConversionDataReadyOverflowAndSkip() throws {
        let sim = I2CTest.bus([(0x0D, SimulatedChips.qmc5883l([1500, -600, 3000]))])
        let driver = QMC5883L(bus: sim, address: 0x0D)
        try driver.configure()
        // SET/RESET period 0x01; control 1: OSR 512, ±8 G, 50 Hz, continuous.
        #expect(sim.writes(to: 0x0D) == [[0x0B, 0x01], [0x09, 0x15]])
        #expect(try driver.read() == [])
        #expect(driver.counters.notReady == 1)
        sim.tick()
        let samples = try driver.read()
        // 3000 LSB/G at ±8 G: 1500 → 0.5 G = 50 µT.
        #expect(samples == [.magnetometerRaw(RawSample(x: 1500, y: -600, z: 3000, scale: 100.0 / 3000))])
        I2CTest.expectVector(samples, 50, -20, 100)
        #expect(try driver.read() == [], "DRDY cleared by reading the data")

        sim.tick(2)   // one sample skipped: DOR
        #expect(try driver.read().count == 1)
        #expect(driver.counters.overruns == 1)

        sim.update(0x0D) { $0.state["overflow"] = 1 }
        sim.tick()
        #expect(try driver.read() == [])
        #expect(driver.counters.overflows == 1)
    }

    // MARK: LIS3MDL / LSM9DS1 magnetometer

    @Test func lis3mdlInitBurstWithAutoIncrementBitAndConversion() throws {
        let sim = I2CTest.bus([(0x1E, SimulatedChips.lis3mdl([3421, -6842, 13684]))])
        let driver = LIS3MDL(bus: sim, address: 0x1E)
        try driver.configure()
        // CTRL_REG2 ±4 G, CTRL_REG1 UHP 80 Hz, CTRL_REG4 UHP Z, CTRL_REG5 BDU, CTRL_REG3 continuous (last).
        #expect(sim.writes(to: 0x1E) == [[0x21, 0x00], [0x20, 0x7C], [0x23, 0x0C], [0x24, 0x40], [0x22, 0x00]])
        #expect(try driver.read() == [])
        sim.tick()
        let samples = try driver.read()
        // 6842 LSB/G: 3421 → 50 µT. The burst starts at STATUS_REG with the auto-increment bit: 0x27 | 0x80.
        #expect(samples == [.magnetometerRaw(RawSample(x: 3421, y: -6842, z: 13684, scale: 100.0 / 6842))])
        I2CTest.expectVector(samples, 50, -100, 200)
        #expect(sim.log.last?.register == 0xA7)
    }

    @Test func lis3mdlOverrunKeepsTheSampleAndSaturationIsSkipped() throws {
        let sim = I2CTest.bus([(0x1C, SimulatedChips.lis3mdl([1, 2, 3]))])
        let driver = LIS3MDL(bus: sim, address: 0x1C)
        try driver.configure()
        sim.tick(2)
        #expect(try driver.read().count == 1)
        #expect(driver.counters.overruns == 1)
        sim.update(0x1C) { $0.sample = [32767, 0, -5] }
        sim.tick()
        #expect(try driver.read() == [])
        #expect(driver.counters.overflows == 1)
    }

    @Test func lsm9ds1MagnetometerUsesItsOwnSensitivity() throws {
        let sim = I2CTest.bus([(0x1E, SimulatedChips.lis3mdl([1000, -2000, 3000]))])
        let driver = LIS3MDL(bus: sim, address: 0x1E, variant: .lsm9ds1)
        try driver.configure()
        sim.tick()
        let samples = try driver.read()
        // LSM9DS1: 0.14 mG/LSB = 0.014 µT.
        #expect(samples == [.magnetometerRaw(RawSample(x: 1000, y: -2000, z: 3000, scale: 0.014))])
        I2CTest.expectVector(samples, 14, -28, 42)
        #expect(driver.chip == .lsm9ds1Magnetometer)
    }

    // MARK: LIS2MDL / LSM303AGR magnetometer

    @Test func lis2mdlInitPlainBurstAndConversion() throws {
        let sim = I2CTest.bus([(0x1E, SimulatedChips.lis2mdl([333, -200, 1000]))])
        let driver = LIS2MDL(bus: sim, address: 0x1E)
        try driver.configure()
        // CFG_REG_B offset cancellation, CFG_REG_C BDU, CFG_REG_A temp. compensation + 50 Hz + continuous.
        #expect(sim.writes(to: 0x1E) == [[0x61, 0x02], [0x62, 0x10], [0x60, 0x88]])
        #expect(try driver.read() == [])
        sim.tick()
        let samples = try driver.read()
        // 1.5 mG/LSB = 0.15 µT; the burst starts at 0x67 without bit 7.
        #expect(samples == [.magnetometerRaw(RawSample(x: 333, y: -200, z: 1000, scale: 0.15))])
        I2CTest.expectVector(samples, 49.95, -30, 150, tolerance: 1e-12)
        #expect(sim.log.last?.register == 0x67)
    }
}
