import CLinux
import enum LocationCore.JSONText
import struct LocationCore.ReceiverIdentity
import struct LocationCore.Timestamp
import NIOCore

/// gpsd's client protocol (gpsd_json(5)) as far as clients use it: requests in, VERSION/WATCH/DEVICES/DEVICE/
/// POLL/ERROR out. Lodestar adds `?CLIENTS;` (per-client queue and drop counts).
enum GpsdProtocol {
    /// gpsd 3.22's protocol version; clients check `proto_major`.
    static let protoMajor = 3, protoMinor = 14
    static let release = "3.22"
    static let revision = "lodestar"

    enum Request: Equatable {
        case watch([String: JSONScalar]?)
        case poll, devices, device, version, clients
        case unknown(String)
        case malformed(String)
    }

    enum JSONScalar: Equatable {
        case bool(Bool), number(Double), string(String), null
    }

    static func parse(_ text: String) -> Request {
        var s = Substring(text)
        guard s.first == "?" else { return .unknown(String(s.prefix(32))) }
        s = s.dropFirst()
        let name: Substring, argument: Substring?
        if let eq = s.firstIndex(of: "=") { name = s[..<eq]; argument = s[s.index(after: eq)...] } else { name = s; argument = nil }
        switch name {
        case "WATCH":
            guard let argument else { return .watch(nil) }
            guard let object = parseFlatObject(argument) else { return .malformed("Invalid WATCH: \(argument.prefix(64))") }
            return .watch(object)
        case "POLL": return .poll
        case "DEVICES": return .devices
        case "DEVICE": return .device
        case "VERSION": return .version
        case "CLIENTS": return .clients
        default: return .unknown(String(name.prefix(32)))
        }
    }

    /// A flat JSON object of scalars (`{"enable":true,"json":true,"device":"/dev/ttyS0"}`); nil when malformed.
    static func parseFlatObject(_ text: Substring) -> [String: JSONScalar]? {
        var out: [String: JSONScalar] = [:]
        var i = text.startIndex
        func skip() { while i < text.endIndex, text[i] == " " || text[i] == "\t" { i = text.index(after: i) } }
        func string() -> String? {
            guard i < text.endIndex, text[i] == "\"" else { return nil }
            i = text.index(after: i)
            var s = ""
            while i < text.endIndex, text[i] != "\"" {
                if text[i] == "\\" { i = text.index(after: i); guard i < text.endIndex else { return nil } }
                s.append(text[i]); i = text.index(after: i)
            }
            guard i < text.endIndex else { return nil }
            i = text.index(after: i)
            return s
        }
        skip()
        guard i < text.endIndex, text[i] == "{" else { return nil }
        i = text.index(after: i)
        while true {
            skip()
            guard i < text.endIndex else { return nil }
            if text[i] == "}" { return out }
            if text[i] == "," { i = text.index(after: i); continue }
            guard let key = string() else { return nil }
            skip()
            guard i < text.endIndex, text[i] == ":" else { return nil }
            i = text.index(after: i)
            skip()
            guard i < text.endIndex else { return nil }
            if text[i] == "\"" {
                guard let v = string() else { return nil }
                out[key] = .string(v)
            } else {
                var token = ""
                while i < text.endIndex, text[i] != ",", text[i] != "}", text[i] != " " { token.append(text[i]); i = text.index(after: i) }
                switch token {
                case "true": out[key] = .bool(true)
                case "false": out[key] = .bool(false)
                case "null": out[key] = .null
                default:
                    guard let d = Double(token) else { return nil }
                    out[key] = .number(d)
                }
            }
        }
    }

    /// Applies a `?WATCH={…}` object. As in gpsd, `"enable":true` without `json`, `nmea` or `raw` turns JSON on.
    static func apply(_ changes: [String: JSONScalar], to p: inout WatchPolicy) {
        func flag(_ key: String) -> Bool? {
            switch changes[key] {
            case .bool(let b)?: b
            case .number(let n)?: n != 0
            default: nil
            }
        }
        if let e = flag("enable") { p.enable = e } else if !changes.isEmpty { p.enable = true }
        if let j = flag("json") { p.json = j }
        if let n = flag("nmea") { p.nmea = n }
        if case .number(let r)? = changes["raw"] { p.raw = Int(r) } else if let r = flag("raw") { p.raw = r ? 1 : 0 }
        if let s = flag("scaled") { p.scaled = s }
        if case .string(let d)? = changes["device"] { p.device = d.isEmpty ? nil : d }
        if p.enable && changes["json"] == nil && changes["nmea"] == nil && changes["raw"] == nil && !p.nmea && p.raw == 0 {
            p.json = true
        }
    }

