#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: the one place errno becomes a typed, readable error.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    public let operation: String
    public let path: String?
    public let errno: Int32

    public init(_ operation: String, path: String? = nil, errno: Int32) {
        self.operation = operation; self.path = path; self.errno = errno
    }

    /// From a shim return value (-errno).
    public init(_ operation: String, path: String? = nil, result: Int) {
        self.init(operation, path: path, errno: Int32(truncatingIfNeeded: -result))
    }

    public var isPermissionDenied: Bool { errno == EACCES || errno == EPERM }

    public var description: String {
        let what = path.map { "\($0): " } ?? ""
        return "\(what)\(operation) failed: \(String(cString: strerror(errno)))"
    }
}
