/// Counters of the mixed-stream framer and the UBX decoders. Plain values: cheap to copy out for a summary.
public struct MixedStreamStatistics: Sendable, Hashable {
    /// UBX frames with a valid checksum, by class id (index = class byte).
    public var ubxFramesByClass: [Int] = Array(repeating: 0, count: 256)
    /// RTCM3 frames with a valid CRC-24Q.
    public var rtcm3Frames = 0
    /// UBX frames whose Fletcher checksum failed (skipped; the framer resynchronised on the next byte).
    public var ubxBadChecksums = 0
    /// RTCM3 candidates whose CRC-24Q failed.
    public var rtcm3BadCRCs = 0
    /// UBX headers announcing a payload longer than the framer accepts.
    public var ubxImpossibleLengths = 0
    /// A frame cut off by the end of the stream.
    public var truncatedFrames = 0
    /// Valid frames of messages this module does not decode (counted, skipped).
    public var unknownMessages = 0
    /// Known messages with a payload length the interface description does not allow (counted, skipped).
    public var malformedMessages = 0
    /// Frames with an empty payload: a host's poll or command, recorded in the log beside the receiver's output (as
    /// u-center logs do), not the receiver's own output (counted, skipped).
    public var pollRequests = 0

    public init() {}

    public var ubxFrames: Int { ubxFramesByClass.reduce(0, +) }

    /// (class name, count) for every class seen, in class-id order: `[("NAV", 120), ("MON", 2)]`.
    public var ubxFramesByClassName: [(name: String, count: Int)] {
        ubxFramesByClass.indices.compactMap { i in
            ubxFramesByClass[i] > 0 ? (UBX.className(UInt8(i)), ubxFramesByClass[i]) : nil
        }
    }

    /// True when nothing binary was ever seen (an NMEA-only stream).
    public var isEmpty: Bool { self == MixedStreamStatistics() }

    public static func + (a: MixedStreamStatistics, b: MixedStreamStatistics) -> MixedStreamStatistics {
        var r = a
        for i in r.ubxFramesByClass.indices { r.ubxFramesByClass[i] += b.ubxFramesByClass[i] }
        r.rtcm3Frames += b.rtcm3Frames
        r.ubxBadChecksums += b.ubxBadChecksums
        r.rtcm3BadCRCs += b.rtcm3BadCRCs
        r.ubxImpossibleLengths += b.ubxImpossibleLengths
        r.truncatedFrames += b.truncatedFrames
        r.unknownMessages += b.unknownMessages
        r.malformedMessages += b.malformedMessages
        r.pollRequests += b.pollRequests
        return r
    }

    /// One line for an end-of-run summary: `UBX 130 (NAV 120, MON 10), RTCM3 4, …`; empty when nothing was seen.
    public var summary: String {
        guard !isEmpty else { return "" }
        var parts: [String] = []
        let classes = ubxFramesByClassName.map { "\($0.name) \($0.count)" }.joined(separator: ", ")
        parts.append("UBX \(ubxFrames)" + (classes.isEmpty ? "" : " (\(classes))"))
        parts.append("RTCM3 \(rtcm3Frames)")
        parts.append("UBX bad checksums \(ubxBadChecksums)")
        if rtcm3BadCRCs > 0 { parts.append("RTCM3 bad CRCs \(rtcm3BadCRCs)") }
        if ubxImpossibleLengths > 0 { parts.append("impossible lengths \(ubxImpossibleLengths)") }
        if truncatedFrames > 0 { parts.append("truncated \(truncatedFrames)") }
        parts.append("unknown \(unknownMessages)")
        parts.append("malformed \(malformedMessages)")
        if pollRequests > 0 { parts.append("polls \(pollRequests)") }
        return parts.joined(separator: ", ")
    }
}
