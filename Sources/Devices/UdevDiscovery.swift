#if canImport(Glibc)
import Glibc
#endif
import LodestarIO
import CUdev
import NMEA

/// A device found by udev enumeration or a hotplug event: the facts classification needs, read from sysfs.
public struct DiscoveredDevice: Sendable, Hashable, CustomStringConvertible {
    /// `tty`, `iio` or `gnss`.
    public var subsystem: String
    /// Kernel name: `ttyACM0`, `iio:device0`, `gnss0`.
    public var sysname: String
    /// Identity of the device for diffing (`/sys/devices/…`).
    public var syspath: String
    /// `/dev/ttyACM0`; nil for devices without a node (IIO devices without a buffer).
    public var devnode: String?
    /// USB idVendor / idProduct of the USB device above it, if any.
    public var vendorID: UInt16?
    public var productID: UInt16?
    /// First driver up the parent chain (`cdc_acm`, `ftdi_sio`, `serial8250`, `st_magn_i2c` …).
    public var driver: String?
    /// USB `serial` string (FTDI and most receivers have one; PL2303 and CH340 usually do not).
    public var serialNumber: String?
    /// USB `product` string, or the IIO device's `name`.
    public var model: String?

    public init(subsystem: String, sysname: String, syspath: String, devnode: String? = nil,
                vendorID: UInt16? = nil, productID: UInt16? = nil, driver: String? = nil,
                serialNumber: String? = nil, model: String? = nil) {
        self.subsystem = subsystem; self.sysname = sysname; self.syspath = syspath; self.devnode = devnode
        self.vendorID = vendorID; self.productID = productID; self.driver = driver
        self.serialNumber = serialNumber; self.model = model
    }

    public var classification: DeviceClass {
        DeviceClassifier.classify(subsystem: subsystem, vendorID: vendorID, productID: productID,
                                  driver: driver, devnode: devnode)
    }

    /// `1546:01a8`, or nil without USB ids.
    public var usbID: String? {
        guard let vendorID, let productID else { return nil }
        return DeviceClassifier.hex(vendorID) + ":" + DeviceClassifier.hex(productID)
    }

    public var description: String {
        var parts = [devnode ?? sysname]
        if let usbID { parts.append(usbID) }
        if let model { parts.append(model.debugDescription) }
        if let driver { parts.append("driver \(driver)") }
        parts.append("→ \(classification)")
        return parts.joined(separator: " ")
    }
}

/// A GNSS receiver model recognised without talking to it.
public struct GNSSReceiverModel: Sendable, Hashable {
    public var name: String
    /// USB vendor id; nil for receivers recognised otherwise (the kernel GNSS subsystem).
    public var vendorID: UInt16?
    /// Product ids of that vendor that are GNSS receivers.
    public var productIDs: ClosedRange<UInt16>?
    /// Whether the receiver sends NMEA out of the box; otherwise it must be configured (see `note`).
    public var sendsNMEAByDefault: Bool
    public var note: String?

    public func matches(vendorID v: UInt16, productID p: UInt16) -> Bool {
        guard let vendorID, let productIDs else { return false }
        return v == vendorID && productIDs.contains(p)
    }
}

/// A USB-serial bridge chip used by GNSS pucks and by everything else: never claimed by id alone.
public struct USBSerialAdapter: Sendable, Hashable {
    public var vendorID: UInt16
    public var productID: UInt16
    public var name: String
}

/// What a device is, as far as Lodestar can tell from udev facts alone.
public enum DeviceClass: Sendable, Hashable, CustomStringConvertible {
    /// A GNSS receiver by its USB ids (or the kernel GNSS subsystem): safe to open as a receiver.
    case gnssReceiver(GNSSReceiverModel)
    /// Maybe a receiver (generic USB-serial adapter, u-blox non-GNSS product): confirm with `NMEAProbe` first.
    case possibleGNSS(reason: String)
    /// Another serial port (on-board UART, unknown USB serial device): left alone unless configured.
    case serialPort
    /// An IIO device (magnetometer, accelerometer, gyroscope … see `IIODevice`).
    case iioSensor
    /// Virtual consoles, the console, ptys, nodes-less devices.
    case ignored

