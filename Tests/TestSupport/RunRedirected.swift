import Foundation

extension Lodestar {
    /// Runs the binary with standard output going to `stdoutPath` (a file, /dev/full, a FIFO …) and extra
    /// environment variables (e.g. `LODESTAR_FAULTS`, the syscall layer's fault hook); stderr is collected.
    public static func run(_ arguments: [String], stdoutPath: String, environment: [String: String] = [:],
                           stdin: Data? = nil) throws -> RunResult {
        let process = Process()
        (process.executableURL, process.arguments) = Watchdog.command(binary, arguments)
        process.currentDirectoryURL = SharedData.packageRoot
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        guard let out = FileHandle(forWritingAtPath: stdoutPath) else {
            throw NSError(domain: "open \(stdoutPath)", code: Int(errno))
        }
        defer { try? out.close() }
        process.standardOutput = out
        let err = Pipe()
        process.standardError = err
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            input.fileHandleForWriting.write(stdin)
            try? input.fileHandleForWriting.close()
        }
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return RunResult(status: process.terminationStatus, stdout: "", stderr: String(decoding: errData, as: UTF8.self))
    }
}
