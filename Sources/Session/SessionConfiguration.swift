import Capture
import LocationCore
import Magnetics
import NMEA
import Pipeline

/// What a session was configured with beyond its raw events — everything a replay needs to reproduce the live
/// output. A live session writes it into its capture's header (`session`, `mounting`, `calibration` lines); a replay
/// reads it back and applies it, with command-line options taking precedence over the header. Every field is
/// optional: nil means "not said" (neither by the command line nor by the capture).
public struct SessionConfiguration: Sendable, Equatable {
    /// Axis remap of the motion sensors onto the board (`-y,x,z`), applied to the heading.
    public var mounting: String?
    /// Names of the sources that feed the heading and the location (their status decides availability).
    public var headingSources: [String]?
    public var locationSources: [String]?
    /// Accept NMEA sentences without a checksum.
    public var lenient: Bool?
    /// External fix providers counted as receiver fixes (`gpsd` when gpsd is read in JSON mode).
    public var fixProviders: [String]?
    /// Reference date for 2-digit years and GPS week rollover.
    public var referenceDate: CivilDate?
    /// The magnetometer calibration in use when the session started.
    public var calibration: MagnetometerCalibration?
    /// Which heading estimator (`automatic`, `vehicle`, `handheld`; docs/heading.md).
    public var platform: String?

    public init(mounting: String? = nil, headingSources: [String]? = nil, locationSources: [String]? = nil,
                lenient: Bool? = nil, fixProviders: [String]? = nil, referenceDate: CivilDate? = nil,
                calibration: MagnetometerCalibration? = nil) {
        self.mounting = mounting; self.headingSources = headingSources; self.locationSources = locationSources
        self.lenient = lenient; self.fixProviders = fixProviders; self.referenceDate = referenceDate
        self.calibration = calibration
    }

    /// `self`, with the fields it leaves unsaid taken from `other` (command line over capture header).
    public func overriding(_ other: SessionConfiguration) -> SessionConfiguration {
        SessionConfiguration(mounting: mounting ?? other.mounting, headingSources: headingSources ?? other.headingSources,
                             locationSources: locationSources ?? other.locationSources, lenient: lenient ?? other.lenient,
                             fixProviders: fixProviders ?? other.fixProviders,
                             referenceDate: referenceDate ?? other.referenceDate, calibration: calibration ?? other.calibration)
            .with(platform: platform ?? other.platform)
    }

    private func with(platform: String?) -> SessionConfiguration {
        var c = self
        c.platform = platform
        return c
    }

    /// Applies the configuration to the stages' settings (unsaid fields leave them as they are). A platform or
    /// mounting that does not parse is an error, never silently ignored.
    public func apply(to settings: inout Pipeline.Settings) throws(SessionConfigurationError) {
        if let lenient { settings.nmea.framer = NMEAFramer.Options(acceptMissingChecksum: lenient) }
        if let h = headingSources { settings.availability.headingSourceNames = Set(h) }
        if let l = locationSources { settings.availability.locationSourceNames = Set(l) }
        if let p = fixProviders { settings.externalFixProviders.formUnion(p) }
        if let d = referenceDate { settings.nmea.referenceDate = d }
        if let c = calibration { settings.heading.calibration = c }
        if let m = mounting {
            do { settings.heading.heading?.mounting = try SensorMounting(parsing: m) } catch { throw .mounting(error) }
        }
        if let p = platform {
            guard let platform = VehicleHeadingStage.Platform(rawValue: p) else { throw .platform(p) }
            settings.heading.platform = platform
        }
    }

    // MARK: Capture header

