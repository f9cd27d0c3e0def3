import NMEA

/// Splits one receiver byte stream once into NMEA sentences, UBX frames and RTCM3 frames, detected from the
/// content, whatever the chunking.
///
/// Text runs go to an `NMEAFramer` (its counters and behaviour unchanged); a frame is recognised at a sync byte
/// (0xB5 0x62 for UBX, 0xD3 and six zero bits for RTCM3) and handed out whole once its checksum (Fletcher-8,
/// CRC-24Q) verifies, so binary bytes — even a `$` or a line feed inside a payload — never reach the NMEA framer.
/// A candidate that fails (bad checksum, impossible length, no second sync byte) is counted and resynchronised:
/// its first byte is treated as text and scanning resumes at the next byte, so a corrupt frame costs only itself.
/// The fast path finds the next byte ≥ 0x80 eight bytes at a time: pure NMEA (7-bit text) goes to the NMEA framer
/// in one call per chunk. Bounded memory (two buffers of the longest accepted frame), no allocation after init,
/// never traps.
public final class MixedStreamFramer {
    public struct Options: Sendable {
        public var nmea: NMEAFramer.Options
        /// Longest UBX payload accepted; longer announced lengths are counted as impossible and resynchronised.
        /// u-blox X20 NAV-SAT reaches ~2 KB; 8 KB leaves room.
        public var maximumUBXPayloadLength: Int

        public init(nmea: NMEAFramer.Options = .default, maximumUBXPayloadLength: Int = 8192) {
            self.nmea = nmea
            self.maximumUBXPayloadLength = max(16, min(maximumUBXPayloadLength, 0xFFFF))
        }
        public static let `default` = Options()
    }

    /// One framed unit, valid only during the callback.
    public enum Frame {
        case nmea(FramedSentence)
        case ubx(UBXFrame)
        case rtcm3(RTCM3Frame)
    }

    public let options: Options
    /// The NMEA framer that receives the text runs.
    public let nmea: NMEAFramer
    public private(set) var statistics = MixedStreamStatistics()

    private let capacity: Int
    /// A frame begun in an earlier chunk.
    private let carry: UnsafeMutablePointer<UInt8>
    private var carryLength = 0
    /// The bytes after a failed carried frame's first byte, scanned again.
    private let rescan: UnsafeMutablePointer<UInt8>

    public init(options: Options = .default) {
        self.options = options
        nmea = NMEAFramer(options: options.nmea)
        capacity = max(options.maximumUBXPayloadLength + UBX.overheadLength, RTCM3.maximumPayloadLength + 6)
        carry = .allocate(capacity: capacity)
        rescan = .allocate(capacity: capacity)
    }

    deinit {
        carry.deallocate()
        rescan.deallocate()
    }

    /// True while an NMEA sentence has started but not ended.
    public var isInsideSentence: Bool { nmea.isInsideSentence }
    /// True while a binary frame has started but not ended.
    public var isInsideFrame: Bool { carryLength > 0 }

    /// Counters the decoders add (unknown and malformed messages).
    public func countUnknownMessage() { statistics.unknownMessages += 1 }
    public func countMalformedMessage() { statistics.malformedMessages += 1 }
    public func countPollRequest() { statistics.pollRequests += 1 }

    public func feed(_ bytes: [UInt8], _ handler: (Frame) -> Void) {
        bytes.withUnsafeBufferPointer { feed($0, handler) }
    }

    /// Feed a chunk; `handler` is called for every sentence and frame, in stream order.
    public func feed(_ bytes: UnsafeBufferPointer<UInt8>, _ handler: (Frame) -> Void) {
        guard let base = bytes.baseAddress else { return }
        let n = bytes.count
        var position = 0
        while carryLength > 0 && position < n {
            position = continueCarry(base, n, position, handler)
        }
        if position < n { scan(base + position, n - position, handler) }
    }

    /// End of stream: a frame cut off is counted (its bytes after the first are scanned again as text), and the
    /// NMEA framer's last sentence is completed.
    public func finish(_ handler: (Frame) -> Void) {
        while carryLength > 0 {
            statistics.truncatedFrames += 1
            failCarry(handler)
        }
        nmea.finish { handler(.nmea($0)) }
    }

    private enum Check {
        case needMore(Int)
        case notAFrame
        case impossibleLength
        case complete(Int)
    }

    /// What the bytes at `p` (at least one, a sync byte) are, as far as `available` bytes tell.
    @inline(__always)
    private func check(_ p: UnsafePointer<UInt8>, _ available: Int) -> Check {
        if p[0] == UBX.sync1 {
            if available < 2 { return .needMore(2) }
            if p[1] != UBX.sync2 { return .notAFrame }
            if available < UBX.headerLength { return .needMore(UBX.headerLength) }
            let length = Int(p[4]) | Int(p[5]) << 8
            if length > options.maximumUBXPayloadLength { return .impossibleLength }
            return .complete(length + UBX.overheadLength)
        }
        if available < 2 { return .needMore(2) }
        if p[1] & 0xFC != 0 { return .notAFrame }
        if available < RTCM3.headerLength { return .needMore(RTCM3.headerLength) }
        let length = Int(p[1] & 0x03) << 8 | Int(p[2])
        return .complete(length + RTCM3.headerLength + RTCM3.crcLength)
    }

