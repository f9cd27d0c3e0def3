import Foundation
import NetworkOutput
import LocationCore
import Testing
import TestSupport

@Suite("chrony SOCK refclock", .serialized, .ownThreads)
struct ChronyTests {
    @Test func sampleIsFixTimeMinusReceiveTime() {
        var l = Location()
        l.mode = .threeD
        l.time = Timestamp(nanosecondsSince1970: 1_700_000_000_000_000_000)
        l.receiveTime = Timestamp(nanosecondsSince1970: 1_700_000_000_123_456_789)
        let s = ChronySOCKSink.sample(for: l)
        #expect(s?.tvSec == 1_700_000_000 && s?.tvUsec == 123_456)
        #expect(abs((s?.offset ?? 0) + 0.123_456) < 1e-9)
        l.mode = .noFix
        #expect(ChronySOCKSink.sample(for: l) == nil)
        #expect(PPSToChrony.pulseOffset(nanoseconds: 2_000_000) == -0.002)
        #expect(abs(PPSToChrony.pulseOffset(nanoseconds: 999_000_000) - 0.001) < 1e-12)
    }

    /// chronyd -x (the clock is not touched) with the test's own config, fed by `lodestar run` on a pseudo-terminal
    /// receiver that sends the current time every second: `chronyc -n sources` lists the SOCK refclock with samples.
    @Test(.enabled(if: Tools.chronyd != nil && Tools.chronyc != nil, "chrony is not installed (apt install chrony)"))
    func chronydReceivesSamples() throws {
        let dir = try TemporaryDirectory()
        chmod(dir.path(""), 0o700)  // chronyd refuses a command socket in a directory others can enter
        let sock = dir.path("nmea.sock"), cmd = dir.path("chronyd.sock")
        let conf = try dir.write("chrony.conf", """
            refclock SOCK \(sock) refid NMEA poll 0 filter 2
            cmdport 0
            bindcmdaddress \(cmd)
            pidfile \(dir.path("chronyd.pid"))
            driftfile \(dir.path("drift"))
            """)
        let chronyd = try SpawnedProcess(Tools.chronyd!, ["-x", "-d", "-u", "root", "-f", conf],
                                         stdoutPath: dir.path("chronyd.out"), stderrPath: dir.path("chronyd.err"))
        defer { chronyd.stop() }
        let started = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: sock) && Date() < started { Thread.sleep(forTimeInterval: 0.05) }
        #expect(FileManager.default.fileExists(atPath: sock), "chronyd did not create \(sock)")

        let pty = try PseudoTerminal()
        let lodestar = try LodestarProcess(["run", "--gps", "\(pty.slavePath)@9600", "--no-smoothing", "--chrony-sock", sock], in: dir)
        lodestar.process.waitUntilOpen(pty.slavePath)
        func checksum(_ body: String) -> String { String(format: "$%@*%02X\r\n", body, body.utf8.reduce(UInt8(0), ^)) }
        var lastSources = ""
        for _ in 0..<10 {
            // 50 ms after the second, like a receiver.
            let now = Date().timeIntervalSince1970
            let next = floor(now) + 1.05
            Thread.sleep(forTimeInterval: next - now)
            let t = Date(timeIntervalSince1970: floor(next))
            let f = DateFormatter()
            f.timeZone = TimeZone(identifier: "UTC")
            f.dateFormat = "HHmmss"
            let hms = f.string(from: t) + ".00"
            f.dateFormat = "ddMMyy"
            let dmy = f.string(from: t)
            _ = pty.write(checksum("GPRMC,\(hms),A,5222.2000,N,00453.4000,E,0.0,,\(dmy),,,A")
                          + checksum("GPGGA,\(hms),5222.2000,N,00453.4000,E,1,08,0.9,10.0,M,47.0,M,,"))
        }
        Thread.sleep(forTimeInterval: 1.2)
        lastSources = try runTool(Tools.chronyc!, ["-h", cmd, "-n", "sources"], timeout: 10, in: dir).out
        let stats = try runTool(Tools.chronyc!, ["-h", cmd, "-n", "sourcestats"], timeout: 10, in: dir).out
        lodestar.process.signal(SIGINT)
        _ = lodestar.wait(timeout: 5)
        let row = lastSources.split(separator: "\n").first { $0.contains("NMEA") }.map(String.init) ?? ""
        let fields = row.split(separator: " ", omittingEmptySubsequences: true)
        // "#* NMEA 0 0 377 1 ...": the Reach column (octal) is non-zero.
        #expect(fields.count > 4 && (Int(fields[4], radix: 8) ?? 0) > 0, "sources:\n\(lastSources)\n\(lodestar.stderr)")
        let statRow = stats.split(separator: "\n").first { $0.hasPrefix("NMEA") }.map { $0.split(separator: " ") } ?? []
        #expect(statRow.count > 2 && (Int(statRow[1]) ?? 0) >= 3, "sourcestats:\n\(stats)")
        #expect(lodestar.stderr.contains("samples sent"), "\(lodestar.stderr)")
    }
}
