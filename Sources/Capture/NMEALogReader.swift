import LocationCore

/// Reads raw NMEA logs, including gpsd's test logs whose `#` lines carry a header (`# Date:` resolves 2-digit
/// years and week rollover). Comment lines are stripped; everything else is passed on byte-for-byte, in large
/// blocks (or one event per line with `lineEvents`, for pacing), so the framer sees exactly what a receiver sent.
public final class NMEALogReader: CaptureReader {
    public let format = CaptureFormat.nmea
    public private(set) var header = CaptureHeader()
    public private(set) var statistics = CaptureStatistics()
    private let lines: LineReader
    private let lineEvents: Bool
    private var pending: [UInt8] = []
    private static let blockTarget = 1 << 16

    public init(path: String, lineEvents: Bool = false) throws(CaptureError) {
        lines = LineReader(source: try ByteSource(path: path), maximumLineLength: 4096)
        self.lineEvents = lineEvents
        pending.reserveCapacity(Self.blockTarget + 4096)
    }

    public func next() throws(CaptureError) -> SensorEvent? {
        pending.removeAll(keepingCapacity: true)
        while true {
            let more: Bool?
            do {
                more = try lines.nextLine { line, truncated -> Bool in
                    handle(line, truncated: truncated)
                    return true
                }
            } catch let e as CaptureError {
                throw e
            } catch {
                throw .readFailed(path: lines.source.path, errno: 5)
            }
            if more == nil { break }
            if pending.count >= Self.blockTarget || (lineEvents && !pending.isEmpty) { break }
        }
        return pending.isEmpty ? nil : SensorEvent(payload: .nmea(pending))
    }

    private func handle(_ line: UnsafeBufferPointer<UInt8>, truncated: Bool) {
        statistics.recordsRead += 1
        if line.first == 0x23 { // '#': comment / header
            statistics.recordsIgnored += 1
            parseHeader(line)
            return
        }
        if line.isEmpty { statistics.recordsRead -= 1; return }
        statistics.recordsAccepted += 1
        pending.append(contentsOf: line)
        if !truncated { pending.append(0x0D); pending.append(0x0A) }
    }

    private func parseHeader(_ line: UnsafeBufferPointer<UInt8>) {
        let text = String(decoding: line.dropFirst(), as: UTF8.self)
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
