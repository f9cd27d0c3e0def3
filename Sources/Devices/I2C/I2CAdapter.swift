import Synchronization

/// What an I2C adapter can do, as the kernel reports it (`I2C_FUNCS`, the `I2C_FUNC_*` bits of linux/i2c.h).
public struct I2CFunctionality: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Plain I2C messages (`I2C_RDWR`): combined transactions of any length.
    public static let i2c = I2CFunctionality(rawValue: 0x0000_0001)
    public static let smbusReadByteData = I2CFunctionality(rawValue: 0x0008_0000)
    public static let smbusWriteByteData = I2CFunctionality(rawValue: 0x0010_0000)
    /// SMBus "read I2C block data": command byte, repeated start, up to 32 bytes — one transaction.
    public static let smbusReadI2CBlock = I2CFunctionality(rawValue: 0x0400_0000)
    public static let smbusWriteI2CBlock = I2CFunctionality(rawValue: 0x0800_0000)

    public static let smbusByteData: I2CFunctionality = [.smbusReadByteData, .smbusWriteByteData]
    public static let smbusI2CBlock: I2CFunctionality = [.smbusReadI2CBlock, .smbusWriteI2CBlock]

    public var description: String { "0x" + String(rawValue, radix: 16) }
}

/// How register blocks travel over an adapter, best first.
public enum I2CTransfer: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `I2C_RDWR`: register-address write and read joined by a repeated start, any length (needs `I2C_FUNC_I2C`).
    case combined
    /// SMBus "I2C block" transfers (`I2C_FUNC_SMBUS_READ_I2C_BLOCK`): on the wire the same combined transaction,
    /// at most 32 bytes each, so blocks up to 32 bytes stay atomic.
    case smbusBlock
    /// SMBus "byte data" transfers, one register per transaction: a block becomes several transactions.
    case smbusByte

    public var description: String {
        switch self {
        case .combined: "I2C_RDWR combined transfers"
        case .smbusBlock: "SMBus I2C-block reads (no I2C_FUNC_I2C)"
        case .smbusByte: "SMBus byte reads (no I2C_FUNC_I2C, no I2C block)"
        }
    }

    /// The best transfer the adapter supports for reads, or nil when it cannot even read a byte register.
    public static func best(for functionality: I2CFunctionality) -> I2CTransfer? {
        if functionality.contains(.i2c) { return .combined }
        if functionality.contains(.smbusReadI2CBlock) { return .smbusBlock }
        if functionality.contains(.smbusReadByteData) { return .smbusByte }
        return nil
    }
}

/// The raw transfers of one adapter (i2c-dev, or a simulator in tests). `I2CAdapterBus` picks among them.
public protocol I2CAdapter: AnyObject, Sendable {
    var name: String { get }
    /// `I2C_FUNCS`.
    var functionality: I2CFunctionality { get }
    func combinedRead(address: UInt16, register: UInt8, count: Int) throws(I2CError) -> [UInt8]
    func combinedWrite(address: UInt16, register: UInt8, bytes: [UInt8]) throws(I2CError)
    /// `count` ≤ 32.
    func smbusBlockRead(address: UInt16, register: UInt8, count: Int) throws(I2CError) -> [UInt8]
    /// `bytes.count` ≤ 32.
    func smbusBlockWrite(address: UInt16, register: UInt8, bytes: [UInt8]) throws(I2CError)
    func smbusByteRead(address: UInt16, register: UInt8) throws(I2CError) -> UInt8
    func smbusByteWrite(address: UInt16, register: UInt8, value: UInt8) throws(I2CError)
    func wait(nanoseconds: Int64)
}

/// An `I2CBus` over an adapter, using the best transfer its functionality allows:
/// `I2C_RDWR` when the adapter has `I2C_FUNC_I2C`, else SMBus I2C-block reads (≤ 32 bytes a transaction, still
/// atomic: chips' burst-read rules — BDU, data shadowing, AK8963 ST2 — hold), else SMBus byte reads (one register per
/// transaction: a sample can tear across axes unless the chip latches its output; chips that release data on a
/// final read still work because the drivers read that register last).
///
/// Writes follow the same order (I2C block writes only when `I2C_FUNC_SMBUS_WRITE_I2C_BLOCK` is there, else byte
/// writes). When the transfer is chosen automatically and the adapter answers a transfer with EOPNOTSUPP even though
/// its functionality claimed it, the bus moves down to the next transfer for good.
///
/// One lock serialises transactions, so several drivers may share one bus across threads (SMBus selects the slave
/// with `I2C_SLAVE` and then transfers, which must not interleave).
public final class I2CAdapterBus: I2CBus {
    public let adapter: any I2CAdapter
    public var name: String { adapter.name }
    private let mode: Mutex<I2CTransfer>
    private let automatic: Bool

