import CLinux
import LocationCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Publishes to one broker from its own thread, so the pipeline never waits for the network (docs/fleet.md).
///
/// The pipeline thread calls `publish`, which only appends to an in-memory hand-over list (bounded: past
/// `handoverLimit` the oldest are dropped and counted). The publisher thread moves *durable* messages (fixes and
/// service events, QoS 1) into the on-disk `DiskQueue` first and sends them from there, in order, at most
/// `windowSize` unacknowledged at a time; a record leaves the spool only when the broker's PUBACK arrived. After a
/// lost connection every unacknowledged record is sent again (QoS 1 is at-least-once: a subscriber may see a
/// duplicate, never a gap). *Volatile* messages (headings, sky) are QoS 0 and dropped while disconnected.
/// Connection failures are reported as `status` events (source `mqtt`) and retried with backoff (0.5 s doubling
/// to `maxBackoffSeconds`); the same failure is reported once, not once per attempt.
public final class MQTTPublisher: @unchecked Sendable {
    public struct Message: Sendable {
        public var topic: String
        public var payload: [UInt8]
        public var qos: Int32
        public var retain: Bool
        /// Journaled in the spool and delivered after reconnects (fixes, events).
        public var durable: Bool
        public init(topic: String, payload: [UInt8], qos: Int32, retain: Bool, durable: Bool) {
            self.topic = topic; self.payload = payload; self.qos = qos; self.retain = retain; self.durable = durable
        }
    }

    public struct Configuration: Sendable {
        public var client: MQTTClientSettings
        public var spoolDirectory: String
        public var spoolLimits = DiskQueue.Limits()
        public var windowSize = 100
        public var maxBackoffSeconds = 30.0
        /// Seconds to wait for a CONNACK before giving up on an attempt.
        public var connectTimeoutSeconds = 10.0
        /// Published (retained) after every successful connect: availability "online", Home Assistant discovery.
        public var onConnect: [Message] = []
        /// Published before a clean disconnect (availability "offline"; the will covers an unclean end).
        public var onDisconnect: [Message] = []
        public var handoverLimit = 100_000
        public init(client: MQTTClientSettings, spoolDirectory: String) { self.client = client; self.spoolDirectory = spoolDirectory }
    }

    public struct Statistics: Sendable {
        /// Durable messages acknowledged by the broker.
        public var delivered = 0
        public var volatileSent = 0
        public var volatileDropped = 0
        public var handoverDropped = 0
        public var droppedForSize = 0
        public var droppedForAge = 0
        public var corruptRecords = 0
        public var spoolWriteErrors = 0
        /// Durable messages still in the spool at the end (sent next time).
        public var pending = 0
        /// Durable messages handed to `publish`, and those recovered from the spool at start.
        public var handedOver = 0
        public var recovered = 0
        /// Durable messages among `handoverDropped`.
        public var handoverDroppedDurable = 0
        /// Spool records that could not be read back when their turn came (skipped).
        public var missingRecords = 0
        /// Durable messages that no counter accounts for: handed over or recovered, but neither delivered, pending,
        /// dropped nor skipped. 0 unless something lost them silently.
        public var unaccounted: Int {
            handedOver + recovered - delivered - pending - droppedForSize - droppedForAge - missingRecords - handoverDroppedDurable
        }
        public var connects = 0
        public var everConnected = false
        public var lastError: String?
    }

    public let configuration: Configuration
    private let incoming = Mutex<[Message]>([])
    private let handoverDropped = Atomic<Int>(0)
    private let handoverDroppedDurable = Atomic<Int>(0)
    private let handedOverDurable = Atomic<Int>(0)
    private let stopDeadline = Atomic<Int64>(0)   // 0: running; else monotonic ns to give up draining
    private let stats = Mutex(Statistics())
    private var thread: pthread_t?
    private let queue: DiskQueue
    /// Called on the publisher thread when the connection state changes.
    public var onStatus: (@Sendable (StatusReport) -> Void)?

