import Devices
import TestSupport

/// The simulator as an `I2CBus`. It lives here rather than in TestSupport because TestSupport does not depend on
/// Devices (Package.swift); adding that dependency would let this move next to the simulator.
extension I2CSimulator: I2CBus {
    public var name: String { "sim-i2c" }

    public func readRegisters(address: UInt16, register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        do { return try read(address: address, register: register, count: count) } catch { throw error.i2cError(address) }
    }

    public func writeRegisters(address: UInt16, register: UInt8, bytes: [UInt8]) throws(I2CError) {
        do { try write(address: address, register: register, bytes: bytes) } catch { throw error.i2cError(address) }
    }

    public func wait(nanoseconds: Int64) { recordWait(nanoseconds: nanoseconds) }
}

extension I2CSimulator.Fault {
    func i2cError(_ address: UInt16) -> I2CError {
        switch self {
        case .nack: .nack(address: address)
        case .io: .io(address: address)
        case .busy: .busy(address: address)
        case .timeout: .timeout(address: address)
        }
    }
}
