#if canImport(Glibc)
import Glibc
#endif

/// Where encoded output goes. A sink must never block the pipeline: it drops (and counts) what it cannot take.
public protocol OutputSink: AnyObject {
    /// Writes whole lines (one or more complete events).
    func write(_ bytes: UnsafeBufferPointer<UInt8>)
    func close()
    /// True once the sink can never accept data again (stdout's reader went away).
    var isBroken: Bool { get }
    /// Lines the sink could not deliver.
    var droppedLines: Int { get }
}

/// Standard output (or any fd). Writes block like any Unix filter; EPIPE (the reader left, e.g. `| head`)
/// marks the sink broken so the run ends cleanly instead of dying from SIGPIPE.
public final class FileDescriptorSink: OutputSink {
    public let fd: Int32
    public private(set) var isBroken = false
    public private(set) var droppedLines = 0
    public private(set) var errorNumber: Int32 = 0

    public init(fd: Int32 = 1) { self.fd = fd }

    public func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !isBroken, let base = bytes.baseAddress else {
            droppedLines += bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            return
        }
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, base + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&p, 1, 1000)
                    continue
                }
                errorNumber = errno
                isBroken = true
                droppedLines += bytes[offset...].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
                return
            }
            offset += n
        }
    }

    public func close() {}
}
