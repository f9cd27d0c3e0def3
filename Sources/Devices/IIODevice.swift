#if canImport(Glibc)
import Glibc
#endif
import LodestarIO
import LocationCore

/// A three-axis channel type of the Linux IIO ABI that Lodestar reads
/// (Documentation/ABI/testing/sysfs-bus-iio: `in_<type>_{x,y,z}_raw`, `in_<type>_scale`, `in_<type>_offset`).
public enum IIOChannelType: String, Sendable, Hashable, CaseIterable {
    /// Magnetic field. The ABI's scale is in gauss per count; Lodestar delivers µT per count (1 G = 100 µT).
    case magn
    /// Acceleration including gravity, m/s² per count.
    case accel
    /// Angular velocity, rad/s per count.
    case anglvel

    /// Multiplier from the IIO ABI unit to Lodestar's unit.
    public var unitFactor: Double { self == .magn ? 100 : 1 }

    /// Lodestar's unit for this channel type.
    public var unitName: String {
        switch self {
        case .magn: "µT"
        case .accel: "m/s²"
        case .anglvel: "rad/s"
        }
    }

    /// The event payload for a sample of this type.
    public func motion(_ raw: RawSample) -> MotionSample {
        switch self {
        case .magn: .magnetometerRaw(raw)
        case .accel: .accelerometerRaw(raw)
        case .anglvel: .gyroscopeRaw(raw)
        }
    }
}

/// Why an IIO device could not be read.
public enum IIOError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The device directory or one of its attribute files vanished (unplugged, driver unbound): the device is gone.
    case gone(path: String)
    /// EACCES/EPERM on an attribute.
    case denied(SystemError)
    /// EBUSY: the kernel refuses direct reads while another program (e.g. iio-sensor-proxy) runs a buffered capture.
    case busy(SystemError)
    /// The attribute does not hold a number (or a scale of zero); the sample is skipped.
    case invalidContent(path: String, content: String)
    /// A required attribute (the scale) does not exist although the device does.
    case missingAttribute(path: String)
    /// No IIO device matches the requested id or name.
    case notFound(String)
    /// Any other failure (EIO, ETIMEDOUT from a sensor that did not answer, EINVAL on a write).
    case io(SystemError)

    /// What the administrator can do about it.
    public var fix: String? {
        switch self {
        case .denied:
            "add the service user to group i2c (sudo usermod -aG i2c lodestar) and install udev/60-lodestar.rules (see docs/devices.md)"
        case .busy:
            "another program has enabled the device's buffer (iio-sensor-proxy?); stop it or read through it"
        case .notFound, .gone:
            "check that the kernel driver is bound (ls /sys/bus/iio/devices; see docs/devices.md)"
        default: nil
        }
    }

    public var description: String {
        let text: String
        switch self {
        case .gone(let path): text = "\(path) vanished"
        case .denied(let e), .busy(let e), .io(let e): text = e.description
        case .invalidContent(let path, let content): text = "\(path): not a number: \(content.debugDescription)"
        case .missingAttribute(let path): text = "\(path) is missing"
        case .notFound(let selector): text = "no IIO device \(selector)"
        }
        return fix.map { "\(text) (\($0))" } ?? text
    }

    /// Maps an errno from an attribute access: ENOENT/ENODEV/ENXIO mean the device went away.
    static func from(_ error: SystemError, path: String) -> IIOError {
        switch error.errno {
        case ENOENT, ENODEV, ENXIO, ENOTDIR: .gone(path: path)
        case EACCES, EPERM: .denied(error)
        case EBUSY: .busy(error)
        default: .io(error)
        }
    }
}

/// One IIO device as discovery sees it.
public struct IIODeviceInfo: Sendable, Hashable {
    /// Directory name: `iio:device0`. The number changes with probe order; the `name` usually does not.
    public var id: String
    /// Full path of the device directory (under the sysfs root).
    public var path: String
    /// The driver's device name from `name` (`lis3mdl`, `ak8975`, `bmc150_magn`, …), nil when unreadable.
    public var name: String?
    /// Three-axis channel types whose x, y and z `_raw` files all exist, in `IIOChannelType.allCases` order.
    public var channels: [IIOChannelType]
    /// `sampling_frequency` (or the first per-type `in_<type>_sampling_frequency`), Hz.
    public var samplingFrequencyHz: Double?

