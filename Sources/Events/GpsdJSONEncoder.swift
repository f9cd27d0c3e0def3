import LocationCore

/// gpsd-compatible JSON (gpsd_json(5)): TPV and SKY objects with gpsd's names, units and decimal places, so
/// gpsd clients (gpspipe consumers, gps.py, libgps' JSON parser) read them. `status` events become gpsd
/// `DEVICE`-less comments are not part of gpsd's protocol, so they are omitted here.
public struct GpsdJSONEncoder: OutputEncoder {
    /// gpsd's `device` (the receiver's path); every object carries it (`lodestar` when none is given).
    public var device: String
    /// The `device` of ATT objects (the magnetometer's spec), `device` when nil.
    public var headingDevice: String?

    /// The device name used when none is configured.
    public static let defaultDevice = "lodestar"

    public init(device: String? = nil, headingDevice: String? = nil) {
        self.device = device ?? Self.defaultDevice
        self.headingDevice = headingDevice
    }

    /// gpsd's 95 % user equivalent range errors (gpsd's gpsd_error_model), metres.
    static let pUERE = 19.0, pUEREDifferential = 4.75
    static let vUERE = 23.0, vUEREDifferential = 5.0

    /// Lines end in CR LF, as gpsd's do (Python's gps client only decodes `}\r\n`).
    static func end(_ out: inout ByteBuffer) {
        out.append(0x7D); out.append(0x0D); out.append(0x0A)
    }

    /// gpsd's `ep*` figures for a fix, all at gpsd's 95 % level (docs/gpsd-compatibility.md, "Accuracy"):
    /// a receiver's fix uses gpsd's own error model (DOP × 95 % UERE; GST σ × 1.96 for epx/epy), so Lodestar and
    /// gpsd agree on the same sentences; a smoothed fix scales the filter's 68 % radius and 1-σ axes to 95 %.
    public static func errorEstimates(_ l: Location) -> (eph: Double?, epx: Double?, epy: Double?, epv: Double?, sep: Double?) {
        let differential = l.quality == .dgps || l.quality == .rtkFixed || l.quality == .rtkFloat
        let p = differential ? pUEREDifferential : pUERE, v = differential ? vUEREDifferential : vUERE
        let k1 = ConfidenceScale.oneDimensional95PerSigma
        let epx = l.longitudeErrorMeters.map { $0 * k1 }, epy = l.latitudeErrorMeters.map { $0 * k1 }
        let eph: Double?, epv: Double?
        if l.accuracyFromReceiver && !l.isSmoothed {
            // gpsd's u-blox driver reports the receiver's hAcc/vAcc as eph/epv unchanged.
            eph = l.horizontalAccuracyMeters
            epv = l.verticalAccuracyMeters
        } else if l.isSmoothed {
            eph = l.horizontalAccuracyMeters.map { $0 * ConfidenceScale.horizontal95Per68 }
            // gpsd's model, unless the smoother raised the vertical accuracy beyond it (a receiver shown optimistic).
            let model = l.vdop.map { $0 * v }, own = l.verticalAccuracyMeters.map { $0 * k1 }
            epv = model.map { Swift.max($0, own ?? 0) } ?? own
        } else {
            eph = l.hdop.map { $0 * p } ?? l.horizontalAccuracyMeters.map { $0 * ConfidenceScale.horizontal95Per68 }
            epv = l.vdop.map { $0 * v } ?? l.altitudeErrorMeters.map { $0 * k1 } ?? l.verticalAccuracyMeters.map { $0 * k1 }
        }
        return (eph, epx, epy, l.mode == .threeD ? epv : nil, l.mode == .threeD ? l.pdop.map { $0 * p } : nil)
    }

