#if canImport(Glibc)
import Glibc
#endif
import Capture
import LocationCore
import Testing
import TestSupport

/// Issue 13, cases 4 and 12: a cut-off last record, negative or backward times and undeclared sources are
/// rejected by reason; the writer never writes time backwards.
@Suite(.ownThreads) struct CaptureOrderTests {
    static let header = "#!lodestar-capture 1\n# source: 0 kind=nmea name=gps0\n# source: 1 kind=magnetometer name=imu0\n"

    static func read(_ text: String) throws -> (events: [SensorEvent], statistics: CaptureStatistics) {
        let reader = LodestarCaptureReader(source: ByteSource(bytes: Array(text.utf8), name: "test.lcap"))
        var events: [SensorEvent] = []
        while let e = try reader.next() { events.append(e) }
        return (events, reader.statistics)
    }

    @Test func orderAndSourceAreChecked() throws {
        let r = try Self.read(Self.header + """
        1000 1 M 1 2 3 0.1
        -5 1 M 1 2 3 0.1
        900 1 M 1 2 3 0.1
        1000 1 M 4 5 6 0.1
        1100 7 M 1 2 3 0.1
        1200 1 M 7 8 9 0.1

        """)
        #expect(r.events.map(\.monotonicNanos) == [1000, 1000, 1200])
        #expect(r.statistics.rejections.byReason == ["badTimestamp": 1, "backwardTime": 1, "badSource": 1])
        #expect(r.statistics.recordsAccepted == 3)
    }

    @Test func cutOffLastRecordIsTruncatedNotAWrongValue() throws {
        let r = try Self.read(Self.header + "1000 1 M 2244 176 -2495 0.0146\n2000 1 M 2244 176 -2495 0.01")
        #expect(r.events.count == 1)
        #expect(r.statistics.rejections.byReason == ["truncated": 1])
    }

    @Test func writerKeepsTimeNondecreasingAcrossSources() throws {
        let path = "/tmp/lodestar-order-\(getpid()).lcap"
        defer { unlink(path) }
        let w = try CaptureWriter(path: path)
        try w.writeHeader([("source", "0 kind=nmea name=gps0"), ("source", "1 kind=magnetometer name=imu0")])
        try w.writeSample(monotonicNanos: 2000, source: 1, kind: .magnetometer, .init(x: 1, y: 2, z: 3, scale: 0.1))
        try w.writeNMEA(monotonicNanos: 1500, source: 0, bytes: Array("$GPTXT,01*00\r\n".utf8)) // queued before, arrived after
        try w.writeSample(monotonicNanos: 2500, source: 1, kind: .magnetometer, .init(x: 1, y: 2, z: 3, scale: 0.1))
        try w.close()
        let reader = try LodestarCaptureReader(path: path)
        var times: [Int64] = []
        while let e = try reader.next() { times.append(e.monotonicNanos ?? -1) }
        #expect(times == [2000, 2000, 2500])
        #expect(reader.statistics.rejections.total == 0)
    }
}
