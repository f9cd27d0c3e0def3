#if canImport(Glibc)
import Glibc
#endif
import SystemPackage

/// A failed system call: the one place errno becomes a typed, readable error.
///
/// `description` is one line: what failed, on which path or output, the system's reason, and — for the errors a
/// user can act on — what to do (`standard output: write failed: No space left on device (ENOSPC): the disk is full`).
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    public let operation: String
    public let path: String?
    public let errno: Int32

    public init(_ operation: String, path: String? = nil, errno: Int32) {
        self.operation = operation; self.path = path; self.errno = errno
    }

    public init(_ operation: String, path: String? = nil, _ code: Errno) {
        self.init(operation, path: path, errno: code.rawValue)
    }

    /// From a shim return value (-errno).
    public init(_ operation: String, path: String? = nil, result: Int) {
        self.init(operation, path: path, errno: Int32(truncatingIfNeeded: -result))
    }

    public var code: Errno { Errno(rawValue: errno) }

    public var isPermissionDenied: Bool { errno == EACCES || errno == EPERM }

    /// What the user can do about it, when there is something.
    public var hint: String? {
        switch code {
        case .noSpace: "the disk is full: free space or write elsewhere"
        case Errno(rawValue: EDQUOT): "the disk quota is exhausted"
        case .readOnlyFileSystem: "the file system is read-only"
        case .ioError: "the device reported an I/O error (failing SD card, disk or cable?)"
        case .brokenPipe: "the reader closed the pipe"
        case .fileTooLarge: "the file reached the size limit"
        case .permissionDenied, .notPermitted: "check the permissions (group membership, udev rule)"
        default: nil
        }
    }

    /// The system's reason, the C name and the hint: "No space left on device (ENOSPC); the disk is full: …".
    public static func reason(_ errno: Int32) -> String {
        let e = SystemError("", errno: errno)
        return "\(String(cString: strerror(errno))) (\(e.code.name))" + (e.hint.map { "; \($0)" } ?? "")
    }

    public var description: String {
        let what = path.map { "\($0): " } ?? ""
        let reason = "\(String(cString: strerror(errno))) (\(code.name))"
        return "\(what)\(operation) failed: \(reason)" + (hint.map { "; \($0)" } ?? "")
    }
}