    public mutating func encode(_ event: OutputEvent, into out: inout ByteBuffer) {
        var w = JSONWriter()
        switch event {
        case .fix(let l), .lateFix(let l):
            w.begin(&out, class: "TPV")
            w.string(&out, "device", device)
            if l.quality != .unknown && l.quality != .gps && (l.mode == .twoD || l.mode == .threeD) {
                w.integer(&out, "status", l.quality.rawValue)
            }
            w.integer(&out, "mode", max(l.mode.rawValue, 0))
            w.time(&out, "time", l.time, fractionDigits: 3, leapSecond: l.isLeapSecond)
            w.integer(&out, "leapseconds", l.leapSeconds)
            // gpsd's default ept (0.005 s) unless the receiver states its time accuracy (u-blox tAcc).
            if l.time != nil { w.number(&out, "ept", l.timeAccuracySeconds ?? 0.005, decimals: l.timeAccuracySeconds == nil ? 3 : 9) }
            let valid = l.mode == .twoD || l.mode == .threeD
            if valid {
                w.number(&out, "lat", l.latitudeDegrees, decimals: 9)
                w.number(&out, "lon", l.longitudeDegrees, decimals: 9)
                if l.mode == .threeD {
                    w.number(&out, "altHAE", l.altitudeEllipsoidMeters, decimals: 4)
                    w.number(&out, "altMSL", l.altitudeMSLMeters, decimals: 4)
                    w.number(&out, "alt", l.altitudeMSLMeters, decimals: 4)
                }
                let e = Self.errorEstimates(l)
                w.number(&out, "epx", e.epx, decimals: 3)
                w.number(&out, "epy", e.epy, decimals: 3)
                w.number(&out, "epv", e.epv, decimals: 3)
                w.number(&out, "track", l.courseDegrees, decimals: 4)
                w.number(&out, "magtrack", l.magneticCourseDegrees, decimals: 4)
                w.number(&out, "magvar", l.magneticVariationDegrees, decimals: 1)
                w.number(&out, "speed", l.speedMetersPerSecond, decimals: 3)
                // The receiver's own sAcc/headAcc as they are (gpsd's u-blox driver); otherwise 1-σ scaled to 95 %.
                let k95 = l.accuracyFromReceiver && !l.isSmoothed ? 1 : ConfidenceScale.oneDimensional95PerSigma
                w.number(&out, "eps", l.speedAccuracyMetersPerSecond.map { $0 * k95 }, decimals: 2)
                w.number(&out, "epd", l.courseAccuracyDegrees.map { $0 * k95 }, decimals: 4)
                w.number(&out, "geoidSep", l.geoidSeparationMeters, decimals: 3)
                w.number(&out, "eph", e.eph, decimals: 3)
                w.number(&out, "sep", e.sep, decimals: 3)
                w.number(&out, "dgpsAge", l.dgpsAgeSeconds, decimals: 1)
                w.integer(&out, "dgpsSta", l.dgpsStation)
            }
            Self.end(&out)
        case .sky(let s):
            // One entry per satellite (gpsd 3.22 lists every signal; cgps 3.22 overflows its table past ~64
            // entries): the primary signal's values, `used` if any signal is; uSat counts the entries used.
            let sats = s.satellitesOnePerSatellite
            w.begin(&out, class: "SKY")
            w.string(&out, "device", device)
            w.time(&out, "time", s.time, fractionDigits: 3)
            w.number(&out, "hdop", s.hdop, decimals: 2)
            w.number(&out, "pdop", s.pdop, decimals: 2)
            w.number(&out, "vdop", s.vdop, decimals: 2)
            w.integer(&out, "nSat", sats.count)
            w.integer(&out, "uSat", sats.reduce(0) { $0 + ($1.used ? 1 : 0) })
            if !sats.isEmpty {
                w.rawKey(&out, "satellites")
                out.append(0x5B)
                for (i, sat) in sats.enumerated() {
                    if i > 0 { out.append(0x2C) }
                    // Each key with its punctuation as one literal (PRN always comes first): the satellites are
                    // most of a SKY's bytes.
                    out.append("{\"PRN\":")
                    out.appendDecimal(Self.gpsdPRN(sat))
                    if let v = sat.elevationDegrees, v.isFinite { out.append(",\"el\":"); out.appendFixed(v, decimals: 1) }
                    if let v = sat.azimuthDegrees, v.isFinite { out.append(",\"az\":"); out.appendFixed(v, decimals: 1) }
                    if let v = sat.snrDBHz, v.isFinite { out.append(",\"ss\":"); out.appendFixed(v, decimals: 1) }
                    out.append(sat.used ? ",\"used\":true" : ",\"used\":false")
                    if sat.constellation != .unknown {
                        out.append(",\"gnssid\":"); out.appendDecimal(sat.constellation.rawValue)
                        out.append(",\"svid\":"); out.appendDecimal(sat.svid)
                        if let sig = Self.gpsdSignalID(sat), sig != 0 { out.append(",\"sigid\":"); out.appendDecimal(sig) }
                    }
                    out.append(0x7D)
                }
                out.append(0x5D)
            }
            Self.end(&out)
        case .heading(let h, let acceleration):
            // gpsd_json(5) ATT: headings in degrees; mag_* in µT (calibrated), acc_* in m/s² (gpsd leaves units to
            // the device); mag_st: N normal, O field disturbed (high warning), C calibration needed.
            w.begin(&out, class: "ATT")
            w.string(&out, "device", headingDevice ?? device)
            if h.headingAccuracyDegrees >= 0 {
                w.number(&out, "heading", h.trueHeadingDegrees, decimals: 2)
                w.number(&out, "mheading", h.magneticHeadingDegrees, decimals: 2)
            }
            switch h.interference.state {
            case .none: w.string(&out, "mag_st", "N")
            case .transient: w.string(&out, "mag_st", "O")
            case .persistent: w.string(&out, "mag_st", "C")
            }
            w.number(&out, "pitch", h.pitchDegrees, decimals: 2)
            w.number(&out, "roll", h.rollDegrees, decimals: 2)
            let m = h.calibratedFieldMicrotesla
            w.number(&out, "mag_len", m.norm, decimals: 3)
            w.number(&out, "mag_x", m.x, decimals: 3)
            w.number(&out, "mag_y", m.y, decimals: 3)
            w.number(&out, "mag_z", m.z, decimals: 3)
            if let a = acceleration {
                w.number(&out, "acc_len", a.norm, decimals: 3)
                w.number(&out, "acc_x", a.x, decimals: 3)
                w.number(&out, "acc_y", a.y, decimals: 3)
                w.number(&out, "acc_z", a.z, decimals: 3)
            }
            Self.end(&out)
        case .service(let s): encodeService(s, into: &out)
        case .status, .sentence, .calibrationNeeded, .calibrationRefined, .availability:
            break
        }
    }

