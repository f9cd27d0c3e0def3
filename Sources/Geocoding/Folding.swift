/// Search normalisation shared with scripts/geodata/build.py: lower case, Latin diacritics removed (é→e, ü→u),
/// ligatures and special letters spelled out (ß→ss, æ→ae, ø→o, ł→l, đ→d, þ→th), every run of non-letters and
/// non-digits one space, trimmed. Letters of other scripts are kept (lower-cased).
public enum Folding {
    public static func fold(_ s: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        var pendingSpace = false
        @inline(__always) func emit(_ bytes: some Sequence<UInt8>) {
            if pendingSpace && !out.isEmpty { out.append(0x20) }
            pendingSpace = false
            out.append(contentsOf: bytes)
        }
        for scalar in s.unicodeScalars {
            let v = scalar.value
            if v < 0x80 {
                switch v {
                case 0x30...0x39, 0x61...0x7A: emit(CollectionOfOne(UInt8(v)))
                case 0x41...0x5A: emit(CollectionOfOne(UInt8(v + 0x20)))
                default: pendingSpace = true
                }
                continue
            }
            var mapped: String?
            if v >= 0xC0 && v < 0x250 { mapped = FoldTable.latin[Int(v - 0xC0)] }
            else if v >= 0x1E00 && v < 0x1F00 { mapped = FoldTable.additional[Int(v - 0x1E00)] }
            if let m = mapped, !m.isEmpty {
                emit(m.utf8)
            } else if scalar.properties.isAlphabetic && !(0x300...0x36F).contains(v) {
                emit(scalar.properties.lowercaseMapping.utf8)
            } else {
                pendingSpace = true
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
