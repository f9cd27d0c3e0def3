import CLinux
import Foundation

/// A child process started with posix_spawn and a clean signal mask (Swift Testing's threads block SIGTERM,
/// and children started otherwise inherit that), stopped by PID.
public final class SpawnedProcess: @unchecked Sendable {
    public let pid: pid_t
    private var reaped = false
    private var status: Int32 = 0

    /// Starts `path` with `arguments`; stdout and stderr go to the given files (created/truncated).
    public init(_ path: String, _ arguments: [String], stdoutPath: String, stderrPath: String) throws {
        let out = open(stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let err = open(stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(out); close(err) }
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) }
        argv.append(nil)
        defer { for p in argv { free(p) } }
        var child: pid_t = 0
        let r = argv.withUnsafeMutableBufferPointer { clinux_spawn(path, $0.baseAddress, out, err, &child) }
        guard r == 0 else { throw NSError(domain: "spawn", code: Int(-r)) }
        pid = child
    }

    public func signal(_ sig: Int32) { kill(pid, sig) }

    /// Waits until the process holds `path` open (read from /proc/PID/fd), then `settle` seconds more. Lodestar
    /// discards a serial port's queued input right after opening it (TCFLSH, as gpsd does), so a test that writes
    /// to a pseudo-terminal before the open loses those bytes by design; a fixed sleep was too short on a loaded
    /// machine. Returns false if the process did not open it within `timeout` seconds.
    @discardableResult
    public func waitUntilOpen(_ path: String, timeout: Double = 20, settle: Double = 0.1) -> Bool {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let dir = "/proc/\(pid)/fd"
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
            if fds.contains(where: { (try? FileManager.default.destinationOfSymbolicLink(atPath: dir + "/" + $0)) == target }) {
                usleep(UInt32(settle * 1e6))
                return true
            }
            var st: Int32 = 0
            if !reaped, waitpid(pid, &st, WNOHANG) == pid {
                reaped = true
                status = (st & 0x7F) == 0 ? (st >> 8) & 0xFF : 128 + (st & 0x7F)
                return false
            }
            usleep(10_000)
        }
        return false
    }

    /// Waits up to `timeout` seconds for exit; returns the exit code (128 + signal if killed), or nil on timeout.
    public func wait(timeout: Double) -> Int32? {
        if reaped { return status }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var st: Int32 = 0
            if waitpid(pid, &st, WNOHANG) == pid {
                reaped = true
                status = (st & 0x7F) == 0 ? (st >> 8) & 0xFF : 128 + (st & 0x7F)
                return status
            }
            usleep(10_000)
        }
        return nil
    }

    /// Stops the process (SIGTERM, then SIGKILL) and reaps it.
    public func stop() {
        guard !reaped else { return }
        _ = clinux_kill_and_reap(pid, SIGTERM, 2000)
        reaped = true
    }

    deinit { stop() }
}
