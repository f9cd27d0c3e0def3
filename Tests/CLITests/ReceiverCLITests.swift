import Foundation
import Testing
import TestSupport

/// A u-blox receiver emulated on a pseudo-terminal by an independent UBX implementation (pyubx2, in
/// scripts/ubx-receiver-emulator.py): it answers MON-VER as a generation-9 ZED-F9P or a generation-8 NEO-M8N,
/// parses every configuration message with pyubx2, ACKs (or NAKs one setting), logs the layers written, and outputs
/// fixes at the configured rate.
enum ReceiverEmulator {
    static let python = SharedData.packageRoot.appendingPathComponent(".build/venv/bin/python3").path
    static let script = SharedData.packageRoot.appendingPathComponent("scripts/ubx-receiver-emulator.py").path
    static let available = FileManager.default.isExecutableFile(atPath: python)
    static let skipMessage = ".build/venv (pyubx2) is missing: run `make ubx-test-venv` (make test does); skipping the emulated u-blox receiver tests"

    final class Running: @unchecked Sendable {
        let process: SpawnedProcess
        let link: String
        let logPath: String
        init(_ dir: TemporaryDirectory, generation: Int, extra: [String] = []) throws {
            link = dir.path("gps-\(generation)")
            logPath = dir.path("emulator-\(generation).log")
            process = try SpawnedProcess(ReceiverEmulator.python, [ReceiverEmulator.script, "--link", link, "--generation", "\(generation)",
                                                                   "--log", logPath] + extra,
                                         stdoutPath: dir.path("emulator.out"), stderrPath: dir.path("emulator.err"))
            #expect(waitFor(timeout: 10) { $0.contains { $0["event"] as? String == "ready" } }, "the emulator did not start")
        }

        /// The log's JSON objects.
        var entries: [[String: Any]] {
            let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }

        /// The configuration messages received.
        var sets: [[String: Any]] { entries.filter { $0["event"] as? String == "set" } }

        func waitFor(timeout: Double, _ condition: ([[String: Any]]) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if condition(entries) { return true }
                usleep(20_000)
            }
            return condition(entries)
        }

        func replug() { process.signal(SIGUSR1) }
        deinit { process.stop() }
    }
}

@Suite("lodestar receiver on an emulated u-blox receiver", .serialized, .ownThreads,
       .enabled(if: ReceiverEmulator.available, Comment(rawValue: ReceiverEmulator.skipMessage)))
