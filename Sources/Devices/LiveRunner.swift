#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Capture
import Dispatch
import LocationCore
import Pipeline
import Synchronization

/// Runs live sources, each on its own thread, and feeds one pipeline on the calling thread.
///
/// Sources hand events over through a bounded queue (never blocking a source: when the pipeline falls more than
/// `queueLimit` events behind, the oldest are dropped and counted). The consumer flushes output after every batch,
/// so a fix leaves on stdout/FIFO as soon as its sentence is processed. With a `recorder`, every raw event and
/// status change is written to a Lodestar capture first, so the session replays to the same output.
public final class LiveRunner: SourceSink, @unchecked Sendable {
    private enum Item { case event(SensorEvent), status(StatusReport) }

    private let queue = Mutex<[Item]>([])
    private let wakeup = DispatchSemaphore(value: 0)
    private let droppedEvents = Atomic<Int>(0)
    public let queueLimit: Int
    private let sources: [any LiveSource]
    private let pipeline: Pipeline?
    private let recorder: CaptureWriter?
    private var threads: [pthread_t] = []
    /// Sources whose thread could not be created (reported as unavailable).
    public private(set) var failedToStart: [String] = []
    /// Latest state per source name (for availability reporting).
    private let states = Mutex<[String: StatusReport.State]>([:])

    public init(sources: [any LiveSource], pipeline: Pipeline?, recorder: CaptureWriter?, queueLimit: Int = 10_000) {
        self.sources = sources
        self.pipeline = pipeline
        self.recorder = recorder
        self.queueLimit = queueLimit
    }

    public var dropped: Int { droppedEvents.load(ordering: .relaxed) }

    /// Sees every raw event on the consumer thread before the pipeline (e.g. `lodestar calibrate --imu`).
    public var eventObserver: ((SensorEvent) -> Void)?

    // MARK: SourceSink (called on source threads)

    public func deliver(_ event: SensorEvent) { enqueue(.event(event)) }

    public func report(_ status: StatusReport) {
        states.withLock { $0[status.source] = status.state }
        enqueue(.status(status))
    }

    private func enqueue(_ item: Item) {
        // Over the limit, the oldest tenth goes at once (amortised O(1)); every dropped event is counted.
        let dropped = queue.withLock { q -> Int in
            q.append(item)
            guard q.count > queueLimit else { return 0 }
            let n = q.count - queueLimit * 9 / 10
            q.removeFirst(n)
            return n
        }
        if dropped > 0 { droppedEvents.add(dropped, ordering: .relaxed) }
        wakeup.signal()
    }

    // MARK: Consumer

    /// Starts every source and processes events until a stop is requested (SIGINT/SIGTERM via the shim's flag,
    /// or `shouldStop` returning true), then stops the sources, drains the queue and finishes the pipeline.
    public func run(shouldStop: () -> Bool = { false }) throws(CaptureError) {
        for (id, source) in sources.enumerated() {
            let sink: any SourceSink = self
            if let t = Self.startThread({ source.run(sourceID: id, sink: sink) }) {
                threads.append(t)
            } else {
                failedToStart.append(source.name)
                report(StatusReport(source: source.name, state: .unavailable, message: "could not start a thread"))
            }
        }
        while clinux_stop_requested() == 0 && !shouldStop() {
            _ = wakeup.wait(timeout: .now() + .milliseconds(100))
            try drain()
        }
        for s in sources { s.stop() }
        for t in threads { pthread_join(t, nil) }
        threads.removeAll()
        try drain()
        pipeline?.finish()
        try recorder?.close()
    }

    private func drain() throws(CaptureError) {
        let items = queue.withLock { q -> [Item] in
            let taken = q
            q.removeAll(keepingCapacity: true)
            return taken
        }
        guard !items.isEmpty else { return }
        for item in items {
            switch item {
            case .event(let e):
                if let recorder { try Self.record(e, to: recorder) }
                eventObserver?(e)
                pipeline?.process(e)
            case .status(let s):
                if let recorder, let id = sources.firstIndex(where: { $0.name == s.source }) {
                    try recorder.writeStatus(monotonicNanos: clinux_monotonic_ns(), source: id,
                                             text: s.state.rawValue + (s.message.map { ": " + $0 } ?? ""))
                }
                pipeline?.emit(.status(s))
            }
        }
        pipeline?.flush()
        try recorder?.flush()
    }

    static func record(_ e: SensorEvent, to w: CaptureWriter) throws(CaptureError) {
        let t = e.monotonicNanos ?? clinux_monotonic_ns()
        switch e.payload {
        case .nmea(let bytes): try w.writeNMEA(monotonicNanos: t, source: e.sourceID, bytes: bytes)
        case .motion(.magnetometerRaw(let s)): try w.writeSample(monotonicNanos: t, source: e.sourceID, kind: .magnetometer, s)
        case .motion(.accelerometerRaw(let s)): try w.writeSample(monotonicNanos: t, source: e.sourceID, kind: .accelerometer, s)
        case .motion(.gyroscopeRaw(let s)): try w.writeSample(monotonicNanos: t, source: e.sourceID, kind: .gyroscope, s)
        case .motion, .fix, .orientation:
            break // converted values and external fixes come from logs, not live sources
        }
    }

    /// Header fields for a capture of these sources, with the clock pairing taken now.
    public static func captureHeader(sources: [any LiveSource], extra: [(key: String, value: String)] = []) -> [(key: String, value: String)] {
        let mono = clinux_monotonic_ns()
        let utc = Timestamp(nanosecondsSince1970: clinux_realtime_ns())
        var fields: [(key: String, value: String)] = [
            ("created", utc.iso8601(fractionDigits: 3)),
            ("clock", "monotonic_ns=\(mono) utc=\(utc.iso8601(fractionDigits: 9))"),
        ]
        for (id, s) in sources.enumerated() {
            let attrs = s.captureAttributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.replacingSpaces)" }
            fields.append(("source", "\(id) name=\(s.name) " + attrs.joined(separator: " ")))
        }
        return fields + extra
    }

    /// Starts a detached POSIX thread running `body` (no Foundation needed).
    static func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
        final class Box { let body: @Sendable () -> Void; init(_ b: @escaping @Sendable () -> Void) { body = b } }
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let r = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let b = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
            b.body()
            return nil
        }, box)
        if r != 0 {
            Unmanaged<Box>.fromOpaque(box).release()
            return nil
        }
        return thread
    }
}

extension String {
    var replacingSpaces: String { String(map { $0 == " " ? "_" : $0 }) }
}
