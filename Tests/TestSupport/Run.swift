import Foundation

/// Runs the built `lodestar` binary (next to the test bundle) and collects its output.
public struct RunResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
    public init(status: Int32, stdout: String, stderr: String) { self.status = status; self.stdout = stdout; self.stderr = stderr }
}

public enum Lodestar {
    /// The debug binary SwiftPM built beside the test bundle.
    public static var binary: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        if dir.lastPathComponent == "MacOS" || dir.pathExtension == "xctest" { dir = dir.deletingLastPathComponent() }
        return dir.appendingPathComponent("lodestar").path
    }

    public static func run(_ arguments: [String], stdin: Data? = nil, currentDirectory: String? = nil) throws -> RunResult {
        try Tool.output(binary, arguments, stdin: stdin, currentDirectory: currentDirectory)
    }
}

extension Tool {
    /// Runs a program to completion under the watchdog (Foundation's Process) and collects its standard output and
    /// error apart: the one runner for the `lodestar` binary and the tools tests read its output back with (xmllint,
    /// gpsbabel, systemd-analyze, gpsdecode …). The working directory is the package root unless `currentDirectory`
    /// says otherwise; stdin is empty unless given. (`Tool.run` is for commands that leave daemons behind.)
    public static func output(_ path: String, _ arguments: [String], stdin: Data? = nil, currentDirectory: String? = nil,
                           seconds: Int = Watchdog.defaultSeconds) throws -> RunResult {
        let process = Process()
        (process.executableURL, process.arguments) = Watchdog.command(path, arguments, seconds: seconds)
        process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory ?? SharedData.packageRoot.path)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            input.fileHandleForWriting.write(stdin)
            try? input.fileHandleForWriting.close()
        }
        // Read both pipes concurrently so a large output cannot fill one pipe and stall the child.
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return RunResult(status: process.terminationStatus,
                         stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// Every program a test runs to completion runs under coreutils' `timeout -s KILL`: a hung child (a FIFO opened
/// twice, a server that never answers) fails its test after `seconds` instead of stalling the whole run, and the
/// KILL reaches the child's whole process group (a `bash -c` pipeline included). SIGKILL because the test threads
/// block SIGTERM and children inherit the mask.
public enum Watchdog {
    public static let defaultSeconds = 300
    public static func command(_ path: String, _ arguments: [String], seconds: Int = defaultSeconds) -> (URL, [String]) {
        (URL(fileURLWithPath: "/usr/bin/timeout"), ["-s", "KILL", String(seconds), path] + arguments)
    }
}
