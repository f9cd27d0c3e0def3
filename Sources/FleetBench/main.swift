// Load generator for `make bench` (scripts/fleet-bench.sh): N simulated boards publishing Lodestar JSON fixes at
// R Hz each over K MQTT connections (QoS 1), each fix stamped with the wall-clock time of its publication, so
// `lodestar fleet` can measure publish → row committed. Prints one JSON line with what was sent and acknowledged.
import CLinux
import LocationCore
import MQTT
#if canImport(Glibc)
import Glibc
#endif

var url = "mqtt://127.0.0.1:1883/bench", boards = 1000, rate = 1.0, seconds = 30.0, connections = 10
var args = CommandLine.arguments.dropFirst().makeIterator()
while let a = args.next() {
    guard let v = args.next() else { break }
    switch a {
    case "--url": url = v
    case "--boards": boards = Int(v) ?? boards
    case "--rate": rate = Double(v) ?? rate
    case "--seconds": seconds = Double(v) ?? seconds
    case "--connections": connections = Int(v) ?? connections
    default: print("usage: FleetBench --url U --boards N --rate HZ --seconds S --connections K"); exit(64)
    }
}
let parsed: MQTTURL
do { parsed = try MQTTURL(parsing: url) } catch { print("bad url \(error)"); exit(64) }
var conns: [MQTTConnection] = []
for k in 0..<connections {
    var s = MQTTClientSettings(url: parsed, clientID: "fleet-bench-\(k)-\(getpid())")
    s.keepaliveSeconds = 60
    do {
        let c = try MQTTConnection(s)
        if let e = c.connect(host: parsed.host, port: parsed.port, keepaliveSeconds: 60) { print("connect: \(e)"); exit(69) }
        conns.append(c)
    } catch { print("\(error)"); exit(69) }
}
var connected = 0
let t0 = clinux_monotonic_ns()
while connected < connections && clinux_monotonic_ns() - t0 < 10_000_000_000 {
    for c in conns { _ = c.loop(timeoutMilliseconds: 1); for e in c.takeEvents() { if case .connected = e { connected += 1 } } }
}
guard connected == connections else { print("only \(connected)/\(connections) connected"); exit(69) }
var outstanding = [Int](repeating: 0, count: connections)
var sent = 0, acked = 0, errors = 0
let start = clinux_monotonic_ns()
let total = Int(Double(boards) * rate * seconds)
@MainActor func pump(_ timeout: Int32) {
    for (k, c) in conns.enumerated() {
        if c.loop(timeoutMilliseconds: timeout) != nil { errors += 1 }
        for e in c.takeEvents() { if case .published = e { acked += 1; outstanding[k] -= 1 } }
    }
}
while sent < total {
    let elapsed = Double(clinux_monotonic_ns() - start) / 1e9
    let due = min(total, Int(elapsed * Double(boards) * rate))
    while sent < due {
        let device = sent % boards
        let k = device % connections
        let time = Timestamp(nanosecondsSince1970: clinux_realtime_ns()).iso8601(fractionDigits: 3)
        let lat = 37.38 + Double(device % 100) * 0.001 + Double(sent / boards) * 0.00001
        let lon = -122.08 + Double(device / 100) * 0.001
        let payload = "{\"class\":\"fix\",\"time\":\"\(time)\",\"mode\":\"3d\",\"quality\":\"gps\",\"latitudeDegrees\":\(lat),\"longitudeDegrees\":\(lon),\"altitudeMSLMeters\":30.0,\"horizontalAccuracyMeters\":3.5,\"speedMetersPerSecond\":10.0,\"courseDegrees\":90.0}"
        switch conns[k].publish(topic: "\(parsed.topicPrefix)/board-\(device)/fix", payload: Array(payload.utf8), qos: 1, retain: false) {
        case .success: outstanding[k] += 1; sent += 1
        case .failure: errors += 1; sent += 1
        }
    }
    pump(0)
    _ = clinux_sleep_ns(1_000_000)
}
let publishSeconds = Double(clinux_monotonic_ns() - start) / 1e9
let drainEnd = clinux_monotonic_ns() + 20_000_000_000
while acked < sent && clinux_monotonic_ns() < drainEnd { pump(5) }
for c in conns { c.disconnect(); _ = c.loop(timeoutMilliseconds: 10) }
print("{\"boards\":\(boards),\"rateHz\":\(rate),\"sent\":\(sent),\"acked\":\(acked),\"errors\":\(errors),\"publishSeconds\":\(publishSeconds),\"messagesPerSecond\":\(Double(sent) / publishSeconds)}")