    /// Opens (and recovers) the spool; throws when its directory cannot be created or read.
    public init(_ configuration: Configuration) throws(DiskQueue.OpenError) {
        self.configuration = configuration
        queue = try DiskQueue(directory: configuration.spoolDirectory, limits: configuration.spoolLimits)
        recoveredAtStart = queue.pendingCount
    }
    private let recoveredAtStart: Int

    /// Records recovered from the spool at start (from an earlier run).
    public var recoveredRecords: Int { recoveredAtStart }

    public func start() {
        let box = Unmanaged.passRetained(self).toOpaque()
        var t = pthread_t()
        let r = pthread_create(&t, nil, { raw in
            let me = Unmanaged<MQTTPublisher>.fromOpaque(raw!).takeRetainedValue()
            me.run()
            return nil
        }, box)
        if r == 0 { thread = t } else {
            Unmanaged<MQTTPublisher>.fromOpaque(box).release()
            stats.withLock { $0.lastError = "could not start the publisher thread" }
            onStatus?(StatusReport(source: "mqtt", state: .unavailable, message: "could not start the publisher thread"))
        }
    }

    /// Never blocks: hands the message to the publisher thread.
    public func publish(_ m: Message) {
        if m.durable { handedOverDurable.add(1, ordering: .relaxed) }
        let overflow = incoming.withLock { q -> (all: Int, durable: Int) in
            q.append(m)
            let extra = q.count - configuration.handoverLimit
            if extra > 0 {
                let durable = q.prefix(extra).reduce(0) { $0 + ($1.durable ? 1 : 0) }
                q.removeFirst(extra)
                return (extra, durable)
            }
            return (0, 0)
        }
        if overflow.all > 0 { handoverDropped.add(overflow.all, ordering: .relaxed) }
        if overflow.durable > 0 { handoverDroppedDurable.add(overflow.durable, ordering: .relaxed) }
    }

    /// Stops: delivers what is queued for up to `drainSeconds` while connected (not at all when the broker is
    /// unreachable: the spool keeps it for the next start), publishes `onDisconnect`, disconnects cleanly.
    public func finish(drainSeconds: Double) -> Statistics {
        requestStop(drainSeconds: drainSeconds)
        if let t = thread { pthread_join(t, nil); thread = nil } else { ingest(); queue.close() }
        return statistics
    }

    /// Sets the drain deadline (what `finish` does before it waits for the publisher thread).
    func requestStop(drainSeconds: Double) {
        stopDeadline.store(clinux_monotonic_ns() + Int64(max(0.001, drainSeconds) * 1e9), ordering: .sequentiallyConsistent)
    }

    /// Tests only: called on the publisher thread after each `ingest()` and before the stop check, with whether the
    /// spool is drained and the broker connected (the moment a `publish` + `finish` from another thread could slip in).
    nonisolated(unsafe) var testHookBeforeStopCheck: ((_ drainedAndConnected: Bool) -> Void)?

    public var statistics: Statistics {
        var s = stats.withLock { $0 }
        s.handoverDropped = handoverDropped.load(ordering: .relaxed)
        s.handoverDroppedDurable = handoverDroppedDurable.load(ordering: .relaxed)
        s.handedOver = handedOverDurable.load(ordering: .relaxed)
        s.recovered = recoveredAtStart
        return s
    }

    // MARK: The publisher thread

    private var connection: MQTTConnection?
    private var connected = false
    private var connectStarted: Int64 = 0
    private var nextAttempt: Int64 = 0
    private var backoffSeconds = 0.5
    private var failedSinceStop = false
    private var reportedState: StatusReport.State?
    private var reportedMessage: String?
    private var sendSeq: UInt64 = 0
    private var inflight: [Int32: UInt64] = [:]
    private var ackedAhead = Set<UInt64>()
    private var volatileQueue: [Message] = []
    private var controlInflight = Set<Int32>()

