import Foundation
import Testing
import TestSupport
@testable import MQTT

/// The store-and-forward spool on its own: order, persistence across reopen, limits, a torn tail.
@Suite(.ownThreads)
struct DiskQueueTests {
    func fill(_ q: DiskQueue, _ range: Range<Int>, now: Int64 = 1_000) {
        for i in range { q.append(topic: "t/\(i)", payload: Array("payload \(i)".utf8), qos: 1, retain: i % 2 == 0, nowNanos: now) }
    }

    @Test func keepsOrderAcrossReopenAndAcknowledgements() throws {
        let dir = try TemporaryDirectory()
        do {
            let q = try DiskQueue(directory: dir.path("spool"))
            fill(q, 0..<50)
            q.acknowledge(through: 20)
            q.close()
        }
        let q = try DiskQueue(directory: dir.path("spool"))
        #expect(q.pendingCount == 30)
        #expect(q.ackedSeq == 20)
        let topics = (21...50).compactMap { q.record(UInt64($0))?.topic }
        #expect(topics == (20..<50).map { "t/\($0)" })
        #expect(q.record(21)?.retain == true && q.record(22)?.retain == false)
        fill(q, 50..<60)
        #expect(q.record(60)?.payload == Array("payload 59".utf8))
    }

    @Test func dropsTheOldestPastTheSizeLimitAndCountsThem() throws {
        let dir = try TemporaryDirectory()
        var limits = DiskQueue.Limits()
        limits.maxBytes = 64 * 1024   // 4 KiB segments
        let q = try DiskQueue(directory: dir.path("spool"), limits: limits)
        fill(q, 0..<5000)
        #expect(q.totalBytes <= limits.maxBytes)
        #expect(q.droppedForSize > 0)
        #expect(q.pendingCount + q.droppedForSize == 5000)
        // What is left is the newest, in order.
        let first = q.ackedSeq + 1
        #expect(q.record(first)?.topic == "t/\(first - 1)")
        #expect(q.record(5000)?.topic == "t/4999")
        // Segment files on disk match.
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path("spool")).filter { $0.hasSuffix(".seg") }
        #expect(files.count <= 17)
    }

    @Test func expiresByAge() throws {
        let dir = try TemporaryDirectory()
        var limits = DiskQueue.Limits()
        limits.maxAgeSeconds = 10
        let q = try DiskQueue(directory: dir.path("spool"), limits: limits)
        fill(q, 0..<3, now: 0)
        let r = try #require(q.record(1))
        #expect(q.isExpired(r, nowNanos: 11_000_000_000))
        #expect(!q.isExpired(r, nowNanos: 9_000_000_000))
    }

    /// A power cut mid-write leaves a torn record: it is cut off and counted, the rest survives.
    @Test func cutsATornTail() throws {
        let dir = try TemporaryDirectory()
        do {
            let q = try DiskQueue(directory: dir.path("spool"))
            fill(q, 0..<10)
            q.close()
        }
        let seg = try #require(try FileManager.default.contentsOfDirectory(atPath: dir.path("spool")).first { $0.hasSuffix(".seg") })
        let path = dir.path("spool/\(seg)")
        let h = try #require(FileHandle(forWritingAtPath: path))
        h.seekToEndOfFile()
        h.write(Data([40, 0, 0, 0, 1, 2, 3, 4, 5, 6]))   // a length and CRC with a short body
        h.closeFile()
        let q = try DiskQueue(directory: dir.path("spool"))
        #expect(q.corruptRecords == 1)
        #expect(q.pendingCount == 10)
        #expect(q.record(10)?.topic == "t/9")
        fill(q, 10..<11)
        #expect(q.record(11)?.topic == "t/10")
    }

    @Test func urlParsing() throws {
        let u = try MQTTURL(parsing: "mqtts://board@broker.example:8884/fleet/vans/")
        #expect(u.useTLS && u.username == "board" && u.host == "broker.example" && u.port == 8884 && u.topicPrefix == "fleet/vans")
        #expect(try MQTTURL(parsing: "mqtt://[::1]/x").host == "::1")
        #expect(try MQTTURL(parsing: "mqtt://h").port == 1883)
        #expect(try MQTTURL(parsing: "mqtts://h").port == 8883)
        #expect(throws: MQTTURL.ParseError.self) { try MQTTURL(parsing: "mqtt://u:pw@h/x") }
        #expect(throws: MQTTURL.ParseError.self) { try MQTTURL(parsing: "http://h/x") }
        #expect(throws: MQTTURL.ParseError.self) { try MQTTURL(parsing: "mqtt://h/a/#") }
    }
}
