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

    /// One changed digit in one timestamp (10 s ahead) costs that record only: the stream goes on from before it.
    /// Before, every later record was "backward" until the stream caught up with the corrupt time (a leading
    /// digit: never). A real gap, where the stream goes on from the later time, keeps every record, as does a jump
    /// in the last record.
    @Test func aCorruptTimestampAheadCostsOneRecord() throws {
        let corrupt = try Self.read(Self.header + """
        1000000000 1 M 1 2 3 0.1
        1010000000 1 M 1 2 3 0.1
        11020000000 1 M 9 9 9 0.1
        1030000000 1 M 1 2 3 0.1
        1040000000 1 M 1 2 3 0.1

        """)
        #expect(corrupt.events.map(\.monotonicNanos) == [1_000_000_000, 1_010_000_000, 1_030_000_000, 1_040_000_000])
        #expect(corrupt.statistics.rejections.byReason == ["outlierTime": 1])
        #expect(corrupt.statistics.recordsAccepted == 4)

        // A record that also goes back before the jump is still backward; the held one then meets the next.
        let gap = try Self.read(Self.header + """
        1000000000 1 M 1 2 3 0.1
        5000000000 1 M 1 2 3 0.1
        900000000 1 M 1 2 3 0.1
        5000000000 1 M 4 5 6 0.1
        9000000000 1 M 7 8 9 0.1

        """)
        #expect(gap.events.map(\.monotonicNanos) == [1_000_000_000, 5_000_000_000, 5_000_000_000, 9_000_000_000])
        #expect(gap.statistics.rejections.byReason == ["backwardTime": 1])
        #expect(gap.statistics.recordsAccepted == 4)
        // In order, and the sample values with them (the held record is the one delivered, not a copy of another).
        #expect(gap.events.count == 4)
        if case .motion(.magnetometerRaw(let last)) = gap.events[3].payload { #expect(last.x == 7) } else { Issue.record("payload") }
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
