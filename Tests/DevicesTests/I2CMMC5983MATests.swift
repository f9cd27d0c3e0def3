import Devices
import LocationCore
import TestSupport
import Testing

@Suite("MMC5983MA", .ownThreads)
struct I2CMMC5983MATests {
    /// Field 0.5 G, −0.25 G, 1 G in 18-bit counts (16384/G) with a bridge offset the SET/RESET pair must remove.
    static let field: [Int32] = [8192, -4096, 16384]
    static let offset = [5000, -3000, 700]

    @Test func setResetRemovesTheOffset18Bit() throws {
        let sim = I2CTest.bus([(0x30, SimulatedChips.mmc5983ma(Self.field, offset: Self.offset))])
        let driver = MMC5983MA(bus: sim, address: 0x30)
        try driver.configure()
        // Control 1 SW_RST, (10 ms), control 1 BW 100 Hz, control 2 continuous/periodic-set off.
        #expect(sim.writes(to: 0x30) == [[0x0A, 0x80], [0x0A, 0x00], [0x0B, 0x00]])
        #expect(sim.waits == [10_000_000])
        sim.clearLog()

        #expect(try driver.read() == [])              // SET, measure
        #expect(sim.writes(to: 0x30) == [[0x09, 0x08], [0x09, 0x01]])
        #expect(try driver.read() == [], "measurement not done yet")
        sim.tick()
        #expect(try driver.read() == [])              // read the SET measurement; RESET, measure
        #expect(sim.writes(to: 0x30).suffix(2) == [[0x09, 0x10], [0x09, 0x01]])
        sim.tick()
        let samples = try driver.read()               // read the RESET measurement: sample
        // (set − reset) = 2H in counts, scale 100 µT / 16384 / 2.
        #expect(samples == [.magnetometerRaw(RawSample(x: 16384, y: -8192, z: 32768, scale: 100.0 / 16384 / 2))])
        I2CTest.expectVector(samples, 50, -25, 100)
        #expect(driver.offset.x == 5000 && driver.offset.y == -3000 && driver.offset.z == 700)
        // The next SET measurement was started right away.
        #expect(sim.writes(to: 0x30).suffix(2) == [[0x09, 0x08], [0x09, 0x01]])
    }

    @Test func setResetRemovesTheOffset16Bit() throws {
        let sim = I2CTest.bus([(0x30, SimulatedChips.mmc5983ma(Self.field, offset: Self.offset))])
        let driver = MMC5983MA(bus: sim, address: 0x30, resolution: .bits16)
        try driver.configure()
        _ = try driver.read(); sim.tick(); _ = try driver.read(); sim.tick()
        let samples = try driver.read()
        // 16-bit: 4096 counts/G, zero at 32768; set − reset = 2H = 4096 counts for 0.5 G.
        #expect(samples == [.magnetometerRaw(RawSample(x: 4096, y: -2048, z: 8192, scale: 100.0 / 4096 / 2))])
        I2CTest.expectVector(samples, 50, -25, 100)
        #expect(driver.offset.x == 1250, "offset in 16-bit counts: 5000 / 4")
    }

    @Test func saturatedBridgeIsSkipped() throws {
        let sim = I2CTest.bus([(0x30, SimulatedChips.mmc5983ma([200_000, 0, 0]))])
        let driver = MMC5983MA(bus: sim, address: 0x30)
        try driver.configure()
        _ = try driver.read(); sim.tick(); _ = try driver.read(); sim.tick()
        #expect(try driver.read() == [])
        #expect(driver.counters.overflows == 1)
    }
}
