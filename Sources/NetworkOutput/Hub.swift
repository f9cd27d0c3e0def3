import CLinux
import struct LocationCore.ReceiverIdentity
import NIOCore
import Synchronization

/// One encoded output event, shared by every client (a `ByteBuffer` is copy-on-write: one allocation per event,
/// not per client).
public struct Broadcast: Sendable {
    public enum Kind: Sendable { case tpv, sky, att, other }
    public var kind: Kind
    /// gpsd JSON lines (CR LF), for `json` watchers.
    public var json: ByteBuffer?
    /// NMEA sentences, for `nmea`/`raw` watchers and NMEA servers.
    public var nmea: ByteBuffer?
    public init(kind: Kind, json: ByteBuffer?, nmea: ByteBuffer?) { self.kind = kind; self.json = json; self.nmea = nmea }
}

/// The clients of one server and what they are sent. Every method runs on the server's event loop.
final class Hub: @unchecked Sendable {
    /// Clients connected right now, readable from any thread (a replay skips waiting for clients when 0).
    let connectedCount = Atomic<Int>(0)
    enum Flavor: Sendable { case gpsd, nmea, events }

    let loop: any EventLoop
    let flavor: Flavor
    let device: String
    let maximumQueued: Int
    let activatedNanos: Int64
    private var clients: [Int: ClientHandler] = [:]
    private var nextID = 1
    private(set) var totalDropped = 0
    private(set) var connections = 0
    /// Per-client drop counts of clients that left (for the end summary).
    private(set) var departedDrops: [(peer: String, dropped: Int)] = []
    /// What `DEVICE` says the receiver is (gpsd's `driver`, `subtype`, `subtype1`); "Lodestar" until known.
    var identity: ReceiverIdentity?
    private var lastTPV: ByteBuffer?
    private var lastSKY: ByteBuffer?
    /// Promises waiting for the number of watching clients to reach a value.
    private var watcherWaits: [(Int, EventLoopPromise<Void>)] = []

    init(loop: any EventLoop, flavor: Flavor, device: String, maximumQueued: Int) {
        self.loop = loop; self.flavor = flavor; self.device = device; self.maximumQueued = maximumQueued
        activatedNanos = clinux_realtime_ns()
    }

    var acceptsCommands: Bool { flavor == .gpsd }

    func makeClient() -> ClientHandler {
        defer { nextID += 1 }
        var policy = WatchPolicy()
        if flavor == .nmea { policy.enable = true; policy.nmea = true }
        if flavor == .events { policy.enable = true; policy.json = true }  // the service: every event on connect
        return ClientHandler(hub: self, id: nextID, policy: policy)
    }

    func clientConnected(_ c: ClientHandler) {
        clients[c.id] = c
        connectedCount.store(clients.count, ordering: .relaxed)
        connections += 1
        if flavor == .gpsd { c.reply(GpsdProtocol.version()) }
        checkWaits()
    }

    func clientDisconnected(_ c: ClientHandler) {
        if clients.removeValue(forKey: c.id) != nil, c.dropped > 0 { departedDrops.append((c.peer, c.dropped)) }
        connectedCount.store(clients.count, ordering: .relaxed)
    }

    func noteDropped() { totalDropped += 1 }

    var watchingCount: Int { clients.values.reduce(0) { $0 + ($1.policy.enable ? 1 : 0) } }
    var clientCount: Int { clients.count }
    var largestQueue: Int { clients.values.reduce(0) { max($0, $1.queued) } }

    /// Clients written to since the last flush, and whether that flush is scheduled.
    private var unflushed: [ClientHandler] = []
    private var flushing: [ClientHandler] = []
    private var flushScheduled = false

    func needsFlush(_ c: ClientHandler) {
        unflushed.append(c)
        guard !flushScheduled else { return }
        flushScheduled = true
        // Runs after the tasks already on the loop: events published together (a cycle's SKY and TPV) reach each
        // client in one write (a system call per client instead of per event; on loopback each one also runs the
        // receiver's side). A lone event is flushed by the next task, at once.
        loop.execute { self.flushAll() }
    }

