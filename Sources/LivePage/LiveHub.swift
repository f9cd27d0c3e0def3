import Events
import LocationCore
import Maps
import Synchronization

/// The live page's view of a session: the adapter from the pipeline's `OutputEvent`s to messages for the page's
/// clients. `observe` is called on the pipeline's thread (install it as the pipeline's observer where the CLI
/// builds its sinks); it encodes the event as a Lodestar JSON line (docs/output.md), keeps the latest of each kind
/// and the recent track, and hands the line to every connected client without ever blocking: a client that falls
/// more than `clientBufferMessages` behind loses its oldest messages.
public final class LiveHub: OutputEventConsumer, Sendable {
    public static let maximumTrackPoints = 3600
    public static let clientBufferMessages = 512

    struct State {
        var track: [(Double, Double)] = []
        var latest: [String: String] = [:]
        var statuses: [String: String] = [:]
        var clients: [UInt64: AsyncStream<String>.Continuation] = [:]
        var nextClient: UInt64 = 0
        var messages = 0
        var connectionsServed = 0
        var maximumClients = 0
    }
    private let state = Mutex(State())

    public init() {}

    /// The adapter: one output event in (pipeline thread).
    public func consume(_ event: OutputEvent) { observe(event) }

    public func observe(_ event: OutputEvent) {
        let cls: String
        switch event {
        case .fix: cls = "fix"
        case .heading: cls = "heading"
        case .sky: cls = "sky"
        case .availability: cls = "availability"
        case .status: cls = "status"
        case .service, .calibrationNeeded, .calibrationRefined, .sentence, .lateFix: return
        }
        var encoder = LodestarJSONEncoder()
        var buffer = LocationCore.ByteBuffer(capacity: 1024)
        encoder.encode(event, into: &buffer)
        var bytes = buffer.array
        while let last = bytes.last, last == 0x0A { bytes.removeLast() }
        guard !bytes.isEmpty else { return }
        let line = String(decoding: bytes, as: UTF8.self)
        state.withLock { s in
            s.messages += 1
            switch event {
            case .fix(let l):
                if let lat = l.latitudeDegrees, let lon = l.longitudeDegrees, l.mode != .noFix {
                    s.track.append((lat, lon))
                    if s.track.count > Self.maximumTrackPoints { s.track.removeFirst(s.track.count - Self.maximumTrackPoints) }
                }
                s.latest[cls] = line
            case .status(let st): s.statuses[st.source] = line
            default: s.latest[cls] = line
            }
            for c in s.clients.values { c.yield(line) }
        }
    }

    /// What a new client gets first: the recent track, then the latest fix, heading, sky, availability and statuses.
    func snapshotLines(_ s: State) -> [String] {
        var track = "{\"class\":\"track\",\"points\":["
        track += s.track.map { "[\(Self.coordinate($0.0)),\(Self.coordinate($0.1))]" }.joined(separator: ",")
        track += "]}"
        var lines = [track]
        for k in ["availability", "sky", "heading", "fix"] { if let l = s.latest[k] { lines.append(l) } }
        lines += s.statuses.keys.sorted().compactMap { s.statuses[$0] }
        return lines
    }

    static func coordinate(_ v: Double) -> String {
        let scaled = (v * 1e7).rounded()
        guard scaled.isFinite, abs(scaled) < 1e12 else { return "0" }
        let n = Int64(scaled)
        let sign = n < 0 ? "-" : ""
        let a = abs(n)
        let frac = String(a % 10_000_000)
        return sign + String(a / 10_000_000) + "." + String(repeating: "0", count: 7 - frac.count) + frac
    }

    /// A new client: its id and its message stream (the snapshot first).
    func subscribe() -> (UInt64, AsyncStream<String>) {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(Self.clientBufferMessages))
        let id = state.withLock { s -> UInt64 in
            for l in snapshotLines(s) { continuation.yield(l) }
            let id = s.nextClient
            s.nextClient += 1
            s.clients[id] = continuation
            s.connectionsServed += 1
            s.maximumClients = max(s.maximumClients, s.clients.count)
            return id
        }
        return (id, stream)
    }

    func unsubscribe(_ id: UInt64) {
        let c = state.withLock { $0.clients.removeValue(forKey: id) }
        c?.finish()
    }

    /// Ends every client's stream (server shutdown).
    public func finishAll() {
        let all = state.withLock { s -> [AsyncStream<String>.Continuation] in
            let v = Array(s.clients.values)
            s.clients.removeAll()
            return v
        }
        for c in all { c.finish() }
    }

    /// `/state.json`: counters for monitoring and tests, and the snapshot.
    func stateJSON() -> String {
        state.withLock { s in
            "{\"class\":\"liveState\",\"clients\":\(s.clients.count),\"maximumClients\":\(s.maximumClients),"
                + "\"connectionsServed\":\(s.connectionsServed),\"messages\":\(s.messages),\"trackPoints\":\(s.track.count),"
                + "\"snapshot\":[" + snapshotLines(s).joined(separator: ",") + "]}"
        }
    }
}
