import Capture
import NMEA
import Pipeline
import UBX

/// The end-of-run summary printed on standard error.
struct ReplaySummary {
    var recordsRead = 0
    var recordsAccepted = 0
    var recordsIgnored = 0
    var recordRejections: [String: Int] = [:]
    var nmea = NMEAStatistics()
    /// UBX messages by class, RTCM3 frames, UBX checksum errors, unknown and malformed messages.
    var binary = MixedStreamStatistics()
    var nmeaFixesSuperseded = 0
    var fixes = 0
    var deadReckoned = 0
    var paused = 0
    var sky = 0
    var headings = 0

    init() {}

    init(file: String, reader: any CaptureReader, pipeline: Pipeline?) {
        let s = reader.statistics
        recordsRead = s.recordsRead
        recordsAccepted = s.recordsAccepted
        recordsIgnored = s.recordsIgnored
        recordRejections = s.rejections.byReason
        if let pipeline {
            nmea = pipeline.nmeaStatistics
            binary = pipeline.binaryStatistics
            nmeaFixesSuperseded = pipeline.nmea.nmeaFixesSuperseded
            fixes = pipeline.fixesEmitted
            deadReckoned = pipeline.fixesDeadReckoned
            paused = pipeline.fixesPaused
            sky = pipeline.skyEmitted
            headings = pipeline.headingsEmitted
        }
    }

    mutating func add(_ o: ReplaySummary) {
        recordsRead += o.recordsRead
        recordsAccepted += o.recordsAccepted
        recordsIgnored += o.recordsIgnored
        for (k, v) in o.recordRejections { recordRejections[k, default: 0] += v }
        nmea = nmea + o.nmea
        binary = binary + o.binary
        nmeaFixesSuperseded += o.nmeaFixesSuperseded
        fixes += o.fixes
        deadReckoned += o.deadReckoned
        paused += o.paused
        sky += o.sky
        headings += o.headings
    }

    func line(prefix: String) -> String {
        let recordRejected = recordRejections.values.reduce(0, +)
        var parts = ["\(recordsRead) records read", "\(recordsAccepted) accepted"]
        if recordsIgnored > 0 { parts.append("\(recordsIgnored) ignored") }
        parts.append("\(recordRejected) rejected" + Self.reasons(recordRejections))
        var out = prefix + ": " + parts.joined(separator: ", ")
        var nmeaReasons: [String: Int] = [:]
        for r in RejectionReason.allCases where nmea.count(r) > 0 { nmeaReasons[r.name] = nmea.count(r) }
        if nmea.framed > 0 || nmea.totalRejected > 0 {
            out += "; NMEA: \(nmea.framed) sentences, \(nmea.totalRejected) rejected" + Self.reasons(nmeaReasons)
            if nmea.garbageBytes > 0 { out += ", \(nmea.garbageBytes) garbage bytes skipped" }
            if nmea.encapsulatedSkipped > 0 { out += ", \(nmea.encapsulatedSkipped) '!' lines skipped" }
        }
        if !binary.isEmpty { out += "; " + binary.summary }
        if nmeaFixesSuperseded > 0 { out += "; \(nmeaFixesSuperseded) NMEA fixes superseded by UBX" }
        out += "; output: \(fixes) fixes"
        if deadReckoned > 0 { out += " (\(deadReckoned) dead-reckoned)" }
        if paused > 0 { out += ", \(paused) paused while stationary" }
        out += ", \(sky) sky"
        if headings > 0 { out += ", \(headings) headings" }
        return out
    }

    static func reasons(_ r: [String: Int]) -> String {
        guard !r.isEmpty else { return "" }
        return " (" + r.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
    }
}