    private func flushAll() {
        flushScheduled = false
        // Two arrays swapped, so neither is copied or reallocated per burst.
        swap(&unflushed, &flushing)
        for c in flushing { c.flush() }
        flushing.removeAll(keepingCapacity: true)
    }

    func broadcast(_ b: Broadcast) {
        if let json = b.json {
            if b.kind == .tpv { lastTPV = json } else if b.kind == .sky { lastSKY = json }
        }
        for c in clients.values where c.policy.enable {
            if c.policy.device.map({ $0 != device }) ?? false { continue }
            if c.policy.json, let json = b.json { c.offer(json) }
            if c.policy.nmea || c.policy.raw > 0, let nmea = b.nmea { c.offer(nmea) }
        }
    }

    /// Completes when at least `count` clients watch (have enabled `?WATCH`; NMEA clients on connect).
    func waitForWatchers(_ count: Int) -> EventLoopFuture<Void> {
        let p = loop.makePromise(of: Void.self)
        watcherWaits.append((count, p))
        checkWaits()
        return p.futureResult
    }

    private func checkWaits() {
        let n = watchingCount
        watcherWaits.removeAll { wait in
            if n >= wait.0 { wait.1.succeed(()); return true }
            return false
        }
    }

    /// Completes when every client's queue is empty (or after `timeoutNanos`).
    func flushed(timeoutNanos: Int64) -> EventLoopFuture<Void> {
        let deadline = clinux_monotonic_ns() + timeoutNanos
        let p = loop.makePromise(of: Void.self)
        func check() {
            if clients.values.allSatisfy({ $0.queued == 0 }) || clinux_monotonic_ns() >= deadline { p.succeed(()); return }
            loop.scheduleTask(in: .milliseconds(10)) { check() }
        }
        check()
        return p.futureResult
    }

    func closeAll() {
        let all = clients.values.sorted { $0.id < $1.id }
        clients.removeAll()
        connectedCount.store(0, ordering: .relaxed)
        for c in all {
            if c.dropped > 0 { departedDrops.append((c.peer, c.dropped)) }
            c.close()
        }
        for w in watcherWaits { w.1.succeed(()) }
        watcherWaits.removeAll()
    }

    /// The receiver identified itself: like gpsd when its driver recognises a device, watchers are sent the
    /// `DEVICE` object again with the driver and subtype.
    func identify(_ new: ReceiverIdentity) {
        guard new != identity else { return }
        identity = new
        guard flavor == .gpsd else { return }
        let reply = GpsdProtocol.Reply(device: device, activatedNanos: activatedNanos, identity: identity)
        for c in clients.values where c.policy.enable && c.policy.json {
            c.offer(reply.deviceObject(clients: clients.count, dropped: totalDropped, line: true))
        }
    }

    // MARK: gpsd commands

    func handleCommand(_ command: String, from c: ClientHandler) {
        let reply = GpsdProtocol.Reply(device: device, activatedNanos: activatedNanos, identity: identity)
        switch GpsdProtocol.parse(command) {
        case .watch(let changes):
            if let changes {
                var p = c.policy
                GpsdProtocol.apply(changes, to: &p)
                c.policy = p
                checkWaits()
                if p.enable { c.reply(reply.devices(clients: clients.count, dropped: totalDropped)) }
            }
            c.reply(reply.watch(c.policy))
        case .poll:
            c.reply(reply.poll(tpv: lastTPV, sky: lastSKY))
        case .devices:
            c.reply(reply.devices(clients: clients.count, dropped: totalDropped))
        case .device:
            c.reply(reply.deviceObject(clients: clients.count, dropped: totalDropped, line: true))
        case .version:
            c.reply(GpsdProtocol.version())
        case .clients:
            c.reply(reply.clients(clients.values.sorted { $0.id < $1.id }))
        case .unknown(let name):
            c.reply(GpsdProtocol.error("Unrecognized request '\(name)'"))
        case .malformed(let message):
            c.reply(GpsdProtocol.error(message))
        }
    }
}
