#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LodestarIO

/// Errors a capture reader reports. Each maps to a distinct CLI exit code (see docs/cli.md).
public enum CaptureError: Error, Sendable, Equatable, CustomStringConvertible {
    case fileNotFound(path: String)
    case permissionDenied(path: String)
    case isDirectory(path: String)
    case readFailed(path: String, errno: Int32)
    /// Writing a capture (or other output file) failed; the file ends on a whole record.
    case writeFailed(path: String, errno: Int32)
    /// The output file could not be created (missing directory, permissions, read-only file system).
    case createFailed(path: String, errno: Int32)
    case unrecognizedFormat(path: String, reason: String)
    case unsupportedVersion(path: String, version: String)

    public var description: String {
        switch self {
        case .fileNotFound(let p): "\(p): no such file"
        case .permissionDenied(let p): "\(p): permission denied"
        case .isDirectory(let p): "\(p): is a directory, not a file"
        case .readFailed(let p, let e): "\(p): read failed (\(SystemError.reason(e)))"
        case .writeFailed(let p, let e): "\(p): write failed (\(SystemError.reason(e)))"
        case .createFailed(let p, let e): "\(p): cannot create (\(SystemError.reason(e)))"
        case .unrecognizedFormat(let p, let r): "\(p): unrecognized capture format (\(r))"
        case .unsupportedVersion(let p, let v): "\(p): unsupported Lodestar capture version \(v)"
        }
    }
}

/// A file, standard input or a byte array, read in large blocks, with bounded memory whatever its size.
///
/// Reads go through the syscall layer (`Syscall.read`: EINTR retried, fault-injection hook). `peek` lets format
/// detection look at the first bytes and hand them back on the next `read()`, so a pipe, `-`/stdin or a named pipe
/// gives exactly what the same file gives.
public final class ByteSource {
    public let path: String
    private let fd: Int32
    private let ownsFD: Bool
    private let block: UnsafeMutablePointer<UInt8>
    private let memory: [UInt8]?
    private var memoryOffset = 0
    /// Bytes of `block` already read by `peek` and not yet returned by `read`.
    private var peeked = 0
    private var sawEOF = false
    public static let blockSize = 1 << 16

    /// Opens `path` for reading; "-" is standard input.
    public init(path: String) throws(CaptureError) {
        self.path = path
        memory = nil
        if path == "-" {
            fd = 0
            ownsFD = false
        } else {
            if Syscall.fileType(path) == S_IFDIR { throw .isDirectory(path: path) }
            do {
                fd = try Syscall.open(path, flags: O_RDONLY)
            } catch {
                switch error.rawValue {
                case ENOENT: throw .fileNotFound(path: path)
                case EACCES, EPERM: throw .permissionDenied(path: path)
                default: throw .readFailed(path: path, errno: error.rawValue)
                }
            }
            ownsFD = true
        }
        block = .allocate(capacity: Self.blockSize)
    }

    /// Reads from memory (tests, fuzzing); `name` is used in messages.
    public init(bytes: [UInt8], name: String = "(memory)") {
        path = name
        memory = bytes
        fd = -1
        ownsFD = false
        block = .allocate(capacity: Self.blockSize)
    }

    deinit {
        if ownsFD { Syscall.close(fd) }
        block.deallocate()
    }

    private func rawRead(into p: UnsafeMutablePointer<UInt8>, count: Int) throws(CaptureError) -> Int {
        if let memory {
            let n = min(count, memory.count - memoryOffset)
            memory.withUnsafeBufferPointer { m in
                if n > 0, let b = m.baseAddress { p.update(from: b + memoryOffset, count: n) }
            }
            memoryOffset += n
            return n
        }
        do {
            return try Syscall.read(fd, into: UnsafeMutableRawBufferPointer(start: p, count: count))
        } catch {
            throw .readFailed(path: path, errno: error.rawValue)
        }
    }

    /// The first `count` bytes (fewer at end of file) without consuming them: the next `read()` returns them
    /// again. Call before the first `read()`.
    public func peek(_ count: Int = 8192) throws(CaptureError) -> UnsafeBufferPointer<UInt8> {
        let want = min(count, Self.blockSize)
        while peeked < want && !sawEOF {
            let n = try rawRead(into: block + peeked, count: want - peeked)
            if n == 0 { sawEOF = true } else { peeked += n }
        }
        return UnsafeBufferPointer(start: block, count: peeked)
    }

    /// Drops the first `count` peeked bytes (a byte-order mark).
    public func discardPeeked(_ count: Int) {
        let n = min(count, peeked)
        guard n > 0 else { return }
        memmove(block, block + n, peeked - n)
        peeked -= n
    }

    /// Reads the next bytes straight into a new array of at most `capacity` bytes (bytes `peek` read first); empty at
    /// end of file. One copy from the kernel into the array, where `read()` and appending its block is two (the second
    /// was about 5 % of a binary replay, in `memmove`).
    public func readArray(capacity: Int = blockSize) throws(CaptureError) -> [UInt8] {
        if peeked > 0 {
            let bytes = Array(UnsafeBufferPointer(start: block, count: peeked))
            peeked = 0
            return bytes
        }
        if sawEOF { return [] }
        var failure: CaptureError?
        let bytes = [UInt8](unsafeUninitializedCapacity: max(capacity, 1)) { buffer, count in
            do throws(CaptureError) {
                count = try rawRead(into: buffer.baseAddress!, count: buffer.count)
            } catch {
                failure = error
                count = 0
            }
        }
        if let failure { throw failure }
        if bytes.isEmpty { sawEOF = true }
        return bytes
    }

    /// Reads the next block; an empty buffer means end of file. The buffer is valid until the next call.
    public func read() throws(CaptureError) -> UnsafeBufferPointer<UInt8> {
        if peeked > 0 {
            let n = peeked
            peeked = 0
            return UnsafeBufferPointer(start: block, count: n)
        }
        if sawEOF { return UnsafeBufferPointer(start: block, count: 0) }
        let n = try rawRead(into: block, count: Self.blockSize)
        if n == 0 { sawEOF = true }
        return UnsafeBufferPointer(start: block, count: n)
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
    /// True while the line being handed to `body` is the file's last and has no line feed: the file was cut
    /// off (a copy interrupted, a disk that filled up), so its last value may be cut inside a number.
    public private(set) var lineIsUnterminated = false

    public init(source: ByteSource, maximumLineLength: Int = 1 << 16) {
        self.source = source
        self.maximumLineLength = maximumLineLength
        self.line = []
        line.reserveCapacity(256)
    }

    /// Calls `body` with the next line (valid only inside the call); returns false at end of file.
    public func nextLine<R>(_ body: (UnsafeBufferPointer<UInt8>, _ truncated: Bool) throws -> R) throws -> R? {
        line.removeAll(keepingCapacity: true)
        lineIsUnterminated = false
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
        lineIsUnterminated = true
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
