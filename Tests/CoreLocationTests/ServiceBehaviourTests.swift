#if !canImport(Darwin)  // behaviour of this package's CoreLocation through the board's service
import Foundation
import Testing
@testable import CoreLocation

/// The same delegate semantics as DelegateBehaviourTests, with the locations coming from the board's location
/// service instead of an in-process replay: `lodestar replay --service SOCKET` (the real binary) replays the
/// shipped drive at 50 × into the socket, and the manager is a client of it, as a program is of `lodestar run
/// --service` on a board.
@Suite(.serialized) struct ServiceBehaviourTests {
    /// The `lodestar` binary built beside this test bundle.
    static var lodestar: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        if dir.pathExtension == "xctest" { dir = dir.deletingLastPathComponent() }
        return dir.appendingPathComponent("lodestar").path
    }

    /// A service replaying the drive for one client; stopped (SIGTERM) when the test ends.
    final class Service {
        let socket: String
        let process = Process()
        /// Starts the service and waits (without holding the main actor) up to 60 s for its socket.
        static func start(capture: String = ReplayEnvironment.capture, options: [String] = []) async throws -> Service {
            let service = try Service(capture: capture, options: options)
            // Up to 60 s for the socket (20 s before). Under two CI builds and a qemu boot one run's client received
            // nothing at all, as one that connects before the socket exists would: it fails at once, without retrying.
            let deadline = Date().addingTimeInterval(60)
            while !FileManager.default.fileExists(atPath: service.socket), service.process.isRunning, Date() < deadline {
                try? await Task.sleep(nanoseconds: 20_000_000)
            }
            return service
        }
        private init(capture: String, options: [String]) throws {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lodestar-cl-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            socket = dir.appendingPathComponent("service.sock").path
            process.executableURL = URL(fileURLWithPath: ServiceBehaviourTests.lodestar)
            process.arguments = ["replay", "--quiet", "--service", socket, "--wait-clients", "1", "--speed", "50",
                                 "--linger", "5"] + options + [capture]
            process.standardOutput = FileHandle.nullDevice
            // Not the test runner's stderr: a service left behind by a crashed runner (it waits for its client)
            // would hold that pipe open, and `swift test` waited on it until CI's limit (stop 56).
            let log = dir.appendingPathComponent("service.log").path
            FileManager.default.createFile(atPath: log, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: log)
            try process.run()
        }
        /// SIGTERM, then SIGKILL after 5 s: a child of the test runner may inherit a blocked SIGTERM, and a replay
        /// still waiting for its client would then never end.
        func stop() {
            if process.isRunning { process.terminate() }
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    final class Recorder: NSObject, CLLocationManagerDelegate {
        var events: [String] = []
        var locations: [CLLocation] = []
        var headings: [CLHeading] = []
        var regions: [String] = []
        var offMain = 0
        func note(_ s: String) { if !MainQueue.isCurrent { offMain += 1 }; events.append(s) }
        func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) { note("authorization \(manager.authorizationStatus.rawValue)") }
        func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
            note("location"); self.locations += locations
        }
        func locationManager(_ manager: CLLocationManager, didUpdateHeading newHeading: CLHeading) { headings.append(newHeading) }
        func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) { regions.append("enter \(region.identifier)") }
        func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) { regions.append("exit \(region.identifier)") }
    }

    @MainActor @Test func authorizationFirstThenLocationsAndRegionsFromTheService() async throws {
        let service = try await Service.start()
        defer { service.stop() }
        #expect(FileManager.default.fileExists(atPath: service.socket), "the service did not start")
        let recorder = Recorder()
        let manager = CLLocationManager(source: .service(path: service.socket))
        manager.delegate = recorder
        for r in [ReplayEnvironment.start, ReplayEnvironment.stop] {
            let region = CLCircularRegion(center: CLLocationCoordinate2D(latitude: r.latitude, longitude: r.longitude),
                                          radius: r.radius, identifier: r.name)
            manager.startMonitoring(for: region)
        }
        manager.startUpdatingLocation()
        #expect(await waitUntil(90) { recorder.regions.contains("exit stop") })
        manager.stopUpdatingLocation()
        for r in manager.monitoredRegions { manager.stopMonitoring(for: r) }
        #expect(recorder.events.first == "authorization \(CLAuthorizationStatus.authorizedAlways.rawValue)")
        #expect(recorder.events.dropFirst().allSatisfy { $0 == "location" || $0.hasPrefix("authorization") })
        #expect(recorder.offMain == 0, "callbacks on the main run loop")
        #expect(recorder.locations.count >= 20)
        if let first = recorder.locations.first?.coordinate {
            #expect(abs(first.latitude - 37.3861) < 0.001 && abs(first.longitude - -122.0839) < 0.001)
        }
        #expect(zip(recorder.locations, recorder.locations.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        // The same region events as the in-process replay and the CLI (docs/services.md).
        #expect(recorder.regions == ["enter start", "exit start", "enter stop", "exit stop"], "\(recorder.regions)")
    }

    @MainActor @Test func headingFromTheServiceHonoursHeadingFilter() async throws {
        let service = try await Service.start()
        defer { service.stop() }
        let recorder = Recorder()
        let manager = CLLocationManager(source: .service(path: service.socket))
        manager.delegate = recorder
        manager.headingFilter = 20
        manager.startUpdatingHeading()
        func validPairs() -> Int {
            let h = recorder.headings
            return h.count < 2 ? 0 : (1..<h.count).filter { h[$0].headingAccuracy >= 0 && h[$0 - 1].headingAccuracy >= 0 }.count
        }
        #expect(await waitUntil(60) { validPairs() >= 3 })
        manager.stopUpdatingHeading()
        // Between valid headings (a delivery right after an invalid one comes whatever its change), the direction
        // moves by at least headingFilter, as Apple documents.
        let h = recorder.headings
        guard h.count >= 2 else { return }  // recorded above; 1..<h.count would trap
        var checked = 0
        for i in 1..<h.count where h[i].headingAccuracy >= 0 && h[i - 1].headingAccuracy >= 0 {
            func deg(_ x: CLHeading) -> Double { x.trueHeading >= 0 ? x.trueHeading : x.magneticHeading }
            let d = abs((deg(h[i]) - deg(h[i - 1]) + 540).truncatingRemainder(dividingBy: 360) - 180)
            #expect(d >= 20 - 1e-9, "\(deg(h[i - 1])) → \(deg(h[i]))")
            checked += 1
        }
        #expect(checked >= 3)
        // x, y, z: the magnetometer's raw reading (µT). The drive's field at Mountain View is about 48 µT (WMM),
        // with the simulated device's hard iron on top: a magnitude between 20 and 100 µT, never all zero.
        for heading in h where heading.headingAccuracy >= 0 {
            let magnitude = (heading.x * heading.x + heading.y * heading.y + heading.z * heading.z).squareRoot()
            #expect(magnitude > 20 && magnitude < 100, "\(heading.x), \(heading.y), \(heading.z)")
        }
    }
    /// iOS 17's `CLLocationUpdate.liveUpdates()` over the service: the drive's locations, in order, from its start.
    @Test func liveUpdatesFromTheService() async throws {
        let service = try await Service.start()
        defer { service.stop() }
        var locations: [CLLocation] = []
        try await LocationServiceSource.$override.withValue(.service(path: service.socket)) {
            for try await update in CLLocationUpdate.liveUpdates() {
                #expect(!update.authorizationDenied)
                if let l = update.location { locations.append(l) }
                if locations.count == 30 { break }
            }
        }
        #expect(locations.count == 30)
        if let first = locations.first?.coordinate {
            #expect(abs(first.latitude - 37.3861) < 0.001 && abs(first.longitude - -122.0839) < 0.001)
        }
        #expect(zip(locations, locations.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
    }

    /// `CLMonitor` over the service: the same entries and exits as the in-process replay and the CLI.
    @Test func monitorFromTheService() async throws {
        let service = try await Service.start()
        defer { service.stop() }
        let places = [ReplayEnvironment.start, ReplayEnvironment.stop, ReplayEnvironment.elsewhere].map {
            ($0.name, CLLocationCoordinate2D(latitude: $0.latitude, longitude: $0.longitude), $0.radius)
        }
        // At most 90 s (the drive takes 6 s at 50×): a missed event fails the test instead of waiting for ever.
        let log = try await LocationServiceSource.$override.withValue(.service(path: service.socket)) {
            try await withThrowingTaskGroup(of: [String]?.self) { group in
                group.addTask { try await watchWithMonitor(places) { $0.contains("exit stop") } }
                group.addTask { try await Task.sleep(nanoseconds: 90_000_000_000); return nil }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
        }
        #expect(log == ["enter start", "exit start", "enter stop", "exit stop"], "\(log.map { "\($0)" } ?? "timed out after 90 s")")
    }

    /// Visits over the service: an arrival at the drive's 60 s stop, then the same visit with its departure.
    @MainActor @Test func visitsFromTheService() async throws {
        final class VisitLog: NSObject, CLLocationManagerDelegate {
            var visits: [CLVisit] = []
            func locationManager(_ manager: CLLocationManager, didVisit visit: CLVisit) { visits.append(visit) }
        }
        let service = try await Service.start()
        defer { service.stop() }
        CLLocationManager.visitSettings.minimumDwellSeconds = 45   // the drive stops for 60 s (default dwell 120 s)
        let log = VisitLog()
        let manager = LocationServiceSource.$override.withValue(.service(path: service.socket)) { CLLocationManager() }
        manager.delegate = log
        manager.startMonitoringVisits()
        #expect(await waitUntil(90) { log.visits.count >= 2 })
        manager.stopMonitoringVisits()
        try #require(log.visits.count >= 2)
        #expect(log.visits[0].departureDate == .distantFuture && log.visits[1].departureDate != .distantFuture)
        #expect(log.visits[1].arrivalDate < log.visits[1].departureDate)
        let stop = CLLocation(latitude: ReplayEnvironment.stop.latitude, longitude: ReplayEnvironment.stop.longitude)
        #expect(CLLocation(latitude: log.visits[0].coordinate.latitude, longitude: log.visits[0].coordinate.longitude).distance(from: stop) < 100)
    }
}
#endif