    /// `transfer: nil` chooses from the adapter's functionality; an adapter that reports no read support at all
    /// throws `.unsupported`.
    public init(adapter: any I2CAdapter, transfer: I2CTransfer? = nil) throws(I2CError) {
        guard let chosen = transfer ?? I2CTransfer.best(for: adapter.functionality) else {
            throw .other(errno: 95, operation: "\(adapter.name): adapter supports neither I2C nor SMBus reads "
                         + "(I2C_FUNCS \(adapter.functionality))")
        }
        self.adapter = adapter
        self.mode = Mutex(chosen)
        self.automatic = transfer == nil
    }

    /// The transfer in use.
    public var transfer: I2CTransfer { mode.withLock { $0 } }

    public func readRegisters(address: UInt16, register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        guard count > 0 else { return [] }
        guard count <= 0xFFFF else {
            throw .other(errno: 22, operation: "read \(count) bytes from \(hexAddress(address))")
        }
        return try mode.withLock { (mode: inout I2CTransfer) throws(I2CError) -> [UInt8] in
            while true {
                do throws(I2CError) {
                    return try read(mode, address: address, register: register, count: count)
                } catch {
                    guard case .unsupported = error, automatic, let next = degraded(mode) else { throw error }
                    mode = next
                }
            }
        }
    }

    public func writeRegisters(address: UInt16, register: UInt8, bytes: [UInt8]) throws(I2CError) {
        try mode.withLock { (mode: inout I2CTransfer) throws(I2CError) in
            while true {
                do throws(I2CError) {
                    return try write(mode, address: address, register: register, bytes: bytes)
                } catch {
                    guard case .unsupported = error, automatic, let next = degraded(mode) else { throw error }
                    mode = next
                }
            }
        }
    }

    public func wait(nanoseconds: Int64) { adapter.wait(nanoseconds: nanoseconds) }

    private func degraded(_ mode: I2CTransfer) -> I2CTransfer? {
        let all = I2CTransfer.allCases
        guard let i = all.firstIndex(of: mode), i + 1 < all.count else { return nil }
        var remaining = adapter.functionality
        if mode == .combined { remaining.remove(.i2c) }
        if mode == .smbusBlock { remaining.subtract([.i2c, .smbusI2CBlock]) }
        // When the mask claimed everything, still try the simpler transfers.
        return I2CTransfer.best(for: remaining) ?? all[i + 1]
    }

    private func read(_ mode: I2CTransfer, address: UInt16, register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        switch mode {
        case .combined:
            return try adapter.combinedRead(address: address, register: register, count: count)
        case .smbusBlock:
            var bytes: [UInt8] = []
            bytes.reserveCapacity(count)
            while bytes.count < count {
                let n = min(32, count - bytes.count)
                let chunk = try adapter.smbusBlockRead(address: address,
                                                       register: register &+ UInt8(truncatingIfNeeded: bytes.count), count: n)
                guard chunk.count == n else { return bytes + chunk }  // short: readBlock reports it
                bytes += chunk
            }
            return bytes
        case .smbusByte:
            var bytes: [UInt8] = []
            bytes.reserveCapacity(count)
            for i in 0..<count {
                bytes.append(try adapter.smbusByteRead(address: address, register: register &+ UInt8(truncatingIfNeeded: i)))
            }
            return bytes
        }
    }

    private func write(_ mode: I2CTransfer, address: UInt16, register: UInt8, bytes: [UInt8]) throws(I2CError) {
        switch mode {
        case .combined:
            try adapter.combinedWrite(address: address, register: register, bytes: bytes)
        case .smbusBlock where adapter.functionality.contains(.smbusWriteI2CBlock) && bytes.count > 1:
            var offset = 0
            while offset < bytes.count {
                let n = min(32, bytes.count - offset)
                try adapter.smbusBlockWrite(address: address, register: register &+ UInt8(truncatingIfNeeded: offset),
                                            bytes: Array(bytes[offset..<offset + n]))
                offset += n
            }
        case .smbusBlock, .smbusByte:
            for (i, value) in bytes.enumerated() {
                try adapter.smbusByteWrite(address: address, register: register &+ UInt8(truncatingIfNeeded: i), value: value)
            }
        }
    }
}