    /// gpsd's `sigid` (u-blox numbering, which gpsd 3.22 uses for every receiver) for the NMEA 4.10+ signal id;
    /// nil when the receiver gave none or the signal has no u-blox number.
    static func gpsdSignalID(_ s: SatelliteInfo) -> Int? {
        guard let n = s.signalID else { return nil }
        switch (s.constellation, n) {
        case (_, 0): return 0
        case (.gps, 1), (.sbas, 1), (.qzss, 1), (.glonass, 1), (.beidou, 1), (.galileo, 7): return 0
        case (.gps, 6): return 3
        case (.gps, 5): return 4
        case (.gps, 7): return 6
        case (.gps, 8): return 7
        case (.glonass, 3): return 2
        case (.galileo, 1): return 3
        case (.galileo, 2): return 5
        case (.beidou, 11): return 2
        case (.qzss, 5): return 4
        case (.qzss, 6): return 5
        default: return nil
        }
    }

    /// gpsd's PRN numbering: GPS 1–32, SBAS 120–158, GLONASS 65–96, QZSS 193–202, Galileo 301–336,
    /// BeiDou 401–437, NavIC 801–.
    static func gpsdPRN(_ s: SatelliteInfo) -> Int {
        switch s.constellation {
        case .gps, .sbas, .unknown, .imes: s.svid
        case .glonass: s.svid + 64
        case .qzss: s.svid + 192
        case .galileo: s.svid + 300
        case .beidou: s.svid + 400
        case .navic: s.svid + 800
        }
    }
}
