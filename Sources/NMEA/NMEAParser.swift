import LocationCore

/// Turns framed sentences into typed values through a dispatch table keyed by sentence type (gpsd's shape:
/// type, minimum field count, handler). Any two-letter talker is accepted; `$P…` sentences pass through as
/// proprietary. Empty fields become nil; malformed numbers make only that field nil.
public final class NMEAParser {
    public var statistics: NMEAStatistics { counts }
    /// Count of parsed sentences per type name (for the replay summary).
    public var countsByType: [SentenceType: Int] { typeCounts }
    public var countSentenceTypes: Bool {
        get { countTypes }
        set { countTypes = newValue }
    }
    // Private storage behind the public views: the optimizer can then drop the run-time exclusivity checks
    // (swift_beginAccess) it otherwise makes on every access to a public stored property of a class.
    private var counts = NMEAStatistics()
    private var typeCounts: [SentenceType: Int] = [:]
    private var countTypes = false

    private let starts: UnsafeMutablePointer<Int32>
    private let startsCapacity: Int

    public init(maximumLength: Int = 4096) {
        startsCapacity = maximumLength + 2
        starts = .allocate(capacity: startsCapacity)
    }

    deinit { starts.deallocate() }

    public func resetStatistics() { counts = NMEAStatistics(); typeCounts = [:] }

    /// Parses a framed sentence; nil when rejected (the reason is counted).
    public func parse(_ framed: FramedSentence) -> ParsedSentence? { parse(framed, decodingFixFields: true) }

    /// `parse`, with a fix sentence's fields left undecoded when `decodingFixFields` is false: GGA, RMC, GLL, GNS,
    /// VTG, GST and GBS keep only what places them in a receiver cycle (their time; RMC's status and date, which
    /// resolve the date), every other field nil. Validated and counted exactly as `parse` counts them. For a source
    /// whose fixes come from elsewhere (a u-blox receiver's UBX solutions): its NMEA cycles are still assembled and
    /// counted as superseded, without decoding positions nobody uses (their numbers were a tenth of a u-blox log's
    /// replay).
    public func parse(_ framed: FramedSentence, decodingFixFields: Bool) -> ParsedSentence? {
        let body = framed.body
        guard let base = body.baseAddress else {
            counts.rejected[RejectionReason.emptySentence.rawValue] += 1
            return nil
        }
        return withFields(base, body.count) { fields in parse(fields: fields, decodingFixFields: decodingFixFields) }
    }

    /// Parses a sentence given as text (with `$` and optional checksum; the checksum is not verified here).
    public func parse(text: String) -> ParsedSentence? {
        var bytes = Array(text.utf8)
        while let last = bytes.last, last == 0x0D || last == 0x0A { bytes.removeLast() }
        guard bytes.first == 0x24 else { return nil }
        var end = bytes.count
        if end >= 4 && bytes[end - 3] == 0x2A { end -= 3 }
        return bytes.withUnsafeBufferPointer { p -> ParsedSentence? in
            guard let base = p.baseAddress, end > 1 else { return nil }
            return withFields(base + 1, end - 1) { parse(fields: $0) }
        }
    }

    @inline(__always)
    private func withFields<R>(_ base: UnsafePointer<UInt8>, _ n: Int, _ body: (NMEAFields) -> R) -> R {
        var count = 0
        starts[0] = 0
        var i = 0
        let limit = min(n, startsCapacity - 2)
        while i < limit {
            if base[i] == 0x2C { count += 1; starts[count] = Int32(i + 1) }
            i += 1
        }
        count += 1
        starts[count] = Int32(limit + 1)
        return body(NMEAFields(base: base, starts: UnsafePointer(starts), count: count))
    }

    private func reject(_ reason: RejectionReason) -> ParsedSentence? {
        counts.rejected[reason.rawValue] += 1
        return nil
    }

