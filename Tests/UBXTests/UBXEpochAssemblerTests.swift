import Foundation
import LocationCore
import NMEA
import Testing
import TestSupport
@testable import UBX

/// Little-endian payload writer for literal test messages.
struct PayloadWriter {
    var bytes: [UInt8]
    init(_ n: Int) { bytes = Array(repeating: 0, count: n) }
    mutating func u1(_ o: Int, _ v: Int) { bytes[o] = UInt8(truncatingIfNeeded: v) }
    mutating func u2(_ o: Int, _ v: Int) { for k in 0..<2 { bytes[o + k] = UInt8(truncatingIfNeeded: v >> (8 * k)) } }
    mutating func u4(_ o: Int, _ v: Int) { for k in 0..<4 { bytes[o + k] = UInt8(truncatingIfNeeded: v >> (8 * k)) } }
}

func decoded(_ classID: UInt8, _ messageID: UInt8, _ w: PayloadWriter) -> UBXDecoded {
    let outcome = w.bytes.withUnsafeBufferPointer { UBXDecoded.decode(classID: classID, messageID: messageID, payload: $0) }
    guard case .decoded(let d) = outcome else { fatalError("test payload does not decode: \(classID)-\(messageID)") }
    return d
}

func pvt(iTOW: Int, second: Int, carrier: Int = 0) -> UBXDecoded {
    var w = PayloadWriter(92)
    w.u4(0, iTOW); w.u2(4, 2024); w.u1(6, 6); w.u1(7, 1); w.u1(8, 12); w.u1(9, 0); w.u1(10, second); w.u1(11, 0x07)
    w.u4(12, 30); w.u4(16, -400); w.u1(20, 3); w.u1(21, 0x01 | 0x02 | carrier << 6); w.u1(23, 14)
    w.u4(24, 1_381_234_567); w.u4(28, -349_062_266); w.u4(32, 25_378); w.u4(36, 28_849)
    w.u4(40, 1038); w.u4(44, 1603); w.u4(60, 16); w.u4(64, 3_147_180); w.u4(68, 170); w.u4(72, 1_602_000); w.u2(76, 146)
    return decoded(0x01, 0x07, w)
}

@Suite struct UBXEpochAssemblerTests {
    /// A NAV-PVT longer than 92 bytes (fields a later protocol appends) is a NAV-PVT, its extra bytes ignored, as
    /// gpsd decodes it and u-blox asks of parsers; nano may be ±1e9 (the protocol's range): 11:59:59 + 1e9 ns is
    /// 12:00:00.000, as gpsdecode prints it. (Both found on crafted frames by a check against pyubx2 and gpsdecode.)
    @Test func aLongerNAVPVTAndANanoOfOneSecondDecode() {
        var w = PayloadWriter(100)
        w.u4(0, 1000); w.u2(4, 2024); w.u1(6, 6); w.u1(7, 1); w.u1(8, 11); w.u1(9, 59); w.u1(10, 59); w.u1(11, 0x07)
        w.u4(16, 1_000_000_000); w.u1(20, 3); w.u1(21, 0x01); w.u1(23, 9)
        w.u4(24, 1_381_234_567); w.u4(28, -349_062_266); w.u4(40, 2500)
        for k in 92..<100 { w.u1(k, 0xAB) }
        var a = UBXEpochAssembler()
        var out: [UBXEpochAssembler.Output] = []
        a.add(decoded(0x01, 0x07, w)) { out.append($0) }
        a.finish { out.append($0) }
        guard case .epoch(.fix(let l))? = out.first else { Issue.record("no fix: \(out)"); return }
        #expect(l.time?.iso8601(fractionDigits: 3) == "2024-06-01T12:00:00.000Z")
        #expect(close(l.latitudeDegrees, -34.9062266) && close(l.longitudeDegrees, 138.1234567) && l.mode == .threeD)
        w.u4(16, -1_000_000_000)
        var b = UBXEpochAssembler()
        out = []
        b.add(decoded(0x01, 0x07, w)) { out.append($0) }
        b.finish { out.append($0) }
        guard case .epoch(.fix(let m))? = out.first else { Issue.record("no fix: \(out)"); return }
        #expect(m.time?.iso8601(fractionDigits: 3) == "2024-06-01T11:59:58.000Z")
        // Shorter than the 84 bytes of the oldest NAV-PVT: malformed, not read past its end.
        var short = PayloadWriter(80)
        short.u4(0, 1000)
        let outcome = short.bytes.withUnsafeBufferPointer { UBXDecoded.decode(classID: 0x01, messageID: 0x07, payload: $0) }
        if case .decoded = outcome { Issue.record("an 80-byte NAV-PVT decoded") }
    }

