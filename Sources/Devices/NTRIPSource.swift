#if canImport(Glibc)
import Glibc
#endif
import CLinux
import LocationCore
import LodestarIO
import Synchronization
import SystemPackage
import UBX

/// An NTRIP client (docs/ntrip.md): connects to a caster, checks every RTCM3 frame's CRC-24Q with the UBX module's
/// mixed framer, and writes each whole frame to the receiver through `SerialSource.writeToReceiver` (never interleaved
/// with a configuration write); a corrupt frame is counted and dropped. Uploads the current fix as GGA every
/// `ggaIntervalSeconds` (only once a fix exists). Reconnects with backoff.
///
/// A pseudo-source named `ntrip`: it delivers no data events, only status changes through the live queue like a
/// device — `available` once corrections flow (with their message types and age), `unavailable` when they go stale,
/// the caster refuses the credentials or the mountpoint, or the connection drops; `recovered` when they flow again —
/// so they are recorded in captures and replayed.
///
/// Plain POSIX sockets (non-blocking, poll) through the project's syscall layer, on the source's own thread like
/// the serial and gpsd sources: one connection needs no event loop (docs/ntrip.md).
public final class NTRIPSource: LiveSource {
    public struct Settings: Sendable {
        public var ggaIntervalSeconds: Double = 10
        /// No RTCM3 for this long ⇒ `unavailable` (stale).
        public var staleSeconds: Double = 10
        public var connectTimeoutMilliseconds: Int32 = 5000
        public var pollMilliseconds: Int32 = 50
        /// `Ntrip-Version: Ntrip/2.0` over HTTP/1.1 (2) or an NTRIP 1.0 request (1); either answer is understood.
        public var version = 2
        public var backoff = Backoff(initialNanos: 500_000_000, maximumNanos: 10_000_000_000)
        /// Frames the receiver's port cannot take yet (not open, between replugs) wait this long, in order, before
        /// they are dropped as too old to help (counted as not written).
        public var holdSeconds: Double = 5
        public init() {}
    }

    public let name: String
    public let url: NTRIPURL
    private let password: String?
    public let settings: Settings
    private let writer: (@Sendable ([UInt8]) -> Bool)?
    private let gga: @Sendable () -> String?
    private let stopRequested = Atomic<Bool>(false)
    private let status: SourceStateBox
    private let counters = Mutex(Counters())

    public struct Counters: Sendable, Hashable {
        public var frames = 0
        public var corruptFrames = 0
        public var unwrittenFrames = 0
        public var ggaSent = 0
        public var connections = 0
        public var messageTypes = Set<Int>()
    }

    /// `writer` takes each whole RTCM3 frame (the receiver's serial source); `gga` gives the sentence to upload,
    /// nil while there is no fix.
    public init(name: String = "ntrip", url: NTRIPURL, password: String?, settings: Settings = Settings(),
                writer: (@Sendable ([UInt8]) -> Bool)?, gga: @escaping @Sendable () -> String? = { nil }) {
        self.name = name; self.url = url; self.password = password; self.settings = settings
        self.writer = writer; self.gga = gga
        status = SourceStateBox(SourceState(name: name, authorization: .notDetermined, available: false))
    }

    public var captureAttributes: [String: String] {
        ["kind": "ntrip", "caster": "\(url.host):\(url.port)", "mountpoint": url.mountpoint]
    }

    public var statistics: Counters { counters.withLock { $0 } }
    public var state: SourceState { status.value }
    public func stop() { stopRequested.store(true, ordering: .releasing) }
    private var isStopping: Bool { stopRequested.load(ordering: .acquiring) }

    public func run(sourceID: Int, sink: any SourceSink) {
        var tracker = StatusTracker(name: name, sink: sink, state: status)
        tracker.starting("\(url.host):\(url.port)/\(url.mountpoint), NTRIP \(settings.version == 1 ? "1.0" : "2.0")")
        var backoff = settings.backoff
        var held = HeldFrames()
        while !isStopping {
            session(tracker: &tracker, backoff: &backoff, held: &held)
            if isStopping { break }
            pause(nanoseconds: backoff.nextDelayNanos())
        }
    }

