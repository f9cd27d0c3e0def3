import Foundation
import TestSupport

/// Helpers shared by the MQTT and fleet tests.
enum MQTTTest {
    static let drive = SharedData.packageRoot.appendingPathComponent("captures/simulated-drive.lcap").path

    /// Publishes a probe with mosquitto_pub until `subscriber` sees it (so it is subscribed before the test starts).
    static func waitSubscribed(_ subscriber: MosquittoSubscriber, port: Int, topic: String, auth: [String] = [], timeout: Double = 5) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            _ = try? Tool.run("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-m", "probe"] + auth)
            if subscriber.wait(timeout: 0.3, until: { $0.contains { $0.topic == topic } }) { return true }
        }
        return false
    }

    /// Lines of `text` whose JSON class is `name`.
    static func lines(_ text: String, class name: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("{\"class\":\"\(name)\"") }
    }

    /// The value of `"time":"…"` in a JSON line.
    static func time(_ line: String) -> String? {
        guard let r = line.range(of: "\"time\":\"") else { return nil }
        let rest = line[r.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    /// Spawns lodestar with stdout/stderr into `directory`.
    static func spawnLodestar(_ arguments: [String], directory: TemporaryDirectory, name: String) throws -> (SpawnedProcess, out: String, err: String) {
        let out = directory.path("\(name).out"), err = directory.path("\(name).err")
        let p = try SpawnedProcess(Lodestar.binary, arguments, stdoutPath: out, stderrPath: err)
        return (p, out, err)
    }

    static func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
}
