#if canImport(Glibc)
import LodestarIO
import Glibc
#endif
import CLinux
import CUdev
import LocationCore
import Synchronization

/// Devices that appeared and disappeared between two enumerations. A device is identified by its syspath; one
/// whose facts changed (driver bound, ids readable) counts as removed and added again.
public struct DeviceListDiff: Sendable, Hashable {
    public var added: [DiscoveredDevice]
    public var removed: [DiscoveredDevice]

    public init(old: [DiscoveredDevice], new: [DiscoveredDevice]) {
        let before = Set(old)
        let after = Set(new)
        added = new.filter { !before.contains($0) }
        removed = old.filter { !after.contains($0) }
    }

    public var isEmpty: Bool { added.isEmpty && removed.isEmpty }
}

/// Hotplug of GNSS receivers and IIO sensors.
///
/// With udevd running (its control socket `/run/udev/control` exists) `run` listens on a udev netlink monitor
/// (`udev_monitor_new_from_netlink(udev, "udev")`, filtered to tty, iio and gnss), polling its socket with a
/// timeout so `stop()` is noticed, and re-enumerates every `netlinkRescanIntervalNanos` as a safety net. If two
/// rescans in a row find a change the monitor did not deliver, events are evidently not arriving (a container
/// without udevd's broadcasts, a full socket buffer): it says so once and re-enumerates every `rescanIntervalNanos`.
///
/// Without udevd — this is the case in containers and minimal VMs — libudev's monitor would be silently
/// disabled (it refuses to listen when udevd is not active), so `run` reports once that hotplug events are
/// unavailable and re-enumerates every `rescanIntervalNanos` (2 s), diffing the lists. Hotplug still works,
/// with up to that much delay.
///
/// Callbacks come on the monitor's thread. The devices present at start are reported as `added` first
/// (`reportInitialDevices`).
public final class UdevMonitor: Sendable {
    public enum Mode: String, Sendable {
        /// udev netlink events (plus a slow safety rescan).
        case netlink
        /// Periodic re-enumeration only.
        case rescan
    }

    public struct Settings: Sendable {
        public var subsystems = UdevDiscovery.subsystems
        /// Re-enumeration interval when events are unavailable, ns.
        public var rescanIntervalNanos: Int64 = 2_000_000_000
        /// Safety re-enumeration interval while netlink events are used, ns.
        public var netlinkRescanIntervalNanos: Int64 = 10_000_000_000
        /// Longest wait on the monitor socket before checking `stop()`, ms.
        public var pollTimeoutMillis: Int32 = 250
        public var reportInitialDevices = true
        /// Source name of the status reports.
        public var statusName = "hotplug"
        public init() {}
        public static let `default` = Settings()
    }

    public struct Handlers: Sendable {
        public var added: @Sendable (DiscoveredDevice) -> Void
        public var removed: @Sendable (DiscoveredDevice) -> Void
        public var status: @Sendable (StatusReport) -> Void
        public init(added: @escaping @Sendable (DiscoveredDevice) -> Void,
                    removed: @escaping @Sendable (DiscoveredDevice) -> Void,
                    status: @escaping @Sendable (StatusReport) -> Void = { _ in }) {
            self.added = added; self.removed = removed; self.status = status
        }
    }

    public typealias Enumerate = @Sendable () throws -> [DiscoveredDevice]

    public let settings: Settings
    private let enumerate: Enumerate
    private let udevdRunning: @Sendable () -> Bool
    private let sleep: IIOSource.Sleep
    private let stopped = Atomic<Bool>(false)
    private let currentMode = Mutex<Mode?>(nil)
    private let thread = Mutex<pthread_t?>(nil)

