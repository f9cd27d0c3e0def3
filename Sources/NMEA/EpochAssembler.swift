import LocationCore

/// What epoch assembly produces.
public enum EpochOutput: Sendable {
    indirect case fix(Location)
    case sky(SkyReport)
    /// Something the receiver's data showed that a person should know (a GPS week rollover corrected), once.
    case notice(String)

    /// A fix's time in nanoseconds since 1970 (nil for a sky report, a notice or a fix without a time): read without
    /// binding the fix (`if case .fix(let l)` copied the whole fix, 496 bytes then, at each step of a UBX replay).
    @inlinable public var fixNanosecondsSince1970: Int64? {
        switch self {
        case .fix(let l): l.time?.nanosecondsSince1970
        default: nil
        }
    }
}

/// Merges the sentences of one receiver cycle into one `Location` (and a sky view).
///
/// A cycle is the set of sentences sharing one UTC time of day; time-less sentences (GSA, GSV, VTG, HDT …) join
/// the cycle in progress. A cycle is emitted when a sentence with a different time arrives, or — once learned —
/// as soon as the sentence that ended the last two cycles arrives (gpsd's end-of-cycle detection), so live
/// output does not wait a whole period for the next cycle to begin.
public struct EpochAssembler: Sendable {
    public struct Settings: Sendable, Hashable {
        /// 68 % horizontal/vertical user-equivalent range errors (metres) used with DOPs when the receiver sends
        /// no GST: gpsd's 95 % UERE table halved (gpsd: H 19 m autonomous, 4.75 m differential; V 23 / 5.0 m).
        public var horizontalUEREMeters: Double = 9.5
        public var verticalUEREMeters: Double = 11.5
        public var horizontalUEREDifferentialMeters: Double = 2.375
        public var verticalUEREDifferentialMeters: Double = 2.5
        /// Learn the cycle-ending sentence and emit on it.
        public var emitOnCycleEnd: Bool = true
        /// A positioned cycle without DOPs or GST (RMC or GLL alone: a receiver sending GGA/GSA at a lower rate
        /// than RMC, or a log cut after RMC) takes its horizontal accuracy from the last HDOP the receiver sent, when it is
        /// at most this old (seconds). DOPs follow the satellite geometry, which changes over minutes; the cycle's
        /// own `hdop` stays empty (the receiver did not send it), and without an altitude there is no vertical
        /// accuracy to give. 0 turns this off.
        public var dopCarrySeconds: Double = 5
        public init() {}
        public static let `default` = Settings()
    }

    public var settings: Settings
    public var dateResolver: DateResolver

    /// Everything one receiver cycle has said so far.
    struct Cycle: Sendable {
        var location = Location()
        var hasPosition = false
        var positionValid = false
        var positionInvalid = false
        var gsaMode: Int?
        var qualityFromGGA = false
        /// A GGA or GNS in this cycle said whether there is an altitude.
        var hasAltitudeSource = false
        var hasContent = false
    }

    // The current cycle, and the cycle as it was when emitted early (learned end of cycle), so a late position of
    // the same time completes it instead of starting a partial duplicate. Two slots: keeping the emitted cycle and
    // going back to it change which slot is current, where a stored copy took four copies of the cycle's 516 bytes
    // per NMEA epoch. (Used as `cycles[slot]`, which addresses the element in place: a computed `cycle` property
    // choosing between two stored ones copied the cycle at every read.)
    private var cycles = InlineArray<2, Cycle>(repeating: Cycle())
    /// The current cycle's slot; while `emittedCurrent`, the other slot holds the cycle emitted early.
    private var slot = 0
    private var cycleTime: NMEATime?
    private var sky = SkyAssembler()
    private var lastSky: [SatelliteInfo] = []
    private var emittedCurrent = false
    /// The fix dimension the receiver last stated (GSA, or GGA/GNS altitude), carried into cycles whose
    /// sentences (RMC, GLL) cannot state it.
    private var lastDimension: FixMode?
    /// The last positioned cycle's HDOP and time (`Settings.dopCarrySeconds`).
    private var lastHDOP: (hdop: Double, time: Timestamp)?

