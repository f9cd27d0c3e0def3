import CLinux
import LocationCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Time for chrony through its `refclock SOCK` driver (chrony's refclock_sock.c): one `struct sock_sample`
/// datagram per fix, `tv` = the system clock when the first byte of the cycle's first timed sentence arrived
/// (`Location.receiveTime`), `offset` = the fix's UTC − `tv`. chronyd owns the socket (it creates it at start);
/// while it is absent, samples are counted as not sent and the connection is retried once per second.
/// The NMEA transmission delay of the receiver (tens to hundreds of ms) is a constant: chrony.conf's `offset`
/// removes it (docs/chrony.md).
public final class ChronySOCKSink {
    public let path: String
    private var fd: Int32 = -1
    private var lastAttemptNanos: Int64?
    public private(set) var sent = 0
    public private(set) var notSent = 0
    public private(set) var lastError: Int32 = 0

    public init(path: String) { self.path = path }

    deinit { if fd >= 0 { close(fd) } }

    /// The sample for `fix` (nil without a receive time or a valid time; a fix without a position still has a time).
    public static func sample(for fix: Location) -> (tvSec: Int64, tvUsec: Int64, offset: Double)? {
        guard let t = fix.time, let r = fix.receiveTime, fix.mode == .twoD || fix.mode == .threeD else { return nil }
        let rn = r.nanosecondsSince1970
        let tvSec = rn / 1_000_000_000, tvUsec = (rn % 1_000_000_000) / 1000
        let tvNanos = tvSec * 1_000_000_000 + tvUsec * 1000
        return (tvSec, tvUsec, Double(t.nanosecondsSince1970 - tvNanos) / 1e9)
    }

    /// Sends the sample of one fix (never blocks).
    public func send(_ fix: Location) {
        guard let s = Self.sample(for: fix) else { return }
        if fd < 0 {
            let now = clinux_monotonic_ns()
            if let last = lastAttemptNanos, now - last < 1_000_000_000 { notSent += 1; return }
            lastAttemptNanos = now
            let r = clinux_unix_dgram_connect(path)
            guard r >= 0 else { lastError = -r; notSent += 1; return }
            fd = r
        }
        let r = clinux_chrony_send(fd, s.tvSec, s.tvUsec, s.offset, 0, 0)
        if r == 0 { sent += 1; return }
        lastError = -r
        notSent += 1
        if r != -EAGAIN { close(fd); fd = -1 }  // chronyd restarted: reconnect
    }
}

/// A PPS device (`/dev/ppsN`, Linux PPS API = RFC 2783 through the C shim's PPS_FETCH) feeding chrony's SOCK
/// refclock with pulse samples (`pulse` = 1: the offset from the nearest whole second; chrony takes the seconds
/// from another source — the NMEA SOCK refclock — via `lock`). Runs on its own thread.
public final class PPSToChrony: @unchecked Sendable {
    public let device: String
    public let socketPath: String
    private let stopFlag = Atomic<Bool>(false)
    private let pulses = Atomic<Int>(0)
    private var thread: pthread_t?
    private let fd: Int32

    /// Opens the PPS device; throws a one-line description when it cannot.
    public init(device: String, socketPath: String) throws(PPSError) {
        let r = clinux_pps_open(device)
        guard r >= 0 else { throw PPSError(device: device, errno: -r) }
        fd = r
        self.device = device
        self.socketPath = socketPath
    }

    public struct PPSError: Error, CustomStringConvertible {
        public let device: String
        public let errno: Int32
        public var description: String { "PPS \(device): \(String(cString: strerror(errno)))" }
    }

    public var pulsesSent: Int { pulses.load(ordering: .relaxed) }

    /// The pulse sample for an assert edge at system time (sec, nsec).
    public static func pulseOffset(nanoseconds nsec: Int32) -> Double {
        let frac = Double(nsec) / 1e9
        return frac < 0.5 ? -frac : 1 - frac
    }

    public func start() {
        let box = Unmanaged.passRetained(self)
        var t = pthread_t()
        pthread_create(&t, nil, { arg in
            let me = Unmanaged<PPSToChrony>.fromOpaque(arg!).takeRetainedValue()
            me.loop()
            return nil
        }, box.toOpaque())
        thread = t
    }

    private func loop() {
        var sock: Int32 = -1
        while !stopFlag.load(ordering: .relaxed) {
            var sec: Int64 = 0, nsec: Int32 = 0, seq: UInt32 = 0
            let r = clinux_pps_fetch(fd, 500, &sec, &nsec, &seq)
            guard r == 0 else {
                if r != -ETIMEDOUT && r != -EINTR { _ = clinux_sleep_ns(500_000_000) }
                continue
            }
            if sock < 0 { sock = clinux_unix_dgram_connect(socketPath) }
            guard sock >= 0 else { sock = -1; continue }
            if clinux_chrony_send(sock, sec, Int64(nsec / 1000), Self.pulseOffset(nanoseconds: nsec), 1, 0) == 0 {
                pulses.add(1, ordering: .relaxed)
            } else {
                close(sock); sock = -1
            }
        }
        if sock >= 0 { close(sock) }
    }

    public func stop() {
        stopFlag.store(true, ordering: .relaxed)
        if let t = thread { pthread_join(t, nil); thread = nil }
        close(fd)
    }
}
