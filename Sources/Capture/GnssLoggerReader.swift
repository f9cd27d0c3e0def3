#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

/// Reads Android GnssLogger text logs (GnssLogger v1.4, v2.x, v3.x; GSDC 2021–2023 `GnssLog.txt`), a GnssLogger
/// NMEA file (`NMEA,<sentence>,<ms>` rows only) and GSDC ground-truth CSVs (`MessageType,Provider,…` header, `Fix,GT,…`
/// rows), streaming: memory stays constant whatever the file size.
///
/// Columns are taken from each `# <Type>,col,…` header line (they differ between app versions; names are matched
/// case-insensitively), never from fixed positions. The only layout assumed without a header is the v1.4 `Fix` row
/// (`Fix,Provider,Latitude,Longitude,Altitude,Speed,Accuracy,(UTC)TimeInMs`, exactly 8 fields).
///
/// Records and events:
/// - `Fix` → `.fix(ExternalFix)`; `utc` = UnixTimeMillis, `monotonicNanos` = elapsedRealtimeNanos when the layout has it.
/// - `NMEA` → `.nmea(sentence + "\r\n")`; `utc` = the receive time after the sentence's last comma.
/// - `UncalAccel`/`Accel`, `UncalGyro`/`Gyro`, `UncalMag`/`Mag` → `.motion(…)` (Uncal rows carry their bias/drift);
///   `OrientationDeg` → `.orientation(…)`; `utc` = utcTimeMillis, `monotonicNanos` = elapsedRealtimeNanos.
/// - Every other record type (Raw, Status, Nav, Agc, GnssAntennaInfo, …), stray `#,` lines and blank lines are
///   counted in `statistics.recordsIgnored`.
/// - A mapped row that cannot be used is counted in `statistics.rejections` and skipped: `tooFewFields` (fewer fields
///   than its header names), `missingValue` (a required field is empty), `badNumber` (unparsable or non-finite),
///   `badTimestamp`, `badCoordinate` (latitude/longitude out of range), `noHeader` (a row before its type's header),
///   `headerMissingColumns` (its header lacks a required column), `lineTooLong`, `badNMEA` (no `$`/`!` sentence),
///   and `zeroMagnetometer` (an all-zero magnetometer vector: GSDC 2023 logs carry such placeholder rows).
///   `recordsRead == recordsAccepted + rejections.total + recordsIgnored` always holds.
///
/// Ordering: GnssLogger writes records in arrival order, so sensor batches and fixes interleave out of time order.
/// Events are delivered sorted by `monotonicNanos` (elapsedRealtimeNanos) through a **bounded reorder window**: an
/// event is held until an event at least `reorderWindowNanos` (default 2 s) newer has been read, or until more than
/// `reorderCapacity` (default 4096) events are held, whichever comes first (and at end of file). Equal times keep
/// file order. An event arriving later than the window allows is delivered as soon as possible, out of order, and
/// counted in `outOfOrderEvents`. Events without monotonic time (NMEA rows, v1/v2 Fix rows) keep their file
/// position: they sort at the newest monotonic time read before them, after every earlier event of the file.
/// Before any timed event has been read they pass straight through.
public final class GnssLoggerReader: CaptureReader {
    public static let defaultReorderWindowNanos: Int64 = 2_000_000_000
    public static let defaultReorderCapacity = 4096

    public let format: CaptureFormat = .gnsslogger
    public private(set) var header = CaptureHeader()
    public private(set) var statistics = CaptureStatistics()
    public let path: String
    /// How far (ns of elapsedRealtimeNanos) an event is held for reordering.
    public let reorderWindowNanos: Int64
    /// The most events held for reordering.
    public let reorderCapacity: Int
    /// Events delivered after an event with a larger monotonic time (later than the reorder window allowed).
    public private(set) var outOfOrderEvents = 0

    private let lines: LineReader
    private var fields = CSVLineFields()
    private var layouts: [String: GnssLoggerLayout] = [:]
    private var sawVersion = false
    private var held = GnssReorderHeap()
    private var ready: SensorEvent?
    private var newestKey: Int64?
    private var lastDeliveredKey: Int64?
    private var sequence: UInt64 = 0
    private var atEOF = false

