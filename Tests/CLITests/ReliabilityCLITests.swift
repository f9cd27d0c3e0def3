import Foundation
import NMEA
import Testing
import TestSupport

/// Issue 13 ("Nothing lost, nothing silent"): each numbered case against the built binary.
@Suite("Reliability: write errors, piped input, signals, damaged input", .serialized, .ownThreads)
struct ReliabilityCLITests {
    static let capture = "captures/simulated-drive.lcap"
    static var root: String { SharedData.packageRoot.path }

    static func oneLodestarLine(_ stderr: String) -> Bool {
        let lines = stderr.split(separator: "\n")
        return lines.count == 1 && lines[0].hasPrefix("lodestar: ")
    }

    // MARK: 1. Write errors

    @Test(arguments: [
        ["replay", capture], ["replay", "--output", "gpsd", capture], ["replay", "--output", "nmea", capture],
        ["about"], ["reverse", "48.85", "2.35"], ["geocode", "Paris"],
    ])
    func writeToDevFullExits74(arguments: [String]) throws {
        let r = try Lodestar.run(arguments + (arguments[0] == "replay" ? ["--quiet"] : []), stdoutPath: "/dev/full")
        #expect(r.status == 74, "\(arguments): \(r.stderr)")
        #expect(Self.oneLodestarLine(r.stderr), "\(r.stderr)")
        #expect(r.stderr.contains("standard output: write failed"))
        #expect(r.stderr.contains("ENOSPC"))
    }

    @Test(arguments: ["reverse", "geocode"])
    func batchWriteToDevFullExits74(command: String) throws {
        let input = command == "reverse" ? String(repeating: "48.85,2.35\n", count: 2000) : String(repeating: "Paris\n", count: 500)
        let r = try Lodestar.run([command, "--batch"], stdoutPath: "/dev/full", stdin: Data(input.utf8))
        #expect(r.status == 74, "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").last?.hasPrefix("lodestar: standard output: write failed") == true, "\(r.stderr)")
    }

