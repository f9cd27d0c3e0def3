#if canImport(Glibc)
import Glibc
#endif
import LodestarIO

/// The store-and-forward spool: a bounded, ordered, on-disk queue of MQTT messages (docs/fleet.md).
///
/// Records are appended to segment files (`DIR/<first sequence number>.seg`, 20 digits); each record is
/// `[u32 length][u32 CRC-32][body]`, body = `[u64 seq][i64 enqueue wall ns][u8 qos][u8 retain][u16 topic length]
/// [topic][payload]`, little endian. The sequence number of the last record the broker acknowledged is kept in
/// `DIR/acked` (rewritten by rename; losing it only re-sends, QoS 1 is at-least-once anyway). Fully acknowledged
/// segments are deleted. Limits: `maxBytes` over all segments (the oldest segment is dropped whole, its unsent
/// records counted) and `maxAgeSeconds` by enqueue time (expired records are skipped at send time and counted).
///
/// Durability: records are written at once (page cache) and `fdatasync`ed after `syncEveryRecords` records or
/// `syncIntervalSeconds`, whichever comes first, so a power cut loses at most `syncEveryRecords` records.
/// A torn or corrupt record at the end of a segment (power cut mid-write) is counted and cut off at open.
/// Not thread-safe: one owner (the publisher thread).
public final class DiskQueue {
    public struct Limits: Sendable, Hashable {
        public var maxBytes: Int = 64 << 20
        public var maxAgeSeconds: Double = 7 * 86_400
        public var syncEveryRecords: Int = 10
        public var syncIntervalSeconds: Double = 1
        public init() {}
        /// Segment size: 1 MiB, or 1/16 of `maxBytes` for small spools (so dropping the oldest is fine-grained).
        var segmentBytes: Int { max(4096, min(1 << 20, maxBytes / 16)) }
    }

    public struct Record: Sendable, Hashable {
        public var seq: UInt64
        public var enqueuedNanos: Int64
        public var qos: Int32
        public var retain: Bool
        public var topic: String
        public var payload: [UInt8]
    }

    /// Why the spool cannot be opened: the system's error, naming the path (exit 77 when not allowed, else 73).
    public typealias OpenError = SystemError

    private struct Segment { var firstSeq: UInt64; var lastSeq: UInt64; var bytes: Int; var path: String }

    public let directory: String
    public let limits: Limits
    private var segments: [Segment] = []
    private var tailFD: Int32 = -1
    private var tailRecords: [Record] = []
    private var cache: (firstSeq: UInt64, records: [Record])?
    public private(set) var nextSeq: UInt64 = 1
    /// Every record with seq ≤ ackedSeq has been acknowledged (or dropped).
    public private(set) var ackedSeq: UInt64 = 0
    private var unsynced = 0
    private var firstUnsyncedNanos: Int64 = 0
    private var ackedDirty = false
    public private(set) var droppedForSize = 0
    public private(set) var droppedForAge = 0
    public private(set) var corruptRecords = 0
    public private(set) var writeErrors = 0
    public private(set) var syncs = 0

    public init(directory: String, limits: Limits = Limits()) throws(OpenError) {
        self.directory = directory
        self.limits = limits
        try Self.makeDirectories(directory)
        try load()
    }

    deinit { close() }

    /// Records not yet acknowledged.
    public var pendingCount: Int { Int(nextSeq - 1 - ackedSeq) }
    public var totalBytes: Int { segments.reduce(0) { $0 + $1.bytes } }

    // MARK: Appending

    public func append(topic: String, payload: [UInt8], qos: Int32, retain: Bool, nowNanos: Int64) {
        let rec = Record(seq: nextSeq, enqueuedNanos: nowNanos, qos: qos, retain: retain, topic: topic, payload: payload)
        let bytes = Self.encode(rec)
        if tailFD < 0 || (segments.last.map { $0.bytes + bytes.count > limits.segmentBytes && $0.bytes > 0 } ?? true) {
            rotate(firstSeq: nextSeq)
        }
        nextSeq += 1
        guard tailFD >= 0, writeAll(tailFD, bytes) else {
            // The record stays in memory (tailRecords) and is still sent; it is not durable.
            writeErrors += 1
            tailRecords.append(rec)
            if !segments.isEmpty { segments[segments.count - 1].lastSeq = rec.seq }
            return
        }
        tailRecords.append(rec)
        segments[segments.count - 1].lastSeq = rec.seq
        segments[segments.count - 1].bytes += bytes.count
        if unsynced == 0 { firstUnsyncedNanos = nowNanos }
        unsynced += 1
        if unsynced >= limits.syncEveryRecords { sync() }
        enforceSize()
    }

