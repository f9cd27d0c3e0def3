import CLinux
import LocationCore
import Synchronization

/// A live source polling one I2C motion-sensor chip (`i2c:BUS:ADDRESS` on the CLI).
///
/// `run` (on the caller's thread; `LiveEventQueue` gives each source its own) opens the bus, identifies the chip at
/// the address (or checks the requested one by its ID register), configures it and polls `read()` on a fixed
/// schedule of `Settings.pollsPerSample` polls per sample period, stamping each batch with the monotonic clock
/// right after the read and delivering `.motion(.magnetometerRaw / .accelerometerRaw / .gyroscopeRaw)` events.
///
/// Faults — any `I2CError` (EIO, NACK: the device is gone, busy, timeout), the chip no longer answering its ID,
/// or no new data for more than `Settings.stuckSamplePeriods` sample periods (a stuck data-ready bit, a chip that
/// reset itself into power-down) — report `unavailable` once with the reason (`denied` for a permission error),
/// then retry with `Backoff` (0.1 s doubling to 5 s): re-open, re-probe, re-configure. `available` (first time)
/// or `recovered` is reported when samples flow again, not merely when the init was accepted, so a chip that
/// accepts its configuration but never sets data-ready stays in its one outage. `stop()` ends `run` within one
/// sleep slice (20 ms) and `finished` is reported.
///
/// Seams for tests: the bus is injected (an `I2CSimulator`), and so are the clock and the sleep, so a test runs the
/// loop in simulated time on its own thread with no real waiting.
public final class I2CSensorSource: LiveSource {
    public struct Settings: Sendable {
        /// Polls per sample period (2: data-ready is checked twice as often as data arrives, so no sample is lost
        /// to the difference between the chip's oscillator and the host clock).
        public var pollsPerSample: Double = 2
        /// No new sample for longer than this many sample periods is a fault.
        public var stuckSamplePeriods: Double = 10
        public init() {}
        public static let `default` = Settings()
    }

    public struct Statistics: Sendable, Hashable {
        /// Samples delivered.
        public var samples = 0
        /// Successful configurations (1 + recoveries).
        public var configurations = 0
        /// Faults (each starts an outage; retries within it are not counted again).
        public var faults = 0
        /// Driver counters summed over every configuration.
        public var driver = DriverCounters()
        public init() {}
    }

    /// Monotonic nanoseconds.
    public typealias Clock = @Sendable () -> Int64
    /// Sleeps about the given nanoseconds (the source sleeps in slices of at most 20 ms and checks `stop()`).
    public typealias Sleep = @Sendable (_ nanoseconds: Int64) -> Void
    /// Opens the bus (called again after a fault).
    public typealias BusOpener = @Sendable () throws(I2CError) -> any I2CBus

    public static let systemClock: Clock = { clinux_monotonic_ns() }
    public static let systemSleep: Sleep = { _ = clinux_sleep_ns($0) }

    public let name: String
    /// `i2c-1`, or the injected bus's name.
    public let busName: String
    public let address: UInt16
    /// The chip asked for; nil identifies it by probing.
    public let requestedChip: I2CChip?
    public let settings: Settings
    private let openBus: BusOpener
    private let clock: Clock
    private let sleep: Sleep
    private let stopped = Atomic<Bool>(false)
    private let stats = Mutex(Statistics())
    private let identified = Mutex<I2CChip?>(nil)
    private static let sliceNanos: Int64 = 20_000_000

    /// A source on `/dev/i2c-<busNumber>`, opened in `run`.
    public convenience init(name: String, busNumber: Int, address: UInt16, chip: I2CChip? = nil,
                            settings: Settings = .default) {
        self.init(name: name, busName: "i2c-\(busNumber)", address: address, chip: chip, settings: settings,
                  clock: Self.systemClock, sleep: Self.systemSleep,
                  openBus: { () throws(I2CError) -> any I2CBus in try LinuxI2CBus(number: busNumber) })
    }