    @inline(__always)
    func parse(fields f: NMEAFields, decodingFixFields: Bool = true) -> ParsedSentence? {
        let address = f.bytes(0)
        guard address.count >= 2, let first = address.first else { return reject(.invalidAddress) }
        for c in address where !(c >= 0x41 && c <= 0x5A) && !(c >= 0x30 && c <= 0x39) {
            return reject(.invalidAddress)
        }
        if first == 0x50 { // 'P': proprietary
            counts.framed += 1
            return ParsedSentence(talker: nil, type: nil,
                                  sentence: .proprietary(address: String(decoding: address, as: UTF8.self)))
        }
        guard address.count == 5 else { return reject(.invalidAddress) }
        let talker = Talker(address[0], address[1])
        let type = SentenceType(code: UInt32(address[2]) << 16 | UInt32(address[3]) << 8 | UInt32(address[4]))
        guard let handler = Self.handler(for: type.code) else {
            counts.framed += 1
            return ParsedSentence(talker: talker, type: type, sentence: .unsupported(type))
        }
        guard f.count >= handler.minimumFields else { return reject(.tooFewFields) }
        counts.framed += 1
        if countTypes { typeCounts[type, default: 0] += 1 }
        let sentence = decodingFixFields ? handler.parse(f) : handler.parse.cycleOnly(f) ?? handler.parse(f)
        return ParsedSentence(talker: talker, type: type, sentence: sentence)
    }

    /// One row of the dispatch table: sentence type, the minimum field count (address included), the parser.
    struct Handler {
        let code: UInt32
        let minimumFields: Int
        let parse: Parser
    }

    /// The parser of a table row. A plain enum rather than a closure: the row is a few bytes copied without
    /// reference counting and the call is a direct, inlinable switch (a closure per row cost 25 % of parse-only
    /// throughput: 3.9 vs 5.1 M sentences/s). The compiler checks that every case has its parser.
    enum Parser {
        case gga, rmc, gsa, gsv, gll, vtg, zda, gst, gbs, dtm, gns, hdt, hdm, hdg, ths, rot, txt

        /// A fix sentence with only what places it in a receiver cycle (time; RMC's status and date); nil for the
        /// other types (decoded in full).
        @inline(__always)
        func cycleOnly(_ f: NMEAFields) -> NMEASentence? {
            switch self {
            case .gga: .gga(GGA(time: f.time(1)))
            case .rmc: .rmc(RMC(time: f.time(1), valid: f.character(2).map { $0 == 0x41 }, date: NMEAParser.parseDate(f, 9)))
            case .gll: .gll(GLL(time: f.time(5)))
            case .gns: .gns(GNS(time: f.time(1), modes: FixedList<6, UInt8>()))
            case .vtg: .vtg(VTG())
            case .gst: .gst(GST(time: f.time(1)))
            case .gbs: .gbs(GBS(time: f.time(1)))
            default: nil
            }
        }

        @inline(__always)
        func callAsFunction(_ f: NMEAFields) -> NMEASentence {
            switch self {
            case .gga: NMEAParser.parseGGA(f)
            case .rmc: NMEAParser.parseRMC(f)
            case .gsa: NMEAParser.parseGSA(f)
            case .gsv: NMEAParser.parseGSV(f)
            case .gll: NMEAParser.parseGLL(f)
            case .vtg: NMEAParser.parseVTG(f)
            case .zda: NMEAParser.parseZDA(f)
            case .gst: NMEAParser.parseGST(f)
            case .gbs: NMEAParser.parseGBS(f)
            case .dtm: NMEAParser.parseDTM(f)
            case .gns: NMEAParser.parseGNS(f)
            case .hdt: .hdt(HDT(headingTrueDegrees: f.double(1)))
            case .hdm: .hdm(HDM(headingMagneticDegrees: f.double(1)))
            case .hdg: NMEAParser.parseHDG(f)
            case .ths: .ths(THS(headingTrueDegrees: f.double(1), mode: f.character(2)))
            case .rot: .rot(ROT(degreesPerMinute: f.double(1), valid: f.character(2).map { $0 == 0x41 }))
            case .txt: .txt(TXT(totalMessages: f.int(1), messageNumber: f.int(2), identifier: f.int(3), text: f.string(4)))
            }
        }
    }

