import CLinux
import LocationCore
import LocationServices
import MQTT
#if canImport(Glibc)
import Glibc
#endif

/// The MQTT side of `lodestar fleet`: subscribes to every board's fixes, runs a RegionMonitor per device (the same
/// one the boards run), publishes fleet-side region events, and hands fixes and events to the writer.
final class FleetIngest {
    let client: MQTTClientSettings
    let prefix: String
    let regions: [CircularRegion]
    let shard: (index: Int, count: Int)?
    let writer: FleetWriter
    let printEvents: Bool
    let statsInterval: Double
    private var monitors: [String: RegionMonitor] = [:]
    private var received = 0, rejected = 0, otherShard = 0, noPosition = 0, events = 0, retainedSeen = 0
    private var devices = Set<String>()
    private var outbox: [(String, [UInt8])] = []

    init(client: MQTTClientSettings, prefix: String, regions: [CircularRegion], shard: (Int, Int)?, writer: FleetWriter,
         printEvents: Bool, statsInterval: Double) {
        self.client = client; self.prefix = prefix; self.regions = regions
        self.shard = shard.map { (index: $0.0, count: $0.1) }
        self.writer = writer; self.printEvents = printEvents; self.statsInterval = statsInterval
    }

    func run() {
        var backoff = 0.5
        var reported: String?
        var nextStats = clinux_monotonic_ns() + Int64(statsInterval * 1e9)
        while clinux_stop_requested() == 0 {
            let connection: MQTTConnection
            do { connection = try MQTTConnection(client) } catch { failFleet(error.description, code: 64) }
            var error = connection.connect(host: client.url.host, port: client.url.port, keepaliveSeconds: client.keepaliveSeconds)
            var connected = false
            let started = clinux_monotonic_ns()
            while error == nil && clinux_stop_requested() == 0 {
                let err = connection.loop(timeoutMilliseconds: 50)
                for e in connection.takeEvents() {
                    switch e {
                    case .connected:
                        connected = true
                        backoff = 0.5
                        if let r = reported { printErr("lodestar fleet: mqtt: connected (was: \(r))") } else { printErr("lodestar fleet: mqtt: connected to \(client.url)") }
                        reported = nil
                        for pattern in ["\(prefix)/+/fix", "\(prefix)/+"] {
                            if let e = connection.subscribe(pattern, qos: 1) { error = "subscribe: \(e)" }
                        }
                    case .refused(_, let reason): error = "broker refused the connection: \(reason)"
                    case .disconnected(let reason): error = "connection lost: \(reason)"
                    case .message(let topic, let payload, let retained): handle(topic: topic, payload: payload, retained: retained)
                    case .published, .subscribed: break
                    }
                }
                if error == nil, let err { error = err }
                for (topic, payload) in outbox { _ = connection.publish(topic: topic, payload: payload, qos: 1, retain: false) }
                outbox.removeAll(keepingCapacity: true)
                if !connected && clinux_monotonic_ns() - started > 10_000_000_000 { error = "no answer from the broker" }
                if statsInterval > 0 && clinux_monotonic_ns() >= nextStats {
                    printErr(summary(writer: writer))
                    nextStats = clinux_monotonic_ns() + Int64(statsInterval * 1e9)
                }
            }
            if clinux_stop_requested() != 0 {
                connection.disconnect()
                _ = connection.loop(timeoutMilliseconds: 20)
                break
            }
            if let error, error != reported { printErr("lodestar fleet: mqtt: unavailable — \(error) (retrying)"); reported = error }
            _ = clinux_sleep_ns(Int64(backoff * 1e9))
            backoff = min(backoff * 2, 30)
        }
    }

    private func handle(topic: String, payload: [UInt8], retained: Bool) {
        guard let (device, ownTracks) = FleetMessage.device(topic: topic, prefix: prefix) else { return }
        if let s = shard, FleetMessage.shard(of: device, count: s.count) != s.index { otherShard += 1; return }
        received += 1
        if retained { retainedSeen += 1 }
        guard let l = FleetMessage.parse(payload, ownTracks: ownTracks), let t = l.time else {
            if ownTracks || payload.starts(with: Array("{\"class\":\"fix\"".utf8)) { noPosition += 1 } else { rejected += 1 }
            return
        }
        devices.insert(device)
        writer.add(FleetFix(device: device, location: l, time: t, receivedMonotonicNanos: clinux_monotonic_ns()))
        guard !regions.isEmpty else { return }
        var found: [RegionEvent] = []
        if monitors[device] == nil { monitors[device] = RegionMonitor(regions: regions) }
        monitors[device]!.process(l, into: &found)
        for e in found {
            events += 1
            let body = MQTTPayload.lodestar(.service(.region(e)))
            outbox.append(("\(prefix)/\(device)/fleet/event", body))
            writer.add(FleetRegionEvent(device: device, event: RegionEventRow(
                time: e.time, region: e.identifier, kind: e.kind.rawValue, previousState: e.previousState.rawValue,
                latitudeDegrees: e.location.latitudeDegrees ?? 0, longitudeDegrees: e.location.longitudeDegrees ?? 0,
                distanceMeters: e.distanceMeters)))
            if printEvents {
                var text = String(decoding: body, as: UTF8.self)
                if let comma = text.firstIndex(of: ",") { text.insert(contentsOf: "\"device\":\(JSONText.quoted(device)),", at: text.index(after: comma)) }
                printOut(text)
            }
        }
    }

    func summary(writer: FleetWriter) -> String {
        let c = writer.counters.withLock { $0 }
        let (p50, p99, r50, r99) = writer.latencies.withLock { l -> (Int32?, Int32?, Int32?, Int32?) in
            func pct(_ a: [Int32], _ q: Double) -> Int32? {
                guard !a.isEmpty else { return nil }
                let s = a.sorted()
                return s[min(s.count - 1, Int(Double(s.count - 1) * q))]
            }
            return (pct(l.fromFixTime, 0.5), pct(l.fromFixTime, 0.99), pct(l.fromReceive, 0.5), pct(l.fromReceive, 0.99))
        }
        var parts = ["\"messages\":\(received)", "\"devices\":\(devices.count)", "\"committed\":\(c.committed)",
                     "\"inserted\":\(c.inserted)", "\"duplicates\":\(c.committed - c.inserted)", "\"batches\":\(c.batches)",
                     "\"regionEvents\":\(events)", "\"noPosition\":\(noPosition)", "\"rejected\":\(rejected)",
                     "\"retained\":\(retainedSeen)", "\"databaseErrors\":\(c.errors)"]
        if shard != nil { parts.append("\"otherShard\":\(otherShard)") }
        if let p50, let p99, p99 < 86_400_000 { parts.append("\"fixTimeToCommitMs\":{\"p50\":\(p50),\"p99\":\(p99)}") }
        if let r50, let r99 { parts.append("\"receiveToCommitMs\":{\"p50\":\(r50),\"p99\":\(r99)}") }
        return "lodestar fleet: {" + parts.joined(separator: ",") + "}"
    }
}
