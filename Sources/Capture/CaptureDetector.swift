#if canImport(Glibc)
import Glibc
#endif

/// Recognises a capture's format from its first bytes, and opens the matching reader.
public enum CaptureDetector {
    /// Detects the format of `path` from its first 8 KB. Throws `.unrecognizedFormat` with the reason.
    public static func detect(path: String) throws(CaptureError) -> CaptureFormat {
        if path == "-" { return .nmea }
        let source = try ByteSource(path: path)
        let head = try source.read()
        if head.isEmpty { throw .unrecognizedFormat(path: path, reason: "the file is empty") }
        let text = String(decoding: UnsafeBufferPointer(rebasing: head[..<min(head.count, 8192)]), as: UTF8.self)
        let lines = text.split(omittingEmptySubsequences: true, whereSeparator: { $0.isNewline }).prefix(200)
        if let first = lines.first, first.hasPrefix(LodestarCapture.magic) { return .lodestar }
        let gnssLoggerTypes = ["Fix,", "Raw,", "UncalAccel,", "UncalMag,", "UncalGyro,", "Accel,", "Gyro,", "Mag,",
                               "Status,", "OrientationDeg,", "NMEA,"]
        for line in lines {
            if line.hasPrefix("# Version: v") || line.hasPrefix("# Version: V") { return .gnsslogger }
            if line.hasPrefix("# "), gnssLoggerTypes.contains(where: { line.dropFirst(2).hasPrefix($0) }) { return .gnsslogger }
        }
        var sentenceLines = 0
        var otherLines = 0
        for line in lines where !line.hasPrefix("#") {
            if line.contains("$G") || line.contains("$P") || line.hasPrefix("$") || line.hasPrefix("!") { sentenceLines += 1 }
            else { otherLines += 1 }
        }
        if let firstData = lines.first(where: { !$0.hasPrefix("#") }), firstData.contains(","), !firstData.contains("$") {
            let lower = firstData.lowercased()
            let looksLikeHeader = lower.contains("t_s") || lower.contains("time") || lower.contains("gpst")
            if looksLikeHeader && (lower.contains("acc") || lower.contains("mag") || lower.contains("ax_")) { return .imuCSV }
            if gnssLoggerTypes.contains(where: { firstData.hasPrefix($0) }) { return .gnsslogger }
        }
        if sentenceLines > 0 { return .nmea }
        let printable = head.prefix(4096).allSatisfy { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || (0x20...0x7E).contains($0) }
        throw .unrecognizedFormat(path: path, reason: printable
            ? "no NMEA sentences, GnssLogger records, IMU CSV header or Lodestar capture magic in the first \(min(head.count, 8192)) bytes"
            : "binary data with no NMEA sentences")
    }

    /// Opens a reader for `path` in `format` (detected when nil).
    public static func open(path: String, format: CaptureFormat?, lineEvents: Bool = false) throws(CaptureError) -> any CaptureReader {
        let f: CaptureFormat
        if let format { f = format } else { f = try detect(path: path) }
        switch f {
        case .lodestar: return try LodestarCaptureReader(path: path)
        case .nmea: return try NMEALogReader(path: path, lineEvents: lineEvents)
        case .gnsslogger: return try GnssLoggerReader(path: path)
        case .imuCSV: return try IMUCSVReader(path: path)
        }
    }
}
