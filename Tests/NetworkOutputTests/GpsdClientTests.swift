import Foundation
import UBX
import Testing
import TestSupport

/// Lodestar's gpsd-protocol server (`replay --serve`) against gpsd 3.22's own clients on loopback.
@Suite("gpsd-protocol server with gpsd's clients", .serialized, .ownThreads)
struct GpsdClientTests {
    /// `gpspipe -w -n 50` receives exactly what `replay --output gpsd` prints for the same capture (after gpsd's
    /// VERSION/DEVICES/WATCH greeting), with TPV, SKY and ATT (with a heading) among them, lines in CR LF.
    @Test(.enabled(if: Tools.gpspipe != nil, "gpspipe is not installed (apt install gpsd-clients)"))
    func gpspipeJSONEqualsOwnOutput() throws {
        let dir = try TemporaryDirectory()
        let port = try GPSDProcess.freePort()
        let server = try LodestarProcess(["replay", "--serve", "127.0.0.1:\(port)", "--output", "gpsd", "--wait-clients", "1",
                                          "--quiet", simulatedDrive], in: dir)
        #expect(server.waitForPort(port), "server did not start: \(server.stderr)")
        let pipe = try runTool(Tools.gpspipe!, ["-w", "-n", "200", "127.0.0.1:\(port)"], timeout: 30, in: dir)
        #expect(pipe.status == 0, "\(pipe.err)")
        #expect(server.wait(timeout: 60) == 0, "\(server.stderr)")
        let own = server.stdout.split(whereSeparator: \.isNewline).map(String.init)
        let served = pipe.out.split(whereSeparator: \.isNewline).map(String.init)
        let bytes = Array(server.stdout.utf8)
        let lineFeeds = bytes.indices.filter { bytes[$0] == 0x0A }
        #expect(!lineFeeds.isEmpty && lineFeeds.allSatisfy { $0 > 0 && bytes[$0 - 1] == 0x0D }, "gpsd JSON lines end in CR LF")
        let greeting = served.prefix(3).map { jsonObjects($0).first?["class"] as? String ?? "" }
        #expect(greeting == ["VERSION", "DEVICES", "WATCH"])
        let body = Array(served.dropFirst(3))
        #expect(body.count == 197)
        #expect(Array(own.prefix(body.count)) == body, "served objects differ from replay --output gpsd")
        let objects = body.flatMap(jsonObjects)
        let classes = Set(objects.compactMap { $0["class"] as? String })
        #expect(classes.isSuperset(of: ["TPV", "SKY", "ATT"]))
        #expect(objects.allSatisfy { ($0["device"] as? String) == "simulated" })  // the capture header's receiver device
        #expect(objects.contains { $0["class"] as? String == "ATT" && $0["heading"] is Double })
    }

    /// `gpspipe -r` (`?WATCH={"raw":1}`) receives NMEA with valid checksums.
    @Test(.enabled(if: Tools.gpspipe != nil, "gpspipe is not installed (apt install gpsd-clients)"))
    func gpspipeRawGetsNMEA() throws {
        let dir = try TemporaryDirectory()
        let port = try GPSDProcess.freePort()
        let server = try LodestarProcess(["replay", "--serve", "\(port)", "--wait-clients", "1", "--quiet", simulatedDrive], in: dir)
        #expect(server.waitForPort(port), "server did not start: \(server.stderr)")
        let pipe = try runTool(Tools.gpspipe!, ["-r", "-n", "600", "127.0.0.1:\(port)"], timeout: 30, in: dir)
        let sentences = pipe.out.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { $0.hasPrefix("$") }
        #expect(sentences.count >= 50)
        for s in sentences {
            let star = s.lastIndex(of: "*")!
            let sum = s[s.index(after: s.startIndex)..<star].utf8.reduce(UInt8(0), ^)
            #expect(String(format: "%02X", sum) == s[s.index(after: star)...], "\(s)")
            #expect(s.utf8.count + 2 <= 82, "\(s)")
        }
        #expect(sentences.contains { $0.hasPrefix("$GPRMC") } && sentences.contains { $0.hasPrefix("$GPGGA") })
        #expect(sentences.contains { $0.hasPrefix("$HCHDT") })
    }

