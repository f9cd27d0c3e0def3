#if canImport(Glibc)
import Glibc
#endif
import Events
import LocationCore
import LodestarIO
import SystemPackage

/// A client of the location service socket (`lodestar run --service PATH`): reads its Lodestar JSON lines and hands
/// each decoded event on, until the service closes the connection or `stop()` is true. A socket the process may
/// not open (the socket's group is the authorization) is `.denied`; no socket, or nobody listening, is a
/// source failure.
enum ServiceConnection {
    static func run(path: String, stop: @escaping () -> Bool, emit: @escaping (OutputEvent) -> Void) -> LocationError? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .sourceFailure("service \(path): socket: \(String(cString: strerror(errno)))") }
        defer { Syscall.close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            return .sourceFailure("service \(path): the path is too long for a Unix socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if connected != 0 {
            let e = errno
            if e == EACCES || e == EPERM {
                return .denied("service \(path): permission denied (the socket belongs to the group lodestar: add this user to it)")
            }
            return .sourceFailure("service \(path): \(String(cString: strerror(e))) (is lodestar run --service running?)")
        }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var line: [UInt8] = []
        while !stop() {
            // The one syscall layer: EINTR retried there, errors typed.
            let n: Int
            do {
                guard try Syscall.waitReadable(fd, timeoutMilliseconds: 200) else { continue }
                n = try buffer.withUnsafeMutableBytes { (p) throws(Errno) -> Int in try Syscall.read(fd, into: p) }
            } catch let error as Errno {
                if error == .resourceTemporarilyUnavailable { continue }
                return .sourceFailure("service \(path): \(error)")
            } catch {
                return .sourceFailure("service \(path): \(error)")
            }
            if n == 0 { return nil }  // the service ended: the session ends
            for b in buffer[0..<n] {
                if b == 0x0A {
                    if let e = LodestarJSONDecoder.event(line: line) { emit(e) }
                    line.removeAll(keepingCapacity: true)
                } else if line.count < 1 << 20 {
                    line.append(b)
                }
            }
        }
        return nil
    }
}
