/// A growable byte buffer for the output hot path: one allocation, direct stores, no uniqueness checks.
/// Non-copyable, so it has exactly one owner and frees its storage once.
public struct ByteBuffer: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    @usableFromInline var _count: Int = 0
    public var count: Int { _count }

    public init(capacity: Int = 1 << 16) {
        self.capacity = max(64, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    public var isEmpty: Bool { _count == 0 }

    @inlinable
    public mutating func reserve(_ extra: Int) {
        if _count + extra > capacity { grow(_count + extra) }
    }

    @usableFromInline
    mutating func grow(_ needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        p.update(from: base, count: _count)
        base.deallocate()
        base = p
        capacity = newCapacity
    }

    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) {
        if _count == capacity { grow(_count + 1) }
        base[_count] = byte
        _count += 1
    }

    @inlinable @inline(__always)
    public mutating func append(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        reserve(n)
        let src = s.utf8Start
        // Keys are short: a byte loop beats a memmove call.
        var i = 0
        while i < n { base[_count + i] = src[i]; i += 1 }
        _count += n
    }

    /// `,"key":` (the comma only when asked): one capacity check for the whole key.
    @inlinable @inline(__always)
    public mutating func appendJSONKey(_ k: StaticString, comma: Bool) {
        let n = k.utf8CodeUnitCount
        reserve(n + 4)
        var at = _count
        if comma { base[at] = 0x2C; at += 1 }
        base[at] = 0x22
        let src = k.utf8Start
        var i = 0
        while i < n { base[at + 1 + i] = src[i]; i += 1 }
        base[at + 1 + n] = 0x22
        base[at + 2 + n] = 0x3A
        _count = at + 3 + n
    }

    @inlinable
    public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let src = bytes.baseAddress else { return }
        reserve(bytes.count)
        (base + _count).update(from: src, count: bytes.count)
        _count += bytes.count
    }

    public mutating func append(_ bytes: [UInt8]) { bytes.withUnsafeBufferPointer { append($0) } }

    public mutating func append(string: String) {
        var s = string
        s.withUTF8 { append($0) }
    }

    /// Unsigned decimal digits.
    @inlinable
    public mutating func appendDecimal(_ value: UInt64) {
        reserve(20)
        if value < 10 { base[_count] = UInt8(truncatingIfNeeded: 0x30 &+ value); _count += 1; return }
        var digits = 1
        var t = value
        while t >= 10 { digits += 1; t /= 10 }
        var v = value
        var i = _count + digits
        do {
            let lut = ByteBuffer.pairs.utf8Start
            while v >= 100 {
                let r = Int(v % 100) * 2
                v /= 100
                i -= 2
                base[i] = lut[r]; base[i + 1] = lut[r + 1]
            }
            if v >= 10 {
                let r = Int(v) * 2
                i -= 2
                base[i] = lut[r]; base[i + 1] = lut[r + 1]
            } else {
                i -= 1
                base[i] = UInt8(truncatingIfNeeded: 0x30 &+ v)
            }
        }
        _count += digits
    }

    @inlinable
    public mutating func appendDecimal(_ value: Int) {
        if value < 0 { append(0x2D); appendDecimal(UInt64(-(value + 1)) + 1) } else { appendDecimal(UInt64(value)) }
    }

    /// `value` with exactly `decimals` places (0…9), rounded half away from zero; `null` for non-finite.
    @inlinable
    public mutating func appendFixed(_ value: Double, decimals: Int) {
        guard value.isFinite else { append("null"); return }
        let d = max(0, min(decimals, 9))
        let scale = ByteBuffer.power(d)
        let magnitude = abs(value)
        // Whole numbers (satellite elevations, azimuths, signal levels): the digits and d zeros, no division.
        if magnitude.rounded(.towardZero) == magnitude, magnitude * Double(scale) < 9.0e18 {
            let whole = UInt64(magnitude)
            if value < 0 && whole != 0 { append(0x2D) }
            appendDecimal(whole)
            if d > 0 {
                reserve(d + 1)
                base[_count] = 0x2E
                for k in 1...d { base[_count + k] = 0x30 }
                _count += d + 1
            }
            return
        }
        // Half to even, as printf's "%.*f" rounds a value exactly halfway (gpsd prints a u-blox sAcc of 125 mm as
        // eps 0.12; half up gave 0.13).
        let scaled = (magnitude * Double(scale)).rounded(.toNearestOrEven)
        guard scaled < 9.0e18 else { append(string: String(value)); return }
        let n = UInt64(scaled)
        if value < 0 && n != 0 { append(0x2D) }
        // Divided by a constant per case (a multiply, not a 64-bit division by a variable).
        let (whole, fraction) = ByteBuffer.split(n, decimals: d)
        appendDecimal(whole)
        if d > 0 {
            reserve(d + 1)
            base[_count] = 0x2E
            var frac = fraction
            var i = _count + d
            do {
                let lut = ByteBuffer.pairs.utf8Start
                while i - 1 > _count {
                    let r = Int(frac % 100) * 2
                    frac /= 100
                    base[i - 1] = lut[r]; base[i] = lut[r + 1]
                    i -= 2
                }
                if i > _count { base[i] = UInt8(truncatingIfNeeded: 0x30 &+ frac % 10) }
            }
            _count += d + 1
        }
    }

    /// "00" … "99" as bytes: two digits per division (a StaticString: no lazy initialisation on the hot path).
    @usableFromInline
    static let pairs: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// n / 10^d and n % 10^d, each case with a constant divisor.
    @inlinable @inline(__always)
    static func split(_ n: UInt64, decimals d: Int) -> (UInt64, UInt64) {
        switch d {
        case 0: (n, 0)
        case 1: (n / 10, n % 10)
        case 2: (n / 100, n % 100)
        case 3: (n / 1000, n % 1000)
        case 4: (n / 10_000, n % 10_000)
        case 5: (n / 100_000, n % 100_000)
        case 6: (n / 1_000_000, n % 1_000_000)
        case 7: (n / 10_000_000, n % 10_000_000)
        case 8: (n / 100_000_000, n % 100_000_000)
        default: (n / 1_000_000_000, n % 1_000_000_000)
        }
    }

    @inlinable @inline(__always)
    static func power(_ d: Int) -> UInt64 {
        switch d {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        case 8: 100_000_000
        default: 1_000_000_000
        }
    }

    /// The bytes written so far (valid until the next mutation).
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: _count))
    }

    public mutating func removeAll() { _count = 0 }

    /// Drops the last byte (nothing when empty).
    public mutating func removeLast() { if _count > 0 { _count -= 1 } }

    public var array: [UInt8] { Array(UnsafeBufferPointer(start: base, count: _count)) }
}
