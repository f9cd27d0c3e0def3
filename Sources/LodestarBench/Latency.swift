#if canImport(Glibc)
import Glibc
#endif
import CLinux
import NMEA

/// End-to-end latency of the live path: a sentence written into a pseudo-terminal's master, read by
/// `lodestar run --gps /dev/pts/N` (serial source → pipeline → FIFO sink), until its fix line is read from the
/// FIFO. One sentence in flight at a time, so the figure is latency, not queueing.
enum LatencyBenchmark {
    static func run(lodestar: String, count: Int) -> Int32 {
        var name = [CChar](repeating: 0, count: 128)
        let master = clinux_pty_open(&name, name.count)
        guard master >= 0 else { print("latency: cannot open a pty (\(-master))"); return 1 }
        defer { _ = clinux_close(master) }
        let slave = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let fifo = "/tmp/lodestar-latency-\(getpid()).fifo"
        unlink(fifo)
        guard mkfifo(fifo, 0o600) == 0 else { print("latency: mkfifo failed"); return 1 }
        defer { unlink(fifo) }
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        guard reader >= 0 else { print("latency: cannot open FIFO"); return 1 }
        defer { close(reader) }

        let args = [lodestar, "run", "--gps", "\(slave)@115200", "--fifo", fifo, "--fifo-only", "--no-sky", "--quiet"]
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) }
        argv.append(nil)
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let devnull = open("/dev/null", O_WRONLY)
        let r = argv.withUnsafeMutableBufferPointer { clinux_spawn(lodestar, $0.baseAddress, devnull, devnull, &pid) }
        close(devnull)
        guard r == 0 else { print("latency: cannot start \(lodestar)"); return 1 }
        defer { _ = clinux_kill_and_reap(pid, SIGTERM, 3000) }

        var pending: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        /// Waits for one complete line on the FIFO; false on timeout.
        func readLine(timeoutMs: Int32) -> Bool {
            let deadline = clinux_monotonic_ns() + Int64(timeoutMs) * 1_000_000
            while true {
                if let nl = pending.firstIndex(of: 0x0A) { pending.removeSubrange(0...nl); return true }
                let left = deadline - clinux_monotonic_ns()
                if left <= 0 { return false }
                var p = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
                _ = poll(&p, 1, Int32(max(1, left / 1_000_000)))
                let n = buf.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
                if n > 0 { pending += buf[0..<n] } else if n == 0 { usleep(200) }
            }
        }
        func sentence(_ k: Int) -> [UInt8] {
            let s = k % 86_400
            let t = "\(pad(s / 3600))\(pad(s / 60 % 60))\(pad(s % 60)).00"
            return Array(NMEAEncoder.sentence("GPRMC,\(t),A,4807.038,N,01131.000,E,1.0,45.0,230324,,,A").utf8)
        }
        func pad(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        func write(_ bytes: [UInt8]) { bytes.withUnsafeBytes { _ = clinux_write(master, $0.baseAddress, $0.count) } }

        // Warm-up: the serial source opens the slave; after two cycles the epoch assembler has learned that
        // RMC ends a cycle and emits on it.
        var k = 0
        var warm = 0
        let startDeadline = clinux_monotonic_ns() + 10_000_000_000
        while warm < 5 && clinux_monotonic_ns() < startDeadline {
            write(sentence(k)); k += 1
            if readLine(timeoutMs: 200) { warm += 1 }
        }
        guard warm == 5 else { print("latency: lodestar run produced no output (is the serial source built?)"); return 1 }
        while readLine(timeoutMs: 50) {}

        var samples: [Int64] = []
        samples.reserveCapacity(count)
        var timeouts = 0
        for _ in 0..<count {
            let s = sentence(k); k += 1
            let t0 = clinux_monotonic_ns()
            write(s)
            if readLine(timeoutMs: 1000) { samples.append(clinux_monotonic_ns() - t0) } else { timeouts += 1 }
        }
        samples.sort()
        func pct(_ p: Double) -> Double {
            guard !samples.isEmpty else { return .nan }
            return Double(samples[min(samples.count - 1, Int(Double(samples.count) * p))]) / 1000
        }
        print("latency (pty → lodestar run → FIFO), \(samples.count) sentences: p50 \(fmt(pct(0.5))) µs, p99 \(fmt(pct(0.99))) µs, max \(fmt(pct(1.0))) µs, timeouts \(timeouts) (target p99 ≤ 1000 µs)")
        return 0
    }

    static func fmt(_ v: Double) -> String { String(Double(Int(v * 10)) / 10) }
}
