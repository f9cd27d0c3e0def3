#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Dispatch
import LocationCore
import LodestarIO
import Synchronization

/// The live event source: runs live sources, each on its own thread, and hands their events — raw data and status
/// changes alike, as `SensorEvent`s — to one consumer (the session runner) in arrival order.
///
/// Sources never block: when the consumer falls more than `queueLimit` events behind, the oldest are dropped and
/// counted. Every event leaves the queue stamped: its monotonic time (taken on receipt when the source gave none)
/// and its UTC derived from the session's `clock` pairing, exactly as a capture reader derives it from the
/// recorded stamp — so a recorded session replays to the same bytes.
public final class LiveEventQueue: SourceSink, @unchecked Sendable {
    public enum Next: Sendable {
        case event(SensorEvent)
        /// Nothing arrived within the wait (the consumer may flush).
        case idle
        /// Every source was stopped and the queue is empty.
        case finished
    }

    private let queue = Mutex<[SensorEvent]>([])
    private let wakeup = DispatchSemaphore(value: 0)
    private let droppedEvents = Atomic<Int>(0)
    private let lastStamp = Atomic<Int64>(Int64.min)
    public let queueLimit: Int
    public let sources: [any LiveSource]
    /// The session's clock pairing (written into the capture's `clock` header).
    public let clock: ClockPairing
    private var threads: [pthread_t] = []
    private var started = false
    private var stopped = false
    /// Sources whose thread could not be created (reported as unavailable).
    public private(set) var failedToStart: [String] = []

    public init(sources: [any LiveSource], clock: ClockPairing = .now(), queueLimit: Int = 10_000) {
        self.sources = sources
        self.clock = clock
        self.queueLimit = queueLimit
    }

    public var dropped: Int { droppedEvents.load(ordering: .relaxed) }

    // MARK: Valid data seen downstream (bytes framed once)

    private let validData = Mutex<[Int: Int64]>([:])
    private let validDataReported = Atomic<Bool>(false)

    /// The consumer (the session's pipeline) frames every chunk and says here when a source's chunk held valid
    /// data; from the first call on, sources may rely on it instead of framing themselves.
    public func noteValidData(sourceID: Int, monotonicNanos: Int64) {
        validData.withLock { $0[sourceID] = Swift.max($0[sourceID] ?? Int64.min, monotonicNanos) }
        if !validDataReported.load(ordering: .relaxed) { validDataReported.store(true, ordering: .releasing) }
    }

    public func lastValidDataNanos(sourceID: Int) -> Int64? {
        guard validDataReported.load(ordering: .acquiring) else { return nil }
        return validData.withLock { $0[sourceID] } ?? Int64.min
    }

    // MARK: SourceSink (called on source threads)

    public func deliver(_ event: SensorEvent) { enqueue(event) }

    public func report(_ status: StatusReport) {
        let id = sources.firstIndex { $0.name == status.source } ?? 0
        enqueue(SensorEvent(sourceID: id, payload: .status(status)))
    }

    private func enqueue(_ event: SensorEvent) {
        // Times are made nondecreasing in queue order (the order the pipeline sees and the recorder writes), so
        // live processing and the capture's replay see the same stamps (t_ns is nondecreasing in a capture).
        let stamp = event.monotonicNanos ?? clinux_monotonic_ns()
        // Over the limit, the oldest tenth goes at once (amortised O(1)); every dropped event is counted.
        let dropped = queue.withLock { q -> Int in
            var e = event
            let t = max(stamp, lastStamp.load(ordering: .relaxed))  // read and written only under the queue's lock
            lastStamp.store(t, ordering: .relaxed)
            e.monotonicNanos = t
            e.utc = clock.utc(atMonotonic: t)
            q.append(e)
            guard q.count > queueLimit else { return 0 }
            let n = q.count - queueLimit * 9 / 10
            q.removeFirst(n)
            return n
        }
        if dropped > 0 { droppedEvents.add(dropped, ordering: .relaxed) }
        wakeup.signal()
    }