    private var holdNanos: Int64 { Int64(settings.holdSeconds * 1e9) }

    private var endpoint: String { "\(url.host):\(url.port)/\(url.mountpoint)" }

    /// Frames waiting for the receiver's port, oldest first, with the time each arrived.
    struct HeldFrames {
        var frames: [(bytes: [UInt8], arrivedNanos: Int64)] = []
        /// Writes what the port takes, in order; drops frames older than `holdNanos`. Returns how many were dropped.
        mutating func flush(now: Int64, holdNanos: Int64, writer: (([UInt8]) -> Bool)?) -> Int {
            var dropped = 0
            while let first = frames.first {
                if writer?(first.bytes) ?? false { frames.removeFirst(); continue }
                if now - first.arrivedNanos > holdNanos { frames.removeFirst(); dropped += 1; continue }
                break
            }
            return dropped
        }
    }

    private func session(tracker: inout StatusTracker, backoff: inout Backoff, held: inout HeldFrames) {
        let fd: Int32
        do { fd = try NTRIPSocket.connect(host: url.host, port: url.port, timeoutMilliseconds: settings.connectTimeoutMilliseconds) } catch {
            tracker.problem(.unavailable, "\(endpoint): \(error)")
            return
        }
        defer { Syscall.close(fd) }
        counters.withLock { $0.connections += 1 }
        let request = NTRIPRequest.get(url: url, password: password, version: settings.version, gga: gga())
        guard send(Array(request.utf8), fd) else { tracker.problem(.unavailable, "\(endpoint): cannot send the request"); return }

        // The answer's head: ICY 200 OK (1.0, data follows the line), HTTP/1.x 200 (2.0, headers), or a refusal.
        var head: [UInt8] = []
        var body: [UInt8] = []
        var chunked = false
        let deadline = clinux_monotonic_ns() + 10_000_000_000
        while true {
            guard !isStopping else { return }
            guard clinux_monotonic_ns() < deadline else { tracker.problem(.unavailable, "\(endpoint): no answer from the caster"); return }
            switch read(fd) {
            case .data(let d): head += d
            case .idle: continue
            case .closed:
                tracker.problem(.unavailable, "\(endpoint): the caster closed the connection before answering")
                return
            }
            if head.starts(with: Array("ICY 200 OK".utf8)), let eol = head.firstRange(of: [0x0D, 0x0A]) {
                body = Array(head[eol.upperBound...]); break
            }
            if let end = head.firstRange(of: [0x0D, 0x0A, 0x0D, 0x0A]) {
                let text = String(decoding: head[..<end.lowerBound], as: UTF8.self)
                body = Array(head[end.upperBound...])
                switch NTRIPRequest.judge(text) {
                case .ok(let isChunked): chunked = isChunked
                case .refused(let message, let auth):
                    tracker.problem(.unavailable, "\(endpoint): \(message)", authorization: auth ? .denied : nil)
                    return
                }
                break
            }
            if head.count > 16_384 { tracker.problem(.unavailable, "\(endpoint): the caster's answer has no end of header"); return }
        }

        let framer = MixedStreamFramer()
        var decoder = ChunkedDecoder()
        var lastData = clinux_monotonic_ns()
        var firstData: Int64?
        var announced = false
        var staleReported = false
        var nextGGA = clinux_monotonic_ns() + Int64(settings.ggaIntervalSeconds * 1e9)
        var typesSeen = Set<Int>()
        func consume(_ raw: [UInt8]) {
            let bytes = chunked ? decoder.decode(raw) : raw
            let before = framer.statistics.rtcm3BadCRCs
            var frames: [[UInt8]] = []
            framer.feed(bytes) { frame in
                if case .rtcm3(let f) = frame {
                    frames.append(Array(f.bytes))
                    if let n = f.messageNumber { typesSeen.insert(n) }
                }
            }
            let bad = framer.statistics.rtcm3BadCRCs - before
            let arrived = clinux_monotonic_ns()
            held.frames += frames.map { ($0, arrived) }
            let unwritten = held.flush(now: arrived, holdNanos: holdNanos, writer: writer)
            counters.withLock {
                $0.frames += frames.count; $0.corruptFrames += bad; $0.unwrittenFrames += unwritten
                $0.messageTypes.formUnion(typesSeen)
            }
            if !frames.isEmpty {
                let now = clinux_monotonic_ns()
                lastData = now
                if firstData == nil { firstData = now }
                if staleReported { staleReported = false; announced = false; firstData = now }
            }
        }
        if !body.isEmpty { consume(body) }
        while !isStopping {
            if !held.frames.isEmpty {
                let dropped = held.flush(now: clinux_monotonic_ns(), holdNanos: holdNanos, writer: writer)
                if dropped > 0 { counters.withLock { $0.unwrittenFrames += dropped } }
            }
            switch read(fd) {
            case .data(let d): consume(d)
            case .idle: break
            case .closed:
                tracker.problem(.unavailable, "\(endpoint): the caster closed the connection" + (decoder.failed ? " (bad chunked encoding)" : ""))
                return
            }
            if decoder.failed { tracker.problem(.unavailable, "\(endpoint): bad chunked transfer encoding"); return }
            if chunked && decoder.isDone { tracker.problem(.unavailable, "\(endpoint): the caster ended the stream"); return }
            let now = clinux_monotonic_ns()
            // Announce once a second of corrections has shown their message types.
            if !announced, let first = firstData, now - first >= 1_000_000_000 {
                announced = true
                backoff.reset()
                tracker.flowing("corrections from \(endpoint): RTCM3 \(typesSeen.sorted().map(String.init).joined(separator: ", ")); age \(Self.seconds(now - lastData)) s")
            }
            if !staleReported, now - lastData > Int64(settings.staleSeconds * 1e9) {
                staleReported = true
                let c = statistics
                tracker.problem(.unavailable, "\(endpoint): stale: no corrections for \(Self.seconds(now - lastData)) s (\(c.frames) frames, \(c.corruptFrames) corrupt dropped)")
            }
            if settings.ggaIntervalSeconds > 0, now >= nextGGA {
                nextGGA = now + Int64(settings.ggaIntervalSeconds * 1e9)
                if let sentence = gga() {
                    guard send(Array(sentence.utf8), fd) else { tracker.problem(.unavailable, "\(endpoint): cannot send GGA"); return }
                    counters.withLock { $0.ggaSent += 1 }
                }
            }
        }
    }