    public var description: String {
        switch self {
        case .gnssReceiver(let model): "GNSS receiver (\(model.name))"
        case .possibleGNSS(let reason): "possible GNSS: \(reason)"
        case .serialPort: "serial port"
        case .iioSensor: "IIO sensor"
        case .ignored: "ignored"
        }
    }
}

/// Classification of tty, gnss and iio devices from udev facts: a pure function, testable without udev.
/// The tables are mirrored by `udev/60-lodestar.rules` (a test keeps them in step).
public enum DeviceClassifier {
    /// GNSS receivers known by USB id. Only entries whose ids identify a GNSS receiver and nothing else:
    /// - u-blox: vendor 1546 is also used by u-blox cellular modules (SARA, LARA, TOBY; ids 11xx and up) whose
    ///   ports are AT command ports, so only the GNSS range 01a0–01af counts (01a5 u-blox 5, 01a6 u-blox 6,
    ///   01a7 u-blox 7, 01a8 u-blox 8, 01a9 F9/M9/M10); other 1546 products are `possibleGNSS`;
    /// - Septentrio: 152a is Thesycon's vendor id, sub-licensed per product (cameras, audio …): only 85c0;
    /// - Quectel LC29H/LG290P, GlobalSat BU-353 and most SiRF/MediaTek pucks sit behind generic CP210x, CH340 or
    ///   PL2303 bridges: not identifiable by id (see `genericUSBSerial`).
    public static let knownGNSS: [GNSSReceiverModel] = [
        GNSSReceiverModel(name: "u-blox GNSS receiver", vendorID: 0x1546, productIDs: 0x01A0...0x01AF,
                          sendsNMEAByDefault: true, note: "CDC-ACM; NMEA and UBX on USB by default"),
        GNSSReceiverModel(name: "Septentrio mosaic/AsteRx", vendorID: 0x152A, productIDs: 0x85C0...0x85C0,
                          sendsNMEAByDefault: false,
                          note: "two CDC-ACM ports; NMEA output must be enabled (setNMEAOutput)"),
        GNSSReceiverModel(name: "Garmin GPS (USB mode)", vendorID: 0x091E, productIDs: 0x0003...0x0003,
                          sendsNMEAByDefault: false,
                          note: "garmin_gps driver speaks Garmin's binary USB protocol, not NMEA; use the unit's NMEA/serial mode or gpsd"),
        GNSSReceiverModel(name: "NovAtel OEM receiver", vendorID: 0x09D7, productIDs: 0x0100...0x0100,
                          sendsNMEAByDefault: false, note: "NMEA logs must be enabled (LOG … GPGGA ONTIME 1)"),
        GNSSReceiverModel(name: "MediaTek MT3329 GPS (Holux M-1200E, Qstarz BT-Q1000XT)", vendorID: 0x0E8D,
                          productIDs: 0x3329...0x3329, sendsNMEAByDefault: true, note: nil),
        GNSSReceiverModel(name: "DeLorme Earthmate LT-20/LT-40", vendorID: 0x1163, productIDs: 0x0200...0x0200,
                          sendsNMEAByDefault: true, note: "cypress_m8 driver, 4800 baud"),
    ]

    /// Devices of the kernel GNSS subsystem (`/dev/gnssN`: gnss-ubx, gnss-sirf, gnss-mtk … on device-tree boards).
    public static let kernelGNSS = GNSSReceiverModel(
        name: "kernel GNSS device", vendorID: nil, productIDs: nil, sendsNMEAByDefault: true,
        note: "raw receiver output; sysfs attribute `type` names the protocol (NMEA, SiRF, UBX, MTK)")

