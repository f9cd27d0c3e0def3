import LocationCore
import NMEA
import UBX

/// The receiver stage: per source one mixed-stream framer (bytes → NMEA sentences, UBX frames, RTCM3 frames),
/// an NMEA parser and epoch assembler (sentences → one fix and one sky report per receiver cycle), and a UBX
/// epoch assembler (messages → one fix and one sky report per navigation epoch). Once a source has sent UBX
/// navigation solutions its NMEA fixes are superseded (dropped and counted): one fix per epoch, the one with the
/// receiver's accuracies. An epoch whose UBX solution was lost (a corrupt frame) while its NMEA fix arrived intact is
/// not lost: the NMEA fix stands in for it (`nmeaFixesStoodIn`). Owns its state; `snapshot` is a read-only view for
/// diagnosis.
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
        /// Decode every field of NMEA fix sentences even once the source's UBX solutions supersede them (off: only
        /// what places them in a cycle, `NMEAParser.parse(_:decodingFixFields:)`; the output is the same, which a
        /// test checks with this on).
        public var decodeSupersededFixes = false
        public init() {}
    }

    /// What the stage hands on, in order.
    public enum Output {
        case epoch(EpochOutput)
        /// A proprietary or unsupported sentence, `$` to checksum plus CRLF (`passthrough` only).
        case sentence([UInt8])
        /// An RTCM3 frame as received (preamble to CRC), for a later NTRIP relay; the pipeline ignores it for now.
        case rtcm3([UInt8])
        /// The receiver's jamming, spoofing or antenna state changed (u-blox MON-HW, MON-RF, NAV-STATUS).
        case integrity(ReceiverIntegrity)
        /// The receiver said what it is (u-blox MON-VER).
        case receiverVersion(MonVER)
        /// A late UBX epoch's fix that gpsd reports (`UBXEpochAssembler.Output.lateFix`): not in the fix stream.
        case lateFix(Location)
    }

    public struct Snapshot: Sendable {
        /// Framer + parser counters over all sources.
        public var statistics: NMEAStatistics
        /// Source ids that sent NMEA, ascending.
        public var sources: [Int]
        /// Sources with a sentence begun but not ended.
        public var sourcesInsideSentence: [Int]
        /// UBX/RTCM3 framer and decoder counters over all sources.
        public var binary: MixedStreamStatistics
        /// NMEA fixes dropped because the source sends UBX navigation solutions.
        public var nmeaFixesSuperseded: Int
        /// NMEA fixes output for an epoch whose UBX solution was lost.
        public var nmeaFixesStoodIn: Int
    }

    /// A superseded NMEA fix kept for a possible stand-in: what its fix is rebuilt from (`decodedFix`). Not the
    /// `Location` itself, whose copy per NMEA fix would cost the UBX replay's speed; its position is decoded again.
    private struct Standby {
        var time: Timestamp
        var timeFractionDigits: Int
        var receiveTime: Timestamp?
        var nanos: Int64 { time.nanosecondsSince1970 }
    }

    private final class Stream {
        let framer: MixedStreamFramer
        let parser = NMEAParser()
        var assembler: EpochAssembler
        var ubx: UBXEpochAssembler
        var superseded = 0
        /// Superseded NMEA fixes whose epochs have no UBX fix yet, oldest first: each is output in its epoch's place
        /// if that epoch's UBX solution proves lost (`standIn`).
        var standbys: [Standby] = []
        /// At most this many standbys wait for a UBX epoch in progress that is older than they are; beyond it the
        /// oldest is resolved anyway (a stream whose UBX epochs never end must not hold NMEA fixes without bound).
        static let standbysWaitingAtMost = 8
        var stoodIn = 0
        /// The last fix handed on (UBX or a stand-in) and the last two UBX fixes' times (ns since 1970): the UBX
        /// solutions' interval tells an epoch whose UBX was lost from NMEA sent more often than UBX.
        var lastFixNanos: Int64?
        var lastUBXNanos: Int64?
        var ubxIntervalNanos: Int64?
        /// UBX fixes not after a stand-in's time (the UBX epoch came after all): not output.
        var lateUBX = 0
        /// The last position sentences (GGA, RMC, GNS, GLL) once UBX supersedes NMEA, with their time of day (ns):
        /// superseded, their fields are not decoded (`NMEAParser.parse(_:decodingFixFields:)`); a stand-in decodes
        /// its cycle's from these. A ring of `recentPositionSentencesKept` slots, each reused in place (no allocation
        /// per sentence once warm: the UBX replay's speed).
        var recentPositionSentences: [(nanosecondOfDay: Int64, text: [UInt8])] = []
        var recentPositionNext = 0
        static let recentPositionSentencesKept = 16
        /// Receive time of the current chunk and of the chunk where the unfinished sentence began.
        var chunkUTC: Timestamp?
        var partialStartUTC: Timestamp?
        /// Receive times of the last sentence and the last UBX message handed on (`finish` reuses them).
        var lastSentenceUTC: Timestamp?
        var lastMessageUTC: Timestamp?
        init(settings: Settings) {
            framer = MixedStreamFramer(options: MixedStreamFramer.Options(nmea: settings.framer))
            assembler = EpochAssembler(settings: settings.epoch, referenceDate: settings.referenceDate)
            ubx = UBXEpochAssembler(referenceDate: settings.referenceDate)
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
    /// Returns how many sentences and frames the chunk completed (checksum-valid: the source's data is alive).
    @discardableResult
    public func feed(_ bytes: UnsafeBufferPointer<UInt8>, sourceID: Int, receiveUTC: Timestamp?, _ out: (Output) -> Void) -> Int {
        let s = stream(sourceID)
        s.chunkUTC = receiveUTC
        return feed(s, bytes, out)
    }

    /// A chunk without a receive time (a plain NMEA log: the replay fast path).
    @discardableResult
    public func feed(_ bytes: UnsafeBufferPointer<UInt8>, sourceID: Int, _ out: (Output) -> Void) -> Int {
        feed(stream(sourceID), bytes, out)
    }

    private func feed(_ s: Stream, _ bytes: UnsafeBufferPointer<UInt8>, _ out: (Output) -> Void) -> Int {
        // Each sentence's receive time: its chunk's, or for the first one, if it began in an earlier chunk, that one's.
        let startedEarlier = s.framer.isInsideSentence || s.framer.isInsideFrame
        var completed = 0
        let passthrough = settings.passthrough
        let decodeSuperseded = settings.decodeSupersededFixes
        // Read once per chunk and after each UBX frame (not per sentence: each read of the stream's state is a
        // run-time exclusivity check).
        var ubxSolutionSeen = s.ubx.sawNavigationSolution
        var decodingFixFields = decodeSuperseded || !ubxSolutionSeen
        s.framer.feed(bytes) { frame in
            switch frame {
            case .nmea(let framed):
                let receiveTime = completed == 0 && startedEarlier ? s.partialStartUTC : s.chunkUTC
                s.lastSentenceUTC = receiveTime
                completed += 1
                guard let parsed = s.parser.parse(framed, decodingFixFields: decodingFixFields) else { return }
                if ubxSolutionSeen { Self.keepPositionSentence(parsed.sentence, framed, s) }
                switch parsed.sentence {
                case .proprietary, .unsupported:
                    if passthrough { out(.sentence(Array(framed.bytes) + [0x0D, 0x0A])) }
                default:
                    s.assembler.add(parsed, receiveTime: receiveTime) { self.handNMEA($0, s, out) }
                }
            case .ubx(let f):
                let receiveTime = completed == 0 && startedEarlier ? s.partialStartUTC : s.chunkUTC
                s.lastMessageUTC = receiveTime
                completed += 1
                self.decode(f, receiveTime: receiveTime, firstSolutionPossible: !ubxSolutionSeen, s, out)
                ubxSolutionSeen = s.ubx.sawNavigationSolution
                decodingFixFields = decodeSuperseded || !ubxSolutionSeen
            case .rtcm3(let f):
                completed += 1
                out(.rtcm3(Array(f.bytes)))
            }
        }
        if (s.framer.isInsideSentence || s.framer.isInsideFrame) && (completed > 0 || !startedEarlier) {
            s.partialStartUTC = s.chunkUTC
        }
        return completed
    }

    /// Keeps a position sentence's text for a possible stand-in (`standIn`).
    private static func keepPositionSentence(_ sentence: NMEASentence, _ framed: FramedSentence, _ s: Stream) {
        let time: NMEATime?
        switch sentence {
        case .gga(let g): time = g.time
        case .rmc(let r): time = r.time
        case .gns(let g): time = g.time
        case .gll(let g): time = g.time
        default: return
        }
        guard let t = time else { return }
        if s.recentPositionSentences.count < Stream.recentPositionSentencesKept {
            s.recentPositionSentences.append((t.nanosecondOfDay, Array(framed.bytes)))
        } else {
            let i = s.recentPositionNext
            s.recentPositionSentences[i].nanosecondOfDay = t.nanosecondOfDay
            s.recentPositionSentences[i].text.removeAll(keepingCapacity: true)
            s.recentPositionSentences[i].text.append(contentsOf: framed.bytes)
        }
        s.recentPositionNext = (s.recentPositionNext + 1) % Stream.recentPositionSentencesKept
    }

    /// `firstSolutionPossible`: the source has sent no UBX navigation solution yet (the caller knows it without
    /// reading the stream's state again: each read is a run-time exclusivity check).
    private func decode(_ f: UBXFrame, receiveTime: Timestamp?, firstSolutionPossible: Bool, _ s: Stream,
                        _ out: (Output) -> Void) {
        // The source's first UBX navigation solution supersedes its NMEA fixes from now on. An NMEA cycle in
        // progress with a position of another time was sent before it (a receiver switched to UBX, a log that
        // starts in NMEA: gpsd's ublox8-uniqid-monhw), so it is output now rather than dropped when its cycle
        // would have ended; one of the same time is that epoch's NMEA, superseded as usual.
        if firstSolutionPossible, let nmea = s.assembler.pendingPositionTimeOfDayNanos,
           let ubx = s.ubx.solutionTimeOfDayNanos(f) {
            let day: Int64 = 86_400_000_000_000
            let d = ((nmea - ubx) % day + day) % day
            if min(d, day - d) > 25_000_000 { s.assembler.finish { self.handNMEA($0, s, out) } }
        }
        switch s.ubx.add(frame: f, receiveTime: receiveTime, { self.handUBX($0, s, out) }) {
        case .decoded: break
        case .unknown: s.framer.countUnknownMessage()
        case .malformed: s.framer.countMalformedMessage()
        case .poll: s.framer.countPollRequest()
        }
    }

    /// Two fix times of one epoch: NMEA's hundredths and UBX's milliseconds of the same instant (ns).
    static let sameEpochNanos: Int64 = 25_000_000

    /// An NMEA epoch: dropped once the source sends UBX navigation solutions (fixes) or UBX sky reports. A fix is
    /// kept back as the standby for its epoch (`standIn`) until that epoch's UBX fix comes or proves lost.
    @inline(__always)
    private func handNMEA(_ e: EpochOutput, _ s: Stream, _ out: (Output) -> Void) {
        switch e {
        case .fix(let l):
            if s.ubx.sawNavigationSolution {
                if let time = l.time, case let t = time.nanosecondsSince1970, s.ubxIntervalNanos != nil,
                   !(s.lastFixNanos.map { t - $0 <= Self.sameEpochNanos && $0 - t <= UBXEpochAssembler.lateEpochToleranceNanos } ?? false) {
                    s.standbys.append(Standby(time: time, timeFractionDigits: l.timeFractionDigits,
                                              receiveTime: l.receiveTime))
                    resolveStandbys(s, out)
                } else {
                    s.superseded += 1   // its epoch is out already (or a later one), or UBX's interval is not known yet
                }
                return
            }
        case .sky:
            if !settings.emitSky || s.ubx.sawSky { return }
        case .notice:
            break
        }
        out(.epoch(e))
    }

    /// A newer NMEA fix came: the standbys before it whose UBX epochs would have come by now are resolved. While the
    /// UBX epoch in progress is older than a standby, that standby waits (the UBX epoch is output first).
    private func resolveStandbys(_ s: Stream, _ out: (Output) -> Void) {
        guard s.standbys.count > 1 else { return }
        let open = s.ubx.openSolutionTime()?.nanosecondsSince1970   // output goes on: the UBX epoch stays as it is
        while s.standbys.count > 1 {
            let ts = s.standbys[0].nanos
            if s.standbys.count <= Stream.standbysWaitingAtMost, let open, open < ts - Self.sameEpochNanos { return }
            let sb = s.standbys.removeFirst()
            if let open, abs(open - ts) <= Self.sameEpochNanos {
                s.superseded += 1   // its UBX epoch is in progress
            } else {
                standIn(sb, s, out)
            }
        }
    }

    /// The standby NMEA fix `l` (superseded by UBX) is output if its epoch's UBX solution was lost: it is at least one
    /// UBX interval after the last UBX fix (an epoch UBX was due in; NMEA sent more often than UBX is not) and after
    /// the last fix handed on. Otherwise it was superseded.
    private func standIn(_ l: Standby, _ s: Stream, _ out: (Output) -> Void) {
        let t = l.nanos
        guard let lastUBX = s.lastUBXNanos, let interval = s.ubxIntervalNanos,
              t - lastUBX >= interval - Self.sameEpochNanos,
              s.lastFixNanos.map({ t - $0 > Self.sameEpochNanos }) ?? true,
              let fix = decodedFix(l, s) else { s.superseded += 1; return }
        s.stoodIn += 1
        s.lastFixNanos = t
        out(.epoch(.fix(fix)))
    }

    /// The superseded fix `l` (its position fields not decoded) decoded from its cycle's kept position sentences:
    /// the same fix as the NMEA alone would have given, at `l`'s time. Nil without a position.
    private func decodedFix(_ l: Standby, _ s: Stream) -> Location? {
        let time = l.time
        let tod = time.dayAndNanoOfDay.nanoOfDay
        let parser = NMEAParser()   // not the stream's: its counts have these sentences already
        var assembler = EpochAssembler(settings: settings.epoch, referenceDate: time.civilDate)
        var fix: Location?
        let keep: (EpochOutput) -> Void = { if case .fix(let f) = $0 { fix = f } }
        let ring = s.recentPositionSentences, n = ring.count
        let first = n < Stream.recentPositionSentencesKept ? 0 : s.recentPositionNext   // the oldest
        for k in 0..<n {
            let x = ring[(first + k) % n]
            guard x.nanosecondOfDay == tod else { continue }
            if let p = parser.parse(text: String(decoding: x.text, as: UTF8.self)) { assembler.add(p, receiveTime: l.receiveTime, keep) }
        }
        assembler.finish(keep)
        guard var f = fix, f.latitudeDegrees != nil, f.longitudeDegrees != nil else { return nil }
        f.time = time
        f.timeFractionDigits = l.timeFractionDigits
        f.receiveTime = l.receiveTime
        return f
    }

    private func handUBX(_ o: UBXEpochAssembler.Output, _ s: Stream, _ out: (Output) -> Void) {
        switch o {
        case .epoch(let e):
            if case .sky = e, !settings.emitSky { return }
            if let t = e.fixNanosecondsSince1970 {
                // The receiver's clock went back (a new time base, `UBXEpochAssembler.lateEpochToleranceNanos`): the
                // standbys are of the old one.
                if let last = s.lastFixNanos, last - t > UBXEpochAssembler.lateEpochToleranceNanos {
                    s.superseded += s.standbys.count; s.standbys.removeAll()
                }
                // The standbys of this epoch are superseded; those before it stand in if their UBX was lost.
                while let ts = s.standbys.first?.nanos, ts <= t + Self.sameEpochNanos {
                    let sb = s.standbys.removeFirst()
                    if abs(ts - t) <= Self.sameEpochNanos { s.superseded += 1 } else { standIn(sb, s, out) }
                }
                // A UBX epoch that came after a stand-in of its time after all.
                if let last = s.lastFixNanos, t <= last, last - t <= UBXEpochAssembler.lateEpochToleranceNanos {
                    s.lateUBX += 1
                    return
                }
                if let u = s.lastUBXNanos, t > u { s.ubxIntervalNanos = s.ubxIntervalNanos.map { Swift.min($0, t - u) } ?? (t - u) }
                s.lastUBXNanos = t
                s.lastFixNanos = t
            }
            out(.epoch(e))
        case .integrity(let i): out(.integrity(i))
        case .version(let v): out(.receiverVersion(v))
        case .lateFix(let l): out(.lateFix(l))
        }
    }

    /// End of input: a last sentence without a line ending, and the last cycles.
    public func finish(_ out: (Output) -> Void) {
        for id in streams.keys.sorted() {
            guard let s = streams[id] else { continue }
            s.framer.finish { frame in
                switch frame {
                case .nmea(let framed):
                    if let parsed = s.parser.parse(framed) {
                        s.assembler.add(parsed, receiveTime: s.lastSentenceUTC) { self.handNMEA($0, s, out) }
                    }
                case .ubx(let f):
                    self.decode(f, receiveTime: s.lastMessageUTC, firstSolutionPossible: !s.ubx.sawNavigationSolution, s, out)
                case .rtcm3(let f): out(.rtcm3(Array(f.bytes)))
                }
            }
            s.assembler.finish { self.handNMEA($0, s, out) }
            s.ubx.finish { self.handUBX($0, s, out) }
            // The last NMEA fixes, if no UBX fix of their epochs came.
            while !s.standbys.isEmpty { standIn(s.standbys.removeFirst(), s, out) }
        }
    }

    /// Framer + parser counters over all sources.
    public var statistics: NMEAStatistics {
        streams.values.reduce(NMEAStatistics()) { acc, s in
            var parserStats = s.parser.statistics
            parserStats.framed = 0 // framed is counted by the framer; the parser's copy counts the same sentences
            return acc + s.framer.nmea.statistics + parserStats
        }
    }

    /// UBX/RTCM3 counters over all sources (all zero for an NMEA-only stream).
    public var binaryStatistics: MixedStreamStatistics {
        streams.values.reduce(MixedStreamStatistics()) { $0 + $1.framer.statistics }
    }

    /// NMEA fixes dropped because their source sends UBX navigation solutions.
    public var nmeaFixesSuperseded: Int { streams.values.reduce(0) { $0 + $1.superseded } }

    /// NMEA fixes output in place of an epoch whose UBX solution was lost.
    public var nmeaFixesStoodIn: Int { streams.values.reduce(0) { $0 + $1.stoodIn } }

    /// UBX epochs not output because a fix of their time or later was out already: a late NAV-PVT behind the
    /// HNR-PVT stream (`UBXEpochAssembler.staleEpochs`), or a UBX epoch that came after its NMEA stood in for it.
    public var ubxEpochsLate: Int { streams.values.reduce(0) { $0 + $1.ubx.staleEpochs + $1.lateUBX } }
    /// Of `ubxEpochsLate`, those handed on as `Output.lateFix` (gpsd reports them).
    public var ubxLateFixes: Int { streams.values.reduce(0) { $0 + $1.ubx.lateFixes } }

    public var snapshot: Snapshot {
        Snapshot(statistics: statistics, sources: streams.keys.sorted(),
                 sourcesInsideSentence: streams.filter { $0.value.framer.isInsideSentence }.map(\.key).sorted(),
                 binary: binaryStatistics, nmeaFixesSuperseded: nmeaFixesSuperseded,
                 nmeaFixesStoodIn: nmeaFixesStoodIn)
    }
}
