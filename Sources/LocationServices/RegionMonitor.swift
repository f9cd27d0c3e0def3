import LocationCore

/// inside / outside / not yet determined (CLMonitor's satisfied / unsatisfied / unknown).
public enum RegionState: String, Sendable, Hashable, CaseIterable {
    case unknown, inside, outside
}

/// A circular region (CLCircularRegion / CLMonitor.CircularGeographicCondition).
public struct CircularRegion: Sendable, Hashable {
    public var identifier: String
    public var center: Coordinate
    public var radiusMeters: Double
    public var notifyOnEntry: Bool
    public var notifyOnExit: Bool
    /// The state assumed before the first decisive fix (CLMonitor's `assuming:`): with `.outside`, starting inside
    /// reports an entry; with `.inside`, starting inside reports nothing. Default `.unknown`.
    public var assumedState: RegionState

    public init(identifier: String, center: Coordinate, radiusMeters: Double, notifyOnEntry: Bool = true,
                notifyOnExit: Bool = true, assumedState: RegionState = .unknown) {
        self.identifier = identifier; self.center = center; self.radiusMeters = radiusMeters
        self.notifyOnEntry = notifyOnEntry; self.notifyOnExit = notifyOnExit; self.assumedState = assumedState
    }
}

/// A region's state changed.
public struct RegionEvent: Sendable, Hashable {
    public enum Kind: String, Sendable { case enter, exit }
    public var identifier: String
    public var kind: Kind
    /// The state before (`.unknown` when this is the first determination: the session started inside).
    public var previousState: RegionState
    /// Time of the fix that confirmed the change.
    public var time: Timestamp
    public var location: Location
    /// Distance from the fix to the region's centre.
    public var distanceMeters: Double
}

/// Region monitoring for thousands of circular regions at once.
///
/// **Hysteresis rule.** With d the distance from a fix to the centre, r the radius and a the fix's horizontal
/// accuracy, the margin is h = max(`minimumMarginMeters`, `accuracyFactor` × a) (factor 2 by default: about the
/// 95 % radius). A fix *observes inside* when d ≤ r − min(h, r/2) and
/// *observes outside* when d ≥ r + h; in between it observes nothing (the band around the boundary). The state
/// changes only after `confirmationFixes` (default 2) consecutive fixes observe the other state; a fix in the band
/// resets the count. So a receiver jittering at the boundary by less than its own accuracy never flaps. Fixes
/// without an accuracy, with accuracy worse than `maximumAccuracyMeters` (100 m), without a time, or not newer
/// than the last processed fix are ignored.
///
/// **Events.** inside → outside is an `exit`, outside → inside an `enter`, unknown → inside an `enter` with
/// `previousState == .unknown` (the session started inside). unknown → outside is recorded silently (a region the
/// track never reaches produces no event). `notifyOnEntry` / `notifyOnExit` = false suppress those events (the
/// state still changes).
///
/// **Index.** Regions are kept in a latitude/longitude grid, each registered in every cell its circle grown by
/// `accuracyFactor` × `maximumAccuracyMeters` touches; a fix checks only its cell's regions plus the few regions that are inside,
/// pending or undetermined. A region not in the fix's cell is farther than r + `accuracyFactor` × `maximumAccuracyMeters`,
/// so it observes outside at once.
///
/// **Persistence.** `encodeState()` / `restoreState(_:)` carry each region's state, pending confirmation and last
/// event time plus the last processed fix time, so a restarted monitor neither repeats nor misses an event.
public struct RegionMonitor: Sendable {
    public struct Settings: Sendable, Hashable {
        public var minimumMarginMeters = 5.0
        public var accuracyFactor = 2.0
        public var confirmationFixes = 2
        public var maximumAccuracyMeters = 100.0
        public init() {}
    }

