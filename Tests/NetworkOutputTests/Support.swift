import CLinux
import Foundation
import TestSupport

/// Real programs used by these tests; each test is disabled with a visible reason when its program is missing
/// (`make test` installs them: gpsd gpsd-clients python3-gps chrony tmux socat).
enum Tools {
    static func find(_ name: String) -> String? {
        ["/usr/bin", "/usr/sbin", "/bin", "/sbin", "/usr/local/bin"].map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
    static let gpspipe = find("gpspipe")
    static let cgps = find("cgps")
    static let tmux = find("tmux")
    static let gpsd = find("gpsd")
    static let chronyd = find("chronyd")
    static let chronyc = find("chronyc")
    /// Debian's python3 (python3-gps lives in its dist-packages, not in a pyenv interpreter).
    static let python = FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/gps/__init__.py")
        ? find("python3") : nil
}

/// Waits until a `gpspipe -w` writing to `path` has its watch in place (gpsd, or Lodestar's server, answered the
/// `?WATCH` with a WATCH object), so data sent from now on reaches it. A fixed sleep lost the first cycles under load.
@discardableResult
func waitForWatch(_ path: String, timeout: Double = 15) -> Bool {
    let end = Date().addingTimeInterval(timeout)
    while Date() < end {
        if let text = try? String(contentsOfFile: path, encoding: .utf8), text.contains("\"class\":\"WATCH\"") { return true }
        usleep(20_000)
    }
    return false
}

/// A program run to completion (or killed after `timeout`), its stdout and stderr collected.
func runTool(_ path: String, _ args: [String], timeout: Double, in dir: TemporaryDirectory) throws -> (status: Int32?, out: String, err: String) {
    let tag = UUID().uuidString.prefix(8)
    let out = dir.path("out-\(tag)"), err = dir.path("err-\(tag)")
    let p = try SpawnedProcess(path, args, stdoutPath: out, stderrPath: err)
    let status = p.wait(timeout: timeout)
    if status == nil { p.stop() }
    return (status, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "", (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
}

/// `lodestar ARGS` in the background, stopped by PID at the end of the test.
final class LodestarProcess {
    let process: SpawnedProcess
    let stdoutPath: String, stderrPath: String
    init(_ args: [String], in dir: TemporaryDirectory) throws {
        let tag = UUID().uuidString.prefix(8)
        stdoutPath = dir.path("lodestar-\(tag).out")
        stderrPath = dir.path("lodestar-\(tag).err")
        process = try SpawnedProcess(Lodestar.binary, args, stdoutPath: stdoutPath, stderrPath: stderrPath)
    }
    /// Waits until 127.0.0.1:port accepts connections (the server is up) or the process exits.
    func waitForPort(_ port: Int, timeout: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if GPSDProcess.accepts(port: port) { return true }
            if process.wait(timeout: 0.02) != nil { return false }
        }
        return false
    }
    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
    func wait(timeout: Double) -> Int32? { process.wait(timeout: timeout) }
    deinit { process.stop() }
}

/// Lines of JSON objects as dictionaries (invalid lines skipped).
func jsonObjects(_ text: String) -> [[String: Any]] {
    // "\r\n" is one Character in Swift: split on any newline.
    text.split(whereSeparator: \.isNewline).compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
}

let simulatedDrive = SharedData.packageRoot.appendingPathComponent("captures/simulated-drive.lcap").path