    public init(id: String, path: String, name: String?, channels: [IIOChannelType], samplingFrequencyHz: Double?) {
        self.id = id; self.path = path; self.name = name; self.channels = channels
        self.samplingFrequencyHz = samplingFrequencyHz
    }
}

/// An opened IIO device: its directory plus the scale and offset of each channel type, read once at open.
/// (Scales only change when someone writes `*_scale`; the source re-opens the device after every outage.)
///
/// Conversion, per the IIO ABI: value = (raw + offset) × scale. Lodestar keeps counts and delivers
/// `RawSample(counts, scale)` so replays apply the same conversion:
/// - the offset is folded into the counts: counts = raw + offset (exact for the integer offsets drivers expose;
///   a fractional offset is rounded to the nearest count, an error below half a count);
/// - `scale` is the channel's scale in Lodestar units (`IIOChannelType.unitFactor`). When the axes have their own
///   scales (`in_magn_x_scale` …), `scale` is the smallest of them and the other axes' counts are multiplied by
///   their ratio to it and rounded: counts = round((raw + offset) × axisScale / scale). That ratio is ≥ 1, so no
///   resolution is lost; the error is below half of the smallest scale.
public struct IIODevice: Sendable {
    /// Scale and offsets of one channel type.
    public struct ChannelLayout: Sendable, Hashable {
        public var type: IIOChannelType
        /// Per-axis scale (x, y, z) in Lodestar units per count.
        public var axisScales: [Double]
        /// Per-axis offset (x, y, z) in counts (0 when the driver has none).
        public var offsets: [Double]
        /// The delivered scale: the per-axis scale of smallest magnitude.
        public var scale: Double { axisScales.min(by: { abs($0) < abs($1) }) ?? 0 }
    }

    public let info: IIODeviceInfo
    public let layouts: [IIOChannelType: ChannelLayout]
    private let sysfs: any SysfsAccess
    private let files: Set<String>

    /// `<sysfsRoot>/bus/iio/devices`.
    public static func devicesDirectory(sysfsRoot: String) -> String {
        (sysfsRoot.hasSuffix("/") ? String(sysfsRoot.dropLast()) : sysfsRoot) + "/bus/iio/devices"
    }

    /// Every IIO device under the sysfs root, ordered by number. An absent IIO subsystem gives an empty list.
    public static func discover(sysfsRoot: String = "/sys", sysfs: any SysfsAccess = LinuxSysfs()) throws(IIOError)
        -> [IIODeviceInfo] {
        let base = devicesDirectory(sysfsRoot: sysfsRoot)
        let entries: [String]
        do { entries = try sysfs.list(base) } catch {
            if error.errno == ENOENT || error.errno == ENOTDIR { return [] }
            throw IIOError.from(error, path: base)
        }
        var result: [IIODeviceInfo] = []
        for entry in entries.sorted(by: Self.byDeviceNumber) where entry.hasPrefix("iio:device") {
            // A device removed while we look is simply not listed.
            if let info = try? describe(path: base + "/" + entry, id: entry, sysfs: sysfs).info { result.append(info) }
        }
        return result
    }

    /// Opens a device by directory name (`iio:device3`), by absolute path, or by driver name (`lis3mdl` or
    /// `iio:lis3mdl`, the CLI's spelling: the first device with that name), and reads the scales and offsets of
    /// its channels.
    public static func open(_ selector: String, sysfsRoot: String = "/sys",
                            sysfs: any SysfsAccess = LinuxSysfs()) throws(IIOError) -> IIODevice {
        let path: String
        let id: String
        if selector.hasPrefix("/") {
            path = selector
            id = String(selector.split(separator: "/").last ?? Substring(selector))
        } else if selector.hasPrefix("iio:device"), Int(selector.dropFirst("iio:device".count)) != nil {
            path = devicesDirectory(sysfsRoot: sysfsRoot) + "/" + selector
            id = selector
        } else {
            let name = selector.hasPrefix("iio:") ? String(selector.dropFirst(4)) : selector
            guard let match = try discover(sysfsRoot: sysfsRoot, sysfs: sysfs).first(where: { $0.name == name })
            else { throw .notFound(selector) }
            path = match.path
            id = match.id
        }
        let (info, files) = try describe(path: path, id: id, sysfs: sysfs)
        var layouts: [IIOChannelType: ChannelLayout] = [:]
        for type in info.channels {
            var l = try layout(type, path: path, files: files, sysfs: sysfs)
            let quirk = IIOScaleQuirks.factor(deviceName: info.name, type: type)
            if quirk != 1 { l.axisScales = l.axisScales.map { $0 * quirk } }
            layouts[type] = l
        }
        return IIODevice(info: info, layouts: layouts, sysfs: sysfs, files: files)
    }

