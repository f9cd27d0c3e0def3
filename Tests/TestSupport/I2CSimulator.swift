import Synchronization

/// A register-level model of an I2C bus for driver tests: devices at addresses, each a 256-byte register map
/// (or several banks of 256) with per-chip behaviour hooks, plus fault injection. Deterministic: nothing happens
/// on its own; time advances only with `tick()` (or every N reads with `autoTickEveryReads`).
///
/// Its `I2CBus` conformance lives in DevicesTests (`I2CSimulatorBus.swift`), because TestSupport does not depend
/// on Devices; there the `Fault`s become `I2CError`s.
///
/// Hooks run under the simulator's lock with the device `inout`; they must not call back into the simulator.
public final class I2CSimulator: Sendable {
    public enum Fault: Error, Sendable, Hashable {
        /// No acknowledge (device absent).
        case nack
        /// EIO.
        case io
        case busy
        case timeout
        /// EOPNOTSUPP: the adapter cannot do this kind of transfer (see `functionalityMask`).
        case unsupported
    }

    /// How a transaction was carried (what an i2c-dev adapter offers; `functionalityMask` says which are allowed).
    public enum Carrier: String, Sendable, Hashable {
        /// `I2C_RDWR`: any length (needs I2C_FUNC_I2C).
        case i2c
        /// SMBus I2C-block read/write: at most 32 bytes (I2C_FUNC_SMBUS_READ/WRITE_I2C_BLOCK).
        case smbusBlock
        /// SMBus byte data: exactly one byte (I2C_FUNC_SMBUS_READ/WRITE_BYTE_DATA).
        case smbusByte
    }

    /// Linux I2C_FUNC_* bits the simulated adapter advertises (and enforces).
    public enum Functionality {
        public static let i2c: UInt32 = 0x0000_0001
        public static let smbusByteData: UInt32 = 0x0018_0000
        public static let smbusI2CBlock: UInt32 = 0x0C00_0000
        /// i2c-stub's set: SMBus only as Debian 12's kernel reports it (I2C_FUNCS 0x0c7f0000: quick, byte, byte data, word data, I2C block; no I2C).
        public static let i2cStub: UInt32 = 0x0C7F_0000
        public static let all: UInt32 = i2c | smbusByteData | smbusI2CBlock
    }

    /// How a multi-byte transfer walks the register map.
    public enum AutoIncrement: Sendable, Hashable {
        /// Every byte goes to the next register.
        case always
        /// ST style: bit 7 of the register address enables the increment; the register is its low 7 bits.
        /// Without bit 7, every byte of a burst reads (or writes) the same register.
        case whenRegisterMSBSet
        /// Every byte goes to the same register.
        case never
    }

    /// One transaction as seen on the bus.
    public struct Transaction: Sendable, Hashable, CustomStringConvertible {
        public enum Kind: String, Sendable, Hashable { case read, write }
        public var kind: Kind
        public var address: UInt16
        public var register: UInt8
        /// Bytes read or written (empty when the transaction failed).
        public var bytes: [UInt8]
        public var fault: Fault?
        public var carrier: Carrier = .i2c

        public var description: String {
            let hex = bytes.map { hex2($0) }.joined(separator: " ")
            return "\(kind.rawValue) \(hex2(UInt8(truncatingIfNeeded: address)))[\(hex2(register))] \(hex)"
                + (fault.map { " \($0)" } ?? "")
        }
    }

    /// A simulated device.
    public struct Device: Sendable {
        /// Called for each byte read at a flat register index (bank × 256 + register) before the byte leaves;
        /// returns a value to send instead of the stored one, or nil. May change the device (clear a flag).
        public typealias ReadHook = @Sendable (_ device: inout Device, _ register: Int) -> UInt8?
        /// Called for each byte written, after it was stored (unless read-only), with the previous value.
        public typealias WriteHook = @Sendable (_ device: inout Device, _ register: Int, _ old: UInt8, _ new: UInt8) -> Void
        /// Called on every `tick()`: "measure" (write the next sample, set data-ready and overrun bits).
        public typealias TickHook = @Sendable (_ device: inout Device) -> Void

