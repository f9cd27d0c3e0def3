@testable import NMEA
import Testing
import TestSupport

/// The parser's one dispatch table (sentence id → minimum field count, parser), against a literal table written
/// from the NMEA 0183 field lists, and its slot index.
@Suite("NMEA dispatch table", .ownThreads)
struct DispatchTableTests {
    /// Minimum field counts including the address field (gpsd's `nf` convention).
    static let expected: [String: Int] = [
        "GGA": 10, "RMC": 10, "GSA": 18, "GSV": 4, "GLL": 5, "VTG": 5, "ZDA": 5, "GST": 9, "GBS": 9, "DTM": 9,
        "GNS": 13, "HDT": 2, "HDM": 2, "HDG": 6, "THS": 3, "ROT": 3, "TXT": 5,
    ]

    static func name(_ code: UInt32) -> String {
        String(decoding: [UInt8(code >> 16 & 0xFF), UInt8(code >> 8 & 0xFF), UInt8(code & 0xFF)], as: UTF8.self)
    }

    @Test func tableIsTheLiteralList() {
        let table = Dictionary(uniqueKeysWithValues: NMEAParser.handlers.map { (Self.name($0.code), $0.minimumFields) })
        #expect(table == Self.expected)
    }

    @Test func everyHandledTypeHasItsOwnSlotAndUnknownTypesHaveNone() {
        #expect(!NMEAParser.handlers.isEmpty)
        for h in NMEAParser.handlers {
            #expect(NMEAParser.handler(for: h.code)?.code == h.code, "\(Self.name(h.code))")
        }
        // Same last two letters as a handled type, other first letter: not handled.
        for unknown in ["XGA", "AMC", "QSV", "GRS", "GSa", "G1A"] {
            let u = Array(unknown.utf8)
            #expect(NMEAParser.handler(for: UInt32(u[0]) << 16 | UInt32(u[1]) << 8 | UInt32(u[2])) == nil, "\(unknown)")
        }
    }

    /// One field short of the minimum is rejected as tooFewFields; the minimum itself parses.
    @Test(arguments: expected.sorted { $0.key < $1.key })
    func minimumFieldCountIsEnforced(_ entry: (key: String, value: Int)) {
        let parser = NMEAParser()
        let short = "$GP\(entry.key)" + String(repeating: ",", count: entry.value - 2)
        let exact = "$GP\(entry.key)" + String(repeating: ",", count: entry.value - 1)
        #expect(parser.parse(text: short) == nil)
        #expect(parser.statistics.rejected[RejectionReason.tooFewFields.rawValue] == 1)
        let parsed = parser.parse(text: exact)
        #expect(parsed != nil)
        if case .unsupported? = parsed?.sentence { Issue.record("\(entry.key) not dispatched") }
    }
}

/// `NMEAFields` directly: field splitting, empty ⇒ nil (never 0), numbers, coordinates with hemispheres, times.
@Suite("NMEA fields", .ownThreads)
struct NMEAFieldsTests {
    /// Splits `body` (no `$`, no checksum) at commas the way the parser does and runs `check` on the fields.
    static func withFields(_ body: String, _ check: (NMEAFields) -> Void) {
        let bytes = Array(body.utf8)
        var starts: [Int32] = [0]
        for (i, b) in bytes.enumerated() where b == 0x2C { starts.append(Int32(i + 1)) }
        let count = starts.count
        starts.append(Int32(bytes.count + 1))
        bytes.withUnsafeBufferPointer { b in
            starts.withUnsafeBufferPointer { s in check(NMEAFields(base: b.baseAddress!, starts: s.baseAddress!, count: count)) }
        }
    }

    @Test func splittingAndEmptyFields() {
        Self.withFields("GPGGA,123519.25,4807.038,S,01131.000,W,1,,0.9,-12.5,M,,M,,") { f in
            #expect(f.count == 15)
            #expect(f.string(0) == "GPGGA")
            #expect(f.isEmpty(7) && f.int(7) == nil && f.double(7) == nil)
            #expect(f.int(6) == 1)
            #expect(f.double(8) == 0.9)
            #expect(f.double(9) == -12.5)
            #expect(f.character(10) == 0x4D)
            #expect(f.character(11) == nil)
            #expect(f.time(1) == NMEATime(hour: 12, minute: 35, second: 19, nanosecond: 250_000_000, fractionDigits: 2))
            let lat = f.coordinate(2, hemisphere: 3, maximumDegrees: 90)
            let lon = f.coordinate(4, hemisphere: 5, maximumDegrees: 180)
            #expect(lat.map { abs($0 + 48.1173) < 1e-12 } == true)
            #expect(lon.map { abs($0 + 11.516_666_666_666_667) < 1e-12 } == true)
        }
    }

    @Test func malformedNumbersAreNilNotZero() {
        Self.withFields("GPXXX,12a,1.2.3,,9999.9,N,256060") { f in
            #expect(f.int(1) == nil)
            #expect(f.double(2) == nil)
            #expect(f.double(3) == nil)
            #expect(f.coordinate(4, hemisphere: 5, maximumDegrees: 90) == nil) // 99° 99.9' is not a latitude
            #expect(f.time(6) == nil) // 25:60:60
            #expect(f.string(99) == nil) // past the last field
        }
    }
}