    /// The dispatch table (gpsd's shape: name, minimum field count, handler) — the one place that says which
    /// sentences are understood and how many fields each needs. Adding a sentence is one row here plus its parser.
    static let handlers: [Handler] = [
        Handler(code: Code.gga, minimumFields: 10, parse: .gga),
        Handler(code: Code.rmc, minimumFields: 10, parse: .rmc),
        Handler(code: Code.gsa, minimumFields: 18, parse: .gsa),
        Handler(code: Code.gsv, minimumFields: 4, parse: .gsv),
        Handler(code: Code.gll, minimumFields: 5, parse: .gll),
        Handler(code: Code.vtg, minimumFields: 5, parse: .vtg),
        Handler(code: Code.zda, minimumFields: 5, parse: .zda),
        Handler(code: Code.gst, minimumFields: 9, parse: .gst),
        Handler(code: Code.gbs, minimumFields: 9, parse: .gbs),
        Handler(code: Code.dtm, minimumFields: 9, parse: .dtm),
        Handler(code: Code.gns, minimumFields: 13, parse: .gns),
        Handler(code: Code.hdt, minimumFields: 2, parse: .hdt),
        Handler(code: Code.hdm, minimumFields: 2, parse: .hdm),
        Handler(code: Code.hdg, minimumFields: 6, parse: .hdg),
        Handler(code: Code.ths, minimumFields: 3, parse: .ths),
        Handler(code: Code.rot, minimumFields: 3, parse: .rot),
        Handler(code: Code.txt, minimumFields: 5, parse: .txt),
    ]

    /// The table's index by the type's last two letters (26 × 26 slots; those pairs are unique among the
    /// handled types — a test holds it), so dispatch is one load and one compare instead of a search.
    static let slots: [Int8] = {
        var slots = [Int8](repeating: -1, count: 26 * 26)
        for (i, h) in handlers.enumerated() {
            guard let s = slot(h.code) else { preconditionFailure("sentence type outside A-Z") }
            precondition(slots[s] < 0, "two handled sentence types share their last two letters")
            slots[s] = Int8(i)
        }
        return slots
    }()

    @inline(__always)
    static func slot(_ code: UInt32) -> Int? {
        let a = Int((code >> 8) & 0xFF) &- 0x41, b = Int(code & 0xFF) &- 0x41
        guard a >= 0, a < 26, b >= 0, b < 26 else { return nil }
        return a &* 26 &+ b
    }

    @inline(__always)
    static func handler(for code: UInt32) -> Handler? {
        guard let s = slot(code) else { return nil }
        let i = slots[s]
        guard i >= 0 else { return nil }
        let h = handlers[Int(i)]
        return h.code == code ? h : nil
    }

    /// Packed sentence-type codes (three ASCII letters), the keys of the dispatch table.
    enum Code {
        static let gga: UInt32 = 0x47_47_41, rmc: UInt32 = 0x52_4D_43, gsa: UInt32 = 0x47_53_41
        static let gsv: UInt32 = 0x47_53_56, vtg: UInt32 = 0x56_54_47, gll: UInt32 = 0x47_4C_4C
        static let zda: UInt32 = 0x5A_44_41, gst: UInt32 = 0x47_53_54, gns: UInt32 = 0x47_4E_53
        static let gbs: UInt32 = 0x47_42_53, hdt: UInt32 = 0x48_44_54, hdg: UInt32 = 0x48_44_47
        static let hdm: UInt32 = 0x48_44_4D, ths: UInt32 = 0x54_48_53, rot: UInt32 = 0x52_4F_54
        static let txt: UInt32 = 0x54_58_54, dtm: UInt32 = 0x44_54_4D
    }

    static func signed(_ value: Double?, _ direction: UInt8?, negative: UInt8) -> Double? {
        guard let v = value else { return nil }
        return direction == negative ? -v : v
    }

