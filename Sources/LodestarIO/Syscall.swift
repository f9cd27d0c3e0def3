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
        try retrying(.read, fd: fd, length: buffer.count) { length in
            try FileDescriptor(rawValue: fd).read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<length]),
                                                  retryOnInterrupt: false)
        }
    }

    /// One write(2) of `buffer`: bytes written (possibly fewer than asked).
    public static func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
        try retrying(.write, fd: fd, length: buffer.count) { length in
            try FileDescriptor(rawValue: fd).write(UnsafeRawBufferPointer(rebasing: buffer[..<length]), retryOnInterrupt: false)
        }
    }

    /// The one EINTR retry loop: asks the fault injector (which may fail the call or shorten it to fewer bytes),
    /// then makes the call with that length. EINTR, injected or real, is retried until a stop was requested; then
    /// it is thrown. (EAGAIN is the caller's: `writeAll` waits for room, a non-blocking reader polls.)
    private static func retrying(_ operation: FaultInjector.Operation?, fd: Int32?, path: String? = nil, length: Int = 0,
                                 _ call: (_ length: Int) throws -> Int) throws(Errno) -> Int {
        var length = length
        while true {
            switch operation.flatMap({ FaultInjector.shared.check($0, fd: fd, path: path, length: length) }) {
            case .fail(let e):
                if e == .interrupted && !stopRequested { continue }
                throw e
            case .limit(let n): length = n
            case nil: break
            }
            do {
                return try call(length)
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
        let fd = try retrying(.open, fd: nil, path: path) { _ in
            let fd = Glibc.open(path, flags | O_CLOEXEC, mode)
            if fd < 0 { throw Errno(rawValue: Glibc.errno) }
            return Int(fd)
        }
        FaultInjector.shared.opened(Int32(fd), path: path)
        return Int32(fd)
    }

    /// close(2); EINTR is not retried (Linux has already released the descriptor).
    public static func close(_ fd: Int32) {
        FaultInjector.shared.closed(fd)
        _ = Glibc.close(fd)
    }

    /// close(2) of a file just written, reporting its error (NFS and some FUSE file systems report failed
    /// write-back only here). EINTR counts as closed.
    public static func closeWritten(_ fd: Int32) throws(Errno) {
        FaultInjector.shared.closed(fd)
        if Glibc.close(fd) != 0, Glibc.errno != EINTR { throw Errno(rawValue: Glibc.errno) }
    }

    /// rename(2).
    public static func rename(_ from: String, to: String) throws(Errno) {
        if Glibc.rename(from, to) != 0 { throw Errno(rawValue: Glibc.errno) }
    }

    /// unlink(2) of a temporary or finished file; a failure (already gone) is not reported.
    public static func remove(_ path: String) {
        _ = Glibc.unlink(path)
    }

    /// truncate(2): cuts the file at `path` to `length` bytes.
    public static func truncate(_ path: String, length: Int) throws(Errno) {
        if Glibc.truncate(path, off_t(length)) != 0 { throw Errno(rawValue: Glibc.errno) }
    }

    /// ftruncate(2): cuts the open file `fd` to `length` bytes.
    public static func truncate(_ fd: Int32, length: Int64) throws(Errno) {
        if Glibc.ftruncate(fd, off_t(length)) != 0 { throw Errno(rawValue: Glibc.errno) }
    }

    /// The names in a directory (without `.` and `..`), in no particular order.
    public static func directoryEntries(_ path: String) throws(Errno) -> [String] {
        guard let dir = opendir(path) else { throw Errno(rawValue: Glibc.errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let e = readdir(dir) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// access(2) with W_OK: whether this process may write to `path`; the errno when not.
    public static func checkWritable(_ path: String) throws(Errno) {
        if access(path, W_OK) != 0 { throw Errno(rawValue: Glibc.errno) }
    }

    /// mkdir(2); an existing path is left alone (the caller checks what it is).
    public static func makeDirectory(_ path: String, mode: mode_t) throws(Errno) {
        if Glibc.mkdir(path, mode) != 0 && Glibc.errno != EEXIST { throw Errno(rawValue: Glibc.errno) }
    }

    /// Creates (or truncates) `path` and writes all of `bytes` to it. A failure names the path and the step:
    /// `create`, `write` or `close`.
    public static func writeWholeFile(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o644) throws(SystemError) {
        let fd: Int32
        do { fd = try open(path, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: mode) } catch { throw SystemError("create", path: path, error) }
        do { try writeFully(fd, bytes) } catch {
            close(fd)
            throw SystemError("write", path: path, error)
        }
        do { try closeWritten(fd) } catch { throw SystemError("close", path: path, error) }
    }

    /// Replaces `path` atomically: `bytes` go to `temporary` beside it (default `path.tmp`), which is fsynced when
    /// `synced` and then renamed over `path`, so a crash leaves the old file or the new one, never half of one.
    /// On failure the temporary file is removed; the error names `path` and the step (`create`, `write`, `sync`,
    /// `close`, `rename`).
    public static func replaceFile(_ path: String, with bytes: [UInt8], temporary: String? = nil, mode: mode_t = 0o644,
                                   synced: Bool = true) throws(SystemError) {
        let temporary = temporary ?? path + ".tmp"
        let fd: Int32
        do { fd = try open(temporary, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: mode) } catch { throw SystemError("create", path: path, error) }
        var step = "write"
        do {
            try writeFully(fd, bytes)
            step = "sync"
            if synced { try fsync(fd) }
            step = "close"
            try closeWritten(fd)
            step = "rename"
            try rename(temporary, to: path)
        } catch {
            if step == "write" || step == "sync" { close(fd) }
            remove(temporary)
            throw SystemError(step, path: path, error)
        }
    }

    /// fsync(2), or fdatasync(2) with `dataOnly` (the data and the size, not the times).
    public static func fsync(_ fd: Int32, dataOnly: Bool = false) throws(Errno) {
        do {
            _ = try retrying(nil, fd: fd) { _ in
                if (dataOnly ? Glibc.fdatasync(fd) : Glibc.fsync(fd)) != 0 { throw Errno(rawValue: Glibc.errno) }
                return 0
            }
        } catch .invalidArgument, .notSupported, .readOnlyFileSystem {
            // Pipes, ttys and /dev/full cannot be synced; that is not a lost write.
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

    /// Writes `text` to `fd` (standard error unless told), best effort: the way messages and error lines go out,
    /// whose own failure has nowhere to be reported.
    public static func writeMessage(_ text: String, to fd: Int32 = 2) {
        try? writeFully(fd, Array(text.utf8))
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
