/// Zero-copy view of a sentence's comma-separated fields. Field 0 is the address (`GPGGA`).
/// An empty field reads as nil from every accessor, never as 0.
public struct NMEAFields {
    @usableFromInline let base: UnsafePointer<UInt8>
    /// starts[i] is the offset of field i; starts[count] is one past the end plus one (a virtual comma).
    @usableFromInline let starts: UnsafePointer<Int32>
    public let count: Int

    @usableFromInline init(base: UnsafePointer<UInt8>, starts: UnsafePointer<Int32>, count: Int) {
        self.base = base; self.starts = starts; self.count = count
    }

    @inlinable
    public func range(_ i: Int) -> (start: Int, end: Int) {
        guard i >= 0 && i < count else { return (0, 0) }
        return (Int(starts[i]), Int(starts[i + 1]) - 1)
    }

    @inlinable
    public func isEmpty(_ i: Int) -> Bool { let r = range(i); return r.end <= r.start }

    @inlinable
    public func bytes(_ i: Int) -> UnsafeBufferPointer<UInt8> {
        let r = range(i)
        return UnsafeBufferPointer(start: base + r.start, count: max(0, r.end - r.start))
    }

    public func string(_ i: Int) -> String? {
        let b = bytes(i)
        return b.isEmpty ? nil : String(decoding: b, as: UTF8.self)
    }

    /// First character of a field (status letters, hemispheres), nil when empty.
    @inlinable
    public func character(_ i: Int) -> UInt8? {
        let r = range(i)
        return r.end > r.start ? base[r.start] : nil
    }

    /// A decimal number with optional sign and fraction. nil when empty or not a number.
    @inlinable
    public func double(_ i: Int) -> Double? {
        let r = range(i)
        return NumberParser.decimal(base + r.start, r.end - r.start)?.value
    }

    /// A number that is physically possible here; an impossible value (elevation −95°, azimuth 720°) is unknown.
    @inlinable
    public func double(_ i: Int, in valid: ClosedRange<Double>) -> Double? {
        guard let v = double(i), valid.contains(v) else { return nil }
        return v
    }

    @inlinable
    public func int(_ i: Int, in valid: ClosedRange<Int>) -> Int? {
        guard let v = int(i), valid.contains(v) else { return nil }
        return v
    }

    /// A non-negative or signed integer field. nil when empty, fractional or not a number.
    @inlinable
    public func int(_ i: Int) -> Int? {
        let r = range(i)
        return NumberParser.integer(base + r.start, r.end - r.start)
    }

    /// `ddmm.mmmm` / `dddmm.mmmm` plus a hemisphere field → signed degrees. nil when either is empty or invalid.
    @inlinable
    public func coordinate(_ i: Int, hemisphere h: Int, maximumDegrees: Double) -> Double? {
        let r = range(i)
        guard let parsed = NumberParser.decimal(base + r.start, r.end - r.start), let hemi = character(h),
              parsed.value >= 0 else { return nil }
        let raw = parsed.value
        let degrees = (raw / 100).rounded(.towardZero)
        let minutes = raw - degrees * 100
        guard minutes < 60 else { return nil }
        var value = degrees + minutes / 60
        switch hemi {
        case 0x4E, 0x45: break            // N, E
        case 0x53, 0x57: value = -value   // S, W
        default: return nil
        }
        guard abs(value) <= maximumDegrees else { return nil }
        return value
    }

    /// `hhmmss[.sss]` → time of day, nil when empty or out of range.
    @inlinable
    public func time(_ i: Int) -> NMEATime? {
        let r = range(i)
        return NMEATime.parse(base + r.start, r.end - r.start)
    }
}

/// A UTC time of day with the receiver's precision.
public struct NMEATime: Sendable, Hashable {
    public var nanosecondOfDay: Int64
    public var fractionDigits: Int

    public init(nanosecondOfDay: Int64, fractionDigits: Int) {
        self.nanosecondOfDay = nanosecondOfDay; self.fractionDigits = fractionDigits
    }

