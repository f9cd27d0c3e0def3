#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

/// One fix of a track, as drawn and exported.
public struct TrackPoint: Sendable, Equatable {
    public var time: Timestamp?
    public var latitudeDegrees: Double
    public var longitudeDegrees: Double
    public var altitudeMSLMeters: Double?
    public var horizontalAccuracyMeters: Double?
    public var speedMetersPerSecond: Double?
    public var courseDegrees: Double?
    public var hdop: Double?
    public var satellitesUsed: Int?
    /// Dead-reckoned (no GNSS position in this cycle).
    public var isDeadReckoned = false
    /// The latest heading at this fix (true when known, else magnetic) and its accuracy (−1 invalid).
    public var headingDegrees: Double?
    public var headingAccuracyDegrees: Double?
    /// The magnetometer saw interference since the previous fix.
    public var interference = false

    public init(latitudeDegrees: Double, longitudeDegrees: Double, time: Timestamp? = nil) {
        self.latitudeDegrees = latitudeDegrees; self.longitudeDegrees = longitudeDegrees; self.time = time
    }
}

/// A circular region (from `--regions`), drawn as a circle.
public struct MapRegion: Sendable, Equatable {
    public var identifier: String
    public var latitudeDegrees: Double, longitudeDegrees: Double, radiusMeters: Double
    public init(identifier: String, latitudeDegrees: Double, longitudeDegrees: Double, radiusMeters: Double) {
        self.identifier = identifier; self.latitudeDegrees = latitudeDegrees; self.longitudeDegrees = longitudeDegrees
        self.radiusMeters = radiusMeters
    }
}

/// A region entry or exit, where the fix that triggered it was.
public struct MapRegionCrossing: Sendable, Equatable {
    public var identifier: String
    public var isEntry: Bool
    public var time: Timestamp?
    public var latitudeDegrees: Double, longitudeDegrees: Double
    public init(identifier: String, isEntry: Bool, time: Timestamp?, latitudeDegrees: Double, longitudeDegrees: Double) {
        self.identifier = identifier; self.isEntry = isEntry; self.time = time
        self.latitudeDegrees = latitudeDegrees; self.longitudeDegrees = longitudeDegrees
    }
}

/// A visit (stop) with its arrival and departure.
public struct MapVisit: Sendable, Equatable {
    public var latitudeDegrees: Double, longitudeDegrees: Double
    public var horizontalAccuracyMeters: Double
    public var arrival: Timestamp?, departure: Timestamp?
    public init(latitudeDegrees: Double, longitudeDegrees: Double, horizontalAccuracyMeters: Double,
                arrival: Timestamp?, departure: Timestamp?) {
        self.latitudeDegrees = latitudeDegrees; self.longitudeDegrees = longitudeDegrees
        self.horizontalAccuracyMeters = horizontalAccuracyMeters; self.arrival = arrival; self.departure = departure
    }
}

/// Everything a map or an export shows: the raw and smoothed tracks, headings (on the fixes), regions, visits.
public struct MapData: Sendable, Equatable {
    /// The receiver's fixes as parsed.
    public var raw: [TrackPoint] = []
    /// The smoother's fixes (empty when the input had none).
    public var smoothed: [TrackPoint] = []
    public var regions: [MapRegion] = []
    public var crossings: [MapRegionCrossing] = []
    public var visits: [MapVisit] = []
    /// Heading events seen, and how many had a valid accuracy (≥ 0).
    public var headingEvents = 0
    public var validHeadingEvents = 0
    public init() {}

    /// The track shown as the main one: smoothed when present, else raw.
    public var primary: [TrackPoint] { smoothed.isEmpty ? raw : smoothed }

    public var boundingBox: BoundingBox {
        var b = BoundingBox.empty
        for p in raw { b.include(latitude: p.latitudeDegrees, longitude: p.longitudeDegrees) }
        for p in smoothed { b.include(latitude: p.latitudeDegrees, longitude: p.longitudeDegrees) }
        for v in visits { b.include(latitude: v.latitudeDegrees, longitude: v.longitudeDegrees) }
        return b
    }

    public var summary: TrackSummary { TrackSummary(self) }
}

/// Distance, duration, fixes and the valid-heading share of a track.
public struct TrackSummary: Sendable, Equatable {
    public var distanceMeters: Double
    public var durationSeconds: Double?
    public var fixes: Int
    public var rawFixes: Int
    public var deadReckonedFixes: Int
    /// Valid headings / heading events, nil without heading events.
    public var validHeadingShare: Double?

    public init(_ d: MapData) {
        let t = d.primary
        var dist = 0.0
        for i in t.indices.dropFirst() {
            dist += Geodesic.distanceMeters(t[i - 1].latitudeDegrees, t[i - 1].longitudeDegrees,
                                            t[i].latitudeDegrees, t[i].longitudeDegrees)
        }
        distanceMeters = dist
        let times = t.compactMap(\.time)
        durationSeconds = times.count >= 2 ? (times.last!.secondsSince1970 - times.first!.secondsSince1970) : nil
        fixes = t.count
        rawFixes = d.raw.count
        deadReckonedFixes = t.reduce(0) { $0 + ($1.isDeadReckoned ? 1 : 0) }
        validHeadingShare = d.headingEvents > 0 ? Double(d.validHeadingEvents) / Double(d.headingEvents) : nil
    }

    /// "12.3 km · 29 min 58 s · 1798 fixes · heading valid 93 %"
    public var text: String {
        var parts = [distanceMeters >= 1000 ? "\(fmt(distanceMeters / 1000, 2)) km" : "\(fmt(distanceMeters, 0)) m"]
        if let s = durationSeconds { parts.append(Self.duration(s)) }
        parts.append("\(fixes) fixes")
        if deadReckonedFixes > 0 { parts.append("\(deadReckonedFixes) dead-reckoned") }
        parts.append(validHeadingShare.map { "heading valid \(fmt($0 * 100, 0)) %" } ?? "no heading")
        return parts.joined(separator: " · ")
    }

    static func duration(_ s: Double) -> String {
        let total = Int(s.rounded())
        let h = total / 3600, m = (total % 3600) / 60, sec = total % 60
        return h > 0 ? "\(h) h \(m) min" : m > 0 ? "\(m) min \(sec) s" : "\(sec) s"
    }
}

enum Geodesic {
    static let radius = 6_371_008.8
    /// Haversine distance (metres) on the mean sphere.
    static func distanceMeters(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let r = Double.pi / 180
        let dLat = (lat2 - lat1) * r, dLon = (lon2 - lon1) * r
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * r) * cos(lat2 * r) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * radius * asin(min(1, sqrt(a)))
    }
}

/// Fixed-point formatting without Foundation: `fmt(3.14159, 2)` = "3.14".
func fmt(_ v: Double, _ digits: Int) -> String {
    guard v.isFinite else { return "0" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let n = (abs(v) * scale).rounded()
    let negative = v < 0 && n > 0
    let whole = Int64(n / scale)
    var s = (negative ? "-" : "") + String(whole)
    if digits > 0 {
        let frac = Int64(n - Double(whole) * scale)
        var f = String(frac)
        while f.count < digits { f = "0" + f }
        s += "." + f
    }
    return s
}