    // Date tracking.
    private var date: CivilDate?
    /// 1024-week periods added to the receiver's last date (GPS week rollover), and a notice to emit about it.
    public private(set) var rolloverPeriods = 0
    private var pendingNotice: String?
    /// Time of day at which `date` was last set, to detect midnight rollover.
    private var dateTimeOfDay: Int64 = 0

    // End-of-cycle learning.
    private var lastKey: UInt64 = 0
    private var enderCandidate: UInt64 = 0
    private var enderConfirmations = 0
    private var ender: UInt64 = 0


    public init(settings: Settings = .default, referenceDate: CivilDate? = nil) {
        self.settings = settings
        self.dateResolver = DateResolver(reference: referenceDate)
    }

    /// The most recent resolved UTC date (for consumers that need one without a fix).
    public var currentDate: CivilDate? { date }

    /// Feeds one sentence; `emit` receives zero or more outputs. `receiveTime`: when the sentence started arriving
    /// (nil for a log without receive times); it becomes the fix's `receiveTime` when the sentence opens a new cycle.
    public mutating func add(_ parsed: ParsedSentence, receiveTime: Timestamp? = nil, _ emit: (EpochOutput) -> Void) {
        guard let talker = parsed.talker else { return } // proprietary: not part of a fix
        let time: NMEATime?
        var positional = false
        switch parsed.sentence {
        case .gga(let s): time = s.time; positional = true
        case .rmc(let s): time = s.time; positional = true
        case .gll(let s): time = s.time; positional = true
        case .gns(let s): time = s.time; positional = true
        case .gst(let s): time = s.time
        case .zda(let s): time = s.time
        case .gbs(let s): time = s.time
        case .gsa, .gsv, .vtg, .hdt, .hdg, .hdm, .ths, .rot, .dtm: time = nil
        case .txt, .proprietary, .unsupported: return
        }

        if let t = time {
            if let current = cycleTime, current.nanosecondOfDay != t.nanosecondOfDay {
                learnEnder()
                flush(emit)  // after an early end-of-cycle emission this holds only late sky data
                emittedCurrent = false
                cycleTime = t
                cycles[slot].location.receiveTime = receiveTime
            } else if cycleTime == nil {
                cycleTime = t
                cycles[slot].location.receiveTime = receiveTime
            } else if emittedCurrent && positional {
                // A position for an already-emitted time: the learned end of cycle was wrong. Relearn, and
                // continue the emitted cycle so the next emission is complete rather than a partial duplicate.
                ender = 0
                enderConfirmations = 0
                slot ^= 1   // back to the emitted cycle (`emittedCurrent` is set only by a flush that kept it)
                emittedCurrent = false
            }
            if t.fractionDigits > cycles[slot].location.timeFractionDigits { cycles[slot].location.timeFractionDigits = t.fractionDigits }
        }

        merge(parsed.sentence, talker: talker)
        cycles[slot].hasContent = true
        if positional { cycles[slot].hasPosition = true }

        var key = UInt64(parsed.type?.code ?? 0) << 16 | UInt64(talker.first) << 8 | UInt64(talker.second)
        if case .gsv(let g) = parsed.sentence {
            // Only the last message of a GSV set can end a cycle.
            if let n = g.messageNumber, let total = g.totalMessages, n < total { key |= 1 << 60 }
        }
        lastKey = key
        if settings.emitOnCycleEnd && ender != 0 && key == ender && cycleTime != nil && !emittedCurrent {
            flush(emit, keepingCycle: true)
            emittedCurrent = true
        }
    }

    /// The time of day (ns) of the cycle in progress when it holds a position not yet emitted, else nil.
    public var pendingPositionTimeOfDayNanos: Int64? {
        cycles[slot].hasPosition && !emittedCurrent ? cycleTime?.nanosecondOfDay : nil
    }

    /// End of stream: emits whatever the last cycle holds.
    public mutating func finish(_ emit: (EpochOutput) -> Void) {
        flush(emit)
        cycleTime = nil
        emittedCurrent = false
    }

    private mutating func learnEnder() {
        guard ender == 0, lastKey >> 60 == 0 else { return }
        if lastKey == enderCandidate {
            enderConfirmations += 1
            if enderConfirmations >= 2 { ender = lastKey }
        } else {
            enderCandidate = lastKey
            enderConfirmations = 1
        }
    }

