import Foundation
import Testing
import TestSupport

/// End to end: the built binary on the shipped capture and on bad input.
@Suite("lodestar command line", .ownThreads)
struct CLITests {
    static let capture = "captures/simulated-drive.lcap"
    static var expectedDirectory: URL {
        SharedData.packageRoot.appendingPathComponent("Tests/CLITests/Expected")
    }

    /// REGRESSION SNAPSHOT, not a truth: the goldens are the program's own earlier output (re-recorded with
    /// LODESTAR_RECORD_GOLDEN=1 whenever an intended change alters it; review the diff). This test only says the output
    /// did not change. Whether it is right is checked against truths the program did not produce, in SessionTests'
    /// GoldenTruthTests (the simulator's track and headings; gpsd's own reading of the NMEA golden) — see
    /// Expected/README.md.
    @Test(arguments: [("json", "simulated-drive.jsonl"), ("gpsd", "simulated-drive.gpsd.jsonl"), ("nmea", "simulated-drive.nmea")])
    func replayOfTheShippedCaptureMatchesGolden(format: String, golden: String) throws {
        let r = try Lodestar.run(["replay", "--output", format, "--heading-filter", "5", Self.capture])
        #expect(r.status == 0, "\(r.stderr)")
        let url = Self.expectedDirectory.appendingPathComponent(golden)
        if ProcessInfo.processInfo.environment["LODESTAR_RECORD_GOLDEN"] == "1" {
            try r.stdout.write(to: url, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(r.stdout == expected, "output differs from the regression snapshot \(golden); if intended, re-record with LODESTAR_RECORD_GOLDEN=1 and run GoldenTruthTests")
        #expect(r.stderr.contains("31080 records read, 31080 accepted"))
        #expect(r.stderr.contains("1080 sentences, 0 rejected"))
        #expect(r.stderr.contains("300 fixes"))
    }

    @Test func simulateIsDeterministicAndMatchesTheShippedCapture() throws {
        let dir = try TemporaryDirectory()
        let out = dir.path("sim.lcap")
        let r = try Lodestar.run(["simulate", "--seed", "1", "--duration", "300", out])
        #expect(r.status == 0, "\(r.stderr)")
        let made = try Data(contentsOf: URL(fileURLWithPath: out))
        let shipped = try Data(contentsOf: SharedData.packageRoot.appendingPathComponent(Self.capture))
        #expect(made == shipped, "captures/simulated-drive.lcap is not what `lodestar simulate --seed 1 --duration 300` writes")
    }

    @Test func missingFileExits66WithOneLine() throws {
        let r = try Lodestar.run(["replay", "/nonexistent/file.nmea"])
        #expect(r.status == 66)
        #expect(r.stderr == "lodestar: /nonexistent/file.nmea: no such file\n")
        #expect(r.stdout.isEmpty)
    }

    @Test func directoryExits66() throws {
        let r = try Lodestar.run(["replay", "/tmp"])
        #expect(r.status == 66)
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    @Test func unrecognizedFormatExits65() throws {
        let dir = try TemporaryDirectory()
        let p = try dir.write("noise.bin", bytes: (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) | 0x80 })
        let r = try Lodestar.run(["replay", p])
        #expect(r.status == 65)
        #expect(r.stderr.hasPrefix("lodestar: \(p): unrecognized capture format"))
        let empty = try dir.write("empty.nmea", "")
        #expect(try Lodestar.run(["replay", empty]).status == 65)
    }

    @Test func unsupportedCaptureVersionExits65() throws {
        let dir = try TemporaryDirectory()
        let p = try dir.write("v9.lcap", "#!lodestar-capture 9\n1 0 N $GPGGA*00\n")
        let r = try Lodestar.run(["replay", p])
        #expect(r.status == 65)
        #expect(r.stderr.contains("unsupported Lodestar capture version 9"))
    }

    @Test(.enabled(if: getuid() != 0, "running as root: permission bits do not stop root"))
    func unreadableFileExits77() throws {
        let dir = try TemporaryDirectory()
        let p = try dir.write("secret.nmea", "$GPGGA*00\n")
        chmod(p, 0)
        #expect(try Lodestar.run(["replay", p]).status == 77)
    }

    @Test(arguments: [["replay"], ["replay", "--speed", "-1", "x"], ["replay", "--output", "xml", "x"],
                      ["replay", "--realtime", "--speed", "2", "x"], ["replay", "--reference-date", "2020-13-01", "x"],
                      ["replay", "--fifo-only", "x"], ["frobnicate"], ["simulate", "--duration", "0", "x"]])
    func badArgumentsExit64(arguments: [String]) throws {
        let r = try Lodestar.run(arguments)
        #expect(r.status == 64, "\(arguments): \(r.stderr)")
        #expect(!r.stderr.isEmpty)
    }

    @Test func corruptRecordsAreCountedAndSkipped() throws {
        let dir = try TemporaryDirectory()
        let good = "$GPRMC,225308,A,4527.458,S,16709.165,E,000.0,094.5,060601,024.1,E*6D\r\n"
        let bad = "$GPRMC,225309,A,4527.458,S,16709.165,E,000.0,094.5,060601,024.1,E*00\r\n"
        let p = try dir.write("mixed.nmea", "# Date: 2005-03-11\n" + good + bad + "\u{01}\u{02}junk\r\n")
        let r = try Lodestar.run(["replay", "--no-sky", p])
        #expect(r.status == 0)
        #expect(r.stdout.split(separator: "\n").count == 1)
        #expect(r.stderr.contains("1 rejected (badChecksum 1)"))
        #expect(r.stderr.contains("garbage bytes skipped"))
    }

    @Test func capturesWithCorruptRecordsStillReplay() throws {
        let dir = try TemporaryDirectory()
        let text = try String(contentsOf: SharedData.packageRoot.appendingPathComponent(Self.capture), encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.insert("not a record", at: 20)
        lines.insert("12x 0 N $GPGGA*00", at: 30)
        lines.insert("1000 0 N bad\\q escape", at: 40)
        let p = try dir.write("corrupt.lcap", lines.joined(separator: "\n"))
        let r = try Lodestar.run(["replay", "--no-sky", "--no-heading", p])
        #expect(r.status == 0)
        #expect(r.stdout.split(separator: "\n").count == 300)
        #expect(r.stderr.contains("3 rejected (badEscape 1, badTimestamp 2)"), "\(r.stderr)")
    }

    @Test func stdinIsReadAsNMEA() throws {
        let input = "$GPRMC,225308,A,4527.458,S,16709.165,E,000.0,094.5,060601,024.1,E*6D\r\n"
        let r = try Lodestar.run(["replay", "--reference-date", "2005-03-11", "--output", "nmea", "-"], stdin: Data(input.utf8))
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("$GPRMC,225308.00,A,4527.45800,S,16709.16500,E,0.000,94.50,060601,24.1,E,A*"))
    }

    @Test func helpDescribesEverySubcommand() throws {
        let r = try Lodestar.run(["--help"])
        #expect(r.status == 0)
        for word in ["replay", "simulate", "Exit codes"] { #expect(r.stdout.contains(word)) }
        let replay = try Lodestar.run(["replay", "--help"])
        for flag in ["--format", "--output", "--fifo", "--realtime", "--speed", "--lenient", "--reference-date", "--passthrough"] {
            #expect(replay.stdout.contains(flag), "replay --help lacks \(flag)")
        }
    }
}