    /// A disk that fills after 64 KB (the syscall layer's hook): exit 74, and the file holds whole lines only.
    @Test func diskFullMidReplayExits74WithWholeLines() throws {
        let dir = try TemporaryDirectory()
        let out = dir.path("out.jsonl")
        FileManager.default.createFile(atPath: out, contents: nil)
        let r = try Lodestar.run(["replay", Self.capture], stdoutPath: out,
                                 environment: ["LODESTAR_FAULTS": "write:fd=1:after=65536:errno=ENOSPC"])
        #expect(r.status == 74)
        #expect(r.stderr.split(separator: "\n").last == "lodestar: standard output: write failed: No space left on device (ENOSPC); the disk is full: free space or write elsewhere")
        let data = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(data.count <= 65536 && data.count > 60_000)
        #expect(data.last == 0x0A)
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil)
        }
    }

    @Test(arguments: ["EIO", "EPIPE", "EAGAIN"])
    func injectedStdoutErrorsEndCorrectly(errno name: String) throws {
        let dir = try TemporaryDirectory()
        let out = dir.path("out")
        FileManager.default.createFile(atPath: out, contents: nil)
        // EAGAIN 100 times is waited out; EIO fails; EPIPE is a reader that left (exit 0, no message).
        let count = name == "EAGAIN" ? ":count=100" : ""
        let r = try Lodestar.run(["replay", "--quiet", Self.capture], stdoutPath: out,
                                 environment: ["LODESTAR_FAULTS": "write:fd=1:after=4096:errno=\(name)\(count)"])
        let full = try Lodestar.run(["replay", "--quiet", Self.capture]).stdout
        let got = try String(contentsOfFile: out, encoding: .utf8)
        switch name {
        case "EIO": #expect(r.status == 74); #expect(r.stderr.contains("Input/output error (EIO)"))
        case "EPIPE": #expect(r.status == 0); #expect(r.stderr.isEmpty)
        default: #expect(r.status == 0); #expect(got == full)
        }
        #expect(got.isEmpty || got.hasSuffix("\n"))
        #expect(full.hasPrefix(got))
    }

    @Test func runReportsAFailedSinkAndExits74() throws {
        let pty = try PseudoTerminal()
        let dir = try TemporaryDirectory()
        // A FIFO reader attached from the start, so the status line can be seen on the surviving output.
        mkfifo(dir.path("f.fifo"), 0o600)
        let fifoFD = open(dir.path("f.fifo"), O_RDONLY | O_NONBLOCK)
        defer { close(fifoFD) }
        let process = try SpawnedProcess("/usr/bin/env", ["LODESTAR_FAULTS=write:fd=1:after=300:errno=EIO", Lodestar.binary,
                                                          "run", "--gps", "\(pty.slavePath)@9600", "--no-sky",
                                                          "--fifo", dir.path("f.fifo")],
                                         stdoutPath: dir.path("out"), stderrPath: dir.path("err"))
        #expect(process.waitUntilOpen(pty.slavePath), "lodestar never opened the receiver")
        for s in 0..<8 { _ = pty.write(Self.cycle(s)); usleep(60_000) }
        let failed = "lodestar: standard output: write failed: Input/output error (EIO)"
        Poll.until { ((try? String(contentsOfFile: dir.path("err"), encoding: .utf8)) ?? "").contains(failed) }
        process.signal(SIGTERM)
        let status = process.wait(timeout: 5)
        var buf = [UInt8](repeating: 0, count: 65536)
        let n = read(fifoFD, &buf, buf.count)
        let fifoText = n > 0 ? String(decoding: buf[0..<n], as: UTF8.self) : ""
        let err = try String(contentsOfFile: dir.path("err"), encoding: .utf8)
        #expect(status == 143) // stopped by the signal; the sink failure is reported, the FIFO kept working
        #expect(err.contains(failed), "\(err)")
        #expect(fifoText.contains("\"class\":\"status\"") && fifoText.contains("\"source\":\"output\""), "\(fifoText)")
    }

    @Test func runWithOnlyAFailedStdoutStopsWith74() throws {
        let pty = try PseudoTerminal()
        let dir = try TemporaryDirectory()
        let process = try SpawnedProcess(Lodestar.binary, ["run", "--gps", "\(pty.slavePath)@9600"],
                                         stdoutPath: "/dev/full", stderrPath: dir.path("err"))
        process.waitUntilOpen(pty.slavePath)
        for s in 0..<3 { _ = pty.write(Self.cycle(s)); usleep(50_000) }
        let status = process.wait(timeout: 5)
        let err = try String(contentsOfFile: dir.path("err"), encoding: .utf8)
        #expect(status == 74, "\(err)")
        #expect(err.contains("lodestar: standard output: write failed: No space left on device (ENOSPC)"))
    }

    static func cycle(_ s: Int) -> String {
        let t = String(format: "1200%02d", s % 60)
        return NMEAEncoder.sentence("GPRMC,\(t),A,4807.038,N,01131.000,E,1.0,45.0,230324,,,A")
            + NMEAEncoder.sentence("GPGGA,\(t),4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
    }

    // MARK: 2. Piped input

    static func bash(_ script: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let p = Process()
        (p.executableURL, p.arguments) = Watchdog.command("/bin/bash", ["-c", script], seconds: 120)
        p.currentDirectoryURL = SharedData.packageRoot
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        try p.run()
        nonisolated(unsafe) var errData = Data()
        let g = DispatchGroup(); g.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); g.leave() }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        g.wait(); p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    static func pipedInputsAgree(_ file: String, options: String = "") throws {
        let bin = "'\(Lodestar.binary)' replay --quiet --reference-date 2020-01-01 \(options)"
        let f = "'\(file)'"
        let direct = try bash("\(bin) \(f)")
        #expect(direct.status == 0)
        #expect(!direct.stdout.isEmpty)
        let dir = try TemporaryDirectory()
        for (what, script) in [("process substitution", "\(bin) <(cat \(f))"),
                               ("stdin pipe", "cat \(f) | \(bin) -"),
                               ("stdin redirect", "\(bin) - < \(f)"),
                               ("named pipe", "mkfifo '\(dir.path("np"))'; (cat \(f) > '\(dir.path("np"))' &); \(bin) '\(dir.path("np"))'"),
                               ("one byte at a time", "python3 -c 'import sys,time\nd=open(sys.argv[1],\"rb\").read()\nfor i in range(0,min(len(d),9000)): sys.stdout.buffer.write(d[i:i+1]); sys.stdout.flush()\nsys.stdout.buffer.write(d[9000:])' \(f) | \(bin) -")] {
            let r = try bash(script)
            // (A capture's gpsd `device` was once read by opening the path a second time: through a pipe that
            // printed nothing, and a named pipe hung in open().)
            #expect(r.status == direct.status, "\(what): \(r.stderr)")
            #expect(r.stdout == direct.stdout, "\(what): \(r.stdout.count) vs \(direct.stdout.count) bytes")
        }
    }

    /// gpsd output too: its `device` comes from the capture's header, which must not be read by opening the path twice.
    @Test(arguments: ["", "--output gpsd"])
    func pipedCaptureEqualsFile(options: String) throws {
        try Self.pipedInputsAgree("\(Self.root)/\(Self.capture)", options: options)
    }

    @Test(.enabled(if: SharedData.available, Comment(rawValue: SharedData.skipMessage)), arguments: ["garmin48.log", "bundg_zeus_9.log"])
    func pipedNMEALogEqualsFile(name: String) throws {
        try Self.pipedInputsAgree(SharedData.path("nmea-gpsd/\(name)"))
    }

    // MARK: 3. Signals while stdout is blocked

    @Test(arguments: [(SIGTERM, Int32(143)), (SIGINT, Int32(130))])
    func replayStopsPromptlyWhileStdoutIsBlocked(signal: Int32, code: Int32) throws {
        let dir = try TemporaryDirectory()
        let fifo = dir.path("out.fifo")
        mkfifo(fifo, 0o600)
        let reader = open(fifo, O_RDONLY | O_NONBLOCK) // attached but never reads
        defer { close(reader) }
        let process = try SpawnedProcess(Lodestar.binary, ["replay", Self.capture], stdoutPath: fifo, stderrPath: dir.path("err"))
        // Until the pipe is full and lodestar blocked in write: more than half the pipe's capacity queued (whole-line
        // writes leave part of each page unused: 58,241 of 65,536 bytes measured) and no byte added for 300 ms.
        let capacity = Int(fcntl(reader, 1032 /* F_GETPIPE_SZ */))
        var last = -1, unchangedPolls = 0
        #expect(Poll.until(seconds: 20, intervalNanos: 100_000_000) {
            var queued: Int32 = 0
            guard ioctl(reader, UInt(FIONREAD), &queued) == 0 else { return false }
            unchangedPolls = Int(queued) == last ? unchangedPolls + 1 : 0
            last = Int(queued)
            return last > capacity / 2 && unchangedPolls >= 3
        }, "the pipe never filled (\(last) of \(capacity) bytes queued)")
        let start = Date()
        process.signal(signal)
        let status = process.wait(timeout: 5)
        let elapsed = Date().timeIntervalSince(start)
        #expect(status == code)
        #expect(elapsed < 1.0, "stopped after \(elapsed) s")
    }

    /// `run` with a reader that stalls and resumes: never blocked, the queue stays bounded, the oldest lines
    /// are dropped and counted, and the reader resumes on fresh data.
    @Test func runKeepsABoundedQueueWhileStdoutIsBlocked() throws {
        let pty = try PseudoTerminal()
        let dir = try TemporaryDirectory()
        let fifo = dir.path("out.fifo")
        mkfifo(fifo, 0o600)
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        defer { close(reader) }
        let process = try SpawnedProcess(Lodestar.binary, ["run", "--gps", "\(pty.slavePath)@115200", "--passthrough"],
                                         stdoutPath: fifo, stderrPath: dir.path("err"))
        process.waitUntilOpen(pty.slavePath)
        // ~1.2 MB of passthrough lines: far more than the pipe (64 KB) plus the queue (256 KB).
        let filler = NMEAEncoder.sentence("PGRMZ,\(String(repeating: "1", count: 60)),f,3")
        for s in 0..<200 {
            _ = pty.write(String(repeating: filler, count: 80) + Self.cycle(s))
            usleep(10_000)
        }
        usleep(500_000)
        let start = Date()
        process.signal(SIGTERM)
        let status = process.wait(timeout: 5)
        #expect(status == 143)
        #expect(Date().timeIntervalSince(start) < 1.5)
        var total = 0
        var buf = [UInt8](repeating: 0, count: 65536)
        while true { let n = read(reader, &buf, buf.count); if n <= 0 { break }; total += n }
        #expect(total <= 64 * 1024 + 256 * 1024 + 4096, "read \(total) bytes")
        let err = try String(contentsOfFile: dir.path("err"), encoding: .utf8)
        #expect(err.contains("stdout lines dropped ("), "\(err)")
        #expect(err.contains("oldest from the full queue"))
    }

    // MARK: 4–7. Damaged input

    @Test func cutOffLastRecordIsRejectedAsTruncated() throws {
        let dir = try TemporaryDirectory()
        let header = "#!lodestar-capture 1\n# source: 1 kind=magnetometer name=imu0\n"
        let p = try dir.write("cut.lcap", header + "1000 1 M 2244 176 -2495 0.0146\n2000 1 M 2244 176 -2495 0.01")
        let r = try Lodestar.run(["replay", "--no-heading", p])
        #expect(r.status == 0)
        #expect(r.stderr.contains("2 records read, 1 accepted, 1 rejected (truncated 1)"), "\(r.stderr)")
    }

    @Test func damagedCaptureHeaderExits65WithAHint() throws {
        let text = try String(contentsOfFile: "\(Self.root)/\(Self.capture)", encoding: .utf8)
        let body = text.drop { $0 != "\n" }
        let dir = try TemporaryDirectory()
        for (name, damaged) in [("magic", "#!lodestar-captur 1" + body), ("nul", "\0" + text), ("cut", "#!lode" + body)] {
            let r = try Lodestar.run(["replay", try dir.write("\(name).lcap", damaged)])
            #expect(r.status == 65, "\(name): \(r.stderr)")
            #expect(Self.oneLodestarLine(r.stderr))
            #expect(r.stderr.contains("damaged first line"), "\(name): \(r.stderr)")
        }
        // A UTF-8 byte-order mark is skipped: the same output as without it.
        let bom = try Lodestar.run(["replay", "--quiet", try dir.write("bom.lcap", "\u{FEFF}" + text)])
        let plain = try Lodestar.run(["replay", "--quiet", Self.capture])
        #expect(bom.status == 0)
        #expect(bom.stdout == plain.stdout)
    }

    @Test func randomBytesAreNeverNMEA() throws {
        let dir = try TemporaryDirectory()
        var rng = SplitMix64(seed: 13)
        for i in 0..<12 {
            var bytes = (0..<65536).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            // Sprinkle lone '$' at line starts, the old detector's weakness.
            for k in stride(from: 0, to: 8192, by: 97) { bytes[k] = 0x0A; bytes[k + 1] = 0x24 }
            let p = dir.path("random\(i)")
            FileManager.default.createFile(atPath: p, contents: Data(bytes))
            let r = try Lodestar.run(["replay", p])
            #expect(r.status == 65, "random file \(i): \(r.stderr)")
            #expect(Self.oneLodestarLine(r.stderr))
        }
    }

    // MARK: 5. record on a full disk

    @Test func recordOnAFullDiskSaysWriteFailedAndKeepsWholeRecords() throws {
        let pty = try PseudoTerminal()
        let dir = try TemporaryDirectory()
        let capture = dir.path("full.lcap")
        let process = try SpawnedProcess("/usr/bin/env", ["LODESTAR_FAULTS=write:path=full.lcap:after=1500:errno=ENOSPC",
                                                          Lodestar.binary, "record", "--gps", "\(pty.slavePath)@9600", capture],
                                         stdoutPath: dir.path("out"), stderrPath: dir.path("err"))
        #expect(process.waitUntilOpen(pty.slavePath), "lodestar never opened the receiver")
        for s in 0..<20 { _ = pty.write(Self.cycle(s)); usleep(50_000) }
        let status = process.wait(timeout: 5)
        let err = try String(contentsOfFile: dir.path("err"), encoding: .utf8)
        #expect(status == 74)
        #expect(err.contains("full.lcap: write failed (No space left on device (ENOSPC)"), "\(err)")
        #expect(!err.contains("read failed"))
        let data = try Data(contentsOf: URL(fileURLWithPath: capture))
        #expect(data.count <= 1500 && data.last == 0x0A)
        let r = try Lodestar.run(["replay", capture])
        #expect(r.stderr.contains(" 0 rejected"), "\(r.stderr)")
    }

    @Test func outputIntoAMissingDirectoryCannotBeCreated() throws {
        let r = try Lodestar.run(["simulate", "--duration", "5", "/nonexistent-dir/x.lcap"])
        #expect(r.status == 73)
        #expect(r.stderr == "lodestar: /nonexistent-dir/x.lcap: cannot create (No such file or directory (ENOENT))\n")
    }

    // MARK: 9–10. Arguments

    @Test(arguments: [["replay"], ["replay", "--bogus", capture], ["replay", "--output"], ["reverse", "1"],
                      ["reverse", "200", "0"], ["geocode"], ["nosuchcommand"], ["replay", "--speed", "fast", capture],
                      ["run", "--gps"], ["field", "--lat"]])
    func argumentErrorsAreOneLine(arguments: [String]) throws {
        let r = try Lodestar.run(arguments)
        #expect(r.status == 64, "\(arguments): \(r.stderr)")
        #expect(Self.oneLodestarLine(r.stderr), "\(arguments): \(r.stderr)")
        #expect(!r.stderr.contains("Error:") && !r.stderr.contains("Usage:"))
    }

    @Test(arguments: [
        (["replay", "--speed", "-1", capture], "--speed must be a positive number"),
        (["replay", "--max-outage", "-5", capture], "--max-outage must be a non-negative"),
        (["replay", "--heading-filter", "-1", capture], "--heading-filter must be in [0, 360)"),
        (["replay", "--distance-filter", "-10", capture], "--distance-filter must be"),
        (["geocode", "x", "--limit", "-1"], "--limit must be positive"),
    ])
    func negativeNumbersAreReadAsNumbers(arguments: [String], message: String) throws {
        let r = try Lodestar.run(arguments)
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(!r.stderr.contains("Missing value"))
        #expect(Self.oneLodestarLine(r.stderr))
    }

    // MARK: 14. Messages

    @Test func unclearMessagesAreClear() throws {
        let dir = try TemporaryDirectory()
        let cal = try Lodestar.run(["replay", "--calibration", dir.url.path, Self.capture])
        #expect(cal.status == 66)
        #expect(cal.stderr.contains("--calibration") && cal.stderr.contains("is a directory") && !cal.stderr.contains("capture"))
        let file = try dir.write("plain.txt", "x\n")
        let fifo = try Lodestar.run(["replay", "--fifo", file, Self.capture])
        #expect(fifo.status == 73)
        #expect(fifo.stderr == "lodestar: \(file): exists and is a regular file, not a FIFO; remove it or choose another --fifo path\n")
        let nmea = try dir.write("log.nmea", Self.cycle(0))
        let run = try Lodestar.run(["run", "--gps", "\(nmea)@9600"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("not a serial device; to read a recorded log use: lodestar replay \(nmea)"))
        #expect(Self.oneLodestarLine(run.stderr))
    }
}

