import Devices
import LocationCore
import Synchronization

/// Events from outside the session's sources — MQTT broker statuses, an output that broke, any other service's
/// status — posted from any thread. They enter the session's input like every source event: in a live session
/// through the live event queue (stamped, recorded in the capture, so its replay reproduces them); in a replay
/// between the capture's events. Nothing reaches the pipeline's output any other way.
public final class SessionInbox: Sendable {
    private struct State {
        var pending: [StatusReport] = []
        var queue: LiveEventQueue?
    }
    private let state = Mutex(State())
    /// Statuses wait in `pending` (a replay checks this per event without taking the lock: no cost on the hot path).
    private let hasPending = Atomic<Bool>(false)

    public init() {}

    /// Posts a status (any thread).
    public func post(_ status: StatusReport) {
        state.withLock { s in
            if let queue = s.queue { queue.report(status) } else {
                s.pending.append(status)
                hasPending.store(true, ordering: .releasing)
            }
        }
    }

    /// Live: from now on statuses go straight into `queue` (those posted before go first, in order).
    func attach(_ queue: LiveEventQueue) {
        state.withLock { s in
            for status in s.pending { queue.report(status) }
            s.pending.removeAll()
            hasPending.store(false, ordering: .releasing)
            s.queue = queue
        }
    }

    /// Replay: the statuses posted since the last call, in order.
    func take() -> [StatusReport] {
        guard hasPending.load(ordering: .acquiring) else { return [] }
        return state.withLock { s in
            let taken = s.pending
            s.pending.removeAll()
            hasPending.store(false, ordering: .releasing)
            return taken
        }
    }
}
