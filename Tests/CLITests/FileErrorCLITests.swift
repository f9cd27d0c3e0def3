import Foundation
import Testing
import TestSupport

/// One behaviour for a file the CLI cannot create or read (issue 27): every file goes through Syscall, whose
/// `SystemError` names the path, and the CLI turns it into one `lodestar:` line and the exit code of
/// `Exit.code(for:)` — 77 not allowed, 73 cannot create, 66 missing input. EACCES comes from the fault injector
/// (`LODESTAR_FAULTS`), so the checks run as root too, where permission bits stop nothing.
@Suite("file errors: one line, one exit code per cause", .ownThreads)
struct FileErrorCLITests {
    static let capture = "captures/simulated-drive.lcap"
    static let regions = "captures/simulated-drive-regions.json"

    static func oneLine(_ stderr: String, naming path: String, _ reason: String) -> Bool {
        let lines = stderr.split(separator: "\n")
        return lines.count == 1 && lines[0].hasPrefix("lodestar: ") && lines[0].contains(path) && lines[0].contains(reason)
    }

    static func denied(_ suffix: String) -> [String: String] { ["LODESTAR_FAULTS": "open:path=\(suffix):errno=EACCES"] }

    @Test func aFileThatCannotBeCreated() throws {
        let dir = try TemporaryDirectory()
        let html = dir.path("x.html")
        let denied = try Lodestar.run(["map", Self.capture, "-o", html], stdoutPath: "/dev/null", environment: Self.denied("x.html"))
        #expect(denied.status == 77)
        #expect(Self.oneLine(denied.stderr, naming: html, "Permission denied (EACCES)"), "\(denied.stderr)")
        #expect(!FileManager.default.fileExists(atPath: html))

        let missing = try Lodestar.run(["map", Self.capture, "-o", "/nonexistent-dir/x.html"])
        #expect(missing.status == 73)
        #expect(Self.oneLine(missing.stderr, naming: "/nonexistent-dir/x.html", "No such file or directory (ENOENT)"), "\(missing.stderr)")
    }

    @Test func aFileReplacedAtomically() throws {
        let dir = try TemporaryDirectory()
        let state = dir.path("state.json")
        let denied = try Lodestar.run(["replay", "--quiet", "--no-sky", "--no-heading", "--regions", Self.regions, "--region-state", state,
                                       Self.capture], stdoutPath: "/dev/null", environment: Self.denied("state.json.tmp"))
        #expect(denied.status == 77)
        #expect(denied.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("lodestar: --region-state \(state): ") }, "\(denied.stderr)")
        #expect(denied.stderr.contains("Permission denied (EACCES)"))
        #expect(!FileManager.default.fileExists(atPath: state) && !FileManager.default.fileExists(atPath: state + ".tmp"))

        // calibrate reports its progress on stderr first; the failure is the last line.
        let calibration = "/nonexistent-dir/m.cal"
        let missing = try Lodestar.run(["calibrate", "--from", Self.capture, "--output", calibration])
        #expect(missing.status == 73)
        let last = missing.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(Self.oneLine(last, naming: calibration, "No such file or directory (ENOENT)"), "\(missing.stderr)")
    }

    @Test func aFileThatCannotBeRead() throws {
        let dir = try TemporaryDirectory()
        let password = try dir.write("password", "secret\n")
        let base = ["replay", "--quiet", "--mqtt", "mqtt://board@127.0.0.1:1/fleet", "--mqtt-password-file"]
        let denied = try Lodestar.run(base + [password, Self.capture], stdoutPath: "/dev/null", environment: Self.denied("password"))
        #expect(denied.status == 77)
        #expect(Self.oneLine(denied.stderr, naming: "--mqtt-password-file \(password)", "Permission denied (EACCES)"), "\(denied.stderr)")

        let missing = try Lodestar.run(base + [dir.path("none"), Self.capture])
        #expect(missing.status == 66)
        #expect(Self.oneLine(missing.stderr, naming: dir.path("none"), "No such file or directory (ENOENT)"), "\(missing.stderr)")
    }
}
