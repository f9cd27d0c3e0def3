@testable import LodestarIO
import Testing
import TestSupport

/// The sinks' line scanning (memchr/memrchr) against the plain byte-loop definition, on random text.
@Suite("Line alignment of sink writes", .ownThreads)
struct LineAlignmentTests {
    static func referenceEnd(_ bytes: [UInt8], from start: Int, limit: Int) -> Int {
        var end = -1
        var i = start
        while i < bytes.count {
            if bytes[i] == 0x0A {
                if i + 1 - start > limit && end >= 0 { break }
                end = i + 1
                if end - start >= limit { break }
            }
            i += 1
        }
        return end < 0 ? bytes.count : end
    }

    @Test func matchesTheByteLoopDefinition() {
        var rng = SystemRandomNumberGenerator()
        var checked = 0
        for _ in 0..<2000 {
            let n = Int.random(in: 0...300, using: &rng)
            let density = Int.random(in: 1...40, using: &rng)
            let bytes = (0..<n).map { _ in Int.random(in: 0..<density, using: &rng) == 0 ? UInt8(0x0A) : UInt8(0x41) }
            let limit = Int.random(in: 1...64, using: &rng)
            let start = n == 0 ? 0 : Int.random(in: 0..<n, using: &rng)
            bytes.withUnsafeBytes { raw in
                #expect(lineAlignedEnd(raw, from: start, limit: limit) == Self.referenceEnd(bytes, from: start, limit: limit),
                        "\(bytes.count) bytes from \(start), limit \(limit)")
                #expect(lineCount(UnsafeRawBufferPointer(rebasing: raw[start...])) == bytes[start...].filter { $0 == 0x0A }.count)
            }
            checked += 1
        }
        #expect(checked == 2000)
    }
}