    static func line(_ s: String) -> ByteBuffer {
        var b = ByteBufferAllocator().buffer(capacity: s.utf8.count + 2)
        b.writeString(s)
        b.writeBytes([0x0D, 0x0A])
        return b
    }

    static func quoted(_ s: String) -> String { JSONText.quoted(s) }

    static func version() -> ByteBuffer {
        line("{\"class\":\"VERSION\",\"release\":\"\(release)\",\"rev\":\"\(revision)\",\"proto_major\":\(protoMajor),\"proto_minor\":\(protoMinor)}")
    }

    static func error(_ message: String) -> ByteBuffer {
        line("{\"class\":\"ERROR\",\"message\":\(quoted(message))}")
    }

    /// ISO 8601 UTC with milliseconds, as gpsd writes times (truncated to the millisecond, not rounded).
    static func isoTime(_ nanos: Int64) -> String {
        Timestamp(nanosecondsSince1970: nanos / 1_000_000 * 1_000_000).iso8601(fractionDigits: 3)
    }

    struct Reply {
        let device: String
        let activatedNanos: Int64
        var identity: ReceiverIdentity? = nil

        func deviceJSON(clients: Int, dropped: Int) -> String {
            var s = "{\"class\":\"DEVICE\",\"path\":\(quoted(device)),\"driver\":\(quoted(identity?.driver ?? "Lodestar")),"
            if let t = identity?.subtype { s += "\"subtype\":\(quoted(t))," }
            if let t = identity?.subtype1 { s += "\"subtype1\":\(quoted(t))," }
            return s + "\"activated\":\"\(isoTime(activatedNanos))\","
                + "\"flags\":1,\"native\":0,\"cycle\":1.00,\"clients\":\(clients),\"dropped\":\(dropped)}"
        }

        func deviceObject(clients: Int, dropped: Int, line asLine: Bool) -> ByteBuffer {
            line(deviceJSON(clients: clients, dropped: dropped))
        }

        func devices(clients: Int, dropped: Int) -> ByteBuffer {
            line("{\"class\":\"DEVICES\",\"devices\":[\(deviceJSON(clients: clients, dropped: dropped))]}")
        }

        func watch(_ p: WatchPolicy) -> ByteBuffer {
            var s = "{\"class\":\"WATCH\",\"enable\":\(p.enable),\"json\":\(p.json),\"nmea\":\(p.nmea),\"raw\":\(p.raw),"
                + "\"scaled\":\(p.scaled),\"timing\":false,\"split24\":false,\"pps\":false"
            if let d = p.device { s += ",\"device\":\(quoted(d))" }
            return line(s + "}")
        }

        func poll(tpv: ByteBuffer?, sky: ByteBuffer?) -> ByteBuffer {
            func object(_ b: ByteBuffer?) -> String {
                guard var b, let s = b.readString(length: b.readableBytes) else { return "" }
                return s.trimmingWhitespace
            }
            let t = object(tpv), k = object(sky)
            return line("{\"class\":\"POLL\",\"time\":\"\(isoTime(clinux_realtime_ns()))\",\"active\":\(t.isEmpty ? 0 : 1),"
                        + "\"tpv\":[\(t)],\"gst\":[],\"sky\":[\(k)]}")
        }

        func clients(_ list: [ClientHandler]) -> ByteBuffer {
            let items = list.map {
                "{\"id\":\($0.id),\"peer\":\(quoted($0.peer)),\"watch\":\($0.policy.enable),\"sent\":\($0.sent),"
                    + "\"queued\":\($0.queued),\"dropped\":\($0.dropped)}"
            }
            return line("{\"class\":\"CLIENTS\",\"clients\":[\(items.joined(separator: ","))]}")
        }
    }
}
