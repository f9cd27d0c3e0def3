/// A UTC instant with nanosecond resolution (nanoseconds since 1970-01-01T00:00:00Z, leap seconds not counted,
/// like POSIX time). Receivers report UTC to a few decimals; this keeps every digit exactly.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanosecondsSince1970: Int64

    @inlinable public init(nanosecondsSince1970: Int64) { self.nanosecondsSince1970 = nanosecondsSince1970 }

    public init(secondsSince1970: Double) {
        self.nanosecondsSince1970 = Int64((secondsSince1970 * 1e9).rounded())
    }

    /// A civil UTC date and time. Returns nil for out-of-range components.
    public init?(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, nanosecond: Int = 0) {
        guard (1...12).contains(month), (1...31).contains(day), day <= CivilDate.daysIn(month: month, year: year),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
              (0..<1_000_000_000).contains(nanosecond), (1900...2200).contains(year) else { return nil }
        let days = CivilDate(year: year, month: month, day: day).daysSince1970
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        self.nanosecondsSince1970 = seconds * 1_000_000_000 + Int64(nanosecond)
    }

    public var secondsSince1970: Double { Double(nanosecondsSince1970) / 1e9 }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.nanosecondsSince1970 < b.nanosecondsSince1970 }

    public func adding(nanoseconds: Int64) -> Timestamp { Timestamp(nanosecondsSince1970: nanosecondsSince1970 &+ nanoseconds) }

    /// Days since 1970 (floored) and nanoseconds into that day.
    public var dayAndNanoOfDay: (day: Int64, nanoOfDay: Int64) {
        let perDay: Int64 = 86_400_000_000_000
        var day = nanosecondsSince1970 / perDay
        var rem = nanosecondsSince1970 % perDay
        if rem < 0 { rem += perDay; day -= 1 }
        return (day, rem)
    }

    public var civilDate: CivilDate { CivilDate(daysSince1970: Int(dayAndNanoOfDay.day)) }

    /// ISO 8601 with `fractionDigits` decimals (0...9), e.g. 2001-06-06T22:53:08.000Z (gpsd uses 3).
    public func iso8601(fractionDigits: Int = 3) -> String {
        var out = ByteBuffer(capacity: 64)
        appendISO8601(to: &out, fractionDigits: fractionDigits)
        return String(decoding: out.array, as: UTF8.self)
    }

    /// Appends the ISO 8601 form to a ByteBuffer (the output hot path).
    /// With `leapSecond`, the instant is a leap second's (POSIX repeats the next second): written as 23:59:60.
    public func appendISO8601(to out: inout ByteBuffer, fractionDigits: Int = 3, leapSecond: Bool = false) {
        let (day, nano) = leapSecond ? Timestamp(nanosecondsSince1970: nanosecondsSince1970 - 1_000_000_000).dayAndNanoOfDay
                                     : dayAndNanoOfDay
        let date = CivilDate(daysSince1970: Int(day))
        let secs = Int(nano / 1_000_000_000)
        out.reserve(32)
        Self.put(&out, date.year, 4); out.append(0x2D)
        Self.put(&out, date.month, 2); out.append(0x2D)
        Self.put(&out, date.day, 2); out.append(0x54)
        Self.put(&out, secs / 3600, 2); out.append(0x3A)
        Self.put(&out, secs / 60 % 60, 2); out.append(0x3A)
        Self.put(&out, secs % 60 + (leapSecond && secs % 60 == 59 ? 1 : 0), 2)
        let digits = max(0, min(9, fractionDigits))
        if digits > 0 {
            out.append(0x2E)
            var divisor: Int64 = 1_000_000_000
            for _ in 0..<digits { divisor /= 10 }
            var scaled = (nano % 1_000_000_000 + divisor / 2) / divisor
            var limit: Int64 = 1
            for _ in 0..<digits { limit *= 10 }
            if scaled >= limit { scaled = limit - 1 }
            Self.put(&out, Int(scaled), digits)
        }
        out.append(0x5A)
    }

    @inline(__always)
    static func put(_ out: inout ByteBuffer, _ value: Int, _ width: Int) {
        var divisor = 1
        for _ in 1..<max(1, width) { divisor *= 10 }
        var v = max(0, value) % (divisor * 10)
        while divisor > 0 { out.append(UInt8(truncatingIfNeeded: 0x30 + v / divisor)); v %= divisor; divisor /= 10 }
    }

    public var description: String { iso8601(fractionDigits: 3) }

    /// The one ISO 8601 reader: `YYYY-MM-DDThh:mm:ss[.fraction]Z` in UTC, as Lodestar and gpsd write times. The
    /// fraction has at least one digit; digits past the ninth (below a nanosecond) are dropped. Nil for anything
    /// else, including out-of-range fields (month 13, February 30, hour 24).
    public static func parseISO8601(_ text: String) -> Timestamp? {
        let u = Array(text.utf8)
        guard u.count >= 20, u[4] == 0x2D, u[7] == 0x2D, u[10] == 0x54, u[13] == 0x3A, u[16] == 0x3A, u.last == 0x5A
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var v = 0
            for i in range { let d = Int(u[i]) - 0x30; guard (0...9).contains(d) else { return nil }; v = v * 10 + d }
            return v
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return nil }
        var nanosecond = 0
        if u.count > 20 {
            let fraction = u[20..<(u.count - 1)]
            guard u[19] == 0x2E, !fraction.isEmpty, fraction.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            var scale = 100_000_000
            for c in fraction.prefix(9) { nanosecond += (Int(c) - 0x30) * scale; scale /= 10 }
        }
        return Timestamp(year: year, month: month, day: day, hour: hour, minute: minute, second: second, nanosecond: nanosecond)
    }
}

/// A proleptic Gregorian date. Conversions from Howard Hinnant's `days_from_civil` algorithm.
public struct CivilDate: Hashable, Sendable {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) { self.year = year; self.month = month; self.day = day }

    public init(daysSince1970 z0: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.year = yoe + era * 400 + (m <= 2 ? 1 : 0)
        self.month = m
        self.day = d
    }

    public var daysSince1970: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// `YYYY-MM-DD`.
    public var iso8601: String {
        func pad(_ v: Int, _ n: Int) -> String { let t = String(v); return String(repeating: "0", count: max(0, n - t.count)) + t }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    public static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Decimal year (for the magnetic model): 2025.5 is about July 2nd, 2025.
    public var decimalYear: Double {
        let start = CivilDate(year: year, month: 1, day: 1).daysSince1970
        let length = Self.isLeap(year) ? 366.0 : 365.0
        return Double(year) + Double(daysSince1970 - start) / length
    }
}