    /// Header lines: `session: key=value …`, `mounting: axes=…`, `calibration: 0 hard_iron_uT=… soft_iron=…`.
    public var headerFields: [(key: String, value: String)] {
        var session: [String] = []
        if let d = referenceDate { session.append("reference_date=\(d.iso8601)") }
        if let lenient { session.append("lenient=\(lenient ? 1 : 0)") }
        if let h = headingSources { session.append("heading_sources=\(h.joined(separator: ","))") }
        if let l = locationSources { session.append("location_sources=\(l.joined(separator: ","))") }
        if let p = fixProviders { session.append("fix_providers=\(p.joined(separator: ","))") }
        if let p = platform { session.append("platform=\(p)") }
        var fields: [(key: String, value: String)] = []
        if !session.isEmpty { fields.append(("session", session.joined(separator: " "))) }
        if let m = mounting { fields.append(("mounting", "axes=\(m.filter { $0 != " " })")) }
        if let c = calibration {
            let h = c.hardIronMicrotesla, s = c.softIron
            let soft = [s.r0, s.r1, s.r2].flatMap { [$0.x, $0.y, $0.z] }.map { "\($0)" }.joined(separator: ",")
            var line = "0 hard_iron_uT=\(h.x),\(h.y),\(h.z) soft_iron=\(soft)"
            if let f = c.fieldMicrotesla { line += " field_uT=\(f)" }
            fields.append(("calibration", line))
        }
        return fields
    }

    /// Reads the configuration back from a capture header (keys it does not know are ignored).
    public init(header: CaptureHeader) {
        self.init()
        for (key, value) in header.fields {
            let attributes = Self.attributes(value)
            switch key {
            case "session":
                referenceDate = attributes["reference_date"].flatMap(parseISODate)
                lenient = attributes["lenient"].map { $0 == "1" }
                headingSources = attributes["heading_sources"].map(Self.list)
                locationSources = attributes["location_sources"].map(Self.list)
                fixProviders = attributes["fix_providers"].map(Self.list)
                platform = attributes["platform"]
            case "mounting":
                mounting = attributes["axes"]
            case "calibration":
                let h = attributes["hard_iron_uT"].map { $0.split(separator: ",").compactMap { Double($0) } } ?? []
                let s = attributes["soft_iron"].map { $0.split(separator: ",").compactMap { Double($0) } } ?? []
                guard h.count == 3, s.count == 9 else { continue }
                calibration = MagnetometerCalibration(
                    hardIronMicrotesla: Vector3(x: h[0], y: h[1], z: h[2]),
                    softIron: Matrix3(r0: Vector3(x: s[0], y: s[1], z: s[2]), r1: Vector3(x: s[3], y: s[4], z: s[5]),
                                      r2: Vector3(x: s[6], y: s[7], z: s[8])),
                    fieldMicrotesla: attributes["field_uT"].flatMap { Double($0) })
            default: break
            }
        }
        if referenceDate == nil { referenceDate = header.referenceDate }
    }

    private static func list(_ text: String) -> [String] { text.split(separator: ",").map(String.init) }

    private static func attributes(_ value: String) -> [String: String] {
        var out: [String: String] = [:]
        for part in value.split(separator: " ") {
            guard let eq = part.firstIndex(of: "=") else { continue }
            out[String(part[..<eq])] = String(part[part.index(after: eq)...])
        }
        return out
    }
}

/// A session configuration value that does not parse (from the command line, the API or a capture's header).
public enum SessionConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    case platform(String)
    case mounting(SensorMountingError)

    public var description: String {
        switch self {
        case .platform(let p):
            "platform must be \(VehicleHeadingStage.Platform.allCases.map(\.rawValue).joined(separator: ", ")), got '\(p)'"
        case .mounting(let e): e.description
        }
    }
}

/// The one rule for the reference date (2-digit years, GPS week rollover), the same in the CLI and LodestarKit:
/// what the capture says (`session: reference_date`, `created`, gpsd's `# Date:`), else the date the caller gave,
/// else the session's clock date (read once, when the session starts).
public enum ReferenceDate {
    public static func resolve(header: CivilDate?, explicit: CivilDate?, today: CivilDate) -> CivilDate {
        header ?? explicit ?? today
    }
}

extension SessionConfiguration {
    /// A live session's configuration: source roles from the source names (`gps*` feed the location, `imu*` the
    /// heading), gpsd's JSON fixes accepted as receiver fixes, the reference date from the session's clock.
    public static func live(sourceNames: [String], mounting: String?, lenient: Bool,
                            calibration: MagnetometerCalibration?, clock: ClockPairing) -> SessionConfiguration {
        SessionConfiguration(mounting: mounting, headingSources: sourceNames.filter { $0.hasPrefix("imu") },
                             locationSources: sourceNames.filter { $0.hasPrefix("gps") }, lenient: lenient,
                             fixProviders: ["gpsd"], referenceDate: clock.date, calibration: calibration)
    }
}
