import ArgumentParser
import Capture
import Devices
import Session
#if canImport(Glibc)
import Glibc
#endif

/// Distinct exit codes (sysexits.h), documented in `lodestar --help` and docs/cli.md.
enum Exit {
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    /// EX_UNAVAILABLE: a server's port is taken (e.g. by gpsd) or cannot be bound; the MQTT broker did not take
    /// everything (records kept in the spool).
    static let unavailable: Int32 = 69
    static let cannotCreate: Int32 = 73
    static let ioError: Int32 = 74
    static let permission: Int32 = 77
    /// EX_PROTOCOL: the receiver refused a setting (ACK-NAK), did not acknowledge it in time, does not support it,
    /// or did not answer at all (`lodestar receiver`, docs/receiver.md).
    static let receiverRefused: Int32 = 76

    static func code(for error: CaptureError) -> Int32 {
        switch error {
        case .fileNotFound, .isDirectory: noInput
        case .permissionDenied: permission
        case .readFailed, .writeFailed: ioError
        case .createFailed: cannotCreate
        case .unrecognizedFormat, .unsupportedVersion: dataError
        }
    }

    /// A session's error: the capture's code, or usage (64) for a configuration value that does not parse.
    static func code(for error: SessionError) -> Int32 {
        switch error {
        case .capture(let e): code(for: e)
        case .configuration: usage
        }
    }
}

/// A command's failure: one clear line for stderr and a distinct exit code. Thrown by commands and their option
/// helpers; only the entry point (`Lodestar.main`) prints it and exits, so commands can be run in-process.
struct CommandFailure: Error, CustomStringConvertible {
    let message: String
    let code: Int32
    init(_ message: String, code: Int32) { self.message = message; self.code = code }
    var description: String { "lodestar: \(message)" }
}

func printError(_ message: String) {
    var line = Array(message.utf8)
    line.append(0x0A)
    line.withUnsafeBytes { p in
        guard let base = p.baseAddress else { return }
        _ = write(2, base, p.count)
    }
}