    /// fdatasync when the interval has passed since the first unsynced record; persists the ack cursor.
    public func syncIfDue(nowNanos: Int64) {
        if unsynced > 0 && Double(nowNanos - firstUnsyncedNanos) >= limits.syncIntervalSeconds * 1e9 { sync() }
        if ackedDirty { writeAcked() }
    }

    public func sync() {
        if tailFD >= 0 && unsynced > 0 {
            do { try Syscall.fsync(tailFD, dataOnly: true) } catch { writeErrors += 1 }
            syncs += 1
        }
        unsynced = 0
    }

    // MARK: Reading and acknowledging

    /// The record `seq` if still queued and not expired (expired ones are counted once, when skipped over).
    public func record(_ seq: UInt64) -> Record? {
        guard seq > ackedSeq, seq < nextSeq else { return nil }
        guard let i = segments.firstIndex(where: { seq >= $0.firstSeq && seq <= $0.lastSeq }) else { return nil }
        let seg = segments[i]
        let records: [Record]
        if i == segments.count - 1 { records = tailRecords }
        else if let c = cache, c.firstSeq == seg.firstSeq { records = c.records }
        else {
            records = readSegment(seg.path, truncateCorruptTail: false).records
            cache = (seg.firstSeq, records)
        }
        let k = Int(seq - seg.firstSeq)
        guard k >= 0, k < records.count, records[k].seq == seq else {
            // Binary search fallback (a corrupt record was cut out of an old segment).
            return records.first { $0.seq == seq }
        }
        return records[k]
    }

    /// Whether `r` is older than the age limit.
    public func isExpired(_ r: Record, nowNanos: Int64) -> Bool {
        Double(nowNanos - r.enqueuedNanos) > limits.maxAgeSeconds * 1e9
    }

    public func noteExpired() { droppedForAge += 1 }

    /// Everything up to and including `seq` is acknowledged (or given up); deletes finished segments.
    public func acknowledge(through seq: UInt64) {
        guard seq > ackedSeq else { return }
        ackedSeq = min(seq, nextSeq - 1)
        ackedDirty = true
        while segments.count > 1, segments[0].lastSeq <= ackedSeq {
            Syscall.remove(segments[0].path)
            if cache?.firstSeq == segments[0].firstSeq { cache = nil }
            segments.removeFirst()
        }
    }

    public func close() {
        sync()
        if ackedDirty { writeAcked() }
        if tailFD >= 0 { Syscall.close(tailFD); tailFD = -1 }
    }

    // MARK: Internals

    private func rotate(firstSeq: UInt64) {
        sync()
        if tailFD >= 0 { Syscall.close(tailFD); tailFD = -1 }
        let path = segmentPath(firstSeq)
        do { tailFD = try Syscall.open(path, flags: O_WRONLY | O_CREAT | O_APPEND, mode: 0o600) } catch { writeErrors += 1 }
        segments.append(Segment(firstSeq: firstSeq, lastSeq: firstSeq - 1, bytes: 0, path: path))
        tailRecords.removeAll(keepingCapacity: true)
        // Make the new file's directory entry durable.
        if let dfd = try? Syscall.open(directory, flags: O_RDONLY | O_DIRECTORY) {
            try? Syscall.fsync(dfd)
            Syscall.close(dfd)
        }
    }

    private func enforceSize() {
        while segments.count > 1 && totalBytes > limits.maxBytes {
            let s = segments.removeFirst()
            if s.lastSeq > ackedSeq { droppedForSize += Int(s.lastSeq - max(ackedSeq, s.firstSeq - 1)) }
            Syscall.remove(s.path)
            if cache?.firstSeq == s.firstSeq { cache = nil }
            if s.lastSeq > ackedSeq { ackedSeq = s.lastSeq; ackedDirty = true }
        }
    }

    private func segmentPath(_ seq: UInt64) -> String {
        var digits = String(seq)
        while digits.count < 20 { digits = "0" + digits }
        return directory + "/" + digits + ".seg"
    }

    private func load() throws(OpenError) {
        var names: [String]
        do { names = try Syscall.directoryEntries(directory) } catch { throw SystemError("open", path: directory, error) }
        names.removeAll { !($0.hasSuffix(".seg") && $0.count == 24 && UInt64($0.prefix(20)) != nil) }
        names.sort()
        if let text = readSmallFile(directory + "/acked"), let v = UInt64(text.filter { $0.isNumber }) { ackedSeq = v }
        for name in names {
            let path = directory + "/" + name
            let (records, validBytes) = readSegment(path, truncateCorruptTail: true)
            guard let first = UInt64(name.prefix(20)) else { continue }
            if records.isEmpty { Syscall.remove(path); continue }
            segments.append(Segment(firstSeq: first, lastSeq: records.last!.seq, bytes: validBytes, path: path))
            if name == names.last { tailRecords = records }
        }
        if let last = segments.last {
            nextSeq = last.lastSeq + 1
            if ackedSeq >= nextSeq { ackedSeq = nextSeq - 1 }
            if ackedSeq < segments[0].firstSeq - 1 { ackedSeq = segments[0].firstSeq - 1 }
            do { tailFD = try Syscall.open(last.path, flags: O_WRONLY | O_APPEND) } catch { throw SystemError("open", path: last.path, error) }
        } else {
            nextSeq = ackedSeq + 1
        }
        acknowledge(through: ackedSeq)
    }