        public var name: String
        /// banks × 256 bytes.
        public var registers: [UInt8]
        public var autoIncrement: AutoIncrement
        /// Flat indices whose writes are ignored.
        public var readOnly: Set<Int> = []
        /// Flat indices that read as 0 (the stored value still drives behaviour).
        public var writeOnly: Set<Int> = []
        /// A register present in every bank whose value selects the bank for all other registers.
        public var bankSelect: (register: UInt8, bank: @Sendable (UInt8) -> Int)?
        /// Data-ready bits (flat index, mask): forced clear while the device's data-ready is stuck.
        public var dataReadyBits: [(register: Int, mask: UInt8)] = []
        /// The model's next measurement, in the chip's raw units (meaning per model).
        public var sample: [Int32] = []
        /// Free-form model state (pending measurement, flags).
        public var state: [String: Int] = [:]
        public var onRead: ReadHook?
        public var onWrite: WriteHook?
        public var onTick: TickHook?
        /// The device answers only while another device's register matches (an AK8963 behind MPU-9250 bypass).
        public var visibleWhen: (address: UInt16, register: Int, mask: UInt8, value: UInt8)?
        /// Data-ready never sets.
        public var dataReadyStuck = false
        /// Register and state values at power-on (taken when attached).
        public internal(set) var powerOnRegisters: [UInt8] = []
        public internal(set) var powerOnState: [String: Int] = [:]

        /// `registers` are the power-on values; every other register is 0.
        public init(name: String, registers: [Int: UInt8] = [:], banks: Int = 1, autoIncrement: AutoIncrement = .always) {
            self.name = name
            self.autoIncrement = autoIncrement
            var map = [UInt8](repeating: 0, count: 256 * max(banks, 1))
            for (index, value) in registers where map.indices.contains(index) { map[index] = value }
            self.registers = map
        }

        /// The register's value (0 outside the map).
        public func register(_ index: Int) -> UInt8 { registers.indices.contains(index) ? registers[index] : 0 }

        public mutating func set(_ index: Int, _ value: UInt8) {
            if registers.indices.contains(index) { registers[index] = value }
        }

        /// Registers and model state back to their power-on values (reset, power cycle); the sample is kept.
        public mutating func powerOnReset() {
            if !powerOnRegisters.isEmpty { registers = powerOnRegisters }
            state = powerOnState
        }

        /// The flat index of `register` in the current bank.
        func index(_ register: UInt8) -> Int {
            guard let bankSelect else { return Int(register) }
            if register == bankSelect.register { return Int(register) }
            let bank = bankSelect.bank(self.register(Int(bankSelect.register)))
            return bank * 256 + Int(register)
        }

        mutating func enforceStuck() {
            guard dataReadyStuck else { return }
            for bit in dataReadyBits { set(bit.register, register(bit.register) & ~bit.mask) }
        }
    }

    private struct State {
        var devices: [UInt16: Device] = [:]
        /// Devices that NACK: until this tick (Int.max: until `reconnect`).
        var absentUntil: [UInt16: Int] = [:]
        var failures: [Fault] = []
        var log: [Transaction] = []
        var ticks = 0
        var reads = 0
        var autoTickEveryReads: Int?
        var waits: [Int64] = []
        var functionality = Functionality.all
    }

    private let state = Mutex(State())

    public init() {}

    // MARK: Devices

    /// Attaches (or replaces) a device; its current registers and state become its power-on values.
    public func attach(_ device: Device, at address: UInt16) {
        var d = device
        d.powerOnRegisters = d.registers
        d.powerOnState = d.state
        state.withLock { $0.devices[address] = d }
    }

    public func detach(_ address: UInt16) {
        _ = state.withLock { $0.devices.removeValue(forKey: address) }
    }

    /// Changes a device (its sample, flags, registers). Returns nil when nothing is attached there.
    @discardableResult
    public func update<R>(_ address: UInt16, _ body: (inout Device) -> R) -> R? {
        state.withLock { s in
            guard var d = s.devices[address] else { return nil }
            let r = body(&d)
            d.enforceStuck()
            s.devices[address] = d
            return r
        }
    }

