#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import SystemPackage

/// The syscall layer's test hook: makes `Syscall.read`/`write`/`open` fail with a chosen errno without a faulty
/// device, so every sink and source can be tested against EIO, EAGAIN, ENOSPC, EPIPE and EINTR storms.
///
/// Rules come from tests (`FaultInjector.shared.install`) or, for the CLI binary, from the environment variable
/// `LODESTAR_FAULTS`, read once at the first system call: rules separated by `;`, each
/// `operation:key=value:…` with
/// - `operation`: `read`, `write` or `open`;
/// - `fd=N` (only this descriptor) or `path=SUFFIX` (only descriptors opened from a path ending so; `open` too);
/// - `errno=NAME` (`EIO`, `EAGAIN`, `ENOSPC`, `EPIPE`, `EINTR`, `ENXIO`, `EBADF`, `EACCES`, `ENOENT`) or a number;
/// - `after=BYTES`: let this many bytes through first (a write crossing the limit is cut there, like a disk that
///   fills up mid-write); `count=N`: fail N times, then behave again (default: for ever).
///
/// Example: `LODESTAR_FAULTS='write:fd=1:after=65536:errno=ENOSPC'` is a disk that fills after 64 KB.
/// With no rule installed the check is one relaxed atomic load.
public final class FaultInjector: Sendable {
    public enum Operation: String, Sendable { case read, write, open }

    public struct Rule: Sendable, Equatable {
        public var operation: Operation
        public var fd: Int32?
        public var pathSuffix: String?
        public var errno: Errno
        public var afterBytes: Int
        public var count: Int
        public init(_ operation: Operation, fd: Int32? = nil, pathSuffix: String? = nil, errno: Errno,
                    afterBytes: Int = 0, count: Int = .max) {
            self.operation = operation; self.fd = fd; self.pathSuffix = pathSuffix; self.errno = errno
            self.afterBytes = afterBytes; self.count = count
        }
    }

    private struct State {
        var rules: [Rule] = []
        var passed: [Int] = []     // bytes let through per rule
        var injected: [Int] = []   // faults injected per rule
        var paths: [Int32: String] = [:]
    }

    public static let shared = FaultInjector(environment: getenv("LODESTAR_FAULTS").map { String(cString: $0) })

    private let state = Mutex(State())
    private let active = Atomic<Bool>(false)

    init(environment: String?) {
        if let text = environment, let rules = try? Self.parse(text), !rules.isEmpty { install(rules) }
    }

    /// Replaces the rules (tests). An empty list turns the hook off.
    public func install(_ rules: [Rule]) {
        state.withLock { s in
            s.rules = rules
            s.passed = Array(repeating: 0, count: rules.count)
            s.injected = Array(repeating: 0, count: rules.count)
        }
        active.store(!rules.isEmpty, ordering: .releasing)
    }

    public func removeAll() { install([]) }

    /// Faults injected so far, per rule (tests assert exact counts).
    public var injectedCounts: [Int] { state.withLock { $0.injected } }

    var isActive: Bool { active.load(ordering: .acquiring) }

    func opened(_ fd: Int32, path: String) {
        state.withLock { $0.paths[fd] = path }
    }

    func closed(_ fd: Int32) {
        _ = state.withLock { $0.paths.removeValue(forKey: fd) }
    }

    /// Before an operation of `length` bytes: nil to go ahead unchanged, `.limit(n)` to transfer at most n bytes
    /// (n > 0), or `.fail(errno)`.
    enum Decision: Equatable { case limit(Int), fail(Errno) }

    func check(_ op: Operation, fd: Int32?, path: String? = nil, length: Int = 0) -> Decision? {
        guard isActive else { return nil }
        return state.withLock { s -> Decision? in
            let knownPath = path ?? fd.flatMap { s.paths[$0] }
            for (i, r) in s.rules.enumerated() where r.operation == op {
                if let want = r.fd, want != fd { continue }
                if let suffix = r.pathSuffix, !(knownPath?.hasSuffix(suffix) ?? false) { continue }
                if s.injected[i] >= r.count { continue }
                let room = r.afterBytes - s.passed[i]
                if room > 0 && op != .open {
                    let n = min(room, length)
                    s.passed[i] += n
                    return n < length ? .limit(n) : nil
                }
                if room > 0 { s.passed[i] = r.afterBytes; continue }
                s.injected[i] += 1
                return .fail(r.errno)
            }
            return nil
        }
    }

    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    public static func parse(_ text: String) throws(ParseError) -> [Rule] {
        var rules: [Rule] = []
        for part in text.split(separator: ";") where !part.allSatisfy(\.isWhitespace) {
            let fields = part.split(separator: ":").map { String($0).trimmingSpaces }
            guard let op = fields.first.flatMap(Operation.init(rawValue:)) else {
                throw ParseError(description: "LODESTAR_FAULTS: '\(part)' must start with read, write or open")
            }
            var rule = Rule(op, errno: .ioError)
            for f in fields.dropFirst() {
                let kv = f.split(separator: "=", maxSplits: 1).map(String.init)
                guard kv.count == 2 else { throw ParseError(description: "LODESTAR_FAULTS: '\(f)' is not key=value") }
                switch kv[0] {
                case "fd": rule.fd = Int32(kv[1])
                case "path": rule.pathSuffix = kv[1]
                case "after": rule.afterBytes = Int(kv[1]) ?? 0
                case "count": rule.count = Int(kv[1]) ?? .max
                case "errno":
                    guard let e = Errno(name: kv[1]) else { throw ParseError(description: "LODESTAR_FAULTS: unknown errno \(kv[1])") }
                    rule.errno = e
                default: throw ParseError(description: "LODESTAR_FAULTS: unknown key \(kv[0])")
                }
            }
            rules.append(rule)
        }
        return rules
    }
}

extension Errno {
    static let names: [(String, Errno)] = [
        ("EIO", .ioError), ("EAGAIN", .resourceTemporarilyUnavailable), ("ENOSPC", .noSpace), ("EPIPE", .brokenPipe),
        ("EINTR", .interrupted), ("ENXIO", .noSuchAddressOrDevice), ("EBADF", .badFileDescriptor),
        ("EACCES", .permissionDenied), ("ENOENT", .noSuchFileOrDirectory), ("EROFS", .readOnlyFileSystem),
        ("EDQUOT", Errno(rawValue: Glibc.EDQUOT)), ("EEXIST", .fileExists), ("ENOTTY", .inappropriateIOCTLForDevice),
        ("EISDIR", .isDirectory), ("EPERM", .notPermitted), ("EFBIG", .fileTooLarge),
    ]

    /// From a name such as "ENOSPC" or a number.
    public init?(name: String) {
        if let n = Int32(name) { self.init(rawValue: n); return }
        guard let e = Self.names.first(where: { $0.0 == name.uppercased() })?.1 else { return nil }
        self = e
    }

    /// The C name ("ENOSPC"), or the number.
    public var name: String { Self.names.first { $0.1 == self }?.0 ?? "errno \(rawValue)" }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
