import Devices
import TestSupport
import Testing

@Suite("I2C probe", .ownThreads)
struct I2CProbeTests {
    @Test func findsSeveralChipsOnOneBus() {
        let sim = I2CTest.bus([
            (0x0D, SimulatedChips.qmc5883l()),
            (0x10, SimulatedChips.bmm150()),
            (0x19, SimulatedChips.lsm303Accelerometer()),
            (0x1E, SimulatedChips.lis2mdl()),
            (0x1C, SimulatedChips.lis3mdl()),
            (0x30, SimulatedChips.mmc5983ma()),
            (0x68, SimulatedChips.mpu9250()),
            (0x0C, SimulatedChips.ak8963()),
            (0x6B, SimulatedChips.lsm9ds1AccelGyro()),
        ])
        let found = probeBus(sim)
        #expect(found == [
            DetectedSensor(address: 0x0D, chip: .qmc5883l),
            DetectedSensor(address: 0x10, chip: .bmm150),
            DetectedSensor(address: 0x19, chip: .lsm303agrAccelerometer),     // next to an LSM303AGR magnetometer
            DetectedSensor(address: 0x1C, chip: .lsm9ds1Magnetometer),        // 0x3D next to an LSM9DS1 accel/gyro
            DetectedSensor(address: 0x1E, chip: .lsm303agrMagnetometer),      // 0x40 next to a 0x33 accelerometer
            DetectedSensor(address: 0x30, chip: .mmc5983ma),
            DetectedSensor(address: 0x68, chip: .mpu9250),
            DetectedSensor(address: 0x6B, chip: .lsm9ds1AccelGyro),
        ], "\(found)")
        #expect(found.first { $0.chip == .mpu9250 }?.roles == [.accelerometer, .gyroscope, .magnetometer])
    }

    typealias Case = (name: String, devices: [(UInt16, I2CSimulator.Device)], expected: [DetectedSensor])
    static let lookalikes: [Case] = [
        ("HMC5883L", [(0x1E, SimulatedChips.hmc5883l())], [DetectedSensor(address: 0x1E, chip: .hmc5883l)]),
        ("LSM303DLHC", [(0x1E, SimulatedChips.lsm303dlhcMagnetometer()), (0x19, SimulatedChips.lsm303Accelerometer())],
         [DetectedSensor(address: 0x19, chip: .lsm303dlhcAccelerometer), DetectedSensor(address: 0x1E, chip: .lsm303dlhcMagnetometer)]),
        ("LSM303DLHC magnetometer alone", [(0x1E, SimulatedChips.lsm303dlhcMagnetometer())],
         [DetectedSensor(address: 0x1E, chip: .lsm303dlhcMagnetometer)]),
        ("QMC5883L", [(0x0D, SimulatedChips.qmc5883l())], [DetectedSensor(address: 0x0D, chip: .qmc5883l)]),
    ]

    /// The three 'HMC-like' magnetometers, each alone on a bus, are each found as themselves.
    @Test(arguments: lookalikes)
    func hmcLookalikesAreNotMistaken(name: String, devices: [(UInt16, I2CSimulator.Device)], expected: [DetectedSensor]) {
        let found = probeBus(I2CTest.bus(devices))
        #expect(found == expected, "\(name): \(found)")
    }

    /// Every chip model alone at each of its addresses is found as exactly that chip (or its family member that
    /// the neighbour rules pick when alone).
    @Test(arguments: [
        (I2CChip.hmc5883l, UInt16(0x1E)), (.qmc5883l, 0x0D), (.lis3mdl, 0x1C), (.lis3mdl, 0x1E), (.lis2mdl, 0x1E),
        (.lsm303agrAccelerometer, 0x19), (.lsm303dlhcMagnetometer, 0x1E), (.lsm9ds1AccelGyro, 0x6A),
        (.lsm9ds1AccelGyro, 0x6B), (.mpu9250, 0x68), (.mpu9250, 0x69), (.icm20948, 0x68), (.icm20948, 0x69),
        (.bmm150, 0x10), (.bmm150, 0x13), (.mmc5983ma, 0x30),
    ])
    func eachChipAloneIsFoundAsItself(chip: I2CChip, address: UInt16) {
        let sim = I2CTest.bus([(address, Self.model(chip))])
        let found = probeBus(sim)
        #expect(found.map(\.chip) == [chip] && found.map(\.address) == [address], "\(found)")
        #expect(I2CProbe.identify(sim, address: address)?.chip == chip)
    }

    @Test func probeIsReadOnlyExceptForTheDocumentedCases() {
        let sim = I2CTest.bus([(0x1E, SimulatedChips.hmc5883l()), (0x0D, SimulatedChips.qmc5883l()),
                               (0x68, SimulatedChips.icm20948()), (0x6A, SimulatedChips.lsm9ds1AccelGyro()),
                               (0x12, I2CSimulator.Device(name: "unknown", registers: [0x40: 0x00, 0x4B: 0x00]))])
        _ = probeBus(sim)
        // Only the BMM150 wake-up attempt at an address whose 0x40 and 0x4B read 0 (undone when no BMM150 answers).
        #expect(sim.log.filter { $0.kind == .write }.map { [UInt8($0.address), $0.register] + $0.bytes }
                == [[0x12, 0x4B, 0x01], [0x12, 0x4B, 0x00]])
    }

    @Test func icm20948LeftInAnotherBankIsStillFound() throws {
        let sim = I2CTest.bus([(0x69, SimulatedChips.icm20948())])
        try sim.writeRegister(address: 0x69, register: 0x7F, value: 0x20)
        #expect(probeBus(sim) == [DetectedSensor(address: 0x69, chip: .icm20948)])
        #expect(sim.register(0x69, 0x7F) == 0x00)
    }

    @Test func sharedWhoAmIIsNoted() {
        let found = probeBus(I2CTest.bus([(0x19, SimulatedChips.lsm303Accelerometer())]))
        #expect(found.count == 1)
        #expect(found.first?.note?.contains("LIS3DH") == true)
        #expect(found.first?.description.hasPrefix("0x19  LSM303AGR-accel  accelerometer") == true)
    }

    @Test func emptyBusFindsNothing() {
        #expect(probeBus(I2CSimulator()) == [])
    }

    static func model(_ chip: I2CChip) -> I2CSimulator.Device {
        switch chip {
        case .hmc5883l: SimulatedChips.hmc5883l()
        case .qmc5883l: SimulatedChips.qmc5883l()
        case .lis3mdl, .lsm9ds1Magnetometer: SimulatedChips.lis3mdl()
        case .lis2mdl, .lsm303agrMagnetometer: SimulatedChips.lis2mdl()
        case .lsm303agrAccelerometer, .lsm303dlhcAccelerometer: SimulatedChips.lsm303Accelerometer()
        case .lsm303dlhcMagnetometer: SimulatedChips.lsm303dlhcMagnetometer()
        case .lsm9ds1AccelGyro: SimulatedChips.lsm9ds1AccelGyro()
        case .mpu9250: SimulatedChips.mpu9250()
        case .icm20948: SimulatedChips.icm20948()
        case .bmm150: SimulatedChips.bmm150()
        case .mmc5983ma: SimulatedChips.mmc5983ma()
        }
    }
}