    public let settings: Settings
    public private(set) var regions: [CircularRegion] = []
    private var indexByIdentifier: [String: Int] = [:]
    private var state: [RegionState] = []
    private var pendingState: [RegionState] = []   // .unknown = none pending
    private var pendingCount: [Int32] = []
    private var lastEventTime: [Timestamp?] = []
    private var stamp: [UInt32] = []
    private var generation: UInt32 = 0
    private var tracked: Set<Int32> = []
    private var grid = Grid()
    private var gridDirty = false
    private var undeterminedOutsideIndex = false
    /// Time of the last fix the monitor acted on (persisted).
    public private(set) var lastFixTime: Timestamp?

    public init(settings: Settings = Settings(), regions: [CircularRegion] = []) {
        self.settings = settings
        for r in regions { add(r) }
    }

    public var count: Int { regions.count }

    /// Adds a region (replacing one with the same identifier, whose state is kept when its geometry is unchanged).
    public mutating func add(_ region: CircularRegion) {
        if let i = indexByIdentifier[region.identifier] {
            let same = regions[i].center == region.center && regions[i].radiusMeters == region.radiusMeters
            regions[i] = region
            if !same { setState(i, region.assumedState) }
        } else {
            indexByIdentifier[region.identifier] = regions.count
            regions.append(region)
            state.append(.unknown); pendingState.append(.unknown); pendingCount.append(0)
            lastEventTime.append(nil); stamp.append(0)
            setState(regions.count - 1, region.assumedState)
        }
        gridDirty = true
    }

    public mutating func remove(identifier: String) {
        guard let i = indexByIdentifier.removeValue(forKey: identifier) else { return }
        let last = regions.count - 1
        if i != last {
            regions.swapAt(i, last); state.swapAt(i, last); pendingState.swapAt(i, last)
            pendingCount.swapAt(i, last); lastEventTime.swapAt(i, last)
            indexByIdentifier[regions[i].identifier] = i
        }
        regions.removeLast(); state.removeLast(); pendingState.removeLast(); pendingCount.removeLast()
        lastEventTime.removeLast(); stamp.removeLast()
        tracked = Set((0..<regions.count).filter { state[$0] != .outside || pendingState[$0] != .unknown }.map { Int32($0) })
        gridDirty = true
    }

    public func state(of identifier: String) -> RegionState? { indexByIdentifier[identifier].map { state[$0] } }
    public func lastEventTime(of identifier: String) -> Timestamp? { indexByIdentifier[identifier].flatMap { lastEventTime[$0] } }

    private mutating func setState(_ i: Int, _ s: RegionState) {
        state[i] = s
        pendingState[i] = .unknown
        pendingCount[i] = 0
        if s == .unknown { undeterminedOutsideIndex = true }
        if s == .outside { tracked.remove(Int32(i)) } else { tracked.insert(Int32(i)) }
    }

    /// The receiver's clock jumped (the pipeline re-anchored on a new time base): fixes older than the last one
    /// are no longer repeats of it, so monitoring goes on from the next fix.
    public mutating func timeBaseChanged() { lastFixTime = nil }

    /// Processes one fix; appends the region events it causes to `events` (in region order of evaluation).
    public mutating func process(_ fix: Location, into events: inout [RegionEvent]) {
        guard let t = fix.time, let c = fix.coordinate, let a = fix.horizontalAccuracyMeters, a.isFinite, a >= 0,
              a <= settings.maximumAccuracyMeters else { return }
        if let last = lastFixTime, t <= last { return }
        lastFixTime = t
        guard !regions.isEmpty else { return }
        if gridDirty { rebuildGrid() }
        generation &+= 1
        if generation == 0 { for k in stamp.indices { stamp[k] = 0 }; generation = 1 }
        let h = Swift.max(settings.minimumMarginMeters, settings.accuracyFactor * a)
        let g = generation
        let grid = self.grid
        grid.forEachCandidate(c) { i in
            if stamp[i] != g { stamp[i] = g; evaluate(i, c, h, fix, t, &events) }
        }
        if !tracked.isEmpty {
            for i32 in Array(tracked) where stamp[Int(i32)] != g {
                let i = Int(i32)
                stamp[i] = g
                evaluate(i, c, h, fix, t, &events)
            }
        }
        if undeterminedOutsideIndex {
            // Undetermined regions away from this fix are outside beyond doubt (see the type's documentation).
            undeterminedOutsideIndex = false
            for i in state.indices where state[i] == .unknown && stamp[i] != g { setState(i, .outside) }
        }
    }

