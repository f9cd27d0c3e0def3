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

/// A live source's reconnect loop: one `session` after another (each may reset or advance the backoff), with the
/// backoff's pause between them, until `stopping()` — shared by the serial and gpsd sources.
func runSessions(backoff initial: Backoff, stopping: () -> Bool, session: (inout Backoff) -> Void) {
    var backoff = initial
    while !stopping() {
        session(&backoff)
        if stopping() { break }
        interruptibleSleep(nanoseconds: backoff.nextDelayNanos(), stopping: stopping)
    }
}

/// Sleeps `nanoseconds` through an injected `sleep` (simulated time in tests) in slices of at most
/// `sliceNanoseconds`, returning early once `stopping()` is true: the I2C and IIO sources' pause between polls.
func slicedSleep(nanoseconds: Int64, sliceNanoseconds: Int64, sleep: (Int64) -> Void, stopping: () -> Bool) {
    var remaining = nanoseconds
    while remaining > 0 && !stopping() {
        let slice = min(remaining, sliceNanoseconds)
        sleep(slice)
        remaining -= slice
    }
}
