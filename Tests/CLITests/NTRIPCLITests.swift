import Foundation
import NMEA
import Synchronization
import Testing
import TestSupport

/// RTCM3 frames built here from RTCM 10403.3 (preamble 0xD3, 10-bit length, CRC-24Q), independently of the UBX module.
enum RTCM3Builder {
    static func crc24q(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for b in bytes {
            crc ^= UInt32(b) << 16
            for _ in 0..<8 {
                crc <<= 1
                if crc & 0x100_0000 != 0 { crc ^= 0x186_4CFB }
            }
        }
        return crc & 0xFF_FFFF
    }

    /// A frame of message `number` with `length` payload bytes (the number in the first 12 bits, the rest a pattern).
    static func frame(_ number: Int, length: Int, seed: Int) -> [UInt8] {
        var payload = [UInt8](repeating: 0, count: length)
        payload[0] = UInt8(number >> 4)
        payload[1] = UInt8((number & 0xF) << 4) | UInt8(seed & 0xF)
        for i in 2..<length { payload[i] = UInt8(truncatingIfNeeded: i &* 31 &+ seed &* 7) }
        var f: [UInt8] = [0xD3, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        let crc = crc24q(f)
        f += [UInt8(crc >> 16), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        return f
    }

    static let types = [1005, 1077, 1087, 1097, 1230]

    static func stream(count: Int) -> [[UInt8]] {
        (0..<count).map { frame(types[$0 % types.count], length: 19 + ($0 * 37) % 200, seed: $0) }
    }

    /// The whole, CRC-valid frames found in `bytes` (framed here, independently).
    static func frames(in bytes: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var i = 0
        while i + 6 <= bytes.count {
            guard bytes[i] == 0xD3, bytes[i + 1] & 0xFC == 0 else { i += 1; continue }
            let n = Int(bytes[i + 1] & 3) << 8 | Int(bytes[i + 2])
            guard i + 6 + n <= bytes.count else { break }
            let f = Array(bytes[i..<(i + 6 + n)])
            let crc = crc24q(Array(f.prefix(3 + n)))
            if UInt32(f[3 + n]) << 16 | UInt32(f[4 + n]) << 8 | UInt32(f[5 + n]) == crc { out.append(f); i += 6 + n } else { i += 1 }
        }
        return out
    }
}

/// A tiny NTRIP caster written for the test: Basic authentication, NTRIP 2.0 (HTTP/1.1 with chunked transfer
/// encoding, chunks cut across frames) or 1.0 (`ICY 200 OK`, then the raw stream), a source table for `GET /`, and
/// a record of the requests and of the GGA sentences clients upload.
final class TestCaster: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let state = Mutex<(requests: [String], gga: [String], running: Bool, clients: Set<Int32>)>(([], [], true, []))
    let frames: [[UInt8]]
    let corrupt: [UInt8]
    let expectedAuthorization: String
    let version1: Bool

    init(user: String, password: String, frames: [[UInt8]], port fixedPort: Int = 0, version1: Bool = false) throws {
        self.version1 = version1
        self.frames = frames
        var c = RTCM3Builder.frame(1077, length: 40, seed: 99)
        c[10] ^= 0xFF
        corrupt = c
        expectedAuthorization = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(fixedPort).bigEndian
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, len) == 0 && listen(listener, 4) == 0 && getsockname(listener, $0, &len) == 0 }
        }
        guard bound else { throw NSError(domain: "caster", code: Int(errno)) }
        port = Int(UInt16(bigEndian: addr.sin_port))
        self.listener = listener
        Thread { [self] in serve() }.start()
    }

    var requests: [String] { state.withLock { $0.requests } }
    var gga: [String] { state.withLock { $0.gga } }
    /// Stops at once: the listener and every client connection are shut down (the client sees the end of the
    /// stream now, however busy the machine is), then the threads finish.
    func stop() {
        let clients = state.withLock { s -> Set<Int32> in s.running = false; return s.clients }
        for fd in clients { shutdown(fd, Int32(SHUT_RDWR)) }
        shutdown(listener, Int32(SHUT_RDWR)); close(listener)
    }
    private var running: Bool { state.withLock { $0.running } }

    private func serve() {
        while running {
            let fd = accept(listener, nil, nil)
            if fd < 0 { return }
            Thread { [self] in client(fd) }.start()
        }
    }

    private func client(_ fd: Int32) {
        guard state.withLock({ s -> Bool in if s.running { s.clients.insert(fd) }; return s.running }) else { close(fd); return }
        defer { state.withLock { _ = $0.clients.remove(fd) }; close(fd) }
        var head = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: head, as: UTF8.self).contains("\r\n\r\n") {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { return }
            head += buffer[..<n]
        }
        let request = String(decoding: head, as: UTF8.self)
        state.withLock { $0.requests.append(request) }
        func send(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count }
        if request.hasPrefix("GET / ") {
            _ = send(Array(("HTTP/1.1 200 OK\r\nNtrip-Version: Ntrip/2.0\r\nContent-Type: gnss/sourcetable\r\nConnection: close\r\n\r\n"
                + "CAS;127.0.0.1;2101;Test;Lodestar;0;DEU;48.12;11.52;0.0.0.0;0;none\r\n"
                + "STR;TEST;Test;RTCM 3.3;1005(10),1077(1);2;GPS+GAL;TestNet;DEU;48.12;11.52;1;0;test;none;B;N;9600;\r\n"
                + "STR;BASE2;Base 2;RTCM 3.2;1005,1087;2;GLO;TestNet;DEU;-33.86;151.21;0;0;test;none;B;N;4800;\r\n"
                + "ENDSOURCETABLE\r\n").utf8))
            return
        }
        guard request.contains("Authorization: \(expectedAuthorization)\r\n") else {
            _ = send(Array("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"/TEST\"\r\nContent-Length: 0\r\n\r\n".utf8))
            return
        }
        let answer = version1 ? "ICY 200 OK\r\n" : "HTTP/1.1 200 OK\r\nNtrip-Version: Ntrip/2.0\r\nContent-Type: gnss/data\r\nTransfer-Encoding: chunked\r\n\r\n"
        guard send(Array(answer.utf8)) else { return }
        // The frames (a corrupt one after the third) cut into chunks of 37 bytes, one chunk every 10 ms.
        var data: [UInt8] = []
        for (i, f) in frames.enumerated() { data += f; if i == 2 { data += corrupt } }
        var offset = 0
        var ggaText = ""
        while running {
            if offset < data.count {
                let piece = Array(data[offset..<min(offset + 37, data.count)])
                offset += piece.count
                let framed = version1 ? piece : Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + [0x0D, 0x0A]
                guard send(framed) else { return }
            }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, 10) == 1 {
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { return }
                ggaText += String(decoding: buffer[..<n], as: UTF8.self)
                while let eol = ggaText.range(of: "\r\n") {
                    let line = String(ggaText[..<eol.lowerBound])
                    ggaText = String(ggaText[eol.upperBound...])
                    state.withLock { $0.gga.append(line) }
                }
            }
        }
    }
}

