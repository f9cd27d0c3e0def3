import Foundation
import Testing
import TestSupport

/// OwnTracks and Home Assistant payloads, checked with Foundation's JSON parser against the Lodestar JSON on stdout.
@Suite(.serialized, .enabled(if: MosquittoBroker.isInstalled, "\(MosquittoBroker.skipMessage)"), .ownThreads)
struct MQTTFormatTests {
    static func object(_ s: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(s.utf8))) as? [String: Any]
    }

    /// An OwnTracks integer field against the Lodestar value (absent stays absent). The board rounds the unrounded
    /// value, stdout prints 3 decimals: at an exact .5 on stdout either neighbour is right.
    static func matches(_ o: Any?, _ v: Any?, scale: Double = 1) -> Bool {
        guard let v = v as? Double else { return o == nil }
        guard let o = o as? Int else { return false }
        let x = v * scale
        if abs(abs(x - x.rounded(.down)) - 0.5) < 0.001 * scale { return o == Int(x.rounded(.down)) || o == Int(x.rounded(.up)) }
        return o == Int(x.rounded())
    }

    @Test func ownTracksAndHomeAssistant() throws {
        let dir = try TemporaryDirectory()
        let broker = try MosquittoBroker(directory: dir)
        let sub = try MosquittoSubscriber(port: broker.port, topic: "#", directory: dir)
        #expect(MQTTTest.waitSubscribed(sub, port: broker.port, topic: "probe"))
        let regions = SharedData.packageRoot.appendingPathComponent("captures/simulated-drive-regions.json").path
        let r = try Lodestar.run(["replay", "--no-sky", "--regions", regions, "--mqtt", "mqtt://127.0.0.1:\(broker.port)/owntracks/lodestar",
                                  "--mqtt-format", "owntracks", "--mqtt-homeassistant", "--mqtt-device", "van5",
                                  "--mqtt-spool", dir.path("spool"), MQTTTest.drive])
        #expect(r.status == 0, "\(r.stderr)")
        sub.wait(timeout: 10) { $0.contains { $0.topic == "owntracks/lodestar/van5/availability" && $0.payload == "offline" } }
        let got = sub.messages

        let fixes = MQTTTest.lines(r.stdout, class: "fix").compactMap(Self.object)
        let locations = got.filter { $0.topic == "owntracks/lodestar/van5" }.compactMap { Self.object($0.payload) }
        #expect(locations.count == fixes.count)
        var mismatches = 0
        var firstMismatch = ""
        for (o, f) in zip(locations, fixes) {
            let lat = f["latitudeDegrees"] as? Double ?? .nan, lon = f["longitudeDegrees"] as? Double ?? .nan
            let ok = o["_type"] as? String == "location" && o["tid"] as? String == "n5" && o["t"] as? String == "t"
                && abs((o["lat"] as? Double ?? 0) - lat) < 1e-7 && abs((o["lon"] as? Double ?? 0) - lon) < 1e-7
                && Self.matches(o["acc"], f["horizontalAccuracyMeters"])
                && Self.matches(o["vel"], f["speedMetersPerSecond"], scale: 3.6)
                && Self.matches(o["alt"], f["altitudeMSLMeters"])
                && Self.matches(o["vac"], f["verticalAccuracyMeters"])
                && Self.matches(o["cog"], f["courseDegrees"])
                && (o["tst"] as? Int).map { "\($0)" } != nil
            if !ok { mismatches += 1; if firstMismatch.isEmpty { firstMismatch = "\(o) vs \(f)" } }
        }
        #expect(mismatches == 0, "\(firstMismatch)")

        let regionLines = MQTTTest.lines(r.stdout, class: "region").compactMap(Self.object)
        let transitions = got.filter { $0.topic == "owntracks/lodestar/van5/event" }.compactMap { Self.object($0.payload) }
        #expect(!regionLines.isEmpty)
        #expect(transitions.map { $0["desc"] as? String ?? "" } == regionLines.map { $0["identifier"] as? String ?? "?" })
        #expect(transitions.map { $0["event"] as? String ?? "" } == regionLines.map { ($0["event"] as? String) == "enter" ? "enter" : "leave" })
        #expect(transitions.allSatisfy { $0["_type"] as? String == "transition" && $0["t"] as? String == "c" && $0["wtst"] is Int })

        let tracker = got.first { $0.topic == "homeassistant/device_tracker/lodestar_van5/config" }.flatMap { Self.object($0.payload) }
        #expect(tracker?["json_attributes_topic"] as? String == "owntracks/lodestar/van5")
        #expect(tracker?["availability_topic"] as? String == "owntracks/lodestar/van5/availability")
        #expect(tracker?["source_type"] as? String == "gps")
        let heading = got.first { $0.topic == "homeassistant/sensor/lodestar_van5_heading/config" }.flatMap { Self.object($0.payload) }
        #expect(heading?["state_topic"] as? String == "owntracks/lodestar/van5/heading")
        #expect(heading?["unit_of_measurement"] as? String == "°")
        // Discovery is retained.
        let retained = try Tool.run("/usr/bin/mosquitto_sub", ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", "homeassistant/#", "-v", "-C", "2", "-W", "5"])
        #expect(retained.output.split(separator: "\n").count == 2)
    }
}
