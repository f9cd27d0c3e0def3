#if canImport(Glibc)
import Glibc
#endif
import CLinux
import LocationCore
import NetworkOutput
import Synchronization

/// `LodestarBench serve [CLIENTS [SECONDS]]`: the gpsd-protocol server under load. One in-process server, a
/// 10 Hz "receiver" (a TPV and a SKY per cycle through `NetworkOutputs.publish`, the CLI's attachment point),
/// CLIENTS − 1 clients that read (one poll thread) and one that sends ?WATCH and never reads. Reports the delivery
/// latency from publish to the reading client's receipt of the TPV's last byte (p50/p99 over all clients and
/// cycles), what the stalled client lost, and CPU (process; and the clients' reader thread separately).
enum ServerBenchmark {
    static func run(clients: Int, seconds: Int) -> Int32 {
        let outputs = NetworkOutputs(device: "/dev/bench")
        let server: OutputServer
        do { server = try OutputServer(kind: .gpsd, endpoints: [.tcp(host: "127.0.0.1", port: 0)], device: "/dev/bench") } catch {
            print("serve: \(error)"); return 1
        }
        outputs.gpsd = server
        guard case .tcp(_, let port) = server.endpoints[0] else { return 1 }
        var fds: [Int32] = []
        for i in 0..<clients {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            if i == 0 { var small: Int32 = 4096; setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(4)) }
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = UInt16(port).bigEndian
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            let r = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard r == 0 else { print("serve: connect failed: \(errno)"); return 1 }
            let watch = "?WATCH={\"enable\":true,\"json\":true};"
            _ = watch.withCString { send(fd, $0, strlen($0), 0) }
            fds.append(fd)
        }
        server.waitForWatchers(clients)
        let cycles = seconds * 10
        let emitted = UnsafeMutablePointer<Int64>.allocate(capacity: cycles)
        emitted.initialize(repeating: 0, count: cycles)
        let readers = Array(fds.dropFirst())
        let box = ReaderBox(fds: readers, cycles: cycles)
        var thread = pthread_t()
        let arg = Unmanaged.passRetained(box).toOpaque()
        pthread_create(&thread, nil, { p in
            let b = Unmanaged<ReaderBox>.fromOpaque(p!).takeRetainedValue()
            b.run()
            return nil
        }, arg)

        var usageStart = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usageStart)
        let wallStart = clinux_monotonic_ns()
        let base: Int64 = 1_748_779_200_000_000_000
        for k in 0..<cycles {
            let due = wallStart + Int64(k) * 100_000_000
            let now = clinux_monotonic_ns()
            if due > now { _ = clinux_sleep_ns(due - now) }
            var l = Location()
            l.time = Timestamp(nanosecondsSince1970: base + Int64(k) * 100_000_000)
            l.mode = .threeD; l.quality = .gps
            l.latitudeDegrees = 52.37 + Double(k) * 1e-6; l.longitudeDegrees = 4.89
            l.altitudeMSLMeters = 10; l.altitudeEllipsoidMeters = 57; l.geoidSeparationMeters = 47
            l.speedMetersPerSecond = 12.5; l.courseDegrees = 87.5; l.hdop = 0.9; l.vdop = 1.2; l.pdop = 1.5
            l.horizontalAccuracyMeters = 3.2; l.verticalAccuracyMeters = 5.1; l.satellitesUsed = 10
            var sky = SkyReport()
            sky.time = l.time; sky.hdop = 0.9; sky.vdop = 1.2; sky.pdop = 1.5
            for s in 1...14 {
                sky.satellites.append(SatelliteInfo(nmeaID: s, constellation: .gps, svid: s, elevationDegrees: Double(5 * s),
                                                    azimuthDegrees: Double(25 * s), snrDBHz: 30 + Double(s), used: s <= 10))
            }
            outputs.publish(.sky(sky))
            emitted[k] = clinux_monotonic_ns()
            outputs.publish(.fix(l))
        }
        // Let the readers finish (they have what was sent once their count of TPVs is complete).
        let deadline = clinux_monotonic_ns() + 5_000_000_000
        while !box.done.load(ordering: .acquiring) && clinux_monotonic_ns() < deadline { _ = clinux_sleep_ns(10_000_000) }
        box.stop.store(true, ordering: .releasing)
        pthread_join(thread, nil)
        let wall = Double(clinux_monotonic_ns() - wallStart) / 1e9
        var usageEnd = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usageEnd)
        func cpu(_ u: rusage) -> Double {
            Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
        }
        let processCPU = cpu(usageEnd) - cpu(usageStart)
        let stats = server.statistics
        var latencies: [Int64] = []
        var missing = 0
        for (c, received) in box.received.enumerated() {
            for k in 0..<cycles {
                let t = received[k]
                if t == 0 { missing += 1; _ = c; continue }
                latencies.append(t - emitted[k])
            }
        }
        latencies.sort()
        func pct(_ p: Double) -> Double {
            guard !latencies.isEmpty else { return .nan }
            return Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]) / 1e6
        }
        print("serve: \(clients) clients (1 never reads), 10 Hz TPV+SKY for \(seconds) s: \(latencies.count) TPV deliveries to readers, "
              + "\(missing) missing")
        print("serve: latency publish → client receipt p50 \(format(pct(0.5))) ms, p99 \(format(pct(0.99))) ms, "
              + "max \(format(pct(1.0))) ms (target p99 ≤ 5 ms)")
        print("serve: stalled client: \(stats.dropped) events dropped (oldest first); readers: \(missing) lost")
        print("serve: CPU \(format(100 * processCPU / wall))% of one core for the process, of which the \(clients - 1) "
              + "clients' reader thread \(format(100 * box.readerCPUSeconds / wall))%; server + publisher "
              + "\(format(100 * (processCPU - box.readerCPUSeconds) / wall))%")
        server.shutdown(drainSeconds: 0)
        for fd in fds { close(fd) }
        return missing == 0 ? 0 : 1
    }

    static func format(_ v: Double) -> String {
        let r = (v * 100).rounded() / 100
        return "\(r)"
    }
}