@Suite("lodestar run --ntrip", .serialized, .ownThreads)
struct NTRIPCLITests {
    static func cycle(_ s: Int) -> String {
        let t = String(format: "1200%02d.%d0", (s / 10) % 60, s % 10)
        return NMEAEncoder.sentence("GPRMC,\(t),A,4807.038,N,01131.000,E,0.0,45.0,230324,,,A")
            + NMEAEncoder.sentence("GPGGA,\(t),4807.038,N,01131.000,E,4,12,0.9,545.4,M,46.9,M,1.0,0001")
    }

    /// Writes NMEA at 10 Hz into the pty and collects what lodestar writes to the receiver.
    final class Receiver: @unchecked Sendable {
        let pty: PseudoTerminal
        private let collected = Mutex<[UInt8]>([])
        private let running = Atomic<Bool>(true)
        private let done = Atomic<Bool>(false)
        init() throws {
            pty = try PseudoTerminal()
            Thread { [self] in
                var s = 0
                while running.load(ordering: .acquiring) {
                    pty.write(NTRIPCLITests.cycle(s)); s += 1
                    let bytes = pty.readAvailable(timeoutMilliseconds: 100)
                    if !bytes.isEmpty { collected.withLock { $0 += bytes } }
                }
                done.store(true, ordering: .releasing)
            }.start()
        }
        var bytes: [UInt8] { collected.withLock { $0 } }
        func stop() { running.store(false, ordering: .releasing); while !done.load(ordering: .acquiring) { usleep(1000) } }
    }

