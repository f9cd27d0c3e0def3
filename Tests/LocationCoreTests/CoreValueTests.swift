#if canImport(Glibc)
import Glibc
#endif
import LocationCore
import Testing

/// Direct tests of the core value types with literal expected values (independent references: the Unix epoch
/// arithmetic of `date -u -d`, the Gregorian calendar's leap rules).
@Suite("Core values")
struct CoreValueTests {
    @Test(arguments: [
        // (y, m, d, h, mi, s, ns) → ns since 1970 (from `date -u -d 'YYYY-MM-DD HH:MM:SS' +%s`)
        ([1970, 1, 1, 0, 0, 0, 0], Int64(0)),
        ([2000, 2, 29, 12, 0, 0, 0], Int64(951_825_600) * 1_000_000_000),
        ([2025, 6, 1, 12, 0, 0, 250_000_000], Int64(1_748_779_200) * 1_000_000_000 + 250_000_000),
        ([1969, 12, 31, 23, 59, 59, 0], Int64(-1) * 1_000_000_000),
        ([2038, 1, 19, 3, 14, 8, 0], Int64(2_147_483_648) * 1_000_000_000),
    ])
    func timestampFromCivilTime(_ c: [Int], _ expected: Int64) throws {
        let t = try #require(Timestamp(year: c[0], month: c[1], day: c[2], hour: c[3], minute: c[4], second: c[5], nanosecond: c[6]))
        #expect(t.nanosecondsSince1970 == expected)
        #expect(t.civilDate == CivilDate(year: c[0], month: c[1], day: c[2]))
    }

    @Test func timestampRejectsImpossibleDates() {
        #expect(Timestamp(year: 2025, month: 2, day: 29) == nil)
        #expect(Timestamp(year: 2025, month: 13, day: 1) == nil)
        #expect(Timestamp(year: 2025, month: 1, day: 1, hour: 24) == nil)
        #expect(Timestamp(year: 2024, month: 2, day: 29) != nil)
    }

    @Test func timestampISO8601() throws {
        let t = try #require(Timestamp(year: 2025, month: 6, day: 1, hour: 7, minute: 5, second: 9, nanosecond: 123_456_789))
        #expect(t.iso8601(fractionDigits: 0) == "2025-06-01T07:05:09Z")
        #expect(t.iso8601(fractionDigits: 3) == "2025-06-01T07:05:09.123Z")
        #expect(t.iso8601(fractionDigits: 9) == "2025-06-01T07:05:09.123456789Z")
        var b = ByteBuffer(capacity: 8)
        t.appendISO8601(to: &b, fractionDigits: 3)
        #expect(String(decoding: b.array, as: UTF8.self) == "2025-06-01T07:05:09.123Z")
    }

    @Test(arguments: [[0, 1970, 1, 1], [59, 1970, 3, 1], [10_957, 2000, 1, 1], [11_016, 2000, 2, 29],
                      [20_240, 2025, 6, 1], [-1, 1969, 12, 31], [-719_468, 0, 3, 1]])
    func civilDateRoundTrips(_ v: [Int]) {
        let d = CivilDate(daysSince1970: v[0])
        #expect(d == CivilDate(year: v[1], month: v[2], day: v[3]))
        #expect(d.daysSince1970 == v[0])
    }

    @Test func leapYearsAndMonthLengths() {
        #expect(CivilDate.isLeap(2000) && CivilDate.isLeap(2024) && !CivilDate.isLeap(1900) && !CivilDate.isLeap(2025))
        #expect(CivilDate.daysIn(month: 2, year: 2100) == 28)
        #expect(CivilDate.daysIn(month: 2, year: 2400) == 29)
        #expect([1, 3, 5, 7, 8, 10, 12].allSatisfy { CivilDate.daysIn(month: $0, year: 2025) == 31 })
        #expect(CivilDate(year: 2025, month: 3, day: 7).iso8601 == "2025-03-07")
    }

