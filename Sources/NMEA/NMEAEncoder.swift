import LocationCore

/// Builds NMEA 0183 sentences with correct checksums (for `--output nmea` and the simulator).
/// Unknown values become empty fields, never zeros.
public struct NMEAEncoder: Sendable {
    public var talker: String
    /// Decimal places of minutes in latitude/longitude (5 ≈ 2 cm).
    public var coordinateDecimals: Int

    public init(talker: String = "GP", coordinateDecimals: Int = 5) {
        self.talker = talker
        self.coordinateDecimals = coordinateDecimals
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
        let fields = [Self.time(l.time, leapSecond: l.isLeapSecond), valid ? "A" : "V", lat, ns, lon, ew, Self.fixed(knots, 3),
                      Self.fixed(l.courseDegrees, 2), date, variation, variationDir, mode]
        return Self.sentence(talker + "RMC," + fields.joined(separator: ","))
    }

    /// GGA.
    public func gga(_ l: Location) -> String {
        let valid = l.mode == .twoD || l.mode == .threeD
        let (lat, ns) = coordinate(valid ? l.latitudeDegrees : nil, degreeDigits: 2, positive: "N", negative: "S")
        let (lon, ew) = coordinate(valid ? l.longitudeDegrees : nil, degreeDigits: 3, positive: "E", negative: "W")
        let quality: Int
        switch l.quality {
        case _ where !valid: quality = 0
        case .dgps: quality = 2
        case .rtkFixed: quality = 4
        case .rtkFloat: quality = 5
        case .deadReckoning, .gnssDeadReckoning: quality = 6
        case .simulated: quality = 8
        case .pps: quality = 3
        default: quality = 1
        }
        let sats = l.satellitesUsed.map { Self.pad(min($0, 99)) } ?? ""
        let fields = [Self.time(l.time, leapSecond: l.isLeapSecond), lat, ns, lon, ew, String(quality), sats, Self.fixed(l.hdop, 1),
                      Self.fixed(l.altitudeMSLMeters, 1), l.altitudeMSLMeters == nil ? "" : "M",
                      Self.fixed(l.geoidSeparationMeters, 1), l.geoidSeparationMeters == nil ? "" : "M",
                      Self.fixed(l.dgpsAgeSeconds, 1), l.dgpsStation.map { String(format4: $0) } ?? ""]
        return Self.sentence(talker + "GGA," + fields.joined(separator: ","))
    }

    /// GSA for the satellites used (by NMEA id), one sentence (first 12 ids).
    public func gsa(mode: FixMode, usedIDs: [Int], pdop: Double?, hdop: Double?, vdop: Double?) -> String {
        var ids = usedIDs.prefix(12).map { Self.pad($0) }
        while ids.count < 12 { ids.append("") }
        let m: String = mode == .threeD ? "3" : mode == .twoD ? "2" : "1"
        return Self.sentence(talker + "GSA,A," + m + "," + ids.joined(separator: ",") + ","
                             + [Self.fixed(pdop, 1), Self.fixed(hdop, 1), Self.fixed(vdop, 1)].joined(separator: ","))
    }

    /// GSV sentences (4 satellites each) for a list of (id, elevation, azimuth, snr).
    public func gsv(_ sats: [(id: Int, elevation: Double?, azimuth: Double?, snr: Double?)]) -> [String] {
        let total = max(1, (sats.count + 3) / 4)
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
        Self.sentence("HEHDT," + Self.fixed(h.map(Angle.normalizedDegrees), 1) + ",T")
    }

    /// HDM: magnetic heading.
    public func hdm(headingMagneticDegrees h: Double?) -> String {
        Self.sentence("HEHDM," + Self.fixed(h.map(Angle.normalizedDegrees), 1) + ",M")
    }

    /// HDG: magnetic sensor heading with deviation and variation (east positive).
    public func hdg(sensorDegrees h: Double?, deviationDegrees dev: Double?, variationDegrees v: Double?) -> String {
        let f = [Self.fixed(h.map(Angle.normalizedDegrees), 1),
                 Self.fixed(dev.map(abs), 1), dev.map { $0 < 0 ? "W" : "E" } ?? "",
                 Self.fixed(v.map(abs), 1), v.map { $0 < 0 ? "W" : "E" } ?? ""]
        return Self.sentence("HCHDG," + f.joined(separator: ","))
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
