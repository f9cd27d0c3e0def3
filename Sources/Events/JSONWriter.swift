import LocationCore

/// Minimal allocation-free JSON object writer over a byte buffer (the output hot path).
public struct JSONWriter {
    @usableFromInline var first = true

    public init() {}

    @inlinable
    public mutating func begin(_ out: inout ByteBuffer, class name: StaticString) {
        out.append("{\"class\":\"")
        out.append(name)
        out.append(0x22)
        first = false
    }

    @inlinable
    public mutating func end(_ out: inout ByteBuffer) {
        out.append(0x7D)
        out.append(0x0A)
    }

    @inlinable
    mutating func key(_ out: inout ByteBuffer, _ k: StaticString) {
        out.appendJSONKey(k, comma: !first)
        first = false
    }

    @inlinable
    public mutating func number(_ out: inout ByteBuffer, _ k: StaticString, _ v: Double?, decimals: Int) {
        guard let v, v.isFinite else { return }
        key(&out, k)
        out.appendFixed(v, decimals: decimals)
    }

    @inlinable
    public mutating func integer(_ out: inout ByteBuffer, _ k: StaticString, _ v: Int?) {
        guard let v else { return }
        key(&out, k)
        out.appendDecimal(v)
    }

    @inlinable
    public mutating func bool(_ out: inout ByteBuffer, _ k: StaticString, _ v: Bool?) {
        guard let v else { return }
        key(&out, k)
        if v { out.append("true") } else { out.append("false") }
    }

    public mutating func string(_ out: inout ByteBuffer, _ k: StaticString, _ v: String?) {
        guard let v else { return }
        key(&out, k)
        Self.appendQuoted(v, to: &out)
    }

    @inlinable
    public mutating func time(_ out: inout ByteBuffer, _ k: StaticString, _ t: Timestamp?, fractionDigits: Int,
                              leapSecond: Bool = false) {
        guard let t else { return }
        key(&out, k)
        out.append(0x22)
        t.appendISO8601(to: &out, fractionDigits: fractionDigits, leapSecond: leapSecond)
        out.append(0x22)
    }

    /// Starts a value that the caller writes itself (an array or object).
    public mutating func rawKey(_ out: inout ByteBuffer, _ k: StaticString) {
        key(&out, k)
    }

    public static func appendQuoted(_ s: String, to out: inout ByteBuffer) { JSONText.appendQuoted(s, to: &out) }
}