    public convenience init(path: String,
                            reorderWindowNanos: Int64 = GnssLoggerReader.defaultReorderWindowNanos,
                            reorderCapacity: Int = GnssLoggerReader.defaultReorderCapacity) throws(CaptureError) {
        self.init(source: try ByteSource(path: path), reorderWindowNanos: reorderWindowNanos, reorderCapacity: reorderCapacity)
    }

    public init(source: ByteSource,
                reorderWindowNanos: Int64 = GnssLoggerReader.defaultReorderWindowNanos,
                reorderCapacity: Int = GnssLoggerReader.defaultReorderCapacity) {
        self.path = source.path
        self.lines = LineReader(source: source)
        self.reorderWindowNanos = max(0, reorderWindowNanos)
        self.reorderCapacity = max(1, reorderCapacity)
    }

    public func next() throws(CaptureError) -> SensorEvent? {
        while true {
            if let event = ready {
                ready = nil
                return event
            }
            if let top = held.minimum, atEOF || held.count > reorderCapacity || isBeyondWindow(top.key) {
                return deliver(held.popMinimum())
            }
            if atEOF { return nil }
            let more: Void? = try lines.nextLineMappingErrors(path: path) { line, truncated in
                self.process(line, truncated: truncated)
            }
            if more == nil { atEOF = true }
        }
    }

    // MARK: - Reordering

    private func isBeyondWindow(_ key: Int64) -> Bool {
        guard let newest = newestKey else { return false }
        let (age, overflow) = newest.subtractingReportingOverflow(key)
        return overflow || age > reorderWindowNanos
    }

    private func deliver(_ entry: GnssReorderHeap.Entry?) -> SensorEvent? {
        guard let entry else { return nil }
        if let last = lastDeliveredKey {
            if entry.key < last { outOfOrderEvents += 1 } else { lastDeliveredKey = entry.key }
        } else {
            lastDeliveredKey = entry.key
        }
        return entry.event
    }

    private func accept(_ event: SensorEvent) {
        statistics.recordsAccepted += 1
        if header.referenceDate == nil, let utc = event.utc, utc.nanosecondsSince1970 >= 315_964_800_000_000_000 {
            header.referenceDate = utc.civilDate  // first plausible (≥ GPS epoch) UTC stamp of the log
        }
        sequence &+= 1
        if let key = event.monotonicNanos {
            if let newest = newestKey { newestKey = max(newest, key) } else { newestKey = key }
            held.push(.init(key: key, sequence: sequence, event: event))
        } else if let newest = newestKey {
            held.push(.init(key: newest, sequence: sequence, event: event))
        } else {
            ready = event
        }
    }

    private func reject(_ reason: String) { statistics.reject(reason) }

    // MARK: - Lines

    private func process(_ line: UnsafeBufferPointer<UInt8>, truncated: Bool) {
        let start = CSVLineFields.firstNonSpace(line)
        guard start < line.count else {
            statistics.recordsRead += 1
            statistics.recordsIgnored += 1
            return
        }
        if line[start] == UInt8(ascii: "#") {
            processComment(UnsafeBufferPointer(rebasing: line[(start + 1)...]))
            return
        }
        fields.split(line)
        let type = fields.string(0)
        if type == "MessageType" {
            // GSDC 2022/2023 ground truth: a header row naming the Fix columns, without '#'.
            registerLayout(type: "Fix", columnsFrom: 1)
            return
        }
        statistics.recordsRead += 1
        if type == "NMEA" {
            processNMEA(line, truncated: truncated)
            return
        }
        guard GnssLoggerLayout.mappedTypes.contains(type) else {
            statistics.recordsIgnored += 1
            return
        }
        if truncated { return reject("lineTooLong") }
        let layout: GnssLoggerLayout
        if let known = layouts[type] {
            layout = known
        } else if type == "Fix" && fields.count == 8 {
            layout = GnssLoggerLayout.v1Fix
        } else {
            return reject("noHeader")
        }
        switch layout {
        case .invalid: reject("headerMissingColumns")
        case .fix(let fix): processFix(fix)
        case .sensor(let sensor): processSensor(sensor)
        }
    }