    /// USB-serial bridges. GNSS pucks use them, and so do Arduinos, modems and console cables: probe first.
    public static let genericUSBSerial: [USBSerialAdapter] = [
        USBSerialAdapter(vendorID: 0x0403, productID: 0x6001, name: "FTDI FT232R"),
        USBSerialAdapter(vendorID: 0x0403, productID: 0x6010, name: "FTDI FT2232"),
        USBSerialAdapter(vendorID: 0x0403, productID: 0x6011, name: "FTDI FT4232"),
        USBSerialAdapter(vendorID: 0x0403, productID: 0x6014, name: "FTDI FT232H"),
        USBSerialAdapter(vendorID: 0x0403, productID: 0x6015, name: "FTDI FT-X"),
        USBSerialAdapter(vendorID: 0x10C4, productID: 0xEA60, name: "Silicon Labs CP210x"),
        USBSerialAdapter(vendorID: 0x10C4, productID: 0xEA70, name: "Silicon Labs CP2105"),
        USBSerialAdapter(vendorID: 0x10C4, productID: 0xEA71, name: "Silicon Labs CP2108"),
        USBSerialAdapter(vendorID: 0x1A86, productID: 0x7523, name: "WCH CH340"),
        USBSerialAdapter(vendorID: 0x1A86, productID: 0x55D3, name: "WCH CH343"),
        USBSerialAdapter(vendorID: 0x1A86, productID: 0x55D4, name: "WCH CH9102"),
        USBSerialAdapter(vendorID: 0x067B, productID: 0x2303, name: "Prolific PL2303"),
        USBSerialAdapter(vendorID: 0x067B, productID: 0x23A3, name: "Prolific PL2303GC"),
    ]

    /// Classifies a device from its subsystem, USB ids, driver and device node.
    public static func classify(subsystem: String, vendorID: UInt16?, productID: UInt16?, driver: String?,
                                devnode: String?) -> DeviceClass {
        switch subsystem {
        case "iio": return .iioSensor
        case "gnss": return devnode == nil ? .ignored : .gnssReceiver(kernelGNSS)
        case "tty": break
        default: return .ignored
        }
        guard let devnode, !devnode.isEmpty else { return .ignored }
        if let vendorID, let productID {
            if let model = knownGNSS.first(where: { $0.matches(vendorID: vendorID, productID: productID) }) {
                return .gnssReceiver(model)
            }
            if let adapter = genericUSBSerial.first(where: { $0.vendorID == vendorID && $0.productID == productID }) {
                return .possibleGNSS(reason: "generic USB-serial adapter (\(adapter.name)): probe for NMEA first")
            }
            if vendorID == 0x1546 {
                return .possibleGNSS(reason: "u-blox product \(hex(productID)) outside the GNSS range (cellular modules share vendor 1546)")
            }
            return .serialPort
        }
        if driver == "garmin_gps", let garmin = knownGNSS.first(where: { $0.vendorID == 0x091E }) {
            return .gnssReceiver(garmin)
        }
        // No driver anywhere up the chain: virtual consoles (tty0…tty63), /dev/console, /dev/tty, ptmx.
        return driver == nil ? .ignored : .serialPort
    }

