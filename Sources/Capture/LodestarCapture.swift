import LocationCore
import NMEA

/// Lodestar's own capture format, version 1 (specified in docs/capture-format.md).
///
/// Line-oriented text. A `#!lodestar-capture 1` magic line, `# key: value` header lines (created, clock, source,
/// mounting, calibration, location, note), then one record per line:
/// `<monotonic_ns> <source> <kind> <payload>` where kind is `N` (NMEA bytes exactly as received, escaped),
/// `M`/`A`/`G` (magnetometer/accelerometer/gyroscope raw counts `x y z` and the `scale` converting them to
/// µT, m/s², rad/s), `S` (a source status change) or `F` (a fix from another engine, e.g. gpsd in JSON mode).
public enum LodestarCapture {
    public static let magic = "#!lodestar-capture"
    public static let version = 1

    /// Escapes raw bytes for an `N` payload: printable ASCII verbatim except `\`; CR, LF, TAB as `\r \n \t`;
    /// anything else as `\xHH`.
    public static func escape(_ bytes: some Sequence<UInt8>, into out: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        for b in bytes {
            switch b {
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x0D: out.append(0x5C); out.append(0x72)
            case 0x0A: out.append(0x5C); out.append(0x6E)
            case 0x09: out.append(0x5C); out.append(0x74)
            case 0x20...0x7E: out.append(b)
            default:
                out.append(0x5C); out.append(0x78)
                out.append(hex[Int(b >> 4)]); out.append(hex[Int(b & 0xF)])
            }
        }
    }

    /// Reverses `escape`; nil for a malformed escape.
    public static func unescape(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = 0
        while i < text.count {
            let b = text[i]
            if b != 0x5C { out.append(b); i += 1; continue }
            guard i + 1 < text.count else { return nil }
            switch text[i + 1] {
            case 0x5C: out.append(0x5C); i += 2
            case 0x72: out.append(0x0D); i += 2
            case 0x6E: out.append(0x0A); i += 2
            case 0x74: out.append(0x09); i += 2
            case 0x78:
                guard i + 3 < text.count, let h = NMEAFramer.hexValue(text[i + 2]), let l = NMEAFramer.hexValue(text[i + 3]) else { return nil }
                out.append(h << 4 | l); i += 4
            default: return nil
            }
        }
        return out
    }
}

/// What the header says about one source.
public struct CaptureSource: Sendable, Hashable {
    public var id: Int
    /// Key/value attributes: kind (nmea, imu, magnetometer, accelerometer), name, device, chip, bus, baud …
    public var attributes: [String: String]
    public init(id: Int, attributes: [String: String]) { self.id = id; self.attributes = attributes }
}

/// Reads Lodestar captures, streaming.
public final class LodestarCaptureReader: CaptureReader {
    public let format = CaptureFormat.lodestar
    public private(set) var header = CaptureHeader()
    public private(set) var statistics = CaptureStatistics()
    public private(set) var sources: [Int: CaptureSource] = [:]
    /// Monotonic/UTC pair from the `clock` header: UTC of a record = utc + (t − monotonic).
    public private(set) var clockMonotonicNanos: Int64?
    public private(set) var clockUTC: Timestamp?
    private let lines: LineReader
    private var sawMagic = false
    private var lastTimeNanos: Int64?
    private let path: String
    private var headerRead = false
    private var pending: SensorEvent?
    private var pendingError: CaptureError?
    /// A record whose time jumped ahead by more than `jumpNanos`, held until the next record shows whether the stream
    /// goes on from it (a real gap: both are delivered) or from before it (one corrupt timestamp: it is counted as
    /// `outlierTime` and dropped). Without this, one digit changed in one timestamp made every later record "go
    /// back" and be dropped until the stream caught up with it, never after a change in the leading digit.
    private var held: (event: SensorEvent, nanos: Int64)?
    /// The record that follows a released `held` one, delivered next.
    private var queued: SensorEvent?
    /// A forward step longer than this (1 s of the monotonic clock) between records holds the later one.
    static let jumpNanos: Int64 = 1_000_000_000

    public convenience init(path: String) throws(CaptureError) {
        self.init(source: try ByteSource(path: path))
    }

    public init(source: ByteSource) {
        self.path = source.path
        lines = LineReader(source: source, maximumLineLength: 1 << 16)
    }