    static func parseGGA(_ f: NMEAFields) -> NMEASentence {
        .gga(GGA(time: f.time(1),
                 latitudeDegrees: f.coordinate(2, hemisphere: 3, maximumDegrees: 90),
                 longitudeDegrees: f.coordinate(4, hemisphere: 5, maximumDegrees: 180),
                 qualityIndicator: f.int(6), satellitesUsed: f.int(7, in: 0...99), hdop: f.double(8, in: 0...99.99),
                 altitudeMSLMeters: f.double(9), geoidSeparationMeters: f.double(11),
                 dgpsAgeSeconds: f.double(13), dgpsStation: f.int(14)))
    }

    static func parseDate(_ f: NMEAFields, _ i: Int) -> NMEADate? {
        let b = f.bytes(i)
        guard b.count == 6 else { return nil }
        var v = (0, 0, 0)
        for k in 0..<3 {
            let a = b[2 * k] &- 0x30, c = b[2 * k + 1] &- 0x30
            guard a < 10, c < 10 else { return nil }
            let n = Int(a) * 10 + Int(c)
            switch k { case 0: v.0 = n; case 1: v.1 = n; default: v.2 = n }
        }
        guard (1...31).contains(v.0), (1...12).contains(v.1) else { return nil }
        return NMEADate(day: v.0, month: v.1, year: v.2, twoDigitYear: true)
    }

    static func parseRMC(_ f: NMEAFields) -> NMEASentence {
        .rmc(RMC(time: f.time(1),
                 valid: f.character(2).map { $0 == 0x41 },
                 latitudeDegrees: f.coordinate(3, hemisphere: 4, maximumDegrees: 90),
                 longitudeDegrees: f.coordinate(5, hemisphere: 6, maximumDegrees: 180),
                 speedKnots: f.double(7), courseTrueDegrees: f.double(8),
                 date: parseDate(f, 9),
                 magneticVariationDegrees: signed(f.double(10), f.character(11), negative: 0x57),
                 mode: f.character(12).flatMap(ModeIndicator.init(rawValue:)),
                 navigationalStatus: f.character(13)))
    }

    static func parseGSA(_ f: NMEAFields) -> NMEASentence {
        // Standard layout: 12 ids in fields 3…14, DOPs in 15…17, NMEA 4.11 system id in 18. Receivers that list
        // more ids put the DOPs in the last three fields.
        let standard = f.count == 18 || f.count == 19
        let dop = standard ? 15 : f.count - 3
        var ids = FixedList<16, Int16>()
        var i = 3
        while i < dop {
            if let id = f.int(i), id > 0, id < Int(Int16.max) { ids.append(Int16(id)) }
            i += 1
        }
        return .gsa(GSA(selectionMode: f.character(1), fixType: f.int(2), satelliteIDs: ids,
                        pdop: f.double(dop), hdop: f.double(dop + 1), vdop: f.double(dop + 2),
                        systemID: f.count == 19 ? f.int(18) : nil))
    }

    static func parseGSV(_ f: NMEAFields) -> NMEASentence {
        let groups = f.count - 4
        let hasSignal = groups % 4 == 1
        var sats = FixedList<4, GSVSatellite>()
        for g in 0..<(groups / 4) {
            let i = 4 + 4 * g
            if let id = f.int(i) {
                // Out-of-range values (elevation −95, azimuth 720, SNR −5) are unknown, never passed on.
                sats.append(GSVSatellite(id: id, elevationDegrees: f.double(i + 1, in: -90...90),
                                         azimuthDegrees: f.double(i + 2, in: 0...360), snrDBHz: f.double(i + 3, in: 0...99)))
            }
        }
        return .gsv(GSV(totalMessages: f.int(1), messageNumber: f.int(2), satellitesInView: f.int(3),
                        satellites: sats, signalID: hasSignal ? f.int(f.count - 1) : nil))
    }

