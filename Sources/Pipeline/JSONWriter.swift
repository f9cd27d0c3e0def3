import LocationCore
import NMEA

/// Minimal allocation-free JSON object writer over a byte buffer (the output hot path).
public struct JSONWriter {
    @usableFromInline var first = true

    public init() {}

    @inlinable
    public mutating func begin(_ out: inout [UInt8], class name: StaticString) {
        let prefix: StaticString = "{\"class\":\""
        out.append(contentsOf: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
        out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        out.append(0x22)
        first = false
    }

    @inlinable
    public mutating func end(_ out: inout [UInt8]) {
        out.append(0x7D)
        out.append(0x0A)
    }

    @inlinable
    mutating func key(_ out: inout [UInt8], _ k: StaticString) {
        if !first { out.append(0x2C) }
        first = false
        out.append(0x22)
        out.append(contentsOf: UnsafeBufferPointer(start: k.utf8Start, count: k.utf8CodeUnitCount))
        out.append(0x22); out.append(0x3A)
    }

    @inlinable
    public mutating func number(_ out: inout [UInt8], _ k: StaticString, _ v: Double?, decimals: Int) {
        guard let v, v.isFinite else { return }
        key(&out, k)
        FixedFormat.append(v, decimals: decimals, to: &out)
    }

    @inlinable
    public mutating func integer(_ out: inout [UInt8], _ k: StaticString, _ v: Int?) {
        guard let v else { return }
        key(&out, k)
        FixedFormat.appendInt(v, to: &out)
    }

    @inlinable
    public mutating func bool(_ out: inout [UInt8], _ k: StaticString, _ v: Bool?) {
        guard let v else { return }
        key(&out, k)
        out.append(contentsOf: v ? "true".utf8 : "false".utf8)
    }

    public mutating func string(_ out: inout [UInt8], _ k: StaticString, _ v: String?) {
        guard let v else { return }
        key(&out, k)
        Self.appendQuoted(v, to: &out)
    }

    @inlinable
    public mutating func time(_ out: inout [UInt8], _ k: StaticString, _ t: Timestamp?, fractionDigits: Int) {
        guard let t else { return }
        key(&out, k)
        out.append(0x22)
        t.appendISO8601(to: &out, fractionDigits: fractionDigits)
        out.append(0x22)
    }

    /// Writes a raw JSON fragment (an array or object built separately).
    public mutating func raw(_ out: inout [UInt8], _ k: StaticString, _ fragment: [UInt8]) {
        key(&out, k)
        out.append(contentsOf: fragment)
    }

    public static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        out.append(0x22)
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        for b in s.utf8 {
            switch b {
            case 0x22: out.append(0x5C); out.append(0x22)
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x0A: out.append(0x5C); out.append(0x6E)
            case 0x0D: out.append(0x5C); out.append(0x72)
            case 0x09: out.append(0x5C); out.append(0x74)
            case 0..<0x20:
                out.append(contentsOf: "\\u00".utf8); out.append(hex[Int(b >> 4)]); out.append(hex[Int(b & 0xF)])
            default: out.append(b)
            }
        }
        out.append(0x22)
    }
}
