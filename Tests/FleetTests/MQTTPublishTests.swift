import Foundation
import Testing
import TestSupport

/// `lodestar replay/run --mqtt` against a real mosquitto started by the test (docs/fleet.md).
@Suite(.serialized, .enabled(if: MosquittoBroker.isInstalled, "\(MosquittoBroker.skipMessage)"), .ownThreads)
struct MQTTPublishTests {
    let auth = ["-u", "board", "-P", "s3cret-pw"]

    /// Every fix, heading and sky event on stdout is published, byte for byte, on its device topic; availability goes
    /// online then offline (retained), and the retained fix is the last one.
    @Test func publishesEveryEventOnItsTopic() throws {
        let dir = try TemporaryDirectory()
        let broker = try MosquittoBroker(directory: dir, users: ["board": "s3cret-pw"])
        let sub = try MosquittoSubscriber(port: broker.port, topic: "fleet/#", directory: dir, extra: auth)
        #expect(MQTTTest.waitSubscribed(sub, port: broker.port, topic: "fleet/probe", auth: auth))
        let pw = try dir.write("pw", "s3cret-pw\n")
        let r = try Lodestar.run(["replay", "--mqtt", "mqtt://board@127.0.0.1:\(broker.port)/fleet", "--mqtt-password-file", pw,
                                  "--mqtt-device", "van1", "--mqtt-spool", dir.path("spool"), MQTTTest.drive])
        #expect(r.status == 0, "\(r.stderr)")
        let fixes = MQTTTest.lines(r.stdout, class: "fix")
        let headings = MQTTTest.lines(r.stdout, class: "heading")
        let sky = MQTTTest.lines(r.stdout, class: "sky")
        #expect(fixes.count == 300)
        sub.wait(timeout: 10) { m in m.filter { $0.topic == "fleet/van1/availability" }.count >= 2 }
        let got = sub.messages
        let gotFixes = got.filter { $0.topic == "fleet/van1/fix" }.map(\.payload)
        #expect(gotFixes.count == fixes.count)
        #expect(gotFixes == fixes, "fix payloads differ from stdout")
        // Headings and sky are QoS 0 and not spooled: those before the first CONNACK are dropped and counted.
        let gotHeadings = got.filter { $0.topic == "fleet/van1/heading" }.map(\.payload)
        let gotSky = got.filter { $0.topic == "fleet/van1/sky" }.count
        let notSent = headings.count + sky.count - gotHeadings.count - gotSky
        #expect(gotHeadings == Array(headings.suffix(gotHeadings.count)), "published headings are not the last ones on stdout")
        #expect(gotHeadings.count > headings.count - 50)
        #expect(notSent == 0 ? !r.stderr.contains("not sent") : r.stderr.contains("\(notSent) headings/sky not sent while disconnected"), "\(r.stderr)")
        #expect(got.filter { $0.topic == "fleet/van1/availability" }.map(\.payload) == ["online", "offline"])
        #expect(Set(got.map(\.topic)) == ["fleet/probe", "fleet/van1/fix", "fleet/van1/heading", "fleet/van1/sky", "fleet/van1/availability"])
        #expect(r.stderr.contains("lodestar: mqtt: 300 messages delivered"))

        // A late subscriber gets the retained last fix and availability.
        let late = try Tool.run("/usr/bin/mosquitto_sub", ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", "fleet/van1/fix",
                                                           "-t", "fleet/van1/availability", "-v", "-C", "2", "-W", "5"] + auth)
        let retained = late.output.split(separator: "\n").map(String.init).sorted()
        #expect(retained == ["fleet/van1/availability offline", "fleet/van1/fix " + (fixes.last ?? "")])
    }

    /// `lodestar run --mqtt` on a live pseudo-terminal receiver: every fix it prints reaches the broker, byte for
    /// byte, and SIGTERM ends with a retained "offline".
    @Test func runPublishesLiveFixes() throws {
        let dir = try TemporaryDirectory()
        let broker = try MosquittoBroker(directory: dir)
        let sub = try MosquittoSubscriber(port: broker.port, topic: "lodestar/#", directory: dir)
        #expect(MQTTTest.waitSubscribed(sub, port: broker.port, topic: "lodestar/probe"))
        let pty = try PseudoTerminal()
        let (p, out, err) = try MQTTTest.spawnLodestar(["run", "--gps", "\(pty.slavePath)@9600", "--no-smoothing", "--no-sky",
                                                        "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-device", "rover1",
                                                        "--mqtt-spool", dir.path("spool")], directory: dir, name: "run")
        #expect(p.waitUntilOpen(pty.slavePath), "\(MQTTTest.read(err))")
        #expect(sub.wait(timeout: 10) { $0.contains { $0.topic == "lodestar/rover1/availability" && $0.payload == "online" } },
                "\(MQTTTest.read(err))")
        func sentence(_ body: String) -> String { String(format: "$%@*%02X\r\n", body, body.utf8.reduce(UInt8(0), ^)) }
        for i in 0..<5 {
            let t = String(format: "1200%02d", i)
            _ = pty.write(sentence("GPRMC,\(t),A,4807.038,N,01131.000,E,1.0,45.0,230324,,,A")
                          + sentence("GPGGA,\(t),4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"))
            usleep(100_000)
        }
        #expect(sub.wait(timeout: 10) { $0.filter { $0.topic == "lodestar/rover1/fix" }.count >= 4 }, "\(MQTTTest.read(err))")
        p.signal(SIGTERM)
        #expect(p.wait(timeout: 10) == 143)
        #expect(sub.wait(timeout: 10) { $0.last { $0.topic == "lodestar/rover1/availability" }?.payload == "offline" })
        let fixes = MQTTTest.lines(MQTTTest.read(out), class: "fix")
        let got = sub.messages.filter { $0.topic == "lodestar/rover1/fix" }.map(\.payload)
        #expect(fixes.count == 5, "\(MQTTTest.read(err))")
        #expect(got == fixes)
    }

    /// SIGKILL leaves no chance for a clean "offline": the broker publishes the will.
    @Test func lastWillMarksTheBoardOffline() throws {
        let dir = try TemporaryDirectory()
        let broker = try MosquittoBroker(directory: dir)
        let sub = try MosquittoSubscriber(port: broker.port, topic: "lodestar/+/availability", directory: dir)
        #expect(MQTTTest.waitSubscribed(sub, port: broker.port, topic: "lodestar/probe/availability"))
        let (p, _, err) = try MQTTTest.spawnLodestar(["replay", "--realtime", "--mqtt", "mqtt://127.0.0.1:\(broker.port)",
                                                      "--mqtt-device", "boat7", "--mqtt-spool", dir.path("spool"), MQTTTest.drive],
                                                     directory: dir, name: "kill")
        #expect(sub.wait(timeout: 10) { $0.contains { $0.topic == "lodestar/boat7/availability" && $0.payload == "online" } }, "\(MQTTTest.read(err))")
        p.signal(SIGKILL)
        #expect(p.wait(timeout: 5) == 128 + SIGKILL)
        #expect(sub.wait(timeout: 10) { $0.last { $0.topic == "lodestar/boat7/availability" }?.payload == "offline" })
        let retained = try Tool.run("/usr/bin/mosquitto_sub", ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", "lodestar/boat7/availability", "-C", "1", "-W", "5"])
        #expect(retained.output == "offline\n")
    }

    /// The broker is down for 60 s of a drive replayed at 10×: fixes go to the spool and arrive after the restart,
    /// each exactly once counting distinct fix times, in order, none lost.
    @Test func brokerOutageLosesNothing() throws {
        let dir = try TemporaryDirectory()
        let broker = try MosquittoBroker(directory: dir, persistence: true)
        // A persistent session (-c, fixed id): the broker keeps the subscription and queues for it across the restart.
        let sub = try MosquittoSubscriber(port: broker.port, topic: "lodestar/#", directory: dir, extra: ["-c", "-i", "outage-sub"])
        #expect(MQTTTest.waitSubscribed(sub, port: broker.port, topic: "lodestar/probe"))
        let (p, out, err) = try MQTTTest.spawnLodestar(["replay", "--speed", "10", "--no-sky", "--mqtt", "mqtt://127.0.0.1:\(broker.port)",
                                                        "--mqtt-device", "van2", "--mqtt-spool", dir.path("spool"), MQTTTest.drive],
                                                       directory: dir, name: "outage")
        #expect(sub.wait(timeout: 15) { m in m.filter { $0.topic == "lodestar/van2/fix" }.count >= 40 })
        broker.stop()
        let fixesBefore = sub.messages.filter { $0.topic == "lodestar/van2/fix" }.count
        usleep(6_000_000)   // 60 s of the drive at 10×
        try broker.start()
        #expect(p.wait(timeout: 60) == 0, "\(MQTTTest.read(err))")
        let expected = MQTTTest.lines(MQTTTest.read(out), class: "fix").compactMap(MQTTTest.time)
        #expect(expected.count == 300)
        sub.wait(timeout: 15) { m in Set(m.filter { $0.topic == "lodestar/van2/fix" }.compactMap { MQTTTest.time($0.payload) }).count >= expected.count }
        var seen = Set<String>()
        let firstTimes = sub.messages.filter { $0.topic == "lodestar/van2/fix" }.compactMap { MQTTTest.time($0.payload) }.filter { seen.insert($0).inserted }
        #expect(firstTimes == expected)
        #expect(fixesBefore < 200, "the outage must fall inside the drive (had \(fixesBefore) fixes before it)")
        let log = MQTTTest.read(err)
        #expect(log.contains("mqtt: unavailable"))
        #expect(log.contains("mqtt: recovered"))
    }

    /// With no broker at all the fixes stay in the spool (exit 69); the next start sends them first, in order.
    @Test func spoolSurvivesUntilTheNextStart() throws {
        let dir = try TemporaryDirectory()
        let port = try GPSDProcess.freePort()   // nothing listens here yet
        let args = ["replay", "--no-heading", "--no-sky", "--mqtt", "mqtt://127.0.0.1:\(port)/lodestar", "--mqtt-device", "van6",
                    "--mqtt-spool", dir.path("spool"), MQTTTest.drive]
        let first = try Lodestar.run(args)
        #expect(first.status == 69, "\(first.stderr)")
        #expect(first.stderr.contains("300 kept in \(dir.path("spool"))"), "\(first.stderr)")
        let broker = try MosquittoBroker(directory: dir, extra: ["listener \(port) 127.0.0.1"])
        let sub = try MosquittoSubscriber(port: port, topic: "lodestar/van6/fix", directory: dir)
        #expect(MQTTTest.waitSubscribed(sub, port: broker.port, topic: "lodestar/van6/fix"))
        let second = try Lodestar.run(args)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("600 messages delivered"), "\(second.stderr)")
        let fixes = MQTTTest.lines(second.stdout, class: "fix")
        #expect(sub.wait(timeout: 10) { $0.filter { $0.payload != "probe" }.count >= 600 })
        let got = sub.messages.filter { $0.payload != "probe" }.map(\.payload)
        #expect(got.count == 600)
        #expect(Array(got.prefix(300)) == fixes, "the spooled fixes come first, in order")
        #expect(Array(got.suffix(300)) == fixes)
    }

    /// A wrong password: one clear line, an `unavailable` status on stdout, records kept, exit 69; no crash, no loop.
    @Test func badPasswordIsReportedClearly() throws {
        let dir = try TemporaryDirectory()
        let broker = try MosquittoBroker(directory: dir, users: ["board": "right"])
        let pw = try dir.write("pw", "wrong\n")
        let r = try Lodestar.run(["replay", "--speed", "60", "--no-heading", "--mqtt", "mqtt://board@127.0.0.1:\(broker.port)/lodestar",
                                  "--mqtt-password-file", pw, "--mqtt-device", "van3", "--mqtt-spool", dir.path("spool"), MQTTTest.drive])
        #expect(r.status == 69, "\(r.stderr)")
        let status = MQTTTest.lines(r.stdout, class: "status").filter { $0.contains("\"source\":\"mqtt\"") }
        #expect(status.contains { $0.contains("\"state\":\"unavailable\"") && $0.contains("not authori") })
        let errLines = r.stderr.split(separator: "\n").filter { $0.contains("mqtt: unavailable") }
        #expect(errLines.count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("kept in \(dir.path("spool"))"))
        #expect(!r.stderr.contains("Fatal error"))
    }

    /// TLS: a broker certificate from another CA is refused with the verification error; with the right CA and a
    /// client certificate the fixes arrive.
    @Test func tlsWithCertificates() throws {
        let dir = try TemporaryDirectory()
        let certs = try MosquittoBroker.makeCertificates(in: dir)
        var tls = MosquittoBroker.TLS(caFile: certs.ca, certFile: certs.serverCert, keyFile: certs.serverKey)
        tls.requireClientCertificate = true
        let broker = try MosquittoBroker(directory: dir, tls: tls)
        let tlsPort = try #require(broker.tlsPort)
        let bad = try Lodestar.run(["replay", "--speed", "20", "--no-heading", "--mqtt", "mqtts://127.0.0.1:\(tlsPort)/lodestar",
                                    "--mqtt-ca", certs.wrongCA, "--mqtt-cert", certs.clientCert, "--mqtt-key", certs.clientKey,
                                    "--mqtt-device", "van4", "--mqtt-spool", dir.path("spool-bad"), MQTTTest.drive])
        #expect(bad.status == 69, "\(bad.stderr)")
        #expect(bad.stderr.contains("certificate verify failed"), "\(bad.stderr)")
        #expect(MQTTTest.lines(bad.stdout, class: "status").contains { $0.contains("\"source\":\"mqtt\"") && $0.contains("\"state\":\"unavailable\"") })

        let sub = try MosquittoSubscriber(port: broker.port, topic: "lodestar/van4/fix", directory: dir)
        #expect(MQTTTest.waitSubscribed(sub, port: broker.port, topic: "lodestar/van4/fix"))
        let good = try Lodestar.run(["replay", "--no-heading", "--mqtt", "mqtts://127.0.0.1:\(tlsPort)/lodestar",
                                     "--mqtt-ca", certs.ca, "--mqtt-cert", certs.clientCert, "--mqtt-key", certs.clientKey,
                                     "--mqtt-device", "van4", "--mqtt-spool", dir.path("spool-good"), MQTTTest.drive])
        #expect(good.status == 0, "\(good.stderr)")
        let fixes = MQTTTest.lines(good.stdout, class: "fix")
        #expect(sub.wait(timeout: 10) { $0.filter { $0.payload != "probe" }.count >= fixes.count })
        #expect(sub.messages.filter { $0.payload != "probe" }.map(\.payload) == fixes)
    }

    /// A password on the command line is refused (only a file), as is a password file without a user.
    @Test func credentialsOnlyFromAFile() throws {
        let r = try Lodestar.run(["replay", "--mqtt", "mqtt://u:pw@127.0.0.1:1/x", MQTTTest.drive])
        #expect(r.status == 64)
        #expect(r.stderr.contains("no password in the URL"))
    }
}