    /// A source on an existing bus (a `LinuxI2CBus` shared by several sources, or a simulator in tests).
    public convenience init(name: String, bus: any I2CBus, address: UInt16, chip: I2CChip? = nil,
                            settings: Settings = .default, clock: @escaping Clock = I2CSensorSource.systemClock,
                            sleep: @escaping Sleep = I2CSensorSource.systemSleep) {
        self.init(name: name, busName: bus.name, address: address, chip: chip, settings: settings, clock: clock,
                  sleep: sleep, openBus: { () throws(I2CError) -> any I2CBus in bus })
    }

    public init(name: String, busName: String, address: UInt16, chip: I2CChip?, settings: Settings,
                clock: @escaping Clock, sleep: @escaping Sleep, openBus: @escaping BusOpener) {
        self.name = name; self.busName = busName; self.address = address; self.requestedChip = chip
        self.settings = settings; self.clock = clock; self.sleep = sleep; self.openBus = openBus
    }

    public var statistics: Statistics { stats.withLock { $0 } }

    /// The chip in use: the requested one, or the one identified by the last successful probe.
    public var chip: I2CChip? { requestedChip ?? identified.withLock { $0 } }

    public var captureAttributes: [String: String] {
        var attributes = ["device": busName, "address": hexAddress(address)]
        if busName.hasPrefix("i2c-") { attributes["bus"] = String(busName.dropFirst(4)) }
        if let chip {
            attributes["chip"] = chip.rawValue
            attributes["kind"] = chip.roles.count == 1 ? chip.roles[0].rawValue : "imu"
        } else {
            attributes["kind"] = "imu"
        }
        return attributes
    }

    public func stop() { stopped.store(true, ordering: .releasing) }

    private var isStopped: Bool { stopped.load(ordering: .acquiring) }

    /// What ended a polling session.
    private enum Fault: Error {
        case bus(I2CError)
        case notFound(String)
        case stuck(String)

        var report: (state: StatusReport.State, message: String) {
            switch self {
            case .bus(let e):
                if case .permissionDenied = e { return (.denied, e.description) }
                return (.unavailable, e.description)
            case .notFound(let m), .stuck(let m): return (.unavailable, m)
            }
        }
    }

    public func run(sourceID: Int, sink: any SourceSink) {
        let wanted = requestedChip.map { "\($0.rawValue) " } ?? ""
        sink.report(StatusReport(source: name, state: .starting, message: "\(wanted)at \(hexAddress(address)) on \(busName)"))
        var backoff = Backoff()
        var everAvailable = false
        var inOutage = false
        var bus: (any I2CBus)?

        while !isStopped {
            do throws(Fault) {
                let current: any I2CBus
                if let bus { current = bus } else { current = try open() }
                bus = current
                let driver = try connect(current)
                stats.withLock { $0.configurations += 1 }
                // Available (or recovered) once data flows, not merely once configured: a chip that accepts its
                // init but never sets data-ready stays in its outage.
                try poll(driver, sourceID: sourceID, sink: sink) {
                    backoff.reset()
                    inOutage = false
                    let message = "\(driver.chipName) at \(hexAddress(address)) on \(busName): "
                        + driver.roles.map(\.rawValue).joined(separator: "+") + " at \(format(driver.sampleRateHz)) Hz"
                    sink.report(StatusReport(source: name, state: everAvailable ? .recovered : .available, message: message))
                    everAvailable = true
                }
            } catch {
                bus = nil   // re-opened on retry: a USB adapter that was unplugged has a dead descriptor
                if !inOutage {
                    inOutage = true
                    stats.withLock { $0.faults += 1 }
                    let (state, message) = error.report
                    sink.report(StatusReport(source: name, state: state, message: message))
                }
                pause(backoff.nextDelayNanos())
            }
        }
        sink.report(StatusReport(source: name, state: .finished))
    }

    private func open() throws(Fault) -> any I2CBus {
        do { return try openBus() } catch { throw .bus(error) }
    }

