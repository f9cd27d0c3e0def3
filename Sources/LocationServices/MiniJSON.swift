/// A small JSON reader for the region and region-state files (no Foundation: this module stays pure and small).
/// Depth is limited; numbers are Doubles; errors say where they are.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    public var string: String? { if case .string(let s) = self { s } else { nil } }
    public var number: Double? { if case .number(let n) = self { n } else { nil } }
    public var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var array: [JSONValue]? { if case .array(let a) = self { a } else { nil } }

    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var offset: Int
        public var message: String
        public var description: String { "invalid JSON at byte \(offset): \(message)" }
    }

    public static func parse(_ bytes: [UInt8]) throws(ParseError) -> JSONValue {
        var p = Parser(bytes: bytes)
        p.skipSpace()
        let v = try p.value(depth: 0)
        p.skipSpace()
        guard p.i == bytes.count else { throw ParseError(offset: p.i, message: "unexpected data after the value") }
        return v
    }

    private struct Parser {
        let bytes: [UInt8]
        var i = 0

        mutating func skipSpace() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
        }

        func fail(_ m: String) -> ParseError { ParseError(offset: i, message: m) }

        mutating func value(depth: Int) throws(ParseError) -> JSONValue {
            guard depth < 64 else { throw fail("nested too deeply") }
            guard i < bytes.count else { throw fail("unexpected end of input") }
            switch bytes[i] {
            case 0x7B: // {
                i += 1
                var members: [(String, JSONValue)] = []
                skipSpace()
                if i < bytes.count, bytes[i] == 0x7D { i += 1; return .object(members) }
                while true {
                    skipSpace()
                    guard i < bytes.count, bytes[i] == 0x22 else { throw fail("expected a member name in quotes") }
                    let k = try string()
                    skipSpace()
                    guard i < bytes.count, bytes[i] == 0x3A else { throw fail("expected ':'") }
                    i += 1
                    skipSpace()
                    members.append((k, try value(depth: depth + 1)))
                    skipSpace()
                    guard i < bytes.count else { throw fail("unterminated object") }
                    if bytes[i] == 0x2C { i += 1; continue }
                    if bytes[i] == 0x7D { i += 1; return .object(members) }
                    throw fail("expected ',' or '}'")
                }
            case 0x5B: // [
                i += 1
                var items: [JSONValue] = []
                skipSpace()
                if i < bytes.count, bytes[i] == 0x5D { i += 1; return .array(items) }
                while true {
                    skipSpace()
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    guard i < bytes.count else { throw fail("unterminated array") }
                    if bytes[i] == 0x2C { i += 1; continue }
                    if bytes[i] == 0x5D { i += 1; return .array(items) }
                    throw fail("expected ',' or ']'")
                }
            case 0x22: return .string(try string())
            case 0x74: try literal("true"); return .bool(true)
            case 0x66: try literal("false"); return .bool(false)
            case 0x6E: try literal("null"); return .null
            default: return .number(try number())
            }
        }

        mutating func literal(_ word: String) throws(ParseError) {
            let w = Array(word.utf8)
            let n = w.count
            guard i + n <= bytes.count else { throw fail("unexpected end of input") }
            for k in 0..<n where bytes[i + k] != w[k] { throw fail("unexpected character") }
            i += n
        }

        mutating func number() throws(ParseError) -> Double {
            let start = i
            while i < bytes.count, (0x30...0x39).contains(bytes[i]) || bytes[i] == 0x2D || bytes[i] == 0x2B
                || bytes[i] == 0x2E || bytes[i] == 0x65 || bytes[i] == 0x45 { i += 1 }
            guard i > start, let d = Double(String(decoding: bytes[start..<i], as: UTF8.self)), d.isFinite else {
                i = start
                throw fail("expected a value")
            }
            return d
        }

        mutating func hex4() throws(ParseError) -> UInt32 {
            guard i + 4 <= bytes.count else { throw fail("short \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[i]
                let d: UInt8
                switch c {
                case 0x30...0x39: d = c - 0x30
                case 0x41...0x46: d = c - 0x41 + 10
                case 0x61...0x66: d = c - 0x61 + 10
                default: throw fail("bad \\u escape")
                }
                v = v << 4 | UInt32(d)
                i += 1
            }
            return v
        }

        mutating func string() throws(ParseError) -> String {
            i += 1 // opening quote
            var out: [UInt8] = []
            while i < bytes.count {
                let c = bytes[i]
                i += 1
                switch c {
                case 0x22: return String(decoding: out, as: UTF8.self)
                case 0x5C:
                    guard i < bytes.count else { throw fail("unterminated string") }
                    let e = bytes[i]
                    i += 1
                    switch e {
                    case 0x22, 0x5C, 0x2F: out.append(e)
                    case 0x62: out.append(0x08)
                    case 0x66: out.append(0x0C)
                    case 0x6E: out.append(0x0A)
                    case 0x72: out.append(0x0D)
                    case 0x74: out.append(0x09)
                    case 0x75:
                        var scalar = try hex4()
                        if (0xD800..<0xDC00).contains(scalar), i + 6 <= bytes.count, bytes[i] == 0x5C, bytes[i + 1] == 0x75 {
                            i += 2
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw fail("bad surrogate pair") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let u = Unicode.Scalar(scalar) else { throw fail("bad \\u escape") }
                        out.append(contentsOf: Array(String(Character(u)).utf8))
                    default: throw fail("bad escape")
                    }
                case 0..<0x20: throw fail("control character in string")
                default: out.append(c)
                }
            }
            throw fail("unterminated string")
        }
    }
}
