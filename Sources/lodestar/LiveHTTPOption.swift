import CLinux
import LivePage
#if canImport(Glibc)
import Glibc
#endif

/// `--http [ADDR:]PORT`: the live page (docs/maps.md). The adapter from the pipeline's output events is the hub,
/// installed as the pipeline's observer where the command builds its sinks.
enum LiveHTTP {
    /// Parses `PORT`, `ADDR:PORT` or `[IPv6]:PORT`; the address defaults to 127.0.0.1.
    static func parse(_ text: String) -> (host: String, port: Int)? {
        var host = "127.0.0.1", portText = Substring(text)
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = Int(portText), (0...65535).contains(port) else { return nil }
        return (host, port)
    }

    /// The running server of this process (one per command).
    nonisolated(unsafe) static var current: LiveServer?

    /// Starts the server (exit 73 with one line when it cannot listen) and returns the hub: the output-event
    /// consumer that feeds the page.
    static func start(_ spec: String?) throws -> LiveHub? {
        guard let spec, let (host, port) = parse(spec) else { return nil }
        let hub = LiveHub()
        do {
            let server = try LiveServer.start(hub: hub, host: host, port: port)
            let shown = host.contains(":") ? "[\(host)]" : host
            printError("lodestar: live page at http://\(shown):\(server.port)/")
            current = server
            return hub
        } catch {
            throw CommandFailure("--http \(spec): \(error.description)", code: Exit.cannotCreate)
        }
    }

    /// After a replay: keep serving the page until SIGINT/SIGTERM.
    static func lingerUntilStopped(quiet: Bool) {
        guard let server = current else { return }
        if !quiet { printError("lodestar: replay finished; the live page stays at port \(server.port) until interrupted") }
        while clinux_stop_requested() == 0 { _ = clinux_sleep_ns(50_000_000) }
        stop()
    }

    static func stop() {
        current?.stop()
        current = nil
    }
}
