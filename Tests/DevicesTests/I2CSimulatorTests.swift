import Devices
import TestSupport
import Testing

/// The simulator's own behaviour: the driver tests are only as good as it is.
@Suite("I2C simulator", .ownThreads)
struct I2CSimulatorTests {
    @Test func autoIncrementFollowsTheDevicesRule() throws {
        var st = I2CSimulator.Device(name: "st", registers: [0x27: 0x11, 0x28: 0x22, 0x29: 0x33], autoIncrement: .whenRegisterMSBSet)
        st.readOnly = [0x27]
        var plain = I2CSimulator.Device(name: "plain", registers: [0x27: 0x11, 0x28: 0x22, 0x29: 0x33])
        plain.readOnly = []
        let sim = I2CTest.bus([(0x1E, st), (0x1C, plain)])
        // ST: without bit 7 every byte comes from the same register; with it, consecutive registers.
        #expect(try sim.readRegisters(address: 0x1E, register: 0x27, count: 3) == [0x11, 0x11, 0x11])
        #expect(try sim.readRegisters(address: 0x1E, register: 0xA7, count: 3) == [0x11, 0x22, 0x33])
        #expect(try sim.readRegisters(address: 0x1C, register: 0x27, count: 3) == [0x11, 0x22, 0x33])
        // Read-only registers ignore writes; others take them (one burst, auto-incremented).
        try sim.writeRegisters(address: 0x1E, register: 0xA7, bytes: [0x99, 0x98])
        #expect(sim.register(0x1E, 0x27) == 0x11)
        #expect(sim.register(0x1E, 0x28) == 0x98)
    }

    @Test func writeOnlyRegistersReadZero() throws {
        var d = I2CSimulator.Device(name: "wo")
        d.writeOnly = [0x09]
        let sim = I2CTest.bus([(0x30, d)])
        try sim.writeRegister(address: 0x30, register: 0x09, value: 0x5A)
        #expect(sim.register(0x30, 0x09) == 0x5A)
        #expect(try sim.readRegister(address: 0x30, register: 0x09) == 0)
    }

    @Test func faultInjectionEIOForNTransactionsThenNormal() throws {
        let sim = I2CTest.bus([(0x1E, SimulatedChips.lis3mdl())])
        sim.failNext(2)
        #expect(throws: I2CError.io(address: 0x1E)) { try sim.readRegister(address: 0x1E, register: 0x0F) }
        #expect(throws: I2CError.io(address: 0x1E)) { try sim.writeRegister(address: 0x1E, register: 0x20, value: 0) }
        #expect(try sim.readRegister(address: 0x1E, register: 0x0F) == 0x3D)
        #expect(sim.faults.count == 2)
    }

    @Test func disconnectedDeviceNacksThenReturnsPowerCycled() throws {
        let sim = I2CTest.bus([(0x1E, SimulatedChips.lis3mdl())])
        try sim.writeRegister(address: 0x1E, register: 0x22, value: 0x00)   // continuous
        sim.disconnect(0x1E, forTicks: 3)
        #expect(throws: I2CError.nack(address: 0x1E)) { try sim.readRegister(address: 0x1E, register: 0x0F) }
        #expect(throws: I2CError.nack(address: 0x2A)) { try sim.readRegister(address: 0x2A, register: 0x00) }
        sim.tick(2)
        #expect(throws: I2CError.nack(address: 0x1E)) { try sim.readRegister(address: 0x1E, register: 0x0F) }
        sim.tick()
        #expect(try sim.readRegister(address: 0x1E, register: 0x0F) == 0x3D)
        #expect(sim.register(0x1E, 0x22) == 0x03, "registers back at their power-on values")
    }

    @Test func stuckDataReadyNeverSets() throws {
        let sim = I2CTest.bus([(0x1E, SimulatedChips.lis3mdl([1, 2, 3]))])
        try sim.writeRegister(address: 0x1E, register: 0x22, value: 0x00)
        sim.setDataReadyStuck(0x1E, true)
        sim.tick(3)
        #expect(try sim.readRegister(address: 0x1E, register: 0x27) & 0x08 == 0)
        sim.setDataReadyStuck(0x1E, false)
        sim.tick()
        #expect(try sim.readRegister(address: 0x1E, register: 0x27) & 0x08 != 0)
    }

    @Test func banksAndGatedDevices() throws {
        let sim = I2CTest.bus([(0x68, SimulatedChips.icm20948()), (0x0C, SimulatedChips.ak09916())])
        try sim.writeRegister(address: 0x68, register: 0x7F, value: 0x20)
        try sim.writeRegister(address: 0x68, register: 0x01, value: 0x19)
        #expect(sim.register(0x68, 2 * 256 + 0x01) == 0x19)
        #expect(sim.register(0x68, 0x01) == 0x00)
        // The AK09916 appears only with BYPASS_EN in bank 0.
        #expect(throws: I2CError.nack(address: 0x0C)) { try sim.readRegister(address: 0x0C, register: 0x01) }
        try sim.writeRegister(address: 0x68, register: 0x7F, value: 0x00)
        try sim.writeRegister(address: 0x68, register: 0x0F, value: 0x02)
        #expect(try sim.readRegister(address: 0x0C, register: 0x01) == 0x09)
    }

    @Test func autoTickCountsReads() throws {
        let sim = I2CTest.bus([(0x1E, SimulatedChips.lis3mdl())])
        sim.autoTick(everyReads: 2)
        _ = try sim.readRegister(address: 0x1E, register: 0x0F)
        #expect(sim.ticks == 0)
        _ = try sim.readRegister(address: 0x1E, register: 0x0F)
        #expect(sim.ticks == 1)
    }
}
