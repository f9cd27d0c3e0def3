#if canImport(Glibc)
import Glibc
#endif
import Devices
import Testing
import TestSupport

@Suite("I2C bus and errors", .ownThreads)
struct I2CBusTests {
    @Test(arguments: [
        (ENXIO, I2CError.nack(address: 0x1E)),
        (EREMOTEIO, .nack(address: 0x1E)),
        (ENODEV, .nack(address: 0x1E)),
        (EIO, .io(address: 0x1E)),
        (EBUSY, .busy(address: 0x1E)),
        (EAGAIN, .busy(address: 0x1E)),
        (ETIMEDOUT, .timeout(address: 0x1E)),
        (EOPNOTSUPP, .unsupported(address: 0x1E)),
        (EPROTO, .other(errno: EPROTO, operation: "read")),
    ])
    func transactionErrnoMapping(errno: Int32, expected: I2CError) {
        #expect(I2CError(errno: errno, address: 0x1E, operation: "read") == expected)
    }

    @Test func openingErrorsAreActionable() {
        let denied = I2CError.opening(path: "/dev/i2c-1", errno: EACCES)
        #expect(denied == .permissionDenied(path: "/dev/i2c-1"))
        #expect(denied.description.contains("group i2c"))
        #expect(denied.description.contains("udev/60-lodestar.rules"))
        #expect(I2CError.opening(path: "/dev/i2c-1", errno: EPERM) == .permissionDenied(path: "/dev/i2c-1"))
        let missing = I2CError.opening(path: "/dev/i2c-7", errno: ENOENT)
        #expect(missing == .noSuchBus(path: "/dev/i2c-7"))
        #expect(missing.description.contains("no such I2C bus"))
        #expect(I2CError.opening(path: "/dev/i2c-7", errno: EMFILE) == .other(errno: EMFILE, operation: "open /dev/i2c-7"))
    }

    @Test func descriptionsNameTheAddressAndTheCause() {
        #expect(I2CError.nack(address: 0x1E).description.hasPrefix("no acknowledge from 0x1e (NACK)"))
        #expect(I2CError.io(address: 0x0D).description.contains("0x0d (EIO)"))
        #expect(I2CError.other(errno: EPROTO, operation: "read").description.hasPrefix("read failed: Protocol error"))
    }

    /// This machine has no I2C buses: opening one is the real ENOENT path through the C shim.
    @Test func openingAMissingBusThrowsNoSuchBus() {
        #expect(throws: I2CError.noSuchBus(path: "/dev/i2c-250")) { _ = try LinuxI2CBus(number: 250) }
        #expect(throws: I2CError.noSuchBus(path: "/dev/i2c--1")) { _ = try LinuxI2CBus(number: -1) }
    }

    @Test func readBlockRejectsShortAnswers() {
        final class ShortBus: I2CBus {
            var name: String { "short" }
            func readRegisters(address: UInt16, register: UInt8, count: Int) throws(I2CError) -> [UInt8] { [1] }
            func writeRegisters(address: UInt16, register: UInt8, bytes: [UInt8]) throws(I2CError) {}
            func wait(nanoseconds: Int64) {}
        }
        #expect(throws: I2CError.self) { _ = try ShortBus().readBlock(address: 0x1E, register: 0x28, count: 6) }
        // A driver on such a bus throws instead of trapping.
        #expect(throws: I2CError.self) { _ = try LIS3MDL(bus: ShortBus(), address: 0x1E).read() }
    }
}
