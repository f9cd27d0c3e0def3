import NMEA
import Testing
import TestSupport
@testable import UBX

/// What the framer handed out, in order: NMEA text, UBX "class-id:payload-length", RTCM3 "rtcm:length".
func frameLog(_ chunks: [[UInt8]], options: MixedStreamFramer.Options = .default) -> (frames: [String], stats: MixedStreamStatistics, nmea: NMEAStatistics) {
    let framer = MixedStreamFramer(options: options)
    var out: [String] = []
    let handle: (MixedStreamFramer.Frame) -> Void = { f in
        switch f {
        case .nmea(let s): out.append(s.text)
        case .ubx(let u): out.append("ubx \(u.classID)-\(u.messageID):\(u.payload.count):\(Array(u.payload).reduce(0) { $0 &+ Int($1) })")
        case .rtcm3(let r): out.append("rtcm \(r.bytes.count) \(r.messageNumber ?? -1)")
        }
    }
    for c in chunks { framer.feed(c, handle) }
    framer.finish(handle)
    return (out, framer.statistics, framer.nmea.statistics)
}

func chunked(_ bytes: [UInt8], seed: UInt64, maximum: Int) -> [[UInt8]] {
    var rng = SplitMix64(seed: seed)
    var out: [[UInt8]] = []
    var i = 0
    while i < bytes.count {
        let n = 1 + Int(rng.next() % UInt64(maximum))
        out.append(Array(bytes[i..<min(bytes.count, i + n)]))
        i += n
    }
    return out
}

/// A mixed stream: NMEA, UBX frames whose payloads hold `$`, CR and LF, RTCM3 frames, and more NMEA.
func mixedStream() -> [UInt8] {
    let gga = Array("$GPGGA,085001.00,3454.3735960,S,13836.4871940,E,2,00,,28.85,M,-1.662,M,,*4A\r\n".utf8)
    let rmc = Array("$GPRMC,085001.00,A,3454.3735960,S,13836.4871940,E,0.0311,31.472,190717,7.9,E*4D\r\n".utf8)
    let tricky = UBX.frame(classID: 0x01, messageID: 0x61, payload: [0x24, 0x0A, 0x0D, 0x24])!  // "$\n\r$"
    let pvtPayload = (0..<92).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 0x24) }
    let pvt = UBX.frame(classID: 0x01, messageID: 0x07, payload: pvtPayload)!
    let rtcm = RTCM3.frame(payload: [0x3E, 0xD0, 0x00, 0x03, 0x8A, 0x0A, 0x24, 0x0D, 0x0A])!  // message 1005
    let ver = UBX.frame(classID: 0x0A, messageID: 0x04, payload: Array(repeating: 0x41, count: 40))!
    return gga + tricky + rmc + pvt + rtcm + gga + ver + rtcm + rmc
}

@Suite struct UBXFramingTests {
    @Test func checksumAndBuilderAgreeWithTheInterfaceDescription() {
        // UBX-MON-VER poll: B5 62 0A 04 00 00 0E 34 (u-blox interface description example).
        #expect(UBX.poll(classID: 0x0A, messageID: 0x04) == [0xB5, 0x62, 0x0A, 0x04, 0x00, 0x00, 0x0E, 0x34])
        let m = UBXMessage(classID: 0x06, messageID: 0x8A, payload: [0, 1, 0, 0, 0x21, 0x00, 0x11, 0x20, 0x08])
        #expect(UBXMessage(framed: m.framed!) == m)
        #expect(m.name == "CFG-VALSET")
        #expect(UBXMessage(framed: [0xB5, 0x62, 0x0A, 0x04, 0x00, 0x00, 0x0E, 0x35]) == nil)
    }

