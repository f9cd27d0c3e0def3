import Foundation
import LocationCore
import NMEA
import Testing
import TestSupport

/// A u-blox receiver speaking UBX (NAV-PVT, NAV-EOE, MON-HW) mixed with NMEA on a real pseudo-terminal: `lodestar
/// run` decodes it live, records the raw bytes, and the replay of that capture prints the same bytes. The frames are
/// built here from the u-blox interface description (field offsets, Fletcher checksum), independently of the decoder.
@Suite("u-blox UBX live and in replay", .serialized, .ownThreads)
struct UBXLiveCLITests {
    static func frame(_ cls: UInt8, _ id: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var body: [UInt8] = [cls, id, UInt8(payload.count & 0xFF), UInt8(payload.count >> 8)] + payload
        var a: UInt8 = 0, b: UInt8 = 0
        for x in body { a = a &+ x; b = b &+ a }
        body += [a, b]
        return [0xB5, 0x62] + body
    }

    static func put<T: FixedWidthInteger>(_ p: inout [UInt8], _ offset: Int, _ v: T) {
        withUnsafeBytes(of: v.littleEndian) { for (i, x) in $0.enumerated() { p[offset + i] = x } }
    }

    /// NAV-PVT at 2026-05-26 12:00:i UTC, 3D fix, RTK float from epoch 6 on; hAcc grows with i.
    static func navPVT(_ i: Int) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: 92)
        put(&p, 0, UInt32(216_018_000 + i * 1000))   // iTOW, ms into the GPS week (Tuesday 12:00:18 GPS)
        put(&p, 4, UInt16(2026)); p[6] = 5; p[7] = 26; p[8] = 12; p[9] = 0; p[10] = UInt8(i)
        p[11] = 0x07                                  // validDate | validTime | fullyResolved
        put(&p, 12, UInt32(21))                       // tAcc 21 ns
        p[20] = 3                                     // 3D
        p[21] = 0x01 | (i >= 6 ? 0x40 : 0)            // gnssFixOK, carrSoln = float from epoch 6
        p[23] = 14                                    // numSV
        put(&p, 24, Int32(115_183_333 + i * 10))      // lon 11.5183333°
        put(&p, 28, Int32(481_173_000 + i * 40))      // lat 48.1173°, moving north
        put(&p, 32, Int32(592_300)); put(&p, 36, Int32(545_400))
        put(&p, 40, UInt32(400 + i * 10))             // hAcc mm
        put(&p, 44, UInt32(700))                      // vAcc mm
        put(&p, 48, Int32(450)); put(&p, 52, Int32(30)) // velN, velE mm/s
        put(&p, 60, Int32(451))                       // gSpeed mm/s
        put(&p, 64, Int32(381_000))                   // headMot 3.81°
        put(&p, 68, UInt32(120))                      // sAcc mm/s
        put(&p, 72, UInt32(1_500_000))                // headAcc 15°
        put(&p, 76, UInt16(120))                      // pDOP 1.20
        return frame(0x01, 0x07, p)
    }

    static func navEOE(_ i: Int) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: 4)
        put(&p, 0, UInt32(216_018_000 + i * 1000))
        return frame(0x01, 0x61, p)
    }

    /// MON-HW (u-blox 8 layout, 60 bytes): antenna ok; jamming "warning" (state 2) from epoch 4 on, jamInd 140.
    static func monHW(_ i: Int) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: 60)
        p[20] = 2                                     // aStatus OK
        p[22] = UInt8((i >= 4 ? 2 : 1) << 2)          // jammingState
        p[45] = i >= 4 ? 140 : 10                     // jamInd
        return frame(0x0A, 0x09, p)
    }

    static func epoch(_ i: Int) -> [UInt8] {
        // An NMEA sentence between binary frames, as a receiver with both protocols enabled sends.
        monHW(i) + navPVT(i) + Array(NMEAEncoder.sentence("GNTXT,01,01,02,u-blox AG - www.u-blox.com").utf8) + navEOE(i)
    }

    @Test func runDecodesUBXAndTheReplayOfItsCapturePrintsTheSameBytes() throws {
        let pty = try PseudoTerminal()
        let dir = try TemporaryDirectory()
        let capture = dir.path("ubx.lcap")
        let process = try SpawnedProcess(Lodestar.binary, ["run", "--gps", "\(pty.slavePath)@115200", "--no-sky",
                                                           "--no-smoothing", "--record", capture],
                                         stdoutPath: dir.path("out"), stderrPath: dir.path("err"))
        process.waitUntilOpen(pty.slavePath)
        for i in 0..<10 {
            // Split each epoch in two writes at an odd place: a frame crosses reads.
            let bytes = Self.epoch(i)
            _ = pty.write(Array(bytes[..<37])); usleep(5_000); _ = pty.write(Array(bytes[37...]))
            usleep(30_000)
        }
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            let n = ((try? String(contentsOfFile: dir.path("out"), encoding: .utf8)) ?? "").components(separatedBy: "\"class\":\"fix\"").count - 1
            if n >= 10 { break }
            usleep(20_000)
        }
        process.signal(SIGTERM)
        #expect(process.wait(timeout: 5) == 143)
        let live = try String(contentsOfFile: dir.path("out"), encoding: .utf8)
        let fixes = live.split(separator: "\n").filter { $0.hasPrefix("{\"class\":\"fix\"") }
        #expect(fixes.count == 10, "\(live)")
        // The receiver's own figures, as sent.
        #expect(fixes.first?.contains("\"time\":\"2026-05-26T12:00:00.000Z\"") == true, "\(fixes.first ?? "")")
        #expect(fixes.first?.contains("\"latitudeDegrees\":48.117300000") == true)
        #expect(fixes.first?.contains("\"horizontalAccuracyMeters\":0.400") == true)
        #expect(fixes.first?.contains("\"verticalAccuracyMeters\":0.700") == true)
        #expect(fixes.first?.contains("\"speedAccuracyMetersPerSecond\":0.120") == true)
        #expect(fixes.first?.contains("\"courseAccuracyDegrees\":15.000") == true)
        #expect(fixes.last?.contains("\"quality\":\"rtkFloat\"") == true, "\(fixes.last ?? "")")
        #expect(fixes.last?.contains("\"jamming\":\"warning\"") == true)
        #expect(fixes.last?.contains("\"antenna\":\"ok\"") == true)
        #expect(live.contains("\"class\":\"status\"") && live.contains("jamming"), "a status announces the jamming")
        let err = try String(contentsOfFile: dir.path("err"), encoding: .utf8)
        #expect(err.contains("NAV"), "the summary counts UBX messages by class: \(err)")

        // Replay of the capture: the same bytes.
        let replay = try Lodestar.run(["replay", "--no-sky", "--no-smoothing", capture])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout == live, "replay differs from live")
        if replay.stdout != live {
            let a = live.split(separator: "\n"), b = replay.stdout.split(separator: "\n")
            if let i = a.indices.first(where: { $0 < b.count && a[$0] != b[$0] }) {
                Issue.record("first difference at line \(i):\nlive:   \(a[i])\nreplay: \(b[i])")
            } else {
                Issue.record("live \(a.count) lines, replay \(b.count) lines")
            }
        }
    }
}
