import LocationCore
import NMEA

/// Merges the UBX messages of one navigation epoch into one `Location` and one `SkyReport`, as gpsd does:
/// messages sharing an iTOW form an epoch, emitted at UBX-NAV-EOE (F9 and later), when the iTOW changes, or at
/// the end of the stream. Receiver state outside epochs — leap seconds, GPS week, integrity (MON-HW, MON-RF,
/// NAV-STATUS spoofing), the version (MON-VER) — carries over; every field the receiver did not report stays nil.
public struct UBXEpochAssembler: Sendable {
    public enum Output: Sendable {
        case epoch(EpochOutput)
        /// Jamming, spoofing or antenna state changed.
        case integrity(ReceiverIntegrity)
        /// The receiver said what it is (MON-VER).
        case version(MonVER)
        /// A late epoch's fix (`staleEpochs`) that gpsd reports: its solution behind the fixes already out (a
        /// NAV-PVT after the HNR-PVT of a later time), closed by NAV-EOE once NAV-EOE is known to end this
        /// receiver's epochs (gpsd reports at its learned cycle ender). Not a fix of the session's stream (fix times
        /// never go back); gpsd's output shows it (`OutputEvent.lateFix`).
        case lateFix(Location)
    }

    /// What one epoch has said so far.
    struct Epoch: Sendable {
        var iTOW: UInt32
        // The solution messages are only ever set to a message (an epoch begins empty), so setting one means the
        // epoch has a solution. Stored rather than computed: `pvt != nil` copied the 257-byte optional at each of
        // the five reads per epoch.
        var pvt: NavPVT? { didSet { hasSolution = true } }
        var sol: NavSOL? { didSet { hasSolution = true } }
        var posllh: NavPOSLLH? { didSet { hasSolution = true } }
        var hpposllh: NavHPPOSLLH? { didSet { hasSolution = true } }
        var velned: NavVELNED?
        var posecef: NavPOSECEF? { didSet { hasSolution = true } }
        var velecef: NavVELECEF?
        var dop: NavDOP?
        var status: NavSTATUS?
        var timegps: NavTIMEGPS?
        var timeutc: NavTIMEUTC?
        var relposned: NavRELPOSNED?
        var att: NavATT?
        var sat: NavSAT?
        var svinfo: NavSVINFO?
        var hnr: HnrPVT? { didSet { hasSolution = true } }
        /// A navigation solution (NAV-PVT, NAV-SOL, NAV-POSLLH, NAV-HPPOSLLH, NAV-(HP)POSECEF or HNR-PVT) was set.
        private(set) var hasSolution = false

        /// An empty epoch (no memberwise initialiser: one setting a solution message would bypass `hasSolution`).
        init(iTOW: UInt32) { self.iTOW = iTOW }
    }

