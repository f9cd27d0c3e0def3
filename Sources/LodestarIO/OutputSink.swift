#if canImport(Glibc)
import Glibc
#endif
import CLinux
import SystemPackage

/// Where encoded output goes. Every write is checked: a sink delivers whole lines, drops (and counts) what it
/// cannot take, and records why it failed. Lines handed to a sink = `deliveredLines` + `droppedLines`
/// (+ lines still queued until `close()`).
public protocol OutputSink: AnyObject {
    /// Writes whole lines (one or more complete events).
    func write(_ bytes: UnsafeBufferPointer<UInt8>)
    /// Delivers what is still queued (waiting at most briefly) and releases the output.
    func close()
    /// True once the sink can never accept data again (stdout's reader went away, or a write failed).
    var isBroken: Bool { get }
    /// Lines the sink could not deliver.
    var droppedLines: Int { get }
    /// Lines delivered whole.
    var deliveredLines: Int { get }
    /// The write error that broke the sink (nil when it works, or its reader merely left: EPIPE on stdout).
    var failure: SystemError? { get }
    /// What to call this output in messages ("standard output", the FIFO's path).
    var name: String { get }
}

extension OutputSink {
    public var deliveredLines: Int { 0 }
    public var failure: SystemError? { nil }
    public var name: String { "output" }
}

/// Counts line feeds.
@inline(__always)
func lineCount(_ bytes: UnsafeRawBufferPointer) -> Int {
    // memchr (vectorised in glibc) from line to line: a byte loop here cost 3 % of a gpsd-output replay.
    guard var p = bytes.baseAddress else { return 0 }
    let end = p + bytes.count
    var n = 0
    while p < end, let hit = memchr(p, 0x0A, end - p) {
        n += 1
        p = UnsafeRawPointer(hit) + 1
    }
    return n
}

/// The end (exclusive) of the longest run of whole lines from `start` that is at most `limit` bytes, or of the
/// first line when that alone is longer; `bytes.count` when no line feed follows (a partial tail).
/// (memrchr/memchr: the byte-by-byte scan this replaced cost 4 % of a gpsd-output replay.)
func lineAlignedEnd(_ bytes: UnsafeRawBufferPointer, from start: Int, limit: Int) -> Int {
    guard let base = bytes.baseAddress, start < bytes.count else { return bytes.count }
    let window = min(limit, bytes.count - start)
    if window > 0, let last = clinux_memrchr(base + start, 0x0A, window) {
        return UnsafeRawPointer(last) - base + 1
    }
    // No line feed within the limit: the first line alone (longer than the limit), or a partial tail.
    let rest = bytes.count - start - window
    if rest > 0, let first = memchr(base + start + window, 0x0A, rest) {
        return UnsafeRawPointer(first) - base + 1
    }
    return bytes.count
}

/// Standard output (or any descriptor), in one of two modes:
///
/// - `.filter` (replay, batch commands): waits while the reader is slow, like any Unix filter — but in slices,
///   so SIGINT/SIGTERM end the wait within `stopGraceNanos` (the rest is dropped and counted).
/// - `.live(maximumQueuedBytes:)` (`run`): never blocks the pipeline. Whole lines that do not fit into the pipe
///   wait in a bounded queue; when it is full the *oldest* lines are dropped and counted, so a reader that stalls
///   and resumes gets the newest data, never a backlog of stale fixes.
///
/// EPIPE (the reader left, e.g. `| head`) marks the sink broken without a failure. Any other error (ENOSPC, EIO,
/// EBADF …) marks it broken with `failure` set; the CLI then exits 74 naming the output. Writes are cut at line
/// ends (at most PIPE_BUF bytes per write into a pipe), so a reader never sees half a line from a stop.
public final class FileDescriptorSink: OutputSink {
    public enum Mode: Sendable, Equatable {
        case filter
        case live(maximumQueuedBytes: Int)
    }

    public let fd: Int32
    public let name: String
    public let mode: Mode
    public private(set) var isBroken = false
    public private(set) var droppedLines = 0
    public private(set) var deliveredLines = 0
    public private(set) var failure: SystemError?
    /// Lines dropped from the live queue because the reader was too slow (also counted in `droppedLines`).
    public private(set) var droppedOldestLines = 0
    /// How long a stop request may still wait for a slow reader.
    public var stopGraceNanos: Int64 = 300_000_000
    /// Waits at most this long in `close()` for a live queue to drain.
    public var closeTimeoutNanos: Int64 = 1_000_000_000
    /// The errno of the failure (0 when none).
    public var errorNumber: Int32 { failure?.errno ?? 0 }

    private let chunkLimit: Int
    private var queue: [UInt8] = []
    private var queuedLines = 0
    private var stopSeenAt: Int64?

    public init(fd: Int32 = 1, name: String = "standard output", mode: Mode = .filter) {
        self.fd = fd
        self.name = name
        self.mode = mode
        var st = stat()
        let regular = fstat(fd, &st) == 0 && ((st.st_mode & S_IFMT) == S_IFREG || (st.st_mode & S_IFMT) == S_IFBLK)
        chunkLimit = regular ? 1 << 16 : Syscall.pipeBuffer
    }

