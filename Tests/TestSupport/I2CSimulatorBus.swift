import Devices

/// The simulator as an `I2CBus` (plain I2C transfers) and as an `I2CAdapter` (the raw transfers an i2c-dev adapter
/// offers, limited by `functionalityMask`, for `I2CAdapterBus`). Transfers take no real time: `wait` is recorded.
extension I2CSimulator: I2CBus, I2CAdapter {
    public var name: String { "sim-i2c" }

    public func readRegisters(address: UInt16, register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        do { return try read(address: address, register: register, count: count) } catch { throw error.i2cError(address) }
    }

    public func writeRegisters(address: UInt16, register: UInt8, bytes: [UInt8]) throws(I2CError) {
        do { try write(address: address, register: register, bytes: bytes) } catch { throw error.i2cError(address) }
    }

    public func wait(nanoseconds: Int64) { recordWait(nanoseconds: nanoseconds) }

    public var functionality: I2CFunctionality { I2CFunctionality(rawValue: functionalityMask) }

    public func combinedRead(address: UInt16, register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        try readRegisters(address: address, register: register, count: count)
    }

    public func combinedWrite(address: UInt16, register: UInt8, bytes: [UInt8]) throws(I2CError) {
        try writeRegisters(address: address, register: register, bytes: bytes)
    }

    public func smbusBlockRead(address: UInt16, register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        do { return try read(address: address, register: register, count: count, via: .smbusBlock) } catch { throw error.i2cError(address) }
    }

    public func smbusBlockWrite(address: UInt16, register: UInt8, bytes: [UInt8]) throws(I2CError) {
        do { try write(address: address, register: register, bytes: bytes, via: .smbusBlock) } catch { throw error.i2cError(address) }
    }

    public func smbusByteRead(address: UInt16, register: UInt8) throws(I2CError) -> UInt8 {
        do {
            let bytes = try read(address: address, register: register, count: 1, via: .smbusByte)
            return bytes.first ?? 0
        } catch { throw error.i2cError(address) }
    }

    public func smbusByteWrite(address: UInt16, register: UInt8, value: UInt8) throws(I2CError) {
        do { try write(address: address, register: register, bytes: [value], via: .smbusByte) } catch { throw error.i2cError(address) }
    }
}

extension I2CSimulator.Fault {
    func i2cError(_ address: UInt16) -> I2CError {
        switch self {
        case .nack: .nack(address: address)
        case .io: .io(address: address)
        case .busy: .busy(address: address)
        case .timeout: .timeout(address: address)
        case .unsupported: .unsupported(address: address)
        }
    }
}
