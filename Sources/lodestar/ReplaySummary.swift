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
    var nmeaFixesStoodIn = 0
    var ubxEpochsLate = 0
    var ubxLateFixesOutput = 0
    var fixes = 0
    var deadReckoned = 0
    var paused = 0
    var sky = 0
    var headings = 0
    /// False for a receiver stream with binary frames (UBX, RTCM): its "records" are the chunks between 0x0A bytes,
    /// which said "0 rejected" of a stream with corrupt frames; its NMEA and binary parts count what was read.
    var recordsMeanSomething = true

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
            nmeaFixesStoodIn = pipeline.nmea.nmeaFixesStoodIn
            ubxEpochsLate = pipeline.nmea.ubxEpochsLate
            ubxLateFixesOutput = pipeline.lateFixesEmitted
            fixes = pipeline.fixesEmitted
            deadReckoned = pipeline.fixesDeadReckoned
            paused = pipeline.fixesPaused
            sky = pipeline.skyEmitted
            headings = pipeline.headingsEmitted
        }
        if reader is NMEALogReader, !binary.isEmpty { recordsMeanSomething = false }
    }

    mutating func add(_ o: ReplaySummary) {
        recordsRead += o.recordsRead
        recordsAccepted += o.recordsAccepted
        recordsIgnored += o.recordsIgnored
        for (k, v) in o.recordRejections { recordRejections[k, default: 0] += v }
        nmea = nmea + o.nmea
        binary = binary + o.binary
        nmeaFixesSuperseded += o.nmeaFixesSuperseded
        nmeaFixesStoodIn += o.nmeaFixesStoodIn
        ubxEpochsLate += o.ubxEpochsLate
        ubxLateFixesOutput += o.ubxLateFixesOutput
        fixes += o.fixes
        deadReckoned += o.deadReckoned
        paused += o.paused
        sky += o.sky
        headings += o.headings
        recordsMeanSomething = recordsMeanSomething && o.recordsMeanSomething
    }

    func line(prefix: String) -> String {
        var sections: [String] = []
        if recordsMeanSomething {
            let recordRejected = recordRejections.values.reduce(0, +)
            var parts = ["\(recordsRead) records read", "\(recordsAccepted) accepted"]
            if recordsIgnored > 0 { parts.append("\(recordsIgnored) ignored") }
            parts.append("\(recordRejected) rejected" + Self.reasons(recordRejections))
            sections.append(parts.joined(separator: ", "))
        }
        var nmeaReasons: [String: Int] = [:]
        for r in RejectionReason.allCases where nmea.count(r) > 0 { nmeaReasons[r.name] = nmea.count(r) }
        if nmea.framed > 0 || nmea.totalRejected > 0 {
            var n = "NMEA: \(nmea.framed) sentences, \(nmea.totalRejected) rejected" + Self.reasons(nmeaReasons)
            if nmea.garbageBytes > 0 { n += ", \(nmea.garbageBytes) garbage bytes skipped" }
            if nmea.encapsulatedSkipped > 0 { n += ", \(nmea.encapsulatedSkipped) '!' lines skipped" }
            sections.append(n)
        }
        if !binary.isEmpty { sections.append(binary.summary) }
        if nmeaFixesSuperseded > 0 { sections.append("\(nmeaFixesSuperseded) NMEA fixes superseded by UBX") }
        if nmeaFixesStoodIn > 0 { sections.append("\(nmeaFixesStoodIn) NMEA fixes in place of lost UBX epochs") }
        if ubxEpochsLate > 0 {
            // Late solutions are never fixes of the stream; gpsd's output shows those gpsd reports (a TPV behind).
            sections.append(ubxLateFixesOutput > 0
                ? "\(ubxEpochsLate) late UBX epochs not in the fix stream (gpsd output shows \(ubxLateFixesOutput), as gpsd)"
                : "\(ubxEpochsLate) late UBX epochs not output")
        }
        var output = "output: \(fixes) fixes"
        if deadReckoned > 0 { output += " (\(deadReckoned) dead-reckoned)" }
        if paused > 0 { output += ", \(paused) paused while stationary" }
        output += ", \(sky) sky"
        if headings > 0 { output += ", \(headings) headings" }
        sections.append(output)
        return prefix + ": " + sections.joined(separator: "; ")
    }

    static func reasons(_ r: [String: Int]) -> String {
        guard !r.isEmpty else { return "" }
        return " (" + r.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
    }
}
