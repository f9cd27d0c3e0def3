/// `Location`'s optional fields in the space of the value alone: a `Double?` takes 16 bytes (8 and a tag byte,
/// padded), so the fix was 496 bytes, and it is copied a few times at every stage of the pipeline. Each of these holds
/// one optional in 8 bytes, with a value no field takes standing for nil (NaN for a `Double`, the lowest `Int64` for an
/// `Int` and a time stamp). A NaN stored in a `Double?` field reads back as nil (a fix field is a measurement or
/// absent; no output writes a NaN). Equality and hashing are those of the optional.
@frozen
public struct PackedDouble: Sendable, Hashable {
    @usableFromInline var raw: Double
    @inlinable public init() { raw = .nan }
    @inlinable public init(_ value: Double?) { raw = value ?? .nan }
    @inlinable public var value: Double? { raw.isNaN ? nil : raw }
    @inlinable public static func == (a: Self, b: Self) -> Bool { a.value == b.value }
    @inlinable public func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

/// An `Int?` in 8 bytes: `Int.min` is nil (no count, station or second count takes it).
@frozen
public struct PackedInt: Sendable, Hashable {
    @usableFromInline var raw: Int
    @inlinable public init() { raw = .min }
    @inlinable public init(_ value: Int?) { raw = value ?? .min }
    @inlinable public var value: Int? { raw == .min ? nil : raw }
}

/// A `Timestamp?` in 8 bytes: the lowest nanosecond count (292 years before 1970) is nil.
@frozen
public struct PackedTimestamp: Sendable, Hashable {
    @usableFromInline var raw: Int64
    @inlinable public init() { raw = .min }
    @inlinable public init(_ value: Timestamp?) { raw = value?.nanosecondsSince1970 ?? .min }
    @inlinable public var value: Timestamp? { raw == .min ? nil : Timestamp(nanosecondsSince1970: raw) }
}
