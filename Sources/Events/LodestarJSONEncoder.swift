import LocationCore
import Magnetics

/// Lodestar's JSON lines (docs/output.md): one object per event, `class` first, units in every key name,
/// absent values omitted (never 0).
public struct LodestarJSONEncoder: OutputEncoder {
    public init() {}

    public mutating func encode(_ event: OutputEvent, into out: inout ByteBuffer) {
        var w = JSONWriter()
        switch event {
        case .fix(let l):
            w.begin(&out, class: "fix")
            w.time(&out, "time", l.time, fractionDigits: max(3, l.timeFractionDigits), leapSecond: l.isLeapSecond)
            w.string(&out, "mode", l.mode.name)
            if l.mode == .twoD || l.mode == .threeD { w.string(&out, "quality", l.quality.name) }
            w.number(&out, "latitudeDegrees", l.latitudeDegrees, decimals: 9)
            w.number(&out, "longitudeDegrees", l.longitudeDegrees, decimals: 9)
            w.number(&out, "altitudeMSLMeters", l.altitudeMSLMeters, decimals: 3)
            w.number(&out, "altitudeEllipsoidMeters", l.altitudeEllipsoidMeters, decimals: 3)
            w.number(&out, "geoidSeparationMeters", l.geoidSeparationMeters, decimals: 3)
            w.number(&out, "horizontalAccuracyMeters", l.horizontalAccuracyMeters, decimals: 3)
            w.number(&out, "verticalAccuracyMeters", l.verticalAccuracyMeters, decimals: 3)
            w.number(&out, "speedMetersPerSecond", l.speedMetersPerSecond, decimals: 3)
            w.number(&out, "speedAccuracyMetersPerSecond", l.speedAccuracyMetersPerSecond, decimals: 3)
            w.number(&out, "courseDegrees", l.courseDegrees, decimals: 3)
            w.number(&out, "courseAccuracyDegrees", l.courseAccuracyDegrees, decimals: 3)
            w.number(&out, "magneticCourseDegrees", l.magneticCourseDegrees, decimals: 3)
            w.number(&out, "magneticVariationDegrees", l.magneticVariationDegrees, decimals: 3)
            w.number(&out, "receiverHeadingDegrees", l.receiverHeadingDegrees, decimals: 3)
            w.number(&out, "receiverHeadingAccuracyDegrees", l.receiverHeadingAccuracyDegrees, decimals: 3)
            w.number(&out, "timeAccuracySeconds", l.timeAccuracySeconds, decimals: 9)
            w.integer(&out, "leapSeconds", l.leapSeconds)
            w.integer(&out, "satellitesUsed", l.satellitesUsed)
            w.integer(&out, "satellitesVisible", l.satellitesVisible)
            w.number(&out, "hdop", l.hdop, decimals: 2)
            w.number(&out, "vdop", l.vdop, decimals: 2)
            w.number(&out, "pdop", l.pdop, decimals: 2)
            w.number(&out, "dgpsAgeSeconds", l.dgpsAgeSeconds, decimals: 1)
            w.integer(&out, "dgpsStation", l.dgpsStation)
            w.bool(&out, "isStationary", l.isStationary)
            if l.isSmoothed { w.bool(&out, "smoothed", true) }
            if let g = l.integrity {
                w.rawKey(&out, "integrity")
                var o = JSONWriter()
                out.append(0x7B)
                o.string(&out, "jamming", g.jamming.rawValue)
                o.integer(&out, "jammingIndicator", g.jammingIndicator)
                o.string(&out, "spoofing", g.spoofing.rawValue)
                o.string(&out, "antenna", g.antenna.rawValue)
                out.append(0x7D)
            }
            if let p = l.placemark {
                w.rawKey(&out, "placemark")
                var o = JSONWriter()
                out.append(0x7B)
                o.string(&out, "name", p.name)
                o.string(&out, "locality", p.locality)
                o.string(&out, "subLocality", p.subLocality)
                o.string(&out, "administrativeArea", p.administrativeArea)
                o.string(&out, "subAdministrativeArea", p.subAdministrativeArea)
                o.string(&out, "isoCountryCode", p.isoCountryCode)
                o.string(&out, "country", p.country)
                o.string(&out, "ocean", p.ocean)
                o.string(&out, "timeZone", p.timeZone)
                out.append(0x7D)
            }
            w.end(&out)
        case .sky(let s):
            w.begin(&out, class: "sky")
            w.time(&out, "time", s.time, fractionDigits: 3)
            w.integer(&out, "satellitesUsed", s.satellitesUsed)
            w.integer(&out, "satellitesVisible", s.satellites.count)
            w.number(&out, "hdop", s.hdop, decimals: 2)
            w.number(&out, "vdop", s.vdop, decimals: 2)
            w.number(&out, "pdop", s.pdop, decimals: 2)
            w.rawKey(&out, "satellites")
            out.append(0x5B)
            for (i, sat) in s.satellites.enumerated() {
                if i > 0 { out.append(0x2C) }
                var e = JSONWriter()
                out.append(0x7B)
                e.first = true
                e.string(&out, "constellation", sat.constellation.name)
                e.integer(&out, "svid", sat.svid)
                e.integer(&out, "nmeaID", sat.nmeaID)
                e.number(&out, "elevationDegrees", sat.elevationDegrees, decimals: 1)
                e.number(&out, "azimuthDegrees", sat.azimuthDegrees, decimals: 1)
                e.number(&out, "snrDBHz", sat.snrDBHz, decimals: 1)
                e.integer(&out, "signalID", sat.signalID)
                e.bool(&out, "used", sat.used)
                out.append(0x7D)
            }
            out.append(0x5D)
            w.end(&out)
        case .status(let st):
            w.begin(&out, class: "status")
            w.time(&out, "time", st.time, fractionDigits: 3)
            w.string(&out, "source", st.source)
            w.string(&out, "state", st.state.rawValue)
            w.string(&out, "message", st.message)
            w.end(&out)
        case .heading(let h, let acceleration):
            w.begin(&out, class: "heading")
            w.number(&out, "sampleTimeSeconds", h.sampleTimeSeconds, decimals: 6)
            w.integer(&out, "monotonicNanos", Int(h.monotonicNanos))
            w.number(&out, "magneticHeadingDegrees", h.magneticHeadingDegrees, decimals: 2)
            w.number(&out, "trueHeadingDegrees", h.trueHeadingOrMinusOne, decimals: 2)
            w.number(&out, "headingAccuracyDegrees", h.headingAccuracyDegrees, decimals: 2)
            w.number(&out, "declinationDegrees", h.declinationDegrees, decimals: 3)
            w.number(&out, "rollDegrees", h.rollDegrees, decimals: 2)
            w.number(&out, "pitchDegrees", h.pitchDegrees, decimals: 2)
            Self.vector(&w, &out, "rawFieldMicrotesla", h.rawFieldMicrotesla)
            Self.vector(&w, &out, "calibratedFieldMicrotesla", h.calibratedFieldMicrotesla)
            if let a = acceleration { Self.vector(&w, &out, "accelerationMetersPerSecondSquared", a) }
            w.string(&out, "interference", h.interference.stateName)
            w.bool(&out, "usesGyroscope", h.usesGyroscope)
            w.end(&out)
        case .calibrationNeeded(let c):
            w.begin(&out, class: "calibration")
            w.bool(&out, "needed", c.needed)
            w.string(&out, "reason", c.reasonName)
            w.number(&out, "sampleTimeSeconds", c.sampleTimeSeconds, decimals: 6)
            w.integer(&out, "monotonicNanos", Int(c.monotonicNanos))
            w.end(&out)
        case .calibrationRefined(let r):
            w.begin(&out, class: "calibration")
            w.bool(&out, "refined", true)
            w.string(&out, "method", "\(r.method)")
            Self.vector(&w, &out, "hardIronMicrotesla", r.calibration.hardIronMicrotesla)
            w.number(&out, "residualStdMicrotesla", r.metrics.residualStdMicrotesla, decimals: 3)
            w.number(&out, "coveragePercent", r.metrics.coveragePercent, decimals: 1)
            w.end(&out)
        case .availability(let location, let heading):
            w.begin(&out, class: "availability")
            w.bool(&out, "locationServicesEnabled", location)
            w.bool(&out, "headingAvailable", heading)
            w.end(&out)
        case .service(let s): encodeService(s, into: &out)
        case .lateFix: break   // gpsd JSON only (fix times never go back here)
        case .sentence(let bytes):
            w.begin(&out, class: "nmea")
            var text = bytes[...]
            while let l = text.last, l == 0x0D || l == 0x0A { text.removeLast() }
            w.string(&out, "sentence", String(decoding: text, as: UTF8.self))
            w.end(&out)
        }
    }

    static func vector(_ w: inout JSONWriter, _ out: inout ByteBuffer, _ key: StaticString, _ v: Vector3) {
        w.rawKey(&out, key)
        out.append(0x5B)
        out.appendFixed(v.x, decimals: 3); out.append(0x2C)
        out.appendFixed(v.y, decimals: 3); out.append(0x2C)
        out.appendFixed(v.z, decimals: 3)
        out.append(0x5D)
    }
}

extension MagneticInterference {
    public var stateName: String {
        switch state {
        case .none: "none"
        case .transient: "transient"
        case .persistent: "persistent"
        }
    }
}

extension CalibrationNeededEvent {
    public var reasonName: String {
        switch reason {
        case .hardIronSignature: "hardIronSignature"
        case .persistentInterference: "persistentInterference"
        case .resolved: "resolved"
        }
    }
}
