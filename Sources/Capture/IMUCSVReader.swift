import LocationCore

/// Reads an IMU CSV: a header row naming the columns, then one sample per row. Streaming, constant memory.
///
/// Canonical columns: `t_s` (seconds), `acc_x, acc_y, acc_z` (m/s²), `mag_x, mag_y, mag_z` (µT) and optionally
/// `gyr_x, gyr_y, gyr_z` (rad/s). Aliases, converted to those units:
/// - x-io Fusion: `Time (s)`, `Gyroscope X (deg/s)` (° → rad), `Accelerometer X (g)` (× 9.80665), `Magnetometer X (uT)`;
/// - RTKLIB explorer: `gpst_s_since_1970_epoch_no_leap` (time), `ax_g`…`az_g` (g), `gx_dps`…`gz_dps` (°/s).
/// Names match case-insensitively, ignoring surrounding spaces and quotes; other columns (q_w…q_z, movement) are ignored.
/// The header needs a time column and a complete accelerometer or magnetometer triple, else `init` throws
/// `.unrecognizedFormat` saying what is missing.
///
/// Each row yields, in this order, an accelerometer, a gyroscope and a magnetometer event (those whose columns exist),
/// all with `sampleTimeSeconds` = the time value as written and `monotonicNanos` = round(t × 10⁹); `utc` is nil
/// (the time column is not known to be UTC). Statistics count rows: a row with the wrong number of fields
/// (`fieldCount`), an unusable time (`badTime`), an empty or unparsable sensor value (`badNumber`) or a NaN/infinite
/// one (`nonFiniteValue`), or cut at the line-length limit (`lineTooLong`) is rejected and skipped. Blank lines are
/// counted as ignored records.
public final class IMUCSVReader: CaptureReader {
    public static let standardGravity = 9.80665

    public let format: CaptureFormat = .imuCSV
    public private(set) var header = CaptureHeader()
    public private(set) var statistics = CaptureStatistics()
    public let path: String
    public var hasAccelerometer: Bool { layout.accelerometer != nil }
    public var hasGyroscope: Bool { layout.gyroscope != nil }
    public var hasMagnetometer: Bool { layout.magnetometer != nil }

    private let lines: LineReader
    private let layout: IMUCSVLayout
    private var fields = CSVLineFields()
    private var queue: [SensorEvent] = []
    private var queueIndex = 0
    private var atEOF = false

    public convenience init(path: String) throws(CaptureError) {
        try self.init(source: try ByteSource(path: path))
    }

    public init(source: ByteSource) throws(CaptureError) {
        let path = source.path
        let lines = LineReader(source: source)
        var headerText: String?
        var blankLines = 0
        var truncatedHeader = false
        while headerText == nil {
            let more: Void? = try lines.nextLineMappingErrors(path: path) { line, truncated in
                if CSVLineFields.firstNonSpace(line) >= line.count {
                    blankLines += 1
                } else {
                    headerText = String(decoding: line, as: UTF8.self)
                    truncatedHeader = truncated
                }
            }
            if more == nil { break }
        }
        guard let headerText else {
            throw .unrecognizedFormat(path: path, reason: "empty file: no header row")
        }
        if truncatedHeader {
            throw .unrecognizedFormat(path: path, reason: "header row longer than \(lines.maximumLineLength) bytes")
        }
        switch IMUCSVLayout.parse(headerText) {
        case .success(let layout): self.layout = layout
        case .failure(let reason): throw .unrecognizedFormat(path: path, reason: reason.text)
        }
        self.path = path
        self.lines = lines
        queue.reserveCapacity(3)
        statistics.recordsRead = blankLines
        statistics.recordsIgnored = blankLines
        header.fields.append((key: "Columns", value: headerText))
    }

    public func next() throws(CaptureError) -> SensorEvent? {
        while true {
            if queueIndex < queue.count {
                queueIndex += 1
                return queue[queueIndex - 1]
            }
            if atEOF { return nil }
            queue.removeAll(keepingCapacity: true)
            queueIndex = 0
            let more: Void? = try lines.nextLineMappingErrors(path: path) { line, truncated in
                self.process(line, truncated: truncated)
            }
            if more == nil { atEOF = true }
        }
    }