    private func processComment(_ rest: UnsafeBufferPointer<UInt8>) {
        let start = CSVLineFields.firstNonSpace(rest)
        let text = UnsafeBufferPointer(rebasing: rest[start...])
        if !sawVersion, CSVLineFields.hasPrefix(text, "Version:") {
            sawVersion = true
            header.fields.append(contentsOf: Self.parseVersionLine(String(decoding: text, as: UTF8.self)))
            return
        }
        guard text.contains(UInt8(ascii: ",")) else { return }  // "#", "# Header Description:" and other comments
        fields.split(text)
        let type = fields.string(0)
        if type.isEmpty {
            // Stray "#," lines (GSDC files) are counted like the ignored records they precede.
            statistics.recordsRead += 1
            statistics.recordsIgnored += 1
            return
        }
        registerLayout(type: type, columnsFrom: 1)
    }

    /// Builds the layout of a mapped record type from `fields` (column names start at `columnsFrom`; data index =
    /// the column's position in that line, since data rows also start with the type field).
    private func registerLayout(type: String, columnsFrom first: Int) {
        guard GnssLoggerLayout.mappedTypes.contains(type) else { return }
        var names: [String] = []
        names.reserveCapacity(fields.count)
        names.append(type.lowercased())
        for i in first..<max(first, fields.count) { names.append(fields.string(i).lowercased()) }
        layouts[type] = GnssLoggerLayout.make(type: type, columns: names)
    }

