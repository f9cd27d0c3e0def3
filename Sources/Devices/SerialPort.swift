#if canImport(Glibc)
import Glibc
#endif
import LodestarIO
import SystemPackage
import CLinux
import LocationCore
import NMEA
import Synchronization

/// Bytes as one `read()` returned them, stamped the moment it returned (monotonic clock only: the session's
/// `LiveEventQueue` derives the UTC from its clock pairing, the one place a live receive time is stamped).
public struct SerialChunk: Sendable, Hashable {
    public var bytes: [UInt8]
    /// `clinux_monotonic_ns()` right after the read returned.
    public var monotonicNanos: Int64

    public init(bytes: [UInt8], monotonicNanos: Int64) {
        self.bytes = bytes; self.monotonicNanos = monotonicNanos
    }
}

/// What one bounded read produced.
public enum SerialReadResult: Sendable, Hashable {
    case chunk(SerialChunk)
    /// Nothing arrived within the timeout.
    case timedOut
    /// End of file or hang-up: the device went away (USB receiver unplugged, pty master closed).
    case hungUp
}

/// A serial device (tty) opened raw through the C shim: 8N1, no flow control, `O_NOCTTY`, non-blocking,
/// `TIOCEXCL` exclusive access, any rate (termios2 `BOTHER` for non-standard ones).
///
/// Thread safety: every operation holds an internal lock around the file descriptor, so `close()` from another
/// thread can never race a `read` into a reused descriptor. A `read` holds the lock for at most its timeout, so
/// a concurrent `close()` waits that long. In practice one thread (the source's) owns the port.
public final class SerialPort: Sendable {
    /// Rates tried by autobaud, most common NMEA rates first.
    public static let autobaudRates = [9600, 4800, 38400, 115200, 57600, 19200, 230400, 460800, 921600]
    /// Rates `setBaudRate` accepts (UARTs in practice run 50 bd … 4 Mbd).
    public static let supportedRates: ClosedRange<Int> = 50...4_000_000

    public let path: String
    /// Whether we set TIOCEXCL (and so clear it on close).
    public let isExclusive: Bool
    /// The descriptor, -1 once closed.
    private let descriptor: Mutex<Int32>

    /// Opens `path` raw and exclusive; sets `baudRate` when given (otherwise the tty keeps its current rate).
    /// Errors: `SystemError` with the errno: EACCES/EPERM (`isPermissionDenied`), EBUSY (held exclusively by
    /// another process), ENOENT (not plugged in), …
    public init(path: String, baudRate: Int? = nil, exclusive: Bool = true) throws(SystemError) {
        self.path = path
        isExclusive = exclusive
        let fd = clinux_serial_open(path, exclusive ? 1 : 0)
        guard fd >= 0 else { throw SystemError("open", path: path, result: Int(fd)) }
        descriptor = Mutex(fd)
        if let baudRate {
            do { try setBaudRate(baudRate) } catch { close(); throw error }
        }
    }

    deinit { close() }

    public var isOpen: Bool { descriptor.withLock { $0 >= 0 } }

    /// Sets input and output rate; any value in `supportedRates` (termios2 BOTHER). Drivers may round or refuse
    /// a rate their clock cannot make: read it back with `baudRate()`.
    public func setBaudRate(_ rate: Int) throws(SystemError) {
        let path = self.path
        guard Self.supportedRates.contains(rate) else { throw SystemError("set baud rate \(rate)", path: path, errno: EINVAL) }
        try descriptor.withLock { (fd: inout Int32) throws(SystemError) -> Void in
            guard fd >= 0 else { throw SystemError("set baud rate", path: path, errno: EBADF) }
            let r = clinux_serial_set_baud(fd, UInt32(rate))
            guard r == 0 else { throw SystemError("set baud rate \(rate)", path: path, result: Int(r)) }
        }
    }

    /// The rate currently set (termios2 `c_ospeed`).
    public func baudRate() throws(SystemError) -> Int {
        let path = self.path
        return try descriptor.withLock { (fd: inout Int32) throws(SystemError) -> Int in
            guard fd >= 0 else { throw SystemError("get baud rate", path: path, errno: EBADF) }
            let r = clinux_serial_get_baud(fd)
            guard r >= 0 else { throw SystemError("get baud rate", path: path, result: r) }
            return r
        }
    }

    /// Drops bytes received but not read yet (after a rate change they were sampled at the old rate).
    public func discardInput() {
        descriptor.withLock { fd in if fd >= 0 { _ = tcflush(fd, TCIFLUSH) } }
    }

