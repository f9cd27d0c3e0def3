#if !canImport(Darwin)
import Foundation
import LocationCore
import LocationServices
import LodestarKit

/// A condition CLMonitor can watch (geographic circles here; beacon conditions are reported unsupported).
public protocol CLCondition: Sendable {}

/// A circle to watch (CLMonitor.CircularGeographicCondition).
public final class CLCircularGeographicCondition: NSObject, CLCondition, @unchecked Sendable {
    public let center: CLLocationCoordinate2D
    public let radius: CLLocationDistance
    public init(center: CLLocationCoordinate2D, radius: CLLocationDistance) { self.center = center; self.radius = radius }
}

extension CLBeaconIdentityConstraint: CLCondition {}
public typealias CLBeaconIdentityCondition = CLBeaconIdentityConstraint

/// Core Location's condition monitor (iOS 17): `await CLMonitor("name")`, `add(_:identifier:assuming:)`,
/// `for try await event in await monitor.events`. Its own session over the process's location source starts with
/// the first condition; states follow the hysteresis of LodestarKit's region monitor (docs/services.md): an event
/// when a circle becomes satisfied or unsatisfied, except the first determination "outside" from `.unknown`,
/// which is recorded without an event.
public actor CLMonitor {
    public typealias Condition = CLCondition
    public typealias CircularGeographicCondition = CLCircularGeographicCondition
    public typealias BeaconIdentityCondition = CLBeaconIdentityCondition

    public struct Event: Sendable {
        public enum State: UInt, Sendable {
            case unknown = 0
            case satisfied = 1
            case unsatisfied = 2
            case unmonitored = 3
        }
        public let identifier: String
        public let state: State
        public let date: Date
        public let refinement: (any CLCondition)?
        public let conditionLimitExceeded: Bool
        public let conditionUnsupported: Bool
        public let accuracyLimited: Bool
        public let authorizationDenied: Bool
        public let authorizationDeniedGlobally: Bool
        public let authorizationRestricted: Bool
        public let insufficientlyInUse: Bool
        public let persistenceUnavailable: Bool
        public let serviceSessionRequired: Bool
        public let authorizationRequestInProgress: Bool

        init(identifier: String, state: State, date: Date, conditionUnsupported: Bool = false, authorizationDenied: Bool = false,
             persistenceUnavailable: Bool = true) {
            self.identifier = identifier; self.state = state; self.date = date; refinement = nil
            conditionLimitExceeded = false; self.conditionUnsupported = conditionUnsupported; accuracyLimited = false
            self.authorizationDenied = authorizationDenied; authorizationDeniedGlobally = authorizationDenied
            authorizationRestricted = false; insufficientlyInUse = false; self.persistenceUnavailable = persistenceUnavailable
            serviceSessionRequired = false; authorizationRequestInProgress = false
        }
    }

    public struct Record: Sendable {
        public let condition: any CLCondition
        public let lastEvent: Event
    }

    public struct Events: AsyncSequence, Sendable {
        public typealias Element = Event
        let stream: AsyncStream<Event>
        public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator()) }
        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<Event>.AsyncIterator
            public mutating func next() async throws -> Event? { await base.next() }
        }
    }

    public nonisolated let name: String
    private let feed: LodestarKit.LocationManager?
    private let monitor: LodestarKit.LocationManager.Monitor?
    private let continuation: AsyncStream<Event>.Continuation
    private let stream: AsyncStream<Event>
    private var records: [String: Record] = [:]
    private var order: [String] = []
    private var started = false
    /// Where this monitor's conditions persist across launches (nil: they do not, and events say so).
    private let store: CLPersistentStore?

    /// A monitor by name: the conditions a monitor of that name held when the program last ran come back, with
    /// their last state (Apple keeps them across launches the same way), and are watched again.
    public init(_ name: String) async {
        self.name = name
        (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .unbounded)
        if let source = LocationServiceSource.source() {
            let feed = LodestarKit.LocationManager(source: source)
            self.feed = feed
            monitor = feed.monitor()
        } else {
            feed = nil
            monitor = nil
        }
        store = CLPersistentStore.current()
        if let store {
            for c in store.load(store.monitorFile(name)) {
                let condition = CLCircularGeographicCondition(center: CLLocationCoordinate2D(latitude: c.latitude, longitude: c.longitude),
                                                              radius: c.radius)
                add(condition, identifier: c.identifier, assuming: c.state.flatMap(Event.State.init(rawValue:)) ?? .unknown)
            }
        }
    }

    /// Writes every circular condition with its last state (the whole set, replaced at once).
    private func persist() {
        guard let store else { return }
        let circles = order.compactMap { id -> CLPersistentStore.Circle? in
            guard let r = records[id], let c = r.condition as? CLCircularGeographicCondition else { return nil }
            return .init(identifier: id, latitude: c.center.latitude, longitude: c.center.longitude, radius: c.radius,
                         state: r.lastEvent.state.rawValue)
        }
        store.save(circles, to: store.monitorFile(name))
    }

    deinit {
        feed?.stop()
        continuation.finish()
    }

    public var events: Events { Events(stream: stream) }
    public var identifiers: [String] { order }

    public func record(for identifier: String) -> Record? { records[identifier] }

    public func add(_ condition: some CLCondition, identifier: String, assuming state: Event.State = .unknown) {
        remove(identifier)
        let initial = Event(identifier: identifier, state: state, date: Date(), persistenceUnavailable: store == nil)
        records[identifier] = Record(condition: condition, lastEvent: initial)
        order.append(identifier)
        defer { persist() }
        guard let circle = condition as? CLCircularGeographicCondition else {
            let e = Event(identifier: identifier, state: .unmonitored, date: Date(), conditionUnsupported: true)
            records[identifier] = Record(condition: condition, lastEvent: e)
            continuation.yield(e)
            return
        }
        guard let monitor, let feed else {
            let e = Event(identifier: identifier, state: .unmonitored, date: Date(), authorizationDenied: true)
            records[identifier] = Record(condition: condition, lastEvent: e)
            continuation.yield(e)
            return
        }
        let assumed: RegionState = switch state {
        case .satisfied: .inside
        case .unsatisfied: .outside
        default: .unknown
        }
        monitor.add(LocationServices.CircularRegion(identifier: identifier,
                                                    center: Coordinate(latitudeDegrees: circle.center.latitude,
                                                                       longitudeDegrees: circle.center.longitude),
                                                    radiusMeters: circle.radius, assumedState: assumed))
        if !started {
            started = true
            let events = monitor.events
            Task { [weak self] in
                for await e in events { await self?.deliver(e) }
            }
            feed.start()
        }
    }

    public func remove(_ identifier: String) {
        guard records.removeValue(forKey: identifier) != nil else { return }
        order.removeAll { $0 == identifier }
        monitor?.remove(identifier: identifier)
        persist()
    }

    private func deliver(_ e: RegionEvent) {
        guard let r = records[e.identifier] else { return }
        let event = Event(identifier: e.identifier, state: e.kind == .enter ? .satisfied : .unsatisfied,
                          date: CLLocationManager.date(e.time), persistenceUnavailable: store == nil)
        records[e.identifier] = Record(condition: r.condition, lastEvent: event)
        persist()
        continuation.yield(event)
    }
}
#endif
