import Foundation
import LocationCore
import NMEA
import Testing
import TestSupport

/// `lodestar run` and `lodestar record` against a real pseudo-terminal, end to end.
@Suite("lodestar run and record on a pseudo-terminal", .serialized, .ownThreads)
struct LiveCLITests {
    static func cycle(_ s: Int) -> String {
        let t = String(format: "12%02d%02d", s / 60 % 60, s % 60)
        return NMEAEncoder.sentence("GPRMC,\(t),A,4807.038,N,01131.000,E,1.0,45.0,230324,,,A")
            + NMEAEncoder.sentence("GPGGA,\(t),4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
    }

    static func waitForLines(_ path: String, atLeast n: Int, timeout: Double) -> [Substring] {
        let deadline = Date().addingTimeInterval(timeout)
        var lines: [Substring] = []
        while Date() < deadline {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            lines = text.split(separator: "\n")
            if lines.count >= n { break }
            usleep(20_000)
        }
        return lines
    }

    @Test func runStreamsFixesFromASerialPortAndStopsCleanly() throws {
        let pty = try PseudoTerminal()
        let dir = try TemporaryDirectory()
        let process = try SpawnedProcess(Lodestar.binary, ["run", "--gps", "\(pty.slavePath)@9600", "--no-sky"],
                                         stdoutPath: dir.path("out"), stderrPath: dir.path("err"))
        process.waitUntilOpen(pty.slavePath)
        for s in 0..<6 { _ = pty.write(Self.cycle(s)); usleep(30_000) }
        let lines = Self.waitForLines(dir.path("out"), atLeast: 7, timeout: 5)
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 5) == 143)
        let fixes = lines.filter { $0.hasPrefix("{\"class\":\"fix\"") }
        // Six cycles: the first two end when the next begins, the rest on the learned end of cycle; SIGTERM
        // flushes the last one.
        #expect(fixes.count == 6, "\(lines)")
        #expect(fixes.first?.contains("\"latitudeDegrees\":48.117300000") == true)
        #expect(lines.contains { $0.contains("\"class\":\"status\"") && $0.contains("\"state\":\"available\"") })
        let err = try String(contentsOfFile: dir.path("err"), encoding: .utf8)
        #expect(err.contains("lodestar: run: 6 fixes"), "\(err)")
    }

    @Test func recordThenReplayGivesTheLiveFixes() throws {
        let pty = try PseudoTerminal()
        let dir = try TemporaryDirectory()
        let capture = dir.path("session.lcap")
        let recorder = try SpawnedProcess(Lodestar.binary, ["record", "--gps", "\(pty.slavePath)@9600", "--quiet", capture],
                                          stdoutPath: dir.path("out"), stderrPath: dir.path("err"))
        recorder.waitUntilOpen(pty.slavePath)
        for s in 0..<5 { _ = pty.write(Self.cycle(s)); usleep(30_000) }
        usleep(300_000)
        recorder.signal(SIGINT)
        #expect(recorder.wait(timeout: 5) == 130)
        let text = try String(contentsOfFile: capture, encoding: .utf8)
        #expect(text.hasPrefix("#!lodestar-capture 1\n"))
        #expect(text.contains("# source: 0 name=gps0"))
        #expect(text.hasSuffix("\n"), "the last record must be complete")
        let replay = try Lodestar.run(["replay", "--no-sky", capture])
        #expect(replay.status == 0)
        let fixes = replay.stdout.split(separator: "\n").filter { $0.hasPrefix("{\"class\":\"fix\"") }
        #expect(fixes.count == 5)
        #expect(fixes.last?.contains("\"time\":\"2024-03-23T12:00:04.000Z\"") == true)
    }

    /// One RMC+GGA cycle at `t` (seconds since 1970), creeping north-east at 1 m/s.
    static func cycle(at t: Int64, step: Int) -> String {
        let d = CivilDate(daysSince1970: Int(t / 86_400)), sod = t % 86_400
        let time = String(format: "%02d%02d%02d.00", sod / 3600, sod / 60 % 60, sod % 60)
        let date = String(format: "%02d%02d%02d", d.day, d.month, d.year % 100)
        let lat = String(format: "%.5f", 4807.038 + Double(step) * 0.00038)
        return NMEAEncoder.sentence("GPRMC,\(time),A,\(lat),N,01131.000,E,1.9,45.0,\(date),,,A")
            + NMEAEncoder.sentence("GPGGA,\(time),\(lat),N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
    }

    /// A receiver on a pseudo-terminal whose clock jumps back by 100 s, by 27 minutes and by 1,024 weeks (a
    /// week-rollover bug): with smoothing on, fixes resume within 5 epochs each time and a status names each jump.
    /// Speaking NMEA, and a u-blox receiver speaking UBX NAV-PVT alone.
    @Test(arguments: [false, true])
    func fixesResumeAfterTheReceiverClockJumpsBack(ubx: Bool) throws {
        let pty = try PseudoTerminal()
        let dir = try TemporaryDirectory()
        let process = try SpawnedProcess(Lodestar.binary, ["run", "--gps", "\(pty.slavePath)@9600", "--no-sky"],
                                         stdoutPath: dir.path("out"), stderrPath: dir.path("err"))
        process.waitUntilOpen(pty.slavePath)
        let start: Int64 = 1_779_796_800  // 2026-05-26T12:00:00Z
        var times: [Int64] = (0..<10).map { start + $0 }
        for jump: Int64 in [100, 27 * 60, 1024 * 7 * 86_400] {
            let base = times.last! + 1 - jump
            times += (0..<10).map { base + $0 }
        }
        for (i, t) in times.enumerated() {
            let bytes = ubx ? SimulatedUBX.navPVT(t, latitudeDegrees: 48 + (7.038 + Double(i) * 0.00038) / 60,
                                                  longitudeDegrees: 11 + 31.0 / 60)
                : Array(Self.cycle(at: t, step: i).utf8)
            _ = pty.write(bytes); usleep(20_000)
        }
        _ = Self.waitForLines(dir.path("out"), atLeast: 40, timeout: 5)
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 5) == 143)
        let lines = try String(contentsOfFile: dir.path("out"), encoding: .utf8).split(separator: "\n")
        let fixes = lines.filter { $0.hasPrefix("{\"class\":\"fix\"") }
        let statuses = lines.filter { $0.contains("\"class\":\"status\"") }
        // 40 epochs; each of the jumps may cost at most 4 epochs while the new time base is confirmed.
        #expect(fixes.count >= 40 - 3 * 4, "\(fixes.count) fixes of 40")
        // After each jump the fixes of the new time base come through: the last epoch of each run of 10 is there.
        for k in 1...4 {
            let t = times[k * 10 - 1]
            // The rollover is corrected against the system clock's date: those fixes carry the right date.
            let iso = Timestamp(nanosecondsSince1970: (k == 4 ? t + 1024 * 7 * 86_400 : t) * 1_000_000_000)
                .iso8601(fractionDigits: 3)
            #expect(fixes.contains { $0.contains("\"time\":\"\(iso)\"") }, "no fix at \(iso)")
        }
        for named in ["jumped back by 100 s", "jumped back by 27 min", "jumped back by 1024 weeks"] {
            #expect(statuses.contains { $0.contains(named) }, "no status names '\(named)': \(statuses)")
        }
    }

    @Test func badSourceSpecsAreUsageErrors() throws {
        #expect(try Lodestar.run(["run"]).status == 64)
        #expect(try Lodestar.run(["run", "--gps", "gpsd://host:notaport"]).status == 64)
        #expect(try Lodestar.run(["run", "--imu", "i2c:1:0x99"]).status == 64)
        #expect(try Lodestar.run(["run", "--imu", "spi:0"]).status == 64)
        #expect(try Lodestar.run(["run", "--gps", "/dev/null@9600", "--mounting", "x,x,z"]).status == 64)
        let dir = try TemporaryDirectory()
        let config = try dir.write("bad.conf", "gps = /dev/ttyUSB0@9600\nfrobnicate = 1\n")
        let r = try Lodestar.run(["run", "--config", config])
        #expect(r.status == 64)
        #expect(r.stderr.contains("Unknown option '--frobnicate'"))
    }

    /// `--config FILE` stands for the options in it: the same output as the options given directly; options after
    /// it win; a missing file is a usage error.
    @Test func configFileLinesAreOptions() throws {
        let dir = try TemporaryDirectory()
        let capture = "captures/simulated-drive.lcap"
        let config = try dir.write("replay.conf", "# a comment\noutput = nmea   # trailing comment\nno-sky = true\nquiet = false\n")
        let direct = try Lodestar.run(["replay", "--output", "nmea", "--no-sky", capture])
        let viaFile = try Lodestar.run(["replay", "--config", config, capture])
        #expect(direct.status == 0 && viaFile.status == 0)
        #expect(!direct.stdout.isEmpty && viaFile.stdout == direct.stdout)
        let overridden = try Lodestar.run(["replay", "--config=\(config)", "--output", "json", capture])
        #expect(overridden.stdout.hasPrefix("{"))
        #expect(try Lodestar.run(["replay", "--config", dir.path("missing.conf"), capture]).status != 0)
    }

    @Test func devicesReportsAvailabilityAsJSON() throws {
        let r = try Lodestar.run(["devices", "--json", "--i2c", "97"])
        #expect(r.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect(object?["class"] as? String == "devices")
        #expect(object?["locationServicesEnabled"] is Bool)
        #expect(object?["headingAvailable"] as? Bool == false)
        let devices = object?["devices"] as? [[String: Any]]
        #expect(devices?.contains { ($0["name"] as? String) == "i2c-97" && ($0["available"] as? Bool) == false } == true)
    }
}
