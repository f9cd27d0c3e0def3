import Events
import LocationCore
import LocationServices
import Magnetics

/// The adapter from the pipeline's `OutputEvent`s to `MapData` (maps, exports, the live page). Feed it from a
/// pipeline observer; the role (raw or smoothed track) is the caller's choice, since one pipeline run gives one of them.
public struct MapRecorder {
    public enum Role: Sendable { case raw, smoothed }
    public var data = MapData()
    private var pendingInterference = false
    private var lastHeading: (degrees: Double, accuracy: Double)?
    /// Whether heading events count into `headingEvents` (count them on one run only).
    public var countsHeadings: Bool

    public init(countsHeadings: Bool = true) { self.countsHeadings = countsHeadings }

    /// Forgets the heading state of the previous run (call before replaying the input again for another role).
    public mutating func beginRun() {
        lastHeading = nil
        pendingInterference = false
    }

    public mutating func record(_ event: OutputEvent, as role: Role) {
        switch event {
        case .fix(let l):
            guard let p = Self.point(l, heading: lastHeading, interference: pendingInterference) else { return }
            pendingInterference = false
            if role == .raw { data.raw.append(p) } else { data.smoothed.append(p) }
        case .heading(let h, _):
            if countsHeadings {
                data.headingEvents += 1
                if h.headingAccuracyDegrees >= 0 { data.validHeadingEvents += 1 }
            }
            lastHeading = (h.trueHeadingDegrees ?? h.magneticHeadingDegrees, h.headingAccuracyDegrees)
            if h.interference.state == .transient { pendingInterference = true }
        case .service(let s):
            switch s {
            case .region(let e):
                guard let lat = e.location.latitudeDegrees, let lon = e.location.longitudeDegrees else { return }
                data.crossings.append(MapRegionCrossing(identifier: e.identifier, isEntry: e.kind == .enter, time: e.time,
                                                        latitudeDegrees: lat, longitudeDegrees: lon))
            case .visit(let v):
                guard v.kind == .departure || !data.visits.contains(where: { $0.arrival == v.arrivalDate }) else { return }
                let visit = MapVisit(latitudeDegrees: v.coordinate.latitudeDegrees, longitudeDegrees: v.coordinate.longitudeDegrees,
                                     horizontalAccuracyMeters: v.horizontalAccuracyMeters,
                                     arrival: v.arrivalDate == .distantPast ? nil : v.arrivalDate,
                                     departure: v.departureDate == .distantFuture ? nil : v.departureDate)
                // A departure completes the arrival reported earlier.
                if let i = data.visits.lastIndex(where: { $0.arrival == visit.arrival && $0.departure == nil }) {
                    data.visits[i] = visit
                } else {
                    data.visits.append(visit)
                }
            default: break
            }
        default: break
        }
    }

    /// Regions monitored (from the regions file), to draw as circles.
    public mutating func setRegions(_ regions: [CircularRegion]) {
        data.regions = regions.map {
            MapRegion(identifier: $0.identifier, latitudeDegrees: $0.center.latitudeDegrees,
                      longitudeDegrees: $0.center.longitudeDegrees, radiusMeters: $0.radiusMeters)
        }
    }

    static func point(_ l: Location, heading: (degrees: Double, accuracy: Double)?, interference: Bool) -> TrackPoint? {
        guard let lat = l.latitudeDegrees, let lon = l.longitudeDegrees, l.mode != .noFix,
              lat.isFinite, lon.isFinite else { return nil }
        var p = TrackPoint(latitudeDegrees: lat, longitudeDegrees: lon, time: l.time)
        p.altitudeMSLMeters = l.altitudeMSLMeters
        p.horizontalAccuracyMeters = l.horizontalAccuracyMeters
        p.speedMetersPerSecond = l.speedMetersPerSecond
        p.courseDegrees = l.courseDegrees
        p.hdop = l.hdop
        p.satellitesUsed = l.satellitesUsed
        p.isDeadReckoned = l.quality == .deadReckoning || l.quality == .gnssDeadReckoning
        p.headingDegrees = heading?.degrees
        p.headingAccuracyDegrees = heading?.accuracy
        p.interference = interference
        return p
    }
}
