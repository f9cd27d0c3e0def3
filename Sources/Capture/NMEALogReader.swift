#if canImport(Glibc)
import Glibc
#endif
import LocationCore

/// Reads raw receiver logs — NMEA, u-blox UBX, RTCM3 or a mix — including gpsd's test logs whose `#` lines carry a
/// header (`# Date:` resolves 2-digit years and week rollover). Comment lines are stripped; everything else is
/// passed on byte-for-byte, in large blocks (or one event per line with `lineEvents`, for pacing), so the framer
/// sees exactly what a receiver sent. Once binary data (a byte ≥ 0x80) has been seen, `#` at a line start is data
/// too: a UBX payload may hold a line feed followed by `#`; and `statistics` counts no more records (the lines
/// before it are counted).
public final class NMEALogReader: CaptureReader {
    public let format = CaptureFormat.nmea
    public private(set) var header = CaptureHeader()
    public private(set) var statistics = CaptureStatistics()
    private let source: ByteSource
    private let lineEvents: Bool
    private var pending: [UInt8] = []
    /// Header comments are collected only before the first data line, so memory stays constant on
    /// concatenated logs (each with its own comment block).
    private var sawData = false
    /// Scanner state carried across blocks.
    private var atLineStart = true
    private var inComment = false
    private var comment: [UInt8] = []
    private var lineHasData = false
    /// A byte ≥ 0x80 was passed on: the log is binary from here, no more comment lines.
    private var binarySeen = false
    private var block = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    private var position = 0
    private var atEOF = false
    private static let blockTarget = 1 << 16
    private static let maximumCommentLength = 4096

    public convenience init(path: String, lineEvents: Bool = false) throws(CaptureError) {
        self.init(source: try ByteSource(path: path), lineEvents: lineEvents)
    }

    public init(source: ByteSource, lineEvents: Bool = false) {
        self.source = source
        self.lineEvents = lineEvents
        pending.reserveCapacity(Self.blockTarget + 4096)
    }

    /// Copies data lines into an event, skipping comment lines; finds line ends with memchr.
    public func next() throws(CaptureError) -> SensorEvent? {
        pending.removeAll(keepingCapacity: true)
        while true {
            if position >= block.count, binarySeen, !inComment, !lineEvents, !atEOF {
                // Binary from here on, and the last block used up: the next block is read straight into the event's
                // array (no copy out of the source's block).
                let bytes = try source.readArray(capacity: Self.blockTarget)
                block = UnsafeBufferPointer(start: nil, count: 0)
                position = 0
                guard !bytes.isEmpty else {
                    atEOF = true
                    endLine()
                    break
                }
                bytes.withUnsafeBufferPointer { passBinary($0.baseAddress!, to: $0.count) }
                if pending.isEmpty { return SensorEvent(payload: .nmea(bytes)) }
                pending.append(contentsOf: bytes)
                if pending.count >= Self.blockTarget { break }
                continue
            }
            if position >= block.count {
                if atEOF { break }
                block = try source.read()
                position = 0
                if block.isEmpty {
                    atEOF = true
                    endLine()
                    break
                }
            }
            guard let base = block.baseAddress else { break }
            let n = block.count
            var i = position
            var stopAfterLine = false
            if binarySeen && !inComment && !lineEvents && i < n {
                // Binary from here on: no more comment lines, so the rest of the block is data, appended at once
                // (a per-line append was a tenth of a UBX replay).
                passBinary(base, to: n)
                pending.append(contentsOf: UnsafeBufferPointer(start: base + i, count: n - i))
                position = n
                if pending.count >= Self.blockTarget { break }
                continue
            }
            while i < n {
                if atLineStart {
                    atLineStart = false
                    if base[i] == 0x23 && !binarySeen { inComment = true; comment.removeAll(keepingCapacity: true); i += 1; continue }
                }
                let found = memchr(base + i, 0x0A, n - i)
                let end = found.map { UnsafePointer<UInt8>($0.assumingMemoryBound(to: UInt8.self)) - base + 1 } ?? n
                if inComment {
                    let room = Self.maximumCommentLength - comment.count
                    if room > 0 { comment.append(contentsOf: UnsafeBufferPointer(start: base + i, count: min(room, end - i))) }
                } else {
                    pending.append(contentsOf: UnsafeBufferPointer(start: base + i, count: end - i))
                    if !binarySeen { binarySeen = Self.hasHighByte(base + i, end - i) }
                    if Self.isData(base + i, end - i) || (found == nil && end > i) { lineHasData = true }
                }
                i = end
                if found != nil {
                    if inComment { comment.removeLast(min(1, comment.count)) }
                    endLine()
                    inComment = false
                    atLineStart = true
                    if lineEvents && !pending.isEmpty { stopAfterLine = true; break }
                }
            }
            position = i
            if stopAfterLine || pending.count >= Self.blockTarget { break }
        }
        return pending.isEmpty ? nil : SensorEvent(payload: .nmea(pending))
    }

    /// Bytes passed on after the log turned binary: no lines are counted in them. A UBX or RTCM3 payload's 0x0A bytes
    /// are not line ends, so a count of "records" there means nothing (the replay's summary shows none for a binary
    /// stream: it counts the frames by class), and finding them was 6 % of a UBX replay (a memchr per 0x0A byte).
    /// Only `atLineStart` is kept, as the bytes end.
    @inline(__always)
    private func passBinary(_ base: UnsafePointer<UInt8>, to n: Int) {
        atLineStart = base[n - 1] == 0x0A
        lineHasData = false
        sawData = true
    }

    /// Whether a line's `n` bytes at `p` (its line feed included) hold data: more than a line ending.
    @inline(__always)
    static func isData(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool { n > 2 || (n == 2 && p[0] != 0x0D) }

    /// True when a byte ≥ 0x80 is among the `n` bytes at `p` (eight at a time).
    static func hasHighByte(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        var i = 0
        let raw = UnsafeRawPointer(p)
        while i + 8 <= n {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return true }
            i += 8
        }
        while i < n { if p[i] >= 0x80 { return true }; i += 1 }
        return false
    }

    private func endLine() {
        if inComment {
            statistics.recordsRead += 1
            statistics.recordsIgnored += 1
            if !sawData { comment.withUnsafeBufferPointer { parseHeader($0) } }
        } else if lineHasData {
            statistics.recordsRead += 1
            statistics.recordsAccepted += 1
            sawData = true
        }
        lineHasData = false
    }

    private func parseHeader(_ line: UnsafeBufferPointer<UInt8>) {
        let text = String(decoding: line, as: UTF8.self)
        guard let colon = text.firstIndex(of: ":") else { return }
        let key = text[..<colon].trimmingSpaces
        let value = text[text.index(after: colon)...].trimmingSpaces
        guard !key.isEmpty, !key.contains(" ") || key.count < 20 else { return }
        header.fields.append((key, value))
        if key == "Date", header.referenceDate == nil { header.referenceDate = parseISODate(value) }
    }
}

extension Substring {
    var trimmingSpaces: String {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s.removeLast() }
        return String(s)
    }
}
