import LocationCore

/// Builds NMEA 0183 sentences with correct checksums (for `--output nmea` and the simulator).
/// Unknown values become empty fields, never zeros.
public struct NMEAEncoder: Sendable {
    public var talker: String
    /// Decimal places of minutes in latitude/longitude (5 ≈ 2 cm).
    public var coordinateDecimals: Int
    /// Talker of HDT/HDM/HDG. `HC` (magnetic compass) by default: gpsd 3.22 accepts only `HC` after `$H`,
    /// chartplotters take any talker.
    public var headingTalker: String

    /// NMEA 0183's limit for one sentence, `$` to `\r\n` inclusive.
    public static let maximumSentenceLength = 82

    public init(talker: String = "GP", coordinateDecimals: Int = 5, headingTalker: String = "HC") {
        self.talker = talker
        self.coordinateDecimals = coordinateDecimals
        self.headingTalker = headingTalker
    }

    /// Builds a sentence with the most precision that keeps it within 82 characters: `build(level)` for level
    /// 0, 1, 2 … drops precision step by step (never fields); the last level is taken whatever its length.
    static func fitted(levels: Int, _ build: (Int) -> String) -> String {
        var s = ""
        for level in 0..<levels {
            s = sentence(build(level))
            if s.utf8.count <= maximumSentenceLength { return s }
        }
        return s
    }

    /// Wraps `body` (without `$`) as `$body*HH\r\n`.
    public static func sentence(_ body: String, into out: inout [UInt8]) {
        let start = out.count
        out.append(0x24)
        out.append(contentsOf: body.utf8)
        let sum = NMEAChecksum.compute(out[(start + 1)...])
        out.append(0x2A)
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        out.append(hex[Int(sum >> 4)]); out.append(hex[Int(sum & 0xF)])
        out.append(0x0D); out.append(0x0A)
    }

