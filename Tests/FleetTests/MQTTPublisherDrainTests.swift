import Foundation
import Synchronization
import Testing
import TestSupport
@testable import MQTT

/// The publisher's stop against a real mosquitto: nothing handed over before `finish` is lost, however the publisher
/// thread's loop and the caller interleave.
@Suite(.serialized, .enabled(if: MosquittoBroker.isInstalled, "\(MosquittoBroker.skipMessage)"), .ownThreads)
struct MQTTPublisherDrainTests {
    /// The interleaving that lost fixes in the fleet test under load (a board's "295 messages delivered" of 304): the
    /// publisher thread takes what was handed over, finds the spool drained, and before it checks for a stop, the
    /// caller hands over more and calls `finish`. The hook makes that interleaving happen on every run.
    @Test func messagesHandedOverJustBeforeFinishAreDelivered() throws {
        let dir = try TemporaryDirectory()
        let broker = try MosquittoBroker(directory: dir)
        let sub = try MosquittoSubscriber(port: broker.port, topic: "drain/#", directory: dir)
        #expect(MQTTTest.waitSubscribed(sub, port: broker.port, topic: "drain/probe"))
        var client = MQTTClientSettings(url: MQTTURL(host: "127.0.0.1", port: broker.port, topicPrefix: "drain"), clientID: "drain-test")
        client.keepaliveSeconds = 30
        let publisher = try MQTTPublisher(.init(client: client, spoolDirectory: dir.path("spool")))
        func message(_ i: Int) -> MQTTPublisher.Message {
            .init(topic: "drain/fix", payload: Array("fix \(i)".utf8), qos: 1, retain: false, durable: true)
        }
        final class Flags: Sendable { let fired = Atomic<Bool>(false); let armed = Atomic<Bool>(false) }
        let flags = Flags()
        publisher.testHookBeforeStopCheck = { drained in
            // Once the first five are delivered: three more and the stop, in the window between the thread's
            // `ingest()` and its stop check.
            guard drained, flags.armed.load(ordering: .acquiring),
                  !flags.fired.exchange(true, ordering: .acquiringAndReleasing) else { return }
            for i in 5..<8 { publisher.publish(message(i)) }
            publisher.requestStop(drainSeconds: 5)
        }
        publisher.start()
        for i in 0..<5 { publisher.publish(message(i)) }
        let end = Date().addingTimeInterval(10)
        while publisher.statistics.delivered < 5 && Date() < end { usleep(10_000) }
        #expect(publisher.statistics.delivered == 5)
        flags.armed.store(true, ordering: .releasing)
        while !flags.fired.load(ordering: .acquiring) && Date() < end { usleep(10_000) }
        let fired = flags.fired.load(ordering: .acquiring)
        #expect(fired)
        let s = publisher.finish(drainSeconds: 5)
        print("drain: delivered \(s.delivered), pending \(s.pending), handed over \(s.handedOver), unaccounted \(s.unaccounted)")
        #expect(s.handedOver == 8)
        #expect(s.delivered == 8)
        #expect(s.pending == 0)
        #expect(s.unaccounted == 0)
        sub.wait(timeout: 10) { m in m.filter { $0.topic == "drain/fix" }.count >= 8 }
        #expect(sub.messages.filter { $0.topic == "drain/fix" }.map(\.payload) == (0..<8).map { "fix \($0)" })
    }
}