    private mutating func merge(_ sentence: NMEASentence, talker: Talker) {
        switch sentence {
        case .gga(let s):
            // Quality 0 is no fix. Some receivers (Hemisphere) keep quality 1 with zero satellites while they have
            // lost the fix: gpsd treats that as no fix too. Dead reckoning (6) legitimately uses no satellites.
            if s.qualityIndicator == 0 || (s.satellitesUsed == 0 && s.qualityIndicator != 6) {
                cycles[slot].positionInvalid = true; return
            }
            cycles[slot].hasAltitudeSource = true
            setPosition(s.latitudeDegrees, s.longitudeDegrees)
            if s.latitudeDegrees == nil { return }
            if let q = s.quality { cycles[slot].location.quality = q; cycles[slot].qualityFromGGA = true }
            if let a = s.altitudeMSLMeters { cycles[slot].location.altitudeMSLMeters = a }
            if let g = s.geoidSeparationMeters { cycles[slot].location.geoidSeparationMeters = g }
            if let a = s.altitudeMSLMeters, let g = s.geoidSeparationMeters { cycles[slot].location.altitudeEllipsoidMeters = a + g }
            if let n = s.satellitesUsed { cycles[slot].location.satellitesUsed = n }
            if let h = s.hdop { cycles[slot].location.hdop = h }
            if let a = s.dgpsAgeSeconds { cycles[slot].location.dgpsAgeSeconds = a }
            if let st = s.dgpsStation { cycles[slot].location.dgpsStation = st }
        case .rmc(let s):
            if let d = s.date, let t = s.time { setDate(resolve(d), timeOfDay: t.nanosecondOfDay) }
            if s.valid == false || s.mode == .notValid { cycles[slot].positionInvalid = true; return }
            setPosition(s.latitudeDegrees, s.longitudeDegrees)
            if let k = s.speedKnots { cycles[slot].location.speedMetersPerSecond = k * 0.514_444_444_444_444_5 }
            if let c = s.courseTrueDegrees { cycles[slot].location.courseDegrees = Angle.normalizedDegrees(c) }
            if let v = s.magneticVariationDegrees { cycles[slot].location.magneticVariationDegrees = v }
            if !cycles[slot].qualityFromGGA, let q = s.mode?.quality { cycles[slot].location.quality = q }
        case .gll(let s):
            if s.valid == false || s.mode == .notValid { cycles[slot].positionInvalid = true; return }
            setPosition(s.latitudeDegrees, s.longitudeDegrees)
            if !cycles[slot].qualityFromGGA, let q = s.mode?.quality { cycles[slot].location.quality = q }
        case .gns(let s):
            if s.modes.count > 0 && s.bestMode == .notValid { cycles[slot].positionInvalid = true; return }
            cycles[slot].hasAltitudeSource = true
            setPosition(s.latitudeDegrees, s.longitudeDegrees)
            if s.latitudeDegrees == nil { return }
            if let a = s.altitudeMSLMeters { cycles[slot].location.altitudeMSLMeters = a }
            if let g = s.geoidSeparationMeters { cycles[slot].location.geoidSeparationMeters = g }
            if let a = s.altitudeMSLMeters, let g = s.geoidSeparationMeters { cycles[slot].location.altitudeEllipsoidMeters = a + g }
            if cycles[slot].location.satellitesUsed == nil, let n = s.satellitesUsed { cycles[slot].location.satellitesUsed = n }
            if cycles[slot].location.hdop == nil, let h = s.hdop { cycles[slot].location.hdop = h }
            if !cycles[slot].qualityFromGGA, let q = s.bestMode?.quality { cycles[slot].location.quality = q }
        case .vtg(let s):
            if s.mode == .notValid { return }
            if let c = s.courseTrueDegrees { cycles[slot].location.courseDegrees = Angle.normalizedDegrees(c) }
            if let k = s.speedKnots { cycles[slot].location.speedMetersPerSecond = k * 0.514_444_444_444_444_5 }
            else if let kmh = s.speedKilometersPerHour { cycles[slot].location.speedMetersPerSecond = kmh / 3.6 }
        case .gsa(let s):
            if let m = s.fixType, (1...3).contains(m) { cycles[slot].gsaMode = max(cycles[slot].gsaMode ?? 0, m) }
            if let p = s.pdop { cycles[slot].location.pdop = p }
            if let h = s.hdop { cycles[slot].location.hdop = h }
            if let v = s.vdop { cycles[slot].location.vdop = v }
            sky.add(s, talker: talker)
        case .gsv(let s):
            sky.add(s, talker: talker)
        case .gst(let s):
            if let v = s.latitudeErrorMeters { cycles[slot].location.latitudeErrorMeters = v }
            if let v = s.longitudeErrorMeters { cycles[slot].location.longitudeErrorMeters = v }
            if let v = s.altitudeErrorMeters { cycles[slot].location.altitudeErrorMeters = v }
        case .gbs(let s):
            if cycles[slot].location.latitudeErrorMeters == nil, let v = s.latitudeErrorMeters { cycles[slot].location.latitudeErrorMeters = v }
            if cycles[slot].location.longitudeErrorMeters == nil, let v = s.longitudeErrorMeters { cycles[slot].location.longitudeErrorMeters = v }
            if cycles[slot].location.altitudeErrorMeters == nil, let v = s.altitudeErrorMeters { cycles[slot].location.altitudeErrorMeters = v }
        case .zda(let s):
            if let d = s.day, let m = s.month, let y = s.year, let t = s.time {
                setDate(resolve(NMEADate(day: d, month: m, year: y, twoDigitYear: y < 100)), timeOfDay: t.nanosecondOfDay)
            }
        case .hdt(let s):
            if let h = s.headingTrueDegrees { cycles[slot].location.receiverHeadingDegrees = Angle.normalizedDegrees(h) }
        case .ths(let s):
            if s.mode != 0x56, let h = s.headingTrueDegrees { cycles[slot].location.receiverHeadingDegrees = Angle.normalizedDegrees(h) }
        case .hdg, .hdm, .rot, .dtm, .txt, .proprietary, .unsupported:
            break
        }
    }