    @Test func correctionsReachTheReceiverWholeGGAIsUploadedAndStatusesAreRecorded() throws {
        let frames = RTCM3Builder.stream(count: 60)
        let caster = try TestCaster(user: "rover", password: "s3cret", frames: frames)
        defer { caster.stop() }
        let receiver = try Receiver()
        defer { receiver.stop() }
        let dir = try TemporaryDirectory()
        let passwordFile = try dir.write("password", "s3cret\n")
        let capture = dir.path("ntrip.lcap")
        let process = try SpawnedProcess(Lodestar.binary, ["run", "--gps", "\(receiver.pty.slavePath)@9600", "--no-sky", "--no-smoothing",
                                                           "--ntrip", "ntrip://rover@127.0.0.1:\(caster.port)/TEST",
                                                           "--ntrip-password-file", passwordFile, "--ntrip-gga-interval", "1",
                                                           "--record", capture],
                                         stdoutPath: dir.path("out"), stderrPath: dir.path("err"))
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, RTCM3Builder.frames(in: receiver.bytes).count < frames.count || caster.gga.count < 2 { usleep(50_000) }
        usleep(200_000)
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 5) == 143)
        // Every frame intact and in order; the corrupt one dropped.
        let received = RTCM3Builder.frames(in: receiver.bytes)
        #expect(received.count == frames.count && received == frames, "\(received.count) of \(frames.count) frames")
        #expect(!receiver.bytes.contains(caster.corrupt[10]) || !received.contains(caster.corrupt))
        // The request: NTRIP 2.0 with Basic authentication; GGA of the current fix uploaded.
        #expect(caster.requests.first?.contains("Ntrip-Version: Ntrip/2.0") == true)
        #expect(caster.gga.count >= 2, "\(caster.gga)")
        #expect(caster.gga.first?.hasPrefix("$GPGGA,") == true && caster.gga.first?.contains("4807.0380") == true, "\(caster.gga)")
        let out = try String(contentsOfFile: dir.path("out"), encoding: .utf8)
        let statuses = out.split(separator: "\n").filter { $0.contains("\"class\":\"status\"") && $0.contains("\"source\":\"ntrip\"") }
        #expect(statuses.contains { $0.contains("\"state\":\"available\"") && $0.contains("RTCM3 1005, 1077") }, "\(statuses)")
        // RTK fixed (GGA quality 4) shows in the fixes.
        #expect(out.contains("\"quality\":\"rtkFixed\""))
        let err = try String(contentsOfFile: dir.path("err"), encoding: .utf8)
        #expect(err.contains("NTRIP: \(frames.count) RTCM3 frames to the receiver, 1 corrupt dropped"), "\(err)")
        // The statuses are in the capture: its replay prints them.
        let replay = try Lodestar.run(["replay", "--no-sky", "--no-smoothing", capture])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout == out, "replay differs from live")
    }

    /// RTKLIB's `str2str` as an NTRIP caster (`-out ntripc://USER:PASS@:PORT/MOUNT`) on loopback, its RTCM3 input
    /// paced through a FIFO (a plain file would be drained at once): the frames over and over, one every 40 ms.
    final class Str2Str: @unchecked Sendable {
        let process: SpawnedProcess
        private let feeding = Atomic<Bool>(true), fed = Atomic<Bool>(false)
        init(port: Int, user: String, password: String, frames: [[UInt8]], in dir: TemporaryDirectory, name: String) throws {
            let fifo = dir.path("\(name).fifo")
            #expect(mkfifo(fifo, 0o600) == 0)
            process = try SpawnedProcess("/usr/bin/str2str", ["-in", "file://\(fifo)", "-out", "ntripc://\(user):\(password)@:\(port)/TEST"],
                                         stdoutPath: dir.path("\(name).out"), stderrPath: dir.path("\(name).err"))
            Thread { [self] in
                let fd = open(fifo, O_WRONLY)   // blocks until str2str opens its input
                defer { if fd >= 0 { close(fd) }; self.fed.store(true, ordering: .releasing) }
                guard fd >= 0 else { return }
                while self.feeding.load(ordering: .acquiring) {
                    for f in frames where self.feeding.load(ordering: .acquiring) {
                        _ = f.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                        usleep(40_000)
                    }
                }
            }.start()
        }
        func stop() {
            process.stop()
            feeding.store(false, ordering: .releasing)
            while !fed.load(ordering: .acquiring) { usleep(1000) }
        }
    }

    static var hasStr2Str: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/str2str") }

    /// Against a real caster, RTKLIB's `str2str`: every frame that reaches the receiver's side of the pseudo-terminal
    /// is whole, CRC-valid and in the caster's order while `run` reads the receiver's NMEA.
    @Test(.enabled(if: hasStr2Str, "RTKLIB's str2str is not installed (apt install rtklib)"))
    func correctionsFromRTKLIBsCasterArriveWhole() throws {
        let frames = RTCM3Builder.stream(count: 25)
        let dir = try TemporaryDirectory()
        let port = try GPSDProcess.freePort()
        let caster = try Str2Str(port: port, user: "rover", password: "s3cret", frames: frames, in: dir, name: "s2s")
        defer { caster.stop() }
        let receiver = try Receiver()
        defer { receiver.stop() }
        let passwordFile = try dir.write("password", "s3cret\n")
        let process = try SpawnedProcess(Lodestar.binary, ["run", "--gps", "\(receiver.pty.slavePath)@9600", "--no-sky", "--no-smoothing",
                                                           "--ntrip", "ntrip://rover@127.0.0.1:\(port)/TEST",
                                                           "--ntrip-password-file", passwordFile],
                                         stdoutPath: dir.path("out"), stderrPath: dir.path("err"))
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, RTCM3Builder.frames(in: receiver.bytes).count < 30 { usleep(50_000) }
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 5) == 143)
        let received = RTCM3Builder.frames(in: receiver.bytes)
        #expect(received.count >= 30, "\(received.count) frames from str2str; lodestar: \((try? String(contentsOfFile: dir.path("err"), encoding: .utf8)) ?? "")")
        // Whole, and in the caster's (cyclic) order.
        let index = received.compactMap { f in frames.firstIndex(of: f) }
        #expect(index.count == received.count, "every frame is one the base sent, intact")
        #expect(zip(index, index.dropFirst()).allSatisfy { ($0 + 1) % frames.count == $1 }, "in order: \(index.prefix(40))")
        let out = try String(contentsOfFile: dir.path("out"), encoding: .utf8)
        #expect(out.contains("\"source\":\"ntrip\"") && out.contains("\"class\":\"fix\""), "statuses and fixes go on")
    }

    @Test func aWrongPasswordIsOneClearStatusAndFixesGoOn() throws {
        let caster = try TestCaster(user: "rover", password: "right", frames: RTCM3Builder.stream(count: 5))
        defer { caster.stop() }
        let receiver = try Receiver()
        defer { receiver.stop() }
        let dir = try TemporaryDirectory()
        let passwordFile = try dir.write("password", "wrong\n")
        let process = try SpawnedProcess(Lodestar.binary, ["run", "--gps", "\(receiver.pty.slavePath)@9600", "--no-sky",
                                                           "--ntrip", "ntrip://rover@127.0.0.1:\(caster.port)/TEST",
                                                           "--ntrip-password-file", passwordFile],
                                         stdoutPath: dir.path("out"), stderrPath: dir.path("err"))
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, caster.requests.count < 3 { usleep(50_000) }
        usleep(300_000)
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 5) == 143)
        let out = try String(contentsOfFile: dir.path("out"), encoding: .utf8)
        let refusals = out.split(separator: "\n").filter { $0.contains("\"source\":\"ntrip\"") && $0.contains("401 Unauthorized") }
        #expect(refusals.count == 1, "one status however often it retries: \(refusals)")
        #expect(caster.requests.count >= 2, "it keeps retrying with backoff")
        #expect(out.split(separator: "\n").filter { $0.hasPrefix("{\"class\":\"fix\"") }.count >= 10, "fixes go on")
        #expect(RTCM3Builder.frames(in: receiver.bytes).isEmpty)
    }

    /// The caster goes away and comes back on the same port: the client reports it, reconnects with backoff and
    /// the new caster's frames arrive whole after the old one's.
    @Test func aCasterRestartIsRecovered() throws {
        let first = RTCM3Builder.stream(count: 60)   // about 2 s of chunks: the corrections are announced before the restart
        let second = (0..<20).map { RTCM3Builder.frame(RTCM3Builder.types[$0 % 5], length: 30 + $0, seed: 100 + $0) }
        var caster = try TestCaster(user: "rover", password: "pw", frames: first)
        let port = caster.port
        let receiver = try Receiver()
        defer { receiver.stop() }
        let dir = try TemporaryDirectory()
        let passwordFile = try dir.write("password", "pw")
        let process = try SpawnedProcess(Lodestar.binary, ["run", "--gps", "\(receiver.pty.slavePath)@9600", "--no-sky",
                                                           "--ntrip", "ntrip://rover@127.0.0.1:\(port)/TEST",
                                                           "--ntrip-password-file", passwordFile],
                                         stdoutPath: dir.path("out"), stderrPath: dir.path("err"))
        var deadline = Date().addingTimeInterval(15)
        while Date() < deadline, RTCM3Builder.frames(in: receiver.bytes).count < first.count { usleep(50_000) }
        caster.stop()
        usleep(300_000)
        caster = try TestCaster(user: "rover", password: "pw", frames: second, port: port)
        defer { caster.stop() }
        deadline = Date().addingTimeInterval(20)
        while Date() < deadline, RTCM3Builder.frames(in: receiver.bytes).count < first.count + second.count { usleep(50_000) }
        usleep(1_200_000)   // the recovered status comes after a second of corrections
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 5) == 143)
        let received = RTCM3Builder.frames(in: receiver.bytes)
        #expect(received.count == first.count + second.count && received == first + second, "\(received.count) frames")
        let out = try String(contentsOfFile: dir.path("out"), encoding: .utf8)
        let statuses = out.split(separator: "\n").filter { $0.contains("\"source\":\"ntrip\"") }
        #expect(statuses.contains { $0.contains("\"state\":\"unavailable\"") && $0.contains("closed the connection") }, "\(statuses)")
        #expect(statuses.contains { $0.contains("\"state\":\"recovered\"") }, "\(statuses)")
    }

    /// NTRIP 1.0: `ICY 200 OK` and the raw stream; the GGA follows the request at once (a fix exists by then);
    /// corrections that stop are reported stale after --ntrip-stale-seconds.
    @Test func version1CastersWorkAndSilenceIsReportedStale() throws {
        let frames = RTCM3Builder.stream(count: 40)
        let caster = try TestCaster(user: "rover", password: "pw", frames: frames, version1: true)
        defer { caster.stop() }
        let receiver = try Receiver()
        defer { receiver.stop() }
        let dir = try TemporaryDirectory()
        let passwordFile = try dir.write("password", "pw\n")
        let process = try SpawnedProcess(Lodestar.binary, ["run", "--gps", "\(receiver.pty.slavePath)@9600", "--no-sky",
                                                           "--ntrip", "ntrip://rover@127.0.0.1:\(caster.port)/TEST", "--ntrip-version", "1",
                                                           "--ntrip-password-file", passwordFile, "--ntrip-stale-seconds", "1"],
                                         stdoutPath: dir.path("out"), stderrPath: dir.path("err"))
        let deadline = Date().addingTimeInterval(15)
        func stale() -> Bool { ((try? String(contentsOfFile: dir.path("out"), encoding: .utf8)) ?? "").contains("stale: no corrections") }
        while Date() < deadline, RTCM3Builder.frames(in: receiver.bytes).count < frames.count || !stale() { usleep(50_000) }
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 5) == 143)
        #expect(caster.requests.first?.hasPrefix("GET /TEST HTTP/1.0\r\n") == true)
        let received = RTCM3Builder.frames(in: receiver.bytes)
        #expect(received.count == frames.count && received == frames, "\(received.count) frames")
        #expect(stale(), "no stale status")
    }

    /// Corrections that arrive before the receiver's port opens (the caster answered first, or the receiver is being
    /// replugged) wait for it, in order, instead of vanishing: here the port appears 1.5 s after the caster sent
    /// every frame, and the receiver still gets them all (a CI run under load once lost the first frame that way).
    @Test func framesThatArriveBeforeThePortOpensWaitForIt() throws {
        let frames = RTCM3Builder.stream(count: 20)
        let caster = try TestCaster(user: "rover", password: "pw", frames: frames, version1: true)
        defer { caster.stop() }
        let receiver = try Receiver()
        defer { receiver.stop() }
        let dir = try TemporaryDirectory()
        let passwordFile = try dir.write("password", "pw\n")
        let link = dir.path("gps")   // does not exist yet: the serial source retries with backoff
        let process = try SpawnedProcess(Lodestar.binary, ["run", "--gps", "\(link)@9600", "--no-sky",
                                                           "--ntrip", "ntrip://rover@127.0.0.1:\(caster.port)/TEST", "--ntrip-version", "1",
                                                           "--ntrip-password-file", passwordFile],
                                         stdoutPath: dir.path("out"), stderrPath: dir.path("err"))
        var deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !((try? String(contentsOfFile: dir.path("out"), encoding: .utf8)) ?? "").contains("\"source\":\"ntrip\"") {
            usleep(50_000)
        }
        usleep(1_500_000)   // every frame has been sent by now (about 0.4 s of 37-byte chunks)
        #expect(RTCM3Builder.frames(in: receiver.bytes).isEmpty)
        #expect(symlink(receiver.pty.slavePath, link) == 0)
        deadline = Date().addingTimeInterval(10)
        while Date() < deadline, RTCM3Builder.frames(in: receiver.bytes).count < frames.count { usleep(50_000) }
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 5) == 143)
        let received = RTCM3Builder.frames(in: receiver.bytes)
        #expect(received.count == frames.count && received == frames, "\(received.count) of \(frames.count) frames")
        let err = try String(contentsOfFile: dir.path("err"), encoding: .utf8)
        #expect(!err.contains("not written"), "\(err)")
    }

    @Test func sourcesListsTheSourceTable() throws {
        let caster = try TestCaster(user: "u", password: "p", frames: [])
        defer { caster.stop() }
        let r = try Lodestar.run(["ntrip", "sources", "127.0.0.1:\(caster.port)"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.first == "mountpoint\tformat\tnav-system\tlatitude\tlongitude\tnmea")
        #expect(lines.contains("TEST\tRTCM 3.3\tGPS+GAL\t48.1200\t11.5200\tgga"), "\(r.stdout)")
        #expect(lines.contains("BASE2\tRTCM 3.2\tGLO\t-33.8600\t151.2100\t-"))
        #expect(try Lodestar.run(["ntrip", "sources", "127.0.0.1:notaport"]).status == 64)
    }

    @Test func aPasswordInTheURLIsRefused() throws {
        let r = try Lodestar.run(["run", "--gps", "/dev/null@9600", "--ntrip", "ntrip://user:pw@caster.example/MOUNT"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("no password in the URL: use --ntrip-password-file"), "\(r.stderr)")
    }
}