/// The reading clients: one poll loop over all sockets; for each TPV (by its time) the receipt time.
final class ReaderBox: @unchecked Sendable {
    let fds: [Int32]
    let cycles: Int
    var received: [[Int64]]
    let done = Atomic<Bool>(false)
    let stop = Atomic<Bool>(false)
    var readerCPUSeconds = 0.0

    init(fds: [Int32], cycles: Int) {
        self.fds = fds; self.cycles = cycles
        received = Array(repeating: Array(repeating: 0, count: cycles), count: fds.count)
    }

    func run() {
        var start = rusage()
        getrusage(1 /* RUSAGE_THREAD */, &start)
        var polls = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var partial = Array(repeating: [UInt8](), count: fds.count)
        var counts = Array(repeating: 0, count: fds.count)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let tag = Array("\"time\":\"2025-06-01T12:".utf8)
        var complete = 0
        while !stop.load(ordering: .acquiring) && complete < fds.count {
            let n = poll(&polls, nfds_t(polls.count), 50)
            if n <= 0 { continue }
            let now = clinux_monotonic_ns()
            for i in polls.indices where polls[i].revents & Int16(POLLIN) != 0 {
                let got = recv(fds[i], &buffer, buffer.count, Int32(MSG_DONTWAIT))
                guard got > 0 else { continue }
                partial[i] += buffer[0..<got]
                while let nl = partial[i].firstIndex(of: 0x0A) {
                    let line = partial[i][..<nl]
                    if line.starts(with: Array("{\"class\":\"TPV\"".utf8)), let k = Self.cycle(line, tag: tag), k < cycles {
                        if received[i][k] == 0 { received[i][k] = now; counts[i] += 1; if counts[i] == cycles { complete += 1 } }
                    }
                    partial[i].removeSubrange(...nl)
                }
            }
        }
        var end = rusage()
        getrusage(1 /* RUSAGE_THREAD */, &end)
        readerCPUSeconds = Double(end.ru_utime.tv_sec - start.ru_utime.tv_sec + end.ru_stime.tv_sec - start.ru_stime.tv_sec)
            + Double(end.ru_utime.tv_usec - start.ru_utime.tv_usec + end.ru_stime.tv_usec - start.ru_stime.tv_usec) / 1e6
        done.store(true, ordering: .releasing)
    }

    /// The cycle index from the TPV's time (12:MM:SS.d after 12:00:00.0).
    static func cycle(_ line: ArraySlice<UInt8>, tag: [UInt8]) -> Int? {
        guard let r = line.firstRange(of: tag) else { return nil }
        let s = Array(line[r.upperBound...].prefix(7))  // "MM:SS.d"
        guard s.count == 7 else { return nil }
        func d(_ b: UInt8) -> Int { Int(b) - 48 }
        return ((d(s[0]) * 10 + d(s[1])) * 60 + d(s[3]) * 10 + d(s[4])) * 10 + d(s[6])
    }
}
