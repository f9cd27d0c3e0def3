#if !canImport(Darwin)
import Foundation
import LodestarKit

/// One element of `CLLocationUpdate.liveUpdates()` (iOS 17+ shape, with the iOS 18 diagnostic properties).
public struct CLLocationUpdate: Sendable {
    public let location: CLLocation?
    public let stationary: Bool
    @available(*, deprecated, renamed: "stationary")
    public var isStationary: Bool { stationary }
    public let locationUnavailable: Bool
    public let accuracyLimited: Bool
    public let authorizationDenied: Bool
    public let authorizationDeniedGlobally: Bool
    public let authorizationRestricted: Bool
    public let authorizationRequestInProgress: Bool
    public let insufficientlyInUse: Bool
    public let serviceSessionRequired: Bool

    init(location: CLLocation?, stationary: Bool = false, locationUnavailable: Bool = false, accuracyLimited: Bool = false,
         authorizationDenied: Bool = false, authorizationDeniedGlobally: Bool = false) {
        self.location = location; self.stationary = stationary; self.locationUnavailable = locationUnavailable
        self.accuracyLimited = accuracyLimited; self.authorizationDenied = authorizationDenied
        self.authorizationDeniedGlobally = authorizationDeniedGlobally
        authorizationRestricted = false; authorizationRequestInProgress = false; insufficientlyInUse = false
        serviceSessionRequired = false
    }

    /// The kind of motion the updates are for (all deliver every fix here: the pipeline's smoother does the rest).
    public enum LiveConfiguration: Sendable, Hashable {
        case `default`, automotiveNavigation, otherNavigation, fitness, airborne
    }

    /// The updates of one session over the process's location source (see `CLLocationManager`); the session stops
    /// when the iteration ends. With no source: one update with `authorizationDenied`, then the sequence ends.
    public static func liveUpdates(_ configuration: LiveConfiguration = .default) -> Updates {
        Updates(configuration: configuration)
    }

    public struct Updates: AsyncSequence, Sendable {
        public typealias Element = CLLocationUpdate
        let configuration: LiveConfiguration

        public func makeAsyncIterator() -> Iterator {
            let (stream, continuation) = AsyncThrowingStream<CLLocationUpdate, any Error>.makeStream(bufferingPolicy: .unbounded)
            guard let source = LocationServiceSource.source() else {
                continuation.yield(CLLocationUpdate(location: nil, authorizationDenied: true, authorizationDeniedGlobally: true))
                continuation.finish()
                return Iterator(base: stream.makeAsyncIterator())
            }
            let manager = LodestarKit.LocationManager(source: source)
            let updates = manager.liveUpdates(.init(desiredAccuracy: .bestForNavigation))
            let task = Task.detached {
                do {
                    for try await u in updates {
                        continuation.yield(CLLocationUpdate(location: u.location.map(CLLocation.init),
                                                            stationary: u.isStationary ?? false,
                                                            locationUnavailable: u.locationUnavailable || u.location == nil,
                                                            accuracyLimited: u.accuracyLimited))
                    }
                    continuation.finish()
                } catch LocationError.denied {
                    continuation.yield(CLLocationUpdate(location: nil, authorizationDenied: true))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: CLLocationManager.clError(error))
                }
            }
            continuation.onTermination = { _ in
                manager.stop()
                task.cancel()
            }
            manager.start()
            return Iterator(base: stream.makeAsyncIterator())
        }

        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<CLLocationUpdate, any Error>.AsyncIterator
            public mutating func next() async throws -> CLLocationUpdate? { try await base.next() }
        }
    }
}

/// Keeps location services going for a program in the background (CLBackgroundActivitySession). A Linux board
/// program is never suspended, so the session only records that it is valid.
open class CLBackgroundActivitySession: NSObject, @unchecked Sendable {
    private let lock = NSLock()
    private var valid = true

    public required override init() {}

    public class func session() -> Self { Self() }

    public struct Diagnostic: Sendable {
        public let authorizationDenied: Bool
        public let authorizationDeniedGlobally: Bool
        public let authorizationRestricted: Bool
        public let insufficientlyInUse: Bool
        public let serviceSessionRequired: Bool
    }

    /// iOS 18's form: `handler` is called with the session's diagnostic (once here: nothing changes on a board).
    public class func session(queue: DispatchQueue = .main, handler: @escaping @Sendable (Diagnostic) -> Void) -> Self {
        let denied = LocationServiceSource.source() == nil
        queue.async {
            handler(Diagnostic(authorizationDenied: denied, authorizationDeniedGlobally: denied, authorizationRestricted: false,
                               insufficientlyInUse: false, serviceSessionRequired: false))
        }
        return Self()
    }

    open func invalidate() { lock.lock(); valid = false; lock.unlock() }
}

/// Declares a program's interest in location (CLServiceSession, iOS 18). Authorization is decided by the board, so
/// a session only reports it through `diagnostics`.
open class CLServiceSession: NSObject, @unchecked Sendable {
    public enum AuthorizationRequirement: Int, Sendable {
        case none = 0
        case whenInUse = 1
        case always = 2
    }

    public struct Diagnostic: Sendable {
        public let authorizationDenied: Bool
        public let authorizationDeniedGlobally: Bool
        public let authorizationRestricted: Bool
        public let insufficientlyInUse: Bool
        public let alwaysAuthorizationDenied: Bool
        public let serviceSessionRequired: Bool
        public let fullAccuracyDenied: Bool
        public let authorizationRequestInProgress: Bool
    }

    public let authorization: AuthorizationRequirement
    private let lock = NSLock()
    private var valid = true

    public required init(authorization: AuthorizationRequirement) { self.authorization = authorization }

    public class func session(authorization: AuthorizationRequirement) -> Self { Self(authorization: authorization) }
    public class func session(authorization: AuthorizationRequirement, fullAccuracyPurposeKey: String) -> Self {
        Self(authorization: authorization)
    }

    /// One diagnostic with the current authorization, then the sequence ends (it cannot change on a board).
    open var diagnostics: AsyncStream<Diagnostic> {
        let denied = LocationServiceSource.source() == nil
        return AsyncStream { c in
            c.yield(Diagnostic(authorizationDenied: denied, authorizationDeniedGlobally: denied, authorizationRestricted: false,
                               insufficientlyInUse: false, alwaysAuthorizationDenied: denied, serviceSessionRequired: false,
                               fullAccuracyDenied: false, authorizationRequestInProgress: false))
            c.finish()
        }
    }

    open func invalidate() { lock.lock(); valid = false; lock.unlock() }
}
#endif
