import Foundation
import LocationCore
import NetworkOutput
import Testing
import TestSupport

/// The Unix-socket server and NMEA over UDP, in process on loopback.
@Suite("Unix socket and UDP transports", .ownThreads)
struct TransportTests {
    @Test func unixSocketServesTheGpsdProtocol() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("lodestar.sock")
        let outputs = NetworkOutputs(device: "/dev/gps0")
        outputs.gpsd = try OutputServer(kind: .gpsd, endpoints: [.unix(path: path)], device: "/dev/gps0")
        defer { outputs.shutdown(drainSeconds: 0) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { p in
            for (i, b) in path.utf8.enumerated() { p[i] = b }
        }
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(r == 0)
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        _ = "?WATCH={\"enable\":true,\"json\":true};".withCString { send(fd, $0, strlen($0), 0) }
        Thread.sleep(forTimeInterval: 0.2)
        var l = Location()
        l.mode = .threeD; l.quality = .gps; l.latitudeDegrees = 52.5; l.longitudeDegrees = 4.75
        l.time = Timestamp(nanosecondsSince1970: 1_748_779_200_000_000_000)
        outputs.publish(.fix(l))
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 8192)
        let deadline = Date().addingTimeInterval(5)
        while !text.contains("\"class\":\"TPV\"") && Date() < deadline {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            text += String(decoding: buffer[..<n], as: UTF8.self)
        }
        let classes = jsonObjects(text).compactMap { $0["class"] as? String }
        #expect(classes == ["VERSION", "DEVICES", "WATCH", "TPV"], "\(text)")
        #expect(text.contains("\"lat\":52.500000000"))
    }

    @Test func nmeaOverUDP() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let port = Int(UInt16(bigEndian: addr.sin_port))
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))

        let outputs = NetworkOutputs(device: "/dev/gps0")
        outputs.udp = try UDPNMEASender(host: "127.0.0.1", port: port)
        var l = Location()
        l.mode = .threeD; l.quality = .gps; l.latitudeDegrees = 52.5; l.longitudeDegrees = 4.75; l.satellitesUsed = 9
        l.time = Timestamp(nanosecondsSince1970: 1_748_779_200_000_000_000)
        outputs.publish(.fix(l))
        var buffer = [UInt8](repeating: 0, count: 2048)
        let n = recv(fd, &buffer, buffer.count, 0)
        let datagram = n > 0 ? String(decoding: buffer[..<n], as: UTF8.self) : ""
        #expect(datagram.hasPrefix("$GPRMC,120000.00,A,5230.00000,N,00445.00000,E"), "\(datagram)")
        #expect(datagram.contains("$GPGGA,120000.00,5230.00000,N,00445.00000,E,1,09,"))
        #expect(datagram.contains("$GPZDA,120000.00,01,06,2025,00,00"))
        #expect(outputs.udp?.sent == 1)
        #expect(throws: UDPNMEASender.AddressError.self) { try UDPNMEASender(host: "example.org", port: 10110) }
    }
}
