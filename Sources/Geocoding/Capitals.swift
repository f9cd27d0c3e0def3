import LodestarGeoData

/// National capitals (GeoNames PPLC, PPLG) and first-order administrative seats (PPLA) by GeoNames id, from the
/// embedded `capitals.bin` (scripts/geodata/capitals.py; format there). Forward search weighs them.
struct Capitals: Sendable {
    enum Rank: Int { case none = 0, admin1Seat = 1, national = 2 }
    let national: [UInt32]
    let admin1: [UInt32]

    static let embedded: Capitals = {
        var length = 0
        guard let p = lodestar_capitals(&length), length >= 20 else { return Capitals(national: [], admin1: []) }
        let raw = UnsafeRawBufferPointer(start: p, count: length)
        guard Array(raw[0..<8]) == Array("LSCAPITL".utf8) else { return Capitals(national: [], admin1: []) }
        func u32(_ offset: Int) -> UInt32 { UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        let n = Int(u32(12)), m = Int(u32(16))
        guard u32(8) == 1, 20 + 4 * (n + m) <= length else { return Capitals(national: [], admin1: []) }
        return Capitals(national: (0..<n).map { u32(20 + 4 * $0) }, admin1: (0..<m).map { u32(20 + 4 * (n + $0)) })
    }()

    func rank(_ id: UInt32) -> Rank {
        if Self.contains(national, id) { return .national }
        if Self.contains(admin1, id) { return .admin1Seat }
        return .none
    }

    static func contains(_ a: [UInt32], _ v: UInt32) -> Bool {
        var lo = 0, hi = a.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if a[mid] < v { lo = mid + 1 } else { hi = mid }
        }
        return lo < a.count && a[lo] == v
    }
}
