#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LodestarGeoData

/// A little-endian array read in place from the embedded blob (zero-copy).
struct RawArray<T: FixedWidthInteger>: @unchecked Sendable {
    let base: UnsafeRawPointer
    let count: Int

    @inline(__always) subscript(i: Int) -> T {
        T(littleEndian: base.loadUnaligned(fromByteOffset: i &* MemoryLayout<T>.size, as: T.self))
    }

    /// Starts loading element i's cache line.
    @inline(__always) func prefetch(_ i: Int) { lodestar_prefetch(base + i &* MemoryLayout<T>.size) }
}

/// Errors found while opening the embedded geodata (a corrupt or foreign blob).
public enum GeoDataError: Error, Sendable, Equatable {
    case missing
    case badMagic
    case unsupportedVersion(UInt32)
    case truncated(String)
}

/// Sequential reader over one section.
struct SectionReader {
    let base: UnsafeRawPointer
    let length: Int
    var offset = 0

    mutating func u32() throws(GeoDataError) -> UInt32 {
        guard offset + 4 <= length else { throw .truncated("header") }
        defer { offset += 4 }
        return UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    mutating func array<T: FixedWidthInteger>(_ count: Int, _ name: String) throws(GeoDataError) -> RawArray<T> {
        let bytes = count * MemoryLayout<T>.size
        guard count >= 0, offset + bytes <= length else { throw .truncated(name) }
        defer { offset += bytes }
        return RawArray(base: base + offset, count: count)
    }

    mutating func align4() { offset = (offset + 3) & ~3 }
}

/// The parsed section table of the embedded blob (magic "LSGEODAT", version 1). See docs/geocoding.md.
struct GeoBlob: @unchecked Sendable {
    let base: UnsafeRawPointer
    let length: Int
    var sections: [String: (offset: Int, length: Int)] = [:]

    init(base: UnsafeRawPointer, length: Int) throws(GeoDataError) {
        self.base = base
        self.length = length
        guard length >= 16 else { throw .missing }
        let magic = Array(UnsafeRawBufferPointer(start: base, count: 8))
        guard magic == Array("LSGEODAT".utf8) else { throw .badMagic }
        let version = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        guard version == 1 else { throw .unsupportedVersion(version) }
        let count = Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 12, as: UInt32.self)))
        guard 16 + count * 12 <= length else { throw .truncated("section table") }
        for i in 0..<count {
            let entry = 16 + i * 12
            let tag = String(decoding: UnsafeRawBufferPointer(start: base + entry, count: 4), as: UTF8.self)
            let offset = Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: entry + 4, as: UInt32.self)))
            let size = Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: entry + 8, as: UInt32.self)))
            guard offset + size <= length else { throw .truncated(tag) }
            sections[tag] = (offset, size)
        }
    }

    func reader(_ tag: String) throws(GeoDataError) -> SectionReader {
        guard let s = sections[tag] else { throw .truncated(tag) }
        return SectionReader(base: base + s.offset, length: s.length)
    }

    static func embedded() throws(GeoDataError) -> GeoBlob {
        var length = 0
        guard let p = lodestar_geodata(&length) else { throw .missing }
        return try GeoBlob(base: UnsafeRawPointer(p), length: length)
    }
}

/// Length-prefixed UTF-8 strings (u16 length + bytes) addressed by byte offset.
struct StringTable: @unchecked Sendable {
    static let none: UInt32 = 0xFFFF_FFFF
    let base: UnsafeRawPointer
    let length: Int

    func bytes(_ offset: UInt32) -> UnsafeRawBufferPointer {
        let o = Int(offset)
        guard offset != Self.none, o + 2 <= length else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        let n = Int(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: o, as: UInt16.self)))
        guard o + 2 + n <= length else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: base + o + 2, count: n)
    }

    func string(_ offset: UInt32) -> String? {
        guard offset != Self.none else { return nil }
        let b = bytes(offset)
        return b.count == 0 ? nil : String(decoding: b, as: UTF8.self)
    }
}