struct ReceiverCLITests {
    @Test(arguments: [(9, "ZED-F9P", "27.31", "HPG 1.32"), (8, "NEO-M8N-0", "18.00", "SPG 3.01")])
    func infoPrintsModuleFirmwareProtocolAndGeneration(generation: Int, module: String, protocolVersion: String, firmware: String) throws {
        let dir = try TemporaryDirectory()
        let receiver = try ReceiverEmulator.Running(dir, generation: generation)
        let r = try Lodestar.run(["receiver", "info", "--gps", "\(receiver.link)@115200"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("vendor: u-blox"), "\(r.stdout)")
        #expect(r.stdout.contains("module: \(module)"))
        #expect(r.stdout.contains("firmware: \(firmware)"))
        #expect(r.stdout.contains("protocol: \(protocolVersion)"))
        #expect(r.stdout.contains("generation: \(generation)"))
    }

    @Test func infoOnAnNMEAOnlyReceiverListsTalkersSentencesAndRate() throws {
        let dir = try TemporaryDirectory()
        let receiver = try ReceiverEmulator.Running(dir, generation: 8, extra: ["--nmea-only"])
        let r = try Lodestar.run(["receiver", "info", "--gps", "\(receiver.link)@9600", "--listen-seconds", "3"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("vendor: unknown (no answer to UBX MON-VER)"), "\(r.stdout)")
        #expect(r.stdout.contains("talkers: GN"))
        #expect(r.stdout.contains("sentences: GGA, RMC"))
        #expect(r.stdout.contains("rate: 1.0 Hz (RMC per second)"), "\(r.stdout)")
    }

    static let settings = ["--rate", "5", "--constellations", "gps,galileo", "--dynamic-model", "automotive"]

    @Test func generation9GetsValsetKeysInRAMOnlyUnlessSaved() throws {
        let dir = try TemporaryDirectory()
        let receiver = try ReceiverEmulator.Running(dir, generation: 9)
        let r = try Lodestar.run(["receiver", "configure", "--gps", "\(receiver.link)@115200"] + Self.settings)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("acknowledged: rate 5 Hz (CFG-RATE-MEAS 200 ms)"), "\(r.stdout)")
        var sets = receiver.sets
        #expect(sets.count == 3, "\(sets)")
        #expect(sets.allSatisfy { $0["message"] as? String == "CFG-VALSET" && ($0["layers"] as? [String]) == ["ram"] }, "\(sets)")
        let keys = sets.reduce(into: [String: Int]()) { all, s in
            for (k, v) in (s["keys"] as? [String: Any]) ?? [:] { all[k] = (v as? Int) ?? (v as? Bool).map { $0 ? 1 : 0 } }
        }
        #expect(keys["CFG_RATE_MEAS"] == 200)
        #expect(keys["CFG_NAVSPG_DYNMODEL"] == 4)
        #expect(keys["CFG_SIGNAL_GPS_ENA"] == 1 && keys["CFG_SIGNAL_GAL_ENA"] == 1)
        #expect(keys["CFG_SIGNAL_GLO_ENA"] == 0 && keys["CFG_SIGNAL_BDS_ENA"] == 0 && keys["CFG_SIGNAL_NAVIC_ENA"] == 0)

        let saved = try Lodestar.run(["receiver", "configure", "--gps", "\(receiver.link)@115200", "--rate", "2", "--save"])
        #expect(saved.status == 0, "\(saved.stderr)")
        sets = receiver.sets
        #expect(sets.count == 4)
        #expect((sets.last?["layers"] as? [String]) == ["ram", "bbr", "flash"], "\(sets.last ?? [:])")
    }

    @Test func generation8GetsCFGMessagesAndCFGCFGOnlyWithSave() throws {
        let dir = try TemporaryDirectory()
        let receiver = try ReceiverEmulator.Running(dir, generation: 8)
        let r = try Lodestar.run(["receiver", "configure", "--gps", "\(receiver.link)@9600"] + Self.settings + ["--messages", "rmc,gsv=0"])
        #expect(r.status == 0, "\(r.stderr)")
        var sets = receiver.sets
        let names = sets.compactMap { $0["message"] as? String }
        #expect(names == ["CFG-RATE", "CFG-NAV5", "CFG-GNSS", "CFG-MSG", "CFG-MSG"], "\(sets)")
        #expect(sets.first { $0["message"] as? String == "CFG-RATE" }?["measRate"] as? Int == 200)
        #expect(sets.first { $0["message"] as? String == "CFG-NAV5" }?["dynModel"] as? Int == 4)
        #expect(sets.first { $0["message"] as? String == "CFG-GNSS" }?["enabled"] as? [String] == ["galileo", "gps"])
        #expect(!names.contains("CFG-CFG"), "RAM only without --save")

        let saved = try Lodestar.run(["receiver", "configure", "--gps", "\(receiver.link)@9600", "--dynamic-model", "pedestrian", "--save"])
        #expect(saved.status == 0, "\(saved.stderr)")
        sets = receiver.sets
        let save = sets.last
        #expect(save?["message"] as? String == "CFG-CFG", "\(sets)")
        #expect((save?["layers"] as? [String])?.contains("devBBR") == true && (save?["layers"] as? [String])?.contains("devFlash") == true)
        // navic does not exist on generation 8: refused before anything is sent.
        let navic = try Lodestar.run(["receiver", "configure", "--gps", "\(receiver.link)@9600", "--constellations", "gps,navic"])
        #expect(navic.status == 76)
        #expect(navic.stderr.contains("navic needs u-blox generation 9"), "\(navic.stderr)")
    }

    @Test(arguments: [(9, "CFG_NAVSPG_DYNMODEL", "dynamic model automotive (CFG-NAVSPG-DYNMODEL 4)"),
                      (8, "CFG-NAV5", "dynamic model automotive (CFG-NAV5 dynModel 4)")])
    func aRefusedSettingIsNamedAndExits76(generation: Int, nak: String, named: String) throws {
        let dir = try TemporaryDirectory()
        let receiver = try ReceiverEmulator.Running(dir, generation: generation, extra: ["--nak", nak])
        let r = try Lodestar.run(["receiver", "configure", "--gps", "\(receiver.link)@115200"] + Self.settings)
        #expect(r.status == 76)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0] == "lodestar: the receiver refused \(named) (ACK-NAK)", "\(r.stderr)")
        // The steps before it were acknowledged; none after it was sent.
        #expect(r.stdout.contains("acknowledged: rate 5 Hz"))
        #expect(receiver.sets.last?["acked"] as? Bool == false)
    }

    @Test func aSettingNeverAcknowledgedIsNamedAndExits76() throws {
        let dir = try TemporaryDirectory()
        let receiver = try ReceiverEmulator.Running(dir, generation: 9, extra: ["--ignore", "CFG_RATE_MEAS"])
        let r = try Lodestar.run(["receiver", "configure", "--gps", "\(receiver.link)@115200", "--rate", "10"])
        #expect(r.status == 76)
        #expect(r.stderr == "lodestar: the receiver did not acknowledge rate 10 Hz (CFG-RATE-MEAS 100 ms) (no ACK-ACK or ACK-NAK in time)\n",
                "\(r.stderr)")
        #expect(receiver.entries.filter { $0["event"] as? String == "ignored" }.count == 2, "sent twice before giving up")
    }