    /// Four lower-case hex digits, as sysfs and lsusb print ids.
    public static func hex(_ id: UInt16) -> String {
        let digits = String(id, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// Decides from the first bytes read from a port whether a receiver is talking NMEA.
/// The probe only reads (it sends nothing, so a modem or microcontroller on the port is not disturbed beyond the
/// open itself); the caller reads for a few seconds at the candidate baud rates and feeds what arrived.
public enum NMEAProbe {
    public enum Verdict: Sendable, Hashable {
        /// At least `requiredSentences` sentences with valid checksums.
        case nmea
        /// `byteBudget` bytes without enough valid sentences (wrong baud rate, binary protocol, other device).
        case notNMEA
        /// Too few bytes yet: keep reading.
        case undecided
    }

    /// Judges the bytes received so far. Sentences without a checksum do not count (anything text-like could
    /// pass as one); two valid checksums by chance are practically impossible.
    public static func judge(_ bytes: [UInt8], requiredSentences: Int = 2, byteBudget: Int = 2048) -> Verdict {
        let framer = NMEAFramer()
        var valid = 0
        framer.feed(bytes) { sentence in if sentence.hadChecksum { valid += 1 } }
        if valid >= requiredSentences { return .nmea }
        return bytes.count >= byteBudget ? .notNMEA : .undecided
    }
}

/// Enumeration of tty, IIO and kernel GNSS devices through libudev. Works without udevd: libudev reads sysfs
/// directly (only properties that udevd stores in /run/udev/data are missing, and Lodestar does not use them).
public enum UdevDiscovery {
    public static let subsystems = ["tty", "iio", "gnss"]

    /// All devices of the given subsystems, ordered by subsystem then kernel name. IIO triggers are skipped.
    public static func enumerate(subsystems: [String] = subsystems) throws(SystemError) -> [DiscoveredDevice] {
        guard let udev = udev_new() else { throw SystemError("udev_new", errno: Glibc.errno == 0 ? ENOMEM : Glibc.errno) }
        defer { udev_unref(udev) }
        guard let enumerate = udev_enumerate_new(udev) else {
            throw SystemError("udev_enumerate_new", errno: Glibc.errno == 0 ? ENOMEM : Glibc.errno)
        }
        defer { udev_enumerate_unref(enumerate) }
        for subsystem in subsystems {
            let r = udev_enumerate_add_match_subsystem(enumerate, subsystem)
            if r < 0 { throw SystemError("udev_enumerate_add_match_subsystem", errno: -r) }
        }
        let r = udev_enumerate_scan_devices(enumerate)
        if r < 0 { throw SystemError("udev_enumerate_scan_devices", errno: -r) }
        var devices: [DiscoveredDevice] = []
        var entry = udev_enumerate_get_list_entry(enumerate)
        while let current = entry {
            if let syspath = string(udev_list_entry_get_name(current)),
               let device = udev_device_new_from_syspath(udev, syspath) {
                if let found = describe(device) { devices.append(found) }
                udev_device_unref(device)
            }
            entry = udev_list_entry_get_next(current)
        }
        return devices.sorted { ($0.subsystem, $0.sysname) < ($1.subsystem, $1.sysname) }
    }

    /// Reads the classification facts of a libudev device (borrowed, not released). Nil for IIO triggers and
    /// devices whose sysfs entry vanished meanwhile.
    static func describe(_ device: OpaquePointer) -> DiscoveredDevice? {
        guard let subsystem = string(udev_device_get_subsystem(device)),
              let sysname = string(udev_device_get_sysname(device)),
              let syspath = string(udev_device_get_syspath(device)) else { return nil }
        if subsystem == "iio" && !sysname.hasPrefix("iio:device") { return nil }
        var driver: String?
        var node: OpaquePointer? = device
        while let current = node, driver == nil {
            driver = string(udev_device_get_driver(current))
            node = udev_device_get_parent(current)
        }
        var result = DiscoveredDevice(subsystem: subsystem, sysname: sysname, syspath: syspath,
                                      devnode: string(udev_device_get_devnode(device)), driver: driver)
        if let usb = udev_device_get_parent_with_subsystem_devtype(device, "usb", "usb_device") {
            result.vendorID = string(udev_device_get_sysattr_value(usb, "idVendor")).flatMap { UInt16($0, radix: 16) }
            result.productID = string(udev_device_get_sysattr_value(usb, "idProduct")).flatMap { UInt16($0, radix: 16) }
            result.serialNumber = string(udev_device_get_sysattr_value(usb, "serial"))
            result.model = string(udev_device_get_sysattr_value(usb, "product"))
        }
        if subsystem == "iio" { result.model = string(udev_device_get_sysattr_value(device, "name")) }
        return result
    }

    static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        let s = String(cString: pointer).trimmingSpaces
        return s.isEmpty ? nil : s
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var s = Substring(self)
        while let c = s.last, c == " " || c == "\n" { s.removeLast() }
        while let c = s.first, c == " " { s.removeFirst() }
        return String(s)
    }
}
