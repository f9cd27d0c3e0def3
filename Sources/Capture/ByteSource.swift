#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Errors a capture reader reports. Each maps to a distinct CLI exit code (see docs/cli.md).
public enum CaptureError: Error, Sendable, Equatable, CustomStringConvertible {
    case fileNotFound(path: String)
    case permissionDenied(path: String)
    case isDirectory(path: String)
    case readFailed(path: String, errno: Int32)
    case unrecognizedFormat(path: String, reason: String)
    case unsupportedVersion(path: String, version: String)

    public var description: String {
        switch self {
        case .fileNotFound(let p): "\(p): no such file"
        case .permissionDenied(let p): "\(p): permission denied"
        case .isDirectory(let p): "\(p): is a directory, not a capture file"
        case .readFailed(let p, let e): "\(p): read failed (\(String(cString: strerror(e))))"
        case .unrecognizedFormat(let p, let r): "\(p): unrecognized capture format (\(r))"
        case .unsupportedVersion(let p, let v): "\(p): unsupported Lodestar capture version \(v)"
        }
    }
}

/// A file (or standard input) read in large blocks, with bounded memory whatever its size.
public final class ByteSource {
    public let path: String
    private let fd: Int32
    private let ownsFD: Bool
    private let block: UnsafeMutablePointer<UInt8>
    public static let blockSize = 1 << 16

    /// Opens `path` for reading; "-" is standard input.
    public init(path: String) throws(CaptureError) {
        self.path = path
        if path == "-" {
            fd = 0
            ownsFD = false
        } else {
            var st = stat()
            if stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR { throw .isDirectory(path: path) }
            let opened = open(path, O_RDONLY | O_CLOEXEC)
            if opened < 0 {
                switch errno {
                case ENOENT: throw .fileNotFound(path: path)
                case EACCES, EPERM: throw .permissionDenied(path: path)
                default: throw .readFailed(path: path, errno: errno)
                }
            }
            fd = opened
            ownsFD = true
        }
        block = .allocate(capacity: Self.blockSize)
    }

    deinit {
        if ownsFD { close(fd) }
        block.deallocate()
    }

    /// Reads the next block; an empty buffer means end of file. The buffer is valid until the next call.
    public func read() throws(CaptureError) -> UnsafeBufferPointer<UInt8> {
        while true {
            let n = Glibc.read(fd, block, Self.blockSize)
            if n >= 0 { return UnsafeBufferPointer(start: block, count: n) }
            if errno == EINTR { continue }
            throw .readFailed(path: path, errno: errno)
        }
    }
}

/// Splits a ByteSource into lines (without CR/LF) with no per-line allocation. Lines longer than
/// `maximumLineLength` are cut there and flagged, so a corrupt file cannot grow memory.
public final class LineReader {
    public let source: ByteSource
    public let maximumLineLength: Int
    private var line: [UInt8]
    private var current = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    private var position = 0
    private var atEOF = false
    /// Lines read so far (1-based number of the last line returned).
    public private(set) var lineNumber = 0
    /// Lines that exceeded `maximumLineLength` and were truncated.
    public private(set) var overlongLines = 0

    public init(source: ByteSource, maximumLineLength: Int = 1 << 16) {
        self.source = source
        self.maximumLineLength = maximumLineLength
        self.line = []
        line.reserveCapacity(256)
    }

    /// Calls `body` with the next line (valid only inside the call); returns false at end of file.
    public func nextLine<R>(_ body: (UnsafeBufferPointer<UInt8>, _ truncated: Bool) throws -> R) throws -> R? {
        line.removeAll(keepingCapacity: true)
        var truncated = false
        while true {
            if position >= current.count {
                if atEOF { break }
                current = try source.read()
                position = 0
                if current.isEmpty { atEOF = true; break }
            }
            guard let base = current.baseAddress else { break }
            // Fast path: the whole line is inside the current block and nothing is buffered yet.
            var end = position
            while end < current.count && base[end] != 0x0A { end += 1 }
            if end < current.count {
                if line.isEmpty && !truncated {
                    var stop = end
                    if stop > position && base[stop - 1] == 0x0D { stop -= 1 }
                    let start = position
                    position = end + 1
                    lineNumber += 1
                    var count = stop - start
                    if count > maximumLineLength { count = maximumLineLength; overlongLines += 1; truncated = true }
                    return try body(UnsafeBufferPointer(start: base + start, count: count), truncated)
                }
                append(base + position, end - position, &truncated)
                position = end + 1
                return try finishLine(body, truncated)
            }
            append(base + position, current.count - position, &truncated)
            position = current.count
        }
        if line.isEmpty && !truncated { return nil }
        return try finishLine(body, truncated)
    }

    private func append(_ p: UnsafePointer<UInt8>, _ n: Int, _ truncated: inout Bool) {
        let room = maximumLineLength - line.count
        if n > room {
            if room > 0 { line.append(contentsOf: UnsafeBufferPointer(start: p, count: room)) }
            if !truncated { overlongLines += 1 }
            truncated = true
        } else {
            line.append(contentsOf: UnsafeBufferPointer(start: p, count: n))
        }
    }

    private func finishLine<R>(_ body: (UnsafeBufferPointer<UInt8>, Bool) throws -> R, _ truncated: Bool) throws -> R {
        if line.last == 0x0D { line.removeLast() }
        lineNumber += 1
        return try line.withUnsafeBufferPointer { try body($0, truncated) }
    }
}
