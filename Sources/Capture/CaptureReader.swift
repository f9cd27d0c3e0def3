import LocationCore

/// The capture formats Lodestar reads.
public enum CaptureFormat: String, CaseIterable, Sendable {
    /// Lodestar's own capture format (docs/capture-format.md).
    case lodestar
    /// Raw NMEA logs, including gpsd test logs with `#` header comments.
    case nmea
    /// Android GnssLogger text logs.
    case gnsslogger
    /// IMU CSV with a header row naming columns (t_s, acc_*, mag_*, optional gyr_*).
    case imuCSV = "imu-csv"
}

/// Why a record inside an otherwise good capture was skipped.
public struct RecordRejections: Sendable, Hashable {
    public private(set) var byReason: [String: Int] = [:]
    public init() {}
    public mutating func count(_ reason: String) { byReason[reason, default: 0] += 1 }
    public var total: Int { byReason.values.reduce(0, +) }
}

/// Counts a reader keeps: records read, accepted and rejected by reason.
public struct CaptureStatistics: Sendable, Hashable {
    public var recordsRead = 0
    public var recordsAccepted = 0
    public var rejections = RecordRejections()
    /// Records read but deliberately not used (other record types such as GnssLogger Raw/Status).
    public var recordsIgnored = 0
    public init() {}

    public mutating func reject(_ reason: String) { rejections.count(reason) }
}

/// Metadata from a capture's header (whatever the format offers).
public struct CaptureHeader: Sendable, Hashable {
    /// A date the data was recorded near, used to resolve 2-digit years and GPS week rollover
    /// (gpsd's `# Date:` header, a Lodestar capture's `created`).
    public var referenceDate: CivilDate?
    /// Free-form key/value pairs as found (`Name`, `Chipset`, `Version`, `device`, …), in order.
    public var fields: [(key: String, value: String)] = []
    public init() {}

    public static func == (a: CaptureHeader, b: CaptureHeader) -> Bool {
        a.referenceDate == b.referenceDate && a.fields.map(\.key) == b.fields.map(\.key)
            && a.fields.map(\.value) == b.fields.map(\.value)
    }
    public func hash(into h: inout Hasher) { h.combine(referenceDate); for f in fields { h.combine(f.key); h.combine(f.value) } }

    public func value(for key: String) -> String? { fields.first { $0.key == key }?.value }
}

/// A streaming reader over one capture file. Memory stays constant in the file's size.
public protocol CaptureReader: AnyObject {
    var format: CaptureFormat { get }
    /// Header metadata; complete once the first event has been read (headers precede data).
    var header: CaptureHeader { get }
    var statistics: CaptureStatistics { get }
    /// The next event, or nil at end of file. Corrupt records are counted and skipped, never thrown;
    /// only I/O failures throw.
    func next() throws(CaptureError) -> SensorEvent?
}

/// Parses a "YYYY-MM-DD" (or "YYYY-M-D", optionally followed by `T…`) date.
public func parseISODate(_ text: String) -> CivilDate? {
    let datePart = text.split(whereSeparator: { $0 == "T" || $0 == " " }).first.map(String.init) ?? ""
    let parts = datePart.split(separator: "-")
    guard parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
          (1900...2200).contains(y), (1...12).contains(m), (1...CivilDate.daysIn(month: m, year: y)).contains(d)
    else { return nil }
    return CivilDate(year: y, month: m, day: d)
}
