import ArgumentParser
import CLinux
import Devices
import LocationCore
#if canImport(Glibc)
import Glibc
#endif

/// One line of the `devices` report.
struct DeviceReport {
    var kind: String          // gnss, serial, iio, i2c
    var name: String          // devnode, iio id, bus/address
    var detail: String
    var authorization: SourceAuthorization
    var available: Bool?      // nil: not checked
    var role: String          // location, heading, other
}

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List GNSS receivers, IIO sensors and I2C chips, with Core Location–style availability and authorization.",
        discussion: """
        Discovers serial GNSS receivers and IIO sensors through libudev (sysfs), probes the given I2C buses by ID \
        register, and checks the configured sources (--gps/--imu, as for `run`): whether each can be opened \
        (authorization: authorized, denied = permissions, restricted = held exclusively by another process, \
        notDetermined) and answers (available). Then reports locationServicesEnabled (a GPS source is configured \
        and reachable, or a known receiver is present and openable) and headingAvailable (a magnetometer is \
        present and answering).
        """)

    @Option(name: .customLong("i2c"), help: ArgumentHelp("Probe this I2C bus (/dev/i2c-N) for known chips. Repeatable.", valueName: "N"))
    var i2cBuses: [Int] = []

    @Option(name: .long, help: ArgumentHelp("Also check this configured GPS source (as for run).", valueName: "spec"))
    var gps: [String] = []

    @Option(name: .long, help: ArgumentHelp("Also check this configured motion sensor (as for run).", valueName: "spec"))
    var imu: [String] = []

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("How long to listen to a configured serial receiver for NMEA.", valueName: "seconds"))
    var listen: Double = 2

    @Flag(name: .long, help: "One JSON object instead of a table.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Then watch for receivers and sensors being plugged in or removed (udev hotplug) for this long, one line per change.", valueName: "seconds"))
    var watch: Double?

    func run() throws {
        try report()
        if let watch {
            fflush(nil)  // the report first (print is buffered when stdout is a pipe)
            try Self.watch(seconds: watch)
        }
    }

    /// `added`/`removed` lines from `UdevMonitor` (netlink events through udevd, or 2 s rescans without it).
    static func watch(seconds: Double) throws {
        let monitor = UdevMonitor(settings: { var s = UdevMonitor.Settings(); s.reportInitialDevices = false; return s }())
        do {
            try monitor.start(UdevMonitor.Handlers(added: { watchLine("added", $0) }, removed: { watchLine("removed", $0) },
                                                   status: { printError("lodestar: \($0.source): \($0.state) — \($0.message ?? "")") }))
        } catch { throw ValidationError("hotplug: \(error)") }
        watchLine("watching (\(monitor.mode.map { "\($0)" } ?? "starting"))")
        _ = clinux_sleep_ns(Int64(seconds * 1e9))
        monitor.stop()
        monitor.join()
    }

    /// One line, written at once (unbuffered), so a reader of a pipe sees each change as it happens.
    @Sendable static func watchLine(_ what: String, _ d: DiscoveredDevice? = nil) {
        var text = what
        if let d { text += " \(d.subsystem) \(d.devnode ?? d.syspath) \(d.classification)" }
        let bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
    }

    func report() throws {
        var reports: [DeviceReport] = []
        // 1. Serial GNSS receivers and IIO sensors from udev/sysfs.
        do {
            for d in try UdevDiscovery.enumerate() {
                switch d.classification {
                case .gnssReceiver(let model):
                    reports.append(Self.held(DeviceReport(kind: "gnss", name: d.devnode ?? d.syspath, detail: model.name,
                                                          authorization: Self.access(d.devnode), available: nil, role: "location")))
                case .possibleGNSS(let reason):
                    reports.append(Self.held(DeviceReport(kind: "serial", name: d.devnode ?? d.syspath, detail: "possible GNSS: \(reason)",
                                                          authorization: Self.access(d.devnode), available: nil, role: "location?")))
                case .iioSensor, .serialPort, .ignored:
                    break
                }
            }
        } catch {
            printError("lodestar: devices: udev enumeration failed: \(error.description)")
        }
        if let iio = try? IIODevice.discover() {
            for d in iio {
                let channels = d.channels.map { "\($0)" }.joined(separator: ",")
                let heading = d.channels.contains(.magn)
                reports.append(DeviceReport(kind: "iio", name: d.id, detail: "\(d.name ?? "?") [\(channels)]",
                                            authorization: .authorized, available: nil, role: heading ? "heading" : "motion"))
            }
        }
        // 2. I2C buses.
        for n in i2cBuses {
            do {
                let bus = try LinuxI2CBus(number: n)
                let found = probeBus(bus)
                let via = " (via \(bus.transfer); I2C_FUNCS \(bus.functionality))"
                if found.isEmpty {
                    reports.append(DeviceReport(kind: "i2c", name: "i2c-\(n)", detail: "no known chip answered" + via,
                                                authorization: .authorized, available: false, role: "other"))
                }
                for s in found {
                    let hex = "0x" + String(s.address, radix: 16)
                    let isMag = s.chip.roles.contains { "\($0)".contains("magnet") }
                    reports.append(DeviceReport(kind: "i2c", name: "i2c-\(n):\(hex)", detail: s.description + via,
                                                authorization: .authorized, available: true, role: isMag ? "heading" : "motion"))
                }
            } catch {
                let auth: SourceAuthorization = error.isPermissionDenied ? .denied : .notDetermined
                reports.append(DeviceReport(kind: "i2c", name: "i2c-\(n)", detail: error.description,
                                            authorization: auth, available: false, role: "other"))
            }
        }
        // 3. Configured sources.
        for text in gps { reports.append(Self.held(checkGPS(text))) }
        for g in DeviceHolders.running("gpsd") where !reports.contains(where: { $0.detail.contains("pid \(g.pid)") }) {
            reports.append(DeviceReport(kind: "gpsd", name: "pid \(g.pid)", detail: "gpsd is running: it may take receivers "
                + "as they are plugged in (Debian's gpsd USB hotplug); run `lodestar devices` as root to see which it holds. "
                + Self.gpsdFix, authorization: .notDetermined, available: nil, role: "other"))
        }
        for text in imu { reports.append(checkIMU(text)) }

        let configuredGPS = reports.filter { $0.kind == "configured-gps" }
        let locationServicesEnabled = configuredGPS.isEmpty
            ? reports.contains { $0.kind == "gnss" && $0.authorization == .authorized }
            : configuredGPS.contains { $0.available == true }
        let headingAvailable = reports.contains { $0.role == "heading" && $0.available != false && $0.authorization == .authorized }
        if json {
            print(Self.json(reports, locationServicesEnabled, headingAvailable))
        } else {
            if reports.isEmpty { print("no GNSS receivers, IIO sensors or probed I2C chips found") }
            for r in reports {
                let avail = r.available.map { $0 ? "available" : "unavailable" } ?? "-"
                print("\(r.kind.padding(15)) \(r.name.padding(24)) \(r.authorization.rawValue.padding(14)) \(avail.padding(12)) \(r.detail)")
            }
            print("locationServicesEnabled: \(locationServicesEnabled)")
            print("headingAvailable: \(headingAvailable)")
        }
    }

    static let gpsdFix = "Stop it (sudo systemctl stop gpsd.socket gpsd; disable USBAUTO in /etc/default/gpsd) "
        + "or read through it: --gps gpsd://localhost:2947"

    /// Marks a serial device another process holds open (gpsd above all: restricted, with the fix).
    static func held(_ report: DeviceReport) -> DeviceReport {
        let path = report.name.split(separator: "@").first.map(String.init) ?? report.name
        guard path.hasPrefix("/dev/") else { return report }
        let holders = DeviceHolders.holders(of: path)
        guard let holder = holders.first(where: { $0.command == "gpsd" }) ?? holders.first else { return report }
        var r = report
        if holder.command == "gpsd" {
            r.authorization = .restricted
            r.detail += (r.detail.isEmpty ? "" : "; ") + "held by gpsd (pid \(holder.pid)). " + gpsdFix
        } else {
            r.detail += (r.detail.isEmpty ? "" : "; ") + "open in \(holder)"
        }
        return r
    }

    static func access(_ path: String?) -> SourceAuthorization {
        guard let path else { return .notDetermined }
        if Glibc.access(path, R_OK | W_OK) == 0 { return .authorized }
        return errno == EACCES || errno == EPERM ? .denied : .notDetermined
    }

    func checkGPS(_ text: String) -> DeviceReport {
        var report = DeviceReport(kind: "configured-gps", name: text, detail: "", authorization: .notDetermined,
                                  available: false, role: "location")
        let spec: DeviceSpec
        do { spec = try DeviceSpec(parsing: text) } catch {
            report.detail = error.description
            return report
        }
        switch spec {
        case .serial(let path, let baud):
            do {
                var rate: Int?
                if case .fixed(let r) = baud { rate = r }
                let port = try SerialPort(path: path, baudRate: rate)
                defer { port.close() }
                report.authorization = .authorized
                var bytes: [UInt8] = []
                let deadline = clinux_monotonic_ns() + Int64(listen * 1e9)
                while clinux_monotonic_ns() < deadline {
                    if case .chunk(let c) = try port.read(maxBytes: 4096, timeoutMilliseconds: 100) { bytes += c.bytes }
                    if NMEAProbe.judge(bytes) == .nmea { report.available = true; break }
                    if bytes.count > 4096 { break }
                }
                report.detail = report.available == true ? "NMEA received" : "opened, but no valid NMEA within \(listen) s (baud rate?)"
            } catch {
                report.authorization = error.authorizationFailure ?? .notDetermined
                // Denied: the fix that applies, as the live source says it (user, the device's group, the rules).
                report.detail = report.authorization == .denied
                    ? "\(path): permission denied: \(SerialPort.permissionHint(path: path))" : error.description
            }
        case .gpsd(let host, let port, _):
            report.authorization = .authorized
            report.available = Self.tcpReachable(host: host, port: port)
            report.detail = report.available == true ? "gpsd answers" : "no gpsd at \(host):\(port)"
        }
        return report
    }

    func checkIMU(_ text: String) -> DeviceReport {
        var report = DeviceReport(kind: "configured-imu", name: text, detail: "", authorization: .notDetermined,
                                  available: false, role: "heading")
        let parts = text.split(separator: ":").map(String.init)
        if parts.first == "i2c", parts.count >= 3, let n = Int(parts[1]), let address = SourceFactory.parseAddress(parts[2]) {
            do {
                let bus = try LinuxI2CBus(number: n)
                report.authorization = .authorized
                if let found = I2CProbe.identify(bus, address: address) {
                    report.available = true
                    report.detail = found.description + " (via \(bus.transfer))"
                } else {
                    report.detail = "no known chip at that address"
                }
            } catch {
                report.authorization = error.isPermissionDenied ? .denied : .notDetermined
                report.detail = error.description
            }
        } else if parts.first == "iio", parts.count >= 2 {
            do {
                let device = try IIODevice.open(parts.dropFirst().joined(separator: ":"))
                report.authorization = .authorized
                report.available = true
                report.detail = device.info.name ?? device.info.id
            } catch {
                if case .denied = error { report.authorization = .denied }
                report.detail = "\(error)"
            }
        } else {
            report.detail = "expected i2c:BUS:ADDRESS or iio:DEVICE"
        }
        return report
    }

    static func tcpReachable(host: String, port: Int) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let first = result else { return false }
        defer { freeaddrinfo(result) }
        let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0
    }

    static func json(_ reports: [DeviceReport], _ location: Bool, _ heading: Bool) -> String {
        func q(_ s: String) -> String {
            var out = "\""
            for c in s.unicodeScalars {
                switch c {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                default: out.unicodeScalars.append(c)
                }
            }
            return out + "\""
        }
        let items = reports.map { r in
            "{\"kind\":\(q(r.kind)),\"name\":\(q(r.name)),\"detail\":\(q(r.detail)),\"authorization\":\(q(r.authorization.rawValue))"
                + (r.available.map { ",\"available\":\($0)" } ?? "") + ",\"role\":\(q(r.role))}"
        }
        return "{\"class\":\"devices\",\"locationServicesEnabled\":\(location),\"headingAvailable\":\(heading),\"devices\":[" + items.joined(separator: ",") + "]}"
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}

extension I2CError {
    var isPermissionDenied: Bool { if case .permissionDenied = self { true } else { false } }
}
