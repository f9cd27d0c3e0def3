/// Why the framer or the parser refused a sentence. Every rejection is counted by reason.
public enum RejectionReason: Int, CaseIterable, Sendable, Hashable {
    case badChecksum = 0
    case missingChecksum
    case malformedChecksum
    case tooLong
    case collision
    case invalidCharacter
    case truncated
    case emptySentence
    case invalidAddress
    case tooFewFields

    public var name: String {
        switch self {
        case .badChecksum: "badChecksum"
        case .missingChecksum: "missingChecksum"
        case .malformedChecksum: "malformedChecksum"
        case .tooLong: "tooLong"
        case .collision: "collision"
        case .invalidCharacter: "invalidCharacter"
        case .truncated: "truncated"
        case .emptySentence: "emptySentence"
        case .invalidAddress: "invalidAddress"
        case .tooFewFields: "tooFewFields"
        }
    }
}

/// Counters kept by the framer and parser. Plain values: cheap to copy out for a summary.
public struct NMEAStatistics: Sendable, Hashable {
    /// Sentences that passed framing and checksum.
    public var framed: Int = 0
    /// Sentences accepted without a checksum (lenient mode only).
    public var acceptedWithoutChecksum: Int = 0
    /// `!`-encapsulated lines (AIS and friends): recognised and skipped.
    public var encapsulatedSkipped: Int = 0
    /// Bytes outside any sentence (leading garbage, binary noise).
    public var garbageBytes: Int = 0
    public var rejected: [Int] = Array(repeating: 0, count: RejectionReason.allCases.count)

    public init() {}

    public func count(_ reason: RejectionReason) -> Int { rejected[reason.rawValue] }
    public var totalRejected: Int { rejected.reduce(0, +) }

    public static func + (a: NMEAStatistics, b: NMEAStatistics) -> NMEAStatistics {
        var r = a
        r.framed += b.framed
        r.acceptedWithoutChecksum += b.acceptedWithoutChecksum
        r.encapsulatedSkipped += b.encapsulatedSkipped
        r.garbageBytes += b.garbageBytes
        for i in r.rejected.indices { r.rejected[i] += b.rejected[i] }
        return r
    }
}

/// One framed sentence, valid only during the callback: bytes from `$` up to (not including) CR/LF.
/// `bodyEnd` is the index of `*` (or the end when there is no checksum).
public struct FramedSentence {
    public let bytes: UnsafeBufferPointer<UInt8>
    public let bodyEnd: Int
    public let hadChecksum: Bool

    /// The text between `$` and `*`, e.g. `GPGGA,...`.
    public var body: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[1..<bodyEnd]) }
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// A byte-stream NMEA 0183 framer: a state machine fed arbitrary chunks. It tolerates leading garbage, partial
/// and colliding sentences, `$$` prefixes, CR, LF or CRLF endings and lower-case hex checksums; skips `!` lines;
/// rejects missing or bad checksums (unless `lenient`) and over-long lines (bounded buffer). It never traps and
/// never allocates after init.
public final class NMEAFramer {
    public struct Options: Sendable {
        /// Accept sentences without a `*hh` checksum (a bad checksum is always rejected).
        public var acceptMissingChecksum: Bool
        /// Longest accepted sentence in bytes, `$` to the last checksum digit. NMEA says 82; real receivers
        /// (u-blox PUBX, Unicore, NMEA 4.11 GSV) exceed it, so the default allows 256.
        public var maximumLength: Int

        public init(acceptMissingChecksum: Bool = false, maximumLength: Int = 256) {
            self.acceptMissingChecksum = acceptMissingChecksum
            self.maximumLength = max(8, min(maximumLength, 4096))
        }
        public static let `default` = Options()
    }

    public let options: Options
    public private(set) var statistics = NMEAStatistics()

    private let buffer: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private var length = 0
    private var inSentence = false
    /// Set after an over-long or invalid line: skip to the next start character.
    private var discarding = false

    public init(options: Options = .default) {
        self.options = options
        self.capacity = options.maximumLength
        self.buffer = .allocate(capacity: options.maximumLength + 1)
    }

    deinit { buffer.deallocate() }

    public func resetStatistics() { statistics = NMEAStatistics() }

    /// True while a sentence has started but not ended (its first bytes came with an earlier chunk).
    public var isInsideSentence: Bool { inSentence }

    /// Feed a chunk; `onSentence` is called for every accepted sentence, in order.
    @inlinable
    public func feed(_ bytes: [UInt8], _ onSentence: (FramedSentence) -> Void) {
        bytes.withUnsafeBufferPointer { feed($0, onSentence) }
    }

    public func feed(_ bytes: UnsafeRawBufferPointer, _ onSentence: (FramedSentence) -> Void) {
        feed(bytes.bindMemory(to: UInt8.self), onSentence)
    }

