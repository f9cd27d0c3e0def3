import Devices
import LocationCore
import TestSupport
import Testing

/// `I2CAdapterBus` on adapters without `I2C_FUNC_I2C`: the transfer is chosen from the functionality mask, every
/// transaction the simulator sees is one the mask allows (the simulator rejects the others with EOPNOTSUPP), and
/// every driver reads the same samples as over plain I2C.
@Suite("I2C SMBus fallback", .ownThreads)
struct I2CSMBusFallbackTests {
    typealias F = I2CSimulator.Functionality

    @Test func transferChosenFromFunctionality() {
        #expect(I2CTransfer.best(for: I2CFunctionality(rawValue: F.all)) == .combined)
        #expect(I2CTransfer.best(for: I2CFunctionality(rawValue: F.i2cStub)) == .smbusBlock)
        #expect(I2CTransfer.best(for: I2CFunctionality(rawValue: F.smbusByteData)) == .smbusByte)
        #expect(I2CTransfer.best(for: I2CFunctionality(rawValue: 0x0001_0000)) == nil)  // SMBus quick only
        let sim = I2CSimulator()
        sim.functionalityMask = 0x0001_0000
        #expect(throws: I2CError.self) { _ = try I2CAdapterBus(adapter: sim) }
    }

    /// The chips' models, each with a distinctive sample, at their usual address (AK8963/AK09916 behind the IMUs).
    static func devices(_ chip: I2CChip) -> [(UInt16, I2CSimulator.Device)] {
        switch chip {
        case .hmc5883l: [(0x1E, SimulatedChips.hmc5883l([545, -218, 1090]))]
        case .qmc5883l: [(0x0D, SimulatedChips.qmc5883l([1200, -3000, 600]))]
        case .lis3mdl, .lsm9ds1Magnetometer: [(0x1C, SimulatedChips.lis3mdl([6842, -3421, 1000]))]
        case .lis2mdl, .lsm303agrMagnetometer: [(0x1E, SimulatedChips.lis2mdl([200, -100, 300]))]
        case .lsm303agrAccelerometer, .lsm303dlhcAccelerometer: [(0x19, SimulatedChips.lsm303Accelerometer([100, -200, 1000]))]
        case .lsm303dlhcMagnetometer: [(0x1E, SimulatedChips.lsm303dlhcMagnetometer([1100, -550, 980]))]
        case .lsm9ds1AccelGyro: [(0x6B, SimulatedChips.lsm9ds1AccelGyro([100, 200, 16384, -5, 6, 7]))]
        case .mpu9250: [(0x68, SimulatedChips.mpu9250([100, -200, 16384, 10, -20, 30])), (0x0C, SimulatedChips.ak8963([150, -75, 300]))]
        case .icm20948: [(0x68, SimulatedChips.icm20948([100, -200, 16384, 10, -20, 30])), (0x0C, SimulatedChips.ak09916([150, -75, 300]))]
        case .bmm150: [(0x10, SimulatedChips.bmm150([160, -95, -560, 6620], trim: I2CBMM150Tests.realTrimBytes))]
        case .mmc5983ma: [(0x30, SimulatedChips.mmc5983ma([1000, -2000, 3000], offset: [40, -40, 10]))]
        }
    }

    static func address(_ chip: I2CChip) -> UInt16 { devices(chip)[0].0 }

    /// configure, then five measurement periods; the samples read.
    static func run(_ chip: I2CChip, mask: UInt32?) throws -> (samples: [MotionSample], sim: I2CSimulator, transfer: I2CTransfer?) {
        let sim = I2CTest.bus(devices(chip))
        var transfer: I2CTransfer?
        let bus: any I2CBus
        if let mask {
            sim.functionalityMask = mask
            let adapterBus = try I2CAdapterBus(adapter: sim)
            transfer = adapterBus.transfer
            bus = adapterBus
        } else {
            bus = sim
        }
        let driver = chip.makeDriver(bus: bus, address: address(chip))
        try driver.configure()
        var samples: [MotionSample] = []
        for _ in 0..<5 {
            sim.tick()
            samples += try driver.read()
        }
        return (samples, sim, transfer)
    }