extension ReliabilityCLITests {
    static func sentence(_ body: String) -> String { NMEAEncoder.sentence(body) }

    // MARK: 11. Leap second

    @Test(arguments: ["json", "gpsd", "nmea"])
    func leapSecondKeeps235960(output: String) throws {
        var text = ""
        for (t, d) in [("235959.00", "311216"), ("235960.00", "311216"), ("000000.00", "010117"), ("000001.00", "010117")] {
            text += Self.sentence("GPRMC,\(t),A,4807.038,N,01131.000,E,1.0,45.0,\(d),,,A")
            text += Self.sentence("GPGGA,\(t),4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        }
        let dir = try TemporaryDirectory()
        let r = try Lodestar.run(["replay", "--no-sky", "--output", output, try dir.write("leap.nmea", text)])
        #expect(r.status == 0)
        let times: [String]
        if output == "nmea" {
            times = r.stdout.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("$GPRMC") }.map { String($0.split(separator: ",")[1].prefix(6)) }
            #expect(times == ["235959", "235960", "000000", "000001"])
        } else {
            // gpsd's lines end in CRLF, and "\r\n" is one Character in Swift: split on any newline.
            times = r.stdout.split(whereSeparator: \.isNewline).compactMap { line in
                line.range(of: "\"time\":\"").map { String(line[$0.upperBound...].prefix(19)) }
            }
            #expect(times == ["2016-12-31T23:59:59", "2016-12-31T23:59:60", "2017-01-01T00:00:00", "2017-01-01T00:00:01"])
        }
        #expect(Set(times).count == times.count)
    }

    // MARK: 13. Out-of-range values

    @Test func outOfRangeValuesAreUnknown() throws {
        var text = ""
        for t in ["120000.00", "120001.00"] {
            text += Self.sentence("GPRMC,\(t),A,4807.038,N,01131.000,E,1.0,45.0,230324,,,A")
            text += Self.sentence("GPGGA,\(t),4807.038,N,01131.000,E,1,99999,0.9,545.4,M,46.9,M,,")
            text += Self.sentence("GPGSV,1,1,03,01,-95,720,-5,02,45,090,40,03,91,361,100")
        }
        let dir = try TemporaryDirectory()
        let r = try Lodestar.run(["replay", "--output", "gpsd", try dir.write("range.nmea", text)])
        #expect(r.status == 0)
        #expect(r.stdout.contains("\"el\":45.0") || r.stdout.contains("\"el\":45"))
        for bad in ["-95", "720", "361", "99999", "\"ss\":-5", "\"ss\":100", "\"el\":91"] {
            #expect(!r.stdout.contains(bad), "\(bad) reached the output")
        }
        #expect(!r.stdout.contains("\"nSat\":99999") && !r.stdout.contains("\"uSat\":99999"))
    }
}
