import CLinux

/// Waiting for a condition instead of sleeping a fixed time: polls every `intervalNanos` until `condition` holds
/// (true) or `seconds` pass (false). A fixed sleep is either too short on a loaded machine or wastes time on an idle one.
public enum Poll {
    @discardableResult
    public static func until(seconds: Double = 10, intervalNanos: Int64 = 10_000_000, _ condition: () -> Bool) -> Bool {
        let deadline = clinux_monotonic_ns() + Int64(seconds * 1e9)
        while !condition() {
            if clinux_monotonic_ns() > deadline { return false }
            _ = clinux_sleep_ns(intervalNanos)
        }
        return true
    }
}
