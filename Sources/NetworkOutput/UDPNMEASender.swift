import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// NMEA 0183 over UDP: each event's sentences as one datagram to a configured address (OpenCPN's and Signal K's
/// "UDP in"), sent with MSG_DONTWAIT: never blocks; a datagram the kernel refuses is counted.
public final class UDPNMEASender {
    public let host: String
    public let port: Int
    private let fd: Int32
    private var address = sockaddr_storage()
    private let addressLength: socklen_t
    public private(set) var sent = 0
    public private(set) var failed = 0

    public struct AddressError: Error, CustomStringConvertible {
        public let text: String
        public var description: String { text }
    }

    /// `host` is a numeric IPv4/IPv6 address (broadcast addresses allowed).
    public init(host: String, port: Int) throws(AddressError) {
        self.host = host; self.port = port
        var storage = sockaddr_storage()
        var length: socklen_t = 0
        var v4 = in_addr(), v6 = in6_addr()
        let family: Int32
        if inet_pton(AF_INET, host, &v4) == 1 {
            family = AF_INET
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    $0.pointee.sin_family = sa_family_t(AF_INET)
                    $0.pointee.sin_port = UInt16(port).bigEndian
                    $0.pointee.sin_addr = v4
                }
            }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            family = AF_INET6
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    $0.pointee.sin6_family = sa_family_t(AF_INET6)
                    $0.pointee.sin6_port = UInt16(port).bigEndian
                    $0.pointee.sin6_addr = v6
                }
            }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        } else {
            throw AddressError(text: "--nmea-udp \(host):\(port): expected a numeric IPv4 or IPv6 address")
        }
        let s = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard s >= 0 else { throw AddressError(text: "--nmea-udp: socket: \(String(cString: strerror(errno)))") }
        var on: Int32 = 1
        _ = setsockopt(s, SOL_SOCKET, SO_BROADCAST, &on, socklen_t(MemoryLayout<Int32>.size))
        fd = s
        address = storage
        addressLength = length
    }

    deinit { close(fd) }

    public func send(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let n = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, base, bytes.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL), $0, addressLength)
            }
        }
        if n == bytes.count { sent += 1 } else { failed += 1 }
    }
}