    /// `Version: v3.0.6.4 Platform: 14 Manufacturer: Google Model: Pixel 7` → (Version, v3.0.6.4), (Platform, 14), …
    /// Keys are words ending in ':'; a value is everything up to the next key, without a trailing comma.
    static func parseVersionLine(_ text: String) -> [(key: String, value: String)] {
        var result: [(key: String, value: String)] = []
        var key: String?
        var words: [Substring] = []
        func flush() {
            guard let key else { return }
            var value = words.joined(separator: " ")
            while value.hasSuffix(",") { value.removeLast() }
            result.append((key, value))
        }
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if word.count > 1, word.hasSuffix(":") {
                flush()
                key = String(word.dropLast())
                words = []
            } else {
                words.append(word)
            }
        }
        flush()
        return result
    }

    // MARK: - Records

    private func processNMEA(_ line: UnsafeBufferPointer<UInt8>, truncated: Bool) {
        if truncated { return reject("lineTooLong") }
        // "NMEA," prefix, then the sentence (which contains commas), then ",<UnixTimeMillis>" after the LAST comma.
        guard let firstComma = line.firstIndex(of: UInt8(ascii: ",")) else { return reject("badNMEA") }
        let bodyStart = firstComma + 1
        var sentenceEnd = line.count
        var stamp = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        if let comma = (bodyStart..<line.count).last(where: { line[$0] == UInt8(ascii: ",") }) {
            let tail = UnsafeBufferPointer(rebasing: line[(comma + 1)...])
            // A tail holding '*' is the sentence's checksum field: the row has no receive time.
            if !tail.contains(UInt8(ascii: "*")) {
                sentenceEnd = comma
                stamp = tail
            }
        }
        let sentence = UnsafeBufferPointer(rebasing: line[bodyStart..<sentenceEnd])
        guard let lead = sentence.first, lead == UInt8(ascii: "$") || lead == UInt8(ascii: "!") else {
            return reject("badNMEA")
        }
        var utc: Timestamp?
        switch CSVLineFields.int64(CSVLineFields.trimmed(stamp)) {
        case .empty: utc = nil
        case .value(let ms):
            guard let t = Self.timestamp(milliseconds: ms) else { return reject("badTimestamp") }
            utc = t
        case .invalid, .nonFinite: return reject("badTimestamp")
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(sentence.count + 2)
        bytes.append(contentsOf: sentence)
        bytes.append(0x0D)
        bytes.append(0x0A)
        accept(SensorEvent(monotonicNanos: nil, utc: utc, payload: .nmea(bytes)))
    }

    private func processFix(_ layout: GnssFixLayout) {
        guard fields.count >= layout.columnCount else { return reject("tooFewFields") }
        let lat: Double, lon: Double
        switch (fields.double(layout.latitude), fields.double(layout.longitude)) {
        case (.value(let a), .value(let b)): lat = a; lon = b
        case (.empty, _), (_, .empty): return reject("missingValue")
        default: return reject("badNumber")
        }
        guard (-90...90).contains(lat), (-180...180).contains(lon) else { return reject("badCoordinate") }

        var location = Location()
        location.latitudeDegrees = lat
        location.longitudeDegrees = lon
        var bad = false
        func optional(_ index: Int?) -> Double? {
            guard let index else { return nil }
            switch fields.double(index) {
            case .empty: return nil
            case .value(let v): return v
            case .invalid, .nonFinite: bad = true; return nil
            }
        }
        location.altitudeEllipsoidMeters = optional(layout.altitude)
        location.speedMetersPerSecond = optional(layout.speed)
        location.horizontalAccuracyMeters = optional(layout.accuracy)
        location.courseDegrees = optional(layout.bearing)
        location.speedAccuracyMetersPerSecond = optional(layout.speedAccuracy)
        location.courseAccuracyDegrees = optional(layout.bearingAccuracy)
        location.verticalAccuracyMeters = optional(layout.verticalAccuracy)
        if bad { return reject("badNumber") }

        guard let utc = timestamp(column: layout.time), let monotonic = monotonic(column: layout.elapsedRealtimeNanos)
        else { return reject("badTimestamp") }
        location.time = utc
        if utc != nil { location.timeFractionDigits = 3 }
        location.mode = location.altitudeEllipsoidMeters != nil ? .threeD : .twoD
        let provider = layout.provider.map { fields.string($0) } ?? ""
        location.quality = provider.uppercased() == "GPS" ? .gps : .unknown
        accept(SensorEvent(monotonicNanos: monotonic, utc: utc,
                           payload: .fix(ExternalFix(provider: provider, location: location))))
    }

    private func processSensor(_ layout: GnssSensorLayout) {
        guard fields.count >= layout.columnCount else { return reject("tooFewFields") }
        let value: Vector3
        switch vector(layout.value) {
        case .value(let v): value = v
        case .absent, .partial: return reject("missingValue")
        case .invalid: return reject("badNumber")
        }
        var bias: Vector3?
        if let columns = layout.bias {
            switch vector(columns) {
            case .value(let v): bias = v
            case .absent: bias = nil
            case .partial: return reject("missingValue")
            case .invalid: return reject("badNumber")
            }
        }
        guard let utc = timestamp(column: layout.utcTimeMillis),
              let monotonic = monotonic(column: layout.elapsedRealtimeNanos)
        else { return reject("badTimestamp") }
        let payload: EventPayload
        switch layout.kind {
        case .accelerometer:
            payload = .motion(.accelerometer(metersPerSecondSquared: value, biasMetersPerSecondSquared: bias))
        case .gyroscope:
            payload = .motion(.gyroscope(radiansPerSecond: value, driftRadiansPerSecond: bias))
        case .magnetometer:
            if value == .zero { return reject("zeroMagnetometer") }
            payload = .motion(.magnetometer(fieldMicrotesla: value, biasMicrotesla: bias))
        case .orientation:
            payload = .orientation(ReportedOrientation(yawDegrees: value.x, rollDegrees: value.y, pitchDegrees: value.z))
        }
        accept(SensorEvent(monotonicNanos: monotonic, utc: utc, payload: payload))
    }

    // MARK: - Field helpers

    private enum VectorField { case value(Vector3), absent, partial, invalid }

    /// All three numbers → value; all three empty → absent; some empty → partial; any bad number → invalid.
    private func vector(_ c: (Int, Int, Int)) -> VectorField {
        let parts = (fields.double(c.0), fields.double(c.1), fields.double(c.2))
        switch parts {
        case (.value(let x), .value(let y), .value(let z)): return .value(Vector3(x: x, y: y, z: z))
        case (.empty, .empty, .empty): return .absent
        default:
            func bad(_ f: CSVFieldValue<Double>) -> Bool {
                switch f {
                case .invalid, .nonFinite: true
                case .empty, .value: false
                }
            }
            return bad(parts.0) || bad(parts.1) || bad(parts.2) ? .invalid : .partial
        }
    }

    /// nil = unusable; .some(nil) = absent (no column or empty field).
    private func timestamp(column: Int?) -> Timestamp?? {
        guard let column else { return .some(nil) }
        switch fields.int64(column) {
        case .empty: return .some(nil)
        case .value(let ms): return Self.timestamp(milliseconds: ms).map { .some($0) }
        case .invalid, .nonFinite: return nil
        }
    }

    private func monotonic(column: Int?) -> Int64?? {
        guard let column else { return .some(nil) }
        switch fields.int64(column) {
        case .empty: return .some(nil)
        case .value(let ns): return .some(ns)
        case .invalid, .nonFinite: return nil
        }
    }

    static func timestamp(milliseconds ms: Int64) -> Timestamp? {
        let (ns, overflow) = ms.multipliedReportingOverflow(by: 1_000_000)
        return overflow ? nil : Timestamp(nanosecondsSince1970: ns)
    }
}

