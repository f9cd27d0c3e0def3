import struct LocationCore.ReceiverIdentity
import CLinux
import NIOCore
import NIOPosix
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A TCP (or Unix-socket) server that fans Lodestar's output out to many clients: the gpsd protocol
/// (`GpsdServer`) or plain NMEA 0183 (`NMEAServer`, port 10110). SwiftNIO, one event-loop thread for all
/// clients; `publish` is called from the pipeline's thread, never blocks and never waits for a client.
public final class OutputServer: Sendable {
    public struct Settings: Sendable {
        /// Items (one event's lines) a client may have waiting beyond what the socket and NIO hold; past it the
        /// oldest is dropped and counted.
        public var maximumQueuedPerClient = 256
        /// NIO's per-channel write buffer water marks (bytes): above `high` the channel is not writable and
        /// output waits in the client's queue.
        public var writeBufferLow = 16 * 1024
        public var writeBufferHigh = 64 * 1024
        public init() {}
    }

    /// `events`: the board's location service — every output event as a Lodestar JSON line, sent to each client
    /// from its connection on (CoreLocation's CLLocationManager is its client; docs/api.md).
    public enum Kind: Sendable { case gpsd, nmea, events }

    /// What the server speaks, for messages.
    public var serviceName: String {
        switch kind {
        case .gpsd: "the gpsd protocol"
        case .nmea: "NMEA"
        case .events: "the location service"
        }
    }

    let hub: Hub
    private let group: MultiThreadedEventLoopGroup
    private let channels: [any Channel]
    /// Where the server listens (ports resolved: `:0` becomes the bound port).
    public let endpoints: [ServerEndpoint]
    public let kind: Kind