    @Test(arguments: [["--rate", "fast"], ["--rate", "0"], ["--rate", "100"], ["--constellations", "gps,galaxy"],
                      ["--constellations", ""], ["--dynamic-model", "car"], ["--messages", "nav-xyz"], ["--messages", "gga=300"],
                      ["--baud", "12345"], []])
    func badValuesAreOneLineAndExit64(arguments: [String]) throws {
        let r = try Lodestar.run(["receiver", "configure", "--gps", "/dev/null@9600"] + arguments)
        #expect(r.status == 64)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("lodestar: "), "\(r.stderr)")
    }

    /// The config file's `receiver-*` settings are applied when `run` opens the receiver, and again after a replug
    /// (the emulator forgets its RAM settings); fixes then arrive at the configured 5 Hz.
    @Test func runAppliesTheConfigFileSettingsAtOpenAndAfterAReplug() throws {
        let dir = try TemporaryDirectory()
        let receiver = try ReceiverEmulator.Running(dir, generation: 9)
        let config = try dir.write("lodestar.conf", """
            gps = \(receiver.link)@115200
            receiver-rate = 5
            receiver-dynamic-model = automotive
            no-sky = true
            no-smoothing = true

            """)
        let process = try SpawnedProcess(Lodestar.binary, ["run", "--config", config],
                                         stdoutPath: dir.path("out"), stderrPath: dir.path("err"))
        func rateSets(_ entries: [[String: Any]]) -> Int {
            entries.filter { ($0["keys"] as? [String: Any])?["CFG_RATE_MEAS"] as? Int == 200 }.count
        }
        #expect(receiver.waitFor(timeout: 20) { rateSets($0) == 1 }, "run did not set the rate: \(receiver.entries)")
        #expect(receiver.waitFor(timeout: 10) { $0.contains { ($0["keys"] as? [String: Any])?["CFG_NAVSPG_DYNMODEL"] as? Int == 4 } })
        let firstFixes = Self.waitForFixes(dir.path("out"), atLeast: 8, timeout: 10)
        receiver.replug()
        #expect(receiver.waitFor(timeout: 10) { $0.contains { $0["event"] as? String == "replug" } })
        #expect(receiver.waitFor(timeout: 20) { rateSets($0) == 2 }, "the rate was not applied again after the replug: \(receiver.entries)")
        let allFixes = Self.waitForFixes(dir.path("out"), atLeast: firstFixes.count + 8, timeout: 10)
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 5) == 143)
        #expect(receiver.sets.allSatisfy { ($0["layers"] as? [String]) == ["ram"] }, "run writes RAM only")
        let err = try String(contentsOfFile: dir.path("err"), encoding: .utf8)
        #expect(err.components(separatedBy: "receiver configured: rate 5 Hz, dynamic model automotive").count - 1 == 2, "\(err)")
        // At 5 Hz: consecutive fixes 0.2 s apart (after each configuration).
        let times = allFixes.compactMap(Self.fixSeconds)
        let steps = zip(times, times.dropFirst()).map { $1 - $0 }
        let fifths = steps.filter { abs($0 - 0.2) < 0.01 }.count
        #expect(fifths >= 12, "fix intervals \(steps)")
        #expect(allFixes.count >= firstFixes.count + 8)
    }

    static func waitForFixes(_ path: String, atLeast n: Int, timeout: Double) -> [Substring] {
        let deadline = Date().addingTimeInterval(timeout)
        var fixes: [Substring] = []
        while Date() < deadline {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            fixes = text.split(separator: "\n").filter { $0.hasPrefix("{\"class\":\"fix\"") }
            if fixes.count >= n { break }
            usleep(20_000)
        }
        return fixes
    }

    /// Seconds within the day of a fix's `"time":"…T12:34:56.200Z"`.
    static func fixSeconds(_ line: Substring) -> Double? {
        guard let r = line.range(of: "\"time\":\"") else { return nil }
        let t = line[r.upperBound...].prefix(24)   // 2026-11-26T18:55:13.800Z
        guard t.count == 24 else { return nil }
        let clock = t.dropFirst(11).prefix(12).split(separator: ":")
        guard clock.count == 3, let h = Double(clock[0]), let m = Double(clock[1]), let s = Double(clock[2]) else { return nil }
        return h * 3600 + m * 60 + s
    }
}