    /// The epoch in progress, when `epochOpen`. Stored in place (not as an Optional): each message's struct is
    /// written into it without copying the whole epoch (about 1.3 KB) out and back, which was 5 % of a UBX replay.
    var epoch = Epoch(iTOW: 0)
    var epochOpen = false
    /// GPS − UTC from NAV-TIMEGPS (valid flag set).
    public private(set) var leapSeconds: Int?
    /// GPS week from NAV-TIMEGPS or NAV-SOL (valid flag set).
    public private(set) var week: Int?
    public private(set) var integrity: ReceiverIntegrity?
    public private(set) var version: MonVER?
    /// True once a navigation solution (NAV-PVT, NAV-PVAT, NAV-SOL, NAV-POSLLH, NAV-HPPOSLLH, NAV-(HP)POSECEF,
    /// HNR-PVT) arrived.
    public internal(set) var sawNavigationSolution = false
    public internal(set) var sawSky = false
    public private(set) var epochsEmitted = 0
    /// Epochs whose time is not after the last emitted fix's, by at most `lateEpochToleranceNanos` (a late NAV-PVT
    /// behind the high-rate HNR-PVT stream): not output, so fix times never go backwards. An epoch further back is
    /// the receiver's clock going back (a reset, a week-rollover bug, a looping feed): it is output, and the smoother
    /// re-anchors on the new time base as for NMEA (`timeJumpsBack` counts them).
    public private(set) var staleEpochs = 0
    /// Of `staleEpochs`, those handed on as `Output.lateFix` (closed by NAV-EOE after an earlier NAV-EOE).
    public private(set) var lateFixes = 0
    /// A NAV-EOE arrived before: gpsd has then learned it as this receiver's cycle ender and reports at it.
    var sawEndOfEpoch = false
    /// Epochs more than `lateEpochToleranceNanos` behind the last emitted fix: a new time base, output.
    public private(set) var timeJumpsBack = 0
    /// How far behind the last emitted fix an epoch is late, not a new time base (ns): 1 s (the late NAV-PVTs of
    /// gpsd's ublox-neo-m8u-hnr and ublox-neo-m8l logs are 0.3–0.4 s behind).
    public static let lateEpochToleranceNanos: Int64 = 1_000_000_000
    private var lastFixTime: Timestamp?
    /// The last epoch's fix type and quality flags, with its iTOW: an epoch whose NAV-PVT (NAV-SOL, NAV-STATUS,
    /// HNR-PVT) was lost keeps them for its NAV-POSLLH/NAV-POSECEF position, as gpsd's fix keeps its mode.
    struct FixState: Sendable {
        var type: UBXFixType?
        var differential: Bool
        var carrier: Int
        var iTOW: UInt32
    }
    var lastFixState: FixState?
    /// Epochs whose fix type was carried from the previous epoch (`lastFixState`).
    public private(set) var carriedFixTypes = 0
    /// Receive time of the message being added (`add(frame:receiveTime:)`); the epoch's is its first message's.
    var messageReceiveTime: Timestamp?
    var epochReceiveTime: Timestamp?

    public init() {}

    /// Corrects GPS week-number rollover against this date (a capture's header or the system clock, as for NMEA's
    /// dates: `DateResolver`): an epoch dated a multiple of 1,024 weeks early is moved on by that much, and the change
    /// is announced once as a notice. Nil: no correction.
    public init(referenceDate: CivilDate?) { dateResolver = DateResolver(reference: referenceDate) }
    var dateResolver = DateResolver(reference: nil)
    /// How many 1,024-week periods the last epoch's time was moved on.
    var rolloverPeriods = 0
    /// The receiver's day (days since 1970, before correction) `rolloverPeriods` was found for.
    var rolloverCheckedDay: Int64?

    /// The receiver generation from MON-VER (9 for F9 …), nil before MON-VER.
    public var generation: Int? { version?.generation }