    @Test func oneEpochFromPVTDOPAndSATEmittedAtEOE() {
        var a = UBXEpochAssembler()
        var out: [UBXEpochAssembler.Output] = []
        a.add(pvt(iTOW: 1000, second: 5, carrier: 2)) { out.append($0) }
        var dop = PayloadWriter(18); dop.u4(0, 1000); dop.u2(12, 71); dop.u2(10, 128); dop.u2(6, 146)
        a.add(decoded(0x01, 0x04, dop)) { out.append($0) }
        var sat = PayloadWriter(8 + 12); sat.u4(0, 1000); sat.u1(5, 1); sat.u1(8, 0); sat.u1(9, 7); sat.u1(10, 39)
        sat.u1(11, 33); sat.u2(12, 94); sat.u4(16, 0x0F)
        a.add(decoded(0x01, 0x35, sat)) { out.append($0) }
        #expect(out.isEmpty)
        var eoe = PayloadWriter(4); eoe.u4(0, 1000)
        a.add(decoded(0x01, 0x61, eoe)) { out.append($0) }
        guard out.count == 2, case .epoch(.fix(let l)) = out[0], case .epoch(.sky(let s)) = out[1] else {
            Issue.record("expected a fix and a sky report, got \(out)"); return
        }
        #expect(l.time?.iso8601(fractionDigits: 3) == "2024-06-01T12:00:05.000Z", "nano −400 ns rounds to the millisecond")
        #expect(l.mode == .threeD && l.quality == .rtkFixed)
        #expect(close(l.latitudeDegrees, -34.9062266) && close(l.longitudeDegrees, 138.1234567))
        #expect(close(l.altitudeEllipsoidMeters, 25.378) && close(l.altitudeMSLMeters, 28.849) && close(l.geoidSeparationMeters, -3.471))
        #expect(close(l.horizontalAccuracyMeters, 1.038) && close(l.verticalAccuracyMeters, 1.603))
        #expect(close(l.speedMetersPerSecond, 0.016) && close(l.courseDegrees, 31.4718) && close(l.speedAccuracyMetersPerSecond, 0.17))
        #expect(close(l.courseAccuracyDegrees, 16.02) && close(l.timeAccuracySeconds, 30e-9) && l.satellitesUsed == 14)
        #expect(close(l.hdop, 0.71) && close(l.vdop, 1.28) && close(l.pdop, 1.46))
        #expect(l.leapSeconds == nil && l.integrity == nil && l.receiverHeadingDegrees == nil, "not reported: nil")
        #expect(s.satellites.count == 1 && s.satellites[0].svid == 7 && s.satellites[0].used && s.satellitesUsed == 1)
        #expect(s.time == l.time)
    }

