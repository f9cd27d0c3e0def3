#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import HummingbirdWebSocket
import Logging
import Synchronization

/// The live page's HTTP server (Hummingbird): `GET /` the page, `GET /state.json` counters and the snapshot,
/// `/ws` a WebSocket that pushes the hub's messages. Read-only: no route changes anything; what a client sends on
/// the WebSocket is read and ignored.
public final class LiveServer: Sendable {
    public let host: String
    public let port: Int
    private let task: Task<Void, any Error>
    private let hub: LiveHub

    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts serving on `host:port` (port 0: any free port) and returns once it is listening.
    public static func start(hub: LiveHub, host: String, port: Int) throws(StartError) -> LiveServer {
        let bound = Mutex<(port: Int?, done: Bool)>((nil, false))
        let router = Router()
        router.get("/") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: LivePageHTML.page)))
        }
        router.get("/state.json") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: hub.stateJSON())))
        }
        let ws = Router(context: BasicWebSocketRequestContext.self)
        ws.ws("/ws") { _, _ in .upgrade() } onUpgrade: { inbound, outbound, _ in
            let (id, stream) = hub.subscribe()
            defer { hub.unsubscribe(id) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                // Read-only: drain what the client sends; its close ends the connection.
                group.addTask { for try await _ in inbound {} }
                group.addTask { for await line in stream { try await outbound.write(.text(line)) } }
                _ = try await group.next()
                group.cancelAll()
            }
        }
        let quiet = Logger(label: "lodestar.live", factory: { _ in SwiftLogNoOpLogHandler() })
        let app = Application(router: router, server: .http1WebSocketUpgrade(webSocketRouter: ws),
                              configuration: .init(address: .hostname(host, port: port), serverName: "lodestar"),
                              onServerRunning: { channel in
                                  bound.withLock { $0 = (channel.localAddress?.port, true) }
                              },
                              logger: quiet)
        let task = Task.detached {
            defer { bound.withLock { $0.done = true } }
            // No signal handling here: the CLI owns SIGINT/SIGTERM.
            try await app.runService(gracefulShutdownSignals: [])
        }
        // Wait (≤ 10 s) until the server listens or failed to bind.
        for _ in 0..<1000 {
            let (p, done) = bound.withLock { ($0.port, $0.done) }
            if let p { return LiveServer(host: host, port: p, task: task, hub: hub) }
            if done { break }
            usleep(10_000)
        }
        task.cancel()
        throw StartError(description: "cannot listen on \(host):\(port) (address in use or not available)")
    }

    private init(host: String, port: Int, task: Task<Void, any Error>, hub: LiveHub) {
        self.host = host; self.port = port; self.task = task; self.hub = hub
    }

    public func stop() {
        hub.finishAll()
        task.cancel()
    }
}
