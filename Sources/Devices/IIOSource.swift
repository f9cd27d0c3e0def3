import CLinux
import LocationCore
import Synchronization

/// A live source over one Linux IIO device (a magnetometer, accelerometer or gyroscope bound to its kernel driver).
///
/// `run` polls the device's `_raw` attributes at its sampling frequency and delivers
/// `.motion(.magnetometerRaw / .accelerometerRaw / .gyroscopeRaw)` with counts and scale (see `IIODevice` for the
/// conversion), stamped with `clinux_monotonic_ns()` right after each read.
///
/// Faults:
/// - a vanished file or directory (unplugged, driver unbound) → `unavailable`; the device is re-opened with
///   `Backoff` and `recovered` is reported when it returns — found again by name when it was opened by name, so a
///   new `iio:deviceN` number does not matter;
/// - EACCES → `denied` with the fix (group i2c, udev rule), retried with backoff;
/// - EBUSY (buffered capture by another program) → `unavailable` with the reason;
/// - non-numeric content → counted in `statistics.invalidReads`, that sample skipped;
/// - other I/O errors (EIO, ETIMEDOUT) → counted and skipped; `Settings.errorsBeforeUnavailable` in a row make
///   the device `unavailable`.
/// Each outage is reported once, not on every retry.
///
/// Polling sysfs suits the rates of heading sensors (≤ 100 Hz); the buffered `/dev/iio:deviceN` interface with
/// a trigger would be the way to take every sample at higher rates.
public final class IIOSource: LiveSource {
    public struct Settings: Sendable {
        /// Channel types to read; nil reads every three-axis type the device has.
        public var channels: [IIOChannelType]?
        /// Poll rate, Hz; nil follows the device's sampling frequency (the highest of the channels read).
        public var pollHz: Double?
        /// Poll rate when the device reports no sampling frequency, Hz.
        public var fallbackPollHz: Double = 10
        /// Upper bound on the poll rate, Hz.
        public var maximumPollHz: Double = 200
        /// Written to the device's sampling frequency each time it opens (nil leaves the driver's setting).
        /// A refused value is reported in the status message and polling continues at the device's rate.
        public var requestedSamplingFrequencyHz: Double?
        /// Consecutive I/O errors after which the device counts as unavailable.
        public var errorsBeforeUnavailable: Int = 5
        public init() {}
        public static let `default` = Settings()
    }

    public struct Statistics: Sendable, Hashable {
        /// Samples delivered.
        public var samples = 0
        /// Reads skipped because an attribute held no number.
        public var invalidReads = 0
        /// Reads skipped because of an I/O error.
        public var ioErrors = 0
        /// Successful opens (1 + the number of recoveries).
        public var opens = 0
        public init() {}
    }

    /// A sleep of the given nanoseconds. The source sleeps in slices of at most 50 ms and checks `stop()` between.
    public typealias Sleep = @Sendable (_ nanoseconds: Int64) -> Void
    public static let systemSleep: Sleep = { _ = clinux_sleep_ns($0) }

    public let name: String
    /// The device as configured: `iio:deviceN`, a directory path, or a driver name (`lis3mdl`, `iio:lis3mdl`).
    public let device: String
    public let sysfsRoot: String
    public let settings: Settings
    private let sysfs: any SysfsAccess
    private let sleep: Sleep
    private let stopped = Atomic<Bool>(false)
    private let counters = Mutex(Statistics())
    private let opened = Mutex<IIODeviceInfo?>(nil)
    private static let sliceNanos: Int64 = 50_000_000

    public init(name: String, device: String, sysfsRoot: String = "/sys", settings: Settings = .default,
                sysfs: any SysfsAccess = LinuxSysfs(), sleep: @escaping Sleep = IIOSource.systemSleep) {
        self.name = name; self.device = device; self.sysfsRoot = sysfsRoot; self.settings = settings
        self.sysfs = sysfs; self.sleep = sleep
    }

    public var statistics: Statistics { counters.withLock { $0 } }

    public var captureAttributes: [String: String] {
        var attributes = ["kind": "iio", "device": device]
        if let info = opened.withLock({ $0 }) {
            attributes["path"] = info.path
            if let chip = info.name { attributes["chip"] = chip }
            attributes["channels"] = info.channels.map(\.rawValue).joined(separator: ",")
            if let hz = info.samplingFrequencyHz { attributes["sampling_frequency"] = String(hz) }
        }
        return attributes
    }

    public func stop() { stopped.store(true, ordering: .releasing) }

    private var isStopped: Bool { stopped.load(ordering: .acquiring) }