    @Test(arguments: [
        // An exact binary tie rounds half to even, as printf does (a u-blox sAcc of 125 mm is gpsd's eps 0.12).
        (0.0, 3, "0.000"), (1.0625, 3, "1.062"), (-1.0625, 3, "-1.062"), (-0.0004, 3, "0.000"), (2.5, 0, "2"),
        (-2.5, 0, "-2"), (3.5, 0, "4"), (0.125, 2, "0.12"), (0.375, 2, "0.38"), (0.625, 2, "0.62"),
        (123456.789, 2, "123456.79"), (37.3861, 9, "37.386100000"),
        (.nan, 3, "null"), (.infinity, 2, "null"),
        (44.0, 1, "44.0"), (-7.0, 2, "-7.00"), (-0.0, 1, "0.0"), (359.0, 0, "359"), (1e10, 9, "10000000000.0"),
        (123456789.0, 9, "123456789.000000000"),
    ])
    func appendFixed(_ value: Double, _ decimals: Int, _ expected: String) {
        var b = ByteBuffer(capacity: 4)
        b.appendFixed(value, decimals: decimals)
        #expect(String(decoding: b.array, as: UTF8.self) == expected)
    }

    /// Against C's printf on seeded random values (whole numbers, and values off any rounding tie): the same digits.
    @Test func appendFixedAgreesWithPrintf() {
        var state: UInt64 = 7
        func next() -> UInt64 {   // SplitMix64
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        func printf(_ value: Double, _ d: Int) -> String {
            var buffer = [CChar](repeating: 0, count: 64)
            _ = withVaList([value]) { vsnprintf(&buffer, 64, "%.\(d)f", $0) }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        var mismatches: [String] = []
        for i in 0..<20_000 {
            let d = Int(next() % 7)
            let whole = Double(Int64(next() % 2_000_001) - 1_000_000)
            let value = i % 2 == 0 ? whole : whole + Double(next() % 1_000_000_007) / 1_000_000_007
            let scaled = abs(value) * pow(10, Double(d))
            if abs(scaled - scaled.rounded(.down) - 0.5) < 1e-6 { continue }   // a tie up to rounding: skip
            var b = ByteBuffer(capacity: 4)
            b.appendFixed(value, decimals: d)
            let mine = String(decoding: b.array, as: UTF8.self)
            var reference = printf(value, d)
            if reference.hasPrefix("-"), reference.dropFirst().allSatisfy({ $0 == "0" || $0 == "." }) { reference.removeFirst() }
            if mine != reference { mismatches.append("\(value) d \(d): \(mine) vs \(reference)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test func clockPairingDerivesUTCAndDate() throws {
        let utc = try #require(Timestamp(year: 2025, month: 12, day: 31, hour: 23, minute: 59, second: 59))
        let pairing = ClockPairing(monotonicNanos: 5_000_000_000, utc: utc)
        #expect(pairing.utc(atMonotonic: 6_500_000_000) == utc.adding(nanoseconds: 1_500_000_000))
        #expect(pairing.utc(atMonotonic: 4_000_000_000) == utc.adding(nanoseconds: -1_000_000_000))
        #expect(pairing.date == CivilDate(year: 2025, month: 12, day: 31))
        let before1970 = ClockPairing(monotonicNanos: 0, utc: Timestamp(nanosecondsSince1970: -1))
        #expect(before1970.date == CivilDate(year: 1969, month: 12, day: 31))
    }

    /// The fix's optional numbers are stored in 8 bytes each (`CompactDouble`, `CompactInt`, `CompactTimestamp`): a
    /// plain `Double?` field would add 8 bytes to a struct that every stage copies. Reads and writes still behave as
    /// Optionals, equality and hashing included.
    @Test func locationFieldsAreCompactAndBehaveAsOptionals() {
        #expect(MemoryLayout<Location>.size <= 288, "Location is \(MemoryLayout<Location>.size) bytes")
        var a = Location(), b = Location()
        #expect(a.latitudeDegrees == nil && a.time == nil && a.satellitesUsed == nil)
        a.latitudeDegrees = 0; a.satellitesUsed = 0; a.time = Timestamp(nanosecondsSince1970: 0)
        #expect(a.latitudeDegrees == 0 && a.satellitesUsed == 0 && a.time == Timestamp(nanosecondsSince1970: 0))
        #expect(a != b)
        b.latitudeDegrees = -0.0; b.satellitesUsed = 0; b.time = Timestamp(nanosecondsSince1970: 0)
        #expect(a == b && a.hashValue == b.hashValue)   // as Double? compares: -0.0 == 0.0
        a.latitudeDegrees = .nan   // no field holds NaN: it reads back as absent
        #expect(a.latitudeDegrees == nil)
        a.latitudeDegrees = -.infinity; a.satellitesUsed = Int.max; a.time = Timestamp(nanosecondsSince1970: -1)
        #expect(a.latitudeDegrees == -.infinity && a.satellitesUsed == Int.max
                && a.time == Timestamp(nanosecondsSince1970: -1))
        a.latitudeDegrees = nil; a.satellitesUsed = nil; a.time = nil
        #expect(a.latitudeDegrees == nil && a.satellitesUsed == nil && a.time == nil)
    }

    @Test func haversineAgainstAKnownDistance() {
        // Paris (48.8566, 2.3522) to London (51.5074, -0.1278): 343.5 km on the 6371.0088 km sphere.
        let d = Geo.distanceMeters(48.8566, 2.3522, 51.5074, -0.1278)
        #expect(abs(d - 343_550) < 500)
        #expect(Geo.distanceMeters(10, 20, 10, 20) == 0)
    }

    @Test func jsonTextEscapes() {
        #expect(JSONText.quoted("a\"b\\c\nd\u{1}") == "\"a\\\"b\\\\c\\nd\\u0001\"")
        var b = ByteBuffer(capacity: 4)
        JSONText.appendQuoted("tab\there é", to: &b)
        #expect(String(decoding: b.array, as: UTF8.self) == "\"tab\\there é\"")
    }
}

/// `Timestamp.parseISO8601`, the one ISO 8601 reader (captures, JSON lines, calibration files, maps, fleet).
@Suite("ISO 8601 parsing")
struct ISO8601ParsingTests {
    @Test(arguments: [
        ("2020-05-14T22:10:46Z", Timestamp(year: 2020, month: 5, day: 14, hour: 22, minute: 10, second: 46)),
        ("2020-05-14T22:10:46.1Z", Timestamp(year: 2020, month: 5, day: 14, hour: 22, minute: 10, second: 46, nanosecond: 100_000_000)),
        ("2020-05-14T22:10:46.123456789Z", Timestamp(year: 2020, month: 5, day: 14, hour: 22, minute: 10, second: 46, nanosecond: 123_456_789)),
        // Digits below a nanosecond are dropped, not rounded.
        ("2020-05-14T22:10:46.1234567899Z", Timestamp(year: 2020, month: 5, day: 14, hour: 22, minute: 10, second: 46, nanosecond: 123_456_789)),
        ("2016-12-31T23:59:60Z", Timestamp(year: 2016, month: 12, day: 31, hour: 23, minute: 59, second: 60)),
        ("2024-02-29T00:00:00.000Z", Timestamp(year: 2024, month: 2, day: 29)),
    ])
    func parses(text: String, expected: Timestamp?) {
        #expect(expected != nil)
        #expect(Timestamp.parseISO8601(text) == expected)
    }

    @Test(arguments: ["2020-05-14T22:10:46", "2020-05-14T22:10:46.Z", "2020-05-14T22:10:46,5Z", "2020-05-14 22:10:46Z",
                      "2020-13-14T22:10:46Z", "2023-02-29T00:00:00Z", "2020-05-14T24:00:00Z", "+020-05-14T22:10:46Z",
                      "2020-05-14T22:10:4xZ", "2020-05-14T22:10:46.12a4Z", "garbage", ""])
    func rejects(text: String) {
        #expect(Timestamp.parseISO8601(text) == nil)
    }

    @Test func roundTripsTheWrittenForm() {
        let t = Timestamp(nanosecondsSince1970: 1_589_494_246_123_456_789)
        for digits in [0, 3, 9] {
            let text = t.iso8601(fractionDigits: digits)
            #expect(Timestamp.parseISO8601(text)?.iso8601(fractionDigits: digits) == text)
        }
    }
}
