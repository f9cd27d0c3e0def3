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

    /// `lodestar run` reading the pseudo-terminal and serving the location service on `socket`, once both are open.
    static func startService(_ pty: PseudoTerminal, _ socket: String, _ dir: TemporaryDirectory) throws -> SpawnedProcess {
        let lodestar = try SpawnedProcess(Lodestar.binary, ["run", "--gps", "\(pty.slavePath)@9600", "--no-sky", "--service", socket],
                                          stdoutPath: dir.path("out"), stderrPath: dir.path("err"))
        #expect(waitFor({ FileManager.default.fileExists(atPath: socket) }, timeout: 10), "no service socket")
        lodestar.waitUntilOpen(pty.slavePath)
        return lodestar
    }

    @Test func twoClientsShareOneReceiverAndSeeTheSameEvents() throws {
        let pty = try PseudoTerminal()
        let dir = try TemporaryDirectory()
        let socket = dir.path("service.sock")
        let lodestar = try Self.startService(pty, socket, dir)
        defer { lodestar.stop() }
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
        // Both clients connected: the kernel lists the listening socket and each accepted connection under the
        // socket's path in /proc/net/unix (a fixed wait lost the first fixes on a loaded machine).
        func endpoints() -> Int {
            ((try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8)) ?? "").split(separator: "\n")
                .filter { $0.hasSuffix(" " + socket) }.count
        }
        #expect(Self.waitFor({ endpoints() >= 3 }, timeout: 10), "\(endpoints()) endpoints on the socket")

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

/// Programs written for Apple's Core Location, sharing the board's receiver through the service: two processes of
/// the CoreLocationExample program (`import CoreLocation`, a CLLocationManager delegate) connect to `lodestar run
/// --service` reading one pseudo-terminal receiver, and print the same locations; a user outside the socket's group
/// is told location services are unavailable (authorization `.denied`).
@Suite("Core Location programs through the service", .serialized, .ownThreads)
struct CoreLocationServiceTests {
    static var example: String { (Lodestar.binary as NSString).deletingLastPathComponent + "/CoreLocationExample" }

    static func client(_ socket: String, _ out: String, _ err: String, asNobody: Bool = false) throws -> SpawnedProcess {
        // The test process may carry LODESTAR_REPLAY from other suites: the clients must use the service.
        // stdbuf: the program's stdout is a file here, line-buffered so each location is there as it is printed.
        var args = ["-u", "LODESTAR_REPLAY", "-u", "LODESTAR_REPLAY_SPEED", "LODESTAR_SERVICE=\(socket)", "/usr/bin/stdbuf", "-oL", example]
        var tool = "/usr/bin/env"
        if asNobody {
            args = ["--reuid=65534", "--regid=65534", "--clear-groups", tool] + args
            tool = "/usr/bin/setpriv"
        }
        return try SpawnedProcess(tool, args, stdoutPath: out, stderrPath: err)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: example), "CoreLocationExample is not built"))
    func twoProcessesShareOneReceiverThroughTheService() throws {
        let pty = try PseudoTerminal()
        let dir = try TemporaryDirectory()
        let socket = dir.path("service.sock")
        let lodestar = try ServiceSocketTests.startService(pty, socket, dir)
        defer { lodestar.stop() }
        // The directory must be reachable for the unprivileged client's own check to be about the socket.
        _ = chmod(dir.path(""), 0o755)
        let a = try Self.client(socket, dir.path("a"), dir.path("a.err"))
        let b = try Self.client(socket, dir.path("b"), dir.path("b.err"))
        defer { a.stop(); b.stop() }
        let denied = try Self.client(socket, dir.path("n"), dir.path("n.err"), asNobody: true)
        #expect(denied.wait(timeout: 20) == 1, "an unauthorized program exits: \(String(describing: try? String(contentsOfFile: dir.path("n.err"), encoding: .utf8)))")
        let deniedOut = (try? String(contentsOfFile: dir.path("n"), encoding: .utf8)) ?? ""
        #expect(deniedOut.contains("location services unavailable"), "\(deniedOut)")
        let deniedErr = (try? String(contentsOfFile: dir.path("n.err"), encoding: .utf8)) ?? ""
        #expect(deniedErr.contains("permission denied"), "the reason is logged: \(deniedErr)")

        // Both programs receiving: cycles are written until each has printed a location (on a loaded machine the
        // programs start seconds late, and a fixed start once left them one location in common).
        var second = 0
        let printing = ServiceSocketTests.waitFor({
            _ = pty.write(LiveCLITests.cycle(second)); second += 1; usleep(60_000)
            return ServiceSocketTests.lines(dir.path("a")).contains { $0.hasPrefix("<") }
                && ServiceSocketTests.lines(dir.path("b")).contains { $0.hasPrefix("<") }
        }, timeout: 30)
        #expect(printing, "both programs print locations")
        // Then the receiver: 40 cycles, 1 s apart in its own time, 60 ms apart in ours.
        for s in second..<(second + 40) { _ = pty.write(LiveCLITests.cycle(s)); usleep(60_000) }
        #expect(ServiceSocketTests.waitFor({ ServiceSocketTests.lines(dir.path("a")).count >= 10 && ServiceSocketTests.lines(dir.path("b")).count >= 10 },
                                           timeout: 20), "clients printed: \(ServiceSocketTests.lines(dir.path("a")).count), \(ServiceSocketTests.lines(dir.path("b")).count)")
        lodestar.signal(SIGTERM)
        #expect(lodestar.wait(timeout: 5) == 143)
        // Locations only (the service's end is then reported as an error).
        let la = ServiceSocketTests.lines(dir.path("a")).filter { $0.hasPrefix("<") }
        let lb = ServiceSocketTests.lines(dir.path("b")).filter { $0.hasPrefix("<") }
        // Both connected before most of the receiver's output: the last 8 locations each printed are the same, and
        // they are the receiver's position.
        #expect(la.count >= 10 && lb.count >= 10, "\(la.count), \(lb.count)")
        // (A client may not have printed its last line yet when the files are read, so compare what both printed.)
        let common = Set(la).intersection(lb)
        #expect(common.count >= 8, "\(common.count) locations in common")
        #expect(la.filter(common.contains) == lb.filter(common.contains), "same locations, same order")
        #expect(la.firstIndex { common.contains($0) }.map { la[$0...].prefix(common.count).allSatisfy(common.contains) } == true,
                "no location of one client is missing in the other's run between the first and last common one")
        #expect(la.allSatisfy { $0.hasPrefix("<+48.11730000,+11.51666667>") }, "\(la)")
    }
}
