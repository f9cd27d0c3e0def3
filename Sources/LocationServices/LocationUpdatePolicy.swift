import LocationCore

/// Core Location's desiredAccuracy. Each level is an acceptable horizontal accuracy (68 % radius) and a longest wait:
///
/// | level | delivered at once when accuracy ≤ | otherwise waits up to, then delivers the best fix seen |
/// |---|---|---|
/// | bestForNavigation | every fix (no threshold) | — (no wait) |
/// | best | 5 m | 2 s |
/// | nearestTenMeters | 10 m | 5 s |
/// | hundredMeters | 100 m | 10 s |
/// | kilometer | 1 000 m | 15 s |
/// | threeKilometers | 3 000 m | 30 s |
///
/// A fix without a reported accuracy counts as worse than every threshold. A fix delivered after waiting is marked
/// `accuracyLimited` (it did not meet the level) and keeps its own timestamp.
public enum DesiredAccuracy: String, Sendable, CaseIterable, Hashable {
    case bestForNavigation, best, nearestTenMeters, hundredMeters, kilometer, threeKilometers

    public var acceptableAccuracyMeters: Double {
        switch self {
        case .bestForNavigation: .infinity
        case .best: 5
        case .nearestTenMeters: 10
        case .hundredMeters: 100
        case .kilometer: 1000
        case .threeKilometers: 3000
        }
    }

    public var maximumWaitSeconds: Double {
        switch self {
        case .bestForNavigation: 0
        case .best: 2
        case .nearestTenMeters: 5
        case .hundredMeters: 10
        case .kilometer: 15
        case .threeKilometers: 30
        }
    }

    /// Also accepts the CLI's short names: navigation, 10m, 100m, 1km, 3km.
    public init?(name: String) {
        switch name {
        case "bestForNavigation", "navigation": self = .bestForNavigation
        case "best": self = .best
        case "nearestTenMeters", "10m": self = .nearestTenMeters
        case "hundredMeters", "100m": self = .hundredMeters
        case "kilometer", "1km": self = .kilometer
        case "threeKilometers", "3km": self = .threeKilometers
        default: return nil
        }
    }
}

/// A fix handed out by a policy (CLLocationUpdate).
public struct LocationUpdate: Sendable, Hashable {
    /// The fix; nil when `locationUnavailable`.
    public var location: Location?
    /// The receiver has no position now (no fix / fix lost) — transient, like `CLLocationUpdate.locationUnavailable`.
    public var locationUnavailable: Bool
    /// Delivered after waiting without reaching the desired accuracy.
    public var accuracyLimited: Bool
    /// The time of the fix (or of the no-fix report), never a clock read.
    public var time: Timestamp
    /// The device is judged stationary (from the smoother; nil when unknown).
    public var isStationary: Bool? { location?.isStationary }

    public init(location: Location?, locationUnavailable: Bool, accuracyLimited: Bool, time: Timestamp) {
        self.location = location; self.locationUnavailable = locationUnavailable
        self.accuracyLimited = accuracyLimited; self.time = time
    }
}

/// Decides which fixes are delivered: desiredAccuracy, distanceFilter and staleness. Pure: time comes only from
/// the fixes' timestamps.
///
/// - **Staleness**: a fix whose time is more than `maximumAgeSeconds` before the newest time seen (a cached or
///   late fix) is never delivered; a fix with no time is never delivered (its age cannot be honest). Counted in
///   `staleDropped` / `untimedDropped`.
/// - **distanceFilter**: a fix is delivered only when it is at least `distanceFilterMeters` from the last delivered
///   fix (0 = every fix). Accuracy-limited deliveries obey it too.
/// - **desiredAccuracy**: see `DesiredAccuracy`.
/// - **Unavailability**: the first no-fix report after a delivered position yields one `locationUnavailable` update.
public struct LocationUpdatePolicy: Sendable {
    public var desiredAccuracy: DesiredAccuracy
    public var distanceFilterMeters: Double
    public var maximumAgeSeconds: Double

    public private(set) var staleDropped = 0
    public private(set) var untimedDropped = 0
    public private(set) var newestTime: Timestamp?
    public private(set) var lastDelivered: Location?
    private var held: [Location] = []
    private var holdStart: Timestamp?
    private var unavailableReported = false

