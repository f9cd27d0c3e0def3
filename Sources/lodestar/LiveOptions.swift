import ArgumentParser
import Capture
import Devices
import Magnetics
#if canImport(Glibc)
import Glibc
#endif

/// Source options shared by `run` and `record`, from flags and/or a config file (flags win).
struct LiveOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("""
        A GNSS receiver: a serial device with its rate (/dev/ttyUSB0@9600, any rate incl. non-standard ones), \
        a device without a rate or with @auto (autobaud: tries common rates and locks on valid NMEA checksums), \
        or gpsd://host:port[/device] (gpsd via libgps). Repeatable.
        """, valueName: "spec"))
    var gps: [String] = []

    @Option(name: .long, help: ArgumentHelp("""
        A magnetometer/IMU: i2c:BUS:ADDRESS (e.g. i2c:1:0x1e; the chip is probed by its ID register), \
        or iio:deviceN / iio:NAME (a kernel IIO driver under /sys/bus/iio/devices). Repeatable.
        """, valueName: "spec"))
    var imu: [String] = []

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Sensor mounting: how the sensor's axes map to the board's (x forward, y left, z up), e.g. 'x,y,z' (identity) or '-y,x,z'. Recorded in captures; used by the heading stack.", valueName: "axes"))
    var mounting: String?

    @Option(name: .long, help: ArgumentHelp("A config file of `option = value` lines, each standing for `--option value` (any option of this command; flags as `option = true`); repeated keys add sources; options after it on the command line win or are added. See docs/deployment.md.", valueName: "file"))
    var config: String?

    /// Sources from the config file followed by the flags.
    func resolved() throws -> (gps: [String], imu: [String], mounting: String?, settings: [String: String]) {
        var gps: [String] = [], imu: [String] = [], mounting: String? = nil
        var settings: [String: String] = [:]
        if let config {
            let entries = try ConfigFile.read(config)
            for (key, value) in entries {
                switch key {
                case "gps": gps.append(value)
                case "imu": imu.append(value)
                case "mounting": mounting = value
                case "output", "fifo", "serve", "serve-nmea", "nmea-udp", "chrony-sock", "service": settings[key] = value
                case _ where MQTTOptions.configKeys.contains(key): settings[key] = value
                case _ where LiveReceiverOptions.configKeys.contains(key): settings[key] = value
                case _ where NTRIPOptions.configKeys.contains(key): settings[key] = value
                default: throw ValidationError("\(config): unknown key '\(key)' (known: gps, imu, mounting, output, fifo, serve, serve-nmea, service, nmea-udp, chrony-sock, mqtt…, receiver-rate, receiver-constellations, receiver-dynamic-model, receiver-messages, ntrip…)")
                }
            }
        }
        gps += self.gps
        imu += self.imu
        if let m = self.mounting { mounting = m }
        if let m = mounting {
            do { _ = try SensorMounting(parsing: m) } catch {
                throw ValidationError("--mounting '\(m)': \(error) (three of x,y,z with optional '-', each axis once, e.g. -y,x,z)")
            }
        }
        if gps.isEmpty && imu.isEmpty { throw ValidationError("give at least one source: --gps SPEC or --imu SPEC (or --config FILE)") }
        return (gps, imu, mounting, settings)
    }
}

extension String {
    func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set || s.first == "\t" { s.removeFirst() }
        while s.last == set || s.last == "\t" || s.last == "\r" { s.removeLast() }
        return String(s)
    }
}

/// `key = value` lines; `#` starts a comment; blank lines are ignored.
enum ConfigFile {
    static func read(_ path: String) throws -> [(String, String)] {
        let reader: LineReader
        do { reader = LineReader(source: try ByteSource(path: path)) } catch {
            throw CommandFailure(error.description, code: Exit.code(for: error))
        }
        var out: [(String, String)] = []
        while let line = try reader.nextLine({ bytes, _ in String(decoding: bytes, as: UTF8.self) }) {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let trimmed = content.trimmingCharacters(in: " ")
            if trimmed.isEmpty { continue }
            guard let eq = trimmed.firstIndex(of: "=") else {
                throw ValidationError("\(path):\(reader.lineNumber): expected 'key = value', got '\(trimmed)'")
            }
            out.append((String(trimmed[..<eq]).trimmingCharacters(in: " "),
                        String(trimmed[trimmed.index(after: eq)...]).trimmingCharacters(in: " ")))
        }
        return out
    }
}
