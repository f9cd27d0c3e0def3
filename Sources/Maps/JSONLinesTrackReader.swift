import LocationCore
import LocationServices

/// Reads Lodestar JSON-lines output (docs/output.md) back into `MapData`: `fix` objects (with `"smoothed":true` into
/// the smoothed track, else the raw one), `heading`, `region` and `visit` objects. Other classes are skipped;
/// a line that is not a JSON object is counted in `corruptLines` and skipped.
public struct JSONLinesTrackReader {
    public private(set) var data = MapData()
    public private(set) var lines = 0
    public private(set) var corruptLines = 0
    private var lastHeading: (degrees: Double, accuracy: Double)?
    private var pendingInterference = false

    public init() {}

    /// True when the bytes look like Lodestar JSON lines (the first non-blank byte is `{` and a `"class"` key follows).
    public static func looksLikeJSONLines(_ prefix: [UInt8]) -> Bool {
        guard let first = prefix.firstIndex(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
              prefix[first] == UInt8(ascii: "{") else { return false }
        let line = prefix[first...].prefix { $0 != 0x0A }
        return String(decoding: line, as: UTF8.self).contains("\"class\"")
    }

    public mutating func read(_ bytes: [UInt8]) {
        var start = 0
        for i in 0...bytes.count where i == bytes.count || bytes[i] == 0x0A {
            if i > start { line(Array(bytes[start..<i])) }
            start = i + 1
        }
    }

    mutating func line(_ raw: [UInt8]) {
        var b = raw
        while let last = b.last, last == 0x0D || last == 0x20 { b.removeLast() }
        guard !b.isEmpty else { return }
        lines += 1
        guard let v = try? JSONValue.parse(b), case .object = v, let cls = v["class"]?.string else {
            corruptLines += 1
            return
        }
        switch cls {
        case "fix":
            guard let lat = v["latitudeDegrees"]?.number, let lon = v["longitudeDegrees"]?.number,
                  v["mode"]?.string != "none", abs(lat) <= 90, abs(lon) <= 360 else { return }
            var p = TrackPoint(latitudeDegrees: lat, longitudeDegrees: lon, time: v["time"]?.string.flatMap(Timestamp.parseISO8601))
            p.altitudeMSLMeters = v["altitudeMSLMeters"]?.number
            p.horizontalAccuracyMeters = v["horizontalAccuracyMeters"]?.number
            p.speedMetersPerSecond = v["speedMetersPerSecond"]?.number
            p.courseDegrees = v["courseDegrees"]?.number
            p.hdop = v["hdop"]?.number
            p.satellitesUsed = v["satellitesUsed"]?.number.map { Int($0) }
            let q = v["quality"]?.string
            p.isDeadReckoned = q == "deadReckoning" || q == "gnssDeadReckoning"
            p.headingDegrees = lastHeading?.degrees
            p.headingAccuracyDegrees = lastHeading?.accuracy
            p.interference = pendingInterference
            pendingInterference = false
            if v["smoothed"]?.bool == true { data.smoothed.append(p) } else { data.raw.append(p) }
        case "heading":
            guard let acc = v["headingAccuracyDegrees"]?.number else { return }
            data.headingEvents += 1
            if acc >= 0 { data.validHeadingEvents += 1 }
            let t = v["trueHeadingDegrees"]?.number ?? -1
            guard let deg = t >= 0 ? t : v["magneticHeadingDegrees"]?.number else { return }
            lastHeading = (deg, acc)
            if v["interference"]?.string == "transient" { pendingInterference = true }
        case "region":
            guard let id = v["identifier"]?.string, let lat = v["latitudeDegrees"]?.number,
                  let lon = v["longitudeDegrees"]?.number else { return }
            data.crossings.append(MapRegionCrossing(identifier: id, isEntry: v["event"]?.string == "enter",
                                                    time: v["time"]?.string.flatMap(Timestamp.parseISO8601),
                                                    latitudeDegrees: lat, longitudeDegrees: lon))
        case "visit":
            guard let lat = v["latitudeDegrees"]?.number, let lon = v["longitudeDegrees"]?.number else { return }
            func date(_ k: String) -> Timestamp? {
                guard let s = v[k]?.string, !s.hasPrefix("0001-"), !s.hasPrefix("4001-") else { return nil }
                return Timestamp.parseISO8601(s)
            }
            let visit = MapVisit(latitudeDegrees: lat, longitudeDegrees: lon,
                                 horizontalAccuracyMeters: v["horizontalAccuracyMeters"]?.number ?? 0,
                                 arrival: date("arrivalDate"), departure: date("departureDate"))
            if let i = data.visits.lastIndex(where: { $0.arrival == visit.arrival && $0.departure == nil }) {
                data.visits[i] = visit
            } else {
                data.visits.append(visit)
            }
        default:
            break
        }
    }
}
