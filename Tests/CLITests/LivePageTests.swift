import Foundation
import Testing
import TestSupport

/// The live page (`replay --http`) in real headless Chromium: ten tabs at once, then a new connection after they
/// all left, getting the session so far; and one open tab that reconnects by itself when its server goes away and
/// comes back.
@Suite("live page", .serialized, .ownThreads)
struct LivePageTests {
    /// GET over a plain socket (HTTP/1.1, Connection: close): status line and body.
    static func get(_ port: Int, _ path: String) -> (status: String, body: String)? {
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard s >= 0 else { return nil }
        defer { close(s) }
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else { return nil }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard write(s, request, request.count) == request.count else { return nil }
        var data = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(s, &chunk, chunk.count)
            if n <= 0 { break }
            data += chunk[0..<n]
        }
        let text = String(decoding: data, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { return nil }
        return (String(text[..<split.lowerBound].prefix { !$0.isNewline }), String(text[split.upperBound...]))
    }

    static func state(_ port: Int) -> [String: Any]? {
        guard let r = get(port, "/state.json") else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(r.body.utf8))) as? [String: Any]
    }

    @Test(.enabled(if: Chromium.available, Comment(rawValue: Chromium.skipMessage)))
    func tenTabsThenAReconnect() throws {
        let dir = try TemporaryDirectory()
        let port = try GPSDProcess.freePort()
        let server = try SpawnedProcess(Lodestar.binary, ["replay", "--quiet", "--speed", "5", "--http", "127.0.0.1:\(port)",
                                                          SharedData.packageRoot.appendingPathComponent("captures/simulated-drive.lcap").path],
                                        stdoutPath: dir.path("out.jsonl"), stderrPath: dir.path("err.txt"))
        defer { server.stop() }
        var up = false
        for _ in 0..<500 where !up { up = GPSDProcess.accepts(port: port); if !up { usleep(20_000) } }
        #expect(up, "the live page never listened: \((try? String(contentsOfFile: dir.path("err.txt"), encoding: .utf8)) ?? "")")
        guard up else { return }
        let page = Self.get(port, "/")
        #expect(page?.status == "HTTP/1.1 200 OK")
        // Self-contained: no external script, style, image or font.
        for needle in ["src=\"http", "href=\"http", "url(http", "@import"] { #expect(!(page?.body.contains(needle) ?? true)) }
        // Read-only: nothing but GET routes.
        #expect(Self.get(port, "/nothing")?.status.contains("404") == true)

        // Ten tabs at once: ten frames, each a full page with its own WebSocket. The parent page holds its load event
        // for 6 s of real time (a busy loop in its own process), so Chromium keeps all ten open that long.
        let frames = "for (var i = 0; i < 10; i++) { var f = document.createElement('iframe'); f.src = 'http://127.0.0.1:\(port)/';"
            + " f.width = 780; f.height = 580; document.body.appendChild(f); }"
        let tabs = try dir.write("tabs.html", "<!DOCTYPE html><html><body><script>\(frames)</script>"
                                 + "<script>var t = Date.now(); while (Date.now() - t < 6000) {}</script></body></html>")
        _ = try Chromium.screenshot("file://" + tabs, width: 1580, height: 2950)
        let afterTabs = Self.state(port)
        #expect((afterTabs?["maximumClients"] as? Int ?? 0) >= 10, "\(String(describing: afterTabs))")
        #expect((afterTabs?["connectionsServed"] as? Int ?? 0) >= 10)
        // All gone: the server still serves.
        var clients = -1
        for _ in 0..<100 {
            clients = Self.state(port)?["clients"] as? Int ?? -1
            if clients == 0 { break }
            usleep(50_000)
        }
        #expect(clients == 0)

        // A new tab (a reconnect after every client left) gets the session so far, and keeps receiving.
        // Chromium's budget is virtual time: it runs ahead while the page only waits on its WebSocket, so on a loaded
        // machine the first message can arrive after it. Up to three tabs are tried, each a real new connection.
        var dom = "", fixes = 0, tabsTried = 0
        while tabsTried < 3 && fixes == 0 {
            tabsTried += 1
            dom = try Chromium.dumpDOM("http://127.0.0.1:\(port)/", virtualTimeBudgetMilliseconds: 3000)
            fixes = dom.components(separatedBy: "data-fixes=\"").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) } ?? 0
        }
        #expect(dom.contains("data-connection=\"live\""), "the page did not connect")
        #expect(fixes >= 1, "no fixes in \(tabsTried) tabs")
        #expect(dom.contains("<polyline id=\"track\"") && !dom.contains("id=\"track\" fill=\"none\" stroke=\"#1a73e8\" stroke-width=\"3\" stroke-linejoin=\"round\" points=\"\""))
        let position = dom.components(separatedBy: "id=\"position\">").dropFirst().first?.prefix { $0 != "<" } ?? ""
        #expect(position.contains("37.3"), "position shown: \(position)")
        let state = Self.state(port)
        #expect((state?["trackPoints"] as? Int ?? 0) > 10)
        // Drawn where the page's projection puts the position: the blue dot at the map's centre (page offset 10 px).
        let shot = try Chromium.screenshot("http://127.0.0.1:\(port)/", width: 1200, height: 800, virtualTimeBudgetMilliseconds: 3000)
        func isBlue(_ p: (r: Int, g: Int, b: Int)) -> Bool { p.b > 200 && p.r < 60 && p.g > 90 && p.g < 140 }
        #expect(shot.count(x0: 384, y0: 284, x1: 397, y1: 297, where: isBlue) > 40, "no position dot at the map's centre")
        #expect(server.wait(timeout: 0) == nil, "the server died")
    }

    /// One tab stays open while its server is stopped and a new one starts on the same port: the page's own
    /// WebSocket reconnects (with backoff) to the new server, without a reload, and keeps receiving.
    @Test(.enabled(if: Chromium.available, Comment(rawValue: Chromium.skipMessage)))
    func anOpenTabReconnectsToARestartedServer() throws {
        let dir = try TemporaryDirectory()
        let port = try GPSDProcess.freePort()
        let capture = SharedData.packageRoot.appendingPathComponent("captures/simulated-drive.lcap").path
        func start(_ name: String) throws -> SpawnedProcess {
            try SpawnedProcess(Lodestar.binary, ["replay", "--quiet", "--speed", "1", "--http", "127.0.0.1:\(port)", capture],
                               stdoutPath: dir.path("\(name).jsonl"), stderrPath: dir.path("\(name).err"))
        }
        func waitFor(_ seconds: Double, _ condition: () -> Bool) -> Bool {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end { if condition() { return true }; usleep(50_000) }
            return condition()
        }
        let first = try start("first")
        defer { first.stop() }
        #expect(waitFor(10) { GPSDProcess.accepts(port: port) }, "the first server never listened")

        // One tab (an iframe in a page whose own load is held for 14 s of real time, so Chromium keeps it open).
        let holder = try dir.write("tab.html", "<!DOCTYPE html><html><body><iframe src=\"http://127.0.0.1:\(port)/\" width=780 height=580>"
                                   + "</iframe><script>var t = Date.now(); while (Date.now() - t < 14000) {}</script></body></html>")
        let browser = try SpawnedProcess("/usr/bin/timeout", ["-s", "KILL", "60"]
                                            + Chromium.browserArguments(dir.path("profile"), width: 800, height: 600)
                                            + ["--screenshot=\(dir.path("tab.png"))", "file://" + holder],
                                         stdoutPath: dir.path("chromium.out"), stderrPath: dir.path("chromium.err"))
        defer { browser.stop() }
        #expect(waitFor(20) { (Self.state(port)?["clients"] as? Int ?? 0) == 1 }, "the tab never connected to the first server")
        let firstMessages = Self.state(port)?["messages"] as? Int ?? 0

        // The server goes away; a new one takes the port.
        first.signal(SIGKILL)
        #expect(first.wait(timeout: 10) != nil)
        let second = try start("second")
        defer { second.stop() }
        #expect(waitFor(10) { GPSDProcess.accepts(port: port) }, "the second server never listened")
        // The same tab reconnects: the second server has a WebSocket client but never served the page.
        #expect(waitFor(9) { (Self.state(port)?["clients"] as? Int ?? 0) == 1 },
                "the open tab did not reconnect: \(String(describing: Self.state(port)))")
        let state = Self.state(port)
        #expect(state?["connectionsServed"] as? Int == 1)
        #expect(firstMessages > 0)
        #expect(browser.wait(timeout: 40) != nil, "chromium did not finish")
        #expect(second.wait(timeout: 0) == nil, "the second server died")
    }
}