    private mutating func setPosition(_ lat: Double?, _ lon: Double?) {
        guard let lat, let lon else { return }
        cycles[slot].location.latitudeDegrees = lat
        cycles[slot].location.longitudeDegrees = lon
        cycles[slot].positionValid = true
    }

    /// Resolves a receiver date; a change in the rollover correction (a receiver that starts or stops reporting
    /// dates 1024 weeks early) is announced once.
    private mutating func resolve(_ d: NMEADate) -> CivilDate? {
        guard let r = dateResolver.resolveCountingRollovers(d) else { return nil }
        if r.rollovers != rolloverPeriods {
            let weeks = r.rollovers * 1024
            let given = Self.iso(CivilDate(daysSince1970: r.date.daysSince1970 - r.rollovers * DateResolver.rolloverDays))
            pendingNotice = r.rollovers > 0 && date == nil
                ? "receiver dates are \(weeks) weeks early (GPS week rollover): \(given) corrected to \(Self.iso(r.date))"
                : r.rollovers > 0
                ? "receiver time jumped back by \(weeks) weeks: date \(given) is a GPS week rollover, corrected to \(Self.iso(r.date))"
                : "receiver date no longer needs the GPS week rollover correction (\(rolloverPeriods * 1024) weeks)"
            rolloverPeriods = r.rollovers
        }
        return r.date
    }

    public static func iso(_ d: CivilDate) -> String {
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(d.year)-\(two(d.month))-\(two(d.day))"
    }

    private mutating func setDate(_ d: CivilDate?, timeOfDay: Int64) {
        guard let d else { return }
        date = d
        dateTimeOfDay = timeOfDay
    }

