import CLinux

/// Sleeps `nanoseconds` in steps of at most 20 ms, returning early once `stopping()` is true: a live source's
/// backoff between reconnection attempts, ended promptly by `stop()`.
func interruptibleSleep(nanoseconds: Int64, stopping: () -> Bool) {
    let end = clinux_monotonic_ns() + nanoseconds
    while !stopping() {
        let left = end - clinux_monotonic_ns()
        if left <= 0 { return }
        _ = clinux_sleep_ns(min(left, 20_000_000))
    }
}
