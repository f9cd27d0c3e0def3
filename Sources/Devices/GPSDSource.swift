#if canImport(Glibc)
import Glibc
#endif
import CGPS
import CLinux
import LocationCore
import Synchronization

/// A receiver shared through a gpsd daemon, read with libgps (`gps_open` / `gps_stream` / `gps_read`).
///
/// - `.nmea` (default): `WATCH_NMEA`; gpsd relays the receiver's sentences verbatim. libgps API ≥ 7
///   (`gps_read(data, message, len)`; Debian 12's libgps 3.22 is API 11.0) copies each line into `message`:
///   NMEA lines become `.nmea` events (CR LF restored), gpsd's own JSON lines (VERSION, DEVICES, WATCH) are skipped.
///   The pipeline then parses exactly what a serial source would have delivered.
/// - `.json`: `WATCH_JSON`; one `.fix(ExternalFix(provider: "gpsd", ...))` per receiver cycle from libgps'
///   `gps_fix_t` (NaN ⇒ nil). gpsd sends a TPV after every sentence, several per cycle with the same time and
///   growing content: the last TPV of a time is delivered, when a TPV with another time arrives or the socket has
///   been idle for `pollMilliseconds`. gpsd's 95 % figures become Lodestar's: `eph` ÷ 1.621 is the 68 %
///   horizontal radius, `epv`/`eps`/`epd` ÷ 1.96 are 1-σ — the inverse of `GpsdJSONEncoder`.
///
/// When gpsd goes away (socket closed, `gps_read` < 0) the source reports `unavailable`, reconnects with
/// `Backoff` and reports `recovered` when data flows again. Errors from `gps_open` are libgps' own codes,
/// rendered with `gps_errstr` (not `strerror`).
///
/// The socket is switched to non-blocking after `gps_open`, so `gps_read` never blocks and `stop()` is honoured
/// within one poll interval. `gps_open` itself resolves and connects synchronously: to a remote host that
/// does not answer it can take the resolver's/TCP's timeout before `stop()` is seen.
public final class GPSDSource: LiveSource {
    public enum Mode: String, Sendable, Hashable {
        case nmea, json
    }

    public struct Settings: Sendable {
        public var pollMilliseconds = 50
        public var backoff = Backoff()
        /// No data from gpsd for this long (its device gone, `"devices":[]`, or a stalled stream) reports
        /// `unavailable`, like a silent serial receiver; data flowing again reports `recovered`. 0 disables.
        public var silenceTimeoutNanos: Int64 = 5_000_000_000
        public init() {}
        public static let `default` = Settings()
    }

    public let name: String
    public let host: String
    public let port: Int
    /// gpsd's path of the device to watch (`WATCH_DEVICE`); nil watches all of gpsd's devices.
    public let device: String?
    public let mode: Mode
    public let settings: Settings
    private let stopRequested = Atomic<Bool>(false)
    private let status: SourceStateBox

    /// libgps' line buffer is 2 × GPS_JSON_RESPONSE_MAX (10240 in 3.22); a line never exceeds it.
    static let messageCapacity = 20_480

    public init(name: String = "gps0", host: String = DeviceSpec.defaultGPSDHost, port: Int = DeviceSpec.defaultGPSDPort,
                device: String? = nil, mode: Mode = .nmea, settings: Settings = .default) {
        self.name = name; self.host = host; self.port = port; self.device = device; self.mode = mode
        self.settings = settings
        status = SourceStateBox(SourceState(name: name, authorization: .authorized, available: false))
    }

    public var captureAttributes: [String: String] {
        var a = ["kind": "gpsd", "host": host, "port": "\(port)", "mode": mode.rawValue]
        if let device { a["device"] = device }
        return a
    }

    public var state: SourceState { status.value }

    /// `gpsd://host:port/device`
    public var endpoint: String { DeviceSpec.gpsd(host: host, port: port, device: device).description }

    public func stop() { stopRequested.store(true, ordering: .releasing) }

    private var isStopping: Bool { stopRequested.load(ordering: .acquiring) }

    /// The libgps major API version compiled against (11 for gpsd 3.22).
    public static var libgpsAPIVersion: (major: Int, minor: Int) { (Int(cgps_API_MAJOR), Int(cgps_API_MINOR)) }