    static func seconds(_ nanos: Int64) -> String {
        let tenths = (nanos + 50_000_000) / 100_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }

    private enum ReadResult { case data([UInt8]), idle, closed }

    private func read(_ fd: Int32) -> ReadResult {
        guard (try? Syscall.waitReadable(fd, timeoutMilliseconds: settings.pollMilliseconds)) == true else { return .idle }
        var buffer = [UInt8](repeating: 0, count: 8192)
        let n: Int
        do { n = try buffer.withUnsafeMutableBytes { (p) throws(Errno) -> Int in try Syscall.read(fd, into: p) } } catch let e as Errno {
            return e == .resourceTemporarilyUnavailable || e == .wouldBlock ? .idle : .closed
        } catch {
            return .closed
        }
        return n > 0 ? .data(Array(buffer[..<n])) : .closed
    }

    private func send(_ bytes: [UInt8], _ fd: Int32) -> Bool {
        let n = (try? bytes.withUnsafeBytes { try Syscall.writeAll(fd, $0, giveUp: { self.isStopping }) }) ?? -1
        return n == bytes.count
    }

    private func pause(nanoseconds: Int64) { interruptibleSleep(nanoseconds: nanoseconds) { isStopping } }
}

/// The request and the judgement of the answer's head.
public enum NTRIPRequest {
    public static func get(url: NTRIPURL, password: String?, version: Int, gga: String?) -> String {
        var lines: [String] = []
        if version == 1 {
            lines.append("GET /\(url.mountpoint) HTTP/1.0")
        } else {
            lines.append("GET /\(url.mountpoint) HTTP/1.1")
            lines.append("Host: \(url.host.contains(":") ? "[\(url.host)]" : url.host):\(url.port)")
            lines.append("Ntrip-Version: Ntrip/2.0")
            if let gga { lines.append("Ntrip-GGA: " + gga.trimmingCharacters(in: ["\r", "\n"])) }
        }
        lines.append("User-Agent: NTRIP Lodestar/0.1")
        if let user = url.user {
            lines.append("Authorization: Basic " + base64(Array("\(user):\(password ?? "")".utf8)))
        }
        lines.append("Connection: close")
        var text = lines.joined(separator: "\r\n") + "\r\n\r\n"
        if version == 1, let gga { text += gga.hasSuffix("\r\n") ? gga : gga + "\r\n" }
        return text
    }