    public init?(hour: Int, minute: Int, second: Int, nanosecond: Int = 0, fractionDigits: Int = 0) {
        guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        nanosecondOfDay = Int64(hour * 3600 + minute * 60 + second) * 1_000_000_000 + Int64(nanosecond)
        self.fractionDigits = fractionDigits
    }

    @usableFromInline
    static func parse(_ p: UnsafePointer<UInt8>, _ n: Int) -> NMEATime? {
        guard n >= 6 else { return nil }
        @inline(__always) func pair(_ k: Int) -> Int? {
            let a = p[k] &- 0x30, b = p[k + 1] &- 0x30
            return a < 10 && b < 10 ? Int(a) * 10 + Int(b) : nil
        }
        guard let hh = pair(0), let mm = pair(2), let ss = pair(4) else { return nil }
        var nano: Int64 = 0
        var digits = 0
        if n > 6 {
            guard p[6] == 0x2E else { return nil }
            var scale: Int64 = 100_000_000
            var k = 7
            while k < n {
                let d = p[k] &- 0x30
                guard d < 10 else { return nil }
                nano += Int64(d) * scale
                scale /= 10
                digits += 1
                k += 1
            }
        }
        guard hh < 24, mm < 60, ss <= 60 else { return nil }
        return NMEATime(nanosecondOfDay: Int64(hh * 3600 + mm * 60 + ss) * 1_000_000_000 + nano,
                        fractionDigits: digits)
    }
}

/// A calendar date as the sentence gave it; two-digit years are resolved later against a reference date.
public struct NMEADate: Sendable, Hashable {
    public var day: Int
    public var month: Int
    /// Four-digit year, or 0...99 when `twoDigitYear`.
    public var year: Int
    public var twoDigitYear: Bool

    public init(day: Int, month: Int, year: Int, twoDigitYear: Bool) {
        self.day = day; self.month = month; self.year = year; self.twoDigitYear = twoDigitYear
    }
}

/// Allocation-free number parsing over bytes.
public enum NumberParser {
    @usableFromInline
    static let powersOfTen: [Double] = (0...22).map { k in
        var v = 1.0
        for _ in 0..<k { v *= 10 }
        return v
    }

    /// Parses `[+-]digits[.digits]`. Returns the value and the number of fraction digits.
    /// Exact for up to 19 significant digits (one correctly-rounded division).
    @inlinable
    public static func decimal(_ p: UnsafePointer<UInt8>, _ n: Int) -> (value: Double, fractionDigits: Int)? {
        guard n > 0 else { return nil }
        var i = 0
        var negative = false
        if p[0] == 0x2D { negative = true; i = 1 } else if p[0] == 0x2B { i = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var fraction = 0
        var seenDot = false
        var extraIntegerDigits = 0
        while i < n {
            let c = p[i]
            let d = c &- 0x30
            if d < 10 {
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    digits += 1
                    if seenDot { fraction += 1 }
                } else if !seenDot {
                    extraIntegerDigits += 1
                }
            } else if c == 0x2E && !seenDot {
                seenDot = true
            } else {
                return nil
            }
            i += 1
        }
        guard digits > 0 || extraIntegerDigits > 0 else { return nil }
        var value = Double(mantissa)
        if fraction > 0 { value /= powersOfTen[fraction] }
        if extraIntegerDigits > 0 { value *= powersOfTen[min(extraIntegerDigits, 22)] }
        return (negative ? -value : value, fraction)
    }

    @inlinable
    public static func integer(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int? {
        guard n > 0, n <= 18 else { return nil }
        var i = 0
        var negative = false
        if p[0] == 0x2D { negative = true; i = 1 } else if p[0] == 0x2B { i = 1 }
        guard i < n else { return nil }
        var v = 0
        while i < n {
            let d = p[i] &- 0x30
            guard d < 10 else { return nil }
            v = v * 10 + Int(d)
            i += 1
        }
        return negative ? -v : v
    }
}
