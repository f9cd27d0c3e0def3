import Devices
import LocationCore
import TestSupport
import Testing

/// BMM150 trim parsing and Bosch's compensation.
///
/// Reference values: the Linux kernel's `bmc150_magn_compensate_x/_y/_z` (Bosch's BMM050 fixed-point formulas)
/// copied verbatim into a C file, compiled with gcc and run on these inputs; the float formulas of Bosch's
/// BMM150_SensorAPI agree to < 0.1 µT (in brackets). Inputs:
///
/// "real" trims (read from a BMX055, published with robotboard2-fw's imu_m_compensation.c): x1 0, y1 0, z4 0,
/// x2 28, y2 28, z2 736, z1 22792, xyz1 6806, z3 0, xy2 −3, xy1 29; raw x 160, y −95, z −560, rhall 6620
///   → 942, −560, −3435 (1/16 µT) = 58.875, −35.0, −214.6875 µT  [float 58.936, −34.994, −214.748]
/// "all" trims, every term non-zero: x1 3, y1 −4, z4 −120, x2 25, y2 30, z2 700, z1 23000, xyz1 6800, z3 −50,
/// xy2 −4, xy1 27; raw x −130, y 200, z 700, rhall 7100
///   → −725, 1150, 4727 (1/16 µT) = −45.3125, 71.875, 295.4375 µT  [float −45.262, 71.886, 295.520]
@Suite("BMM150", .ownThreads)
struct I2CBMM150Tests {
    /// 0x5D…0x71.
    static let realTrimBytes: [UInt8] = [
        0x00, 0x00,             // 0x5D x1, 0x5E y1
        0x00, 0x00, 0x00,       // 0x5F-0x61 reserved
        0x00, 0x00,             // 0x62/63 z4
        28, 28,                 // 0x64 x2, 0x65 y2
        0x00, 0x00,             // 0x66/67 reserved
        0xE0, 0x02,             // 0x68/69 z2 = 736
        0x08, 0x59,             // 0x6A/6B z1 = 22792
        0x96, 0x1A,             // 0x6C/6D xyz1 = 6806
        0x00, 0x00,             // 0x6E/6F z3
        0xFD,                   // 0x70 xy2 = −3
        0x1D,                   // 0x71 xy1 = 29
    ]
    static let allTrimBytes: [UInt8] = [
        0x03, 0xFC, 0, 0, 0, 0x88, 0xFF, 25, 30, 0, 0, 0xBC, 0x02, 0xD8, 0x59, 0x90, 0x1A, 0xCE, 0xFF, 0xFC, 0x1B,
    ]

    @Test func trimRegistersParse() {
        #expect(BMM150.Trim(registers: Self.realTrimBytes)
                == BMM150.Trim(x1: 0, y1: 0, z4: 0, x2: 28, y2: 28, z2: 736, z1: 22792, xyz1: 6806, z3: 0, xy2: -3, xy1: 29))
        #expect(BMM150.Trim(registers: Self.allTrimBytes)
                == BMM150.Trim(x1: 3, y1: -4, z4: -120, x2: 25, y2: 30, z2: 700, z1: 23000, xyz1: 6800, z3: -50, xy2: -4, xy1: 27))
    }

    @Test func compensationMatchesTheReferenceImplementation() throws {
        let real = BMM150.Trim(registers: Self.realTrimBytes)
        let r = try #require(real.compensate(x: 160, y: -95, z: -560, rhall: 6620))
        #expect(r.x == 942 && r.y == -560 && r.z == -3435)
        let all = BMM150.Trim(registers: Self.allTrimBytes)
        let a = try #require(all.compensate(x: -130, y: 200, z: 700, rhall: 7100))
        #expect(a.x == -725 && a.y == 1150 && a.z == 4727)
    }

    @Test func compensationRejectsOverflowAndDegenerateInput() {
        let real = BMM150.Trim(registers: Self.realTrimBytes)
        #expect(real.compensate(x: -4096, y: 0, z: 0, rhall: 6620) == nil)
        #expect(real.compensate(x: 0, y: 0, z: -16384, rhall: 6620) == nil)
        #expect(real.compensate(x: 1, y: 1, z: 1, rhall: 0) == nil, "Bosch: Z needs a hall resistance")
        let zero = BMM150.Trim(registers: Array(repeating: 0, count: 21))
        #expect(zero.compensate(x: 1, y: 1, z: 1, rhall: 0) == nil, "no division by zero")
    }

    @Test func driverInitReadsTrimsAndCompensates() throws {
        let sim = I2CTest.bus([(0x10, SimulatedChips.bmm150([160, -95, -560, 6620], trim: Self.realTrimBytes))])
        let driver = BMM150(bus: sim, address: 0x10)
        try driver.configure()
        // Power bit, (3 ms), regular preset REP_XY 4 / REP_Z 14, normal mode 20 Hz.
        #expect(sim.writes(to: 0x10) == [[0x4B, 0x01], [0x51, 0x04], [0x52, 0x0E], [0x4C, 0x28]])
        #expect(sim.waits == [3_000_000])
        #expect(driver.trim == BMM150.Trim(registers: Self.realTrimBytes))
        #expect(try driver.read() == [])
        sim.tick()
        let samples = try driver.read()
        // 16 LSB/µT after compensation.
        #expect(samples == [.magnetometerRaw(RawSample(x: 942, y: -560, z: -3435, scale: 0.0625))])
        I2CTest.expectVector(samples, 58.875, -35, -214.6875)
        #expect(try driver.read() == [], "DRDY cleared by the burst")
        sim.update(0x10) { $0.sample = [-4096, 0, 0, 6620] }
        sim.tick()
        #expect(try driver.read() == [])
        #expect(driver.counters.overflows == 1)
    }

    @Test func probeWakesASuspendedBMM150ButLeavesOtherDevicesAlone() throws {
        let sim = I2CTest.bus([(0x10, SimulatedChips.bmm150()), (0x11, I2CSimulator.Device(name: "other", registers: [0x4B: 0x05]))])
        #expect(BMM150.probe(bus: sim, address: 0x10))
        #expect(sim.writes(to: 0x10) == [[0x4B, 0x01]])
        #expect(!BMM150.probe(bus: sim, address: 0x11))
        #expect(sim.writes(to: 0x11) == [])
    }
}