    /// A copy of the device at `address`.
    public func device(_ address: UInt16) -> Device? { state.withLock { $0.devices[address] } }

    /// One register of the device (flat index), for assertions.
    public func register(_ address: UInt16, _ index: Int) -> UInt8? { device(address)?.register(index) }

    // MARK: Time

    /// Advances time by `count` ticks: every device's `onTick` runs (each tick is one "measurement period"),
    /// and devices disconnected until this tick come back power-cycled.
    public func tick(_ count: Int = 1) {
        state.withLock { s in
            for _ in 0..<max(count, 0) { Self.tick(&s) }
        }
    }

    public var ticks: Int { state.withLock { $0.ticks } }

    /// When set, every N-th successful read transaction also ticks (time measured in reads).
    public func autoTick(everyReads n: Int?) { state.withLock { $0.autoTickEveryReads = n } }

    private static func tick(_ s: inout State) {
        s.ticks += 1
        for (address, until) in s.absentUntil where until <= s.ticks {
            s.absentUntil.removeValue(forKey: address)
            s.devices[address]?.powerOnReset()
        }
        for address in s.devices.keys.sorted() {
            guard var d = s.devices[address] else { continue }
            if let hook = d.onTick { hook(&d) }
            d.enforceStuck()
            s.devices[address] = d
        }
    }

    // MARK: Faults

    /// The next `count` transactions (to any address) fail with `fault`, without reaching the device.
    public func failNext(_ count: Int, with fault: Fault = .io) {
        state.withLock { $0.failures += Array(repeating: fault, count: max(count, 0)) }
    }

    /// The device stops answering (NACK) for `ticks` ticks, or until `reconnect` when nil. It comes back
    /// power-cycled: registers at their power-on values, so a driver must re-initialise it.
    public func disconnect(_ address: UInt16, forTicks ticks: Int? = nil) {
        state.withLock { s in s.absentUntil[address] = ticks.map { s.ticks + max($0, 1) } ?? Int.max }
    }

    /// Ends a `disconnect` now (with the power-on reset).
    public func reconnect(_ address: UInt16) {
        state.withLock { s in
            if s.absentUntil.removeValue(forKey: address) != nil { s.devices[address]?.powerOnReset() }
        }
    }

    /// Data-ready never sets (or works again).
    public func setDataReadyStuck(_ address: UInt16, _ stuck: Bool) {
        update(address) { $0.dataReadyStuck = stuck }
    }

    /// The adapter's I2C_FUNCS mask (default: everything). Transfers it lacks fail with `.unsupported`.
    public var functionalityMask: UInt32 {
        get { state.withLock { $0.functionality } }
        set { state.withLock { $0.functionality = newValue } }
    }

    // MARK: Transactions

    /// A combined write-register/read transaction (over `carrier`: SMBus carriers enforce their length limits).
    public func read(address: UInt16, register: UInt8, count: Int, via carrier: Carrier = .i2c) throws(Fault) -> [UInt8] {
        try state.withLock { (s: inout State) throws(Fault) -> [UInt8] in
            try Self.check(&s, carrier, read: true, count: count, .read, address, register)
            var d = try Self.begin(&s, .read, address, register)
            let (base, step) = Self.walk(d.autoIncrement, register)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(max(count, 0))
            for i in 0..<max(count, 0) {
                let index = d.index(base &+ UInt8(truncatingIfNeeded: i * step))
                var value = d.writeOnly.contains(index) ? 0 : d.register(index)
                if let hook = d.onRead, let replaced = hook(&d, index) { value = replaced }
                d.enforceStuck()
                bytes.append(value)
            }
            s.devices[address] = d
            s.log.append(Transaction(kind: .read, address: address, register: register, bytes: bytes, carrier: carrier))
            s.reads += 1
            if let n = s.autoTickEveryReads, n > 0, s.reads % n == 0 { Self.tick(&s) }
            return bytes
        }
    }

