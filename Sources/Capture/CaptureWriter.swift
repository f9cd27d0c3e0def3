#if canImport(Glibc)
import Glibc
#endif
import LocationCore

/// Writes Lodestar captures. Records are buffered and written as whole lines, so an interrupted
/// session never leaves a truncated last record; `close()` flushes and fsyncs.
public final class CaptureWriter {
    public let path: String
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var closed = false
    /// Flush after this many buffered bytes (live recording flushes more often via `flush()`).
    public var flushThreshold = 1 << 16

    /// Creates (or truncates) `path`; "-" writes to standard output.
    public init(path: String) throws(CaptureError) {
        self.path = path
        if path == "-" {
            fd = 1
        } else {
            let f = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard f >= 0 else {
                throw errno == EACCES || errno == EPERM ? .permissionDenied(path: path) : .readFailed(path: path, errno: errno)
            }
            fd = f
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

    public func writeNMEA(monotonicNanos t: Int64, source: Int, bytes: some Sequence<UInt8>) throws(CaptureError) {
        append("\(t) \(source) N ")
        LodestarCapture.escape(bytes, into: &buffer)
        buffer.append(0x0A)
        if buffer.count >= flushThreshold { try flush() }
    }

    public enum SampleKind: String { case magnetometer = "M", accelerometer = "A", gyroscope = "G" }

    public func writeSample(monotonicNanos t: Int64, source: Int, kind: SampleKind, _ s: RawSample) throws(CaptureError) {
        append("\(t) \(source) \(kind.rawValue) \(s.x) \(s.y) \(s.z) \(s.scale)\n")
        if buffer.count >= flushThreshold { try flush() }
    }

    public func writeStatus(monotonicNanos t: Int64, source: Int, _ status: StatusReport) throws(CaptureError) {
        append("\(t) \(source) S ")
        buffer += LodestarCapture.statusPayload(status)
        buffer.append(0x0A)
        if buffer.count >= flushThreshold { try flush() }
    }

    /// An `F` record: a fix from another engine (gpsd JSON mode), every field in round-trip form.
    public func writeFix(monotonicNanos t: Int64, source: Int, _ fix: ExternalFix) throws(CaptureError) {
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
        var offset = 0
        while offset < buffer.count {
            let n = buffer.withUnsafeBytes { p -> Int in
                guard let base = p.baseAddress else { return 0 }
                return write(fd, base + offset, p.count - offset)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw .readFailed(path: path, errno: errno)
            }
            offset += n
        }
        buffer.removeAll(keepingCapacity: true)
    }

    public func close() throws(CaptureError) {
        guard !closed else { return }
        closed = true
        try flush()
        if fd > 2 { fsync(fd); Glibc.close(fd) }
    }
}