    @Test func gpsTimeFromSOLAndTIMEGPSWithLeapSeconds() {
        var a = UBXEpochAssembler()
        var out: [Location] = []
        var sol = PayloadWriter(52)
        sol.u4(0, 494_575_000); sol.u4(4, -112_313); sol.u2(8, 1977); sol.u1(10, 2); sol.u1(11, 0xDF)
        sol.u4(12, 30544931); sol.u4(16, -596389099); sol.u4(20, 223305173); sol.u4(24, 366); sol.u1(47, 6)
        var tg = PayloadWriter(16); tg.u4(0, 494_575_000); tg.u2(8, 1977); tg.u1(10, 18); tg.u1(11, 7)
        for m in [decoded(0x01, 0x06, sol), decoded(0x01, 0x20, tg)] { a.add(m) { if case .epoch(.fix(let l)) = $0 { out.append(l) } } }
        a.finish { if case .epoch(.fix(let l)) = $0 { out.append(l) } }
        #expect(out.count == 1)
        #expect(out.first?.time?.iso8601(fractionDigits: 3) == "2017-12-01T17:22:37.000Z")
        #expect(out.first?.leapSeconds == 18 && out.first?.mode == .twoD && out.first?.quality == .dgps)
        #expect(close(out.first?.horizontalAccuracyMeters, 3.66), "NAV-SOL pAcc when nothing better")
    }

    @Test func integrityChangesAreReportedOnce() {
        var a = UBXEpochAssembler()
        var changes: [ReceiverIntegrity] = []
        var hw = PayloadWriter(60); hw.u1(20, 4); hw.u1(22, 2 << 2); hw.u1(45, 120)
        for _ in 0..<3 { a.add(decoded(0x0A, 0x09, hw)) { if case .integrity(let i) = $0 { changes.append(i) } } }
        #expect(changes.count == 1)
        #expect(changes.first?.jamming == .warning && changes.first?.antenna == .open && changes.first?.jammingIndicator == 120)
        var status = PayloadWriter(16); status.u4(0, 1000); status.u1(4, 3); status.u1(7, 2 << 3)
        a.add(decoded(0x01, 0x03, status)) { if case .integrity(let i) = $0 { changes.append(i) } }
        #expect(changes.last?.spoofing == .indicated && changes.count == 2)
    }

    /// NAV-PVT epochs at these seconds (iTOW = second × 1000) through one assembler: the fix times out, and the assembler.
    static func fixTimes(_ seconds: [Int]) -> (times: [String], assembler: UBXEpochAssembler) {
        var a = UBXEpochAssembler()
        var times: [String] = []
        let record: (UBXEpochAssembler.Output) -> Void = { if case .epoch(.fix(let l)) = $0 { times.append(l.time?.iso8601() ?? "nil") } }
        for s in seconds { a.add(pvt(iTOW: s * 1000, second: s), record) }
        a.finish(record)
        return (times, a)
    }

    @Test func iTOWChangeEndsTheEpochAndLateEpochsAreDropped() {
        let (times, a) = Self.fixTimes([1, 2, 1, 3])   // the second 1: late, behind an emitted fix
        #expect(times == ["2024-06-01T12:00:01.000Z", "2024-06-01T12:00:02.000Z", "2024-06-01T12:00:03.000Z"])
        #expect(a.staleEpochs == 1 && a.timeJumpsBack == 0)
    }

    /// An epoch up to 1 s behind the last fix is late (dropped, as above); further back the receiver's clock went back
    /// (a reset, a rollover, a looping feed): a new time base, output and counted, and the epochs after it go on.
    @Test func aJumpBackOfMoreThanASecondIsANewTimeBase() {
        let (times, a) = Self.fixTimes([5, 6, 5, 2, 3])   // 5 after 6: 1 s behind, late; 2: 4 s behind, the clock went back
        #expect(times == ["2024-06-01T12:00:05.000Z", "2024-06-01T12:00:06.000Z", "2024-06-01T12:00:02.000Z",
                          "2024-06-01T12:00:03.000Z"])
        #expect(a.staleEpochs == 1 && a.timeJumpsBack == 1)
    }
}