// MARK: - Layouts

enum GnssSensorKind: Sendable { case accelerometer, gyroscope, magnetometer, orientation }

struct GnssSensorLayout: Sendable {
    var kind: GnssSensorKind
    var utcTimeMillis: Int?
    var elapsedRealtimeNanos: Int?
    var value: (Int, Int, Int)
    var bias: (Int, Int, Int)?
    /// Fields the header names (type included): rows with fewer are rejected.
    var columnCount: Int
}

struct GnssFixLayout: Sendable {
    var provider: Int?
    var latitude: Int
    var longitude: Int
    var altitude: Int?
    var speed: Int?
    var accuracy: Int?
    var bearing: Int?
    var time: Int?
    var speedAccuracy: Int?
    var bearingAccuracy: Int?
    var elapsedRealtimeNanos: Int?
    var verticalAccuracy: Int?
    var columnCount: Int
}

enum GnssLoggerLayout: Sendable {
    case fix(GnssFixLayout)
    case sensor(GnssSensorLayout)
    case invalid

    static let mappedTypes: Set<String> = ["Fix", "UncalAccel", "Accel", "UncalGyro", "Gyro", "UncalMag", "Mag",
                                           "OrientationDeg"]

    /// v1.4 (2016) rows have no header in some files: `Fix,Provider,Latitude,Longitude,Altitude,Speed,Accuracy,(UTC)TimeInMs`.
    static let v1Fix: GnssLoggerLayout = make(
        type: "Fix", columns: ["fix", "provider", "latitude", "longitude", "altitude", "speed", "accuracy", "(utc)timeinms"])

    /// Sensor value and bias column names (lower case) per record type.
    private static let sensorColumns: [String: (GnssSensorKind, [String], [String]?)] = [
        "UncalAccel": (.accelerometer, ["uncalaccelxmps2", "uncalaccelymps2", "uncalaccelzmps2"],
                       ["biasxmps2", "biasymps2", "biaszmps2"]),
        "Accel": (.accelerometer, ["accelxmps2", "accelymps2", "accelzmps2"], nil),
        "UncalGyro": (.gyroscope, ["uncalgyroxradpersec", "uncalgyroyradpersec", "uncalgyrozradpersec"],
                      ["driftxradpersec", "driftyradpersec", "driftzradpersec"]),
        "Gyro": (.gyroscope, ["gyroxradpersec", "gyroyradpersec", "gyrozradpersec"], nil),
        "UncalMag": (.magnetometer, ["uncalmagxmicrot", "uncalmagymicrot", "uncalmagzmicrot"],
                     ["biasxmicrot", "biasymicrot", "biaszmicrot"]),
        "Mag": (.magnetometer, ["magxmicrot", "magymicrot", "magzmicrot"], nil),
        "OrientationDeg": (.orientation, ["yawdeg", "rolldeg", "pitchdeg"], nil),
    ]

