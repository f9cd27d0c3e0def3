#if canImport(Glibc)
import Glibc
#endif
import Devices
import Foundation
import NMEA
import LocationCore
import Synchronization
import Testing
import TestSupport

/// One row of the classification table: udev facts in, the expected class out.
struct ClassificationCase: Sendable, CustomStringConvertible {
    enum Expected: Sendable, Equatable { case gnss(String), possible, serial, iio, ignored }
    var subsystem = "tty"
    var usb: (UInt16, UInt16)?
    var driver: String?
    var devnode: String? = "/dev/ttyACM0"
    var expected: Expected
    var description: String {
        let id = usb.map { DeviceClassifier.hex($0.0) + ":" + DeviceClassifier.hex($0.1) } ?? "-"
        return "\(subsystem) \(id) \(driver ?? "-") \(devnode ?? "-")"
    }
}

@Suite("udev discovery and hotplug", .ownThreads)
struct UdevTests {
    static let table: [ClassificationCase] = [
        .init(usb: (0x1546, 0x01A8), driver: "cdc_acm", expected: .gnss("u-blox")),        // u-blox 8
        .init(usb: (0x1546, 0x01A9), driver: "cdc_acm", expected: .gnss("u-blox")),        // F9P
        .init(usb: (0x1546, 0x01A5), driver: "cdc_acm", expected: .gnss("u-blox")),        // u-blox 5
        .init(usb: (0x1546, 0x1141), driver: "cdc_acm", expected: .possible),              // u-blox cellular module
        .init(usb: (0x152A, 0x85C0), driver: "cdc_acm", expected: .gnss("Septentrio")),
        .init(usb: (0x152A, 0x8400), driver: "cdc_acm", expected: .serial),                // another Thesycon licensee
        .init(usb: (0x091E, 0x0003), driver: "garmin_gps", devnode: "/dev/ttyUSB0", expected: .gnss("Garmin")),
        .init(usb: nil, driver: "garmin_gps", devnode: "/dev/ttyUSB0", expected: .gnss("Garmin")),
        .init(usb: (0x09D7, 0x0100), driver: "usbserial_generic", devnode: "/dev/ttyUSB0", expected: .gnss("NovAtel")),
        .init(usb: (0x0E8D, 0x3329), driver: "cdc_acm", expected: .gnss("MediaTek")),
        .init(usb: (0x1163, 0x0200), driver: "cypress_m8", devnode: "/dev/ttyUSB0", expected: .gnss("DeLorme")),
        // Generic bridges: GlobalSat BU-353 (PL2303), Quectel LC29H/LG290P boards (CP210x, CH340), FTDI cables.
        .init(usb: (0x067B, 0x2303), driver: "pl2303", devnode: "/dev/ttyUSB0", expected: .possible),
        .init(usb: (0x0403, 0x6001), driver: "ftdi_sio", devnode: "/dev/ttyUSB0", expected: .possible),
        .init(usb: (0x0403, 0x6015), driver: "ftdi_sio", devnode: "/dev/ttyUSB0", expected: .possible),
        .init(usb: (0x10C4, 0xEA60), driver: "cp210x", devnode: "/dev/ttyUSB0", expected: .possible),
        .init(usb: (0x1A86, 0x7523), driver: "ch341", devnode: "/dev/ttyUSB0", expected: .possible),
        .init(usb: (0x0557, 0x2008), driver: "pl2303", devnode: "/dev/ttyUSB0", expected: .serial), // ATEN UC-232A
        .init(usb: (0x2341, 0x0043), driver: "cdc_acm", expected: .serial),                // Arduino Uno
        .init(usb: nil, driver: "serial8250", devnode: "/dev/ttyS0", expected: .serial),
        .init(usb: nil, driver: "port", devnode: "/dev/ttyS0", expected: .serial),         // serial-base (6.x)
        .init(usb: nil, driver: "uart-pl011", devnode: "/dev/ttyAMA0", expected: .serial),
        .init(usb: nil, driver: nil, devnode: "/dev/tty1", expected: .ignored),            // virtual console
        .init(usb: (0x1546, 0x01A8), driver: "cdc_acm", devnode: nil, expected: .ignored), // no node
        .init(subsystem: "iio", usb: nil, driver: "st_magn_i2c", devnode: nil, expected: .iio),
        .init(subsystem: "gnss", usb: nil, driver: "gnss-ubx", devnode: "/dev/gnss0", expected: .gnss("kernel")),
        .init(subsystem: "input", usb: (0x1546, 0x01A8), driver: "usbhid", devnode: "/dev/input/event3", expected: .ignored),
    ]