    /// A register-address write followed by data bytes.
    public func write(address: UInt16, register: UInt8, bytes: [UInt8], via carrier: Carrier = .i2c) throws(Fault) {
        try state.withLock { (s: inout State) throws(Fault) in
            try Self.check(&s, carrier, read: false, count: bytes.count, .write, address, register)
            var d = try Self.begin(&s, .write, address, register)
            let (base, step) = Self.walk(d.autoIncrement, register)
            for (i, value) in bytes.enumerated() {
                let index = d.index(base &+ UInt8(truncatingIfNeeded: i * step))
                let old = d.register(index)
                if !d.readOnly.contains(index) { d.set(index, value) }
                if let hook = d.onWrite { hook(&d, index, old, value) }
                d.enforceStuck()
            }
            s.devices[address] = d
            s.log.append(Transaction(kind: .write, address: address, register: register, bytes: bytes, carrier: carrier))
        }
    }

    /// Records a device-side wait asked for by a driver (no time passes).
    public func recordWait(nanoseconds: Int64) { state.withLock { $0.waits.append(nanoseconds) } }

    /// The carrier must be in the functionality mask and within its length limit.
    private static func check(_ s: inout State, _ carrier: Carrier, read: Bool, count: Int, _ kind: Transaction.Kind,
                              _ address: UInt16, _ register: UInt8) throws(Fault) {
        let needed: UInt32
        let limit: Int
        switch carrier {
        case .i2c: needed = Functionality.i2c; limit = Int.max
        case .smbusBlock: needed = read ? 0x0400_0000 : 0x0800_0000; limit = 32
        case .smbusByte: needed = read ? 0x0008_0000 : 0x0010_0000; limit = 1
        }
        guard s.functionality & needed == needed, count <= limit else {
            s.log.append(Transaction(kind: kind, address: address, register: register, bytes: [], fault: .unsupported,
                                     carrier: carrier))
            throw .unsupported
        }
    }

    private static func begin(_ s: inout State, _ kind: Transaction.Kind, _ address: UInt16,
                              _ register: UInt8) throws(Fault) -> Device {
        if !s.failures.isEmpty {
            let fault = s.failures.removeFirst()
            s.log.append(Transaction(kind: kind, address: address, register: register, bytes: [], fault: fault))
            throw fault
        }
        guard let d = s.devices[address], s.absentUntil[address] == nil, visible(d, in: s) else {
            s.log.append(Transaction(kind: kind, address: address, register: register, bytes: [], fault: .nack))
            throw .nack
        }
        return d
    }

    private static func visible(_ d: Device, in s: State) -> Bool {
        guard let gate = d.visibleWhen else { return true }
        guard let host = s.devices[gate.address], s.absentUntil[gate.address] == nil else { return false }
        return host.register(gate.register) & gate.mask == gate.value
    }

    private static func walk(_ mode: AutoIncrement, _ register: UInt8) -> (base: UInt8, step: Int) {
        switch mode {
        case .always: (register, 1)
        case .never: (register, 0)
        case .whenRegisterMSBSet: (register & 0x7F, register & 0x80 != 0 ? 1 : 0)
        }
    }

    // MARK: Trace

    public var log: [Transaction] { state.withLock { $0.log } }

    public func clearLog() { state.withLock { $0.log.removeAll(); $0.waits.removeAll() } }

    /// Successful writes to `address`, each as [register, data…], in order.
    public func writes(to address: UInt16) -> [[UInt8]] {
        log.filter { $0.kind == .write && $0.address == address && $0.fault == nil }.map { [$0.register] + $0.bytes }
    }

    /// Successful writes to any of `addresses`, each as [address, register, data…], in order (for chips whose
    /// init spans two addresses, like an MPU-9250 and its AK8963).
    public func writes(to addresses: Set<UInt16>) -> [[UInt8]] {
        log.filter { $0.kind == .write && addresses.contains($0.address) && $0.fault == nil }
            .map { [UInt8(truncatingIfNeeded: $0.address), $0.register] + $0.bytes }
    }

    /// Transactions that failed, with their fault.
    public var faults: [Transaction] { log.filter { $0.fault != nil } }

    public var waits: [Int64] { state.withLock { $0.waits } }
}

func hex2(_ v: UInt8) -> String {
    let digits = String(v, radix: 16)
    return digits.count < 2 ? "0" + digits : digits
}
