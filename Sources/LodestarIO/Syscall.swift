#if canImport(Glibc)
import Glibc
#endif
import CLinux
import SystemPackage

/// The one syscall layer every sink and file source goes through (swift-system underneath).
///
/// - EINTR is retried here and nowhere else — except once SIGINT/SIGTERM asked the process to stop
///   (`clinux_stop_requested`), when it is thrown, so nothing stays blocked after a stop.
/// - Failures are `Errno` values (swift-system); callers wrap them in `SystemError` with the operation and the
///   path, which prints one actionable line.
/// - `FaultInjector.shared` (the test hook, `LODESTAR_FAULTS`) is consulted before every call.
public enum Syscall {
    /// True once a stop signal arrived (the shim's async-signal-safe flag).
    public static var stopRequested: Bool { clinux_stop_requested() != 0 }

    /// read(2) into `buffer`: bytes read, 0 at end of file.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        var length = buffer.count
        while true {
            switch FaultInjector.shared.check(.read, fd: fd, length: length) {
            case .fail(let e):
                if e == .interrupted { if stopRequested { throw e }; continue }
                throw e
            case .limit(let n): length = n
            case nil: break
            }
            do {
                return try FileDescriptor(rawValue: fd).read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<length]),
                                                            retryOnInterrupt: false)
            } catch let e as Errno {
                if e == .interrupted && !stopRequested { continue }
                throw e
            } catch { throw .ioError }
        }
    }

    /// One write(2) of `buffer`: bytes written (possibly fewer than asked).
    public static func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
        var length = buffer.count
        while true {
            switch FaultInjector.shared.check(.write, fd: fd, length: length) {
            case .fail(let e):
                if e == .interrupted { if stopRequested { throw e }; continue }
                throw e
            case .limit(let n): length = n
            case nil: break
            }
            do {
                return try FileDescriptor(rawValue: fd).write(UnsafeRawBufferPointer(rebasing: buffer[..<length]),
                                                             retryOnInterrupt: false)
            } catch let e as Errno {
                if e == .interrupted && !stopRequested { continue }
                throw e
            } catch { throw .ioError }
        }
    }

    /// Writes all of `buffer` to a blocking or non-blocking descriptor, waiting (in `waitSliceMilliseconds`
    /// slices) while it is full. Returns the bytes written: all of them, or fewer when `giveUp()` became true
    /// while waiting. Throws the first hard error (ENOSPC, EIO, EPIPE …) after `written` bytes.
    public static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, waitSliceMilliseconds: Int32 = 50,
                                giveUp: () -> Bool) throws(PartialWrite) -> Int {
        var offset = 0
        while offset < buffer.count {
            // Wait for room first, so a stalled reader never blocks us past a stop request. A chunk of at most
            // PIPE_BUF bytes then fits without blocking in a pipe that polled writable.
            do {
                while try !waitWritable(fd, timeoutMilliseconds: waitSliceMilliseconds) {
                    if giveUp() { return offset }
                }
            } catch { throw PartialWrite(written: offset, errno: error) }
            let chunk = min(buffer.count - offset, Self.pipeBuffer)
            do {
                offset += try write(fd, UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + chunk)]))
            } catch .resourceTemporarilyUnavailable {
                if giveUp() { return offset }
            } catch .interrupted {
                return offset // only thrown once a stop was requested
            } catch {
                throw PartialWrite(written: offset, errno: error)
            }
        }
        return offset
    }

    public struct PartialWrite: Error, Equatable {
        public let written: Int
        public let errno: Errno
    }

    /// PIPE_BUF: writes up to this size into a pipe are atomic.
    public static let pipeBuffer = 4096

    /// open(2) (O_CLOEXEC added): the descriptor.
    public static func open(_ path: String, flags: Int32, mode: mode_t = 0o644) throws(Errno) -> Int32 {
        while true {
            if case .fail(let e) = FaultInjector.shared.check(.open, fd: nil, path: path) {
                if e == .interrupted && !stopRequested { continue }
                throw e
            }
            let fd = Glibc.open(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { FaultInjector.shared.opened(fd, path: path); return fd }
            let e = Errno(rawValue: Glibc.errno)
            if e == .interrupted && !stopRequested { continue }
            throw e
        }
    }

    /// close(2); EINTR is not retried (Linux has already released the descriptor).
    public static func close(_ fd: Int32) {
        FaultInjector.shared.closed(fd)
        _ = Glibc.close(fd)
    }

    /// fsync(2).
    public static func fsync(_ fd: Int32) throws(Errno) {
        while Glibc.fsync(fd) != 0 {
            let e = Errno(rawValue: Glibc.errno)
            if e == .interrupted && !stopRequested { continue }
            // Pipes, ttys and /dev/full cannot be synced; that is not a lost write.
            if e == .invalidArgument || e == .notSupported || e == .readOnlyFileSystem { return }
            throw e
        }
    }

    /// Waits until `fd` accepts a write: true when writable (or in error, so the next write reports it).
    public static func waitWritable(_ fd: Int32, timeoutMilliseconds: Int32) throws(Errno) -> Bool {
        try wait(fd, events: Int16(POLLOUT), timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Waits until `fd` is readable (or at end/error): true when ready.
    public static func waitReadable(_ fd: Int32, timeoutMilliseconds: Int32) throws(Errno) -> Bool {
        try wait(fd, events: Int16(POLLIN), timeoutMilliseconds: timeoutMilliseconds)
    }

    private static func wait(_ fd: Int32, events: Int16, timeoutMilliseconds: Int32) throws(Errno) -> Bool {
        var p = pollfd(fd: fd, events: events, revents: 0)
        let r = poll(&p, 1, timeoutMilliseconds)
        if r > 0 { return true }
        if r == 0 { return false }
        let e = Errno(rawValue: Glibc.errno)
        if e == .interrupted { return false } // the caller's loop checks for a stop
        throw e
    }

    /// mkfifo(3) with exactly `mode` (not narrowed by the umask); an existing path is left alone.
    public static func makeFIFO(_ path: String, mode: mode_t) throws(Errno) {
        if mkfifo(path, mode) != 0 && Glibc.errno != EEXIST { throw Errno(rawValue: Glibc.errno) }
        _ = chmod(path, mode) // the umask must not narrow the requested mode
    }

    /// Writes all of `buffer` to a blocking descriptor (a regular file, a terminal, standard output of a batch
    /// command): short writes are continued, EINTR is retried by `write`. Throws the first error.
    public static func writeFully(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(Errno) {
        var offset = 0
        while offset < buffer.count {
            offset += try write(fd, UnsafeRawBufferPointer(rebasing: buffer[offset...]))
        }
    }

    /// `writeFully` of a byte array.
    public static func writeFully(_ fd: Int32, _ bytes: [UInt8]) throws(Errno) {
        do { try bytes.withUnsafeBytes { try writeFully(fd, $0) } } catch { throw (error as? Errno) ?? .ioError }
    }

    /// The whole content of a (small) file: open, read to the end, close.
    public static func readWholeFile(_ path: String) throws(Errno) -> [UInt8] {
        let fd = try open(path, flags: O_RDONLY)
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n: Int
            do { n = try chunk.withUnsafeMutableBytes { try read(fd, into: $0) } } catch { throw (error as? Errno) ?? .ioError }
            if n == 0 { return out }
            out += chunk[0..<n]
        }
    }

    /// The file type of `path` (S_IFMT bits), or nil when it does not exist.
    public static func fileType(_ path: String) -> mode_t? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return st.st_mode & S_IFMT
    }
}