    /// `columns[0]` is the type itself; names are lower case.
    static func make(type: String, columns: [String]) -> GnssLoggerLayout {
        func index(_ names: String...) -> Int? {
            for name in names { if let i = columns.firstIndex(of: name), i > 0 { return i } }
            return nil
        }
        if type == "Fix" {
            guard let lat = index("latitudedegrees", "latitude"), let lon = index("longitudedegrees", "longitude")
            else { return .invalid }
            return .fix(GnssFixLayout(
                provider: index("provider"), latitude: lat, longitude: lon,
                altitude: index("altitudemeters", "altitude"), speed: index("speedmps", "speed"),
                accuracy: index("accuracymeters", "accuracy"), bearing: index("bearingdegrees", "bearing"),
                time: index("unixtimemillis", "(utc)timeinms", "utctimemillis"),
                speedAccuracy: index("speedaccuracymps"), bearingAccuracy: index("bearingaccuracydegrees"),
                elapsedRealtimeNanos: index("elapsedrealtimenanos"), verticalAccuracy: index("verticalaccuracymeters"),
                columnCount: columns.count))
        }
        guard let (kind, valueNames, biasNames) = sensorColumns[type],
              let x = index(valueNames[0]), let y = index(valueNames[1]), let z = index(valueNames[2])
        else { return .invalid }
        var bias: (Int, Int, Int)?
        if let biasNames, let bx = index(biasNames[0]), let by = index(biasNames[1]), let bz = index(biasNames[2]) {
            bias = (bx, by, bz)
        }
        return .sensor(GnssSensorLayout(kind: kind, utcTimeMillis: index("utctimemillis"),
                                        elapsedRealtimeNanos: index("elapsedrealtimenanos"),
                                        value: (x, y, z), bias: bias, columnCount: columns.count))
    }
}

/// A binary min-heap on (key, sequence): the reorder buffer.
struct GnssReorderHeap {
    struct Entry {
        var key: Int64
        var sequence: UInt64
        var event: SensorEvent
        @inline(__always) static func before(_ a: Entry, _ b: Entry) -> Bool {
            a.key != b.key ? a.key < b.key : a.sequence < b.sequence
        }
    }

    private var items: [Entry] = []
    var count: Int { items.count }
    var minimum: Entry? { items.first }

    mutating func push(_ entry: Entry) {
        items.append(entry)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Entry.before(items[child], items[parent]) else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popMinimum() -> Entry? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < items.count, Entry.before(items[left], items[smallest]) { smallest = left }
            if right < items.count, Entry.before(items[right], items[smallest]) { smallest = right }
            if smallest == parent { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}

// MARK: - Comma-separated fields over bytes (shared with IMUCSVReader)

/// A field's content: absent (empty), a number, unparsable, or a NaN/infinity.
enum CSVFieldValue<T> {
    case empty
    case value(T)
    case invalid
    case nonFinite
}

/// Field boundaries of one comma-separated line. Reused between lines: splitting allocates nothing once warm.
/// Valid only while the line's buffer is (inside a `LineReader.nextLine` body).
struct CSVLineFields {
    private var line = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    private var starts: [Int] = []
    private var ends: [Int] = []

    init() {
        starts.reserveCapacity(64)
        ends.reserveCapacity(64)
    }

    var count: Int { starts.count }

    /// Splits at every comma; each field is trimmed of spaces and tabs. An empty line is one empty field.
    mutating func split(_ text: UnsafeBufferPointer<UInt8>) {
        line = text
        starts.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        var start = 0
        for i in 0..<text.count where text[i] == UInt8(ascii: ",") {
            appendField(start, i)
            start = i + 1
        }
        appendField(start, text.count)
    }

    private mutating func appendField(_ start: Int, _ end: Int) {
        var s = start, e = end
        while s < e, Self.isSpace(line[s]) { s += 1 }
        while e > s, Self.isSpace(line[e - 1]) { e -= 1 }
        starts.append(s)
        ends.append(e)
    }

    func bytes(_ i: Int) -> UnsafeBufferPointer<UInt8> {
        guard i >= 0, i < starts.count else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(rebasing: line[starts[i]..<ends[i]])
    }

    func string(_ i: Int) -> String { String(decoding: bytes(i), as: UTF8.self) }
    func double(_ i: Int) -> CSVFieldValue<Double> { Self.double(bytes(i)) }
    func int64(_ i: Int) -> CSVFieldValue<Int64> { Self.int64(bytes(i)) }

    @inline(__always) static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }

    static func firstNonSpace(_ b: UnsafeBufferPointer<UInt8>) -> Int {
        var i = 0
        while i < b.count, isSpace(b[i]) { i += 1 }
        return i
    }

    static func trimmed(_ b: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        guard !b.isEmpty else { return b }
        var s = 0, e = b.count
        while s < e, isSpace(b[s]) { s += 1 }
        while e > s, isSpace(b[e - 1]) { e -= 1 }
        return UnsafeBufferPointer(rebasing: b[s..<e])
    }

    static func hasPrefix(_ b: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        let n = prefix.utf8CodeUnitCount
        guard b.count >= n else { return false }
        let p = prefix.utf8Start
        for i in 0..<n where b[i] != p[i] { return false }
        return true
    }

    private static let powersOfTen: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
                                                1e13, 1e14, 1e15, 1e16]

