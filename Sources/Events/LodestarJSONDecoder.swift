import LocationCore
import LocationServices
import Magnetics

/// Reads Lodestar JSON lines (docs/output.md) back into output events: what a client of the location service
/// (`lodestar run --service`) receives. Fixes, headings, statuses, availability and calibration prompts are
/// decoded; other classes (sky, services, sentences) give nil. The inverse of `LodestarJSONEncoder` for the fields
/// a Core Location client uses; a line that is not valid JSON or lacks required fields gives nil.
public enum LodestarJSONDecoder {
    public static func event(line: [UInt8]) -> OutputEvent? {
        guard let v = try? JSONValue.parse(line), let cls = v["class"]?.string else { return nil }
        switch cls {
        case "fix": return fix(v).map { .fix($0) }
        case "heading": return heading(v).map { .heading($0, accelerationMetersPerSecondSquared: vector(v["accelerationMetersPerSecondSquared"])) }
        case "status":
            guard let source = v["source"]?.string, let state = v["state"]?.string.flatMap(StatusReport.State.init(rawValue:))
            else { return nil }
            return .status(StatusReport(source: source, state: state, message: v["message"]?.string,
                                        time: v["time"]?.string.flatMap(Timestamp.parseISO8601)))
        case "availability":
            guard let l = v["locationServicesEnabled"]?.bool, let h = v["headingAvailable"]?.bool else { return nil }
            return .availability(locationServicesEnabled: l, headingAvailable: h)
        case "calibration":
            guard let needed = v["needed"]?.bool else { return nil }
            let reason: CalibrationNeededEvent.Reason = switch v["reason"]?.string {
            case "hardIronSignature": .hardIronSignature
            case "resolved": .resolved
            default: .persistentInterference
            }
            return .calibrationNeeded(CalibrationNeededEvent(reportedNeeded: needed, reason: reason,
                                                             monotonicNanos: Int64(v["monotonicNanos"]?.number ?? 0),
                                                             sampleTimeSeconds: v["sampleTimeSeconds"]?.number))
        default: return nil
        }
    }

    static func fix(_ v: JSONValue) -> Location? {
        var l = Location()
        l.time = v["time"]?.string.flatMap(Timestamp.parseISO8601)
        l.mode = switch v["mode"]?.string {
        case "2d": .twoD
        case "3d": .threeD
        case "none": .noFix
        default: .unknown
        }
        if let q = v["quality"]?.string {
            l.quality = [FixQuality.gps, .dgps, .rtkFixed, .rtkFloat, .deadReckoning, .gnssDeadReckoning, .timeOnly,
                         .simulated, .pps].first { $0.name == q } ?? .unknown
        }
        l.latitudeDegrees = v["latitudeDegrees"]?.number
        l.longitudeDegrees = v["longitudeDegrees"]?.number
        l.altitudeMSLMeters = v["altitudeMSLMeters"]?.number
        l.altitudeEllipsoidMeters = v["altitudeEllipsoidMeters"]?.number
        l.geoidSeparationMeters = v["geoidSeparationMeters"]?.number
        l.horizontalAccuracyMeters = v["horizontalAccuracyMeters"]?.number
        l.verticalAccuracyMeters = v["verticalAccuracyMeters"]?.number
        l.speedMetersPerSecond = v["speedMetersPerSecond"]?.number
        l.speedAccuracyMetersPerSecond = v["speedAccuracyMetersPerSecond"]?.number
        l.courseDegrees = v["courseDegrees"]?.number
        l.courseAccuracyDegrees = v["courseAccuracyDegrees"]?.number
        l.magneticVariationDegrees = v["magneticVariationDegrees"]?.number
        l.receiverHeadingDegrees = v["receiverHeadingDegrees"]?.number
        l.timeAccuracySeconds = v["timeAccuracySeconds"]?.number
        l.leapSeconds = v["leapSeconds"]?.number.map { Int($0) }
        l.satellitesUsed = v["satellitesUsed"]?.number.map { Int($0) }
        l.satellitesVisible = v["satellitesVisible"]?.number.map { Int($0) }
        l.hdop = v["hdop"]?.number; l.vdop = v["vdop"]?.number; l.pdop = v["pdop"]?.number
        l.dgpsAgeSeconds = v["dgpsAgeSeconds"]?.number
        l.dgpsStation = v["dgpsStation"]?.number.map { Int($0) }
        l.isStationary = v["isStationary"]?.bool
        l.isSmoothed = v["smoothed"]?.bool ?? false
        if let g = v["integrity"] {
            var i = ReceiverIntegrity()
            i.jamming = g["jamming"]?.string.flatMap(ReceiverIntegrity.Jamming.init(rawValue:)) ?? .unknown
            i.jammingIndicator = g["jammingIndicator"]?.number.map { Int($0) }
            i.spoofing = g["spoofing"]?.string.flatMap(ReceiverIntegrity.Spoofing.init(rawValue:)) ?? .unknown
            i.antenna = g["antenna"]?.string.flatMap(ReceiverIntegrity.Antenna.init(rawValue:)) ?? .unknown
            l.integrity = i
        }
        if let p = v["placemark"] {
            l.placemark = PlacemarkSummary(name: p["name"]?.string, locality: p["locality"]?.string,
                                           subLocality: p["subLocality"]?.string,
                                           administrativeArea: p["administrativeArea"]?.string,
                                           subAdministrativeArea: p["subAdministrativeArea"]?.string,
                                           isoCountryCode: p["isoCountryCode"]?.string, country: p["country"]?.string,
                                           ocean: p["ocean"]?.string, timeZone: p["timeZone"]?.string)
        }
        return l
    }

    static func heading(_ v: JSONValue) -> HeadingReport? {
        guard let magnetic = v["magneticHeadingDegrees"]?.number, let accuracy = v["headingAccuracyDegrees"]?.number
        else { return nil }
        let t = v["trueHeadingDegrees"]?.number
        var interference = MagneticInterference()
        interference.state = switch v["interference"]?.string {
        case "transient": .transient
        case "persistent": .persistent
        default: .none
        }
        return HeadingReport(reportedAtMonotonicNanos: Int64(v["monotonicNanos"]?.number ?? 0),
                             sampleTimeSeconds: v["sampleTimeSeconds"]?.number, magneticHeadingDegrees: magnetic,
                             trueHeadingDegrees: t.flatMap { $0 < 0 ? nil : $0 },
                             declinationDegrees: v["declinationDegrees"]?.number, headingAccuracyDegrees: accuracy,
                             rollDegrees: v["rollDegrees"]?.number ?? 0, pitchDegrees: v["pitchDegrees"]?.number ?? 0,
                             rawFieldMicrotesla: vector(v["rawFieldMicrotesla"]) ?? .zero,
                             calibratedFieldMicrotesla: vector(v["calibratedFieldMicrotesla"]) ?? .zero,
                             interference: interference, usesGyroscope: v["usesGyroscope"]?.bool ?? false)
    }

    static func vector(_ v: JSONValue?) -> Vector3? {
        guard let v else { return nil }
        if let a = v.array, a.count == 3, let x = a[0].number, let y = a[1].number, let z = a[2].number {
            return Vector3(x: x, y: y, z: z)
        }
        if let x = v["x"]?.number, let y = v["y"]?.number, let z = v["z"]?.number { return Vector3(x: x, y: y, z: z) }
        return nil
    }
}