    /// Reads the header (magic, `created`, `clock`, `source` lines) now, holding back the first record for `next()`,
    /// so `header` and `sources` are known before any record is read — without opening the path a second time
    /// (a pipe cannot be read twice). An error in the first record is thrown by the next `next()`.
    public func readHeader() {
        guard !headerRead else { return }
        headerRead = true
        do {
            while let (isHeader, event) = try nextLine() {
                if !isHeader { pending = event; return }
            }
        } catch {
            pendingError = error
        }
    }

    public func next() throws(CaptureError) -> SensorEvent? {
        headerRead = true
        if let e = pendingError { pendingError = nil; throw e }
        if let p = pending { pending = nil; return p }
        if let q = queued { queued = nil; return q }
        while let (_, event) = try nextLine() {
            if let event { return event }
        }
        // The end: a record still held after a jump had nothing after it to contradict it.
        return releaseHeld()
    }

    /// Accepts and returns the held record, if any.
    private func releaseHeld() -> SensorEvent? {
        guard let h = held else { return nil }
        held = nil
        statistics.recordsAccepted += 1
        lastTimeNanos = h.nanos
        return h.event
    }

    /// Orders one well-formed record (see `held`): what to deliver now, if anything.
    private func admit(_ event: SensorEvent, at t: Int64) -> SensorEvent? {
        if let h = held {
            if t >= h.nanos {
                // The stream goes on from the held record: a real gap. It goes out now, this one after it.
                let released = releaseHeld()
                queued = admit(event, at: t)
                return released
            }
            if lastTimeNanos.map({ t >= $0 }) ?? true {
                // Back where the stream was before it: the held record's time was the corrupt one.
                held = nil
                statistics.reject("outlierTime")
            } else {
                statistics.reject("backwardTime")
                return nil
            }
        }
        if let last = lastTimeNanos {
            // A well-formed record out of order (t_ns must be nondecreasing) is rejected, not reordered.
            if t < last { statistics.reject("backwardTime"); return nil }
            if t - last > Self.jumpNanos { held = (event, t); return nil }
        }
        statistics.recordsAccepted += 1
        lastTimeNanos = t
        return event
    }

    /// One line: whether it was a header (or empty) line, and the record's event if it gave one; nil at the end.
    private func nextLine() throws(CaptureError) -> (isHeader: Bool, event: SensorEvent?)? {
        do {
            return try lines.nextLine { line, truncated -> (isHeader: Bool, event: SensorEvent?) in
                (line.isEmpty || line[0] == 0x23, try handle(line, truncated: truncated))
            }
        } catch let e as CaptureError {
            throw e
        } catch {
            throw .readFailed(path: path, errno: 5)
        }
    }