    private func readSegment(_ path: String, truncateCorruptTail: Bool) -> (records: [Record], validBytes: Int) {
        guard let bytes = readFile(path) else { return ([], 0) }
        var records: [Record] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            let length = Int(Self.u32(bytes, offset))
            let crc = Self.u32(bytes, offset + 4)
            guard length >= 20, offset + 8 + length <= bytes.count else { break }
            let body = bytes[(offset + 8)..<(offset + 8 + length)]
            guard CRC32.checksum(body) == crc, let r = Self.decode(body) else { break }
            records.append(r)
            offset += 8 + length
        }
        if offset < bytes.count {
            corruptRecords += 1
            if truncateCorruptTail { try? Syscall.truncate(path, length: offset) }
        }
        return (records, offset)
    }

    static func encode(_ r: Record) -> [UInt8] {
        var body: [UInt8] = []
        let topic = Array(r.topic.utf8)
        body.reserveCapacity(20 + topic.count + r.payload.count)
        appendLE(&body, r.seq, 8)
        appendLE(&body, UInt64(bitPattern: r.enqueuedNanos), 8)
        body.append(UInt8(r.qos)); body.append(r.retain ? 1 : 0)
        appendLE(&body, UInt64(topic.count), 2)
        body += topic; body += r.payload
        var out: [UInt8] = []
        out.reserveCapacity(body.count + 8)
        appendLE(&out, UInt64(body.count), 4)
        appendLE(&out, UInt64(CRC32.checksum(body[...])), 4)
        return out + body
    }

    static func decode(_ b: ArraySlice<UInt8>) -> Record? {
        let s = b.startIndex
        guard b.count >= 20 else { return nil }
        let topicLength = Int(b[s + 18]) | Int(b[s + 19]) << 8
        guard 20 + topicLength <= b.count else { return nil }
        var seq: UInt64 = 0, t: UInt64 = 0
        for i in 0..<8 { seq |= UInt64(b[s + i]) << (8 * i); t |= UInt64(b[s + 8 + i]) << (8 * i) }
        return Record(seq: seq, enqueuedNanos: Int64(bitPattern: t), qos: Int32(b[s + 16]), retain: b[s + 17] != 0,
                      topic: String(decoding: b[(s + 20)..<(s + 20 + topicLength)], as: UTF8.self),
                      payload: Array(b[(s + 20 + topicLength)...]))
    }

    static func appendLE(_ out: inout [UInt8], _ v: UInt64, _ n: Int) { for i in 0..<n { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) } }
    static func u32(_ b: [UInt8], _ o: Int) -> UInt32 {
        UInt32(b[o]) | UInt32(b[o + 1]) << 8 | UInt32(b[o + 2]) << 16 | UInt32(b[o + 3]) << 24
    }

    /// Rewrites the ack cursor by rename (not fsynced: losing it only re-sends).
    private func writeAcked() {
        do {
            try Syscall.replaceFile(directory + "/acked", with: Array("\(ackedSeq)\n".utf8), mode: 0o600, synced: false)
            ackedDirty = false
        } catch { writeErrors += 1 }
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        do { try Syscall.writeFully(fd, bytes); return true } catch { return false }
    }

    private func readFile(_ path: String) -> [UInt8]? {
        try? Syscall.readWholeFile(path)
    }

    private func readSmallFile(_ path: String) -> String? { readFile(path).map { String(decoding: $0, as: UTF8.self) } }

    static func makeDirectories(_ path: String) throws(OpenError) {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            do { try Syscall.makeDirectory(current, mode: 0o700) } catch { throw SystemError("create directory", path: current, error) }
        }
        guard let type = Syscall.fileType(path) else { throw SystemError("create directory", path: path, errno: ENOENT) }
        guard type == S_IFDIR else { throw SystemError("create directory", path: path, errno: ENOTDIR) }
        do { try Syscall.checkWritable(path) } catch { throw SystemError("create directory", path: path, error) }
    }
}

/// CRC-32 (IEEE 802.3, as zlib), table driven.
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { i -> UInt32 in
        var c = UInt32(i)
        for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
