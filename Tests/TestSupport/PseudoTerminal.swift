import CLinux
import Foundation
import Synchronization

/// A real pseudo-terminal pair (`clinux_pty_open`): tests write into the master what a receiver would send;
/// the code under test opens `slavePath` like any serial device. The master's termios calls apply to the slave
/// on Linux, so the slave starts raw (no echo, no CR/LF translation) and bytes arrive unchanged.
///
/// Closing the master is an unplug: the slave's reader sees POLLHUP and read() = 0, and the
/// `/dev/pts/N` node disappears at once.
public final class PseudoTerminal: Sendable {
    public let slavePath: String
    private let master: Mutex<Int32>

    public init() throws {
        var name = [CChar](repeating: 0, count: 128)
        let fd = clinux_pty_open(&name, name.count)
        guard fd >= 0 else { throw NSError(domain: "pty", code: Int(-fd)) }
        master = Mutex(fd)
        slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { closeMaster() }

    public var isOpen: Bool { master.withLock { $0 >= 0 } }

    /// Writes into the master (the slave reads it). Returns the bytes accepted: fewer when the slave's input
    /// buffer is full (nobody reading), 0 once closed.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Int {
        master.withLock { fd in
            guard fd >= 0, !bytes.isEmpty else { return 0 }
            var written = 0
            while written < bytes.count {
                let r = bytes.withUnsafeBytes { raw -> Int in
                    guard let base = raw.baseAddress else { return 0 }
                    return clinux_write(fd, base + written, raw.count - written)
                }
                if r <= 0 { break }
                written += r
            }
            return written
        }
    }

    @discardableResult
    public func write(_ text: String) -> Int { write(Array(text.utf8)) }

    /// Reads what the slave side wrote (non-blocking; empty when nothing is there).
    public func readAvailable(timeoutMilliseconds: Int32 = 0) -> [UInt8] {
        master.withLock { fd in
            guard fd >= 0, clinux_wait_readable(fd, timeoutMilliseconds) > 0 else { return [] }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = buffer.withUnsafeMutableBytes { clinux_read(fd, $0.baseAddress, $0.count) }
            return n > 0 ? Array(buffer.prefix(n)) : []
        }
    }

    /// Unplug: closes the master (idempotent).
    public func closeMaster() {
        master.withLock { fd in
            if fd >= 0 { _ = clinux_close(fd); fd = -1 }
        }
    }

    /// Writes `bytes` every `intervalMilliseconds` on a background thread until the feeder is stopped
    /// (a receiver's periodic output).
    public func startFeeding(_ bytes: [UInt8], everyMilliseconds intervalMilliseconds: Int) -> Feeder {
        Feeder(pty: self, bytes: bytes, intervalNanos: Int64(intervalMilliseconds) * 1_000_000)
    }
}

/// A thread writing the same block into a pty periodically; `stop()` returns after the thread ended.
public final class Feeder: Sendable {
    private let running = Atomic<Bool>(true)
    private let finished = Atomic<Bool>(false)
    private let writes = Atomic<Int>(0)

    init(pty: PseudoTerminal, bytes: [UInt8], intervalNanos: Int64) {
        let thread = Thread { [self] in
            while running.load(ordering: .acquiring) {
                pty.write(bytes)
                writes.add(1, ordering: .relaxed)
                var left = intervalNanos
                while left > 0, running.load(ordering: .acquiring) {
                    _ = clinux_sleep_ns(min(left, 10_000_000))
                    left -= 10_000_000
                }
            }
            finished.store(true, ordering: .releasing)
        }
        thread.start()
    }

    /// Number of blocks written so far.
    public var count: Int { writes.load(ordering: .relaxed) }

    public func stop() {
        running.store(false, ordering: .releasing)
        while !finished.load(ordering: .acquiring) { usleep(1000) }
    }
}