    @Test(arguments: I2CChip.allCases, [(F.i2cStub, I2CTransfer.smbusBlock), (F.smbusByteData, .smbusByte), (F.all, .combined)])
    func everyDriverWorksOverEveryTransfer(chip: I2CChip, adapter: (mask: UInt32, transfer: I2CTransfer)) throws {
        let reference = try Self.run(chip, mask: nil)
        #expect(!reference.samples.isEmpty, "\(chip): the model produced no samples")
        let fallback = try Self.run(chip, mask: adapter.mask)
        #expect(fallback.transfer == adapter.transfer)
        #expect(fallback.samples == reference.samples, "\(chip) over \(adapter.transfer)")
        let carriers = Set(fallback.sim.log.map(\.carrier))
        let expected: Set<I2CSimulator.Carrier> = switch adapter.transfer {
        case .combined: [.i2c]
        case .smbusBlock: [.smbusBlock, .smbusByte]   // single-byte writes go as byte data
        case .smbusByte: [.smbusByte]
        }
        #expect(carriers.isSubset(of: expected), "\(chip): \(carriers)")
        #expect(fallback.sim.faults.isEmpty, "\(chip): \(fallback.sim.faults)")
        if adapter.transfer == .smbusBlock {
            // A block read stays one transaction: as many reads as over plain I2C.
            #expect(fallback.sim.log.filter { $0.kind == .read }.count == reference.sim.log.filter { $0.kind == .read }.count)
        }
    }

    /// Blocks longer than 32 bytes are split into SMBus-sized transactions at consecutive registers.
    @Test func longBlocksAreSplit() throws {
        let sim = I2CSimulator()
        var registers: [Int: UInt8] = [:]
        for r in 0..<80 { registers[r] = UInt8(r) }
        sim.attach(I2CSimulator.Device(name: "eeprom", registers: registers), at: 0x50)
        sim.functionalityMask = F.i2cStub
        let bus = try I2CAdapterBus(adapter: sim)
        #expect(try bus.readBlock(address: 0x50, register: 4, count: 70) == (4..<74).map(UInt8.init))
        #expect(sim.log.map(\.bytes.count) == [32, 32, 6])
        #expect(sim.log.map(\.register) == [4, 36, 68])
        try bus.writeRegisters(address: 0x50, register: 0, bytes: Array(repeating: 0xAA, count: 40))
        #expect(sim.log.suffix(2).map(\.carrier) == [.smbusBlock, .smbusBlock])
        #expect(sim.register(0x50, 39) == 0xAA && sim.register(0x50, 40) == 40)
    }

    /// An adapter that claims I2C_FUNC_I2C but answers I2C_RDWR with EOPNOTSUPP: the bus moves to SMBus for good;
    /// a bus with a fixed transfer reports the error instead.
    @Test func eopnotsuppDegradesOnceWhenAutomatic() throws {
        final class Liar: I2CAdapter, @unchecked Sendable {
            let sim: I2CSimulator
            init(_ sim: I2CSimulator) { self.sim = sim }
            var name: String { "liar" }
            var functionality: I2CFunctionality { I2CFunctionality(rawValue: F.all) }
            func combinedRead(address: UInt16, register: UInt8, count: Int) throws(I2CError) -> [UInt8] { throw .unsupported(address: address) }
            func combinedWrite(address: UInt16, register: UInt8, bytes: [UInt8]) throws(I2CError) { throw .unsupported(address: address) }
            func smbusBlockRead(address: UInt16, register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
                try sim.smbusBlockRead(address: address, register: register, count: count)
            }
            func smbusBlockWrite(address: UInt16, register: UInt8, bytes: [UInt8]) throws(I2CError) {
                try sim.smbusBlockWrite(address: address, register: register, bytes: bytes)
            }
            func smbusByteRead(address: UInt16, register: UInt8) throws(I2CError) -> UInt8 { try sim.smbusByteRead(address: address, register: register) }
            func smbusByteWrite(address: UInt16, register: UInt8, value: UInt8) throws(I2CError) {
                try sim.smbusByteWrite(address: address, register: register, value: value)
            }
            func wait(nanoseconds: Int64) {}
        }
        let sim = I2CTest.bus([(0x1E, SimulatedChips.hmc5883l([545, -218, 1090]))])
        let bus = try I2CAdapterBus(adapter: Liar(sim))
        #expect(bus.transfer == .combined)
        #expect(try bus.readBlock(address: 0x1E, register: 10, count: 3) == [0x48, 0x34, 0x33])
        #expect(bus.transfer == .smbusBlock)
        let fixed = try I2CAdapterBus(adapter: Liar(sim), transfer: .combined)
        #expect(throws: I2CError.unsupported(address: 0x1E)) { _ = try fixed.readBlock(address: 0x1E, register: 10, count: 3) }
    }
}
