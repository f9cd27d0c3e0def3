import Foundation
#if canImport(Testing)  // absent from release tool builds (SmoothingEval links TestSupport for its simulated receivers)
import Testing

/// Runs each test case of a suite on threads of its own instead of the Swift concurrency pool, a bounded number
/// of cases at a time.
///
/// Why: many tests here block (they wait for processes, sleep while a server starts, read pipes). Swift Testing
/// calls a synchronous test on the cooperative pool, which has one thread per core — two on the build machine — so
/// two blocking tests stalled every other test, including the async ones whose timing they check (a test measured
/// a 12 s "stop latency" that was only its task waiting for a thread). With this trait the blocking happens on
/// dedicated threads, and `LODESTAR_TEST_SLOTS` (default 4) cases run at once so the real servers the tests start
/// (gpsd, mosquitto, PostgreSQL, Chromium) do not all start together.
public struct OwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        await TestSlots.shared.acquire()
        do {
            try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) { try await function() }
        } catch {
            TestSlots.shared.release()
            throw error
        }
        TestSlots.shared.release()
    }
}

extension Trait where Self == OwnThreadTrait {
    /// See `OwnThreadTrait`.
    public static var ownThreads: OwnThreadTrait { OwnThreadTrait() }
}

/// A task executor that runs every job on a new thread (tests only: simple, and a blocked job blocks nobody else).
final class ThreadPerJobExecutor: TaskExecutor {
    static let shared = ThreadPerJobExecutor()
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let thread = Thread { job.runSynchronously(on: executor) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}

/// An async counting semaphore: waiting suspends, never blocks a thread.
final class TestSlots: @unchecked Sendable {
    static let shared = TestSlots(ProcessInfo.processInfo.environment["LODESTAR_TEST_SLOTS"].flatMap(Int.init) ?? 4)
    private let lock = NSLock()
    private var free: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []
    init(_ count: Int) { free = max(1, count) }

    func acquire() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            lock.lock()
            if free > 0 { free -= 1; lock.unlock(); c.resume() } else { waiters.append(c); lock.unlock() }
        }
    }

    func release() {
        lock.lock()
        if waiters.isEmpty { free += 1; lock.unlock() } else { let c = waiters.removeFirst(); lock.unlock(); c.resume() }
    }
}
#endif
