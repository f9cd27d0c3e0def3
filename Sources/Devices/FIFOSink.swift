#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Pipeline

/// Writes output lines into a named pipe without ever blocking the pipeline.
///
/// - The FIFO is created (mode 0660) when missing; an existing non-FIFO path is an error.
/// - With no reader, `open(O_WRONLY|O_NONBLOCK)` fails with ENXIO: lines are dropped and counted, and the open
///   is retried at most every `reopenIntervalNanos`.
/// - When the reader leaves, the write fails with EPIPE (SIGPIPE is ignored process-wide): the FIFO is closed
///   and reopened once a reader returns.
/// - A full pipe (EAGAIN) drops the lines that do not fit, whole lines only: batches are cut at line ends and
///   kept within PIPE_BUF so each write is atomic and a reader never sees half a line.
public final class FIFOSink: OutputSink {
    public let path: String
    public private(set) var droppedLines = 0
    public private(set) var writtenLines = 0
    public private(set) var reopenCount = 0
    public let isBroken = false
    public var reopenIntervalNanos: Int64 = 200_000_000
    private var fd: Int32 = -1
    private var lastAttempt: Int64 = .min
    private static let pipeBuf = 4096

    public init(path: String) throws(SystemError) {
        self.path = path
        clinux_ignore_sigpipe()
        let r = clinux_fifo_ensure(path, 0o660)
        if r < 0 { throw SystemError("create FIFO", path: path, result: Int(r)) }
        tryOpen(force: true)
    }

    deinit { close() }

    public var hasReader: Bool { fd >= 0 }

    private func tryOpen(force: Bool = false) {
        guard fd < 0 else { return }
        let now = clinux_monotonic_ns()
        guard force || now - lastAttempt >= reopenIntervalNanos else { return }
        lastAttempt = now
        let r = clinux_fifo_open_writer(path)
        if r >= 0 { fd = r; reopenCount += 1 }
    }

    public func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        tryOpen()
        var start = 0
        while start < bytes.count {
            // Take whole lines up to PIPE_BUF (or one longer line on its own).
            var end = start
            var lines = 0
            var scan = start
            while scan < bytes.count {
                if base[scan] == 0x0A {
                    if scan + 1 - start > Self.pipeBuf && lines > 0 { break }
                    end = scan + 1
                    lines += 1
                    if end - start >= Self.pipeBuf { break }
                }
                scan += 1
            }
            if lines == 0 { end = bytes.count; lines = 1 } // trailing partial line (not expected)
            if fd < 0 { droppedLines += lines; start = end; continue }
            let n = clinux_write(fd, base + start, end - start)
            if n == end - start {
                writtenLines += lines
            } else if n >= 0 {
                // Only possible for a single line longer than PIPE_BUF: finish it so the stream stays line-aligned.
                if !finish(base + start + Int(n), end - start - Int(n)) { dropReader() }
                writtenLines += lines
            } else if n == -Int(EAGAIN) {
                droppedLines += lines
            } else {
                droppedLines += lines
                dropReader()
            }
            start = end
        }
    }

    private func finish(_ p: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        var offset = 0
        var waits = 0
        while offset < count {
            let n = clinux_write(fd, p + offset, count - offset)
            if n > 0 { offset += Int(n); continue }
            if n == -Int(EAGAIN) && waits < 50 {
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&pfd, 1, 1)
                waits += 1
                continue
            }
            return false
        }
        return true
    }

    private func dropReader() {
        if fd >= 0 { _ = clinux_close(fd) }
        fd = -1
        lastAttempt = clinux_monotonic_ns()
    }

    public func close() {
        if fd >= 0 { _ = clinux_close(fd) }
        fd = -1
    }
}
