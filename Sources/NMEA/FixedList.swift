/// A list of at most `capacity` elements stored inline (no heap allocation), for per-sentence lists such as
/// GSA satellite ids and GSV entries on the parse hot path.
public struct FixedList<let capacity: Int, Element: Hashable & Sendable>: Hashable, Sendable, RandomAccessCollection {
    private var storage: InlineArray<capacity, Element?>
    public private(set) var count: Int

    public init() {
        storage = InlineArray(repeating: nil)
        count = 0
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
        count += 1
        return true
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> Element {
        // Indices outside 0..<count are a programming error in Lodestar, never reachable from input.
        storage[position]!
    }

    public static func == (a: Self, b: Self) -> Bool { a.elementsEqual(b) }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for e in self { hasher.combine(e) }
    }
}
