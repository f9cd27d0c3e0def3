import LocationCore

/// gpsd-compatible JSON (gpsd_json(5)): TPV and SKY objects with gpsd's names, units and decimal places, so
/// gpsd clients (gpspipe consumers, gps.py, libgps' JSON parser) read them. `status` events become gpsd
/// `DEVICE`-less comments are not part of gpsd's protocol, so they are omitted here.
public struct GpsdJSONEncoder: OutputEncoder {
    public var device: String?

    public init(device: String? = nil) { self.device = device }

    /// gpsd's 95 % user equivalent range errors (gpsd's gpsd_error_model), metres.
    static let pUERE = 19.0, pUEREDifferential = 4.75
    static let vUERE = 23.0, vUEREDifferential = 5.0

    public mutating func encode(_ event: OutputEvent, into out: inout ByteBuffer) {
        var w = JSONWriter()
        switch event {
        case .fix(let l):
            w.begin(&out, class: "TPV")
            if let device { w.string(&out, "device", device) }
            if l.quality != .unknown && l.quality != .gps && (l.mode == .twoD || l.mode == .threeD) {
                w.integer(&out, "status", l.quality.rawValue)
            }
            w.integer(&out, "mode", max(l.mode.rawValue, 0))
            w.time(&out, "time", l.time, fractionDigits: 3, leapSecond: l.isLeapSecond)
            if l.time != nil { w.number(&out, "ept", 0.005, decimals: 3) }
            let valid = l.mode == .twoD || l.mode == .threeD
            if valid {
                w.number(&out, "lat", l.latitudeDegrees, decimals: 9)
                w.number(&out, "lon", l.longitudeDegrees, decimals: 9)
                if l.mode == .threeD {
                    w.number(&out, "altHAE", l.altitudeEllipsoidMeters, decimals: 4)
                    w.number(&out, "altMSL", l.altitudeMSLMeters, decimals: 4)
                    w.number(&out, "alt", l.altitudeMSLMeters, decimals: 4)
                }
                let differential = l.quality == .dgps || l.quality == .rtkFixed || l.quality == .rtkFloat
                w.number(&out, "epx", l.longitudeErrorMeters, decimals: 3)
                w.number(&out, "epy", l.latitudeErrorMeters, decimals: 3)
                if l.mode == .threeD {
                    let epv = l.altitudeErrorMeters ?? l.vdop.map { $0 * (differential ? Self.vUEREDifferential : Self.vUERE) }
                    w.number(&out, "epv", epv, decimals: 3)
                }
                w.number(&out, "track", l.courseDegrees, decimals: 4)
                w.number(&out, "magtrack", l.magneticCourseDegrees, decimals: 4)
                w.number(&out, "magvar", l.magneticVariationDegrees, decimals: 1)
                w.number(&out, "speed", l.speedMetersPerSecond, decimals: 3)
                w.number(&out, "eps", l.speedAccuracyMetersPerSecond.map { $0 * 2 }, decimals: 2)
                w.number(&out, "epd", l.courseAccuracyDegrees.map { $0 * 2 }, decimals: 4)
                w.number(&out, "geoidSep", l.geoidSeparationMeters, decimals: 3)
                var eph: Double?
                if let a = l.latitudeErrorMeters, let b = l.longitudeErrorMeters { eph = (a * a + b * b).squareRoot() }
                else if let h = l.hdop { eph = h * (differential ? Self.pUEREDifferential : Self.pUERE) }
                w.number(&out, "eph", eph, decimals: 3)
                if l.mode == .threeD, let p = l.pdop {
                    w.number(&out, "sep", p * (differential ? Self.pUEREDifferential : Self.pUERE), decimals: 3)
                }
                w.number(&out, "dgpsAge", l.dgpsAgeSeconds, decimals: 1)
                w.integer(&out, "dgpsSta", l.dgpsStation)
            }
            w.end(&out)
        case .sky(let s):
            w.begin(&out, class: "SKY")
            if let device { w.string(&out, "device", device) }
            w.time(&out, "time", s.time, fractionDigits: 3)
            w.number(&out, "hdop", s.hdop, decimals: 2)
            w.number(&out, "pdop", s.pdop, decimals: 2)
            w.number(&out, "vdop", s.vdop, decimals: 2)
            w.integer(&out, "nSat", s.satellites.count)
            w.integer(&out, "uSat", s.satellitesUsed ?? s.satellites.reduce(0) { $0 + ($1.used ? 1 : 0) })
            if !s.satellites.isEmpty {
                w.rawKey(&out, "satellites")
                out.append(0x5B)
                for (i, sat) in s.satellites.enumerated() {
                    if i > 0 { out.append(0x2C) }
                    out.append(0x7B)
                    var e = JSONWriter()
                    e.first = true
                    e.integer(&out, "PRN", Self.gpsdPRN(sat))
                    e.integer(&out, "gnssid", sat.constellation == .unknown ? nil : sat.constellation.rawValue)
                    e.integer(&out, "svid", sat.svid)
                    e.number(&out, "az", sat.azimuthDegrees, decimals: 1)
                    e.number(&out, "el", sat.elevationDegrees, decimals: 1)
                    e.number(&out, "ss", sat.snrDBHz, decimals: 1)
                    e.bool(&out, "used", sat.used)
                    out.append(0x7D)
                }
                out.append(0x5D)
            }
            w.end(&out)
        case .heading(let h, let acceleration):
            // gpsd_json(5) ATT: headings in degrees; mag_* in µT (calibrated), acc_* in m/s² (gpsd leaves units to
            // the device); mag_st: N normal, O field disturbed (high warning), C calibration needed.
            w.begin(&out, class: "ATT")
            if let device { w.string(&out, "device", device) }
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
            w.end(&out)
        case .service(let s): encodeService(s, into: &out)
        case .status, .sentence, .calibrationNeeded, .calibrationRefined, .availability:
            break
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
