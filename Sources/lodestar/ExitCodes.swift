import ArgumentParser
import Capture
import Devices
import LodestarIO
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

    /// The one mapping of a failed system call on a named file (Syscall's `SystemError`), as for captures
    /// (`code(for: CaptureError)`): not allowed (EACCES, EPERM) 77; a file or directory that could not be created
    /// (operation `create…`: a missing directory, a read-only file system) 73; a missing input (`open`/`read`:
    /// ENOENT, ENOTDIR, EISDIR) 66; any other failure 74.
    static func code(for error: SystemError) -> Int32 {
        if error.isPermissionDenied { return permission }
        if error.operation.hasPrefix("create") { return cannotCreate }
        if error.operation == "open" || error.operation == "read",
           [ENOENT, ENOTDIR, EISDIR].contains(error.errno) { return noInput }
        return ioError
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

    /// A failed system call on a file: one line naming the path (after `option`, when the path came from one) and
    /// the reason, with the exit code of `Exit.code(for:)`.
    init(_ error: SystemError, option: String? = nil) {
        self.init(option.map { "\($0) \(error)" } ?? error.description, code: Exit.code(for: error))
    }
}

/// One line to standard error.
func printError(_ message: String) { Syscall.writeMessage(message + "\n") }