    // MARK: Consumer

    /// Starts every source on its own thread (once).
    public func start() {
        guard !started else { return }
        started = true
        for (id, source) in sources.enumerated() {
            let sink: any SourceSink = self
            if let t = PosixThread.start(joinable: true, { source.run(sourceID: id, sink: sink) }) {
                threads.append(t)
            } else {
                failedToStart.append(source.name)
                report(StatusReport(source: source.name, state: .unavailable, message: "could not start a thread"))
            }
        }
    }

    private var pending: [SensorEvent] = []
    private var pendingIndex = 0

    /// The next event, waiting up to `timeoutMilliseconds` (`.idle` when none came). After `stop()`, drains what
    /// is left and then returns `.finished`.
    public func next(timeoutMilliseconds: Int = 100) -> Next {
        if pendingIndex < pending.count {
            defer { pendingIndex += 1 }
            return .event(pending[pendingIndex])
        }
        pending.removeAll(keepingCapacity: true)
        pendingIndex = 0
        var taken = queue.withLock { q -> [SensorEvent] in let t = q; q.removeAll(keepingCapacity: true); return t }
        if taken.isEmpty {
            if stopped { return .finished }
            _ = wakeup.wait(timeout: .now() + .milliseconds(timeoutMilliseconds))
            taken = queue.withLock { q -> [SensorEvent] in let t = q; q.removeAll(keepingCapacity: true); return t }
            if taken.isEmpty { return stopped ? .finished : .idle }
        }
        pending = taken
        pendingIndex = 1
        return .event(pending[0])
    }

    /// Stops every source and waits for their threads; events they delivered stay queued for `next()`.
    public func stop() {
        guard !stopped else { return }
        for s in sources { s.stop() }
        for t in threads { pthread_join(t, nil) }
        threads.removeAll()
        stopped = true
    }

    /// Header fields for a capture of these sources: created, the clock pairing, one `source` line per source.
    public func captureHeader() -> [(key: String, value: String)] {
        var fields: [(key: String, value: String)] = [
            ("created", clock.utc.iso8601(fractionDigits: 3)),
            ("clock", "monotonic_ns=\(clock.monotonicNanos) utc=\(clock.utc.iso8601(fractionDigits: 9))"),
        ]
        for (id, s) in sources.enumerated() {
            let attrs = s.captureAttributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.replacingSpaces)" }
            fields.append(("source", "\(id) name=\(s.name) " + attrs.joined(separator: " ")))
        }
        return fields
    }
}

extension ClockPairing {
    /// The monotonic and realtime clocks read now.
    public static func now() -> ClockPairing {
        ClockPairing(monotonicNanos: clinux_monotonic_ns(), utc: Timestamp(nanosecondsSince1970: clinux_realtime_ns()))
    }
}

/// The one POSIX thread helper (no Foundation): runs `body` on a new thread.
public enum PosixThread {
    /// Starts `body` on a new thread; joinable threads are returned for `pthread_join`, detached ones are not.
    /// Returns nil when no thread could be created.
    @discardableResult
    public static func start(joinable: Bool, _ body: @escaping @Sendable () -> Void) -> pthread_t? {
        final class Box { let body: @Sendable () -> Void; init(_ b: @escaping @Sendable () -> Void) { body = b } }
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let r = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().body()
            return nil
        }, box)
        if r != 0 {
            Unmanaged<Box>.fromOpaque(box).release()
            return nil
        }
        if !joinable { pthread_detach(thread) }
        return thread
    }

    /// The monotonic clock, ns (`SystemClock` in LodestarIO is the one implementation).
    public static func monotonicNanos() -> Int64 { SystemClock.monotonicNanos() }
    /// Sleeps `nanos` (`SystemClock.sleep`).
    public static func sleep(nanos: Int64) { SystemClock.sleep(nanos: nanos) }
}

extension String {
    var replacingSpaces: String { String(map { $0 == " " ? "_" : $0 }) }
}