    @Test(arguments: table)
    func classification(_ row: ClassificationCase) {
        let result = DeviceClassifier.classify(subsystem: row.subsystem, vendorID: row.usb?.0, productID: row.usb?.1,
                                               driver: row.driver, devnode: row.devnode)
        switch (result, row.expected) {
        case (.gnssReceiver(let model), .gnss(let prefix)): #expect(model.name.hasPrefix(prefix), "\(model.name)")
        case (.possibleGNSS, .possible), (.serialPort, .serial), (.iioSensor, .iio), (.ignored, .ignored): break
        default: Issue.record("\(row) → \(result), expected \(row.expected)")
        }
    }

    @Test func genericAdaptersAreNeverReceiversByIDAlone() {
        for adapter in DeviceClassifier.genericUSBSerial {
            let result = DeviceClassifier.classify(subsystem: "tty", vendorID: adapter.vendorID, productID: adapter.productID,
                                                   driver: "usb-serial", devnode: "/dev/ttyUSB0")
            guard case .possibleGNSS = result else { Issue.record("\(adapter.name) → \(result)"); continue }
        }
        let device = DiscoveredDevice(subsystem: "tty", sysname: "ttyACM0", syspath: "/sys/devices/x/ttyACM0",
                                      devnode: "/dev/ttyACM0", vendorID: 0x1546, productID: 0x01A8, driver: "cdc_acm")
        #expect(device.usbID == "1546:01a8")
        #expect(device.description == "/dev/ttyACM0 1546:01a8 driver cdc_acm → GNSS receiver (u-blox GNSS receiver)")
    }

    // MARK: NMEA probe

    static let gga = Array(NMEAEncoder.sentence("GPGGA,225308,4527.458,S,16709.165,E,2,05,2.1,14.7,M,1.1,M,,").utf8)
    static let rmc = Array(NMEAEncoder.sentence("GPRMC,225308,A,4527.458,S,16709.165,E,000.0,094.5,060601,024.1,E").utf8)

    @Test func probeAcceptsTwoValidSentences() {
        #expect(NMEAProbe.judge(Self.gga + Self.rmc) == .nmea)
        // After binary noise (a UBX frame, a wrong-baud burst) and a half sentence.
        let noise: [UInt8] = [0xB5, 0x62, 0x01, 0x07, 0x5C, 0x00, 0xFF, 0x00, 0x24, 0x47, 0x50]
        #expect(NMEAProbe.judge(noise + Array(Self.rmc.suffix(20)) + Self.gga + Self.rmc) == .nmea)
    }

    @Test func probeWaitsAndRejects() {
        #expect(NMEAProbe.judge([]) == .undecided)
        #expect(NMEAProbe.judge(Self.gga) == .undecided)
        // A wrong checksum does not count.
        var bad = Self.rmc
        bad[bad.count - 3] = UInt8(ascii: bad[bad.count - 3] == UInt8(ascii: "0") ? "1" : "0")
        #expect(NMEAProbe.judge(Self.gga + bad) == .undecided)
        // Checksum-less text does not count either (a modem or a shell could print that).
        let bare = Array("$GPGGA,1,2,3\r\n$GPRMC,4,5,6\r\n$GPGSV,7\r\n".utf8)
        #expect(NMEAProbe.judge(bare) == .undecided)
        // 2 KB of garbage (wrong baud rate, binary protocol): not NMEA.
        var seed: UInt32 = 12345
        let garbage = (0..<2048).map { _ -> UInt8 in seed = seed &* 1_103_515_245 &+ 12345; return UInt8(truncatingIfNeeded: seed >> 16) }
        #expect(NMEAProbe.judge(garbage) == .notNMEA)
        #expect(NMEAProbe.judge(garbage + Self.gga + Self.rmc) == .nmea)
    }

    // MARK: Enumeration on this machine

