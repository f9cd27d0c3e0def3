/// Bounds-checked little-endian reads from a payload: a read past the end gives 0 (decoders check lengths first,
/// so this only keeps a wrong offset from trapping).
struct LittleEndian {
    let bytes: UnsafeBufferPointer<UInt8>
    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var count: Int { bytes.count }

    @inline(__always) func u1(_ o: Int) -> UInt8 { o >= 0 && o < bytes.count ? bytes[o] : 0 }
    @inline(__always) func i1(_ o: Int) -> Int8 { Int8(bitPattern: u1(o)) }
    @inline(__always) func u2(_ o: Int) -> UInt16 { UInt16(u1(o)) | UInt16(u1(o + 1)) << 8 }
    @inline(__always) func i2(_ o: Int) -> Int16 { Int16(bitPattern: u2(o)) }
    @inline(__always) func u4(_ o: Int) -> UInt32 { UInt32(u2(o)) | UInt32(u2(o + 2)) << 16 }
    @inline(__always) func i4(_ o: Int) -> Int32 { Int32(bitPattern: u4(o)) }

    /// A NUL-terminated (or field-length) ASCII string of at most `length` bytes at `o`.
    func string(_ o: Int, length: Int) -> String {
        var out: [UInt8] = []
        var i = o
        while i < o + length && i < bytes.count && bytes[i] != 0 { out.append(bytes[i]); i += 1 }
        while let l = out.last, l == 0x20 { out.removeLast() }
        return String(decoding: out, as: UTF8.self)
    }
}
