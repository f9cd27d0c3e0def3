#if canImport(Glibc)
import Glibc
#endif
import CLinux
import SystemPackage

/// Writes output lines into a named pipe without ever blocking the pipeline.
///
/// - The FIFO is created (mode 0660) when missing; an existing non-FIFO path is an error.
/// - With no reader, `open(O_WRONLY|O_NONBLOCK)` fails with ENXIO: lines are dropped and counted, and the open
///   is retried at most every `reopenIntervalNanos`.
/// - When the reader leaves, the write fails with EPIPE (SIGPIPE is ignored process-wide): the FIFO is closed
///   and reopened once a reader returns.
/// - A full pipe (EAGAIN) drops the lines that do not fit, whole lines only: batches are cut at line ends and
///   kept within PIPE_BUF so each write is atomic and a reader never sees half a line.
/// - Any other write error (EIO …) is recorded in `failure` and handled like a reader that left.
/// Every line handed in is either delivered (`writtenLines`) or dropped (`droppedLines`).
public final class FIFOSink: OutputSink {
    public let path: String
    public private(set) var droppedLines = 0
    public private(set) var writtenLines = 0
    public private(set) var reopenCount = 0
    /// The last unexpected write error (not ENXIO, EAGAIN or EPIPE, which are a FIFO's normal life).
    public private(set) var failure: SystemError?
    public let isBroken = false
    public var reopenIntervalNanos: Int64 = 200_000_000
    private var fd: Int32 = -1
    private var lastAttempt: Int64 = .min

    public var deliveredLines: Int { writtenLines }
    public var name: String { "FIFO \(path)" }

    /// Why a FIFO could not be set up.
    public struct CreateError: Error, CustomStringConvertible {
        public let path: String
        public let message: String
        public let isPermissionDenied: Bool
        public var description: String { "\(path): \(message)" }
    }

    public init(path: String) throws(CreateError) {
        self.path = path
        clinux_ignore_sigpipe()
        if let type = Syscall.fileType(path) {
            if type != S_IFIFO {
                let kind = type == S_IFREG ? "a regular file" : type == S_IFDIR ? "a directory" : "not a FIFO"
                throw CreateError(path: path, message: "exists and is \(kind), not a FIFO; remove it or choose another --fifo path",
                                  isPermissionDenied: false)
            }
        } else {
            do { try Syscall.makeFIFO(path, mode: 0o660) } catch {
                let e = SystemError("create FIFO", errno: error.rawValue)
                throw CreateError(path: path, message: e.description, isPermissionDenied: e.isPermissionDenied)
            }
        }
        tryOpen(force: true)
    }

    deinit { close() }

    public var hasReader: Bool { fd >= 0 }

    private func tryOpen(force: Bool = false) {
        guard fd < 0 else { return }
        let now = monotonicNanos()
        guard force || now - lastAttempt >= reopenIntervalNanos else { return }
        lastAttempt = now
        if let f = try? Syscall.open(path, flags: O_WRONLY | O_NONBLOCK) { fd = f; reopenCount += 1 }
    }

    public func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !bytes.isEmpty else { return }
        let raw = UnsafeRawBufferPointer(bytes)
        tryOpen()
        var start = 0
        while start < raw.count {
            // Whole lines up to PIPE_BUF (or one longer line on its own).
            let end = lineAlignedEnd(raw, from: start, limit: Syscall.pipeBuffer)
            let chunk = UnsafeRawBufferPointer(rebasing: raw[start..<end])
            let lines = max(1, lineCount(chunk))
            defer { start = end }
            if fd < 0 { droppedLines += lines; continue }
            do {
                let n = try Syscall.write(fd, chunk)
                if n < chunk.count {
                    // Only possible for a single line longer than PIPE_BUF: finish it so the stream stays line-aligned.
                    if finish(UnsafeRawBufferPointer(rebasing: chunk[n...])) { writtenLines += lines }
                    else { droppedLines += lines; dropReader() }
                } else {
                    writtenLines += lines
                }
            } catch .resourceTemporarilyUnavailable {
                droppedLines += lines
            } catch {
                droppedLines += lines
                if error != .brokenPipe && error != .interrupted { failure = SystemError("write", path: path, error) }
                dropReader()
            }
        }
    }

    private func finish(_ rest: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        var waits = 0
        while offset < rest.count {
            do {
                offset += try Syscall.write(fd, UnsafeRawBufferPointer(rebasing: rest[offset...]))
            } catch .resourceTemporarilyUnavailable where waits < 50 {
                _ = try? Syscall.waitWritable(fd, timeoutMilliseconds: 1)
                waits += 1
            } catch {
                if error != .brokenPipe && error != .resourceTemporarilyUnavailable {
                    failure = SystemError("write", path: path, error)
                }
                return false
            }
        }
        return true
    }

    private func dropReader() {
        if fd >= 0 { Syscall.close(fd) }
        fd = -1
        lastAttempt = monotonicNanos()
    }

    public func close() {
        if fd >= 0 { Syscall.close(fd) }
        fd = -1
    }
}
