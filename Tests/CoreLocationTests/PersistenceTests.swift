#if !canImport(Darwin)  // behaviour of this package's CoreLocation (CLPersistentStore)
import Foundation
import Testing
@testable import CoreLocation

/// Monitored regions and named CLMonitors persist across launches, as Apple's do: a program started again finds
/// its regions still monitored and its monitor's conditions with their last state. Each test has its own store
/// (a "launch" is a new manager or monitor over the same store); the drive replays through LODESTAR_REPLAY.
@Suite struct PersistenceTests {
    init() { ReplayEnvironment.configure() }

    final class Recorder: NSObject, CLLocationManagerDelegate {
        var log: [String] = []
        func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) { log.append("enter \(region.identifier)") }
        func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) { log.append("exit \(region.identifier)") }
        func locationManager(_ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion) {
            log.append("state \(state.rawValue) \(region.identifier)")
        }
    }

    static func storeDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("lodestar-cl-\(UUID().uuidString)")
    }

    @MainActor @Test func monitoredRegionsComeBackInTheNextLaunchAndAreWatched() async throws {
        let dir = Self.storeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stop = ReplayEnvironment.stop
        await CLPersistentStore.$directoryOverride.withValue(dir) {
            // First launch: monitor the stop, entries not wanted; then the program ends (the manager goes away).
            do {
                let first = CLLocationManager()
                let region = CLCircularRegion(center: CLLocationCoordinate2D(latitude: stop.latitude, longitude: stop.longitude),
                                              radius: stop.radius, identifier: stop.name)
                region.notifyOnEntry = false
                first.startMonitoring(for: region)
                #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("regions.json").path))
            }
            // Second launch: the region is there, with its settings, and watched without asking again.
            let recorder = Recorder()
            let second = CLLocationManager()
            second.delegate = recorder
            let restored = second.monitoredRegions.first as? CLCircularRegion
            #expect(second.monitoredRegions.count == 1)
            #expect(restored?.identifier == stop.name && restored?.radius == stop.radius)
            #expect(abs((restored?.center.latitude ?? 0) - stop.latitude) < 1e-12 && restored?.notifyOnEntry == false && restored?.notifyOnExit == true)
            #expect(await waitUntil(90) { recorder.log.contains("exit stop") }, "\(recorder.log)")
            // notifyOnEntry = false (restored): the entry is not told, the exit is.
            #expect(recorder.log == ["state \(CLRegionState.outside.rawValue) stop", "exit stop"], "\(recorder.log)")
            // Stopping removes it for the launches after.
            second.stopMonitoring(for: restored!)
            #expect(CLLocationManager().monitoredRegions.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("regions.json").path))
        }
    }

    @MainActor @Test func theStoreIsReadAtEveryLaunchAndADamagedFileIsNotACrash() async throws {
        let dir = Self.storeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        CLPersistentStore.$directoryOverride.withValue(dir) {
            // Without a source nothing can be monitored (denied), so write the store as a program that could did.
            let store = CLPersistentStore(directory: dir)
            #expect(store.save([.init(identifier: "a", latitude: 1, longitude: 2, radius: 50),
                                .init(identifier: "b", latitude: 3, longitude: 4, radius: 60)], to: store.regionsFile))
            #expect(Set(CLLocationManager(source: nil).monitoredRegions.map(\.identifier)) == ["a", "b"])
            try? Data("{not json".utf8).write(to: store.regionsFile)
            #expect(CLLocationManager(source: nil).monitoredRegions.isEmpty)
        }
    }

    @Test func aNamedMonitorKeepsItsConditionsAndTheirLastState() async throws {
        let dir = Self.storeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stop = ReplayEnvironment.stop
        let center = CLLocationCoordinate2D(latitude: stop.latitude, longitude: stop.longitude)
        try await CLPersistentStore.$directoryOverride.withValue(dir) {
            // First launch: watch the stop until the car is in it.
            do {
                let monitor = await CLMonitor("trips")
                await monitor.add(CLMonitor.CircularGeographicCondition(center: center, radius: stop.radius), identifier: stop.name)
                for try await event in await monitor.events where event.identifier == stop.name && event.state == .satisfied {
                    #expect(!event.persistenceUnavailable)
                    break
                }
            }
            // Second launch: the condition and its last state are back. The first launch's replay may have carried
            // the car out of the stop before that monitor went away, so the last state is satisfied (in the stop) or
            // unsatisfied (left it); either way it is the assumption the new launch starts from, and the replay,
            // which starts outside the stop, gives the first event that follows from it.
            let monitor = await CLMonitor("trips")
            #expect(await monitor.identifiers == [stop.name])
            let record = await monitor.record(for: stop.name)
            let restored = record?.lastEvent.state
            #expect(restored == .satisfied || restored == .unsatisfied, "\(String(describing: restored))")
            #expect((record?.condition as? CLMonitor.CircularGeographicCondition)?.radius == stop.radius)
            for try await event in await monitor.events {
                #expect(event.identifier == stop.name)
                if event.date == record?.lastEvent.date {
                    // The new launch's replay delivered its first event before the record was read (the monitor
                    // starts its feed as it loads its conditions): the record already is that event, and the state
                    // it was restored with is gone. Seen once in a full parallel run.
                    #expect(event.state == .satisfied || event.state == .unsatisfied)
                } else {
                    #expect(event.state == (restored == .satisfied ? .unsatisfied : .satisfied))
                }
                break
            }
            await monitor.remove(stop.name)
            #expect(await CLMonitor("trips").identifiers.isEmpty)
        }
    }

    @Test func theStoreFollowsXDGAndTheProgramName() {
        let xdg = CLPersistentStore.resolve(["XDG_STATE_HOME": "/var/tmp/state", "HOME": "/home/pi", "LODESTAR_APP_ID": "my app/1"])
        #expect(xdg?.directory.path == "/var/tmp/state/lodestar/corelocation/my_app_1")
        #expect(CLPersistentStore.resolve(["HOME": "/home/pi", "LODESTAR_APP_ID": "tracker"])?.directory.path
                == "/home/pi/.local/state/lodestar/corelocation/tracker")
        #expect(CLPersistentStore.resolve(["HOME": "/nonexistent"]) == nil)
        #expect(CLPersistentStore.resolve([:]) == nil)
        #expect(CLPersistentStore.safeName("..") == "_..")
    }
}
#endif