    /// Probe (or identify) and configure.
    private func connect(_ bus: any I2CBus) throws(Fault) -> any MotionSensorDriver {
        let chip: I2CChip
        if let requestedChip {
            guard requestedChip.probe(bus: bus, address: address) else {
                throw absent(bus, "\(requestedChip.rawValue) not found at \(hexAddress(address)) on \(busName)")
            }
            chip = requestedChip
        } else {
            guard let found = I2CProbe.identify(bus, address: address) else {
                throw absent(bus, "no supported chip answers at \(hexAddress(address)) on \(busName)")
            }
            chip = found.chip
        }
        identified.withLock { $0 = chip }
        let driver = chip.makeDriver(bus: bus, address: address)
        do { try driver.configure() } catch { throw .bus(error) }
        return driver
    }

    /// A failed probe: the bus error behind it when there is one (NACK, EIO), else "not found".
    private func absent(_ bus: any I2CBus, _ message: String) -> Fault {
        do {
            _ = try bus.readRegisters(address: address, register: 0x00, count: 1)
            return .notFound(message)
        } catch {
            return .bus(error)
        }
    }

    /// Polls until a fault or `stop()`; `flowing` runs before the first samples are delivered.
    private func poll(_ driver: any MotionSensorDriver, sourceID: Int, sink: any SourceSink,
                      flowing: () -> Void) throws(Fault) {
        let periodNanos = Self.nanos(1e9 / max(driver.sampleRateHz, 0.1))
        let pollNanos = max(Self.nanos(Double(periodNanos) / max(settings.pollsPerSample, 1)), 1)
        let stuckNanos = Self.nanos(Double(periodNanos) * settings.stuckSamplePeriods)
        var lastSample = clock()
        var deadline = lastSample
        var reported = DriverCounters()
        var delivered = false
        defer {
            let final = driver.counters
            stats.withLock { $0.driver.add(final, minus: reported) }
        }
        while !isStopped {
            let samples: [MotionSample]
            do { samples = try driver.read() } catch { throw .bus(error) }
            let now = clock()
            if samples.isEmpty {
                if now - lastSample > stuckNanos {
                    throw .stuck("no new data from \(driver.chipName) at \(hexAddress(address)) for "
                                 + "\(format(Double(now - lastSample) / 1e6)) ms (data-ready never set; more than "
                                 + "\(format(settings.stuckSamplePeriods)) sample periods)")
                }
            } else {
                if !delivered {
                    delivered = true
                    flowing()
                }
                lastSample = now
                for sample in samples {
                    sink.deliver(SensorEvent(monotonicNanos: now, sourceID: sourceID, payload: .motion(sample)))
                }
            }
            let counters = driver.counters
            stats.withLock {
                $0.samples += samples.count
                $0.driver.add(counters, minus: reported)
            }
            reported = counters
            // Fixed-rate schedule; after a stall, start again from now rather than catching up.
            deadline += pollNanos
            if deadline < now || deadline > now + pollNanos { deadline = now + pollNanos }
            pause(deadline - now)
        }
    }

    private func pause(_ nanoseconds: Int64) {
        var remaining = nanoseconds
        while remaining > 0 && !isStopped {
            let slice = min(remaining, Self.sliceNanos)
            sleep(slice)
            remaining -= slice
        }
    }

    private func format(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return String(value) }
        return value == value.rounded() ? String(Int64(value)) : String((value * 10).rounded() / 10)
    }

    /// Nanoseconds from a computed Double, clamped (settings may hold anything; never trap on them).
    private static func nanos(_ value: Double) -> Int64 {
        guard value.isFinite else { return value > 0 ? Int64.max / 4 : 0 }
        return Int64(min(max(value, 0), Double(Int64.max / 4)))
    }
}

extension DriverCounters {
    /// Adds the growth from `old` to `new`.
    mutating func add(_ new: DriverCounters, minus old: DriverCounters) {
        samples += new.samples - old.samples
        overflows += new.overflows - old.overflows
        overruns += new.overruns - old.overruns
        notReady += new.notReady - old.notReady
    }
}