    @inline(__always)
    private mutating func evaluate(_ i: Int, _ c: Coordinate, _ h: Double, _ fix: Location, _ t: Timestamp,
                                   _ events: inout [RegionEvent]) {
        let r = regions[i]
        let d = Geo.distanceMeters(r.center, c)
        let observed: RegionState
        if d <= r.radiusMeters - Swift.min(h, r.radiusMeters / 2) { observed = .inside }
        else if d >= r.radiusMeters + h { observed = .outside }
        else {
            if pendingState[i] != .unknown { pendingState[i] = .unknown; pendingCount[i] = 0 }
            return
        }
        let current = state[i]
        if observed == current {
            if pendingState[i] != .unknown { pendingState[i] = .unknown; pendingCount[i] = 0 }
            return
        }
        if pendingState[i] == observed { pendingCount[i] += 1 } else { pendingState[i] = observed; pendingCount[i] = 1 }
        tracked.insert(Int32(i))
        guard Int(pendingCount[i]) >= settings.confirmationFixes else { return }
        setState(i, observed)
        if current == .unknown && observed == .outside { return }
        let kind: RegionEvent.Kind = observed == .inside ? .enter : .exit
        guard kind == .enter ? r.notifyOnEntry : r.notifyOnExit else { return }
        lastEventTime[i] = t
        events.append(RegionEvent(identifier: r.identifier, kind: kind, previousState: current, time: t,
                                  location: fix, distanceMeters: d))
    }

    private mutating func rebuildGrid() {
        grid = Grid(regions: regions, growMeters: Swift.max(settings.accuracyFactor * settings.maximumAccuracyMeters, settings.minimumMarginMeters))
        gridDirty = false
    }

    // MARK: Persistence

    /// The per-region state, pending confirmations, last event times and last processed fix time as JSON.
    public func encodeState() -> [UInt8] {
        var s = "{\"version\":1"
        if let t = lastFixTime { s += ",\"lastFixTimeNanos\":\(t.nanosecondsSince1970)" }
        s += ",\"regions\":["
        for i in regions.indices {
            if i > 0 { s += "," }
            s += "\n{\"identifier\":" + JSONText.quoted(regions[i].identifier) + ",\"state\":\"\(state[i].rawValue)\""
            if pendingState[i] != .unknown {
                s += ",\"pendingState\":\"\(pendingState[i].rawValue)\",\"pendingCount\":\(pendingCount[i])"
            }
            if let e = lastEventTime[i] { s += ",\"lastEventTimeNanos\":\(e.nanosecondsSince1970)" }
            s += "}"
        }
        s += "\n]}\n"
        return Array(s.utf8)
    }

    public struct StateError: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Restores what `encodeState()` wrote. Regions in the file that are not monitored now are ignored; monitored
    /// regions missing from the file keep their assumed state.
    public mutating func restoreState(_ bytes: [UInt8]) throws(StateError) {
        let root: JSONValue
        do { root = try JSONValue.parse(bytes) } catch { throw StateError(message: "region state: \(error.description)") }
        guard root["version"]?.number == 1 else { throw StateError(message: "region state: missing or unsupported version") }
        guard let list = root["regions"]?.array else { throw StateError(message: "region state: no regions array") }
        if let n = root["lastFixTimeNanos"]?.number { lastFixTime = Timestamp(nanosecondsSince1970: Int64(n)) }
        for (k, entry) in list.enumerated() {
            guard let id = entry["identifier"]?.string, let st = entry["state"]?.string.flatMap(RegionState.init(rawValue:))
            else { throw StateError(message: "region state: entry \(k) needs identifier and state") }
            guard let i = indexByIdentifier[id] else { continue }
            setState(i, st)
            if let p = entry["pendingState"]?.string.flatMap(RegionState.init(rawValue:)), p != .unknown,
               let n = entry["pendingCount"]?.number, n >= 1, n < 1e6 {
                pendingState[i] = p
                pendingCount[i] = Int32(n)
                tracked.insert(Int32(i))
            }
            if let e = entry["lastEventTimeNanos"]?.number { lastEventTime[i] = Timestamp(nanosecondsSince1970: Int64(e)) }
        }
    }
}

