#if canImport(Glibc)
import Glibc
#endif
import LocationCore
import LodestarIO
import SystemPackage

/// Writes Lodestar captures. Records are buffered and written as whole lines, so an interrupted
/// session never leaves a truncated last record; `close()` flushes and fsyncs. A write that fails part-way
/// (ENOSPC, EIO) cuts the file back to its last whole record and throws `.writeFailed`. Record times are
/// written nondecreasing: an event that reaches the writer after a later one from another source takes that
/// later time (the difference is the live queue's hand-over delay).
public final class CaptureWriter {
    public let path: String
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var closed = false
    /// Bytes of whole records in the file.
    private var committed: Int64 = 0
    private var lastTimeNanos: Int64 = .min
    private var failed: CaptureError?
    /// Flush after this many buffered bytes (live recording flushes more often via `flush()`).
    public var flushThreshold = 1 << 16

    /// Creates (or truncates) `path`; "-" writes to standard output.
    public init(path: String) throws(CaptureError) {
        self.path = path
        if path == "-" {
            fd = 1
        } else {
            do {
                fd = try Syscall.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644)
            } catch {
                throw error == .permissionDenied || error == .notPermitted
                    ? .permissionDenied(path: path) : .createFailed(path: path, errno: error.rawValue)
            }
        }
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    deinit { try? close() }

    /// Writes the magic line and header fields (`key: value`).
    public func writeHeader(_ fields: [(key: String, value: String)]) throws(CaptureError) {
        append("\(LodestarCapture.magic) \(LodestarCapture.version)\n")
        for (k, v) in fields { append("# \(k): \(v)\n") }
        try flush()
    }

    private func nondecreasing(_ t: Int64) -> Int64 {
        lastTimeNanos = max(lastTimeNanos, t)
        return lastTimeNanos
    }

    public func writeNMEA(monotonicNanos t: Int64, source: Int, bytes: some Sequence<UInt8>) throws(CaptureError) {
        let t = nondecreasing(t)
        append("\(t) \(source) N ")
        LodestarCapture.escape(bytes, into: &buffer)
        buffer.append(0x0A)
        if buffer.count >= flushThreshold { try flush() }
    }

    public enum SampleKind: String { case magnetometer = "M", accelerometer = "A", gyroscope = "G" }

    public func writeSample(monotonicNanos t: Int64, source: Int, kind: SampleKind, _ s: RawSample) throws(CaptureError) {
        let t = nondecreasing(t)
        append("\(t) \(source) \(kind.rawValue) \(s.x) \(s.y) \(s.z) \(s.scale)\n")
        if buffer.count >= flushThreshold { try flush() }
    }

    public func writeStatus(monotonicNanos t: Int64, source: Int, _ status: StatusReport) throws(CaptureError) {
        let t = nondecreasing(t)
        append("\(t) \(source) S ")
        buffer += LodestarCapture.statusPayload(status)
        buffer.append(0x0A)
        if buffer.count >= flushThreshold { try flush() }
    }

    /// An `F` record: a fix from another engine (gpsd JSON mode), every field in round-trip form.
    public func writeFix(monotonicNanos t: Int64, source: Int, _ fix: ExternalFix) throws(CaptureError) {
        let t = nondecreasing(t)
        append("\(t) \(source) F ")
        buffer += LodestarCapture.fixPayload(fix)
        buffer.append(0x0A)
        if buffer.count >= flushThreshold { try flush() }
    }

    private func append(_ s: String) { buffer.append(contentsOf: s.utf8) }

    /// Writes text verbatim (for companion files such as a simulator's truth CSV).
    public func writeRaw(_ text: String) throws(CaptureError) {
        append(text)
        try flush()
    }

    /// Writes bytes verbatim, buffered (a plain NMEA stream).
    public func writeRaw(_ bytes: [UInt8]) throws(CaptureError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= flushThreshold { try flush() }
    }

    public func flush() throws(CaptureError) {
        if let failed { buffer.removeAll(keepingCapacity: true); throw failed }
        var offset = 0
        var failure: Errno?
        buffer.withUnsafeBytes { all in
            while offset < all.count {
                do {
                    offset += try Syscall.writeAll(fd, UnsafeRawBufferPointer(rebasing: all[offset...]), giveUp: { false })
                } catch let e as Syscall.PartialWrite {
                    offset += e.written
                    failure = e.errno
                    return
                } catch {
                    failure = .ioError
                    return
                }
            }
        }
        if let failure {
            // Keep whole records only: cut the file back to the last line feed written.
            var keep = offset
            while keep > 0 && buffer[keep - 1] != 0x0A { keep -= 1 }
            if fd > 2 { try? Syscall.truncate(fd, length: committed + Int64(keep)) }
            committed += Int64(keep)
            buffer.removeAll(keepingCapacity: true)
            let e = CaptureError.writeFailed(path: path, errno: failure.rawValue)
            failed = e
            throw e
        }
        committed += Int64(offset)
        buffer.removeAll(keepingCapacity: true)
    }

    public func close() throws(CaptureError) {
        guard !closed else { return }
        closed = true
        defer { if fd > 2 { Syscall.close(fd) } }
        try flush()
        if fd > 2 {
            do { try Syscall.fsync(fd) } catch { throw .writeFailed(path: path, errno: error.rawValue) }
        }
    }
}
