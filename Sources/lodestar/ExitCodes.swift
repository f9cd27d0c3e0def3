import ArgumentParser
import Capture
import Devices
#if canImport(Glibc)
import Glibc
#endif

/// Distinct exit codes (sysexits.h), documented in `lodestar --help` and docs/cli.md.
enum Exit {
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    /// A server's port is taken (e.g. by gpsd) or cannot be bound.
    static let unavailable: Int32 = 69
    static let cannotCreate: Int32 = 73
    static let ioError: Int32 = 74
    static let permission: Int32 = 77

    static func code(for error: CaptureError) -> Int32 {
        switch error {
        case .fileNotFound, .isDirectory: noInput
        case .permissionDenied: permission
        case .readFailed: ioError
        case .unrecognizedFormat, .unsupportedVersion: dataError
        }
    }
}

/// Prints one clear line on stderr and exits with `code`.
func fail(_ message: String, code: Int32) -> Never {
    printError("lodestar: \(message)")
    exit(code)
}

func printError(_ message: String) {
    var line = Array(message.utf8)
    line.append(0x0A)
    line.withUnsafeBytes { p in
        guard let base = p.baseAddress else { return }
        _ = write(2, base, p.count)
    }
}
