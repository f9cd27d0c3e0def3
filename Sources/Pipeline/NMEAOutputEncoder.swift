import LocationCore
import NMEA

/// NMEA 0183 out: RMC and GGA per fix (checksummed, CRLF), for chartplotters and NMEA consumers.
/// Passed-through sentences are written verbatim.
public struct NMEAOutputEncoder: OutputEncoder {
    public var encoder: NMEAEncoder

    public init(talker: String = "GP") { encoder = NMEAEncoder(talker: talker) }

    public mutating func encode(_ event: OutputEvent, into out: inout ByteBuffer) {
        switch event {
        case .fix(let l):
            out.append(string: encoder.rmc(l))
            out.append(string: encoder.gga(l))
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
        case .sky, .status, .calibrationNeeded, .calibrationRefined, .availability:
            break
        }
    }
}
