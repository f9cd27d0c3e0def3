import Foundation
import Testing
import TestSupport

/// `lodestar fleet` between a real mosquitto and a real PostgreSQL 15 + PostGIS, fed by 20 replayed boards.
@Suite(.serialized, .enabled(if: MosquittoBroker.isInstalled && PostgresServer.isInstalled,
                             "\(MosquittoBroker.skipMessage) / \(PostgresServer.skipMessage)"), .ownThreads)
struct FleetDatabaseTests {
    static let regions = SharedData.packageRoot.appendingPathComponent("captures/simulated-drive-regions.json").path

    struct Fix: Hashable { var time: String; var lat: Double; var lon: Double }
    struct Event: Hashable { var device: String; var time: String; var region: String; var kind: String }

    static func number(_ line: String, _ key: String) -> Double? {
        guard let r = line.range(of: "\"\(key)\":") else { return nil }
        let rest = line[r.upperBound...]
        return Double(rest.prefix { $0 != "," && $0 != "}" })
    }
    static func string(_ line: String, _ key: String) -> String? {
        guard let r = line.range(of: "\"\(key)\":\"") else { return nil }
        let rest = line[r.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    @Test func twentyBoardsFillTheDatabase() throws {
        let dir = try TemporaryDirectory()
        let broker = try MosquittoBroker(directory: dir)
        let pg = try PostgresServer(directory: dir)
        let boards = (0..<20).map { "board-\($0)" }
        for (k, b) in boards.enumerated() {
            let r = try Lodestar.run(["simulate", "--seed", "\(k + 1)", "--format", "nmea", "--duration", "300", dir.path("\(b).nmea")])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let fleetEvents = try MosquittoSubscriber(port: broker.port, topic: "lodestar/+/fleet/event", directory: dir)
        #expect(MQTTTest.waitSubscribed(fleetEvents, port: broker.port, topic: "lodestar/probe/fleet/event"))
        let (fleet, fleetOut, fleetErr) = try MQTTTest.spawnLodestar(
            ["fleet", "--mqtt", "mqtt://127.0.0.1:\(broker.port)/lodestar", "--database", pg.conninfo,
             "--regions", Self.regions, "--client-id", "fleet-test"], directory: dir, name: "fleet")
        // Subscribed and writing: a probe fix reaches the table.
        let probe = #"{"class":"fix","time":"2020-01-01T00:00:00.000Z","mode":"3d","latitudeDegrees":1.0,"longitudeDegrees":2.0}"#
        var ready = false
        for _ in 0..<100 where !ready {
            _ = try Tool.run("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-t", "lodestar/probe/fix", "-m", probe])
            usleep(200_000)
            ready = (try? pg.query("SELECT count(*) FROM positions WHERE device = 'probe'")) == ["1"]
        }
        try #require(ready, "fleet never wrote the probe: \(MQTTTest.read(fleetErr))")

        var replays: [(String, SpawnedProcess, String)] = []
        for b in boards {
            let (p, out, _) = try MQTTTest.spawnLodestar(["replay", "--no-sky", "--regions", Self.regions, "--mqtt", "mqtt://127.0.0.1:\(broker.port)/lodestar",
                                                          "--mqtt-device", b, "--mqtt-spool", dir.path("spool-\(b)"), dir.path("\(b).nmea")],
                                                         directory: dir, name: b)
            replays.append((b, p, out))
        }
        var published: [String: [Fix]] = [:]
        var boardEvents = Set<Event>()
        for (b, p, out) in replays {
            #expect(p.wait(timeout: 120) == 0, "\(b): \(MQTTTest.read(dir.path("\(b).err")))")
            let text = MQTTTest.read(out)
            published[b] = MQTTTest.lines(text, class: "fix").compactMap { line in
                guard let t = MQTTTest.time(line), let lat = Self.number(line, "latitudeDegrees"), let lon = Self.number(line, "longitudeDegrees") else { return nil }
                return Fix(time: t, lat: lat, lon: lon)
            }
            for line in MQTTTest.lines(text, class: "region") {
                boardEvents.insert(Event(device: b, time: MQTTTest.time(line) ?? "", region: Self.string(line, "identifier") ?? "", kind: Self.string(line, "event") ?? ""))
            }
        }
        let total = published.values.reduce(0) { $0 + $1.count }
        #expect(total >= 20 * 290)
        #expect(!boardEvents.isEmpty)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, (try? pg.query("SELECT count(*) FROM positions WHERE device LIKE 'board-%'")) != ["\(total)"] { usleep(200_000) }

        // The rows equal the published fixes, device by device.
        let rows = try pg.query("""
            SELECT device, to_char(time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), ST_Y(position::geometry), ST_X(position::geometry)
            FROM positions WHERE device LIKE 'board-%' ORDER BY device, time
            """)
        var stored: [String: [Fix]] = [:]
        for row in rows {
            let f = row.split(separator: "|").map(String.init)
            guard f.count == 4, let lat = Double(f[2]), let lon = Double(f[3]) else { continue }
            stored[f[0], default: []].append(Fix(time: f[1], lat: lat, lon: lon))
        }
        #expect(rows.count == total, "fleet: \(MQTTTest.read(fleetErr)) broker: \(broker.log)")
        for b in boards {
            let mine = published[b] ?? [], theirs = stored[b] ?? []
            #expect(mine.count == theirs.count, "\(b): \(MQTTTest.read(dir.path("\(b).err")))")
            #expect(zip(mine, theirs).allSatisfy { $0.time == $1.time && abs($0.lat - $1.lat) < 1e-9 && abs($0.lon - $1.lon) < 1e-9 }, "\(b): rows differ from the published fixes")
        }
        // Last known position per device.
        let last = try pg.query("SELECT device, to_char(time AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') FROM last_positions WHERE device LIKE 'board-%' ORDER BY device")
        #expect(last.count == 20)
        for line in last {
            let f = line.split(separator: "|").map(String.init)
            #expect(f.count == 2 && published[f[0]]?.last?.time == f[1], "\(line)")
        }

        // Fleet-side region events equal the on-board ones: on stdout, in the table and on the broker.
        #expect(fleetEvents.wait(timeout: 10) { $0.filter { $0.payload != "probe" }.count >= boardEvents.count })
        let dbEvents = try pg.query("SELECT device, to_char(time AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), region, event FROM region_events")
        let dbSet = Set(dbEvents.map { l -> Event in
            let f = l.split(separator: "|").map(String.init)
            return Event(device: f[0], time: f[1], region: f[2], kind: f[3])
        })
        #expect(dbSet == boardEvents)
        #expect(fleetEvents.messages.filter { $0.payload != "probe" }.count == boardEvents.count)

        // Redelivery is idempotent: publishing board-0 again adds no row.
        let again = try Lodestar.run(["replay", "--no-sky", "--mqtt", "mqtt://127.0.0.1:\(broker.port)/lodestar", "--mqtt-device", "board-0",
                                      "--mqtt-spool", dir.path("spool-again"), dir.path("board-0.nmea")])
        #expect(again.status == 0)
        usleep(1_500_000)
        fleet.signal(SIGTERM)
        #expect(fleet.wait(timeout: 10) == 143)
        let summary = MQTTTest.read(fleetErr)
        #expect(try pg.query("SELECT count(*) FROM positions WHERE device LIKE 'board-%'") == ["\(total)"], "\(summary)")
        let duplicates = summary.split(separator: "\n").last.flatMap { Self.number(String($0), "duplicates") } ?? -1
        #expect(duplicates >= Double(published["board-0"]?.count ?? 0), "\(summary)")
        let fleetStdout = MQTTTest.lines(MQTTTest.read(fleetOut), class: "region")
        #expect(Set(fleetStdout.map { Event(device: Self.string($0, "device") ?? "", time: MQTTTest.time($0) ?? "", region: Self.string($0, "identifier") ?? "", kind: Self.string($0, "event") ?? "") }) == boardEvents)
    }
}
