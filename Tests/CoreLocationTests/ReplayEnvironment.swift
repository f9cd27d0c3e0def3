#if !canImport(Darwin)  // behaviour of this package's CoreLocation (LODESTAR_REPLAY, internals)
import Foundation
@testable import CoreLocation

/// Every manager in the test process replays the shipped drive, 50 × faster than recorded (the drive lasts 300 s).
enum ReplayEnvironment {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let capture = root.appendingPathComponent("captures/simulated-drive.lcap").path

    private static let configured: Void = {
        setenv("LODESTAR_REPLAY", capture, 1)
        setenv("LODESTAR_REPLAY_SPEED", "50", 1)
        // Regions persist across launches (CLPersistentStore); here only PersistenceTests use a store, its own.
        CLPersistentStore.enabled = false
    }()

    static func configure() { _ = configured }

    /// Regions on the drive (captures/simulated-drive-regions.json).
    static let start = (name: "start", latitude: 37.386096, longitude: -122.083878, radius: 150.0)
    static let stop = (name: "stop", latitude: 37.385750, longitude: -122.076830, radius: 100.0)
    static let elsewhere = (name: "elsewhere", latitude: 37.4220, longitude: -122.0841, radius: 200.0)
}

/// Waits on the main actor (so main-queue callbacks run) until `condition` holds or `seconds` pass.
///
/// At the deadline the main queue is drained once before giving up: when another test held the main actor (CI,
/// 2 cores), this wait's wake-up was queued ahead of the deliveries that arrived meanwhile, and a run that had
/// received everything reported nothing (ServiceBehaviourTests, stop 56).
@MainActor
func waitUntil(_ seconds: Double = 60, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline {
            await drainMainQueue()
            return condition()
        }
        try? await Task.sleep(nanoseconds: 20_000_000)
    }
    return true
}

/// Returns once every block queued on the main queue before the call has run.
@MainActor
func drainMainQueue() async {
    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in DispatchQueue.main.async { c.resume() } }
}

/// Runs a child process to its end without holding the main actor (other tests' main-queue deliveries go on).
func runToEnd(_ process: Process) async throws {
    try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
        process.terminationHandler = { _ in c.resume() }
        do { try process.run() } catch { process.terminationHandler = nil; c.resume(throwing: error) }
    }
}

/// Whether code runs on the main queue (the main run loop's queue; the main actor's executor here).
enum MainQueue {
    static let key = DispatchSpecificKey<Bool>()
    private static let marked: Void = { DispatchQueue.main.setSpecific(key: key, value: true) }()
    static var isCurrent: Bool {
        _ = marked
        return DispatchQueue.getSpecific(key: key) == true
    }
}
#endif
