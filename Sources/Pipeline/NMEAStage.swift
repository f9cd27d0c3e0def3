import LocationCore
import NMEA

/// The NMEA stage: per source a framer (bytes → sentences), a parser (sentences → typed values) and an epoch
/// assembler (sentences → one fix and one sky report per receiver cycle). Owns its state; `snapshot` is a
/// read-only view for diagnosis.
public final class NMEAStage {
    public struct Settings: Sendable {
        public var framer = NMEAFramer.Options.default
        public var epoch = EpochAssembler.Settings.default
        /// Reference date for 2-digit years / rollover (from the capture header, or the CLI's system clock).
        public var referenceDate: CivilDate?
        /// Emit sky reports.
        public var emitSky = true
        /// Pass proprietary and unsupported sentences through (with CRLF) instead of dropping them.
        public var passthrough = false
        public init() {}
    }

    /// What the stage hands on, in order.
    public enum Output {
        case epoch(EpochOutput)
        /// A proprietary or unsupported sentence, `$` to checksum plus CRLF (`passthrough` only).
        case sentence([UInt8])
    }

    public struct Snapshot: Sendable {
        /// Framer + parser counters over all sources.
        public var statistics: NMEAStatistics
        /// Source ids that sent NMEA, ascending.
        public var sources: [Int]
        /// Sources with a sentence begun but not ended.
        public var sourcesInsideSentence: [Int]
    }

    private final class Stream {
        let framer: NMEAFramer
        let parser = NMEAParser()
        var assembler: EpochAssembler
        /// Receive time of the current chunk and of the chunk where the unfinished sentence began.
        var chunkUTC: Timestamp?
        var partialStartUTC: Timestamp?
        init(settings: Settings) {
            framer = NMEAFramer(options: settings.framer)
            assembler = EpochAssembler(settings: settings.epoch, referenceDate: settings.referenceDate)
        }
    }

    public let settings: Settings
    private var streams: [Int: Stream] = [:]

    public init(settings: Settings) { self.settings = settings }

    /// True once `sourceID` has sent NMEA (its external fixes are then ignored).
    public func hasNMEA(from sourceID: Int) -> Bool { streams[sourceID] != nil }

    private func stream(_ id: Int) -> Stream {
        if let s = streams[id] { return s }
        let s = Stream(settings: settings)
        streams[id] = s
        return s
    }

    /// A chunk that arrived at `receiveUTC` (live, or a capture's NMEA record).
    public func feed(_ bytes: UnsafeBufferPointer<UInt8>, sourceID: Int, receiveUTC: Timestamp?, _ out: (Output) -> Void) {
        let s = stream(sourceID)
        s.chunkUTC = receiveUTC
        feed(s, bytes, out)
    }

    /// A chunk without a receive time (a plain NMEA log: the replay fast path).
    public func feed(_ bytes: UnsafeBufferPointer<UInt8>, sourceID: Int, _ out: (Output) -> Void) {
        feed(stream(sourceID), bytes, out)
    }

    private func feed(_ s: Stream, _ bytes: UnsafeBufferPointer<UInt8>, _ out: (Output) -> Void) {
        // Each sentence's receive time: its chunk's, or for the first one, if it began in an earlier chunk, that one's.
        let startedEarlier = s.framer.isInsideSentence
        var completed = 0
        let passthrough = settings.passthrough
        s.framer.feed(bytes) { framed in
            s.assembler.sentenceReceiveTime = completed == 0 && startedEarlier ? s.partialStartUTC : s.chunkUTC
            completed += 1
            guard let parsed = s.parser.parse(framed) else { return }
            switch parsed.sentence {
            case .proprietary, .unsupported:
                if passthrough { out(.sentence(Array(framed.bytes) + [0x0D, 0x0A])) }
            default:
                s.assembler.add(parsed) { self.hand($0, out) }
            }
        }
        if s.framer.isInsideSentence && (completed > 0 || !startedEarlier) { s.partialStartUTC = s.chunkUTC }
    }

    @inline(__always)
    private func hand(_ e: EpochOutput, _ out: (Output) -> Void) {
        if case .sky = e, !settings.emitSky { return }
        out(.epoch(e))
    }

    /// End of input: a last sentence without a line ending, and the last cycles.
    public func finish(_ out: (Output) -> Void) {
        for id in streams.keys.sorted() {
            guard let s = streams[id] else { continue }
            s.framer.finish { framed in
                if let parsed = s.parser.parse(framed) { s.assembler.add(parsed) { self.hand($0, out) } }
            }
            s.assembler.finish { self.hand($0, out) }
        }
    }

    /// Framer + parser counters over all sources.
    public var statistics: NMEAStatistics {
        streams.values.reduce(NMEAStatistics()) { acc, s in
            var parserStats = s.parser.statistics
            parserStats.framed = 0 // framed is counted by the framer; the parser's copy counts the same sentences
            return acc + s.framer.statistics + parserStats
        }
    }

    public var snapshot: Snapshot {
        Snapshot(statistics: statistics, sources: streams.keys.sorted(),
                 sourcesInsideSentence: streams.filter { $0.value.framer.isInsideSentence }.map(\.key).sorted())
    }
}
