import LocationCore
import NMEA

/// NMEA 0183 out, for chartplotters, gpsd and other NMEA consumers (docs/output.md): per fix RMC, GGA (with the
/// satellite count and HDOP, from the last sky view when the fix lacks them), GSA, GSV when the sky view changed
/// (one set per constellation), VTG and ZDA; per usable heading HDT, HDG and HDM with the heading talker (`HC` by default, the
/// only one gpsd 3.22 accepts). Every sentence is checksummed, CRLF-terminated and at most 82 characters.
/// Passed-through sentences are written verbatim.
public struct NMEAOutputEncoder: OutputEncoder {
    public var encoder: NMEAEncoder
    /// The last sky view (satellites used per constellation, DOPs), for GGA's count and GSA.
    private var lastSky: SkyReport?
    /// A sky view not yet written: its GSV set follows the next fix's GSA (gpsd marks satellites used from the
    /// GSA of the same cycle, so GSV must come after it, as receivers send them).
    private var pendingGSV = false
    /// The last sky view that marked satellites used (a view rebuilt from GSV alone carries no GSA marks).
    private var lastUsedSky: SkyReport?

    public init(talker: String = "GP", headingTalker: String = "HC") {
        encoder = NMEAEncoder(talker: talker, headingTalker: headingTalker)
    }

    public mutating func encode(_ event: OutputEvent, into out: inout ByteBuffer) {
        switch event {
        case .fix(let l):
            let used = lastUsedSky.map { sky in sky.satellitesOnePerSatellite.reduce(0) { $0 + ($1.used ? 1 : 0) } }
            out.append(string: encoder.rmc(l))
            out.append(string: encoder.gga(l, satellitesUsed: used.flatMap { $0 > 0 ? $0 : nil } ?? lastSky?.satellitesUsed,
                                           hdop: lastSky?.hdop))
            appendGSA(l, into: &out)
            if pendingGSV, let s = lastSky {
                pendingGSV = false
                for (talker, group) in Self.byTalker(s.satellitesOnePerSatellite) {
                    for g in encoder.gsv(group.map { ($0.nmeaID, $0.elevationDegrees, $0.azimuthDegrees, $0.snrDBHz) }, talker: talker) {
                        out.append(string: g)
                    }
                }
            }
            out.append(string: encoder.vtg(l))
            if let t = l.time { out.append(string: encoder.zda(t)) }
        case .sky(let s):
            lastSky = s
            if s.satellites.contains(where: \.used) { lastUsedSky = s }
            pendingGSV = true
        case .sentence(let bytes):
            out.append(bytes)
            if bytes.last != 0x0A { out.append(0x0D); out.append(0x0A) }
        case .heading(let h, _):
            guard h.headingAccuracyDegrees >= 0 else { return }
            if let t = h.trueHeadingDegrees { out.append(string: encoder.hdt(headingTrueDegrees: t)) }
            // HDG: the magnetic sensor heading, deviation 0 (the calibration already removed it), variation =
            // the WMM declination, so a chartplotter computes true = magnetic + deviation + variation.
            out.append(string: encoder.hdg(sensorDegrees: h.magneticHeadingDegrees, deviationDegrees: 0,
                                           variationDegrees: h.declinationDegrees))
            out.append(string: encoder.hdm(headingMagneticDegrees: h.magneticHeadingDegrees))
        case .service(let s): encodeService(s, into: &out)
        case .lateFix: break   // gpsd JSON only (fix times never go back here)
        case .status, .calibrationNeeded, .calibrationRefined, .availability:
            break
        }
    }

    /// GSA for the satellites used in the last sky view: one `$GPGSA` for a GPS-only view, else one `$GNGSA` per
    /// constellation with NMEA 4.11's system id (as u-blox receivers send it; gpsd merges them).
    private func appendGSA(_ l: Location, into out: inout ByteBuffer) {
        guard let sky = lastUsedSky else { return }
        let pdop = l.pdop ?? sky.pdop, hdop = l.hdop ?? sky.hdop, vdop = l.vdop ?? sky.vdop
        let groups = Self.byTalker(sky.satellitesOnePerSatellite.filter(\.used))
        if groups.count <= 1 {
            let ids = groups.first?.1.map(\.nmeaID) ?? []
            out.append(string: encoder.gsa(mode: l.mode, usedIDs: ids, pdop: pdop, hdop: hdop, vdop: vdop))
            return
        }
        for (talker, group) in groups {
            let system: Int? = switch talker {
            case "GP": 1
            case "GL": 2
            case "GA": 3
            case "GB": 4
            case "GQ": 5
            case "GI": 6
            default: nil
            }
            for chunk in stride(from: 0, to: group.count, by: 12) {
                let ids = group[chunk..<min(chunk + 12, group.count)].map(\.nmeaID)
                out.append(string: encoder.gsa(mode: l.mode, usedIDs: ids, pdop: pdop, hdop: hdop, vdop: vdop,
                                               talker: "GN", systemID: system))
            }
        }
    }

    /// Satellites grouped by the NMEA talker of their constellation, in a fixed order (GP, GL, GA, GB, GQ, GI).
    static func byTalker(_ sats: [SatelliteInfo]) -> [(String, [SatelliteInfo])] {
        let order = ["GP", "GL", "GA", "GB", "GQ", "GI"]
        var groups: [String: [SatelliteInfo]] = [:]
        for s in sats {
            let talker = switch s.constellation {
            case .glonass: "GL"
            case .galileo: "GA"
            case .beidou: "GB"
            case .qzss: "GQ"
            case .navic: "GI"
            default: "GP"
            }
            groups[talker, default: []].append(s)
        }
        return order.compactMap { t in groups[t].map { (t, $0) } }
    }
}