    public mutating func add(_ message: UBXDecoded, _ emit: (Output) -> Void) {
        switch message {
        case .monVER(let v):
            if v != version { version = v; emit(.version(v)) }
            return
        case .monHW(let hw):
            var i = integrity ?? ReceiverIntegrity()
            i.jamming = .init(ublox: hw.jammingState)
            i.jammingIndicator = hw.jammingIndicator
            i.antenna = .init(ublox: hw.antennaStatus)
            setIntegrity(i, emit)
            return
        case .monRF(let rf):
            guard let b = rf.blocks.max(by: { $0.jammingState < $1.jammingState }) else { return }
            var i = integrity ?? ReceiverIntegrity()
            i.jamming = .init(ublox: b.jammingState)
            i.jammingIndicator = rf.blocks.map(\.jammingIndicator).max()
            i.antenna = .init(ublox: rf.blocks.first?.antennaStatus ?? 1)
            setIntegrity(i, emit)
            return
        case .timTP:
            return
        case .navEOE(let t):
            endOfEpoch(t, emit)
            return
        default: break
        }
        guard let t = message.iTOWMilliseconds else { return }
        beginNavigation(t, emit)
        switch message {
        case .navPVT(let m): epoch.pvt = m; sawNavigationSolution = true
        case .navSOL(let m): setSolution(m)
        case .navPOSLLH(let m): epoch.posllh = m; sawNavigationSolution = true
        case .navHPPOSLLH(let m): epoch.hpposllh = m; sawNavigationSolution = true
        case .navVELNED(let m): epoch.velned = m
        case .navPOSECEF(let m): epoch.posecef = m; sawNavigationSolution = true
        case .navVELECEF(let m): epoch.velecef = m
        case .navDOP(let m): epoch.dop = m
        case .navSTATUS(let m):
            epoch.status = m
            if m.spoofingDetectionState != 0 || integrity?.spoofing != nil && integrity?.spoofing != .unknown {
                var i = integrity ?? ReceiverIntegrity()
                i.spoofing = .init(ublox: m.spoofingDetectionState)
                setIntegrity(i, emit)
            }
        case .navTIMEGPS(let m): setTimeGPS(m)
        case .navTIMEUTC(let m): epoch.timeutc = m
        case .navRELPOSNED(let m): epoch.relposned = m
        case .navATT(let m): epoch.att = m
        case .navSAT(let m): epoch.sat = m; sawSky = true
        case .navSVINFO(let m): epoch.svinfo = m; sawSky = true
        case .hnrPVT(let m): epoch.hnr = m; sawNavigationSolution = true
        default: break
        }
        // (Set per message above, the messages `Epoch.hasSolution` and the sky look at: reading the epoch's
        // computed property here copied the whole epoch for every message.)
    }

    /// For a navigation solution frame (NAV-PVT, NAV-PVAT, NAV-SOL, NAV-POSLLH, NAV-HPPOSLLH, NAV-(HP)POSECEF,
    /// HNR-PVT: the frames that set `sawNavigationSolution`), its UTC time of day in nanoseconds: NAV-PVT's,
    /// NAV-PVAT's and HNR-PVT's own UTC fields when validTime, else iTOW minus the leap seconds (the receiver's, else
    /// the current 18). Nil for any other frame.
    public func solutionTimeOfDayNanos(_ f: UBXFrame) -> Int64? {
        let p = LittleEndian(f.payload)
        let iTOWOffset: Int
        switch (f.classID, f.messageID) {
        case (0x01, 0x07), (0x28, 0x00), (0x01, 0x17):
            // Hour, minute, second at 8–10, validTime in 11; nano at 16 (NAV-PVT) or 12 (HNR-PVT). NAV-PVAT: hour,
            // minute, second at 10–12, validTime in 5, nano at 20.
            let pvat = f.classID == 0x01 && f.messageID == 0x17
            guard p.count >= (pvat ? 24 : 20) else { return nil }
            let at = pvat ? 10 : 8
            let h = p.u1(at), m = p.u1(at + 1), sec = p.u1(at + 2)
            if p.u1(pvat ? 5 : 11) & 0x02 != 0, h < 24, m < 60, sec <= 60 {
                let nano = p.i4(pvat ? 20 : f.classID == 0x01 ? 16 : 12)
                return (Int64(h) * 3600 + Int64(m) * 60 + Int64(sec)) * 1_000_000_000 + Int64(nano)
            }
            iTOWOffset = 0
        case (0x01, 0x06), (0x01, 0x02), (0x01, 0x01): iTOWOffset = 0
        case (0x01, 0x14), (0x01, 0x13): iTOWOffset = 4   // after the version and reserved bytes
        default: return nil
        }
        guard p.count >= iTOWOffset + 4 else { return nil }
        let day: Int64 = 86_400_000
        let ms = (Int64(p.u4(iTOWOffset)) - Int64(leapSeconds ?? 18) * 1000) % day
        return (ms + day) % day * 1_000_000
    }