    private func run() {
        sendSeq = queue.ackedSeq + 1
        report(.starting, "connecting to \(configuration.client.url)")
        while true {
            let now = clinux_monotonic_ns()
            ingest()
            queue.syncIfDue(nowNanos: clinux_realtime_ns())
            testHookBeforeStopCheck?(queue.pendingCount == 0 && volatileQueue.isEmpty && connected)
            let deadline = stopDeadline.load(ordering: .sequentiallyConsistent)
            if deadline != 0 {
                // Everything handed over before `finish` set the deadline is in `incoming` now, but the `ingest()`
                // above may have run before the last of it arrived: take it before deciding that all is drained
                // (without this, the messages handed over between that ingest and `finish` were never sent nor
                // counted: 34 of 304 in one of 180 board runs under load).
                ingest()
                let drained = queue.pendingCount == 0 && volatileQueue.isEmpty
                if now >= deadline || (drained && connected) || failedSinceStop || (drained && !connected && connection == nil && reportedState == .unavailable) { break }
            }
            if !connected {
                if connection == nil {
                    if now >= nextAttempt { attemptConnect() } else { _ = clinux_sleep_ns(min(20_000_000, nextAttempt - now)) }
                    continue
                }
                // Waiting for CONNACK.
                let err = connection?.loop(timeoutMilliseconds: 20)
                handleEvents()   // a refused CONNACK arrives as an event and as a loop error: the event says why
                if let err, connection != nil { failed(err); continue }
                if !connected, connection != nil, Double(clinux_monotonic_ns() - connectStarted) > configuration.connectTimeoutSeconds * 1e9 {
                    failed("no answer from the broker within \(Int(configuration.connectTimeoutSeconds)) s")
                }
                continue
            }
            sendPending()
            let err = connection?.loop(timeoutMilliseconds: 20)
            handleEvents()
            if let err, connection != nil { failed("connection lost: " + err) }
        }
        if connected, let c = connection {
            var mids = Set<Int32>()
            for m in configuration.onDisconnect {
                if case .success(let mid) = c.publish(topic: m.topic, payload: m.payload, qos: m.qos, retain: m.retain) { mids.insert(mid) }
            }
            let end = clinux_monotonic_ns() + 2_000_000_000
            controlInflight = mids
            while !controlInflight.isEmpty && clinux_monotonic_ns() < end {
                if c.loop(timeoutMilliseconds: 20) != nil { break }
                handleEvents()
            }
            c.disconnect()
            _ = c.loop(timeoutMilliseconds: 20)
        }
        connection = nil
        queue.close()
        updateStats()
        if reportedState == .available || reportedState == .recovered { report(.finished, nil) }
    }

    private func ingest() {
        let items = incoming.withLock { q -> [Message] in let t = q; q.removeAll(keepingCapacity: true); return t }
        guard !items.isEmpty else { return }
        let wall = clinux_realtime_ns()
        for m in items {
            if m.durable {
                queue.append(topic: m.topic, payload: m.payload, qos: m.qos, retain: m.retain, nowNanos: wall)
            } else if connected {
                volatileQueue.append(m)
            } else {
                stats.withLock { $0.volatileDropped += 1 }
            }
        }
        if sendSeq <= queue.ackedSeq { sendSeq = queue.ackedSeq + 1 }   // the oldest were dropped for size
        updateStats()
    }

    private func attemptConnect() {
        let s = configuration.client
        do {
            let c = try MQTTConnection(s)
            if let err = c.connect(host: s.url.host, port: s.url.port, keepaliveSeconds: s.keepaliveSeconds) {
                connection = c
                failed(err)
                return
            }
            connection = c
            connectStarted = clinux_monotonic_ns()
        } catch {
            connection = nil
            failed(error.description)
        }
    }