    /// - Parameters:
    ///   - enumerate: the device list (default: `UdevDiscovery.enumerate(subsystems:)`); tests inject snapshots.
    ///   - udevdRunning: whether to try netlink events (default: `/run/udev/control` exists).
    ///   - sleep: sleep between rescans (in slices of at most 50 ms, checking `stop()` between).
    public init(settings: Settings = .default, enumerate: Enumerate? = nil,
                udevdRunning: @escaping @Sendable () -> Bool = UdevMonitor.udevdIsRunning,
                sleep: @escaping IIOSource.Sleep = IIOSource.systemSleep) {
        self.settings = settings
        let subsystems = settings.subsystems
        if let enumerate {
            self.enumerate = enumerate
        } else {
            self.enumerate = { try UdevDiscovery.enumerate(subsystems: subsystems) }
        }
        self.udevdRunning = udevdRunning
        self.sleep = sleep
    }

    /// udevd is running when its control socket exists (the test libudev itself makes).
    public static func udevdIsRunning() -> Bool { access("/run/udev/control", F_OK) == 0 }

    /// How `run` learns about changes; nil before it started.
    public var mode: Mode? { currentMode.withLock { $0 } }

    /// Asks `run` to return soon (from any thread).
    public func stop() { stopped.store(true, ordering: .releasing) }

    private var isStopped: Bool { stopped.load(ordering: .acquiring) }

    /// Runs `run(_:)` on a new thread. Pair with `stop()` and `join()`.
    public func start(_ handlers: Handlers) throws(SystemError) {
        let box = Unmanaged.passRetained(ThreadBody { [self] in run(handlers) })
        var tid = pthread_t()
        let r = pthread_create(&tid, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue().body()
            return nil
        }, box.toOpaque())
        if r != 0 {
            box.release()
            throw SystemError("pthread_create", errno: r)
        }
        thread.withLock { $0 = tid }
    }

    /// Waits for the thread started by `start(_:)` to return (after `stop()`).
    public func join() {
        if let tid = thread.withLock({ t -> pthread_t? in defer { t = nil }; return t }) { pthread_join(tid, nil) }
    }

    /// Watches until `stop()`. Blocks the calling thread.
    public func run(_ handlers: Handlers) {
        var known: [DiscoveredDevice] = []
        var enumerateFailed = false
        let subsystemList = settings.subsystems.joined(separator: ", ")

        /// The current device list, or nil (reported once) when enumeration fails.
        func scan() -> [DiscoveredDevice]? {
            do {
                let now = try enumerate()
                enumerateFailed = false
                return now
            } catch {
                if !enumerateFailed {
                    handlers.status(StatusReport(source: settings.statusName, state: .unavailable,
                                                 message: "device enumeration failed: \(error)"))
                }
                enumerateFailed = true
                return nil
            }
        }
        func apply(_ now: [DiscoveredDevice], report: Bool = true) {
            let diff = DeviceListDiff(old: known, new: now)
            known = now
            guard report else { return }
            for device in diff.removed { handlers.removed(device) }
            for device in diff.added { handlers.added(device) }
        }

        if let now = scan() { apply(now, report: settings.reportInitialDevices) }
        var monitor: NetlinkMonitor?
        var reason = "udevd is not running: /run/udev/control is missing"
        if udevdRunning() {
            do { monitor = try NetlinkMonitor(subsystems: settings.subsystems) } catch {
                reason = "cannot create the udev monitor: \(error)"
            }
        }

        guard let monitor else {
            currentMode.withLock { $0 = .rescan }
            handlers.status(StatusReport(source: settings.statusName, state: .unavailable,
                message: "hotplug events unavailable (\(reason)); re-scanning \(subsystemList) every \(seconds(settings.rescanIntervalNanos)) s"))
            while !isStopped {
                pause(settings.rescanIntervalNanos)
                if !isStopped, let now = scan() { apply(now) }
            }
            return
        }

        currentMode.withLock { $0 = .netlink }
        handlers.status(StatusReport(source: settings.statusName, state: .available,
                                     message: "udev monitor on \(subsystemList)"))
        var interval = settings.netlinkRescanIntervalNanos
        var lastScan = clinux_monotonic_ns()
        var eventsMissed = false
        // Differences seen by the previous safety rescan. A new device shows in sysfs before udevd has processed
        // its event, so a difference only counts as a missed event when the next rescan still sees it.
        var suspects: Set<String> = []
        while !isStopped {
            let ready = clinux_wait_readable(monitor.fd, settings.pollTimeoutMillis)
            if ready > 0 {
                while let event = monitor.receive() {
                    let (action, device) = event
                    let old = known.first { $0.syspath == device.syspath }
                    if action == "remove" {
                        known.removeAll { $0.syspath == device.syspath }
                        if let old { handlers.removed(old) }  // never reported: nothing to take back
                    } else if old != device {
                        known.removeAll { $0.syspath == device.syspath }
                        known.append(device)
                        if let old { handlers.removed(old) }
                        handlers.added(device)
                    }
                }
            } else if ready < 0 && ready != -EINTR {
                pause(Int64(settings.pollTimeoutMillis) * 1_000_000)  // do not spin on a broken socket
            }
            if clinux_monotonic_ns() - lastScan >= interval {
                lastScan = clinux_monotonic_ns()
                guard let now = scan() else { continue }
                let diff = DeviceListDiff(old: known, new: now)
                let differences = Set(diff.added.map { "+" + $0.syspath } + diff.removed.map { "-" + $0.syspath })
                if differences.isEmpty {
                    suspects = []
                } else if eventsMissed || !differences.isDisjoint(with: suspects) {
                    apply(now)
                    suspects = []
                    if !eventsMissed {
                        eventsMissed = true
                        interval = settings.rescanIntervalNanos
                        handlers.status(StatusReport(source: settings.statusName, state: .unavailable,
                            message: "udev events were missed; re-scanning \(subsystemList) every \(seconds(interval)) s"))
                    }
                } else {
                    suspects = differences
                }
            }
        }
    }

    private func seconds(_ nanos: Int64) -> String {
        let s = Double(nanos) / 1e9
        return s == s.rounded() ? String(Int(s)) : String(s)
    }

    private func pause(_ nanoseconds: Int64) {
        var remaining = nanoseconds
        while remaining > 0 && !isStopped {
            let slice = min(remaining, 50_000_000)
            sleep(slice)
            remaining -= slice
        }
    }
}