    public init(desiredAccuracy: DesiredAccuracy = .bestForNavigation, distanceFilterMeters: Double = 0,
                maximumAgeSeconds: Double = 5) {
        self.desiredAccuracy = desiredAccuracy
        self.distanceFilterMeters = Swift.max(0, distanceFilterMeters)
        self.maximumAgeSeconds = maximumAgeSeconds
    }

    /// Feeds one fix (valid or not); returns what is delivered now (at most two updates: a held fix whose wait
    /// ran out, then this one).
    public mutating func process(_ fix: Location) -> [LocationUpdate] {
        guard let t = fix.time else { untimedDropped += 1; return [] }
        if let newest = newestTime, newest.seconds(to: t) < -maximumAgeSeconds { staleDropped += 1; return [] }
        if newestTime.map({ t > $0 }) ?? true { newestTime = t }
        guard fix.coordinate != nil else {
            var out: [LocationUpdate] = []
            if let u = expireHold(now: t) { out.append(u) }
            if !unavailableReported {
                unavailableReported = true
                out.append(LocationUpdate(location: nil, locationUnavailable: true, accuracyLimited: false, time: t))
            }
            return out
        }
        unavailableReported = false
        let accuracy = fix.horizontalAccuracyMeters ?? .infinity
        if accuracy <= desiredAccuracy.acceptableAccuracyMeters {
            held.removeAll(keepingCapacity: true)
            holdStart = nil
            return deliver(fix, limited: false).map { [$0] } ?? []
        }
        // Not good enough: hold it and deliver the best held fix once the wait runs out.
        if holdStart == nil { holdStart = t }
        held.append(fix)
        return expireHold(now: t).map { [$0] } ?? []
    }

    /// Delivers the best held fix when the wait is over (also called with a no-fix report's time).
    private mutating func expireHold(now: Timestamp) -> LocationUpdate? {
        guard let start = holdStart, start.seconds(to: now) >= desiredAccuracy.maximumWaitSeconds else { return nil }
        // Only fixes still fresh relative to now are candidates.
        let fresh = held.filter { f in f.time.map { $0.seconds(to: now) <= maximumAgeSeconds } ?? false }
        held.removeAll(keepingCapacity: true)
        holdStart = nil
        guard let best = fresh.min(by: { ($0.horizontalAccuracyMeters ?? .infinity) < ($1.horizontalAccuracyMeters ?? .infinity) })
        else { return nil }
        return deliver(best, limited: true)
    }

    private mutating func deliver(_ fix: Location, limited: Bool) -> LocationUpdate? {
        guard let t = fix.time, let c = fix.coordinate else { return nil }
        if distanceFilterMeters > 0, let last = lastDelivered?.coordinate,
           Geo.distanceMeters(last, c) < distanceFilterMeters { return nil }
        lastDelivered = fix
        return LocationUpdate(location: fix, locationUnavailable: false, accuracyLimited: limited, time: t)
    }
}

/// Core Location's headingFilter: a heading is delivered when it differs from the last delivered one by at least
/// `filterDegrees` (0 = every heading), or when its validity changes (an invalid heading, accuracy < 0, is always
/// delivered once so the consumer learns the heading is lost).
public struct HeadingFilter: Sendable {
    public var filterDegrees: Double
    private var lastDegrees: Double?
    private var lastValid = true

    public init(filterDegrees: Double = 1) { self.filterDegrees = Swift.max(0, filterDegrees) }

    public mutating func shouldDeliver(headingDegrees: Double, accuracyDegrees: Double) -> Bool {
        let valid = accuracyDegrees >= 0 && headingDegrees.isFinite
        defer { lastValid = valid }
        guard valid else { return lastValid }
        if !lastValid { lastDegrees = headingDegrees; return true }
        guard let last = lastDegrees else { lastDegrees = headingDegrees; return true }
        if abs(Angle.differenceDegrees(headingDegrees, last)) >= filterDegrees {
            lastDegrees = headingDegrees
            return true
        }
        return false
    }
}
