import LocationCore

/// Reads raw NMEA logs, including gpsd's test logs whose `#` lines carry a header (`# Date:` resolves 2-digit
/// years and week rollover). Comment lines are stripped; everything else is passed on byte-for-byte, in large
/// blocks (or one event per line with `lineEvents`, for pacing), so the framer sees exactly what a receiver sent.
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
    private var block = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    private var position = 0
    private var atEOF = false
    private static let blockTarget = 1 << 16
    private static let maximumCommentLength = 4096

    public init(path: String, lineEvents: Bool = false) throws(CaptureError) {
        source = try ByteSource(path: path)
        self.lineEvents = lineEvents
        pending.reserveCapacity(Self.blockTarget + 4096)
    }

    /// Copies data lines into an event, skipping comment lines, scanning bytes without per-line calls.
    public func next() throws(CaptureError) -> SensorEvent? {
        pending.removeAll(keepingCapacity: true)
        while true {
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
            var i = position
            let n = block.count
            var runStart = -1
            var lineEnded = false
            while i < n {
                let b = base[i]
                if atLineStart {
                    atLineStart = false
                    if b == 0x23 { inComment = true; comment.removeAll(keepingCapacity: true); i += 1; continue }
                }
                if inComment {
                    if b == 0x0A { endLine(); atLineStart = true; i += 1; lineEnded = true; break }
                    if comment.count < Self.maximumCommentLength { comment.append(b) }
                    i += 1
                    continue
                }
                if runStart < 0 { runStart = i }
                if b == 0x0A {
                    i += 1
                    lineEnded = true
                    atLineStart = true
                    if b != 0x0D { lineHasData = true }
                    break
                }
                if b != 0x0D { lineHasData = true }
                i += 1
            }
            if runStart >= 0 {
                pending.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: i - runStart))
            }
            position = i
            if lineEnded && !inComment { endLine() }
            if lineEnded { inComment = false }
            if pending.count >= Self.blockTarget || (lineEvents && lineEnded && !pending.isEmpty) { break }
        }
        return pending.isEmpty ? nil : SensorEvent(payload: .nmea(pending))
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