private final class ThreadBody: @unchecked Sendable {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

/// A udev netlink monitor owned by one thread (libudev objects are not thread-safe).
private final class NetlinkMonitor {
    let udev: OpaquePointer
    let monitor: OpaquePointer
    let fd: Int32

    init(subsystems: [String]) throws(SystemError) {
        guard let udev = udev_new() else { throw SystemError("udev_new", errno: Glibc.errno == 0 ? ENOMEM : Glibc.errno) }
        guard let monitor = udev_monitor_new_from_netlink(udev, "udev") else {
            let e = Glibc.errno
            udev_unref(udev)
            throw SystemError("udev_monitor_new_from_netlink", errno: e == 0 ? EPROTONOSUPPORT : e)
        }
        self.udev = udev
        self.monitor = monitor
        for subsystem in subsystems {
            let r = udev_monitor_filter_add_match_subsystem_devtype(monitor, subsystem, nil)
            if r < 0 { fd = -1; throw SystemError("udev_monitor_filter_add_match_subsystem_devtype", errno: -r) }
        }
        let r = udev_monitor_enable_receiving(monitor)
        if r < 0 { fd = -1; throw SystemError("udev_monitor_enable_receiving", errno: -r) }
        fd = udev_monitor_get_fd(monitor)
        if fd < 0 { throw SystemError("udev_monitor_get_fd", errno: -fd) }
    }

    deinit {
        udev_monitor_unref(monitor)
        udev_unref(udev)
    }

    /// The next queued event, or nil when none is waiting (the socket is non-blocking).
    func receive() -> (action: String, device: DiscoveredDevice)? {
        while true {
            guard let device = udev_monitor_receive_device(monitor) else { return nil }
            defer { udev_device_unref(device) }
            let action = UdevDiscovery.string(udev_device_get_action(device)) ?? "change"
            if let found = UdevDiscovery.describe(device) { return (action, found) }
        }
    }
}