    /// Binds every endpoint; throws `ServerError` (address in use, permission …) before accepting anyone.
    public init(kind: Kind, endpoints: [ServerEndpoint], device: String, settings: Settings = Settings()) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let hub = Hub(loop: loop, flavor: kind == .gpsd ? .gpsd : kind == .nmea ? .nmea : .events, device: device,
                      maximumQueued: settings.maximumQueuedPerClient)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.writeBufferWaterMark,
                                value: .init(low: settings.writeBufferLow, high: settings.writeBufferHigh))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(hub.makeClient())
                }
            }
        var channels: [any Channel] = []
        var bound: [ServerEndpoint] = []
        let service = kind == .gpsd ? "the gpsd protocol" : kind == .nmea ? "NMEA" : "the location service"
        for e in endpoints {
            do {
                let channel: any Channel
                switch e {
                case .tcp(let host, let port):
                    channel = try bootstrap.bind(host: host, port: port).wait()
                    bound.append(.tcp(host: host, port: channel.localAddress?.port ?? port))
                case .unix(let path):
                    channel = try bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).wait()
                    if kind == .events { Self.restrictToGroup(path) }
                    bound.append(e)
                case .systemd:
                    // Socket activation: the gpsd server takes the sockets named "gpsd" (or unnamed), the NMEA
                    // server those named "nmea" (FileDescriptorName= in systemd/lodestar.socket).
                    let names: [String] = kind == .gpsd ? ["gpsd", "unknown"] : kind == .nmea ? ["nmea"] : ["service"]
                    let fds = SystemdSockets.listening(named: Set(names))
                    guard !fds.isEmpty else {
                        throw ServerError.bindFailed(e, reason: "systemd passed no listening socket named '\(names[0])' "
                                                     + "(LISTEN_FDS/LISTEN_FDNAMES): start the service through lodestar.socket")
                    }
                    for fd in fds {
                        let c = try bootstrap.withBoundSocket(fd).wait()
                        channels.append(c)
                        bound.append(Self.endpoint(of: c))
                    }
                    continue
                }
                channels.append(channel)
            } catch {
                for c in channels { try? c.close().wait() }
                try? group.syncShutdownGracefully()
                if let error = error as? ServerError { throw error }
                if let io = error as? IOError, io.errnoCode == EADDRINUSE { throw ServerError.addressInUse(e, service: service) }
                if let io = error as? IOError { throw ServerError.bindFailed(e, reason: String(cString: strerror(io.errnoCode))) }
                throw ServerError.bindFailed(e, reason: "\(error)")
            }
        }
        self.kind = kind
        self.hub = hub
        self.group = group
        self.channels = channels
        self.endpoints = bound
    }

    /// The service socket is the authorization (as locationd's is on Apple platforms): read and write for its owner
    /// and the `lodestar` group only (mode 0660, group `lodestar` when that group exists), so a process whose user
    /// is not in the group cannot connect and its CLLocationManager reports `.denied`.
    static func restrictToGroup(_ path: String) {
        _ = chmod(path, 0o660)
        if let g = getgrnam("lodestar") { _ = chown(path, uid_t.max, g.pointee.gr_gid) }
    }

    /// What an inherited socket is bound to (for messages and tests).
    static func endpoint(of channel: any Channel) -> ServerEndpoint {
        if let a = channel.localAddress {
            // An inherited Unix socket stays systemd's: never unlinked at shutdown.
            if a.pathname != nil { return .systemd }
            if let ip = a.ipAddress, let port = a.port { return .tcp(host: ip, port: port) }
        }
        return .systemd
    }

    /// Hands one encoded event to every watching client (returns at once).
    public func publish(_ b: Broadcast) {
        let hub = self.hub
        hub.loop.execute { hub.broadcast(b) }
    }

    /// The receiver identified itself (or its protocol was recognised): `DEVICE` names its driver and subtype.
    public func identify(_ identity: ReceiverIdentity) {
        let hub = self.hub
        hub.loop.execute { hub.identify(identity) }
    }

    /// Blocks until `count` clients watch (gpsd: `?WATCH` enabled; NMEA: connected), or `stop` is requested.
    public func waitForWatchers(_ count: Int, shouldStop: () -> Bool = { false }) {
        guard count > 0 else { return }
        let hub = self.hub
        while !shouldStop() {
            if ((try? hub.loop.submit { hub.watchingCount }.wait()) ?? 0) >= count { return }
            usleep(5_000)
        }
    }

    /// Blocks while some client has more than `threshold` events queued, at most `timeoutSeconds` (an unpaced replay
    /// keeps pace with its clients this way; a client that stops reading holds it up by at most the timeout).
    public func waitUntilQueuesBelow(_ threshold: Int, timeoutSeconds: Double) {
        let hub = self.hub
        guard hub.connectedCount.load(ordering: .relaxed) > 0 else { return }
        let deadline = clinux_monotonic_ns() + Int64(timeoutSeconds * 1e9)
        while clinux_monotonic_ns() < deadline {
            let worst = (try? hub.loop.submit { hub.largestQueue }.wait()) ?? 0
            if worst <= threshold { return }
            usleep(2_000)
        }
    }

    /// Statistics, read on the event loop.
    public struct Statistics: Sendable {
        public var clients: Int
        public var connections: Int
        public var dropped: Int
        /// Drops per client (peer address), clients that left included.
        public var dropsByClient: [(peer: String, dropped: Int)]
    }

    private let final = Mutex<Statistics?>(nil)

    /// Current statistics (after `shutdown`, those at shutdown).
    public var statistics: Statistics {
        if let s = final.withLock({ $0 }) { return s }
        let hub = self.hub
        return (try? hub.loop.submit {
            Statistics(clients: hub.clientCount, connections: hub.connections, dropped: hub.totalDropped,
                       dropsByClient: hub.departedDrops)
        }.wait()) ?? Statistics(clients: 0, connections: 0, dropped: 0, dropsByClient: [])
    }

    /// Waits (at most `timeoutSeconds`) for every client's queue to drain, then closes all connections and the
    /// listening sockets.
    public func shutdown(drainSeconds: Double = 2) {
        let hub = self.hub
        _ = try? hub.loop.flatSubmit { hub.flushed(timeoutNanos: Int64(drainSeconds * 1e9)) }.wait()
        _ = try? hub.loop.submit { hub.closeAll() }.wait()
        let s = statistics
        final.withLock { $0 = s }
        for c in channels { try? c.close().wait() }
        for e in endpoints { if case .unix(let path) = e { unlink(path) } }
        try? group.syncShutdownGracefully()
    }
}