/// The spatial index: a uniform latitude/longitude grid keyed by cell number.
struct Grid: Sendable {
    var cellDegrees = 1.0
    var lonCells = 360
    var cells: [Int64: [Int32]] = [:]
    /// Regions too large (or too near a pole) for the grid: checked for every fix.
    var always: [Int32] = []

    init() {}

    init(regions: [CircularRegion], growMeters: Double) {
        guard !regions.isEmpty else { return }
        // Cell size: twice the median grown radius, between 100 m and 100 km.
        var extents = regions.map { $0.radiusMeters + growMeters }
        extents.sort()
        let median = extents[extents.count / 2]
        let cellMeters = Swift.min(100_000, Swift.max(100, 2 * median))
        cellDegrees = cellMeters / Geo.metersPerDegreeLatitude
        lonCells = Swift.max(1, Int((360 / cellDegrees).rounded(.up)))
        for (i, r) in regions.enumerated() {
            let grow = r.radiusMeters + growMeters
            let dLat = grow / Geo.metersPerDegreeLatitude
            let lat = r.center.latitudeDegrees
            let maxAbsLat = abs(lat) + dLat
            guard maxAbsLat < 89, r.center.isValid, grow.isFinite else { always.append(Int32(i)); continue }
            let dLon = dLat / Geo.cosine(maxAbsLat * Double.pi / 180)
            let lat0 = Int(((lat - dLat + 90) / cellDegrees).rounded(.down))
            let lat1 = Int(((lat + dLat + 90) / cellDegrees).rounded(.down))
            let lonStart = Int(((Self.wrap(r.center.longitudeDegrees) - dLon + 180) / cellDegrees).rounded(.down))
            let lonEnd = Int(((Self.wrap(r.center.longitudeDegrees) + dLon + 180) / cellDegrees).rounded(.down))
            let cellCount = (lat1 - lat0 + 1) * (lonEnd - lonStart + 1)
            guard cellCount <= 1024, lonEnd - lonStart + 1 < lonCells else { always.append(Int32(i)); continue }
            for la in lat0...lat1 {
                for lo in lonStart...lonEnd {
                    cells[Self.key(la, lo, lonCells), default: []].append(Int32(i))
                }
            }
        }
    }

    @inline(__always)
    static func wrap(_ lon: Double) -> Double {
        var l = lon.truncatingRemainder(dividingBy: 360)
        if l >= 180 { l -= 360 } else if l < -180 { l += 360 }
        return l
    }

    @inline(__always)
    static func key(_ la: Int, _ lo: Int, _ lonCells: Int) -> Int64 {
        var m = lo % lonCells
        if m < 0 { m += lonCells }
        return Int64(la) * Int64(lonCells) + Int64(m)
    }

    @inline(__always)
    func forEachCandidate(_ c: Coordinate, _ body: (Int) -> Void) {
        let la = Int(((c.latitudeDegrees + 90) / cellDegrees).rounded(.down))
        let lo = Int(((Self.wrap(c.longitudeDegrees) + 180) / cellDegrees).rounded(.down))
        if let list = cells[Self.key(la, lo, lonCells)] { for i in list { body(Int(i)) } }
        for i in always { body(Int(i)) }
    }
}
