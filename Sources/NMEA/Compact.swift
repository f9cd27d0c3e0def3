/// Optional numbers of the parsed sentences stored without an Optional's tag byte: `Double?` as a Double with NaN
/// for nil, `Int?` as an Int with `Int.min` for nil. A field of `Double?` takes 16 bytes in a struct (8 + tag +
/// padding); these take 8. The parse path returns every sentence by value through several calls, and above 128
/// bytes each copy became a `memcpy` call (a quarter of parse-only time, docs/benchmarks.md); GGA went from 161 to
/// under 100 bytes. The parser never produces NaN or `Int.min` (numbers are parsed from at most 18 digits), so nil
/// stays unambiguous. Reads and writes look like the Optional they replace.
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
