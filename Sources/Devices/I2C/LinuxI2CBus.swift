#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// An I2C bus through Linux i2c-dev (`/dev/i2c-N`), over the C shim.
///
/// At open it asks the adapter what it can do (`I2C_FUNCS`) and uses the best transfer (see `I2CAdapterBus`):
/// - `.combined`: `I2C_RDWR` with a register-address write and a read joined by a repeated start — one atomic
///   transaction per block, as the chips' burst-read rules (BDU, data shadowing, AK8963 ST2) assume;
/// - `.smbusBlock`: SMBus "I2C block data" through libi2c, for adapters without `I2C_FUNC_I2C` (SMBus-only
///   controllers such as PC SMBus hosts, i2c-stub, some SoC and USB adapters): the same transaction on the wire,
///   at most 32 bytes;
/// - `.smbusByte`: SMBus "byte data", one register per transaction, when the adapter has not even I2C block reads.
///
/// `lodestar devices --i2c N` prints which one a bus uses.
public final class LinuxI2CBus: I2CBus {
    public typealias Transfer = I2CTransfer

    public let number: Int
    public let path: String
    public var name: String { "i2c-\(number)" }
    /// The adapter's `I2C_FUNCS`.
    public let functionality: I2CFunctionality
    private let bus: I2CAdapterBus

    /// Opens `/dev/i2c-<number>`. Throws `.noSuchBus`, `.permissionDenied` (with the fix in its description)
    /// or `.other`. `transfer: nil` chooses from `I2C_FUNCS`.
    public init(number: Int, transfer: Transfer? = nil) throws(I2CError) {
        let path = "/dev/i2c-\(number)"
        guard let busNumber = Int32(exactly: number), busNumber >= 0 else { throw .noSuchBus(path: path) }
        let adapter = try I2CDevAdapter(bus: busNumber, path: path)
        self.number = number
        self.path = path
        self.functionality = adapter.functionality
        self.bus = try I2CAdapterBus(adapter: adapter, transfer: transfer)
    }

    /// The transfer in use.
    public var transfer: Transfer { bus.transfer }

    public func readRegisters(address: UInt16, register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        try bus.readRegisters(address: address, register: register, count: count)
    }

    public func writeRegisters(address: UInt16, register: UInt8, bytes: [UInt8]) throws(I2CError) {
        try bus.writeRegisters(address: address, register: register, bytes: bytes)
    }

    public func wait(nanoseconds: Int64) { bus.wait(nanoseconds: nanoseconds) }
}

/// The raw transfers of one i2c-dev descriptor. Not locked: `I2CAdapterBus` serialises them.
final class I2CDevAdapter: I2CAdapter, @unchecked Sendable {
    let name: String
    let functionality: I2CFunctionality
    private let fd: Int32

    init(bus: Int32, path: String) throws(I2CError) {
        let fd = clinux_i2c_open(bus)
        guard fd >= 0 else { throw I2CError.opening(path: path, errno: -fd) }
        var funcs: UInt32 = 0
        let r = clinux_i2c_funcs(fd, &funcs)
        // An adapter that cannot answer I2C_FUNCS is treated as plain I2C (the EOPNOTSUPP fallback still applies).
        self.functionality = r == 0 ? I2CFunctionality(rawValue: funcs)
            : [.i2c, .smbusByteData, .smbusI2CBlock]
        self.fd = fd
        self.name = "i2c-\(bus)"
    }

    deinit { _ = clinux_close(fd) }

    private func failure(_ r: Int32, _ address: UInt16, _ what: String) -> I2CError {
        I2CError(errno: -r, address: address, operation: "\(what) at \(hexAddress(address))")
    }

    func combinedRead(address: UInt16, register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        guard let length = UInt16(exactly: count) else { throw failure(-EINVAL, address, "I2C_RDWR read") }
        var buffer = [UInt8](repeating: 0, count: count)
        let r = buffer.withUnsafeMutableBufferPointer { clinux_i2c_read_registers(fd, address, register, $0.baseAddress, length) }
        guard r >= 0 else { throw failure(r, address, "I2C_RDWR read") }
        return buffer
    }

    func combinedWrite(address: UInt16, register: UInt8, bytes: [UInt8]) throws(I2CError) {
        guard let length = UInt16(exactly: bytes.count) else { throw failure(-EINVAL, address, "I2C_RDWR write") }
        let r = bytes.withUnsafeBufferPointer { clinux_i2c_write_registers(fd, address, register, $0.baseAddress, length) }
        guard r >= 0 else { throw failure(r, address, "I2C_RDWR write") }
    }

    func smbusBlockRead(address: UInt16, register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        guard let length = UInt8(exactly: count), length <= 32 else { throw failure(-EMSGSIZE, address, "SMBus block read") }
        var buffer = [UInt8](repeating: 0, count: count)
        let r = buffer.withUnsafeMutableBufferPointer { clinux_smbus_read_i2c_block(fd, address, register, $0.baseAddress, length) }
        guard r >= 0 else { throw failure(r, address, "SMBus block read") }
        return Array(buffer.prefix(Int(r)))
    }

    func smbusBlockWrite(address: UInt16, register: UInt8, bytes: [UInt8]) throws(I2CError) {
        guard let length = UInt8(exactly: bytes.count), length <= 32 else { throw failure(-EMSGSIZE, address, "SMBus block write") }
        let r = bytes.withUnsafeBufferPointer { clinux_smbus_write_i2c_block(fd, address, register, $0.baseAddress, length) }
        guard r >= 0 else { throw failure(r, address, "SMBus block write") }
    }

    func smbusByteRead(address: UInt16, register: UInt8) throws(I2CError) -> UInt8 {
        let r = clinux_smbus_read_byte(fd, address, register)
        guard r >= 0 else { throw failure(r, address, "SMBus read") }
        return UInt8(truncatingIfNeeded: r)
    }

    func smbusByteWrite(address: UInt16, register: UInt8, value: UInt8) throws(I2CError) {
        let r = clinux_smbus_write_byte(fd, address, register, value)
        guard r >= 0 else { throw failure(r, address, "SMBus write") }
    }

    func wait(nanoseconds: Int64) {
        // clinux_sleep_ns returns early only when a stop signal arrived; a short settle time is harmless then.
        _ = clinux_sleep_ns(nanoseconds)
    }
}
