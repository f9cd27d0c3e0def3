import LocationCore
import Magnetics
import LocationServices

/// Everything the pipeline emits, in order.
public indirect enum OutputEvent: Sendable {
    case fix(Location)
    /// A receiver's solution for a time already passed, not a fix of the stream (fix times never go back): a u-blox
    /// NAV-PVT that arrives after the HNR-PVT of a later time. gpsd reports it as a TPV, so the gpsd encoder writes
    /// it; every other output leaves it out. Only with smoothing off (the raw receiver stream, as gpsd's).
    case lateFix(Location)
    case sky(SkyReport)
    case status(StatusReport)
    /// A proprietary or unsupported sentence passed through verbatim (with `--passthrough`).
    case sentence([UInt8])
    /// A heading from the magnetometer (+ accelerometer, + gyroscope), with the latest acceleration (m/s²).
    case heading(HeadingReport, accelerationMetersPerSecondSquared: Vector3?)
    /// Core Location's shouldDisplayHeadingCalibration changed.
    case calibrationNeeded(CalibrationNeededEvent)
    /// Background refinement adopted a better magnetometer calibration (now in use).
    case calibrationRefined(CalibrationResult)
    /// Core Location–style availability of the whole session changed (live sources).
    case availability(locationServicesEnabled: Bool, headingAvailable: Bool)
    /// Location services (updates under a policy, regions, visits, significant changes, batches; docs/services.md).
    case service(ServiceEvent)
}

/// The output formats.
public enum OutputFormat: String, CaseIterable, Sendable {
    /// Lodestar JSON lines (docs/output.md).
    case json
    /// gpsd-compatible JSON (TPV, SKY, ATT) with gpsd's names and units, CR LF line ends.
    case gpsd
    /// NMEA 0183 sentences (RMC, GGA, GSA, GSV, VTG, ZDA, HDT/HDG/HDM).
    case nmea
}

/// Turns output events into bytes of one line (or a few NMEA sentences).
extension OutputEvent {
    /// The one rule for raw fixes: while location services filter the fixes (an update policy or deferral,
    /// `LocationServicesStage.filtersFixes`), the raw fix stream is replaced by the fixes the services deliver
    /// (`service` events), so every output (encoder, network, MQTT, second formats) leaves raw `fix` events out.
    public func isReplacedByServices(filtersFixes: Bool) -> Bool {
        guard filtersFixes else { return false }
        switch self {
        case .fix, .lateFix: return true
        default: return false
        }
    }
}

public protocol OutputEncoder {
    /// Appends the encoding of `event` to `out` (nothing for events the format has no form for).
    mutating func encode(_ event: OutputEvent, into out: inout ByteBuffer)
}

/// `device`: gpsd's device name for gpsd JSON (the receiver's path; `lodestar` when nil); `headingTalker`: the
/// NMEA talker of HDT/HDG/HDM.
public func makeEncoder(_ format: OutputFormat, device: String? = nil, headingDevice: String? = nil,
                        headingTalker: String = "HC") -> any OutputEncoder {
    switch format {
    case .json: LodestarJSONEncoder()
    case .gpsd: GpsdJSONEncoder(device: device, headingDevice: headingDevice)
    case .nmea: NMEAOutputEncoder(headingTalker: headingTalker)
    }
}