    /// Parses a decimal number. Plain `[+-]digits[.digits]` with at most 15 digits takes an exact fast path
    /// (an integer below 2^53 divided by an exact power of ten: one correctly rounded operation); anything else
    /// (exponents, more digits, "nan") goes through `Double(String)`. Both give the correctly rounded value.
    static func double(_ b: UnsafeBufferPointer<UInt8>) -> CSVFieldValue<Double> {
        guard !b.isEmpty else { return .empty }
        var i = 0
        var negative = false
        if b[0] == UInt8(ascii: "-") { negative = true; i = 1 } else if b[0] == UInt8(ascii: "+") { i = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var fraction = 0
        var seenDot = false
        var simple = true
        while i < b.count {
            let c = b[i]
            let d = c &- 0x30
            if d < 10 {
                mantissa = mantissa &* 10 &+ UInt64(d)
                digits += 1
                if seenDot { fraction += 1 }
                if digits > 15 { simple = false; break }
            } else if c == UInt8(ascii: ".") && !seenDot {
                seenDot = true
            } else {
                simple = false
                break
            }
            i += 1
        }
        if simple && digits > 0 {
            let magnitude = Double(mantissa) / powersOfTen[fraction]
            return .value(negative ? -magnitude : magnitude)
        }
        guard b.count <= 64, let v = Double(String(decoding: b, as: UTF8.self)) else { return .invalid }
        return v.isFinite ? .value(v) : .nonFinite
    }

    /// Parses an integer (timestamps in ms or ns); a decimal form such as "1699400577561.0" is rounded.
    static func int64(_ b: UnsafeBufferPointer<UInt8>) -> CSVFieldValue<Int64> {
        guard !b.isEmpty else { return .empty }
        var i = 0
        var negative = false
        if b[0] == UInt8(ascii: "-") { negative = true; i = 1 } else if b[0] == UInt8(ascii: "+") { i = 1 }
        var value: Int64 = 0
        var integral = i < b.count
        while i < b.count {
            let d = b[i] &- 0x30
            guard d < 10 else { integral = false; break }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int64(d))
            if o1 || o2 { return .invalid }
            value = a
            i += 1
        }
        if integral { return .value(negative ? -value : value) }
        switch double(b) {
        case .value(let v):
            guard abs(v) < 9.0e18 else { return .invalid }
            return .value(Int64(v.rounded()))
        case .empty: return .empty
        case .invalid: return .invalid
        case .nonFinite: return .nonFinite
        }
    }
}

extension LineReader {
    /// `nextLine` with its error mapped to `CaptureError` (a non-capture error becomes `readFailed(EIO)`).
    func nextLineMappingErrors<R>(path: String, _ body: (UnsafeBufferPointer<UInt8>, Bool) -> R)
        throws(CaptureError) -> R? {
        do {
            return try nextLine(body)
        } catch let error as CaptureError {
            throw error
        } catch {
            throw .readFailed(path: path, errno: EIO)
        }
    }
}
