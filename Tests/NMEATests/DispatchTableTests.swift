@testable import NMEA
import Testing

/// The parser's one dispatch table (sentence id → minimum field count, parser), against a literal table written
/// from the NMEA 0183 field lists, and its slot index.
@Suite("NMEA dispatch table")
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
