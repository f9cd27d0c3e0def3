import Foundation
import NetworkOutput
import NIOCore
import Synchronization
import Testing
import TestSupport

/// The server's own behaviour, in process: protocol replies, the bounded per-client queue, a taken port.
@Suite("gpsd-protocol server behaviour", .serialized, .ownThreads)
struct ServerBehaviourTests {
    /// A blocking TCP client on loopback.
    final class Client: @unchecked Sendable {
        let fd: Int32
        var buffer: [UInt8] = []
        var start = 0
        init(port: Int) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = UInt16(port).bigEndian
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            let r = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if r != 0 { throw NSError(domain: "connect", code: Int(errno)) }
            var tv = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        }
        func send(_ s: String) { _ = s.withCString { Glibc.send(fd, $0, strlen($0), 0) } }
        /// The next line (without CR LF), nil on timeout or EOF.
        func line() -> String? {
            while true {
                if let i = buffer[start...].firstIndex(of: 0x0A) {
                    var l = buffer[start..<i]
                    start = i + 1
                    if start > 1 << 20 { buffer.removeFirst(start); start = 0 }
                    if l.last == 0x0D { l.removeLast() } else { return "NO-CR:" + String(decoding: l, as: UTF8.self) }
                    return String(decoding: l, as: UTF8.self)
                }
                var chunk = [UInt8](repeating: 0, count: 65536)
                let n = recv(fd, &chunk, chunk.count, 0)
                if n <= 0 { return nil }
                buffer += chunk[..<n]
            }
        }
        func object() -> [String: Any]? { line().flatMap { jsonObjects($0).first } }
        deinit { close(fd) }
    }

    static func broadcast(_ text: String, kind: Broadcast.Kind = .tpv) -> Broadcast {
        var b = ByteBufferAllocator().buffer(capacity: text.utf8.count)
        b.writeString(text)
        return Broadcast(kind: kind, json: b, nmea: nil)
    }

    @Test func protocolReplies() throws {
        let server = try OutputServer(kind: .gpsd, endpoints: [.tcp(host: "127.0.0.1", port: 0)], device: "/dev/test")
        defer { server.shutdown(drainSeconds: 0) }
        guard case .tcp(_, let port) = server.endpoints[0] else { Issue.record("no port"); return }
        let c = try Client(port: port)
        let version = c.object()
        #expect(version?["class"] as? String == "VERSION" && version?["proto_major"] as? Int == 3)
        c.send("?VERSION;")
        #expect(c.object()?["class"] as? String == "VERSION")
        c.send("?DEVICES;\n")
        let devices = c.object()
        #expect(devices?["class"] as? String == "DEVICES")
        #expect(((devices?["devices"] as? [[String: Any]])?.first?["path"] as? String) == "/dev/test")
        c.send("?DEVICE;")
        #expect(c.object()?["class"] as? String == "DEVICE")
        c.send("?FOO;")
        let error = c.object()
        #expect(error?["class"] as? String == "ERROR" && (error?["message"] as? String ?? "").contains("FOO"))
        c.send("?WATCH={\"enable\":true,\"json\":true;")
        #expect(c.object()?["class"] as? String == "ERROR")
        // Nothing is sent before ?WATCH; afterwards TPVs; ?POLL returns the last one.
        server.publish(Self.broadcast("{\"class\":\"TPV\",\"device\":\"/dev/test\",\"mode\":3}\r\n"))
        c.send("?WATCH={\"enable\":true,\"json\":true}")
        c.send(";")
        #expect(c.object()?["class"] as? String == "DEVICES")
        let watch = c.object()
        #expect(watch?["class"] as? String == "WATCH" && watch?["json"] as? Bool == true)
        server.publish(Self.broadcast("{\"class\":\"TPV\",\"device\":\"/dev/test\",\"mode\":2}\r\n"))
        #expect(c.object()?["mode"] as? Int == 2)
        c.send("?POLL;")
        let pollLine = c.line() ?? ""
        let poll = jsonObjects(pollLine).first
        #expect(poll?["class"] as? String == "POLL" && ((poll?["tpv"] as? [[String: Any]])?.first?["mode"] as? Int) == 2)
        // A device filter that does not match silences the client.
        c.send("?WATCH={\"device\":\"/dev/other\"};")
        _ = c.object(); _ = c.object()
        server.publish(Self.broadcast("{\"class\":\"TPV\",\"mode\":3}\r\n"))
        c.send("?VERSION;")
        #expect(c.object()?["class"] as? String == "VERSION")
    }

    /// One client never reads: it loses its oldest events (counted, visible in ?CLIENTS and ?DEVICES) while a
    /// reading client receives every event, in order.
    @Test func stalledClientDropsOldestOthersGetEverything() throws {
        var settings = OutputServer.Settings()
        settings.maximumQueuedPerClient = 64
        let server = try OutputServer(kind: .gpsd, endpoints: [.tcp(host: "127.0.0.1", port: 0)], device: "d", settings: settings)
        defer { server.shutdown(drainSeconds: 0) }
        guard case .tcp(_, let port) = server.endpoints[0] else { return }
        let stalled = try Client(port: port)
        var small: Int32 = 4096
        setsockopt(stalled.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        stalled.send("?WATCH={\"enable\":true,\"json\":true};")
        let reader = try Client(port: port)
        _ = reader.line()
        reader.send("?WATCH={\"enable\":true,\"json\":true};")
        _ = reader.line(); _ = reader.line(); _ = reader.line()
        let padding = String(repeating: "x", count: 4000)
        let total = 2000
        final class Counter: Sendable { let value = Atomic<Int>(0) }
        let counter = Counter()
        let readerThread = Thread {
            var n = 0
            while n < total, let l = reader.line() {
                if l.hasPrefix("{\"class\":\"TPV\",\"seq\":\(n),") { n += 1; counter.value.store(n, ordering: .relaxed) } else { break }
            }
        }
        readerThread.start()
        // 2,000 events of 4 KB (8 MB: more than the stalled connection's kernel buffers hold), one per ms.
        for i in 0..<total {
            server.publish(Self.broadcast("{\"class\":\"TPV\",\"seq\":\(i),\"pad\":\"\(padding)\"}\r\n"))
            usleep(1000)
        }
        let deadline = Date().addingTimeInterval(60)
        var received: Int { counter.value.load(ordering: .relaxed) }
        while received < total && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(received == total, "the reading client got \(received) of \(total) in order")
        let stats = server.statistics
        #expect(stats.dropped > 0, "the stalled client must lose events")
        let probe = try Client(port: port)
        _ = probe.line()
        probe.send("?CLIENTS;")
        let clients = (probe.object()?["clients"] as? [[String: Any]]) ?? []
        let drops = clients.compactMap { $0["dropped"] as? Int }
        #expect(drops.contains { $0 == stats.dropped } && drops.filter { $0 > 0 }.count == 1, "\(clients)")
        probe.send("?DEVICES;")
        let devices = probe.object()
        #expect(((devices?["devices"] as? [[String: Any]])?.first?["dropped"] as? Int) == stats.dropped)
    }

    @Test func takenPortIsRefusedWithAClearMessage() throws {
        let holder = try OutputServer(kind: .gpsd, endpoints: [.tcp(host: "127.0.0.1", port: 0)], device: "d")
        defer { holder.shutdown(drainSeconds: 0) }
        guard case .tcp(_, let port) = holder.endpoints[0] else { return }
        let dir = try TemporaryDirectory()
        let run = try runTool(Lodestar.binary, ["replay", "--serve", "127.0.0.1:\(port)", simulatedDrive], timeout: 30, in: dir)
        #expect(run.status == 69)
        #expect(run.err.hasPrefix("lodestar: cannot serve the gpsd protocol on 127.0.0.1:\(port): address already in use"), "\(run.err)")
        #expect(run.out.isEmpty)
        #expect(ServerError.addressInUse(.gpsdDefault, service: "the gpsd protocol").description.contains("gpsd is probably running"))
    }

    @Test func endpointsParse() {
        #expect(ServerEndpoint(parsing: "2947", defaultPort: 1) == .tcp(host: "127.0.0.1", port: 2947))
        #expect(ServerEndpoint(parsing: "0.0.0.0:10110", defaultPort: 1) == .tcp(host: "0.0.0.0", port: 10110))
        #expect(ServerEndpoint(parsing: "[::1]:2947", defaultPort: 1) == .tcp(host: "::1", port: 2947))
        #expect(ServerEndpoint(parsing: "localhost", defaultPort: 2947) == .tcp(host: "localhost", port: 2947))
        #expect(ServerEndpoint(parsing: "unix:/run/x.sock", defaultPort: 1) == .unix(path: "/run/x.sock"))
        #expect(ServerEndpoint(parsing: "host:99999", defaultPort: 1) == nil)
    }
}
