import LocationCore

/// One significant location change (startMonitoringSignificantLocationChanges).
public struct SignificantChange: Sendable, Hashable {
    public var location: Location
    public var time: Timestamp
    /// Distance from the previous significant-change position; nil for the first one (the start of monitoring).
    public var distanceMeters: Double?
}

/// Emits an event when the position has moved at least `thresholdMeters` (default 500) from the last event's
/// position, debounced against accuracy: with a the fix's and b the anchor's horizontal accuracy (68 % radii), the
/// move counts only when distance ≥ threshold + a + b, so receiver jitter or a jump of a poor fix never triggers
/// it. Fixes whose accuracy is worse than `threshold / 2` (or unknown) are ignored. The first usable fix starts
/// monitoring and is reported (Core Location delivers a location when monitoring starts).
public struct SignificantChangeMonitor: Sendable {
    public var thresholdMeters: Double
    public private(set) var anchor: Location?

    public init(thresholdMeters: Double = 500) { self.thresholdMeters = thresholdMeters }

    public mutating func process(_ fix: Location) -> SignificantChange? {
        guard let t = fix.time, let c = fix.coordinate, let a = fix.horizontalAccuracyMeters,
              a <= thresholdMeters / 2 else { return nil }
        guard let anchor, let ac = anchor.coordinate else {
            self.anchor = fix
            return SignificantChange(location: fix, time: t, distanceMeters: nil)
        }
        let d = Geo.distanceMeters(ac, c)
        let b = anchor.horizontalAccuracyMeters ?? 0
        guard d >= thresholdMeters + a + b else { return nil }
        self.anchor = fix
        return SignificantChange(location: fix, time: t, distanceMeters: d)
    }
}

/// A batch of deferred fixes (allowDeferredLocationUpdates(untilTraveled:timeout:)).
public struct LocationBatch: Sendable, Hashable {
    public var locations: [Location]
    /// Path length along the batch (sum of the distances between consecutive fixes).
    public var distanceMeters: Double
    /// From the first to the last fix of the batch.
    public var durationSeconds: Double
    /// Why it was delivered.
    public var reason: Reason
    public enum Reason: String, Sendable { case distance, timeout, finished }
}

/// Collects delivered fixes and hands them out as one batch once the path since the batch's first fix reaches
/// `distanceMeters` or `seconds` have passed since it (whichever comes first; nil disables that trigger), for
/// consumers that want fewer wake-ups. `finish()` delivers what is left at the end of input.
public struct DeferredBatcher: Sendable {
    public var distanceMeters: Double?
    public var seconds: Double?
    private var pending: [Location] = []
    private var path = 0.0

    public init(distanceMeters: Double?, seconds: Double?) {
        self.distanceMeters = distanceMeters
        self.seconds = seconds
    }

    public var pendingCount: Int { pending.count }

    public mutating func add(_ fix: Location) -> LocationBatch? {
        guard fix.time != nil else { return nil }
        if let last = pending.last?.coordinate, let c = fix.coordinate { path += Geo.distanceMeters(last, c) }
        pending.append(fix)
        if let d = distanceMeters, path >= d { return take(.distance) }
        if let s = seconds, let t0 = pending.first?.time, let t = fix.time, t0.seconds(to: t) >= s { return take(.timeout) }
        return nil
    }

    /// Time passes (every fix's time, delivered or not): delivers the batch once `seconds` have passed since its
    /// first fix even when no further fix is delivered (e.g. while stopped under a distance filter).
    public mutating func advance(to t: Timestamp) -> LocationBatch? {
        guard let s = seconds, let t0 = pending.first?.time, t0.seconds(to: t) >= s else { return nil }
        return take(.timeout)
    }

    public mutating func finish() -> LocationBatch? { pending.isEmpty ? nil : take(.finished) }

    private mutating func take(_ reason: LocationBatch.Reason) -> LocationBatch {
        let duration = (pending.first?.time).flatMap { a in pending.last?.time.map { a.seconds(to: $0) } } ?? 0
        let b = LocationBatch(locations: pending, distanceMeters: path, durationSeconds: duration, reason: reason)
        pending.removeAll(keepingCapacity: true)
        path = 0
        return b
    }
}
