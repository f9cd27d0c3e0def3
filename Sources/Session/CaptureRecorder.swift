import Capture
import LocationCore

/// Writes a live session's events into a Lodestar capture, in the order the session processes them: raw NMEA
/// bytes, raw sensor counts, status changes and fixes from other engines (gpsd JSON mode) — everything the
/// pipeline consumes, so replaying the capture reproduces the live output byte for byte.
public final class CaptureRecorder {
    public let writer: CaptureWriter
    public private(set) var recordsWritten = 0

    public init(writer: CaptureWriter) { self.writer = writer }

    /// Creates `path` and writes the header: the sources and clock pairing, then the session configuration.
    public convenience init(path: String, sourceHeader: [(key: String, value: String)],
                            configuration: SessionConfiguration) throws(CaptureError) {
        let w = try CaptureWriter(path: path)
        try w.writeHeader(sourceHeader + configuration.headerFields)
        self.init(writer: w)
    }

    public func record(_ e: SensorEvent) throws(CaptureError) {
        guard let t = e.monotonicNanos else { return } // live events are always stamped (LiveEventQueue)
        switch e.payload {
        case .nmea(let bytes): try writer.writeNMEA(monotonicNanos: t, source: e.sourceID, bytes: bytes)
        case .motion(.magnetometerRaw(let s)): try writer.writeSample(monotonicNanos: t, source: e.sourceID, kind: .magnetometer, s)
        case .motion(.accelerometerRaw(let s)): try writer.writeSample(monotonicNanos: t, source: e.sourceID, kind: .accelerometer, s)
        case .motion(.gyroscopeRaw(let s)): try writer.writeSample(monotonicNanos: t, source: e.sourceID, kind: .gyroscope, s)
        case .status(let s): try writer.writeStatus(monotonicNanos: t, source: e.sourceID, s)
        case .fix(let f): try writer.writeFix(monotonicNanos: t, source: e.sourceID, f)
        case .motion, .orientation:
            return // converted values come from other logs, never from live sources
        }
        recordsWritten += 1
    }

    public func flush() throws(CaptureError) { try writer.flush() }
    public func close() throws(CaptureError) { try writer.close() }
}