    public func feed(_ bytes: UnsafeBufferPointer<UInt8>, _ onSentence: (FramedSentence) -> Void) {
        guard let base = bytes.baseAddress else { return }
        let n = bytes.count
        let buffer = self.buffer
        let capacity = self.capacity
        // State in locals for the hot loop; written back around every call out.
        var length = self.length
        var inSentence = self.inSentence
        var discarding = self.discarding
        var garbage = 0
        var i = 0
        while i < n {
            let b = base[i]
            i += 1
            if !inSentence {
                if b == 0x24 || b == 0x21 { // '$' or '!'
                    inSentence = true; discarding = false; buffer[0] = b; length = 1
                } else if b != 0x0D && b != 0x0A && !discarding {
                    garbage += 1
                }
                continue
            }
            if b >= 0x20 && b <= 0x7E && b != 0x24 && b != 0x21 {
                // The rest of the run of sentence characters, copied at once (a byte-by-byte copy was a tenth of
                // a replay's instructions).
                var j = i
                // Eight bytes at a time while all are sentence characters (0x20…0x7E, neither '$' nor '!'); the
                // usual exact any-byte tests (below n: (x − n·1) & ~x & 0x80·1; above n: ((x + (127 − n)·1) | x) & 0x80·1;
                // equal: below 1 after XOR).
                let raw = UnsafeRawPointer(base)
                let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
                while j + 8 <= n {
                    let x = raw.loadUnaligned(fromByteOffset: j, as: UInt64.self)
                    let below = (x &- ones &* 0x20) & ~x & highs
                    let above = ((x &+ ones) | x) & highs
                    let d = x ^ (ones &* 0x24), e = x ^ (ones &* 0x21)
                    let dollar = (d &- ones) & ~d & highs
                    let bang = (e &- ones) & ~e & highs
                    if below | above | dollar | bang != 0 { break }
                    j += 8
                }
                while j < n {
                    let c = base[j]
                    if c < 0x20 || c > 0x7E || c == 0x24 || c == 0x21 { break }
                    j += 1
                }
                let run = j - i + 1
                if length + run > capacity {
                    // Too long: the sentence is dropped and the rest of its characters discarded.
                    statistics.rejected[RejectionReason.tooLong.rawValue] += 1
                    inSentence = false; length = 0; discarding = true
                    i = j
                    continue
                }
                (buffer + length).update(from: base + (i - 1), count: run)
                length += run
                i = j
                continue
            }
            switch b {
            case 0x0D, 0x0A:
                self.length = length
                self.inSentence = true
                complete(onSentence)
                length = 0
                inSentence = false
            case 0x24, 0x21:
                if length == 1 && buffer[0] == 0x24 && b == 0x24 { continue } // "$$" prefix
                statistics.rejected[RejectionReason.collision.rawValue] += 1
                inSentence = true; discarding = false; buffer[0] = b; length = 1
            default:
                statistics.rejected[RejectionReason.invalidCharacter.rawValue] += 1
                inSentence = false; length = 0; discarding = true
            }
        }
        self.length = length
        self.inSentence = inSentence
        self.discarding = discarding
        statistics.garbageBytes += garbage
    }

    /// End of stream: a final sentence without a line ending is accepted if its checksum verifies.
    public func finish(_ onSentence: (FramedSentence) -> Void) {
        guard inSentence else { return }
        if (length >= 4 && buffer[length - 3] == 0x2A) || options.acceptMissingChecksum {
            complete(onSentence)
        } else {
            reject(.truncated)
        }
    }

    @inline(__always)
    private func start(_ b: UInt8) {
        inSentence = true
        discarding = false
        buffer[0] = b
        length = 1
    }

    @inline(__always)
    private func reject(_ reason: RejectionReason) {
        statistics.rejected[reason.rawValue] += 1
        inSentence = false
        length = 0
    }

    private func complete(_ onSentence: (FramedSentence) -> Void) {
        defer { inSentence = false; length = 0 }
        if buffer[0] == 0x21 { statistics.encapsulatedSkipped += 1; return }
        if length <= 1 { statistics.rejected[RejectionReason.emptySentence.rawValue] += 1; return }
        var star = -1
        var j = length - 1
        while j >= 1 { if buffer[j] == 0x2A { star = j; break }; j -= 1 }
        let sentence = UnsafeBufferPointer(start: buffer, count: length)
        if star < 0 {
            guard options.acceptMissingChecksum else {
                statistics.rejected[RejectionReason.missingChecksum.rawValue] += 1; return
            }
            statistics.acceptedWithoutChecksum += 1
            statistics.framed += 1
            onSentence(FramedSentence(bytes: sentence, bodyEnd: length, hadChecksum: false))
            return
        }
        guard star == length - 3, let hi = Self.hexValue(buffer[star + 1]), let lo = Self.hexValue(buffer[star + 2]) else {
            statistics.rejected[RejectionReason.malformedChecksum.rawValue] += 1; return
        }
        var sum: UInt8 = 0
        var k = 1
        while k < star { sum ^= buffer[k]; k += 1 }
        guard sum == hi << 4 | lo else { statistics.rejected[RejectionReason.badChecksum.rawValue] += 1; return }
        if star == 1 { statistics.rejected[RejectionReason.emptySentence.rawValue] += 1; return }
        statistics.framed += 1
        onSentence(FramedSentence(bytes: sentence, bodyEnd: star, hadChecksum: true))
    }

    /// The value of an ASCII hex digit (either case), nil for anything else.
    @inline(__always)
    public static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }
}

public enum NMEAChecksum {
    /// XOR of the bytes between `$` and `*`.
    public static func compute<C: Collection>(_ body: C) -> UInt8 where C.Element == UInt8 {
        body.reduce(0, ^)
    }
}