    /// Verifies a complete frame; hands it out and counts it when valid, counts the failure otherwise.
    @inline(__always)
    private func verifyAndEmit(_ p: UnsafePointer<UInt8>, _ total: Int, _ handler: (Frame) -> Void) -> Bool {
        if p[0] == UBX.sync1 {
            let (a, b) = UBX.checksum(UnsafeBufferPointer(start: p + 2, count: total - 4))
            guard a == p[total - 2], b == p[total - 1] else { statistics.ubxBadChecksums += 1; return false }
            statistics.ubxFramesByClass[Int(p[2])] += 1
            handler(.ubx(UBXFrame(classID: p[2], messageID: p[3],
                                  payload: UnsafeBufferPointer(start: p + 6, count: total - UBX.overheadLength),
                                  bytes: UnsafeBufferPointer(start: p, count: total))))
            return true
        }
        let crc = RTCM3.crc24q(UnsafeBufferPointer(start: p, count: total - 3))
        let sent = UInt32(p[total - 3]) << 16 | UInt32(p[total - 2]) << 8 | UInt32(p[total - 1])
        guard crc == sent else { statistics.rtcm3BadCRCs += 1; return false }
        statistics.rtcm3Frames += 1
        handler(.rtcm3(RTCM3Frame(bytes: UnsafeBufferPointer(start: p, count: total))))
        return true
    }

    /// Scans bytes with no frame in progress: text runs to the NMEA framer, frames out, a frame cut off by the
    /// chunk's end into `carry`.
    private func scan(_ p: UnsafePointer<UInt8>, _ n: Int, _ handler: (Frame) -> Void) {
        var i = 0
        var textStart = 0
        let raw = UnsafeRawPointer(p)
        while i < n {
            while i + 8 <= n && raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 { i += 8 }
            while i < n && p[i] < 0x80 { i += 1 }
            if i >= n { break }
            let b = p[i]
            guard b == UBX.sync1 || b == RTCM3.preamble else { i += 1; continue }
            switch check(p + i, n - i) {
            case .notAFrame:
                i += 1
            case .impossibleLength:
                statistics.ubxImpossibleLengths += 1
                i += 1
            case .needMore:
                text(p + textStart, i - textStart, handler)
                carryIn(p + i, n - i)
                return
            case .complete(let total):
                if total > n - i {
                    text(p + textStart, i - textStart, handler)
                    carryIn(p + i, n - i)
                    return
                }
                if i > textStart { text(p + textStart, i - textStart, handler) }
                if verifyAndEmit(p + i, total, handler) {
                    i += total
                    textStart = i
                } else {
                    textStart = i  // resynchronise: the sync byte is text (the next run's first byte)
                    i += 1
                }
            }
        }
        text(p + textStart, n - textStart, handler)
    }

    @inline(__always)
    private func text(_ p: UnsafePointer<UInt8>, _ n: Int, _ handler: (Frame) -> Void) {
        guard n > 0 else { return }
        nmea.feed(UnsafeBufferPointer(start: p, count: n)) { handler(.nmea($0)) }
    }

    private func carryIn(_ p: UnsafePointer<UInt8>, _ n: Int) {
        let k = min(n, capacity)
        carry.update(from: p, count: k)
        carryLength = k
    }

    /// Adds bytes to the carried frame; returns the position in the chunk after what was used.
    private func continueCarry(_ base: UnsafePointer<UInt8>, _ n: Int, _ start: Int, _ handler: (Frame) -> Void) -> Int {
        var position = start
        while true {
            let needed: Int
            switch check(UnsafePointer(carry), carryLength) {
            case .notAFrame:
                failCarry(handler); return position
            case .impossibleLength:
                statistics.ubxImpossibleLengths += 1
                failCarry(handler); return position
            case .needMore(let total): needed = total
            case .complete(let total):
                if carryLength >= total {
                    carryLength = 0
                    if !verifyAndEmit(UnsafePointer(carry), total, handler) {
                        carryLength = total
                        failCarry(handler)
                    }
                    return position
                }
                needed = total
            }
            let take = min(needed - carryLength, n - position)
            (carry + carryLength).update(from: base + position, count: take)
            carryLength += take
            position += take
            if carryLength < needed { return position }
        }
    }

    /// The carried bytes are not a frame: the first byte is text, the rest is scanned again.
    private func failCarry(_ handler: (Frame) -> Void) {
        let n = carryLength
        carryLength = 0
        guard n > 0 else { return }
        text(UnsafePointer(carry), 1, handler)
        guard n > 1 else { return }
        rescan.update(from: carry + 1, count: n - 1)
        scan(UnsafePointer(rescan), n - 1, handler)
    }
}