    /// Waits up to `timeoutMilliseconds` (poll, never spinning) and reads at most `maxBytes`.
    public func read(maxBytes: Int = 4096, timeoutMilliseconds: Int) throws(SystemError) -> SerialReadResult {
        let path = self.path
        let capacity = max(1, maxBytes)
        return try descriptor.withLock { (fd: inout Int32) throws(SystemError) -> SerialReadResult in
            guard fd >= 0 else { throw SystemError("read", path: path, errno: EBADF) }
            let ready = clinux_wait_readable(fd, Int32(clamping: max(0, timeoutMilliseconds)))
            if ready < 0 { throw SystemError("poll", path: path, result: Int(ready)) }
            if ready == 0 { return .timedOut }
            // Read into scratch space and copy out exactly what arrived: an event holds its bytes, not 4 KB.
            var n = 0
            var monotonic: Int64 = 0
            var bytes: [UInt8] = []
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { scratch in
                // Through the syscall layer (EINTR, fault-injection hook); errors as -errno like the shim's.
                do { n = try Syscall.read(fd, into: UnsafeMutableRawBufferPointer(scratch)) }
                catch let e as SystemPackage.Errno { n = -Int(e.rawValue) } catch { n = -Int(EIO) }
                monotonic = clinux_monotonic_ns()
                if n > 0 { bytes = Array(scratch[..<n]) }
            }
            if n > 0 { return .chunk(SerialChunk(bytes: bytes, monotonicNanos: monotonic)) }
            if n == 0 { return .hungUp }
            if n == -Int(EAGAIN) { return .timedOut } // readable but drained meanwhile
            throw SystemError("read", path: path, result: n)
        }
    }

    /// Writes all of `bytes` (waiting briefly when the driver's buffer is full). Returns the count written.
    @discardableResult
    public func write(_ bytes: [UInt8], timeoutMilliseconds: Int = 1000) throws(SystemError) -> Int {
        let path = self.path
        return try descriptor.withLock { (fd: inout Int32) throws(SystemError) -> Int in
            guard fd >= 0 else { throw SystemError("write", path: path, errno: EBADF) }
            var written = 0
            let deadline = clinux_monotonic_ns() + Int64(timeoutMilliseconds) * 1_000_000
            while written < bytes.count {
                let r = bytes.withUnsafeBytes { raw -> Int in
                    guard let base = raw.baseAddress else { return 0 }
                    return clinux_write(fd, base + written, raw.count - written)
                }
                if r > 0 { written += r; continue }
                if r == 0 { break }
                guard r == -Int(EAGAIN) else { throw SystemError("write", path: path, result: r) }
                if clinux_monotonic_ns() >= deadline { break }
                _ = clinux_sleep_ns(1_000_000)
            }
            return written
        }
    }

    /// Closes the device (idempotent). Clears TIOCEXCL first: the flag belongs to the tty, not to our descriptor,
    /// and a tty that outlives its last close (a pty slave while its master is open, a console) would otherwise
    /// stay locked against everyone else.
    public func close() {
        let exclusive = isExclusive
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            if exclusive { _ = ioctl(fd, UInt(TIOCNXCL)) }
            _ = clinux_close(fd)
            fd = -1
        }
    }
}

extension SystemError {
    /// EBUSY: another process holds the tty exclusively (TIOCEXCL) — gpsd, ModemManager, a terminal program.
    public var isBusy: Bool { errno == EBUSY }

    /// The device went away: unplugged USB serial (EIO, ENODEV, ENXIO), a closed pty master, or a vanished node.
    public var isDisconnect: Bool { errno == EIO || errno == ENODEV || errno == ENXIO || errno == ENOENT }

    /// The authorization this failure means: `.denied` for EACCES/EPERM, `.restricted` for EBUSY, nil otherwise.
    public var authorizationFailure: SourceAuthorization? {
        if isPermissionDenied { return .denied }
        if isBusy { return .restricted }
        return nil
    }
}

extension SerialPort {
    /// The one-line fix for a permission failure on `path`, naming the effective user and the device's group:
    /// `add user pi to group dialout (sudo usermod -aG dialout pi, then log in again), or install udev/60-lodestar.rules`.
    public static func permissionHint(path: String) -> String {
        let user = userName(uid: geteuid())
        var group = "dialout"
        var st = stat()
        if stat(path, &st) == 0, st.st_gid != 0, let name = groupName(gid: st.st_gid) { group = name }
        return "add user \(user) to group \(group) (sudo usermod -aG \(group) \(user), then log in again), "
            + "or install udev/60-lodestar.rules"
    }

    static func userName(uid: uid_t) -> String {
        var pw = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        if getpwuid_r(uid, &pw, &buffer, buffer.count, &result) == 0, result != nil, let name = pw.pw_name {
            return String(cString: name)
        }
        return "\(uid)"
    }

    static func groupName(gid: gid_t) -> String? {
        var gr = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 4096)
        if getgrgid_r(gid, &gr, &buffer, buffer.count, &result) == 0, result != nil, let name = gr.gr_name {
            return String(cString: name)
        }
        return nil
    }
}

// MARK: - Autobaud

/// What autobaud probes: a rate to set and bytes to read. `SerialPort` in production; tests inject a scripted
/// line that only speaks NMEA at one rate.
public protocol BaudProbe {
    func setBaudRate(_ rate: Int) throws(SystemError)
    func discardInput()
    func read(maxBytes: Int, timeoutMilliseconds: Int) throws(SystemError) -> SerialReadResult
}