    /// The sixteen-bytes-at-a-time checksum against the definition, byte by byte: every length up to 300 (the
    /// bytes after the last whole block), every start offset within a block, all-0xFF (every sum wraps) and
    /// random bytes.
    @Test func blockChecksumEqualsTheBytewiseDefinition() {
        var state: UInt64 = 7
        let random = (0..<320).map { _ -> UInt8 in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        for bytes in [random, [UInt8](repeating: 0xFF, count: 320), [UInt8](repeating: 0, count: 320)] {
            bytes.withUnsafeBufferPointer { all in
                for offset in 0..<16 {
                    for n in 0...300 {
                        let slice = UnsafeBufferPointer(rebasing: all[offset..<(offset + n)])
                        let block = UBX.checksum(slice), bytewise = UBX.checksumBytewise(slice)
                        #expect(block == bytewise, "offset \(offset), \(n) bytes")
                        if block != bytewise { return }
                    }
                }
            }
        }
    }

    @Test func rtcm3CRCMatchesTheStandardExample() {
        // RTCM 10403 type 1005 example (rtcm3.log in gpsd): D3 00 13 3E D7 D3 02 02 98 0E DE EF 34 B4 BD 62 AC 09 41 98 6F 33 36 0B 98
        let frame: [UInt8] = [0xD3, 0x00, 0x13, 0x3E, 0xD7, 0xD3, 0x02, 0x02, 0x98, 0x0E, 0xDE, 0xEF, 0x34, 0xB4, 0xBD,
                              0x62, 0xAC, 0x09, 0x41, 0x98, 0x6F, 0x33, 0x36, 0x0B, 0x98]
        let crc = frame.withUnsafeBufferPointer { RTCM3.crc24q(UnsafeBufferPointer(rebasing: $0[0..<22])) }
        #expect(crc == 0x360B98)
        let log = frameLog([frame])
        #expect(log.frames == ["rtcm 25 1005"])
    }

    @Test func mixedStreamIsSplitOnceWhateverTheChunking() {
        let bytes = mixedStream()
        let whole = frameLog([bytes])
        #expect(whole.frames.count == 9)
        #expect(whole.frames.filter { $0.hasPrefix("$") }.count == 4)
        #expect(whole.frames.filter { $0.hasPrefix("ubx") }.count == 3)
        #expect(whole.frames.filter { $0.hasPrefix("rtcm") }.count == 2)
        #expect(whole.stats.ubxFramesByClassName.map(\.name) == ["NAV", "MON"])
        #expect(whole.nmea.garbageBytes == 0 && whole.nmea.totalRejected == 0, "no binary byte leaked into the NMEA framer")
        let byteByByte = frameLog(bytes.map { [$0] })
        #expect(byteByByte.frames == whole.frames)
        #expect(byteByByte.stats == whole.stats)
        for seed in UInt64(1)...40 {
            let random = frameLog(chunked(bytes, seed: seed, maximum: 1 + Int(seed % 97)))
            #expect(random.frames == whole.frames, "seed \(seed)")
            #expect(random.stats == whole.stats && random.nmea == whole.nmea, "seed \(seed)")
        }
    }

    @Test func corruptChecksumIsCountedSkippedAndResynchronised() {
        var bytes = mixedStream()
        let good = frameLog([bytes])
        // Corrupt the first UBX frame's CK_B (the tricky NAV-EOE after the first GGA).
        bytes[bytes.firstIndex(of: 0xB5)! + 11] ^= 0xFF
        let whole = frameLog([bytes])
        #expect(whole.stats.ubxBadChecksums == 1)
        #expect(whole.frames.filter { $0.hasPrefix("ubx") }.count == 2)
        #expect(whole.frames.filter { $0.hasPrefix("$GPRMC") }.count == 2, "the RMC after the bad frame is still found")
        #expect(whole.frames.count == good.frames.count - 1)
        for seed in UInt64(1)...20 {
            let random = frameLog(chunked(bytes, seed: seed, maximum: 13))
            #expect(random.frames == whole.frames && random.stats == whole.stats, "seed \(seed)")
        }
        #expect(frameLog(bytes.map { [$0] }).frames == whole.frames)
    }

    @Test func impossibleLengthAndTruncatedFrameAreCounted() {
        let rmc = Array("$GPRMC,085001.00,A,3454.3735960,S,13836.4871940,E,0.0311,31.472,190717,7.9,E*4D\r\n".utf8)
        let huge: [UInt8] = [0xB5, 0x62, 0x01, 0x07, 0xFF, 0xFF]
        let log = frameLog([huge + rmc], options: MixedStreamFramer.Options(maximumUBXPayloadLength: 4096))
        #expect(log.stats.ubxImpossibleLengths == 1)
        #expect(log.frames.count == 1 && log.frames[0].hasPrefix("$GPRMC"))
        let pvt = UBX.frame(classID: 0x01, messageID: 0x07, payload: Array(repeating: 0, count: 92))!
        let cut = frameLog([rmc + Array(pvt.prefix(50))])
        #expect(cut.stats.truncatedFrames == 1)
        #expect(cut.frames.count == 1)
    }

    @Test func randomBytesNeverTrapAndMemoryStaysBounded() {
        var rng = SplitMix64(seed: 99)
        var bytes = (0..<200_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        // Plant sync bytes often.
        for i in stride(from: 0, to: bytes.count - 2, by: 97) { bytes[i] = 0xB5; bytes[i + 1] = 0x62 }
        for i in stride(from: 50, to: bytes.count - 2, by: 89) { bytes[i] = 0xD3; bytes[i + 1] = 0x00 }
        let a = frameLog([bytes])
        let b = frameLog(chunked(bytes, seed: 5, maximum: 700))
        #expect(a.frames == b.frames && a.stats == b.stats)
    }

    @Test func pureNMEAGoesToTheNMEAFramerUnchanged() {
        let text = Array("garbage$GPGGA,085001.00,3454.3735960,S,13836.4871940,E,2,00,,28.85,M,-1.662,M,,*4A\r\n$GPXXX,1*00\r\n".utf8)
        let plain = NMEAFramer()
        var plainOut: [String] = []
        plain.feed(text) { plainOut.append($0.text) }
        let mixed = frameLog([text])
        #expect(mixed.frames == plainOut)
        #expect(mixed.nmea == plain.statistics)
        #expect(mixed.stats.isEmpty)
    }
}
