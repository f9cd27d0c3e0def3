import LocationCore

/// An arrival or departure (CLVisit).
public struct Visit: Sendable, Hashable {
    public enum Kind: String, Sendable { case arrival, departure }
    public var kind: Kind
    /// The visited place: mean of the fixes while stopped (of all fixes in the dwell area when no speed is known).
    public var coordinate: Coordinate
    /// Mean horizontal accuracy of those fixes (68 % radius, metres).
    public var horizontalAccuracyMeters: Double
    /// Estimated true arrival time: the first fix of the stop (first slow fix in the dwell area). `.distantPast`
    /// when the session started during the visit (the arrival was not observed).
    public var arrivalDate: Timestamp
    /// Estimated true departure time (the last slow fix in the dwell area); `.distantFuture` for an arrival.
    public var departureDate: Timestamp
    /// The time of the fix that confirmed the event (arrival: the dwell threshold was reached; departure: the
    /// device was confirmed away).
    public var detectionDate: Timestamp
}

/// Detects visits: places where the device dwelt, ignoring traffic-light stops and short pauses.
///
/// Thresholds (`Settings`, defaults):
/// - a visit is a dwell of at least `minimumDwellSeconds` (120 s) with every fix within `radiusMeters` (50 m) of the
///   dwell area's centre; a shorter stop (traffic light, a pause in traffic) never produces an event;
/// - the device has departed when its fixes stay farther than `radiusMeters` + their accuracy from the centre for
///   `departureConfirmSeconds` (30 s), or one fix is farther than `departureDistanceMeters` (250 m): a short walk
///   out of the area and back, or a jumpy fix, is not a departure;
/// - fixes with accuracy worse than `maximumAccuracyMeters` (100 m) or unknown are ignored;
/// - a fix is "slow" below `stoppedSpeedMetersPerSecond` (1 m/s, or `isStationary == true`): the estimated arrival
///   and departure times and the centre come from slow fixes when there are any.
public struct VisitDetector: Sendable {
    public struct Settings: Sendable, Hashable {
        public var radiusMeters = 50.0
        public var minimumDwellSeconds = 120.0
        public var departureConfirmSeconds = 30.0
        public var departureDistanceMeters = 250.0
        public var maximumAccuracyMeters = 100.0
        public var stoppedSpeedMetersPerSecond = 1.0
        public init() {}
    }

    private struct Cluster: Sendable {
        var firstTime: Timestamp
        var firstSlowTime: Timestamp?
        var lastInsideTime: Timestamp
        var lastSlowTime: Timestamp?
        var sumLat = 0.0, sumLon = 0.0, n = 0.0
        var slowLat = 0.0, slowLon = 0.0, slowN = 0.0
        var sumAccuracy = 0.0
        var atSessionStart: Bool

        var centre: Coordinate {
            slowN > 0 ? Coordinate(latitudeDegrees: slowLat / slowN, longitudeDegrees: slowLon / slowN)
                : Coordinate(latitudeDegrees: sumLat / n, longitudeDegrees: sumLon / n)
        }

        mutating func add(_ c: Coordinate, _ t: Timestamp, accuracy: Double, slow: Bool) {
            sumLat += c.latitudeDegrees; sumLon += c.longitudeDegrees; n += 1
            sumAccuracy += accuracy
            lastInsideTime = t
            if slow {
                slowLat += c.latitudeDegrees; slowLon += c.longitudeDegrees; slowN += 1
                if firstSlowTime == nil { firstSlowTime = t }
                lastSlowTime = t
            }
        }
    }

    public var settings: Settings
    private var cluster: Cluster?
    private var arrived = false
    private var outsideSince: Timestamp?
    private var sawFix = false

    public init(settings: Settings = Settings()) { self.settings = settings }

    /// True while an arrival has been reported and no departure yet.
    public var isVisiting: Bool { arrived }

    public mutating func process(_ fix: Location) -> Visit? {
        guard let t = fix.time, let c = fix.coordinate, let a = fix.horizontalAccuracyMeters,
              a <= settings.maximumAccuracyMeters else { return nil }
        let slow = fix.isStationary == true || (fix.speedMetersPerSecond.map { $0 < settings.stoppedSpeedMetersPerSecond } ?? false)
        let first = !sawFix
        sawFix = true
        guard var k = cluster else {
            cluster = Self.start(c, t, a, slow, atSessionStart: first)
            return nil
        }
        let d = Geo.distanceMeters(k.centre, c)
        if !arrived {
            guard d <= settings.radiusMeters else {
                cluster = Self.start(c, t, a, slow, atSessionStart: false)
                return nil
            }
            k.add(c, t, accuracy: a, slow: slow)
            cluster = k
            guard k.firstTime.seconds(to: t) >= settings.minimumDwellSeconds else { return nil }
            arrived = true
            outsideSince = nil
            return visit(.arrival, k, detected: t)
        }
        if d <= settings.radiusMeters + a {
            outsideSince = nil
            k.add(c, t, accuracy: a, slow: slow)
            cluster = k
            return nil
        }
        let since = outsideSince ?? t
        outsideSince = since
        guard since.seconds(to: t) >= settings.departureConfirmSeconds || d >= settings.departureDistanceMeters else { return nil }
        let event = visit(.departure, k, detected: t)
        arrived = false
        outsideSince = nil
        cluster = Self.start(c, t, a, slow, atSessionStart: false)
        return event
    }

    private static func start(_ c: Coordinate, _ t: Timestamp, _ a: Double, _ slow: Bool, atSessionStart: Bool) -> Cluster {
        var k = Cluster(firstTime: t, lastInsideTime: t, atSessionStart: atSessionStart)
        k.add(c, t, accuracy: a, slow: slow)
        return k
    }

    private func visit(_ kind: Visit.Kind, _ k: Cluster, detected: Timestamp) -> Visit {
        let arrival = k.atSessionStart ? Timestamp.distantPast : (k.firstSlowTime ?? k.firstTime)
        let departure = kind == .arrival ? Timestamp.distantFuture : (k.lastSlowTime ?? k.lastInsideTime)
        return Visit(kind: kind, coordinate: k.centre, horizontalAccuracyMeters: k.sumAccuracy / Swift.max(1, k.n),
                     arrivalDate: arrival, departureDate: departure, detectionDate: detected)
    }
}
