/// JSON string escaping, once for the project: `quoted` for Swift strings (geocoder output, region state) and
/// `appendEscaped` for bytes (the output encoders' `JSONWriter`).
public enum JSONText {
    public static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }

    /// Appends `s` as a JSON string (quotes included): `"` and `\` escaped, CR/LF/TAB as `\r \n \t`, other
    /// control characters as `\u00XX`. The output encoders' path: no allocation.
    public static func appendQuoted(_ s: String, to out: inout ByteBuffer) {
        out.append(0x22)
        let hex: StaticString = "0123456789abcdef"
        for b in s.utf8 {
            switch b {
            case 0x22: out.append(0x5C); out.append(0x22)
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x0A: out.append(0x5C); out.append(0x6E)
            case 0x0D: out.append(0x5C); out.append(0x72)
            case 0x09: out.append(0x5C); out.append(0x74)
            case 0..<0x20:
                out.append("\\u00"); out.append(hex.utf8Start[Int(b >> 4)]); out.append(hex.utf8Start[Int(b & 0xF)])
            default: out.append(b)
            }
        }
        out.append(0x22)
    }
}
