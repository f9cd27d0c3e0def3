/// A list of at most `capacity` elements stored inline (no heap allocation), for per-sentence lists such as
/// GSA satellite ids and GSV entries on the parse hot path. Slots past `count` hold the element type's
/// `placeholder` rather than being Optional, and the count is one byte: a GSA's 16 ids take 33 bytes, not 72 (the
/// parse path copies sentences by value; see Compact.swift).
public struct FixedList<let capacity: Int, Element: FixedListElement>: Hashable, Sendable, RandomAccessCollection {
    private var storage: InlineArray<capacity, Element>
    private var storedCount: UInt8
    public var count: Int { Int(storedCount) }

    public init() {
        precondition(capacity <= 255)
        storage = InlineArray(repeating: Element.placeholder)
        storedCount = 0
    }

    public init(_ elements: [Element]) {
        self.init()
        for e in elements { _ = append(e) }
    }

    /// Appends unless full; returns false when the element did not fit.
    @discardableResult
    public mutating func append(_ element: Element) -> Bool {
        guard count < capacity else { return false }
        storage[count] = element
        storedCount += 1
        return true
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> Element {
        // Indices outside 0..<count are a programming error in Lodestar, never reachable from input.
        storage[position]
    }

    public static func == (a: Self, b: Self) -> Bool { a.elementsEqual(b) }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for e in self { hasher.combine(e) }
    }
}

/// An element of a `FixedList`: a value for the unused slots.
public protocol FixedListElement: Hashable, Sendable { static var placeholder: Self { get } }
extension Int16: FixedListElement { public static var placeholder: Int16 { 0 } }
extension UInt8: FixedListElement { public static var placeholder: UInt8 { 0 } }
extension GSVSatellite: FixedListElement {
    public static var placeholder: GSVSatellite { GSVSatellite(id: 0, elevationDegrees: nil, azimuthDegrees: nil, snrDBHz: nil) }
}