    @Test func enumerationRunsHere() throws {
        let devices = try UdevDiscovery.enumerate()
        #expect(devices.allSatisfy { UdevDiscovery.subsystems.contains($0.subsystem) })
        #expect(devices.filter { $0.subsystem == "tty" }.allSatisfy { $0.devnode?.hasPrefix("/dev/") ?? true })
        // Virtual consoles are ignored, on-board UARTs are plain serial ports.
        if let tty1 = devices.first(where: { $0.sysname == "tty1" }) { #expect(tty1.classification == .ignored) }
        if let ttyS0 = devices.first(where: { $0.sysname == "ttyS0" }) { #expect(ttyS0.classification == .serialPort) }
        // Without a USB bus (this VM) there can be no u-blox receiver.
        if !FileManager.default.fileExists(atPath: "/sys/bus/usb") {
            #expect(devices.allSatisfy { $0.vendorID == nil })
            #expect(!devices.contains { if case .gnssReceiver = $0.classification { $0.vendorID == 0x1546 } else { false } })
        }
        // libudev and Lodestar's own sysfs reader agree on the IIO devices.
        let iio = devices.filter { $0.subsystem == "iio" }.map(\.sysname)
        #expect(iio == (try IIODevice.discover()).map(\.id).sorted())
    }

    // MARK: Re-enumeration diff

    static let ttyS0 = DiscoveredDevice(subsystem: "tty", sysname: "ttyS0", syspath: "/sys/devices/pnp0/00:01/tty/ttyS0",
                                        devnode: "/dev/ttyS0", driver: "serial8250")
    static let ublox = DiscoveredDevice(subsystem: "tty", sysname: "ttyACM0",
                                        syspath: "/sys/devices/pci0000:00/usb1/1-1/1-1:1.0/tty/ttyACM0",
                                        devnode: "/dev/ttyACM0", vendorID: 0x1546, productID: 0x01A8, driver: "cdc_acm",
                                        serialNumber: nil, model: "u-blox GNSS receiver")
    static let magnetometer = DiscoveredDevice(subsystem: "iio", sysname: "iio:device0",
                                               syspath: "/sys/devices/platform/i2c-1/1-001c/iio:device0",
                                               driver: "st_magn_i2c", model: "lis3mdl")

    @Test func diffFindsAddedAndRemovedDevices() {
        let a = [Self.ttyS0, Self.magnetometer]
        let b = [Self.ttyS0, Self.ublox]
        let diff = DeviceListDiff(old: a, new: b)
        #expect(diff.added == [Self.ublox])
        #expect(diff.removed == [Self.magnetometer])
        #expect(DeviceListDiff(old: b, new: b).isEmpty)
        #expect(DeviceListDiff(old: [], new: a).added == a)
        // Same syspath, facts changed (the driver bound late): removed and added again.
        var unbound = Self.ublox
        unbound.driver = nil
        let rebound = DeviceListDiff(old: [unbound], new: [Self.ublox])
        #expect(rebound.removed == [unbound] && rebound.added == [Self.ublox])
    }

    // MARK: Monitor

    /// Collects monitor callbacks.
    final class Recorder: Sendable {
        enum Call: Hashable, Sendable { case added(String), removed(String) }
        let calls = Mutex<[Call]>([])
        let reports = Mutex<[StatusReport]>([])
        var handlers: UdevMonitor.Handlers {
            UdevMonitor.Handlers(added: { d in self.calls.withLock { $0.append(.added(d.sysname)) } },
                                 removed: { d in self.calls.withLock { $0.append(.removed(d.sysname)) } },
                                 status: { r in self.reports.withLock { $0.append(r) } })
        }
        var callList: [Call] { calls.withLock { $0 } }
        var reportList: [StatusReport] { reports.withLock { $0 } }
        func wait(_ condition: (Recorder) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline { if condition(self) { return true }; usleep(2_000) }
            return condition(self)
        }
    }

    /// Snapshots served in order, the last one repeated.
    static func snapshots(_ lists: [[DiscoveredDevice]]) -> UdevMonitor.Enumerate {
        let index = Mutex(0)
        return {
            let i = index.withLock { i in defer { i += 1 }; return i }
            return lists[min(i, lists.count - 1)]
        }
    }

    static let plugSequence = [[ttyS0, magnetometer], [ttyS0, magnetometer], [ttyS0, magnetometer, ublox], [ttyS0, ublox]]
    static let plugCalls: [Recorder.Call] = [.added("ttyS0"), .added("iio:device0"), .added("ttyACM0"), .removed("iio:device0")]

    @Test func withoutUdevdItReportsOnceAndRescans() throws {
        var settings = UdevMonitor.Settings()
        settings.rescanIntervalNanos = 100_000_000
        let monitor = UdevMonitor(settings: settings, enumerate: Self.snapshots(Self.plugSequence),
                                  udevdRunning: { false }, sleep: quickSleep)
        let recorder = Recorder()
        try monitor.start(recorder.handlers)
        #expect(recorder.wait { $0.callList.count >= 4 })
        monitor.stop()
        monitor.join()
        #expect(recorder.callList == Self.plugCalls)
        #expect(monitor.mode == .rescan)
        let reports = recorder.reportList
        #expect(reports.count == 1)
        #expect(reports.first?.state == .unavailable)
        #expect(reports.first?.source == "hotplug")
        #expect(reports.first?.message?.contains("re-scanning tty, iio, gnss every 0.1 s") == true, "\(reports)")
    }

    /// udevd claimed to run but no event arrives (here libudev disables the monitor because /run/udev/control
    /// is missing; elsewhere a container without udevd's broadcasts): the safety rescan notices the missed
    /// changes, says so once and keeps hotplug working by re-enumeration.
    @Test func monitorThatReceivesNothingFallsBackToRescanning() throws {
        var settings = UdevMonitor.Settings()
        settings.rescanIntervalNanos = 20_000_000
        settings.netlinkRescanIntervalNanos = 20_000_000
        settings.pollTimeoutMillis = 5
        let monitor = UdevMonitor(settings: settings, enumerate: Self.snapshots(Self.plugSequence),
                                  udevdRunning: { true }, sleep: quickSleep)
        let recorder = Recorder()
        try monitor.start(recorder.handlers)
        #expect(recorder.wait { $0.callList.count >= 4 })
        monitor.stop()
        monitor.join()
        // The plug and the unplug may be confirmed by the same rescan: same calls, maybe in another order.
        #expect(recorder.callList.count == 4 && Set(recorder.callList) == Set(Self.plugCalls), "\(recorder.callList)")
        let states = recorder.reportList.map(\.state)
        #expect(states.filter { $0 == .unavailable }.count == 1, "\(recorder.reportList)")
        if monitor.mode == .netlink {
            #expect(states == [.available, .unavailable])
            #expect(recorder.reportList.last?.message?.contains("missed") == true)
        }
    }

    @Test func realMonitorDegradesGracefullyHere() throws {
        var settings = UdevMonitor.Settings()
        settings.rescanIntervalNanos = 100_000_000
        let monitor = UdevMonitor(settings: settings)
        let recorder = Recorder()
        let started = Date()
        try monitor.start(recorder.handlers)
        #expect(recorder.wait { !$0.reportList.isEmpty })
        usleep(300_000)  // a few real re-enumerations
        monitor.stop()
        monitor.join()
        #expect(Date().timeIntervalSince(started) < 5)
        let initial = try UdevDiscovery.enumerate()
        #expect(recorder.callList.filter { if case .added = $0 { true } else { false } }.count >= initial.count - 2)
        if UdevMonitor.udevdIsRunning() {
            #expect(recorder.reportList.first?.state == .available)
        } else {
            #expect(monitor.mode == .rescan)
            #expect(recorder.reportList.map(\.state) == [.unavailable])
            #expect(recorder.reportList.first?.message?.contains("udevd is not running") == true)
        }
    }

    // MARK: udev rules

    struct Rule {
        var line: Int
        var pairs: [(key: String, op: String, value: String)]
        func values(_ key: String, _ op: String? = nil) -> [String] {
            pairs.filter { $0.key == key && (op == nil || $0.op == op) }.map(\.value)
        }
    }

    /// A small parser for udev rule syntax: `KEY[{attr}] OP "value"` pairs separated by commas.
    static func parseRules(_ text: String) -> (rules: [Rule], errors: [String]) {
        var rules: [Rule] = []
        var errors: [String] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            var rest = Substring(line)
            var pairs: [(key: String, op: String, value: String)] = []
            while !rest.isEmpty {
                let key = rest.prefix { $0.isLetter || $0 == "_" || $0 == "{" || $0 == "}" || $0.isNumber }
                rest = rest.dropFirst(key.count)
                guard let op = ["==", "!=", "+=", "-=", ":=", "="].first(where: { rest.hasPrefix($0) }) else {
                    errors.append("line \(index + 1): no operator after \(key)"); break
                }
                rest = rest.dropFirst(op.count)
                guard rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") else {
                    errors.append("line \(index + 1): unquoted value for \(key)"); break
                }
                pairs.append((String(key), op, String(rest[rest.index(after: rest.startIndex)..<close])))
                rest = rest[rest.index(after: close)...].drop { $0 == " " }
                if rest.first == "," { rest = rest.dropFirst().drop { $0 == " " } } else if !rest.isEmpty {
                    errors.append("line \(index + 1): expected a comma before \(rest.prefix(20))"); break
                }
            }
            rules.append(Rule(line: index + 1, pairs: pairs))
        }
        return (rules, errors)
    }