    private func process(_ line: UnsafeBufferPointer<UInt8>, truncated: Bool) {
        statistics.recordsRead += 1
        if CSVLineFields.firstNonSpace(line) >= line.count {
            statistics.recordsIgnored += 1
            return
        }
        if truncated { return statistics.reject("lineTooLong") }
        fields.split(line)
        guard fields.count == layout.columnCount else { return statistics.reject("fieldCount") }
        guard case .value(let t) = fields.double(layout.time) else { return statistics.reject("badTime") }
        let scaled = t * 1e9
        guard abs(scaled) < 9.2e18 else { return statistics.reject("badTime") }
        let nanos = Int64(scaled.rounded())

        var reason: String?
        func read(_ triple: IMUCSVLayout.Triple?) -> Vector3? {
            guard let triple, reason == nil else { return nil }
            func axis(_ k: Int) -> Double? {
                switch fields.double(triple.columns[k]) {
                case .value(let x): return x * triple.scale
                case .nonFinite: reason = "nonFiniteValue"; return nil
                case .empty, .invalid: reason = "badNumber"; return nil
                }
            }
            guard let x = axis(0), let y = axis(1), let z = axis(2) else { return nil }
            return Vector3(x: x, y: y, z: z)
        }
        let acc = read(layout.accelerometer)
        let gyr = read(layout.gyroscope)
        let mag = read(layout.magnetometer)
        if let reason { return statistics.reject(reason) }

        if header.referenceDate == nil, (631_152_000...4_102_444_800).contains(t) {
            // An absolute time column (seconds since 1970, years 1990–2100): date the capture.
            header.referenceDate = Timestamp(secondsSince1970: t).civilDate
        }
        func event(_ sample: MotionSample) -> SensorEvent {
            SensorEvent(monotonicNanos: nanos, utc: nil, payload: .motion(sample), sampleTimeSeconds: t)
        }
        if let acc { queue.append(event(.accelerometer(metersPerSecondSquared: acc, biasMetersPerSecondSquared: nil))) }
        if let gyr { queue.append(event(.gyroscope(radiansPerSecond: gyr, driftRadiansPerSecond: nil))) }
        if let mag { queue.append(event(.magnetometer(fieldMicrotesla: mag, biasMicrotesla: nil))) }
        statistics.recordsAccepted += 1
    }
}

/// Which columns of an IMU CSV hold what, and the factor converting each triple to SI units.
struct IMUCSVLayout: Sendable {
    struct Triple: Sendable {
        var columns: [Int]
        var scale: Double
    }

    struct Failure: Error { var text: String }

    var columnCount: Int
    var time: Int
    var accelerometer: Triple?
    var gyroscope: Triple?
    var magnetometer: Triple?

    private typealias Alias = (names: [String], scale: Double)
    private static let timeNames = ["t_s", "time (s)", "gpst_s_since_1970_epoch_no_leap"]
    private static let accelerometerAliases: [Alias] = [
        (["acc_x", "acc_y", "acc_z"], 1),
        (["accelerometer x (g)", "accelerometer y (g)", "accelerometer z (g)"], IMUCSVReader.standardGravity),
        (["ax_g", "ay_g", "az_g"], IMUCSVReader.standardGravity),
    ]
    private static let gyroscopeAliases: [Alias] = [
        (["gyr_x", "gyr_y", "gyr_z"], 1),
        (["gyroscope x (deg/s)", "gyroscope y (deg/s)", "gyroscope z (deg/s)"], Double.pi / 180),
        (["gx_dps", "gy_dps", "gz_dps"], Double.pi / 180),
    ]
    private static let magnetometerAliases: [Alias] = [
        (["mag_x", "mag_y", "mag_z"], 1),
        (["magnetometer x (ut)", "magnetometer y (ut)", "magnetometer z (ut)"], 1),
        (["magnetometer x (µt)", "magnetometer y (µt)", "magnetometer z (µt)"], 1),
    ]

    static func parse(_ headerLine: String) -> Result<IMUCSVLayout, Failure> {
        var text = Substring(headerLine)
        if text.hasPrefix("\u{FEFF}") { text = text.dropFirst() }
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { raw -> String in
            raw.imuTrimming(" \t\"'").lowercased()
        }
        if let first = names.first, Double(first) != nil {
            return .failure(Failure(text: "first line is data, not a header row naming columns"))
        }
        guard let time = timeNames.lazy.compactMap({ names.firstIndex(of: $0) }).first else {
            return .failure(Failure(text: "header has no t_s column (nor Time (s) or gpst_s_since_1970_epoch_no_leap)"))
        }
        func triple(_ aliases: [Alias]) -> Result<Triple?, Failure> {
            for alias in aliases {
                let found = alias.names.map { names.firstIndex(of: $0) }
                let present = found.compactMap { $0 }
                if present.count == 3 { return .success(Triple(columns: present, scale: alias.scale)) }
                if !present.isEmpty {
                    let missing = zip(alias.names, found).filter { $0.1 == nil }.map(\.0)
                    return .failure(Failure(text: "header has \(alias.names[found.firstIndex { $0 != nil } ?? 0]) "
                                            + "but no \(missing.joined(separator: ", ")) column"))
                }
            }
            return .success(nil)
        }
        let accelerometer: Triple?, gyroscope: Triple?, magnetometer: Triple?
        switch triple(accelerometerAliases) { case .success(let t): accelerometer = t; case .failure(let f): return .failure(f) }
        switch triple(gyroscopeAliases) { case .success(let t): gyroscope = t; case .failure(let f): return .failure(f) }
        switch triple(magnetometerAliases) { case .success(let t): magnetometer = t; case .failure(let f): return .failure(f) }
        guard accelerometer != nil || magnetometer != nil else {
            return .failure(Failure(text: "header has neither accelerometer (acc_x, acc_y, acc_z) nor magnetometer "
                                    + "(mag_x, mag_y, mag_z) columns"))
        }
        return .success(IMUCSVLayout(columnCount: names.count, time: time, accelerometer: accelerometer,
                                     gyroscope: gyroscope, magnetometer: magnetometer))
    }
}

private extension Substring {
    /// Drops leading and trailing characters found in `set` (no Foundation).
    func imuTrimming(_ set: String) -> Substring {
        var s = self[...]
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return s
    }
}