    public func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !bytes.isEmpty else { return }
        let raw = UnsafeRawBufferPointer(bytes)
        if isBroken { droppedLines += lineCount(raw); return }
        switch mode {
        case .filter:
            writeWaiting(raw)
        case .live(let limit):
            queue.append(contentsOf: raw)
            queuedLines += lineCount(raw)
            drainQueue(waitMilliseconds: 0)
            if queue.count > limit { dropOldest(toFit: limit) }
        }
    }

    /// Writes whole-line chunks, waiting for room; gives up (dropping the rest) only once a stop was requested
    /// and the grace period has passed.
    private func writeWaiting(_ raw: UnsafeRawBufferPointer) {
        var start = 0
        while start < raw.count {
            let end = lineAlignedEnd(raw, from: start, limit: chunkLimit)
            let chunk = UnsafeRawBufferPointer(rebasing: raw[start..<end])
            do {
                let n = try Syscall.writeAll(fd, chunk, giveUp: stopGraceOver)
                if n < chunk.count {
                    // Gave up on a stop: whole chunks only were written before.
                    deliveredLines += lineCount(UnsafeRawBufferPointer(rebasing: chunk[..<n]))
                    droppedLines += lineCount(UnsafeRawBufferPointer(rebasing: raw[(start + n)...]))
                    return
                }
                deliveredLines += lineCount(chunk)
            } catch {
                let written = UnsafeRawBufferPointer(rebasing: chunk[..<error.written])
                deliveredLines += lineCount(written)
                droppedLines += lineCount(UnsafeRawBufferPointer(rebasing: raw[(start + error.written)...]))
                var tail = 0
                while tail < written.count && written[written.count - 1 - tail] != 0x0A { tail += 1 }
                removeTornLine(tail)
                fail(error.errno)
                return
            }
            start = end
        }
    }

    /// A write that failed part-way (a disk filling up) leaves `bytes` of a line in a regular file: cut them off so
    /// the file ends on a whole line. Not done for files opened for appending (others may write there too).
    private func removeTornLine(_ bytes: Int) {
        guard bytes > 0, chunkLimit > Syscall.pipeBuffer, fcntl(fd, F_GETFL) & O_APPEND == 0 else { return }
        let end = lseek(fd, 0, SEEK_CUR)
        guard end >= off_t(bytes) else { return }
        if ftruncate(fd, end - off_t(bytes)) == 0 { _ = lseek(fd, end - off_t(bytes), SEEK_SET) }
    }

    private func stopGraceOver() -> Bool {
        guard Syscall.stopRequested else { return false }
        let now = monotonicNanos()
        if let seen = stopSeenAt { return now - seen >= stopGraceNanos }
        stopSeenAt = now
        return false
    }

    /// Writes queued whole lines while the descriptor accepts them without blocking.
    private func drainQueue(waitMilliseconds: Int32) {
        var start = 0
        defer {
            if start > 0 { queue.removeFirst(start) }
        }
        while start < queue.count {
            let ready: Bool
            do { ready = try Syscall.waitWritable(fd, timeoutMilliseconds: waitMilliseconds) } catch {
                fail(error); dropAllQueued(); return
            }
            if !ready { return }
            var result: Result<Int, Errno> = .success(0)
            queue.withUnsafeBytes { all in
                let end = lineAlignedEnd(all, from: start, limit: chunkLimit)
                do { result = .success(try Syscall.write(fd, UnsafeRawBufferPointer(rebasing: all[start..<end]))) }
                catch let e as Errno { result = .failure(e) } catch { result = .failure(.ioError) }
            }
            let written: Int
            switch result {
            case .success(let n): written = n
            case .failure(.resourceTemporarilyUnavailable), .failure(.interrupted): return
            case .failure(let e):
                fail(e); queue.removeFirst(start); start = 0; dropAllQueued(); return
            }
            // A short write into a pipe can only happen for a line longer than PIPE_BUF; the rest follows next time.
            let lines = queue.withUnsafeBytes { lineCount(UnsafeRawBufferPointer(rebasing: $0[start..<(start + written)])) }
            deliveredLines += lines
            queuedLines -= lines
            start += written
        }
    }

    private func dropOldest(toFit limit: Int) {
        var cut = 0
        var lines = 0
        queue.withUnsafeBytes { all in
            // Drop whole lines from the front, never the line a short write has already started.
            var i = 0
            while queue.count - cut > limit, i < all.count {
                if all[i] == 0x0A { cut = i + 1; lines += 1 }
                i += 1
            }
        }
        queue.removeFirst(cut)
        queuedLines -= lines
        droppedLines += lines
        droppedOldestLines += lines
    }

    private func dropAllQueued() {
        droppedLines += queuedLines
        queuedLines = 0
        queue.removeAll()
    }

    private func fail(_ e: Errno) {
        isBroken = true
        if e != .brokenPipe { failure = SystemError("write", path: name, e) }
    }

    public func close() {
        guard case .live = mode, !queue.isEmpty, !isBroken else { return }
        let deadline = monotonicNanos() + closeTimeoutNanos
        while !queue.isEmpty && !isBroken && monotonicNanos() < deadline && !stopGraceOver() {
            drainQueue(waitMilliseconds: 50)
        }
        dropAllQueued()
    }
}