extension SerialPort: BaudProbe {}

/// The lock criterion: a run of `requiredRun` consecutive NMEA sentences with valid checksums. Any sentence the
/// framer rejects (bad or missing checksum, collision, invalid character, over-long) restarts the run. At a
/// wrong rate the UART delivers noise in which a valid checksum is a 1-in-256 accident; three in a row with
/// nothing rejected between them are not. Bytes outside sentences (binary protocols interleaved, the partial
/// sentence at the start) neither count nor reset.
public final class NMEALockDetector {
    public let requiredRun: Int
    /// Consecutive valid sentences so far (frozen once locked).
    public private(set) var run = 0
    public private(set) var validSentences = 0
    public private(set) var isLocked = false
    private let framer = NMEAFramer()
    private var rejectionsSeen = 0

    public init(requiredRun: Int = 3) { self.requiredRun = max(1, requiredRun) }

    /// Feeds bytes; true once locked (stays true).
    @discardableResult
    public func feed(_ bytes: [UInt8]) -> Bool {
        guard !isLocked else { return true }
        let framer = self.framer
        framer.feed(bytes) { _ in
            guard !isLocked else { return }
            let rejected = framer.statistics.totalRejected
            if rejected != rejectionsSeen { run = 0; rejectionsSeen = rejected }
            run += 1
            validSentences += 1
            if run >= requiredRun { isLocked = true }
        }
        if !isLocked, framer.statistics.totalRejected != rejectionsSeen {
            run = 0
            rejectionsSeen = framer.statistics.totalRejected
        }
        return isLocked
    }
}

/// Finds the rate a receiver talks at: for each candidate, set it, discard what arrived before, listen for a
/// bounded time and lock on `NMEALockDetector`.
public enum Autobaud {
    public struct Settings: Sendable {
        /// Candidates in order (`SerialPort.autobaudRates`: 9600 and 4800 first, the NMEA defaults).
        public var rates: [Int] = SerialPort.autobaudRates
        /// Listening time per rate. A quiet 1 Hz receiver sending only RMC+GGA needs two cycles for three
        /// sentences, plus the partial sentence cut by the rate switch: 2.5 s.
        public var listenNanosPerRate: Int64 = 2_500_000_000
        public var requiredRun = 3
        public var pollMilliseconds = 50
        /// Bytes kept from the locked rate and handed on (oldest chunks dropped beyond this).
        public var maximumKeptBytes = 65_536
        public init() {}
        public static let `default` = Settings()
    }

    public struct Lock: Sendable, Hashable {
        public var baudRate: Int
        /// Everything read at the locked rate, for delivery: nothing the receiver sent is lost.
        public var chunks: [SerialChunk]
        public var ratesTried: [Int]
    }

    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case noLock(ratesTried: [Int])
        case cancelled
        case hungUp
        case system(SystemError)

        public var description: String {
            switch self {
            case .noLock(let rates):
                "no NMEA with valid checksums at \(rates.map(String.init).joined(separator: ", ")) baud"
            case .cancelled: "autobaud cancelled"
            case .hungUp: "device hung up during autobaud"
            case .system(let e): e.description
            }
        }
    }

    /// Probes `settings.rates` in order. `clock` measures the per-rate budget (monotonic ns); `shouldContinue`
    /// is polled between reads so a stop request ends the search within one poll interval.
    public static func detect(_ probe: some BaudProbe, settings: Settings = .default,
                              clock: () -> Int64 = { clinux_monotonic_ns() },
                              shouldContinue: () -> Bool = { true }) throws(Failure) -> Lock {
        var tried: [Int] = []
        for rate in settings.rates {
            guard shouldContinue() else { throw .cancelled }
            tried.append(rate)
            do { try probe.setBaudRate(rate) } catch {
                if error.errno == EINVAL { continue } // a rate this UART cannot make
                throw .system(error)
            }
            probe.discardInput()
            let detector = NMEALockDetector(requiredRun: settings.requiredRun)
            var kept: [SerialChunk] = []
            var keptBytes = 0
            let deadline = clock() + settings.listenNanosPerRate
            while clock() < deadline {
                guard shouldContinue() else { throw .cancelled }
                let result: SerialReadResult
                do { result = try probe.read(maxBytes: 4096, timeoutMilliseconds: settings.pollMilliseconds) } catch {
                    throw error.isDisconnect ? .hungUp : .system(error)
                }
                switch result {
                case .timedOut: continue
                case .hungUp: throw .hungUp
                case .chunk(let chunk):
                    kept.append(chunk)
                    keptBytes += chunk.bytes.count
                    while keptBytes > settings.maximumKeptBytes, kept.count > 1 { keptBytes -= kept.removeFirst().bytes.count }
                    if detector.feed(chunk.bytes) { return Lock(baudRate: rate, chunks: kept, ratesTried: tried) }
                }
            }
        }
        throw .noLock(ratesTried: tried)
    }
}
