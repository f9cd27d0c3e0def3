import CLinux

/// The process's monotonic clock and its one sleep (no Foundation, no Dispatch). Everything above the syscall
/// layer that needs the time or a pause (the replay pacer, the sinks' deadlines, the thread helper) reads it here.
public enum SystemClock {
    /// CLOCK_MONOTONIC, ns.
    public static func monotonicNanos() -> Int64 { clinux_monotonic_ns() }
    /// Sleeps `nanos` (EINTR-safe in the shim: the rest is slept after a signal); nothing for `nanos` ≤ 0.
    public static func sleep(nanos: Int64) { if nanos > 0 { _ = clinux_sleep_ns(nanos) } }
}

/// The monotonic clock, ns (the sinks' deadlines).
@inline(__always)
func monotonicNanos() -> Int64 { SystemClock.monotonicNanos() }