/// A grid layer of regions (countries or time zones): run-length rows of 0.1° cells; a cell is either entirely in
/// one region (or none), or "mixed" with the candidate regions, whether each holds the cell centre, and the polygon
/// edges crossing the cell. A point in a mixed cell is classified by counting the crossings of the segment from the
/// cell centre to the point with each candidate's edges (exact for the stored polygons).
struct RegionLayer: @unchecked Sendable {
    let cellsPerDegree: Int
    let rows: Int
    let columns: Int
    let regionCount: Int
    let cell: Int64
    let rowStart: RawArray<UInt32>
    let runValue: RawArray<UInt32>
    let runColumn: RawArray<UInt16>
    let candidateStart: RawArray<UInt32>
    let edgeStart: RawArray<UInt32>
    let candidateRegion: RawArray<UInt16>
    let candidateCentreInside: RawArray<UInt8>
    let edgeRefs: RawArray<UInt32>
    let vertices: RawArray<Int32>
    /// Built at load, for each row and block of `blockColumns` columns: the runs covering the block (first and last)
    /// and, when one run covers it all, that run's value — most lookups then read one entry.
    struct Block { var first: UInt32; var last: UInt32; var value: UInt32 }
    let blocks: [Block]
    let blocksPerRow: Int
    static let blockColumns = 32

    init(_ r: SectionReader) throws(GeoDataError) {
        var r = r
        cellsPerDegree = Int(try r.u32())
        rows = Int(try r.u32())
        columns = Int(try r.u32())
        regionCount = Int(try r.u32())
        let runs = Int(try r.u32()), mixed = Int(try r.u32()), candidates = Int(try r.u32())
        let refs = Int(try r.u32()), verts = Int(try r.u32())
        guard cellsPerDegree > 0, rows == 180 * cellsPerDegree, columns == 360 * cellsPerDegree else {
            throw .truncated("grid shape")
        }
        cell = Int64(1_000_000 / cellsPerDegree)
        rowStart = try r.array(rows + 1, "rowStart")
        runValue = try r.array(runs, "runValue")
        runColumn = try r.array(runs, "runColumn"); r.align4()
        candidateStart = try r.array(mixed + 1, "candidateStart")
        edgeStart = try r.array(candidates + 1, "edgeStart")
        candidateRegion = try r.array(candidates, "candidateRegion"); r.align4()
        candidateCentreInside = try r.array(candidates, "candidateCentreInside"); r.align4()
        edgeRefs = try r.array(refs, "edgeRefs")
        vertices = try r.array(verts * 2, "vertices")
        // Validate the indices a lookup follows, so a corrupt blob cannot read out of bounds.
        for i in 0..<rows where rowStart[i] > rowStart[i + 1] || Int(rowStart[i + 1]) > runs { throw .truncated("rows") }
        guard rowStart[0] == 0, Int(candidateStart[mixed]) <= candidates, Int(edgeStart[candidates]) <= refs else {
            throw .truncated("mixed cells")
        }
        for i in 0..<refs where Int(edgeRefs[i]) + 1 >= verts { throw .truncated("edge refs") }
        for i in 0..<runs {
            let v = runValue[i]
            if v == Self.farFromPlaces { continue }
            if v & 0x8000_0000 != 0 ? Int(v & 0x7FFF_FFFF) >= mixed : Int(v) > regionCount { throw .truncated("runs") }
        }
        for i in 0..<rows {
            let a = Int(rowStart[i]), b = Int(rowStart[i + 1])
            guard a < b, runColumn[a] == 0 else { throw .truncated("row runs") }
            for k in a + 1 ..< b where runColumn[k - 1] >= runColumn[k] || Int(runColumn[k]) >= columns {
                throw .truncated("row runs")
            }
        }
        let bpr = (columns + Self.blockColumns - 1) / Self.blockColumns
        var table: [Block] = []
        table.reserveCapacity(rows * bpr)
        for row in 0..<rows {
            var k = Int(rowStart[row])
            let end = Int(rowStart[row + 1])
            for b in 0..<bpr {
                let col = b * Self.blockColumns
                while k + 1 < end && Int(runColumn[k + 1]) <= col { k += 1 }
                var last = k
                let lastCol = Swift.min(col + Self.blockColumns, columns) - 1
                while last + 1 < end && Int(runColumn[last + 1]) <= lastCol { last += 1 }
                table.append(Block(first: UInt32(k), last: UInt32(last), value: runValue[k]))
            }
        }
        blocks = table
        blocksPerRow = bpr
        for i in 0..<mixed where candidateStart[i] > candidateStart[i + 1] { throw .truncated("candidates") }
        for i in 0..<candidates where edgeStart[i] > edgeStart[i + 1] || Int(candidateRegion[i]) >= regionCount {
            throw .truncated("candidate edges")
        }
    }

