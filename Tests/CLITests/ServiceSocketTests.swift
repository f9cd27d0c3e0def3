import Foundation
import LocationCore
import NMEA
import Testing
import TestSupport

/// `lodestar run --service PATH`: the board's location service, as locationd is on Apple platforms. Every client
/// gets the whole event stream as Lodestar JSON lines, so several programs share one receiver; the socket's mode and
/// group are the authorization. The clients here are socat (a real program a user would connect), one of them run as
/// an unprivileged user.
@Suite("The location service socket", .serialized, .ownThreads)
struct ServiceSocketTests {
    static func lines(_ path: String) -> [Substring] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n")
    }

    static func waitFor(_ condition: () -> Bool, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    @Test func twoClientsShareOneReceiverAndSeeTheSameEvents() throws {
        let pty = try PseudoTerminal()
        let dir = try TemporaryDirectory()
        let socket = dir.path("service.sock")
        let lodestar = try SpawnedProcess(Lodestar.binary, ["run", "--gps", "\(pty.slavePath)@9600", "--no-sky", "--service", socket],
                                          stdoutPath: dir.path("out"), stderrPath: dir.path("err"))
        defer { lodestar.stop() }
        #expect(Self.waitFor({ FileManager.default.fileExists(atPath: socket) }, timeout: 10), "no service socket")
        lodestar.waitUntilOpen(pty.slavePath)
        // Only its owner and group may connect.
        let mode = (try FileManager.default.attributesOfItem(atPath: socket)[.posixPermissions] as? Int) ?? 0
        #expect(mode == 0o660, "socket mode \(String(mode, radix: 8))")

        let a = try SpawnedProcess("/usr/bin/socat", ["-u", "UNIX-CONNECT:\(socket)", "STDOUT"],
                                   stdoutPath: dir.path("a"), stderrPath: dir.path("a.err"))
        let b = try SpawnedProcess("/usr/bin/socat", ["-u", "UNIX-CONNECT:\(socket)", "STDOUT"],
                                   stdoutPath: dir.path("b"), stderrPath: dir.path("b.err"))
        defer { a.stop(); b.stop() }
        // A user who is neither the owner nor in the socket's group is refused.
        let denied = try SpawnedProcess("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups",
                                                            "/usr/bin/socat", "-u", "UNIX-CONNECT:\(socket)", "STDOUT"],
                                        stdoutPath: dir.path("n"), stderrPath: dir.path("n.err"))
        #expect(denied.wait(timeout: 10).map { $0 != 0 } == true)
        let deniedErr = (try? String(contentsOfFile: dir.path("n.err"), encoding: .utf8)) ?? ""
        #expect(deniedErr.contains("Permission denied"), "\(deniedErr)")
        usleep(300_000)  // both clients connected (socat connects at once; no way to await it from here)

        for s in 0..<6 { _ = pty.write(LiveCLITests.cycle(s)); usleep(30_000) }
        #expect(Self.waitFor({ Self.lines(dir.path("a")).filter { $0.contains("\"class\":\"fix\"") }.count >= 5
                                && Self.lines(dir.path("b")).filter { $0.contains("\"class\":\"fix\"") }.count >= 5 },
                             timeout: 10))
        lodestar.signal(SIGTERM)
        #expect(lodestar.wait(timeout: 5) == 143)
        _ = a.wait(timeout: 5); _ = b.wait(timeout: 5)
        let fixesA = Self.lines(dir.path("a")).filter { $0.hasPrefix("{\"class\":\"fix\"") }
        let fixesB = Self.lines(dir.path("b")).filter { $0.hasPrefix("{\"class\":\"fix\"") }
        let fixesOut = Self.lines(dir.path("out")).filter { $0.hasPrefix("{\"class\":\"fix\"") }
        #expect(fixesA.count == 6, "\(fixesA)")
        #expect(fixesA == fixesB, "both clients see the same fixes")
        #expect(fixesA == fixesOut, "the service carries the same fixes as the main output")
        let err = try String(contentsOfFile: dir.path("err"), encoding: .utf8)
        #expect(err.contains("serving the location service on unix:\(socket)") || err.contains("serving the location service on"), "\(err)")
    }
}
