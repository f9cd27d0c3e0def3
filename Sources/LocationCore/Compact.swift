/// Optional numbers stored without an Optional's tag byte: `Double?` as a Double with NaN for nil, `Int?` as an Int
/// with `Int.min` for nil, `Timestamp?` as its nanoseconds with `Int64.min` for nil. A field of `Double?` takes 16
/// bytes in a struct (8 + tag + padding); these take 8. The parse path returns every sentence by value through several
/// calls, and above 128 bytes each copy became a `memcpy` call (a quarter of parse-only time, docs/benchmarks.md); GGA
/// went from 161 to under 100 bytes. `Location` went from 496 to 288 bytes (2026-12-07). The parser never produces
/// NaN or `Int.min` (numbers are parsed from at most 18 digits), so nil stays unambiguous; a NaN written to a
/// `CompactDouble` reads back as nil. Reads and writes look like the Optional they replace; equality and hashing
/// are the Optional's.
@propertyWrapper
public struct CompactDouble: Sendable, Hashable {
    @usableFromInline var raw: Double
    @inlinable public init(wrappedValue: Double?) { raw = wrappedValue ?? .nan }
    @inlinable public var wrappedValue: Double? {
        get { raw.isNaN ? nil : raw }
        set { raw = newValue ?? .nan }
    }
    @inlinable public static func == (a: Self, b: Self) -> Bool { a.wrappedValue == b.wrappedValue }
    @inlinable public func hash(into h: inout Hasher) { h.combine(wrappedValue) }
}

/// See `CompactDouble`.
@propertyWrapper
public struct CompactInt: Sendable, Hashable {
    @usableFromInline var raw: Int
    @inlinable public init(wrappedValue: Int?) { raw = wrappedValue ?? .min }
    @inlinable public var wrappedValue: Int? {
        get { raw == .min ? nil : raw }
        set { raw = newValue ?? .min }
    }
}

/// See `CompactDouble`: `Int64.min` nanoseconds (292 years before 1970) is nil.
@propertyWrapper
public struct CompactTimestamp: Sendable, Hashable {
    @usableFromInline var raw: Int64
    @inlinable public init(wrappedValue: Timestamp?) { raw = wrappedValue?.nanosecondsSince1970 ?? .min }
    @inlinable public var wrappedValue: Timestamp? {
        get { raw == .min ? nil : Timestamp(nanosecondsSince1970: raw) }
        set { raw = newValue?.nanosecondsSince1970 ?? .min }
    }
}
