#if canImport(Glibc)
import Glibc
#endif
import UBX

/// Recognises a capture's format from its first bytes, and opens the matching reader.
///
/// Detection peeks at the first 8 KB through the reader's own `ByteSource`, which hands them back to the reader:
/// a file, a pipe, `-` (standard input) and a named pipe give identical results. A UTF-8 byte-order mark is
/// skipped. A Lodestar capture whose magic line is damaged is refused (exit 65) rather than read as NMEA, and NMEA
/// is recognised only from well-formed sentences (a valid checksum, or several checksum-less sentences), never
/// from a lone `$`.
public enum CaptureDetector {
    public static let headBytes = 8192

    /// Detects the format of `path` from its first 8 KB. Throws `.unrecognizedFormat` with the reason.
    public static func detect(path: String) throws(CaptureError) -> CaptureFormat {
        try detect(try ByteSource(path: path))
    }

    /// Detects the format of a source without consuming its bytes (a BOM is consumed).
    public static func detect(_ source: ByteSource) throws(CaptureError) -> CaptureFormat {
        skipByteOrderMark(source)
        let head = try source.peek(headBytes)
        return try detect(head: head, path: source.path)
    }

    static func skipByteOrderMark(_ source: ByteSource) {
        if let head = try? source.peek(3), head.count >= 3, head[0] == 0xEF, head[1] == 0xBB, head[2] == 0xBF {
            source.discardPeeked(3)
        }
    }

    /// Detection on the first bytes of a capture (without a BOM).
    public static func detect(head: UnsafeBufferPointer<UInt8>, path: String) throws(CaptureError) -> CaptureFormat {
        if head.isEmpty { throw .unrecognizedFormat(path: path, reason: "the file is empty") }
        let lines = firstLines(head, 200)
        if let first = lines.first, first.hasPrefix(LodestarCapture.magic) { return .lodestar }
        if looksLikeDamagedLodestarCapture(head, lines: lines) {
            throw .unrecognizedFormat(path: path, reason: "a Lodestar capture with a damaged first line: it must be exactly "
                                      + "'\(LodestarCapture.magic) \(LodestarCapture.version)' (check for leading bytes or a cut-off copy)")
        }
        let gnssLoggerTypes = ["Fix,", "Raw,", "UncalAccel,", "UncalMag,", "UncalGyro,", "Accel,", "Gyro,", "Mag,",
                               "Status,", "OrientationDeg,", "NMEA,"]
        for line in lines {
            if line.hasPrefix("# Version: v") || line.hasPrefix("# Version: V") { return .gnsslogger }
            if line.hasPrefix("# "), gnssLoggerTypes.contains(where: { line.dropFirst(2).hasPrefix($0) }) { return .gnsslogger }
        }
        if let firstData = lines.first(where: { !$0.hasPrefix("#") }), firstData.contains(","), !firstData.contains("$") {
            let lower = firstData.lowercased()
            let looksLikeHeader = lower.contains("t_s") || lower.contains("time") || lower.contains("gpst")
            if looksLikeHeader && (lower.contains("acc") || lower.contains("mag") || lower.contains("ax_")) { return .imuCSV }
            if gnssLoggerTypes.contains(where: { firstData.hasPrefix($0) }) { return .gnsslogger }
        }
        let sentences = NMEASniffer.count(head)
        if sentences.checksummed > 0 || sentences.unchecked >= 2 { return .nmea }
        // Receiver logs in u-blox binary (UBX) or RTCM3, alone or mixed with NMEA, behind gpsd-style `#` lines:
        // read by the same reader (the bytes go to the pipeline's mixed-stream framer as received).
        let frames = BinaryFrameSniffer.count(head)
        if frames.ubx > 0 || frames.rtcm3 > 0 { return .nmea }
        let printable = head.prefix(4096).allSatisfy { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || (0x20...0x7E).contains($0) }
        throw .unrecognizedFormat(path: path, reason: printable
            ? "no NMEA sentences, GnssLogger records, IMU CSV header or Lodestar capture magic in the first \(head.count) bytes"
            : "binary data with no NMEA sentences")
    }

    /// The first `limit` non-empty lines, split at the ASCII line breaks (LF, VT, FF, CR) byte by byte. (Splitting
    /// the whole block as a String at Character boundaries cost 9 million instructions per start on binary logs.)
    static func firstLines(_ head: UnsafeBufferPointer<UInt8>, _ limit: Int) -> ArraySlice<Substring> {
        var lines: [Substring] = []
        var start = 0
        var i = 0
        while i <= head.count && lines.count < limit {
            if i == head.count || (head[i] >= 0x0A && head[i] <= 0x0D) {
                if i > start { lines.append(Substring(String(decoding: UnsafeBufferPointer(rebasing: head[start..<i]), as: UTF8.self))) }
                start = i + 1
            }
            i += 1
        }
        return lines[...]
    }