    /// Run value of a cell outside every region with no place within the coast tolerance of any of its points
    /// (country layer only): `region` returns `outsideFarFromPlaces` there.
    static let farFromPlaces: UInt32 = 0x7FFF_FFFF
    static let outsideFarFromPlaces = -2

    /// The region index holding the point (micro-degrees), -1 for none, or `outsideFarFromPlaces` (-2) for none in a
    /// cell far from every place.
    @inline(__always)
    func region(latE6 y: Int64, lonE6 x: Int64) -> Int {
        let (row, col) = cellOf(latE6: y, lonE6: x)
        let v = runValueAt(row: row, col: col)
        if v == Self.farFromPlaces { return Self.outsideFarFromPlaces }
        if v & 0x8000_0000 == 0 { return Int(v) - 1 }
        let mixed = Int(v & 0x7FFF_FFFF)
        let cx = Int64(col) * cell - 180_000_000 + cell / 2
        let cy = Int64(row) * cell - 90_000_000 + cell / 2
        for k in Int(candidateStart[mixed])..<Int(candidateStart[mixed + 1]) {
            var inside = candidateCentreInside[k] != 0
            for e in Int(edgeStart[k])..<Int(edgeStart[k + 1]) {
                let v0 = Int(edgeRefs[e]) * 2
                let ax = Int64(vertices[v0]), ay = Int64(vertices[v0 + 1])
                let bx = Int64(vertices[v0 + 2]), by = Int64(vertices[v0 + 3])
                if Self.crosses(cx, cy, x, y, ax, ay, bx, by) { inside.toggle() }
            }
            if inside { return Int(candidateRegion[k]) }
        }
        return -1
    }

    /// The region whose boundary passes nearest to the point, if within `maxMeters` (edges of the mixed cells around
    /// the point; local equirectangular metres). For points just outside a simplified coast.
    func nearestBoundaryRegion(latE6 y: Int64, lonE6 x: Int64, maxMeters: Double) -> (region: Int, meters: Double)? {
        let metersPerMicroDegree = 6_371_008.8 * Double.pi / 180 / 1e6
        let latRad = Double(y) / 1e6 * Double.pi / 180
        let cosLat = Swift.max(cos(latRad), 1e-6)
        let (row, col) = cellOf(latE6: y, lonE6: x)
        let cellMeters = Double(cell) * metersPerMicroDegree
        let dr = Int((maxMeters / cellMeters).rounded(.up))
        let dc = Swift.min(columns / 2, Int((maxMeters / (cellMeters * cosLat)).rounded(.up)))
        var best: (region: Int, meters: Double)? = nil
        var best2 = maxMeters * maxMeters
        for r in Swift.max(0, row - dr)...Swift.min(rows - 1, row + dr) {
            for c0 in (col - dc)...(col + dc) {
                let c = (c0 % columns + columns) % columns
                let v = runValueAt(row: r, col: c)
                guard v & 0x8000_0000 != 0, v != Self.farFromPlaces else { continue }
                let mixed = Int(v & 0x7FFF_FFFF)
                for k in Int(candidateStart[mixed])..<Int(candidateStart[mixed + 1]) {
                    for e in Int(edgeStart[k])..<Int(edgeStart[k + 1]) {
                        let v0 = Int(edgeRefs[e]) * 2
                        let ax = Double(Int64(vertices[v0]) - x) * cosLat, ay = Double(Int64(vertices[v0 + 1]) - y)
                        let bx = Double(Int64(vertices[v0 + 2]) - x) * cosLat, by = Double(Int64(vertices[v0 + 3]) - y)
                        let ex = bx - ax, ey = by - ay
                        let len2 = ex * ex + ey * ey
                        let t = len2 > 0 ? Swift.min(1, Swift.max(0, -(ax * ex + ay * ey) / len2)) : 0
                        let px = (ax + t * ex) * metersPerMicroDegree, py = (ay + t * ey) * metersPerMicroDegree
                        let d2 = px * px + py * py
                        if d2 < best2 { best2 = d2; best = (Int(candidateRegion[k]), d2.squareRoot()) }
                    }
                }
            }
        }
        return best
    }