    private init(info: IIODeviceInfo, layouts: [IIOChannelType: ChannelLayout], sysfs: any SysfsAccess,
                 files: Set<String>) {
        self.info = info; self.layouts = layouts; self.sysfs = sysfs; self.files = files
    }

    /// Reads one sample of a channel type: three `_raw` reads (each a fresh open, so a vanished file is noticed).
    public func read(_ type: IIOChannelType) throws(IIOError) -> RawSample {
        guard let layout = layouts[type] else { throw .missingAttribute(path: info.path + "/in_\(type.rawValue)_x_raw") }
        let scale = layout.scale
        var counts: [Int32] = []
        counts.reserveCapacity(3)
        for (index, axis) in ["x", "y", "z"].enumerated() {
            let path = "\(info.path)/in_\(type.rawValue)_\(axis)_raw"
            let raw = try Self.readInteger(path, sysfs: sysfs)
            let offset = layout.offsets[index]
            let ratio = layout.axisScales[index] / scale
            // Exact for integer offsets and equal scales (Double holds every integer below 2^53).
            let value = ((Double(raw) + offset) * ratio).rounded()
            guard let c = Int32(exactly: value) else {
                throw .invalidContent(path: path, content: "\(raw) (out of range after offset and scale)")
            }
            counts.append(c)
        }
        return RawSample(x: counts[0], y: counts[1], z: counts[2], scale: scale)
    }

    /// The sampling frequency that applies to a channel type (`in_<type>_sampling_frequency`, else
    /// `sampling_frequency`), Hz; nil when the driver has neither.
    public func samplingFrequency(for type: IIOChannelType) throws(IIOError) -> Double? {
        guard let file = frequencyFile(for: type) else { return nil }
        return try Self.readDouble(info.path + "/" + file, sysfs: sysfs)
    }

    /// Writes the sampling frequency (drivers accept the values in `*_sampling_frequency_available`; others fail
    /// with EINVAL, reported as `.io`). Needs write access: root, or the udev rule's group-writable attribute.
    public func setSamplingFrequency(_ hertz: Double, for type: IIOChannelType) throws(IIOError) {
        guard let file = frequencyFile(for: type) else { throw .missingAttribute(path: info.path + "/sampling_frequency") }
        let path = info.path + "/" + file
        let text = hertz == hertz.rounded() && abs(hertz) < 1e9 ? String(Int64(hertz)) : String(hertz)
        do { try sysfs.write(path, text + "\n") } catch { throw IIOError.from(error, path: path) }
    }

    private func frequencyFile(for type: IIOChannelType) -> String? {
        ["in_\(type.rawValue)_sampling_frequency", "sampling_frequency"].first(where: files.contains)
    }

    // MARK: - Attribute parsing

    static func describe(path: String, id: String, sysfs: any SysfsAccess) throws(IIOError)
        -> (info: IIODeviceInfo, files: Set<String>) {
        let files: Set<String>
        do { files = Set(try sysfs.list(path)) } catch { throw IIOError.from(error, path: path) }
        let name = files.contains("name") ? (try? sysfs.read(path + "/name")).map(trimmed) : nil
        let channels = IIOChannelType.allCases.filter { type in
            ["x", "y", "z"].allSatisfy { files.contains("in_\(type.rawValue)_\($0)_raw") }
        }
        var frequency: Double? = nil
        let candidates = ["sampling_frequency"] + channels.map { "in_\($0.rawValue)_sampling_frequency" }
        if let file = candidates.first(where: files.contains) {
            frequency = try? readDouble(path + "/" + file, sysfs: sysfs)
        }
        let info = IIODeviceInfo(id: id, path: path, name: name.flatMap { $0.isEmpty ? nil : $0 },
                                 channels: channels, samplingFrequencyHz: frequency)
        return (info, files)
    }

