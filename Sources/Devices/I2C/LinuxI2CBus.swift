#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Synchronization

/// An I2C bus through Linux i2c-dev (`/dev/i2c-N`), over the C shim.
///
/// Transfers:
/// - `.combined` (default): `I2C_RDWR` with a register-address write and a read joined by a repeated start —
///   one atomic transaction per block, as the chips' burst-read rules (BDU, data shadowing, AK8963 ST2) assume.
/// - `.smbusByte`: SMBus "read/write byte data" through libi2c, one transaction per register. For adapters
///   without `I2C_FUNC_I2C` (SMBus-only controllers, some SoC and USB adapters). A multi-byte block then becomes
///   several transactions: samples can tear across axes unless the chip latches its output (BDU), and chips that
///   release data on a final read (AK8963/AK09916 ST2) still work because the drivers read ST2 last.
///
/// With `transfer: nil` the bus starts combined and switches to SMBus byte mode for good when the adapter
/// answers `I2C_RDWR` with EOPNOTSUPP (what `i2c_transfer` returns for an adapter without `master_xfer`).
/// The shim has no `I2C_FUNCS` query yet; that would let the mode be chosen before the first transfer.
///
/// One lock serialises transactions on the descriptor, so several drivers may share one bus object across
/// threads (SMBus mode selects the slave with `I2C_SLAVE` and then transfers, which must not interleave).
public final class LinuxI2CBus: I2CBus {
    public enum Transfer: String, Sendable, Hashable {
        /// `I2C_RDWR` combined transactions.
        case combined
        /// SMBus byte-data transfers through libi2c.
        case smbusByte
    }

    public let number: Int
    public let path: String
    public var name: String { "i2c-\(number)" }
    private let fd: Int32
    private let mode: Mutex<Transfer>
    private let automatic: Bool

    /// Opens `/dev/i2c-<number>`. Throws `.noSuchBus`, `.permissionDenied` (with the fix in its description)
    /// or `.other`.
    public init(number: Int, transfer: Transfer? = nil) throws(I2CError) {
        let path = "/dev/i2c-\(number)"
        guard let bus = Int32(exactly: number), bus >= 0 else { throw .noSuchBus(path: path) }
        let fd = clinux_i2c_open(bus)
        guard fd >= 0 else { throw I2CError.opening(path: path, errno: -fd) }
        self.number = number
        self.path = path
        self.fd = fd
        self.mode = Mutex(transfer ?? .combined)
        self.automatic = transfer == nil
    }

    deinit { _ = clinux_close(fd) }

    /// The transfer mode in use (changes from `.combined` to `.smbusByte` once, in automatic mode).
    public var transfer: Transfer { mode.withLock { $0 } }

    public func readRegisters(address: UInt16, register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        guard count > 0 else { return [] }
        guard let length = UInt16(exactly: count) else {
            throw .other(errno: EINVAL, operation: "read \(count) bytes from \(hexAddress(address))")
        }
        return try mode.withLock { (mode: inout Transfer) throws(I2CError) -> [UInt8] in
            if mode == .combined {
                var buffer = [UInt8](repeating: 0, count: count)
                let r = buffer.withUnsafeMutableBufferPointer {
                    clinux_i2c_read_registers(fd, address, register, $0.baseAddress, length)
                }
                if r >= 0 { return buffer }
                guard -r == EOPNOTSUPP && automatic else {
                    throw I2CError(errno: -r, address: address, operation: "I2C_RDWR read at \(hexAddress(address))")
                }
                mode = .smbusByte
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(count)
            for i in 0..<count {
                let r = clinux_smbus_read_byte(fd, address, register &+ UInt8(truncatingIfNeeded: i))
                guard r >= 0 else {
                    throw I2CError(errno: -r, address: address, operation: "SMBus read at \(hexAddress(address))")
                }
                bytes.append(UInt8(truncatingIfNeeded: r))
            }
            return bytes
        }
    }

    public func writeRegisters(address: UInt16, register: UInt8, bytes: [UInt8]) throws(I2CError) {
        guard let length = UInt16(exactly: bytes.count) else {
            throw .other(errno: EINVAL, operation: "write \(bytes.count) bytes to \(hexAddress(address))")
        }
        try mode.withLock { (mode: inout Transfer) throws(I2CError) in
            if mode == .combined {
                let r = bytes.withUnsafeBufferPointer {
                    clinux_i2c_write_registers(fd, address, register, $0.baseAddress, length)
                }
                if r >= 0 { return }
                guard -r == EOPNOTSUPP && automatic else {
                    throw I2CError(errno: -r, address: address, operation: "I2C_RDWR write at \(hexAddress(address))")
                }
                mode = .smbusByte
            }
            for (i, value) in bytes.enumerated() {
                let r = clinux_smbus_write_byte(fd, address, register &+ UInt8(truncatingIfNeeded: i), value)
                guard r >= 0 else {
                    throw I2CError(errno: -r, address: address, operation: "SMBus write at \(hexAddress(address))")
                }
            }
        }
    }

    public func wait(nanoseconds: Int64) {
        // clinux_sleep_ns returns early only when a stop signal arrived; a short settle time is harmless then.
        _ = clinux_sleep_ns(nanoseconds)
    }
}