    static func parseVTG(_ f: NMEAFields) -> NMEASentence {
        if f.character(2) == 0x54 || (f.count >= 9 && f.isEmpty(2) && f.character(8) == 0x4B) { // NMEA 2.x+: letters
            return .vtg(VTG(courseTrueDegrees: f.double(1), courseMagneticDegrees: f.double(3),
                            speedKnots: f.double(5), speedKilometersPerHour: f.double(7),
                            mode: f.character(9).flatMap(ModeIndicator.init(rawValue:))))
        }
        // NMEA 1.x: course true, course magnetic, knots, km/h without unit letters.
        return .vtg(VTG(courseTrueDegrees: f.double(1), courseMagneticDegrees: f.double(2),
                        speedKnots: f.double(3), speedKilometersPerHour: f.double(4), mode: nil))
    }

    static func parseGLL(_ f: NMEAFields) -> NMEASentence {
        .gll(GLL(latitudeDegrees: f.coordinate(1, hemisphere: 2, maximumDegrees: 90),
                 longitudeDegrees: f.coordinate(3, hemisphere: 4, maximumDegrees: 180),
                 time: f.time(5), valid: f.character(6).map { $0 == 0x41 },
                 mode: f.character(7).flatMap(ModeIndicator.init(rawValue:))))
    }

    static func parseZDA(_ f: NMEAFields) -> NMEASentence {
        .zda(ZDA(time: f.time(1), day: f.int(2), month: f.int(3), year: f.int(4),
                 localZoneHours: f.int(5), localZoneMinutes: f.int(6)))
    }

    static func parseGST(_ f: NMEAFields) -> NMEASentence {
        .gst(GST(time: f.time(1), rmsRange: f.double(2), semiMajorMeters: f.double(3), semiMinorMeters: f.double(4),
                 orientationDegrees: f.double(5), latitudeErrorMeters: f.double(6),
                 longitudeErrorMeters: f.double(7), altitudeErrorMeters: f.double(8)))
    }

    static func parseGNS(_ f: NMEAFields) -> NMEASentence {
        var modes = FixedList<6, UInt8>()
        for c in f.bytes(6) { modes.append(c) }
        return .gns(GNS(time: f.time(1),
                        latitudeDegrees: f.coordinate(2, hemisphere: 3, maximumDegrees: 90),
                        longitudeDegrees: f.coordinate(4, hemisphere: 5, maximumDegrees: 180),
                        modes: modes, satellitesUsed: f.int(7, in: 0...99), hdop: f.double(8, in: 0...99.99), altitudeMSLMeters: f.double(9),
                        geoidSeparationMeters: f.double(10), dgpsAgeSeconds: f.double(11), dgpsStation: f.int(12),
                        navigationalStatus: f.character(13)))
    }

    static func parseGBS(_ f: NMEAFields) -> NMEASentence {
        .gbs(GBS(time: f.time(1), latitudeErrorMeters: f.double(2), longitudeErrorMeters: f.double(3),
                 altitudeErrorMeters: f.double(4), failedSatellite: f.int(5), probabilityOfMissedDetection: f.double(6),
                 biasMeters: f.double(7), biasStandardDeviationMeters: f.double(8)))
    }

    static func parseHDG(_ f: NMEAFields) -> NMEASentence {
        .hdg(HDG(headingMagneticSensorDegrees: f.double(1),
                 deviationDegrees: signed(f.double(2), f.character(3), negative: 0x57),
                 variationDegrees: signed(f.double(4), f.character(5), negative: 0x57)))
    }

    static func parseDTM(_ f: NMEAFields) -> NMEASentence {
        .dtm(DTM(localDatum: f.string(1), localDatumSubdivision: f.string(2),
                 latitudeOffsetMinutes: signed(f.double(3), f.character(4), negative: 0x53),
                 longitudeOffsetMinutes: signed(f.double(5), f.character(6), negative: 0x57),
                 altitudeOffsetMeters: f.double(7), referenceDatum: f.string(8)))
    }
}