    /// Lodestar capture header keys or records without the magic line first.
    static func looksLikeDamagedLodestarCapture(_ head: UnsafeBufferPointer<UInt8>, lines: ArraySlice<Substring>) -> Bool {
        let text = String(decoding: head.prefix(512), as: UTF8.self)
        if text.contains("lodestar-capture") || text.contains("lodestar-captur") { return true }
        let headerKeys = ["# clock: monotonic_ns=", "# source: 0 ", "# created: "]
        let keyLines = lines.prefix(20).filter { l in headerKeys.contains { l.contains($0) } }.count
        return keyLines >= 2
    }

    /// Opens a reader for `path` in `format` (detected when nil). The detection's bytes are not lost.
    public static func open(path: String, format: CaptureFormat?, lineEvents: Bool = false) throws(CaptureError) -> any CaptureReader {
        try open(source: try ByteSource(path: path), format: format, lineEvents: lineEvents)
    }

    public static func open(source: ByteSource, format: CaptureFormat?, lineEvents: Bool = false) throws(CaptureError) -> any CaptureReader {
        let f: CaptureFormat
        if let format { skipByteOrderMark(source); f = format } else { f = try detect(source) }
        switch f {
        case .lodestar: return LodestarCaptureReader(source: source)
        case .nmea: return NMEALogReader(source: source, lineEvents: lineEvents)
        case .gnsslogger: return GnssLoggerReader(source: source)
        case .imuCSV: return try IMUCSVReader(source: source)
        }
    }
}

/// Counts complete UBX frames (sync, length, Fletcher checksum) and RTCM3 frames (preamble, length, CRC-24Q) in a
/// block. A frame cut off by the block's end is not counted.
enum BinaryFrameSniffer {
    static func count(_ bytes: UnsafeBufferPointer<UInt8>) -> (ubx: Int, rtcm3: Int) {
        var ubx = 0, rtcm3 = 0
        var i = 0
        let n = bytes.count
        while i + 6 <= n {
            if bytes[i] == UBX.sync1 && bytes[i + 1] == UBX.sync2 {
                let total = (Int(bytes[i + 4]) | Int(bytes[i + 5]) << 8) + UBX.overheadLength
                if i + total <= n {
                    let (a, b) = UBX.checksum(UnsafeBufferPointer(rebasing: bytes[(i + 2)..<(i + total - 2)]))
                    if a == bytes[i + total - 2] && b == bytes[i + total - 1] { ubx += 1; i += total; continue }
                }
            } else if bytes[i] == RTCM3.preamble && bytes[i + 1] & 0xFC == 0 {
                let total = (Int(bytes[i + 1]) << 8 | Int(bytes[i + 2])) + 6
                if total > 6 && i + total <= n {
                    let crc = RTCM3.crc24q(UnsafeBufferPointer(rebasing: bytes[i..<(i + total - 3)]))
                    let sent = UInt32(bytes[i + total - 3]) << 16 | UInt32(bytes[i + total - 2]) << 8 | UInt32(bytes[i + total - 1])
                    if crc == sent { rtcm3 += 1; i += total; continue }
                }
            }
            i += 1
        }
        return (ubx, rtcm3)
    }
}

/// Counts well-formed NMEA 0183 sentences in a block: `$`/`!`, a 5-character address of capitals and digits, a
/// comma, printable fields, and either `*HH` with the right checksum (`checksummed`) or a plain line end
/// (`unchecked`, for checksum-less logs read with `--lenient`).
enum NMEASniffer {
    static func count(_ bytes: UnsafeBufferPointer<UInt8>) -> (checksummed: Int, unchecked: Int) {
        var checksummed = 0, unchecked = 0
        var i = 0
        let n = bytes.count
        while i < n {
            let c = bytes[i]
            guard c == 0x24 || c == 0x21, i + 7 < n else { i += 1; continue }
            var j = i + 1
            var addressOK = true
            while j < i + 6 {
                let a = bytes[j]
                if !((0x41...0x5A).contains(a) || (0x30...0x39).contains(a)) { addressOK = false; break }
                j += 1
            }
            guard addressOK, bytes[j] == 0x2C else { i += 1; continue }
            var sum: UInt8 = 0
            for k in (i + 1)..<j { sum ^= bytes[k] }
            var k = j
            var ended = false
            while k < n {
                let b = bytes[k]
                if b == 0x2A {
                    if k + 2 < n, let h = hex(bytes[k + 1]), let l = hex(bytes[k + 2]), h << 4 | l == sum { checksummed += 1 }
                    ended = true
                    break
                }
                if b == 0x0D || b == 0x0A { unchecked += 1; ended = true; break }
                if b < 0x20 || b > 0x7E { ended = true; break }
                sum ^= b
                k += 1
            }
            i = ended ? k + 1 : n
        }
        return (checksummed, unchecked)
    }

    static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x41 + 10
        case 0x61...0x66: b - 0x61 + 10
        default: nil
        }
    }
}
