import CLinux
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The database side on its own thread: takes what the MQTT side received and commits it in batches; a failed
/// batch is kept and retried (rows are idempotent) with backoff, reported once per distinct error.
final class FleetWriter: @unchecked Sendable {
    private let store: FleetStore
    private let batchNanos: Int64
    private let pending = Mutex<(fixes: [FleetFix], events: [FleetRegionEvent])>(([], []))
    private let stopping = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private var thread: pthread_t?
    /// Publish→commit latency (ms), from the fix time to the commit on this machine's clock; receive→commit too.
    let latencies = Mutex<(fromFixTime: [Int32], fromReceive: [Int32])>(([], []))
    let counters = Mutex<(committed: Int, inserted: Int, batches: Int, errors: Int, lastError: String?)>((0, 0, 0, 0, nil))
    let limit = 2_000_000

    init(store: FleetStore, batchMilliseconds: Int) {
        self.store = store
        batchNanos = Int64(max(1, batchMilliseconds)) * 1_000_000
    }

    func add(_ fix: FleetFix) { pending.withLock { if $0.fixes.count < limit { $0.fixes.append(fix) } } }
    func add(_ event: FleetRegionEvent) { pending.withLock { $0.events.append(event) } }

    func start() {
        let box = Unmanaged.passRetained(self).toOpaque()
        var t = pthread_t()
        if pthread_create(&t, nil, { raw in
            Unmanaged<FleetWriter>.fromOpaque(raw!).takeRetainedValue().loop()
            return nil
        }, box) == 0 { thread = t } else { Unmanaged<FleetWriter>.fromOpaque(box).release(); failFleet("cannot start the writer thread", code: 71) }
    }

    func finish() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wake.signal()
        if let t = thread { pthread_join(t, nil) }
    }

    private func loop() {
        var backoff: Int64 = 200_000_000
        var reported: String?
        while true {
            let stop = stopping.load(ordering: .sequentiallyConsistent)
            if !stop { _ = wake.wait(timeout: .now() + .nanoseconds(Int(batchNanos))) }
            let (fixes, events) = pending.withLock { p -> ([FleetFix], [FleetRegionEvent]) in
                let t = (p.fixes, p.events); p.fixes.removeAll(keepingCapacity: true); p.events.removeAll(keepingCapacity: true); return t
            }
            if fixes.isEmpty && events.isEmpty { if stop { return }; continue }
            do {
                let inserted = try store.write(fixes, events)
                let wall = clinux_realtime_ns(), mono = clinux_monotonic_ns()
                latencies.withLock { l in
                    guard l.fromFixTime.count < limit else { return }
                    for f in fixes {
                        l.fromFixTime.append(Int32(clamping: (wall - f.time.nanosecondsSince1970) / 1_000_000))
                        l.fromReceive.append(Int32(clamping: (mono - f.receivedMonotonicNanos) / 1_000_000))
                    }
                }
                counters.withLock { $0.committed += fixes.count; $0.inserted += inserted; $0.batches += 1 }
                if reported != nil { printErr("lodestar fleet: database: recovered"); reported = nil }
                backoff = 200_000_000
            } catch {
                counters.withLock { $0.errors += 1; $0.lastError = error.description }
                if reported != error.description { printErr("lodestar fleet: database: \(error.description) (retrying)"); reported = error.description }
                pending.withLock { p in p.fixes.insert(contentsOf: fixes, at: 0); p.events.insert(contentsOf: events, at: 0) }
                if stop && backoff > 3_200_000_000 { printErr("lodestar fleet: database: giving up, \(fixes.count) fixes not written"); return }
                _ = clinux_sleep_ns(backoff)
                backoff = min(backoff * 2, 5_000_000_000)
            }
        }
    }
}