@Suite struct UBXHighPrecisionTests {
    @Test func hpposllhAddsItsHighPrecisionParts() {
        var w = PayloadWriter(36)
        w.u4(4, 8000); w.u4(8, 1_705_001_248); w.u4(12, -458_775_915); w.u4(16, 100_123); w.u4(20, 90_456)
        w.u1(24, 33); w.u1(25, -44); w.u1(26, 7); w.u1(27, -3); w.u4(28, 1415); w.u4(32, 2002)
        guard case .navHPPOSLLH(let h) = decoded(0x01, 0x14, w) else { Issue.record("no HPPOSLLH"); return }
        #expect(close(h.longitudeDegrees, 170.500124833, 1e-12) && close(h.latitudeDegrees, -45.877591544, 1e-12))
        #expect(close(h.heightMeters, 100.1237, 1e-9) && close(h.heightMSLMeters, 90.4557, 1e-9))
        #expect(close(h.horizontalAccuracyMeters, 0.1415, 1e-12) && close(h.verticalAccuracyMeters, 0.2002, 1e-12))
    }
}

/// The framed fast path (`add(frame:)`, which decodes the frequent messages straight into the epoch and rejects the
/// messages it does not decode before `UBXDecoded.decode`) against the general one (`add(UBXDecoded.decode(frame))`).
@Suite struct UBXFramedPathTests {
    /// `UBXDecoded.decodes` is exactly the set `decode` knows: every class and id, with an empty payload (known
    /// messages are then malformed or decoded, never unknown).
    @Test func decodesListsExactlyWhatDecodeKnows() {
        let empty = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        var known = 0
        for c in 0...255 {
            for m in 0...255 {
                let outcome = UBXDecoded.decode(classID: UInt8(c), messageID: UInt8(m), payload: empty)
                let knows = UBXDecoded.decodes(classID: UInt8(c), messageID: UInt8(m))
                #expect(knows == (outcome != .unknown), "class \(c) id \(m)")
                if knows { known += 1 }
            }
        }
        #expect(known == 23)
    }

    /// Every frame of gpsd's u-blox regression logs through both paths: the same outputs in the same order, the same
    /// count of unknown and malformed messages.
    @Test(.enabled(if: SharedData.available, Comment(rawValue: SharedData.skipMessage)))
    func framedPathEqualsTheDecodedPathOnGpsdLogs() throws {
        let logs = SharedData.files(in: "ubx-gpsd", suffix: ".log")
        #expect(logs.count >= 10)
        var frames = 0, unknown = 0, epochs = 0
        for path in logs {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            var fast = UBXEpochAssembler(), general = UBXEpochAssembler()
            var fastOut: [String] = [], generalOut: [String] = []
            var fastCounts = [UBXEpochAssembler.FrameOutcome: Int](), generalCounts = fastCounts
            MixedStreamFramer(options: .default).feed(bytes) { frame in
                guard case .ubx(let f) = frame else { return }
                frames += 1
                fastCounts[fast.add(frame: f) { fastOut.append(String(reflecting: $0)) }, default: 0] += 1
                if f.payload.isEmpty { generalCounts[.poll, default: 0] += 1; return }
                switch UBXDecoded.decode(f) {
                case .decoded(let m):
                    general.add(m) { generalOut.append(String(reflecting: $0)) }
                    generalCounts[.decoded, default: 0] += 1
                case .unknown: generalCounts[.unknown, default: 0] += 1
                case .malformed: generalCounts[.malformed, default: 0] += 1
                }
            }
            fast.finish { fastOut.append(String(reflecting: $0)) }
            general.finish { generalOut.append(String(reflecting: $0)) }
            #expect(fastOut == generalOut, "\(path)")
            #expect(fastCounts == generalCounts, "\(path)")
            unknown += fastCounts[.unknown] ?? 0
            epochs += fast.epochsEmitted
        }
        print("framed vs decoded path: \(logs.count) logs, \(frames) UBX frames (\(unknown) not decoded), \(epochs) fixes, identical")
        #expect(unknown > 0 && epochs > 100)
    }
}