    static let matchKeys: Set<String> = ["ACTION", "SUBSYSTEM", "SUBSYSTEMS", "KERNEL", "KERNELS", "DRIVERS", "TEST"]
    static let assignKeys: Set<String> = ["GROUP", "MODE", "OWNER", "SYMLINK", "RUN", "GOTO", "LABEL", "TAG"]

    @Test func rulesFileIsSafeAndMatchesTheClassifier() throws {
        let text = try String(contentsOfFile: SharedData.packageRoot.appendingPathComponent("udev/60-lodestar.rules").path,
                              encoding: .utf8)
        let (rules, errors) = Self.parseRules(text)
        #expect(errors.isEmpty, "\(errors)")
        #expect(rules.count >= 10)
        var labels: Set<String> = []
        var gotos: Set<String> = []
        for rule in rules {
            for (key, op, value) in rule.pairs {
                let base = String(key.prefix { $0 != "{" })
                switch base {
                case _ where Self.matchKeys.contains(base), "ATTRS":
                    #expect(op == "==" || op == "!=", "line \(rule.line): \(key) is a match key")
                case "ATTR", "ENV": break
                case _ where Self.assignKeys.contains(base):
                    #expect(op != "==" && op != "!=", "line \(rule.line): \(key) is an assignment")
                default:
                    Issue.record("line \(rule.line): unknown key \(key)")
                }
                if base == "LABEL" { labels.insert(value) }
                if base == "GOTO" { gotos.insert(value) }
                if base == "MODE" {
                    let mode = Int(value, radix: 8)
                    #expect(mode != nil && (mode ?? 0o7) & 0o007 == 0, "line \(rule.line): MODE \(value) grants others access")
                }
            }
            if !rule.values("SYMLINK").isEmpty {
                #expect(!rule.values("ATTRS{idVendor}", "==").isEmpty, "line \(rule.line): SYMLINK without idVendor")
                #expect(rule.values("ENV{ID_LODESTAR_GNSS}", "=") == ["1"], "line \(rule.line)")
            }
        }
        #expect(gotos.isSubset(of: labels))

        // Every USB receiver of the classifier has a rule, with an idProduct pattern that matches exactly its range.
        let claiming = rules.filter { $0.values("ENV{ID_LODESTAR_GNSS}", "=") == ["1"] && !$0.values("ATTRS{idVendor}").isEmpty }
        for model in DeviceClassifier.knownGNSS {
            guard let vendor = model.vendorID, let products = model.productIDs else { continue }
            let rows = claiming.filter { $0.values("ATTRS{idVendor}") == [DeviceClassifier.hex(vendor)] }
            #expect(rows.count == 1, "\(model.name): \(rows.count) rules")
            guard let pattern = rows.first?.values("ATTRS{idProduct}").first else {
                Issue.record("\(model.name): rule without idProduct"); continue
            }
            for product in UInt16(0)...UInt16(0xFFFF) where product % 7 == 0 || products.contains(product) {
                let matches = fnmatch(pattern, DeviceClassifier.hex(product), 0) == 0
                #expect(matches == products.contains(product), "\(model.name) \(pattern) vs \(DeviceClassifier.hex(product))")
                if matches != products.contains(product) { break }
            }
        }
        // Generic adapters are never claimed by an active rule.
        for adapter in DeviceClassifier.genericUSBSerial {
            let claimed = claiming.contains {
                $0.values("ATTRS{idVendor}") == [DeviceClassifier.hex(adapter.vendorID)]
                    && $0.values("ATTRS{idProduct}").allSatisfy { fnmatch($0, DeviceClassifier.hex(adapter.productID), 0) == 0 }
            }
            #expect(!claimed, "\(adapter.name) is claimed")
        }
        // The commented example shows how to claim one adapter by serial number.
        #expect(text.contains("#SUBSYSTEM==\"tty\", ATTRS{idVendor}==\"0403\", ATTRS{idProduct}==\"6001\", ATTRS{serial}=="))
    }
}