    static func layout(_ type: IIOChannelType, path: String, files: Set<String>, sysfs: any SysfsAccess)
        throws(IIOError) -> ChannelLayout {
        let t = type.rawValue
        var scales: [Double] = []
        var offsets: [Double] = []
        for axis in ["x", "y", "z"] {
            guard let scaleFile = ["in_\(t)_\(axis)_scale", "in_\(t)_scale"].first(where: files.contains) else {
                throw .missingAttribute(path: "\(path)/in_\(t)_scale")
            }
            let scale = try readDouble(path + "/" + scaleFile, sysfs: sysfs) * type.unitFactor
            guard scale != 0 else { throw .invalidContent(path: path + "/" + scaleFile, content: "0") }
            scales.append(scale)
            if let offsetFile = ["in_\(t)_\(axis)_offset", "in_\(t)_offset"].first(where: files.contains) {
                offsets.append(try readDouble(path + "/" + offsetFile, sysfs: sysfs))
            } else {
                offsets.append(0)
            }
        }
        return ChannelLayout(type: type, axisScales: scales, offsets: offsets)
    }

    static func readText(_ path: String, sysfs: any SysfsAccess) throws(IIOError) -> String {
        do { return try sysfs.read(path) } catch { throw IIOError.from(error, path: path) }
    }

    static func readInteger(_ path: String, sysfs: any SysfsAccess) throws(IIOError) -> Int32 {
        let text = trimmed(try readText(path, sysfs: sysfs))
        guard let value = Int32(text) else { throw .invalidContent(path: path, content: text) }
        return value
    }

    static func readDouble(_ path: String, sysfs: any SysfsAccess) throws(IIOError) -> Double {
        let text = trimmed(try readText(path, sysfs: sysfs))
        guard let value = Double(text), value.isFinite else { throw .invalidContent(path: path, content: text) }
        return value
    }

    static func trimmed(_ text: String) -> String {
        var s = Substring(text)
        while let c = s.first, c == " " || c == "\n" || c == "\t" || c == "\r" || c == "\0" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\n" || c == "\t" || c == "\r" || c == "\0" { s.removeLast() }
        return String(s)
    }

    /// `iio:device2` before `iio:device10`.
    static func byDeviceNumber(_ a: String, _ b: String) -> Bool {
        func number(_ s: String) -> Int? { s.hasPrefix("iio:device") ? Int(s.dropFirst("iio:device".count)) : nil }
        switch (number(a), number(b)) {
        case let (x?, y?): return x < y
        default: return a < b
        }
    }
}

/// File access to sysfs attributes: a seam so tests can inject errors the fake tree cannot produce
/// (EACCES while running as root, EBUSY, EIO).
public protocol SysfsAccess: Sendable {
    /// The whole content of an attribute file.
    func read(_ path: String) throws(SystemError) -> String
    /// Writes a value into an attribute file (truncating).
    func write(_ path: String, _ value: String) throws(SystemError)
    /// Entry names of a directory, without `.` and `..`.
    func list(_ directory: String) throws(SystemError) -> [String]
}

/// `SysfsAccess` over the real file system: open/read/close per access (a held descriptor would keep reading a
/// deleted file and hide that the device went away; sysfs regenerates the value on each read from offset 0).
public struct LinuxSysfs: SysfsAccess {
    public init() {}

    /// Through the syscall layer (EINTR retried, fault-injection hook). A sysfs attribute is at most one page.
    public func read(_ path: String) throws(SystemError) -> String {
        do {
            return String(decoding: try Syscall.readWholeFile(path), as: UTF8.self)
        } catch {
            throw SystemError("read", path: path, error)
        }
    }

    public func write(_ path: String, _ value: String) throws(SystemError) {
        let fd: Int32
        do { fd = try Syscall.open(path, flags: O_WRONLY | O_TRUNC) } catch { throw SystemError("open", path: path, error) }
        defer { Syscall.close(fd) }
        do { try Syscall.writeFully(fd, Array(value.utf8)) } catch { throw SystemError("write", path: path, error) }
    }

    public func list(_ directory: String) throws(SystemError) -> [String] {
        guard let dir = opendir(directory) else { throw SystemError("opendir", path: directory, errno: Glibc.errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