/// A host's polls recorded in a log (u-center records what it sends): an empty frame is counted as a poll, not as a
/// malformed or unknown message, and the receiver's answer is decoded as usual.
@Suite struct UBXPollTests {
    static func frame(_ c: UInt8, _ m: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var b: [UInt8] = [0xB5, 0x62, c, m, UInt8(payload.count & 0xFF), UInt8(payload.count >> 8)] + payload
        var a: UInt8 = 0, k: UInt8 = 0
        for x in b[2...] { a = a &+ x; k = k &+ a }
        b += [a, k]
        return b
    }

    @Test func emptyFramesAreCountedAsPolls() {
        // MON-VER poll, then the answer (software, hardware, one extension); a CFG-PRT poll (a message not decoded).
        var answer = Array("ROM CORE 3.01 (107888)".utf8) + Array(repeating: 0, count: 8)
        answer += Array("00080000".utf8) + [0, 0]
        answer += Array("PROTVER=18.00".utf8) + Array(repeating: 0, count: 17)
        let bytes = Self.frame(0x0A, 0x04, []) + Self.frame(0x0A, 0x04, answer) + Self.frame(0x06, 0x00, [])
        var assembler = UBXEpochAssembler()
        var outcomes: [UBXEpochAssembler.FrameOutcome] = []
        var versions: [MonVER] = []
        MixedStreamFramer(options: .default).feed(bytes) { frame in
            guard case .ubx(let f) = frame else { return }
            outcomes.append(assembler.add(frame: f) { if case .version(let v) = $0 { versions.append(v) } })
        }
        #expect(outcomes == [.poll, .decoded, .poll])
        #expect(versions.first?.softwareVersion == "ROM CORE 3.01 (107888)" && versions.first?.generation == 8)
        var stats = MixedStreamStatistics()
        stats.pollRequests = 2
        #expect(stats.summary.hasSuffix("malformed 0, polls 2"))
    }
    /// An epoch whose NAV-PVT was lost (a bad checksum on a serial line) but whose NAV-POSLLH and NAV-TIMEGPS arrived:
    /// its position keeps the last epoch's fix type, as gpsd's fix keeps its mode; it was mode 0 ("no fix" to every
    /// gpsd client) on a ZED-F9P log with one NAV-PVT corrupted. Only for 2 s: after a longer gap the mode is unknown.
    @Test func aLostNAVPVTKeepsTheLastFixType() {
        func posllh(_ iTOW: Int) -> UBXDecoded {
            var w = PayloadWriter(28)
            w.u4(0, iTOW); w.u4(4, 1_381_234_567); w.u4(8, -349_062_266); w.u4(12, 25_378); w.u4(16, 28_849)
            w.u4(20, 1038); w.u4(24, 1603)
            return decoded(0x01, 0x02, w)
        }
        func timegps(_ iTOW: Int) -> UBXDecoded {
            var w = PayloadWriter(16); w.u4(0, iTOW); w.u2(8, 2317); w.u1(10, 18); w.u1(11, 7)
            return decoded(0x01, 0x20, w)
        }
        var a = UBXEpochAssembler()
        var fixes: [Location] = []
        let record: (UBXEpochAssembler.Output) -> Void = { if case .epoch(.fix(let l)) = $0 { fixes.append(l) } }
        for m in [pvt(iTOW: 1000, second: 1, carrier: 2), posllh(1000), timegps(1000),
                  posllh(2000), timegps(2000),          // NAV-PVT lost
                  posllh(5000), timegps(5000)] {         // and again, 3 s after the last fix type
            a.add(m, record)
        }
        a.finish(record)
        guard fixes.count == 3 else { Issue.record("expected 3 fixes, got \(fixes.count)"); return }
        #expect(fixes[1].mode == .threeD && fixes[1].quality == .rtkFixed)
        #expect(close(fixes[1].latitudeDegrees, -34.9062266) && close(fixes[1].horizontalAccuracyMeters, 1.038))
        #expect(fixes[2].mode == .unknown, "beyond 2 s the fix type is not carried")
        #expect(close(fixes[2].latitudeDegrees, -34.9062266), "the position is still reported")
        #expect(a.carriedFixTypes == 1)
    }
}