    private func failed(_ message: String) {
        var text = message
        if let log = connection?.lastLogError, !text.contains(log) { text += " (\(log))" }
        connection = nil
        connected = false
        inflight.removeAll()
        controlInflight.removeAll()
        ackedAhead.removeAll()
        skippedAhead.removeAll()
        volatileQueue.removeAll()
        sendSeq = queue.ackedSeq + 1
        if stopDeadline.load(ordering: .sequentiallyConsistent) != 0 { failedSinceStop = true }
        stats.withLock { $0.lastError = text }
        report(.unavailable, text)
        nextAttempt = clinux_monotonic_ns() + Int64(backoffSeconds * 1e9)
        backoffSeconds = min(backoffSeconds * 2, configuration.maxBackoffSeconds)
    }

    private func handleEvents() {
        guard let c = connection else { return }
        for e in c.takeEvents() {
            switch e {
            case .connected:
                connected = true
                backoffSeconds = 0.5
                let wasDown = reportedState == .unavailable
                stats.withLock { $0.connects += 1; $0.everConnected = true }
                for m in configuration.onConnect { _ = c.publish(topic: m.topic, payload: m.payload, qos: m.qos, retain: m.retain) }
                report(wasDown ? .recovered : .available, "\(configuration.client.url)")
            case .refused(let code, let reason):
                var text = "broker refused the connection: \(reason)"
                if code == 4 || code == 5 { text += " (check the user in the URL and --mqtt-password-file)" }
                failed(text)
                return
            case .disconnected(let reason):
                failed("connection lost: \(reason)")
                return
            case .published(let mid):
                if controlInflight.remove(mid) != nil { continue }
                if let seq = inflight.removeValue(forKey: mid) { acknowledged(seq) }
            case .message, .subscribed:
                break
            }
        }
    }

    private var skippedAhead = Set<UInt64>()

    /// `seq` was acknowledged by the broker, or (`delivered` false) skipped: expired or missing from the spool.
    private func acknowledged(_ seq: UInt64, delivered countIt: Bool = true) {
        if !countIt { skippedAhead.insert(seq) }
        ackedAhead.insert(seq)
        var through = queue.ackedSeq
        var delivered = 0
        while ackedAhead.remove(through + 1) != nil {
            through += 1
            if skippedAhead.remove(through) == nil { delivered += 1 }
        }
        if through > queue.ackedSeq {
            queue.acknowledge(through: through)
            stats.withLock { $0.delivered += delivered }
        }
    }

    private func sendPending() {
        guard let c = connection else { return }
        for m in volatileQueue {
            _ = c.publish(topic: m.topic, payload: m.payload, qos: m.qos, retain: m.retain)
        }
        if !volatileQueue.isEmpty { stats.withLock { $0.volatileSent += volatileQueue.count } }
        volatileQueue.removeAll(keepingCapacity: true)
        let wall = clinux_realtime_ns()
        while inflight.count < configuration.windowSize && sendSeq < queue.nextSeq {
            guard let r = queue.record(sendSeq) else {
                if sendSeq > queue.ackedSeq { stats.withLock { $0.missingRecords += 1 } }
                acknowledged(sendSeq, delivered: false); sendSeq += 1; continue
            }
            if queue.isExpired(r, nowNanos: wall) {
                queue.noteExpired()
                acknowledged(sendSeq, delivered: false); sendSeq += 1
                continue
            }
            switch c.publish(topic: r.topic, payload: r.payload, qos: r.qos, retain: r.retain) {
            case .success(let mid): inflight[mid] = r.seq; sendSeq += 1
            case .failure(let e): failed("publish: " + e.text); return
            }
        }
        updateStats()
    }

    private func updateStats() {
        let q = queue
        stats.withLock {
            $0.pending = q.pendingCount
            $0.droppedForSize = q.droppedForSize
            $0.droppedForAge = q.droppedForAge
            $0.corruptRecords = q.corruptRecords
            $0.spoolWriteErrors = q.writeErrors
        }
    }

    private func report(_ state: StatusReport.State, _ message: String?) {
        if state == reportedState && message == reportedMessage { return }
        if state == .unavailable && reportedState == .unavailable && message == reportedMessage { return }
        reportedState = state
        reportedMessage = message
        onStatus?(StatusReport(source: "mqtt", state: state, message: message))
    }
}
