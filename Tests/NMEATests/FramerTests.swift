import NMEA
import Testing
import TestSupport

/// Frames `input` fed in the given chunk sizes; returns the accepted sentences' text and the statistics.
func frame(_ input: [UInt8], chunks: [Int]? = nil, lenient: Bool = false) -> ([String], NMEAStatistics) {
    let framer = NMEAFramer(options: .init(acceptMissingChecksum: lenient))
    var out: [String] = []
    if let chunks {
        var i = 0
        var k = 0
        while i < input.count {
            let n = max(1, chunks[k % chunks.count])
            let end = min(input.count, i + n)
            framer.feed(Array(input[i..<end])) { out.append($0.text) }
            i = end
            k += 1
        }
    } else {
        framer.feed(input) { out.append($0.text) }
    }
    framer.finish { out.append($0.text) }
    return (out, framer.statistics)
}

func frame(_ text: String, lenient: Bool = false) -> ([String], NMEAStatistics) { frame(Array(text.utf8), lenient: lenient) }

@Suite("NMEA framer", .ownThreads)
struct FramerTests {
    static let gga = "$GPGGA,225308,4527.458,S,16709.165,E,1,05,2.1,14.7,M,1.1,M,,*53"
    static let rmc = "$GPRMC,225308,A,4527.458,S,16709.165,E,000.0,094.5,060601,024.1,E*6D"

    @Test func acceptsCleanSentencesWithAnyLineEnding() {
        for ending in ["\r\n", "\n", "\r", "\n\r"] {
            let (s, st) = frame(Self.gga + ending + Self.rmc + ending)
            #expect(s == [Self.gga, Self.rmc], "ending \(ending.debugDescription)")
            #expect(st.totalRejected == 0)
        }
    }

    @Test func skipsLeadingGarbageAndCountsIt() {
        let (s, st) = frame("\u{00}\u{FF}xyz" + Self.gga + "\r\n")
        #expect(s == [Self.gga])
        #expect(st.garbageBytes > 0)
        #expect(st.totalRejected == 0)
    }

    @Test func doubleDollarPrefixIsTolerated() {
        let (s, _) = frame("$" + Self.gga + "\r\n")
        #expect(s == [Self.gga])
    }

    @Test func collidingSentenceRejectsThePartialOne() {
        let (s, st) = frame("$GPGGA,225308,4527.4" + Self.rmc + "\r\n")
        #expect(s == [Self.rmc])
        #expect(st.count(.collision) == 1)
    }

    @Test func lowerCaseChecksumIsAccepted() {
        let lower = String(Self.gga.dropLast(2)) + "53".lowercased()
        let (s, st) = frame("$GPRMC,,V,,,,,,,,,,N*53\r\n" + lower + "\r\n")
        #expect(s.count == 2)
        #expect(st.totalRejected == 0)
    }

    @Test func badAndMissingChecksumsAreRejectedByReason() {
        let bad = String(Self.gga.dropLast(2)) + "54"
        let missing = String(Self.gga.dropLast(3))
        let malformed = String(Self.gga.dropLast(1))
        let (s, st) = frame(bad + "\r\n" + missing + "\r\n" + malformed + "\r\n")
        #expect(s.isEmpty)
        #expect(st.count(.badChecksum) == 1)
        #expect(st.count(.missingChecksum) == 1)
        #expect(st.count(.malformedChecksum) == 1)
    }

    @Test func lenientModeAcceptsChecksumlessButNeverABadChecksum() {
        let missing = String(Self.gga.dropLast(3))
        let bad = String(Self.gga.dropLast(2)) + "54"
        let (s, st) = frame(missing + "\r\n" + bad + "\r\n", lenient: true)
        #expect(s == [missing])
        #expect(st.acceptedWithoutChecksum == 1)
        #expect(st.count(.badChecksum) == 1)
    }

    @Test func overlongLinesAreRejectedWithBoundedMemory() {
        let long = "$GPTXT," + String(repeating: "A", count: 5000) + "*00\r\n"
        let (s, st) = frame(long + Self.gga + "\r\n")
        #expect(s == [Self.gga])
        #expect(st.count(.tooLong) == 1)
    }