    /// A navigation message of epoch `t`: the epoch in progress ends when `t` differs; one is begun if none is.
    mutating func beginNavigation(_ t: UInt32, _ emit: (Output) -> Void) {
        if epochOpen, epoch.iTOW != t { flush(emit) }
        if !epochOpen {
            epoch = Epoch(iTOW: t)
            epochOpen = true
            epochReceiveTime = messageReceiveTime
        }
    }

    /// UBX-NAV-EOE: the epoch `t` is complete.
    mutating func endOfEpoch(_ t: UInt32, _ emit: (Output) -> Void) {
        let known = sawEndOfEpoch
        sawEndOfEpoch = true
        if epochOpen, epoch.iTOW == t { flush(emit, reportingLate: known) }
    }

    /// NAV-SOL into the epoch begun; its week (when valid) carries over.
    mutating func setSolution(_ m: NavSOL) {
        epoch.sol = m
        sawNavigationSolution = true
        if m.weekValid { week = m.week }
    }

    /// NAV-TIMEGPS into the epoch begun; its leap seconds and week (when valid) carry over.
    mutating func setTimeGPS(_ m: NavTIMEGPS) {
        epoch.timegps = m
        if m.leapSecondsValid { leapSeconds = m.leapSeconds }
        if m.weekValid { week = m.week }
    }

    /// End of stream: the epoch in progress.
    public mutating func finish(_ emit: (Output) -> Void) { flush(emit) }

    /// The time of the epoch in progress when it holds a navigation solution (it is output when the epoch ends).
    /// (Mutating though it changes nothing: read as a property of the NMEA stage's stream, a getter copied the whole
    /// assembler, 1.6 KB, for every NMEA cycle of a mixed stream.)
    public mutating func openSolutionTime() -> Timestamp? {
        epochOpen && epoch.hasSolution ? Self.epochTime(epoch, week: week, leapSeconds: leapSeconds) : nil
    }

    private mutating func setIntegrity(_ i: ReceiverIntegrity, _ emit: (Output) -> Void) {
        guard i != integrity else { return }
        integrity = i
        emit(.integrity(i))
    }

    /// `reportingLate`: the epoch ends at a known cycle ender (NAV-EOE), so a late one is handed on as `lateFix`.
    private mutating func flush(_ emit: (Output) -> Void, reportingLate: Bool = false) {
        guard epochOpen else { return }
        epochOpen = false
        // One copy of the epoch (each use of the stored `epoch` as an argument below was a copy of its own).
        let e = epoch
        var time = Self.epochTime(e, week: week, leapSeconds: leapSeconds)
        if let t = time, dateResolver.reference != nil { time = correctingRollover(t, emit) }
        if e.hasSolution, let t = time, let last = lastFixTime, t <= last,
           last.nanosecondsSince1970 - t.nanosecondsSince1970 <= Self.lateEpochToleranceNanos {
            staleEpochs += 1
            if reportingLate {
                // The fix as it would have been, the carried state left as it is (the stream has moved on).
                var l = Self.location(e, own: Self.fixState(e), lastFixState: lastFixState,
                                      leapSeconds: leapSeconds, integrity: integrity)
                l.time = t
                l.timeFractionDigits = 3
                l.receiveTime = epochReceiveTime
                lateFixes += 1
                emit(.lateFix(l))
            }
        } else if e.hasSolution {
            if let t = time, let last = lastFixTime, t <= last { timeJumpsBack += 1 }
            if let time { lastFixTime = time }
            let own = Self.fixState(e)
            var l = Self.location(e, own: own, lastFixState: lastFixState, leapSeconds: leapSeconds,
                                  integrity: integrity)
            if let f = own {
                lastFixState = f
            } else if l.mode != .unknown {
                carriedFixTypes += 1
            }
            l.time = time
            l.timeFractionDigits = 3
            l.receiveTime = epochReceiveTime
            epochsEmitted += 1
            emit(.epoch(.fix(l)))
        }
        if let sky = Self.skyReport(e) {
            var s = sky
            s.time = time
            emit(.epoch(.sky(s)))
        }
    }