    public func run(sourceID: Int, sink: any SourceSink) {
        var tracker = StatusTracker(name: name, sink: sink, state: status)
        tracker.starting("\(endpoint) (\(mode.rawValue))")
        runSessions(backoff: settings.backoff, stopping: { isStopping }) { backoff in
            session(sourceID: sourceID, sink: sink, tracker: &tracker, backoff: &backoff)
        }
    }

    private func session(sourceID: Int, sink: any SourceSink, tracker: inout StatusTracker, backoff: inout Backoff) {
        // libgps is loaded on first use (Sources/CGPS): boards without a gpsd source never map it or its dependencies.
        guard cgps_load() == 0 else {
            tracker.problem(.unavailable, "\(endpoint): libgps cannot be loaded (Debian: apt install libgps28): "
                            + (cgps_load_error().map { String(cString: $0) } ?? "unknown error"))
            return
        }
        guard let data = cgps_alloc() else {
            tracker.problem(.unavailable, "\(endpoint): cannot allocate gps_data_t")
            return
        }
        defer { cgps_free(data) }
        errno = 0
        guard cgps_open(host, "\(port)", data) == 0 else {
            // libgps puts its own (negative) netlib code in errno: gps_errstr, not strerror.
            let code = errno
            tracker.problem(.unavailable, "\(endpoint): \(Self.libgpsError(code))")
            return
        }
        defer { _ = cgps_close(data) }

        var flags = cgps_WATCH_ENABLE | (mode == .nmea ? cgps_WATCH_NMEA : cgps_WATCH_JSON)
        let streamStatus: Int32
        if let device {
            flags |= cgps_WATCH_DEVICE
            streamStatus = device.withCString { cgps_stream(data, flags, UnsafeMutableRawPointer(mutating: $0)) }
        } else {
            streamStatus = cgps_stream(data, flags, nil)
        }
        guard streamStatus == 0 else {
            tracker.problem(.unavailable, "\(endpoint): ?WATCH failed: \(String(cString: strerror(errno)))")
            return
        }
        let fd = data.pointee.gps_fd
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)