    /// Emits the cycle and starts the next. `keepingCycle`: the emitted cycle is kept (in the other slot).
    private mutating func flush(_ emit: (EpochOutput) -> Void, keepingCycle: Bool = false) {
        defer {
            if keepingCycle { slot ^= 1 }
            reset()
        }
        if let n = pendingNotice { pendingNotice = nil; emit(.notice(n)) }
        guard cycles[slot].hasContent else { return }
        var location = cycles[slot].location
        if sky.changed {
            var report = sky.report()
            report.hdop = location.hdop
            report.vdop = location.vdop
            report.pdop = location.pdop
            report.satellitesUsed = location.satellitesUsed
            if report.satellitesUsed == nil {
                let n = report.satellites.reduce(0) { $0 + ($1.used ? 1 : 0) }
                if n > 0 { report.satellitesUsed = n }
            }
            if let t = cycleTime { report.time = timestamp(for: t) }
            if !report.satellites.isEmpty { location.satellitesVisible = report.satellites.count }
            if location.satellitesUsed == nil { location.satellitesUsed = report.satellitesUsed }
            // A sky event only when the view changed (satellites, their signal or use); DOP-only changes
            // travel with the fix. Receivers repeat GSA every cycle and GSV every few: this avoids re-sending
            // an identical satellite list each second.
            if report.satellites != lastSky {
                lastSky = report.satellites
                emit(.sky(report))
            }
        }
        guard cycles[slot].hasPosition || (cycles[slot].gsaMode != nil && !emittedCurrent) else { return }
        if let t = cycleTime {
            location.time = timestamp(for: t)
            location.isLeapSecond = t.nanosecondOfDay >= 86_400_000_000_000
        }
        if cycles[slot].positionValid {
            if let g = cycles[slot].gsaMode, g >= 2 { location.mode = g == 3 ? .threeD : .twoD }
            else if cycles[slot].hasAltitudeSource { location.mode = location.altitudeMSLMeters != nil ? .threeD : .twoD }
            else { location.mode = lastDimension ?? .twoD }
            if cycles[slot].gsaMode != nil || cycles[slot].hasAltitudeSource { lastDimension = location.mode }
            if location.quality == .unknown { location.quality = .gps }
            var carriedHDOP: Double?
            if let h = location.hdop {
                if let t = location.time { lastHDOP = (h, t) }
            } else if let last = lastHDOP, let t = location.time, t >= last.time,
                      Double(t.nanosecondsSince1970 - last.time.nanosecondsSince1970) <= settings.dopCarrySeconds * 1e9 {
                carriedHDOP = last.hdop
            }
            computeAccuracy(&location, carriedHDOP: carriedHDOP)
        } else {
            location = Self.noFix(from: location)
            location.mode = (cycles[slot].positionInvalid || cycles[slot].gsaMode == 1) ? .noFix : .unknown
        }
        emit(.fix(location))
    }

    private static func noFix(from l: Location) -> Location {
        var n = Location()
        n.time = l.time
        n.timeFractionDigits = l.timeFractionDigits
        n.satellitesUsed = l.satellitesUsed
        n.satellitesVisible = l.satellitesVisible
        n.hdop = l.hdop; n.vdop = l.vdop; n.pdop = l.pdop
        return n
    }

    private func computeAccuracy(_ location: inout Location, carriedHDOP: Double?) {
        let differential = location.quality == .dgps || location.quality == .rtkFixed || location.quality == .rtkFloat
        if let a = location.latitudeErrorMeters, let b = location.longitudeErrorMeters {
            location.horizontalAccuracyMeters = (a * a + b * b).squareRoot()
        } else if let h = location.hdop ?? carriedHDOP {
            location.horizontalAccuracyMeters = h * (differential ? settings.horizontalUEREDifferentialMeters
                                                                  : settings.horizontalUEREMeters)
        }
        if location.mode == .threeD {
            if let v = location.altitudeErrorMeters {
                location.verticalAccuracyMeters = v
            } else if let v = location.vdop {
                location.verticalAccuracyMeters = v * (differential ? settings.verticalUEREDifferentialMeters
                                                                    : settings.verticalUEREMeters)
            }
        }
    }

    private func timestamp(for t: NMEATime) -> Timestamp? {
        guard let d = date else { return nil }
        var days = d.daysSince1970
        // The date was set earlier in the day: if the clock has gone back by more than 12 h, midnight passed.
        if t.nanosecondOfDay + 43_200_000_000_000 < dateTimeOfDay { days += 1 }
        return Timestamp(nanosecondsSince1970: Int64(days) * 86_400_000_000_000 + t.nanosecondOfDay)
    }

    private mutating func reset() {
        cycles[slot] = Cycle()
        if let t = cycleTime { cycles[slot].location.timeFractionDigits = t.fractionDigits }
        sky.startEpoch()
    }
}
