import ArgumentParser
import CLinux
import LodestarIO
#if canImport(Glibc)
import Glibc
#endif

/// The entry point: swift-argument-parser's parsing, with every failure as exactly one `lodestar:` line on
/// stderr (docs/cli.md), and standard output checked before exit 0 (a full disk or /dev/full is exit 74 naming
/// the output, not a quiet exit with less data). The one place that decides the exit: commands throw
/// `CommandFailure` (one stderr line, a distinct code), `ValidationError` or `ExitCode`.
extension Lodestar {
    static func main() {
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exitOneLine(error)
        }
        do {
            var c = command
            try c.run()
        } catch let failure as CommandFailure {
            checkStandardOutput()
            printError(failure.description)
            Glibc.exit(failure.code)
        } catch {
            checkStandardOutput()
            exitOneLine(error)
        }
        checkStandardOutput()
        Glibc.exit(0)
    }

    /// Help and --version go to stdout as usual (exit 0); errors become one line with the parser's exit code.
    static func exitOneLine(_ error: any Error) -> Never {
        let code = exitCode(for: error)
        if code == .success { exit(withError: error) }
        let message = self.message(for: error)
            .split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(while: \.isWhitespace) }
            .filter { !$0.isEmpty }
            .joined(separator: "; ")
        if !message.isEmpty {
            let stripped = message.hasPrefix("Error: ") ? String(message.dropFirst(7)) : message
            let help = code.rawValue == 64 ? " (see lodestar \(helpTarget)--help)" : ""
            printError("lodestar: \(stripped)\(help)")
        }
        Glibc.exit(code.rawValue)
    }

    /// "replay " when the first argument names a subcommand.
    static var helpTarget: String {
        let args = CommandLine.arguments.dropFirst()
        guard let first = args.first,
              configuration.subcommands.contains(where: { $0.configuration.commandName == first || $0._commandName == first })
        else { return "" }
        return "\(first) "
    }

    /// Flushes stdio's standard output; a failed or earlier-failed write exits 74 with one line.
    static func checkStandardOutput() {
        let r = clinux_flush_stdout()
        if r < 0 {
            let e = -r
            if e == EPIPE { return } // the reader left (`| head`): not an error of ours
            printError("lodestar: standard output: write failed (\(SystemError.reason(e)))")
            Glibc.exit(Exit.ioError)
        }
    }
}

extension StringProtocol {
    func trimmingCharacters(while predicate: (Character) -> Bool) -> String {
        var s = Substring(self)
        while let f = s.first, predicate(f) { s = s.dropFirst() }
        while let l = s.last, predicate(l) { s = s.dropLast() }
        return String(s)
    }
}