    /// Marks of `uniformDegreeValues`.
    static let notUniform: UInt32 = 0xFFFF_FFFF
    private static let unset: UInt32 = 0xFFFF_FFFE

    /// For each 1° cell (180 rows from -90°, 360 columns from -180°, row-major): the run value every cell of the layer
    /// in it has, or `notUniform` (different values, or a mixed cell).
    func uniformDegreeValues() -> [UInt32] {
        var out = [UInt32](repeating: Self.unset, count: 180 * 360)
        for row in 0..<rows {
            let base = (row / cellsPerDegree) * 360
            let end = Int(rowStart[row + 1])
            for k in Int(rowStart[row])..<end {
                let v = runValue[k]
                let first = Int(runColumn[k]), last = (k + 1 < end ? Int(runColumn[k + 1]) : columns) - 1
                for c in (first / cellsPerDegree)...(last / cellsPerDegree) {
                    let o = out[base + c]
                    if v & 0x8000_0000 != 0 { out[base + c] = Self.notUniform }
                    else if o == Self.unset { out[base + c] = v }
                    else if o != v { out[base + c] = Self.notUniform }
                }
            }
        }
        return out
    }

    /// Starts loading the block index entry of the point's cell (its first cache miss), to overlap with other work.
    @inline(__always)
    func prefetch(latE6 y: Int64, lonE6 x: Int64) {
        let (row, col) = cellOf(latE6: y, lonE6: x)
        blocks.withUnsafeBufferPointer { b in
            if let base = b.baseAddress { lodestar_prefetch(base + (row * blocksPerRow + col / Self.blockColumns)) }
        }
    }

    /// The cell holding the point (rows clamp at the poles, columns at ±180°).
    @inline(__always)
    func cellOf(latE6 y: Int64, lonE6 x: Int64) -> (row: Int, col: Int) {
        (Int(Swift.min(Swift.max((y + 90_000_000) / cell, 0), Int64(rows - 1))),
         Int(Swift.min(Swift.max((x + 180_000_000) / cell, 0), Int64(columns - 1))))
    }

    /// The value of the run holding the cell: from the block index, or by binary search among the block's runs.
    @inline(__always)
    func runValueAt(row: Int, col: Int) -> UInt32 {
        let block = blocks[row * blocksPerRow + col / Self.blockColumns]
        if block.first == block.last { return block.value }
        var lo = Int(block.first), hi = Int(block.last)
        while lo < hi {
            let mid = (lo + hi + 1) >> 1
            if Int(runColumn[mid]) <= col { lo = mid } else { hi = mid - 1 }
        }
        return runValue[lo]
    }

    @inline(__always)
    static func crosses(_ px: Int64, _ py: Int64, _ qx: Int64, _ qy: Int64,
                        _ ax: Int64, _ ay: Int64, _ bx: Int64, _ by: Int64) -> Bool {
        let d1 = (qx - px) * (ay - py) - (qy - py) * (ax - px)
        let d2 = (qx - px) * (by - py) - (qy - py) * (bx - px)
        guard (d1 > 0) != (d2 > 0) else { return false }
        let d3 = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
        let d4 = (bx - ax) * (qy - ay) - (by - ay) * (qx - ax)
        return (d3 > 0) != (d4 > 0)
    }
}