    public enum Judgement: Sendable, Hashable {
        case ok(chunked: Bool)
        case refused(String, authentication: Bool)
    }

    /// An HTTP or NTRIP 1.0 answer's head (status line and headers, without the blank line).
    public static func judge(_ head: String) -> Judgement {
        let lines = head.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map { $0.trimmingCharacters(in: ["\r"]) }
        let status = lines.first ?? ""
        if status.hasPrefix("SOURCETABLE 200") {
            return .refused("the mountpoint does not exist (the caster sent its source table; see lodestar ntrip sources)", authentication: false)
        }
        let parts = status.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/") || parts[0] == "ICY", let code = Int(parts[1]) else {
            return .refused("not an NTRIP answer: \"\(status.prefix(60))\"", authentication: false)
        }
        let headers = lines.dropFirst().map { $0.lowercased() }
        switch code {
        case 200:
            if headers.contains(where: { $0.hasPrefix("content-type:") && $0.contains("gnss/sourcetable") }) {
                return .refused("the mountpoint does not exist (the caster sent its source table; see lodestar ntrip sources)", authentication: false)
            }
            return .ok(chunked: headers.contains { $0.hasPrefix("transfer-encoding:") && $0.contains("chunked") })
        case 401: return .refused("the caster refused the user or password (401 Unauthorized; check --ntrip-password-file)", authentication: true)
        case 403: return .refused("the caster refused access (403 Forbidden)", authentication: true)
        case 404: return .refused("the mountpoint does not exist (404 Not Found)", authentication: false)
        default: return .refused("the caster answered \"\(status.prefix(60))\"", authentication: false)
        }
    }

    public static func base64(_ bytes: [UInt8]) -> String {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var out = ""
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            let b0 = Int(bytes[i]), b1 = n > 1 ? Int(bytes[i + 1]) : 0, b2 = n > 2 ? Int(bytes[i + 2]) : 0
            let v = b0 << 16 | b1 << 8 | b2
            out.append(table[v >> 18 & 63]); out.append(table[v >> 12 & 63])
            out.append(n > 1 ? table[v >> 6 & 63] : "="); out.append(n > 2 ? table[v & 63] : "=")
            i += 3
        }
        return out
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}

/// A non-blocking TCP connection with a timeout.
public enum NTRIPSocket {
    public static func connect(host: String, port: Int, timeoutMilliseconds: Int32) throws(NTRIPError) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let r = getaddrinfo(host, String(port), &hints, &result)
        guard r == 0, let first = result else { throw .connect("cannot resolve \(host): \(String(cString: gai_strerror(r)))") }
        defer { freeaddrinfo(result) }
        var lastError: Int32 = ECONNREFUSED
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let ai = candidate {
            candidate = ai.pointee.ai_next
            let fd = socket(ai.pointee.ai_family, ai.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
                            ai.pointee.ai_protocol)
            guard fd >= 0 else { lastError = errno; continue }
            if Glibc.connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 { return fd }
            guard errno == EINPROGRESS else { lastError = errno; Glibc.close(fd); continue }
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&p, 1, timeoutMilliseconds) == 1 else { lastError = ETIMEDOUT; Glibc.close(fd); continue }
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
            if soError == 0 { return fd }
            lastError = soError
            Glibc.close(fd)
        }
        throw .connect("cannot connect to \(host):\(port): \(String(cString: strerror(lastError)))")
    }
}
