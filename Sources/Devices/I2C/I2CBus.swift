/// One I2C bus: register reads and writes addressed to 7-bit device addresses.
///
/// Implementations: `LinuxI2CBus` (i2c-dev, `I2C_RDWR`) and, in tests, `I2CSimulator` (a register-level model with
/// fault injection). Drivers only see this protocol, so every driver runs against the simulator on any machine.
///
/// Errors are typed and never trap: a missing device is `.nack`, a bus glitch `.io`, and so on (see `I2CError`).
public protocol I2CBus: AnyObject, Sendable {
    /// Name used in messages and capture headers (`i2c-1`).
    var name: String { get }

    /// Reads `count` bytes starting at `register` in one combined transaction: a write of the register address,
    /// a repeated start, then the read (no stop in between, so no other master can slip in and the device keeps
    /// its register pointer). Consecutive bytes come from consecutive registers only if the chip auto-increments;
    /// ST chips need bit 7 of the register address set for that (the drivers do it where the datasheet says so).
    func readRegisters(address: UInt16, register: UInt8, count: Int) throws(I2CError) -> [UInt8]

    /// Writes `bytes` to `register` (and the following registers, if the chip auto-increments) in one transaction.
    func writeRegisters(address: UInt16, register: UInt8, bytes: [UInt8]) throws(I2CError)

    /// Waits for a device-side delay the datasheet asks for (reset, power-up, mode change). Real buses sleep;
    /// simulators record the wait and return at once.
    func wait(nanoseconds: Int64)
}

extension I2CBus {
    /// Reads one register.
    public func readRegister(address: UInt16, register: UInt8) throws(I2CError) -> UInt8 {
        let bytes = try readBlock(address: address, register: register, count: 1)
        return bytes[0]
    }

    /// Writes one register.
    public func writeRegister(address: UInt16, register: UInt8, value: UInt8) throws(I2CError) {
        try writeRegisters(address: address, register: register, bytes: [value])
    }

    /// Reads exactly `count` bytes, or throws `.unexpectedDevice` on a short answer, so callers may index
    /// `0..<count` without checking (no traps on what a bus returns).
    public func readBlock(address: UInt16, register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        let bytes = try readRegisters(address: address, register: register, count: count)
        guard bytes.count == count else {
            throw .unexpectedDevice(address: address, detail: "read \(bytes.count) bytes from register "
                                    + "\(hexAddress(UInt16(register))), expected \(count)")
        }
        return bytes
    }

    /// A probe helper: the register's value, or nil when the transaction fails.
    func peek(_ address: UInt16, _ register: UInt8) -> UInt8? {
        try? readRegister(address: address, register: register)
    }
}