    /// Python's gps client (python3-gps 3.22) reads mode, lat, lon and track; it only decodes CR LF lines.
    @Test(.enabled(if: Tools.python != nil, "python3-gps is not installed (apt install python3-gps)"))
    func pythonGPSClient() throws {
        let dir = try TemporaryDirectory()
        let port = try GPSDProcess.freePort()
        let server = try LodestarProcess(["replay", "--serve", "127.0.0.1:\(port)", "--output", "gpsd", "--wait-clients", "1",
                                          "--quiet", simulatedDrive], in: dir)
        #expect(server.waitForPort(port), "server did not start: \(server.stderr)")
        let script = try dir.write("client.py", """
            import gps, json, math
            def v(x): return None if isinstance(x, float) and math.isnan(x) else x
            s = gps.gps(host='127.0.0.1', port='\(port)', mode=gps.WATCH_ENABLE | gps.WATCH_JSON)
            n = 0
            while n < 60:
                if s.read() != 0: break
                if s.data.get('class') == 'TPV':
                    n += 1
                    print(json.dumps({'mode': s.fix.mode, 'lat': v(s.fix.latitude), 'lon': v(s.fix.longitude), 'track': v(s.fix.track)}))
            """)
        let run = try runTool(Tools.python!, [script], timeout: 30, in: dir)
        #expect(server.wait(timeout: 60) == 0)
        let got = jsonObjects(run.out)
        let own = jsonObjects(server.stdout).filter { $0["class"] as? String == "TPV" }
        #expect(got.count == 60, "\(run.err)")
        for (g, o) in zip(got, own) {
            #expect(g["mode"] as? Int == o["mode"] as? Int)
            #expect(abs((g["lat"] as? Double ?? 0) - (o["lat"] as? Double ?? 1)) < 1e-9)
            #expect(abs((g["lon"] as? Double ?? 0) - (o["lon"] as? Double ?? 1)) < 1e-9)
            if let t = o["track"] as? Double { #expect(abs((g["track"] as? Double ?? -1) - t) < 1e-4) }
        }
        #expect(got.contains { ($0["track"] as? Double).map { !$0.isNaN } ?? false })
    }

    /// cgps 3.22 under tmux shows a fix, satellites and DOPs for every gpsd regression log, without crashing.
    @Test(.enabled(if: Tools.cgps != nil && Tools.tmux != nil && SharedData.available,
                   "needs cgps, tmux and ../shared/data/nmea-gpsd"),
          arguments: SharedData.available ? SharedData.files(in: "nmea-gpsd", suffix: ".log") : [])
    func cgpsShowsFixSatellitesAndDOPs(log: String) throws {
        let dir = try TemporaryDirectory()
        let port = try GPSDProcess.freePort()
        let server = try LodestarProcess(["replay", "--serve", "127.0.0.1:\(port)", "--wait-clients", "1", "--linger", "4",
                                          "--quiet", "--output", "gpsd", log], in: dir)
        #expect(server.waitForPort(port), "server did not start: \(server.stderr)")
        let socket = "lodestar-\(port)"
        let session = "cgps"
        _ = try runTool(Tools.tmux!, ["-L", socket, "new-session", "-d", "-s", session, "-x", "100", "-y", "60",
                                      "\(Tools.cgps!) 127.0.0.1:\(port); echo CGPS-EXIT=$?; sleep 10"], timeout: 5, in: dir)
        defer { _ = try? runTool(Tools.tmux!, ["-L", socket, "kill-server"], timeout: 5, in: dir) }
        Thread.sleep(forTimeInterval: 2.5)
        let pane = try runTool(Tools.tmux!, ["-L", socket, "capture-pane", "-p", "-t", session], timeout: 5, in: dir).out
        let name = URL(fileURLWithPath: log).lastPathComponent
        #expect(!pane.contains("CGPS-EXIT"), "\(name): cgps exited:\n\(pane)")
        #expect(pane.contains("Status:"), "\(name):\n\(pane)")
        // What the replay sent last: cgps must show it.
        let own = jsonObjects(server.stdout)
        let hasFix = own.contains { $0["class"] as? String == "TPV" && ($0["mode"] as? Int ?? 0) >= 2 }
        let sky = own.last { $0["class"] as? String == "SKY" }
        if hasFix { #expect(pane.contains("FIX ("), "\(name): no fix shown:\n\(pane)") }
        if let sky {
            let seen = String(format: "Seen %2d/Used %2d", sky["nSat"] as? Int ?? -1, sky["uSat"] as? Int ?? -1)
            #expect(pane.contains(seen), "\(name): '\(seen)' not shown:\n\(pane)")
            if let h = sky["hdop"] as? Double {
                #expect(pane.contains(String(format: "(HDOP, CEP): %5.2f", h)), "\(name): HDOP \(h):\n\(pane)")
            }
        }
    }

    /// `lodestar run --serve` on a live pseudo-terminal receiver: gpspipe gets its fixes as they arrive.
    @Test(.enabled(if: Tools.gpspipe != nil, "gpspipe is not installed (apt install gpsd-clients)"))
    func runServesLiveFixes() throws {
        let dir = try TemporaryDirectory()
        let pty = try PseudoTerminal()
        let port = try GPSDProcess.freePort()
        let run = try LodestarProcess(["run", "--gps", "\(pty.slavePath)@9600", "--serve", "127.0.0.1:\(port)", "--no-smoothing",
                                       "--quiet"], in: dir)
        #expect(run.waitForPort(port), "\(run.stderr)")
        run.process.waitUntilOpen(pty.slavePath)
        let out = dir.path("pipe.json")
        let pipe = try SpawnedProcess(Tools.gpspipe!, ["-w", "-n", "8", "127.0.0.1:\(port)"], stdoutPath: out, stderrPath: out + ".err")
        #expect(waitForWatch(out), "gpspipe never got its WATCH")
        func sentence(_ body: String) -> String { String(format: "$%@*%02X\r\n", body, body.utf8.reduce(UInt8(0), ^)) }
        for i in 0..<8 {
            let hms = String(format: "1200%02d.00", i)
            _ = pty.write(sentence("GPRMC,\(hms),A,5222.2000,N,00453.4000,E,1.0,90.0,010625,,,A")
                          + sentence("GPGGA,\(hms),5222.2000,N,00453.4000,E,1,08,0.9,10.0,M,47.0,M,,"))
            Thread.sleep(forTimeInterval: 0.2)
        }
        _ = pipe.wait(timeout: 10)
        pipe.stop()
        run.process.signal(SIGTERM)
        #expect(run.wait(timeout: 10) == 143)
        let tpvs = jsonObjects((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").filter { $0["class"] as? String == "TPV" }
        #expect(tpvs.count >= 4)
        #expect(tpvs.allSatisfy { $0["device"] as? String == pty.slavePath && $0["mode"] as? Int == 3 })
        #expect(tpvs.allSatisfy { abs(($0["lat"] as? Double ?? 0) - 52.37) < 1e-9 && abs(($0["track"] as? Double ?? 0) - 90) < 1e-9 })
    }

    /// Socket activation (systemd/lodestar.socket): systemd's own `systemd-socket-activate` listens on the port and
    /// starts Lodestar with the listening socket when gpspipe connects (LISTEN_PID/LISTEN_FDS/LISTEN_FDNAMES=gpsd,
    /// as systemd passes it); gpspipe receives the same TPVs Lodestar prints.
    @Test(.enabled(if: Tools.gpspipe != nil && Tools.find("systemd-socket-activate") != nil,
                   "needs gpspipe and systemd-socket-activate (systemd)"))
    func socketActivationServesGpspipe() throws {
        let dir = try TemporaryDirectory()
        let port = try GPSDProcess.freePort()
        let activator = try SpawnedProcess(Tools.find("systemd-socket-activate")!,
                                           ["-l", "127.0.0.1:\(port)", "--fdname=gpsd", Lodestar.binary, "replay", "--serve", "systemd",
                                            "--output", "gpsd", "--wait-clients", "1", "--quiet", simulatedDrive],
                                           stdoutPath: dir.path("out"), stderrPath: dir.path("err"))
        defer { activator.stop() }
        let deadline = Date().addingTimeInterval(20)
        func activatorLog() -> String { (try? String(contentsOfFile: dir.path("err"), encoding: .utf8)) ?? "" }
        while !activatorLog().contains("Listening on") && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(activatorLog().contains("Listening on"), "\(activatorLog())")
        let pipe = try runTool(Tools.gpspipe!, ["-w", "-n", "20", "127.0.0.1:\(port)"], timeout: 30, in: dir)
        #expect(activator.wait(timeout: 60) == 0, "\(activatorLog())")
        let got = jsonObjects(pipe.out).filter { $0["class"] as? String == "TPV" }
        let own = jsonObjects((try? String(contentsOfFile: dir.path("out"), encoding: .utf8)) ?? "").filter { $0["class"] as? String == "TPV" }
        #expect(got.count >= 5, "gpspipe: \(pipe.out.prefix(500)) \(pipe.err)")
        #expect(own.count > got.count)
        for (g, o) in zip(got, own) {
            #expect(g["time"] as? String == o["time"] as? String)
            #expect(g["lat"] as? Double == o["lat"] as? Double)
            #expect(g["lon"] as? Double == o["lon"] as? Double)
        }
    }

    /// `--serve systemd` without a socket from systemd: one line, exit 69.
    @Test func serveSystemdWithoutASocketExits69() throws {
        let r = try Lodestar.run(["replay", "--serve", "systemd", simulatedDrive])
        #expect(r.status == 69)
        #expect(r.stderr == "lodestar: cannot serve on the sockets from systemd: systemd passed no listening socket named 'gpsd' "
                + "(LISTEN_FDS/LISTEN_FDNAMES): start the service through lodestar.socket\n", "\(r.stderr)")
    }
}

/// A u-blox receiver's stream served to gpsd's own client: once MON-VER identifies the receiver, gpspipe is sent a
/// `DEVICE` naming the driver and subtype, as gpsd does; TPVs carry the receiver's own hAcc as `eph` and its RTK
/// status.
@Suite("u-blox stream through the gpsd-protocol server", .serialized, .ownThreads)
struct UbxGpsdClientTests {
    static func ubxLog() -> [UInt8] {
        func text(_ s: String, _ n: Int) -> [UInt8] { Array(s.utf8.prefix(n)) + [UInt8](repeating: 0, count: max(0, n - s.utf8.count)) }
        var monver = text("EXT CORE 1.00 (0fa0ae)", 30) + text("00190000", 10)
        for e in ["ROM BASE 0x118B2060", "FWVER=HPG 1.32", "PROTVER=27.31", "MOD=ZED-F9P"] { monver += text(e, 30) }
        var out = UBX.frame(classID: 0x0A, messageID: 0x04, payload: monver)!
        for i in 0..<8 {
            var p = [UInt8](repeating: 0, count: 92)
            func put<T: FixedWidthInteger>(_ o: Int, _ v: T) { withUnsafeBytes(of: v.littleEndian) { for (k, x) in $0.enumerated() { p[o + k] = x } } }
            put(0, UInt32(216_018_000 + i * 1000))
            put(4, UInt16(2026)); p[6] = 5; p[7] = 26; p[8] = 12; p[9] = 0; p[10] = UInt8(i); p[11] = 0x07
            p[20] = 3; p[21] = 0x01 | 0x80; p[23] = 20   // 3D, RTK fixed
            put(24, Int32(152_120_432)); put(28, Int32(471_290_927))
            put(32, Int32(869_218)); put(36, Int32(826_560))
            put(40, UInt32(14)); put(44, UInt32(21))       // hAcc 14 mm, vAcc 21 mm
            out += UBX.frame(classID: 0x01, messageID: 0x07, payload: p)!
        }
        return out
    }

    @Test(.enabled(if: Tools.gpspipe != nil, "gpspipe is not installed (apt install gpsd-clients)"))
    func gpspipeIsToldTheDriverAndGetsTheReceiversAccuracy() throws {
        let dir = try TemporaryDirectory()
        let log = dir.path("f9p.ubx")
        try Data(Self.ubxLog()).write(to: URL(fileURLWithPath: log))
        let port = try GPSDProcess.freePort()
        let server = try LodestarProcess(["replay", "--serve", "127.0.0.1:\(port)", "--no-smoothing", "--no-sky",
                                          "--wait-clients", "1", "--quiet", log], in: dir)
        #expect(server.waitForPort(port), "server did not start: \(server.stderr)")
        let pipe = try runTool(Tools.gpspipe!, ["-w", "-n", "12", "127.0.0.1:\(port)"], timeout: 30, in: dir)
        #expect(pipe.status == 0, "\(pipe.err)")
        _ = server.wait(timeout: 60)
        let objects = pipe.out.split(whereSeparator: \.isNewline).flatMap { jsonObjects(String($0)) }
        let devices = objects.filter { $0["class"] as? String == "DEVICE" }
        #expect(devices.contains { $0["driver"] as? String == "u-blox"
                                   && $0["subtype"] as? String == "SW EXT CORE 1.00 (0fa0ae),HW 00190000"
                                   && ($0["subtype1"] as? String)?.contains("MOD=ZED-F9P") == true }, "\(devices)")
        let tpvs = objects.filter { $0["class"] as? String == "TPV" }
        #expect(tpvs.count >= 7)
        #expect(tpvs.allSatisfy { ($0["eph"] as? Double) == 0.014 && ($0["epv"] as? Double) == 0.021 && $0["status"] as? Int == 3 },
                "\(tpvs.first ?? [:])")
    }
}