    public func run(sourceID: Int, sink: any SourceSink) {
        sink.report(StatusReport(source: name, state: .starting, message: "IIO \(device) under \(sysfsRoot)"))
        var backoff = Backoff()
        var current: IIODevice?
        var types: [IIOChannelType] = []
        var periodNanos: Int64 = 100_000_000
        var everAvailable = false
        var lastOutage: StatusReport.State?
        var consecutiveErrors = 0
        var deadline = clinux_monotonic_ns()

        /// Reports an outage once: a retry that fails again in the same way (or with another message, e.g.
        /// "vanished" then "no IIO device") stays quiet; a change between unavailable and denied is reported.
        func outage(_ error: IIOError) {
            let state: StatusReport.State = if case .denied = error { .denied } else { .unavailable }
            if state != lastOutage { sink.report(StatusReport(source: name, state: state, message: error.description)) }
            lastOutage = state
            current = nil
        }

        while !isStopped {
            guard let device = current else {
                do {
                    let device = try open()
                    current = device
                    types = (settings.channels ?? device.info.channels).filter { device.layouts[$0] != nil }
                    var note = ""
                    if let hz = settings.requestedSamplingFrequencyHz, let type = types.first {
                        do { try device.setSamplingFrequency(hz, for: type) } catch {
                            note = "; sampling frequency \(hz) Hz refused: \(error)"
                        }
                    }
                    periodNanos = period(device, types)
                    counters.withLock { $0.opens += 1 }
                    opened.withLock { $0 = device.info }
                    backoff.reset()
                    consecutiveErrors = 0
                    lastOutage = nil
                    let what = "\(device.info.id) \(device.info.name ?? "?") [\(types.map(\.rawValue).joined(separator: ","))] "
                        + "every \(Double(periodNanos) / 1e6) ms" + note
                    sink.report(StatusReport(source: name, state: everAvailable ? .recovered : .available, message: what))
                    everAvailable = true
                    deadline = clinux_monotonic_ns()
                } catch {
                    if case .io = error { counters.withLock { $0.ioErrors += 1 } }
                    outage(error)
                    pause(backoff.nextDelayNanos())
                }
                continue
            }

            for type in types {
                do {
                    let sample = try device.read(type)
                    let stamp = clinux_monotonic_ns()
                    sink.deliver(SensorEvent(monotonicNanos: stamp, sourceID: sourceID, payload: .motion(type.motion(sample))))
                    counters.withLock { $0.samples += 1 }
                    consecutiveErrors = 0
                } catch {
                    switch error {
                    case .invalidContent:
                        counters.withLock { $0.invalidReads += 1 }
                    case .io:
                        counters.withLock { $0.ioErrors += 1 }
                        consecutiveErrors += 1
                        if consecutiveErrors >= settings.errorsBeforeUnavailable { outage(error) }
                    default:
                        outage(error)
                    }
                }
                if current == nil { break }
            }
            if current == nil {
                pause(backoff.nextDelayNanos())
                continue
            }

            // Fixed-rate schedule; after a stall, start again from now rather than catching up.
            let now = clinux_monotonic_ns()
            deadline += periodNanos
            if deadline < now || deadline > now + periodNanos { deadline = now + periodNanos }
            pause(deadline - now)
        }
        sink.report(StatusReport(source: name, state: .finished))
    }

    /// Opens the device and reads one sample of each channel (discarded), so `available` means the device
    /// answers: a device that opens but cannot be read (EACCES, EBUSY, EIO) stays in its outage instead of
    /// flapping between available and unavailable. Non-numeric content does not fail the open (counted).
    private func open() throws(IIOError) -> IIODevice {
        let device = try IIODevice.open(device, sysfsRoot: sysfsRoot, sysfs: sysfs)
        let wanted = (settings.channels ?? device.info.channels).filter { device.layouts[$0] != nil }
        guard !wanted.isEmpty else {
            let list = (settings.channels ?? IIOChannelType.allCases).map { "in_\($0.rawValue)_{x,y,z}_raw" }
            throw .missingAttribute(path: device.info.path + "/" + list.joined(separator: ", "))
        }
        for type in wanted {
            do { _ = try device.read(type) } catch {
                guard case .invalidContent = error else { throw error }
                counters.withLock { $0.invalidReads += 1 }
            }
        }
        return device
    }

    private func period(_ device: IIODevice, _ types: [IIOChannelType]) -> Int64 {
        var hz = settings.pollHz ?? types.compactMap { try? device.samplingFrequency(for: $0) }.filter { $0 > 0 }.max()
            ?? settings.fallbackPollHz
        hz = min(max(hz, 0.1), max(settings.maximumPollHz, 0.1))
        return Int64(1e9 / hz)
    }

    private func pause(_ nanoseconds: Int64) {
        slicedSleep(nanoseconds: nanoseconds, sliceNanoseconds: Self.sliceNanos, sleep: sleep) { isStopped }
    }
}
