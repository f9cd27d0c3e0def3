import LocationCore

/// What epoch assembly produces.
public enum EpochOutput: Sendable {
    case fix(Location)
    case sky(SkyReport)
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
        public init() {}
        public static let `default` = Settings()
    }

    public var settings: Settings
    public var dateResolver: DateResolver

    // Current cycle.
    private var location = Location()
    private var cycleTime: NMEATime?
    private var hasPosition = false
    private var positionValid = false
    private var positionInvalid = false
    private var gsaMode: Int?
    private var qualityFromGGA = false
    private var hasContent = false
    private var sky = SkyAssembler()
    private var emittedCurrent = false

    // Date tracking.
    private var date: CivilDate?
    /// Time of day at which `date` was last set, to detect midnight rollover.
    private var dateTimeOfDay: Int64 = 0

    // End-of-cycle learning.
    private var lastKey: UInt64 = 0
    private var enderCandidate: UInt64 = 0
    private var enderConfirmations = 0
    private var ender: UInt64 = 0

    // Previous emitted fix for derived speed/course accuracy.
    private var previousTime: Timestamp?

    public init(settings: Settings = .default, referenceDate: CivilDate? = nil) {
        self.settings = settings
        self.dateResolver = DateResolver(reference: referenceDate)
    }

    /// The most recent resolved UTC date (for consumers that need one without a fix).
    public var currentDate: CivilDate? { date }

    /// Feeds one sentence; `emit` receives zero or more outputs.
    public mutating func add(_ parsed: ParsedSentence, _ emit: (EpochOutput) -> Void) {
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
            } else if cycleTime == nil {
                cycleTime = t
            } else if emittedCurrent && positional {
                // A position for an already-emitted time: the learned end of cycle was wrong; relearn.
                ender = 0
                enderConfirmations = 0
            }
            if t.fractionDigits > location.timeFractionDigits { location.timeFractionDigits = t.fractionDigits }
        }

        merge(parsed.sentence, talker: talker)
        hasContent = true
        if positional { hasPosition = true }

        var key = UInt64(parsed.type?.code ?? 0) << 16 | UInt64(talker.first) << 8 | UInt64(talker.second)
        if case .gsv(let g) = parsed.sentence {
            // Only the last message of a GSV set can end a cycle.
            if let n = g.messageNumber, let total = g.totalMessages, n < total { key |= 1 << 60 }
        }
        lastKey = key
        if settings.emitOnCycleEnd && ender != 0 && key == ender && cycleTime != nil && !emittedCurrent {
            flush(emit)
            emittedCurrent = true
        }
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
            if s.qualityIndicator == 0 { positionInvalid = true; return }
            setPosition(s.latitudeDegrees, s.longitudeDegrees)
            if s.latitudeDegrees == nil { return }
            if let q = s.quality { location.quality = q; qualityFromGGA = true }
            if let a = s.altitudeMSLMeters { location.altitudeMSLMeters = a }
            if let g = s.geoidSeparationMeters { location.geoidSeparationMeters = g }
            if let a = s.altitudeMSLMeters, let g = s.geoidSeparationMeters { location.altitudeEllipsoidMeters = a + g }
            if let n = s.satellitesUsed { location.satellitesUsed = n }
            if let h = s.hdop { location.hdop = h }
            if let a = s.dgpsAgeSeconds { location.dgpsAgeSeconds = a }
            if let st = s.dgpsStation { location.dgpsStation = st }
        case .rmc(let s):
            if let d = s.date, let t = s.time { setDate(dateResolver.resolve(d), timeOfDay: t.nanosecondOfDay) }
            if s.valid == false || s.mode == .notValid { positionInvalid = true; return }
            setPosition(s.latitudeDegrees, s.longitudeDegrees)
            if let k = s.speedKnots { location.speedMetersPerSecond = k * 0.514_444_444_444_444_5 }
            if let c = s.courseTrueDegrees { location.courseDegrees = Angle.normalizedDegrees(c) }
            if let v = s.magneticVariationDegrees { location.magneticVariationDegrees = v }
            if !qualityFromGGA, let q = s.mode?.quality { location.quality = q }
        case .gll(let s):
            if s.valid == false || s.mode == .notValid { positionInvalid = true; return }
            setPosition(s.latitudeDegrees, s.longitudeDegrees)
            if !qualityFromGGA, let q = s.mode?.quality { location.quality = q }
        case .gns(let s):
            if s.modes.count > 0 && s.bestMode == .notValid { positionInvalid = true; return }
            setPosition(s.latitudeDegrees, s.longitudeDegrees)
            if s.latitudeDegrees == nil { return }
            if let a = s.altitudeMSLMeters { location.altitudeMSLMeters = a }
            if let g = s.geoidSeparationMeters { location.geoidSeparationMeters = g }
            if let a = s.altitudeMSLMeters, let g = s.geoidSeparationMeters { location.altitudeEllipsoidMeters = a + g }
            if location.satellitesUsed == nil, let n = s.satellitesUsed { location.satellitesUsed = n }
            if location.hdop == nil, let h = s.hdop { location.hdop = h }
            if !qualityFromGGA, let q = s.bestMode?.quality { location.quality = q }
        case .vtg(let s):
            if s.mode == .notValid { return }
            if let c = s.courseTrueDegrees { location.courseDegrees = Angle.normalizedDegrees(c) }
            if let k = s.speedKnots { location.speedMetersPerSecond = k * 0.514_444_444_444_444_5 }
            else if let kmh = s.speedKilometersPerHour { location.speedMetersPerSecond = kmh / 3.6 }
        case .gsa(let s):
            if let m = s.fixType, (1...3).contains(m) { gsaMode = max(gsaMode ?? 0, m) }
            if let p = s.pdop { location.pdop = p }
            if let h = s.hdop { location.hdop = h }
            if let v = s.vdop { location.vdop = v }
            sky.add(s, talker: talker)
        case .gsv(let s):
            sky.add(s, talker: talker)
        case .gst(let s):
            if let v = s.latitudeErrorMeters { location.latitudeErrorMeters = v }
            if let v = s.longitudeErrorMeters { location.longitudeErrorMeters = v }
            if let v = s.altitudeErrorMeters { location.altitudeErrorMeters = v }
        case .gbs(let s):
            if location.latitudeErrorMeters == nil, let v = s.latitudeErrorMeters { location.latitudeErrorMeters = v }
            if location.longitudeErrorMeters == nil, let v = s.longitudeErrorMeters { location.longitudeErrorMeters = v }
            if location.altitudeErrorMeters == nil, let v = s.altitudeErrorMeters { location.altitudeErrorMeters = v }
        case .zda(let s):
            if let d = s.day, let m = s.month, let y = s.year, let t = s.time {
                setDate(dateResolver.resolve(NMEADate(day: d, month: m, year: y, twoDigitYear: y < 100)),
                        timeOfDay: t.nanosecondOfDay)
            }
        case .hdt(let s):
            if let h = s.headingTrueDegrees { location.receiverHeadingDegrees = Angle.normalizedDegrees(h) }
        case .ths(let s):
            if s.mode != 0x56, let h = s.headingTrueDegrees { location.receiverHeadingDegrees = Angle.normalizedDegrees(h) }
        case .hdg, .hdm, .rot, .dtm, .txt, .proprietary, .unsupported:
            break
        }
    }

    private mutating func setPosition(_ lat: Double?, _ lon: Double?) {
        guard let lat, let lon else { return }
        location.latitudeDegrees = lat
        location.longitudeDegrees = lon
        positionValid = true
    }

    private mutating func setDate(_ d: CivilDate?, timeOfDay: Int64) {
        guard let d else { return }
        date = d
        dateTimeOfDay = timeOfDay
    }

    private mutating func flush(_ emit: (EpochOutput) -> Void) {
        defer { reset() }
        guard hasContent else { return }
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
            emit(.sky(report))
        }
        guard hasPosition || (gsaMode != nil && !emittedCurrent) else { return }
        if let t = cycleTime { location.time = timestamp(for: t) }
        if positionValid {
            if let g = gsaMode, g >= 2 { location.mode = g == 3 ? .threeD : .twoD }
            else { location.mode = location.altitudeMSLMeters != nil ? .threeD : .twoD }
            if location.quality == .unknown { location.quality = .gps }
            computeAccuracy()
        } else {
            location = Self.noFix(from: location)
            location.mode = (positionInvalid || gsaMode == 1) ? .noFix : .unknown
        }
        emit(.fix(location))
        if location.time != nil { previousTime = location.time }
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

    private mutating func computeAccuracy() {
        let differential = location.quality == .dgps || location.quality == .rtkFixed || location.quality == .rtkFloat
        if let a = location.latitudeErrorMeters, let b = location.longitudeErrorMeters {
            location.horizontalAccuracyMeters = (a * a + b * b).squareRoot()
        } else if let h = location.hdop {
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
        location = Location()
        if let t = cycleTime { location.timeFractionDigits = t.fractionDigits }
        hasPosition = false
        positionValid = false
        positionInvalid = false
        gsaMode = nil
        qualityFromGGA = false
        hasContent = false
        sky.startEpoch()
    }
}