    private func handle(_ line: UnsafeBufferPointer<UInt8>, truncated: Bool) throws(CaptureError) -> SensorEvent? {
        if line.isEmpty { return nil }
        if line[0] == 0x23 {
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix(LodestarCapture.magic) {
                let version = text.dropFirst(LodestarCapture.magic.count).trimmingSpaces
                guard version == String(LodestarCapture.version) else {
                    throw .unsupportedVersion(path: path, version: version)
                }
                sawMagic = true
            } else {
                parseHeader(text)
            }
            return nil
        }
        statistics.recordsRead += 1
        if truncated { statistics.reject("overlongLine"); return nil }
        if lines.lineIsUnterminated { statistics.reject("truncated"); return nil }
        guard sawMagic else { throw .unrecognizedFormat(path: path, reason: "missing \(LodestarCapture.magic) line") }
        // <t_ns> <source> <kind> <payload>
        var fieldEnds: (Int, Int, Int) = (-1, -1, -1)
        var found = 0
        for (i, b) in line.enumerated() where b == 0x20 {
            switch found { case 0: fieldEnds.0 = i; case 1: fieldEnds.1 = i; default: fieldEnds.2 = i }
            found += 1
            if found == 3 { break }
        }
        guard found >= 2, let base = line.baseAddress else { statistics.reject("malformedRecord"); return nil }
        guard let t = NumberParserLite.int64(base, fieldEnds.0) else { statistics.reject("badTimestamp"); return nil }
        let sourceEnd = fieldEnds.1
        guard let source = NumberParserLite.int64(base + fieldEnds.0 + 1, sourceEnd - fieldEnds.0 - 1),
              source >= 0, source < 1 << 16 else { statistics.reject("badSource"); return nil }
        // Times are nonnegative and nondecreasing; sources are declared in the header (when it declares any).
        guard t >= 0 else { statistics.reject("badTimestamp"); return nil }
        if !sources.isEmpty && sources[Int(source)] == nil { statistics.reject("badSource"); return nil }
        let kindStart = sourceEnd + 1
        let kindEnd = found >= 3 ? fieldEnds.2 : line.count
        guard kindEnd - kindStart == 1 else { statistics.reject("unknownKind"); return nil }
        let kind = line[kindStart]
        let payloadStart = min(kindEnd + 1, line.count)
        let payload = UnsafeBufferPointer(rebasing: line[payloadStart...])
        var utc: Timestamp?
        if let m = clockMonotonicNanos, let u = clockUTC { utc = u.adding(nanoseconds: t - m) }
        let eventPayload: EventPayload
        switch kind {
        case 0x4E: // N
            guard let bytes = LodestarCapture.unescape(payload) else { statistics.reject("badEscape"); return nil }
            eventPayload = .nmea(bytes)
        case 0x4D, 0x41, 0x47: // M A G
            let parts = String(decoding: payload, as: UTF8.self).split(separator: " ")
            guard parts.count == 4, let x = Int32(parts[0]), let y = Int32(parts[1]), let z = Int32(parts[2]),
                  let scale = Double(parts[3]), scale.isFinite else { statistics.reject("badSample"); return nil }
            let raw = RawSample(x: x, y: y, z: z, scale: scale)
            eventPayload = .motion(kind == 0x4D ? .magnetometerRaw(raw) : kind == 0x41 ? .accelerometerRaw(raw) : .gyroscopeRaw(raw))
        case 0x53: // S: a source's status change
            let name = sources[Int(source)]?.attributes["name"] ?? "source\(source)"
            guard let status = LodestarCapture.status(from: payload, defaultName: name) else {
                statistics.reject("badStatus"); return nil
            }
            eventPayload = .status(status)
        case 0x46: // F: a fix computed by another engine (gpsd JSON mode)
            guard let fix = LodestarCapture.fix(from: payload) else { statistics.reject("badFix"); return nil }
            eventPayload = .fix(fix)
        default:
            statistics.reject("unknownKind"); return nil
        }
        return admit(SensorEvent(monotonicNanos: t, utc: utc, sourceID: Int(source), payload: eventPayload), at: t)
    }

    private func parseHeader(_ text: String) {
        let body = text.dropFirst()
        guard let colon = body.firstIndex(of: ":") else { return }
        let key = body[..<colon].trimmingSpaces
        let value = body[body.index(after: colon)...].trimmingSpaces
        header.fields.append((key, value))
        let attributes = Self.attributes(value)
        switch key {
        case "created":
            header.referenceDate = parseISODate(value)
        case "clock":
            if let m = attributes["monotonic_ns"].flatMap({ Int64($0) }) { clockMonotonicNanos = m }
            if let u = attributes["utc"].flatMap(Timestamp.parseISO8601) { clockUTC = u }
        case "source":
            if let idText = value.split(separator: " ").first, let id = Int(idText) {
                sources[id] = CaptureSource(id: id, attributes: attributes)
            }
        default: break
        }
    }

    /// `k=v k2=v2` pairs (values without spaces).
    static func attributes(_ value: String) -> [String: String] {
        var out: [String: String] = [:]
        for part in value.split(separator: " ") {
            guard let eq = part.firstIndex(of: "=") else { continue }
            out[String(part[..<eq])] = String(part[part.index(after: eq)...])
        }
        return out
    }
}

enum NumberParserLite {
    static func int64(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int64? {
        guard n > 0, n <= 19 else { return nil }
        var i = 0
        var negative = false
        if p[0] == 0x2D { negative = true; i = 1; guard n > 1 else { return nil } }
        var v: Int64 = 0
        while i < n {
            let d = p[i] &- 0x30
            guard d < 10 else { return nil }
            v = v &* 10 &+ Int64(d)
            i += 1
        }
        return negative ? -v : v
    }
}
