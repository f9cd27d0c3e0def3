#if canImport(Glibc)
import Glibc
#endif
import LodestarIO

/// Which processes hold a device open, from `/proc/<pid>/fd` links (as `fuser` does), and which gpsd is running.
///
/// `lodestar devices` uses it to say when a gpsd holds a receiver (Debian's gpsd package adds u-blox receivers on
/// hotplug, docs/deployment.md). Reading another user's `/proc/<pid>/fd` needs root or the same user; without it
/// the holder is not seen, but a running gpsd still is (`/proc/<pid>/comm` is world-readable).
public enum DeviceHolders {
    public struct Holder: Sendable, Hashable, CustomStringConvertible {
        public var pid: Int32
        public var command: String
        public var description: String { "\(command) (pid \(pid))" }
    }

    /// Processes with an open descriptor on `path` (symlinks such as /dev/gps0 resolved), this process excluded.
    public static func holders(of path: String, proc: String = "/proc") -> [Holder] {
        guard let target = realPath(path) else { return [] }
        var found: [Holder] = []
        for pid in pids(proc: proc) where pid != getpid() {
            let fdDir = "\(proc)/\(pid)/fd"
            guard let dir = opendir(fdDir) else { continue }
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name.hasPrefix(".") { continue }
                if readLink("\(fdDir)/\(name)") == target {
                    found.append(Holder(pid: pid, command: command(pid, proc: proc)))
                    break
                }
            }
        }
        return found
    }

    /// Running processes whose command name is `name` (e.g. "gpsd").
    public static func running(_ name: String, proc: String = "/proc") -> [Holder] {
        pids(proc: proc).compactMap { pid in
            let c = command(pid, proc: proc)
            return c == name ? Holder(pid: pid, command: c) : nil
        }
    }

    static func pids(proc: String) -> [Int32] {
        ((try? Syscall.directoryEntries(proc)) ?? []).compactMap { Int32($0) }
    }

    static func command(_ pid: Int32, proc: String) -> String {
        guard let bytes = try? Syscall.readWholeFile("\(proc)/\(pid)/comm"), !bytes.isEmpty else { return "?" }
        return String(decoding: bytes.prefix(63).prefix { $0 != 0 && $0 != 10 }, as: UTF8.self)
    }

    static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