        let message = UnsafeMutablePointer<CChar>.allocate(capacity: Self.messageCapacity + 1)
        defer { message.deallocate() }
        var lastDataNanos = clinux_monotonic_ns()
        var silenceReported = false
        // JSON mode: the latest TPV of the current time, delivered once the cycle is over.
        var pending: SensorEvent?
        func deliverPending() {
            if let p = pending { sink.deliver(p); pending = nil }
        }
        defer { deliverPending() }
        while !isStopping {
            let silence = settings.silenceTimeoutNanos
            if silence > 0, !silenceReported, clinux_monotonic_ns() - lastDataNanos > silence {
                silenceReported = true
                tracker.problem(.unavailable, "\(endpoint): no data from gpsd for \(Double(silence) / 1e9) s "
                                + "(receiver unplugged, or gpsd has no device?)")
            }
            errno = 0
            let n = cgps_read(data, message, Int32(Self.messageCapacity))
            let code = errno
            if n > 0 {
                let stamp = clinux_monotonic_ns()
                let line = UnsafeRawBufferPointer(start: message, count: strlen(message))
                guard let payload = payload(line: line, data: data) else { continue }
                lastDataNanos = stamp
                silenceReported = false
                if !tracker.isFlowing {
                    tracker.flowing("\(endpoint) (\(mode.rawValue))")
                    backoff.reset()
                }
                let event = SensorEvent(monotonicNanos: stamp, sourceID: sourceID, payload: payload)
                if case .fix(let f) = payload {
                    if case .fix(let held)? = pending?.payload, held.location.time != f.location.time { deliverPending() }
                    pending = event
                } else {
                    sink.deliver(event)
                }
                continue
            }
            if n == 0 || code == EAGAIN || code == EWOULDBLOCK || code == EINTR {
                let ready = clinux_wait_readable(fd, Int32(settings.pollMilliseconds))
                if ready == 0 { deliverPending() }
                if ready < 0 {
                    tracker.problem(.unavailable, "\(endpoint): poll failed: \(String(cString: strerror(-ready)))")
                    return
                }
                continue
            }
            tracker.problem(.unavailable, code == 0
                ? "\(endpoint): gpsd closed the connection"
                : "\(endpoint): \(String(cString: strerror(code)))")
            return
        }
    }

    /// The event for one line from gpsd, nil for lines this mode ignores.
    private func payload(line: UnsafeRawBufferPointer, data: UnsafeMutablePointer<gps_data_t>) -> EventPayload? {
        guard let first = line.first else { return nil }
        switch mode {
        case .nmea:
            guard first == UInt8(ascii: "$") || first == UInt8(ascii: "!") else { return nil }
            var bytes = Array(line)
            while let last = bytes.last, last == 0x0D || last == 0x0A { bytes.removeLast() }
            bytes += [0x0D, 0x0A]
            return .nmea(bytes)
        case .json:
            guard first == UInt8(ascii: "{"), Self.isTPV(line) else { return nil }
            let fix = data.pointee.fix
            guard fix.mode >= 1 else { return nil } // MODE_NOT_SEEN: nothing known
            return .fix(ExternalFix(provider: "gpsd", location: Self.location(from: fix)))
        }
    }

    static func isTPV(_ line: UnsafeRawBufferPointer) -> Bool {
        let tag = Array("\"class\":\"TPV\"".utf8)
        guard line.count >= tag.count else { return false }
        let window = min(line.count, 32) // gpsd puts "class" first
        var i = 0
        while i + tag.count <= window {
            if line[i..<(i + tag.count)].elementsEqual(tag) { return true }
            i += 1
        }
        return false
    }

    /// libgps' `gps_fix_t` as a `Location`: NaN fields become nil.
    public static func location(from fix: gps_fix_t) -> Location {
        func value(_ d: Double) -> Double? { d.isFinite ? d : nil }
        var l = Location()
        if fix.time.tv_sec != 0 || fix.time.tv_nsec != 0 {
            l.time = Timestamp(nanosecondsSince1970: Int64(fix.time.tv_sec) * 1_000_000_000 + Int64(fix.time.tv_nsec))
            l.timeFractionDigits = fix.time.tv_nsec == 0 ? 0 : 3
        }
        l.mode = FixMode(rawValue: Int(fix.mode)) ?? .unknown
        l.quality = l.mode == .twoD || l.mode == .threeD ? (FixQuality(rawValue: Int(fix.status)) ?? .unknown) : .unknown
        if l.quality == .unknown, l.mode == .twoD || l.mode == .threeD { l.quality = .gps }
        l.latitudeDegrees = value(fix.latitude)
        l.longitudeDegrees = value(fix.longitude)
        l.altitudeMSLMeters = value(fix.altMSL)
        l.altitudeEllipsoidMeters = value(fix.altHAE)
        l.geoidSeparationMeters = value(fix.geoid_sep)
        // gpsd's ep* are 95 % figures; Lodestar's accuracies are a 68 % radius and 1-σ (docs/gpsd-compatibility.md).
        let k1 = ConfidenceScale.oneDimensional95PerSigma
        l.horizontalAccuracyMeters = value(fix.eph).map { $0 / ConfidenceScale.horizontal95Per68 }
        l.verticalAccuracyMeters = value(fix.epv).map { $0 / k1 }
        l.latitudeErrorMeters = value(fix.epy).map { $0 / k1 }
        l.longitudeErrorMeters = value(fix.epx).map { $0 / k1 }
        l.speedMetersPerSecond = value(fix.speed)
        l.speedAccuracyMetersPerSecond = value(fix.eps).map { $0 / k1 }
        l.courseDegrees = value(fix.track)
        l.courseAccuracyDegrees = value(fix.epd).map { $0 / k1 }
        l.magneticVariationDegrees = value(fix.magnetic_var)
        l.dgpsAgeSeconds = value(fix.dgps_age)
        l.dgpsStation = fix.dgps_station >= 0 ? Int(fix.dgps_station) : nil
        return l
    }

    /// libgps' message for a `gps_open` failure code (negative netlib codes), or strerror for a plain errno.
    public static func libgpsError(_ code: Int32) -> String {
        if code < 0, let text = cgps_errstr(code) { return String(cString: text) }
        if code > 0 { return String(cString: strerror(code)) }
        return "connection failed"
    }
}