    @Test func encapsulationLinesAreSkipped() {
        let (s, st) = frame("!AIVDM,1,1,,B,177KQJ5000G?tO`K>RA1wUbN0TKH,0*5C\r\n" + Self.gga + "\r\n")
        #expect(s == [Self.gga])
        #expect(st.encapsulatedSkipped == 1)
        #expect(st.totalRejected == 0)
    }

    @Test func binaryBytesInsideASentenceRejectIt() {
        let (s, st) = frame("$GPGGA,2253\u{01}08,4527.458*00\r\n" + Self.rmc + "\r\n")
        #expect(s == [Self.rmc])
        #expect(st.count(.invalidCharacter) == 1)
    }

    @Test func finalSentenceWithoutLineEndingIsAcceptedWhenItsChecksumVerifies() {
        let (s, _) = frame(Self.gga + "\r\n" + Self.rmc)
        #expect(s == [Self.gga, Self.rmc])
        let (t, st) = frame(Self.gga + "\r\n$GPRMC,2253")
        #expect(t == [Self.gga])
        #expect(st.count(.truncated) == 1)
    }

    @Test(arguments: 1...4)
    func byteByByteRandomChunksAndWholeGiveIdenticalResults(seed: UInt64) {
        var rng = SplitMix64(state: seed)
        var stream: [UInt8] = []
        let pieces = [Self.gga + "\r\n", Self.rmc + "\n", "garbage\u{00}", "$GPGGA,1*00\r\n", "$$" + Self.rmc.dropFirst() + "\r",
                      "!AIVDM,x*00\r\n", "$GPGSA,A,3,01,,,,13,20,22,,,,28,,3.1,2.1,2.0*3A\r\n", "$GPGGA,22"]
        for _ in 0..<300 { stream += Array(pieces[Int(rng.next() % UInt64(pieces.count))].utf8) }
        let whole = frame(stream)
        let single = frame(stream, chunks: [1])
        var sizes: [Int] = []
        for _ in 0..<64 { sizes.append(Int(rng.next() % 97) + 1) }
        let random = frame(stream, chunks: sizes)
        #expect(whole.0 == single.0)
        #expect(whole.0 == random.0)
        #expect(whole.1 == single.1)
        #expect(whole.1 == random.1)
        #expect(whole.0.count > 100)
    }

    /// The framer skips runs of sentence characters eight bytes at a time: every byte that ends a run must stop it
    /// at every position within and across those eight-byte steps, whole or split into chunks.
    @Test func everyNonSentenceByteStopsARunAtAnyPosition() {
        let body = Array(Self.gga.utf8)
        for bad: UInt8 in [0x00, 0x01, 0x1F, 0x7F, 0x80, 0xB5, 0xFF] {
            for at in 1..<min(40, body.count - 3) {
                var input = body
                input.insert(bad, at: at)
                input += Array("\r\n".utf8) + Array(Self.rmc.utf8) + Array("\r\n".utf8)
                for chunks in [nil, [3], [8], [13]] as [[Int]?] {
                    let (s, st) = frame(input, chunks: chunks)
                    #expect(s == [Self.rmc], "byte \(bad) at \(at), chunks \(String(describing: chunks))")
                    #expect(st.count(.invalidCharacter) == 1)
                }
            }
        }
        for start: UInt8 in [0x24, 0x21] {   // '$' or '!' inside: the partial sentence collides with a new one
            for at in 1..<min(40, body.count - 3) {
                var input = Array(body[0..<at]) + [start]
                input += Array(Self.rmc.utf8.dropFirst()) + Array("\r\n".utf8)
                let (s, st) = frame(input, chunks: [5])
                if start == 0x24 && at == 1 {
                    #expect(s == [Self.rmc])   // "$$": a doubled start is tolerated
                } else {
                    #expect(st.count(.collision) == 1, "\(start) at \(at)")
                    #expect(s == (start == 0x24 ? [Self.rmc] : []), "\(start) at \(at)")
                }
            }
        }
        // A run that reaches the length limit in the middle of an eight-byte step.
        let long = "$GPTXT," + String(repeating: "A", count: 5000) + "*00\r\n" + Self.rmc + "\r\n"
        let (s, st) = frame(Array(long.utf8), chunks: [7])
        #expect(s == [Self.rmc])
        #expect(st.count(.tooLong) == 1)
    }
}