    public static func sentence(_ body: String) -> String {
        var out: [UInt8] = []
        sentence(body, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func fixed(_ v: Double?, _ decimals: Int) -> String {
        guard let v, v.isFinite else { return "" }
        return FixedFormat.string(v, decimals: decimals)
    }

    func coordinate(_ degrees: Double?, degreeDigits: Int, positive: String, negative: String) -> (String, String) {
        guard let d = degrees, d.isFinite else { return ("", "") }
        let a = abs(d)
        var whole = Int(a)
        var minutes = (a - Double(whole)) * 60
        // Rounding can carry 59.999995 → 60.00000.
        var scale = 1.0
        for _ in 0..<coordinateDecimals { scale *= 10 }
        if (minutes * scale).rounded() >= 60 * scale { whole += 1; minutes = 0 }
        var w = String(whole)
        while w.count < degreeDigits { w = "0" + w }
        var m = FixedFormat.string(minutes, decimals: coordinateDecimals)
        if minutes < 10 { m = "0" + m }
        return (w + m, d < 0 ? negative : positive)
    }

    static func time(_ t: Timestamp?, decimals: Int = 2, leapSecond: Bool = false) -> String {
        guard var t else { return "" }
        if leapSecond { t = Timestamp(nanosecondsSince1970: t.nanosecondsSince1970 - 1_000_000_000) }
        let nano = t.dayAndNanoOfDay.nanoOfDay
        let secs = Int(nano / 1_000_000_000)
        var s = pad(secs / 3600) + pad(secs / 60 % 60) + pad(secs % 60 + (leapSecond && secs % 60 == 59 ? 1 : 0)) // 23:59:60
        if decimals > 0 {
            var div: Int64 = 1_000_000_000
            for _ in 0..<decimals { div /= 10 }
            var frac = String(nano % 1_000_000_000 / div)
            while frac.count < decimals { frac = "0" + frac }
            s += "." + frac
        }
        return s
    }

    static func pad(_ v: Int) -> String { v < 10 && v >= 0 ? "0\(v)" : "\(v)" }
    static func pad3(_ v: Int) -> String { v < 10 && v >= 0 ? "00\(v)" : v < 100 && v >= 0 ? "0\(v)" : "\(v)" }

    /// RMC (NMEA 2.3, with mode indicator).
    public func rmc(_ l: Location) -> String {
        Self.fitted(levels: 4) { level in
            var e = self
            e.coordinateDecimals = max(2, coordinateDecimals - level)
            return e.rmcBody(l, timeDecimals: level >= 3 ? 0 : 2)
        }
    }

    func rmcBody(_ l: Location, timeDecimals: Int) -> String {
        let valid = l.mode == .twoD || l.mode == .threeD
        let (lat, ns) = coordinate(l.latitudeDegrees, degreeDigits: 2, positive: "N", negative: "S")
        let (lon, ew) = coordinate(l.longitudeDegrees, degreeDigits: 3, positive: "E", negative: "W")
        var date = ""
        if let t = l.time.map({ l.isLeapSecond ? Timestamp(nanosecondsSince1970: $0.nanosecondsSince1970 - 1_000_000_000) : $0 }) {
            let c = t.civilDate; date = Self.pad(c.day) + Self.pad(c.month) + Self.pad(c.year % 100) }
        let knots = l.speedMetersPerSecond.map { $0 / 0.514_444_444_444_444_5 }
        var variation = "", variationDir = ""
        if let v = l.magneticVariationDegrees { variation = Self.fixed(abs(v), 1); variationDir = v < 0 ? "W" : "E" }
        let mode: String
        switch l.quality {
        case _ where !valid: mode = "N"
        case .dgps: mode = "D"
        case .rtkFixed: mode = "R"
        case .rtkFloat: mode = "F"
        case .deadReckoning, .gnssDeadReckoning: mode = "E"
        case .simulated: mode = "S"
        default: mode = "A"
        }
        let fields = [Self.time(l.time, decimals: timeDecimals, leapSecond: l.isLeapSecond), valid ? "A" : "V", lat, ns, lon, ew, Self.fixed(knots, 3),
                      Self.fixed(l.courseDegrees, 2), date, variation, variationDir, mode]
        return talker + "RMC," + fields.joined(separator: ",")
    }

    /// GGA, within 82 characters (coordinate decimals, then altitude decimals, then time decimals are dropped).
    /// `satellitesUsed`/`hdop` stand in when the fix lacks them (e.g. from the last sky view): gpsd reads an
    /// empty satellite count as "no fix".
    public func gga(_ l: Location, satellitesUsed: Int? = nil, hdop: Double? = nil) -> String {
        Self.fitted(levels: 5) { level in
            var e = self
            e.coordinateDecimals = max(2, coordinateDecimals - min(level, 3))
            return e.ggaBody(l, satellitesUsed: satellitesUsed, hdop: hdop,
                             altitudeDecimals: level >= 3 ? 0 : 1, timeDecimals: level >= 4 ? 0 : 2)
        }
    }

    /// GGA's quality indicator for a fix (0 invalid, 1 GPS, 2 DGPS, 3 PPS, 4 RTK fixed, 5 RTK float,
    /// 6 dead reckoning, 8 simulation).
    public static func ggaQuality(_ l: Location) -> Int {
        guard l.mode == .twoD || l.mode == .threeD else { return 0 }
        switch l.quality {
        case .dgps: return 2
        case .rtkFixed: return 4
        case .rtkFloat: return 5
        case .deadReckoning, .gnssDeadReckoning: return 6
        case .simulated: return 8
        case .pps: return 3
        default: return 1
        }
    }

    func ggaBody(_ l: Location, satellitesUsed: Int?, hdop: Double?, altitudeDecimals: Int, timeDecimals: Int) -> String {
        let valid = l.mode == .twoD || l.mode == .threeD
        let (lat, ns) = coordinate(valid ? l.latitudeDegrees : nil, degreeDigits: 2, positive: "N", negative: "S")
        let (lon, ew) = coordinate(valid ? l.longitudeDegrees : nil, degreeDigits: 3, positive: "E", negative: "W")
        let quality = Self.ggaQuality(l)
        let sats = (l.satellitesUsed ?? satellitesUsed).map { Self.pad(min($0, 99)) } ?? ""
        let fields = [Self.time(l.time, decimals: timeDecimals, leapSecond: l.isLeapSecond), lat, ns, lon, ew, String(quality), sats,
                      Self.fixed(l.hdop ?? hdop, 1),
                      Self.fixed(valid ? l.altitudeMSLMeters : nil, altitudeDecimals), valid && l.altitudeMSLMeters != nil ? "M" : "",
                      Self.fixed(l.geoidSeparationMeters, 1), l.geoidSeparationMeters == nil ? "" : "M",
                      Self.fixed(l.dgpsAgeSeconds, 1), l.dgpsStation.map { String(format4: $0) } ?? ""]
        return talker + "GGA," + fields.joined(separator: ",")
    }

    /// ZDA: UTC date and time (4-digit year, so consumers need no rollover guess); local zone 00:00.
    public func zda(_ t: Timestamp) -> String {
        let c = t.civilDate
        var year = String(c.year)
        while year.count < 4 { year = "0" + year }
        return Self.sentence(talker + "ZDA," + Self.time(t) + "," + Self.pad(c.day) + "," + Self.pad(c.month) + ","
                             + year + ",00,00")
    }

    /// VTG (NMEA 2.3, with mode indicator): true and magnetic course, speed in knots and km/h.
    public func vtg(_ l: Location) -> String {
        let valid = l.mode == .twoD || l.mode == .threeD
        let speed = valid ? l.speedMetersPerSecond : nil
        let f = [Self.fixed(valid ? l.courseDegrees : nil, 2), "T", Self.fixed(valid ? l.magneticCourseDegrees : nil, 2), "M",
                 Self.fixed(speed.map { $0 / 0.514_444_444_444_444_5 }, 3), "N", Self.fixed(speed.map { $0 * 3.6 }, 3), "K",
                 valid ? (l.quality == .dgps ? "D" : l.quality == .gnssDeadReckoning || l.quality == .deadReckoning ? "E" : "A") : "N"]
        return Self.sentence(talker + "VTG," + f.joined(separator: ","))
    }

    /// GSA for the satellites used (by NMEA id), one sentence (first 12 ids).
    /// `talker` overrides the encoder's talker (e.g. `GN` with `systemID`, NMEA 4.11's GNSS system id field).
    public func gsa(mode: FixMode, usedIDs: [Int], pdop: Double?, hdop: Double?, vdop: Double?,
                    talker: String? = nil, systemID: Int? = nil) -> String {
        var ids = usedIDs.prefix(12).map { Self.pad($0) }
        while ids.count < 12 { ids.append("") }
        let m: String = mode == .threeD ? "3" : mode == .twoD ? "2" : "1"
        var body = (talker ?? self.talker) + "GSA,A," + m + "," + ids.joined(separator: ",") + ","
            + [Self.fixed(pdop, 1), Self.fixed(hdop, 1), Self.fixed(vdop, 1)].joined(separator: ",")
        if let systemID { body += ",\(systemID)" }
        return Self.sentence(body)
    }

    /// GSV sentences (4 satellites each) for a list of (id, elevation, azimuth, snr); `talker` overrides the
    /// encoder's (one GSV set per constellation: GP, GL, GA, GB …).
    public func gsv(_ sats: [(id: Int, elevation: Double?, azimuth: Double?, snr: Double?)], talker: String? = nil) -> [String] {
        let total = max(1, (sats.count + 3) / 4)
        let talker = talker ?? self.talker
        var out: [String] = []
        for k in 0..<total {
            var body = talker + "GSV,\(total),\(k + 1),\(Self.pad(sats.count))"
            for s in sats.dropFirst(4 * k).prefix(4) {
                body += ",\(Self.pad(s.id)),\(s.elevation.map { Self.pad(Int($0.rounded())) } ?? ""),"
                body += "\(s.azimuth.map { Self.pad3(Int($0.rounded())) } ?? ""),\(s.snr.map { Self.pad(Int($0.rounded())) } ?? "")"
            }
            out.append(Self.sentence(body))
        }
        return out
    }

    /// HDT: true heading.
    public func hdt(headingTrueDegrees h: Double?) -> String {
        Self.sentence(headingTalker + "HDT," + Self.fixed(h.map(Angle.normalizedDegrees), 1) + ",T")
    }

    /// HDM: magnetic heading.
    public func hdm(headingMagneticDegrees h: Double?) -> String {
        Self.sentence(headingTalker + "HDM," + Self.fixed(h.map(Angle.normalizedDegrees), 1) + ",M")
    }

    /// HDG: magnetic sensor heading with deviation and variation (east positive).
    public func hdg(sensorDegrees h: Double?, deviationDegrees dev: Double?, variationDegrees v: Double?) -> String {
        let f = [Self.fixed(h.map(Angle.normalizedDegrees), 1),
                 Self.fixed(dev.map(abs), 1), dev.map { $0 < 0 ? "W" : "E" } ?? "",
                 Self.fixed(v.map(abs), 1), v.map { $0 < 0 ? "W" : "E" } ?? ""]
        return Self.sentence(headingTalker + "HDG," + f.joined(separator: ","))
    }
}

extension String {
    init(format4 v: Int) {
        let digits = String(Swift.max(0, Swift.min(v, 9999)))
        self = String(repeating: "0", count: Swift.max(0, 4 - digits.count)) + digits
    }
}

/// Fixed-point decimal formatting for `[UInt8]`/`String` callers; the digits come from `ByteBuffer.appendFixed`
/// (the output hot path's formatter), so both round the same way.
public enum FixedFormat {
    public static func string(_ v: Double, decimals: Int) -> String {
        var out: [UInt8] = []
        append(v, decimals: decimals, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    public static func append(_ v: Double, decimals: Int, to out: inout [UInt8]) {
        var buffer = ByteBuffer(capacity: 64)
        buffer.appendFixed(v, decimals: decimals)
        buffer.withBytes { out.append(contentsOf: $0) }
    }
}
