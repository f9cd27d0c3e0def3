#if !canImport(Darwin)
import Foundation
import LodestarKit

/// Where every manager in the process gets its data, from the environment (read each time a manager is made, so a
/// test can `setenv` first):
///
/// - `LODESTAR_REPLAY=FILE`: replay that capture at its recorded pace (`LODESTAR_REPLAY_SPEED=N`: N × faster).
/// - `LODESTAR_SERVICE=PATH`: the board's location service socket (default `/run/lodestar/service.sock`, what the
///   shipped lodestar.conf serves with `service = …`): every manager connects there, as apps do to locationd, so
///   programs share one receiver and magnetometer. Authorization is whether this process may open the socket (its
///   group, `lodestar`): `.authorizedAlways`, or `.denied` with the reason logged.
///
/// Neither: location services are disabled and authorization is `.denied`; the reason is logged once to stderr.
enum LocationServiceSource {
    static let defaultServicePath = "/run/lodestar/service.sock"

    enum Resolution {
        case replay(path: String, speed: Double)
        case service(path: String)
        case unavailable(reason: String)
    }

    /// A source for the managers, monitors and update sequences made inside `withValue`, whatever the environment
    /// says (tests run the same code against the service socket and against an in-process replay).
    @TaskLocal static var override: Resolution?

    static func resolve(_ env: [String: String] = ProcessInfo.processInfo.environment) -> Resolution {
        if let override { return override }
        if let path = env["LODESTAR_REPLAY"], !path.isEmpty {
            guard FileManager.default.isReadableFile(atPath: path) else {
                return .unavailable(reason: "LODESTAR_REPLAY=\(path): no readable capture there")
            }
            var speed = 1.0
            if let s = env["LODESTAR_REPLAY_SPEED"], let v = Double(s), v > 0, v.isFinite { speed = v }
            return .replay(path: path, speed: speed)
        }
        let socket = env["LODESTAR_SERVICE"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultServicePath
        if FileManager.default.fileExists(atPath: socket) {
            guard access(socket, R_OK | W_OK) == 0 else {
                return .unavailable(reason: "service socket \(socket): permission denied (this user is not in the socket's group, lodestar: sudo usermod -aG lodestar $USER)")
            }
            return .service(path: socket)
        }
        return .unavailable(reason: "no location source: LODESTAR_REPLAY is not set and there is no service socket at \(socket)")
    }

    /// The LodestarKit source for a resolution, or nil (logged once).
    static func source() -> LocationSource? {
        switch resolve() {
        case .replay(let path, let speed): return .replay(path: path, speed: speed)
        case .service(let path): return .service(path: path)
        case .unavailable(let reason):
            log(reason)
            return nil
        }
    }

    /// Whether the configured capture carries motion-sensor data (a heading can be computed).
    static func hasHeadingSource() -> Bool {
        if case .service = resolve() { return true }  // the service's magnetometer, when it has one, sends headings
        guard case .replay(let path, _) = resolve(), let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 4096)) ?? Data()
        let text = String(decoding: head, as: UTF8.self)
        return text.contains("kind=imu") || text.contains("kind=mag")
    }

    private static let logged = LockedSet()

    static func log(_ message: String) {
        guard logged.insert(message) else { return }
        FileHandle.standardError.write(Data("CoreLocation: \(message)\n".utf8))
    }
}

final class LockedSet: @unchecked Sendable {
    private let lock = NSLock()
    private var set: Set<String> = []
    func insert(_ s: String) -> Bool { lock.lock(); defer { lock.unlock() }; return set.insert(s).inserted }
}

/// Runs blocks on the run loop of the thread that made it: the main queue when that is the main thread or the main
/// queue itself (serviced by `RunLoop.main.run()`, `dispatchMain()` and the main actor), otherwise a zero-delay timer
/// on that thread's run loop.
/// Blocks run in the order they were posted.
final class RunLoopDelivery: @unchecked Sendable {
    private let isMain: Bool
    private let runLoop: RunLoop

    init() {
        isMain = Thread.isMainThread || Self.onMainQueue
        runLoop = RunLoop.current
    }

    private static let mainQueueKey = DispatchSpecificKey<Bool>()
    private static let markedMain: Void = { DispatchQueue.main.setSpecific(key: mainQueueKey, value: true) }()

    /// Running on the main queue (the main actor) on a thread other than the main thread, as test hosts do.
    static var onMainQueue: Bool {
        _ = markedMain
        return DispatchQueue.getSpecific(key: mainQueueKey) == true
    }

    private let lock = NSLock()
    private var pending: [() -> Void] = []
    private var drainScheduled = false

    func post(_ block: @escaping () -> Void) {
        if isMain {
            let box = UncheckedBox(block)
            DispatchQueue.main.async { box.value() }
            return
        }
        // Timers with one fire date have no guaranteed order: one timer drains a FIFO instead.
        lock.lock()
        pending.append(block)
        let schedule = !drainScheduled
        drainScheduled = true
        lock.unlock()
        guard schedule else { return }
        let timer = Timer(timeInterval: 0, repeats: false) { [self] _ in drain() }
        runLoop.add(timer, forMode: .default)
    }

    private func drain() {
        lock.lock()
        let blocks = pending
        pending = []
        drainScheduled = false
        lock.unlock()
        for b in blocks { b() }
    }
}

struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
#endif