    /// `t` moved on by the 1,024-week periods its date is early against the reference date; a change in that
    /// correction is announced (as the NMEA epoch assembler words it).
    private mutating func correctingRollover(_ t: Timestamp, _ emit: (Output) -> Void) -> Timestamp {
        let day = t.dayAndNanoOfDay.day
        if day == rolloverCheckedDay { return shifted(t, by: rolloverPeriods) }   // the same day's answer (speed)
        rolloverCheckedDay = day
        let given = t.civilDate
        let corrected = dateResolver.correctRollover(given)
        let periods = (corrected.daysSince1970 - given.daysSince1970) / DateResolver.rolloverDays
        if periods != rolloverPeriods {
            let weeks = periods * 1024
            emit(.epoch(.notice(periods > 0
                ? "receiver time jumped back by \(weeks) weeks: date \(EpochAssembler.iso(given)) is a GPS week rollover, corrected to \(EpochAssembler.iso(corrected))"
                : "receiver date no longer needs the GPS week rollover correction (\(rolloverPeriods * 1024) weeks)")))
            rolloverPeriods = periods
        }
        return shifted(t, by: periods)
    }

    private func shifted(_ t: Timestamp, by periods: Int) -> Timestamp {
        periods == 0 ? t : t.adding(nanoseconds: Int64(periods) * Int64(DateResolver.rolloverDays) * 86_400_000_000_000)
    }

    /// UTC of the epoch, rounded to the millisecond (iTOW's resolution; gpsd prints the same): NAV-PVT's (or
    /// HNR-PVT's) UTC when valid, else NAV-TIMEUTC, else GPS week + iTOW − leap seconds (`week` and `leapSeconds`
    /// the receiver's, carried from earlier epochs).
    static func epochTime(_ e: Epoch, week: Int?, leapSeconds: Int?) -> Timestamp? {
        if let p = e.pvt, p.validDate && p.validTime,
           let t = Self.utc(p.year, p.month, p.day, p.hour, p.minute, p.second, p.nanosecond) { return t }
        if let h = e.hnr, h.validDate && h.validTime,
           let t = Self.utc(h.year, h.month, h.day, h.hour, h.minute, h.second, h.nanosecond) { return t }
        if let u = e.timeutc, u.utcValid,
           let t = Self.utc(u.year, u.month, u.day, u.hour, u.minute, u.second, u.nanosecond) { return t }
        let w: Int?
        if let g = e.timegps, g.weekValid { w = g.week } else if let s = e.sol, s.weekValid { w = s.week } else { w = week }
        guard let w, let leap = leapSeconds ?? e.timegps?.leapSeconds else { return nil }
        return Self.gpsTime(week: w, iTOWMilliseconds: e.iTOW, leapSeconds: leap)
    }

    /// Unix time of GPS week `week`, time of week `iTOW` ms, minus `leapSeconds`.
    public static func gpsTime(week: Int, iTOWMilliseconds: UInt32, leapSeconds: Int) -> Timestamp? {
        guard week >= 0, week < 10_000 else { return nil }
        let ms = Int64(week) * 604_800_000 + Int64(iTOWMilliseconds) + (315_964_800 - Int64(leapSeconds)) * 1000
        return Timestamp(nanosecondsSince1970: ms * 1_000_000)
    }

    static func utc(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int, _ nano: Int) -> Timestamp? {
        guard s <= 60, abs(nano) <= 1_000_000_000,   // nano −1e9…1e9, as the protocol allows
              let base = Timestamp(year: y, month: mo, day: d, hour: h, minute: mi, second: min(s, 59)) else { return nil }
        var ns = base.nanosecondsSince1970 + Int64(nano) + (s == 60 ? 1_000_000_000 : 0)
        ns = (ns + 500_000).dividedRoundingDown(by: 1_000_000) * 1_000_000
        return Timestamp(nanosecondsSince1970: ns)
    }
}

extension Int64 {
    func dividedRoundingDown(by d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
}
