import ArgumentParser
import Capture
import Devices
import CLinux
import LocationCore
import LodestarIO
import SystemPackage
import Magnetics
#if canImport(Glibc)
import Glibc
#endif

struct Calibrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Fit a magnetometer calibration (hard and soft iron) from a capture and write a calibration file.",
        discussion: """
        Reads magnetometer samples from a capture (Lodestar captures, GnssLogger logs with UncalMag/Mag rows, \
        IMU CSV), shows how much of the sphere of directions they cover (a redrawn view on a terminal, a line \
        every 10 % otherwise, on standard error), fits the calibration and writes it. The fit is an ellipsoid \
        (hard + soft iron) when the samples cover at least half of the directions, a sphere (hard iron only) \
        otherwise, and a circle when all directions lie in one plane (a level vehicle turning): then the hard iron \
        along the plane's normal is unobservable and left at 0. See docs/calibration.md.

        Record the capture while turning the device slowly through all orientations, away from iron and magnets.

        Exit codes: 0 written; 65 no magnetometer samples or no usable fit (the reason is printed); \
        64 bad arguments; 66/74/77 the capture cannot be read; 73 (77: permission) the output cannot be written.

        Examples:
          lodestar calibrate --from tumble.lcap --output mag.cal --location 52.37,4.89
          lodestar calibrate --from imu.csv --output mag.cal --location=-33.92,18.42
        """)

    @Option(name: .long, help: ArgumentHelp("The capture to read magnetometer samples from.", valueName: "file"))
    var from: String?

    @Option(name: .long, help: ArgumentHelp("Collect live from this sensor instead (i2c:BUS:ADDRESS[:CHIP] or iio:DEVICE, as for run) until coverage is sufficient or SIGINT.", valueName: "spec"))
    var imu: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("With --imu: give up after this many seconds.", valueName: "seconds"))
    var timeout: Double = 300

    @Option(name: .long, help: "Input format instead of detecting it: lodestar, nmea, gnsslogger, imu-csv.")
    var format: CaptureFormat?

    @Option(name: .long, help: ArgumentHelp("Where to write the calibration file ('-' for standard output).", valueName: "file"))
    var output: String

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Where the recording was made, decimal degrees (use --location=-33.9,18.4 for a negative latitude). The fitted field strength is compared with the World Magnetic Model's there. Default: the capture's '# location:' header, if any.", valueName: "lat,lon"))
    var location: String?

    @Option(name: .long, help: ArgumentHelp("Also draw the samples, the fit, the direction coverage and the numbers into this SVG file.", valueName: "file"))
    var plot: String?

    @Option(name: .customLong("source-id"), parsing: .unconditional, help: ArgumentHelp("Use the magnetometer of this source (default: the first source with magnetometer samples).", valueName: "n"))
    var sourceID: Int?

    func validate() throws {
        if (from == nil) == (imu == nil) { throw ValidationError("give exactly one of --from CAPTURE or --imu SPEC") }
        if !(timeout > 0 && timeout.isFinite) { throw ValidationError("--timeout must be a positive number of seconds") }
        if let location, Self.parseLocation(location) == nil {
            throw ValidationError("--location must be LAT,LON in decimal degrees (latitude −90…90, longitude −180…360), got '\(location)'")
        }
        if let sourceID, sourceID < 0 { throw ValidationError("--source-id must be 0 or more") }
    }

    func run() throws {
        clinux_install_stop_handlers()
        clinux_ignore_sigpipe()
        var session = CalibrationSession(sourceID: sourceID,
                                         display: ProgressDisplay(terminal: isatty(2) != 0))
        let from = self.from ?? imu ?? "-"
        var recordsRead = 0
        var header = CaptureHeader()
        var captureReader: (any CaptureReader)?
        if let imu = self.imu {
            // Live: the sensor on its own thread (the live event queue), samples into the session until enough.
            let source = try SourceFactory.imuSource(imu, name: "imu0")
            session.stopWhenSufficient = true
            let queue = LiveEventQueue(sources: [source])
            queue.start()
            let deadline = clinux_monotonic_ns() + Int64(timeout * 1e9)
            var done = false
            loop: while true {
                if done || clinux_stop_requested() != 0 || clinux_monotonic_ns() > deadline { queue.stop() }
                switch queue.next() {
                case .event(let event):
                    if session.consume(event) { done = true }
                    recordsRead += 1
                case .idle: continue
                case .finished: break loop
                }
            }
        } else {
            let reader: any CaptureReader
            do { reader = try CaptureDetector.open(path: from, format: format) } catch {
                throw CommandFailure(error.description, code: Exit.code(for: error))
            }
            do {
                try session.collect(from: reader.next)
            } catch {
                session.display.finish(nil)
                throw CommandFailure(error.description, code: Exit.code(for: error))
            }
            recordsRead = reader.statistics.recordsRead
            header = reader.header
            captureReader = reader
        }
        session.display.finish(session.selectedStream.flatMap { session.collectors[$0] })
        let sig = clinux_stop_requested()
        if sig != 0 {
            printError("lodestar: calibrate: interrupted; no calibration written")
            throw ExitCode(128 + sig)
        }
        guard let stream = session.selectedStream, var collector = session.collectors[stream] else {
            let what = sourceID.map { "source \($0) has no magnetometer samples" } ?? "no magnetometer samples"
            throw CommandFailure("\(from): \(what) (records read: \(recordsRead))", code: Exit.dataError)
        }

        // The World Magnetic Model at the location and the recording's date (else today).
        var place: CalibrationFile.Location?
        var reference: MagneticFieldElements?
        if let (lat, lon, height) = location.flatMap(Self.parseLocation).map({ ($0.0, $0.1, 0.0) })
            ?? Self.headerLocation(header) {
            place = CalibrationFile.Location(latitudeDegrees: lat, longitudeDegrees: lon)
            let year: Double
            if let utc = session.firstUTC { year = WorldMagneticModel.decimalYear(of: utc) }
            else if let date = header.referenceDate { year = date.decimalYear }
            else { year = WorldMagneticModel.decimalYear(of: Timestamp(nanosecondsSince1970: clinux_realtime_ns())) }
            reference = WorldMagneticModel.wmm2025.field(latitudeDegrees: lat, longitudeDegrees: lon,
                                                          heightAboveEllipsoidKilometers: height / 1000, decimalYear: year)
        }
        collector.reference = reference

        let result: CalibrationResult
        do { result = try collector.fit() } catch {
            throw CommandFailure("\(from): \(error)", code: Exit.dataError)
        }

        let chip = (captureReader as? LodestarCaptureReader)?.sources[stream.sourceID]?.attributes["chip"]
        let file = CalibrationFile(result: result, chip: chip,
                                   created: Timestamp(nanosecondsSince1970: clinux_realtime_ns() / 1_000_000_000 * 1_000_000_000),
                                   location: place, source: from)
        try Self.write(file.text, to: output)
        if let plot { try writeCalibrationPlot(plot, collector: collector, result: result, source: from) }

        let summary = Self.summary(result, file: file, stream: stream, progress: collector.progress,
                                   reference: reference, output: output)
        if output == "-" { printError(summary) } else { print(summary) }
    }

    // MARK: - Helpers

    static func parseLocation(_ text: String) -> (Double, Double)? {
        let parts = text.split(separator: ",").map { String($0).trimmingCharacters(in: " ") }
        guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]),
              (-90...90).contains(lat), (-180...360).contains(lon) else { return nil }
        return (lat, lon)
    }

    /// A Lodestar capture's `# location: latitude_deg=… longitude_deg=… [height_m=…]` header.
    static func headerLocation(_ header: CaptureHeader) -> (Double, Double, Double)? {
        guard let value = header.value(for: "location") else { return nil }
        var attributes: [String: Double] = [:]
        for part in value.split(separator: " ") {
            let kv = part.split(separator: "=", maxSplits: 1)
            if kv.count == 2, let d = Double(kv[1]), d.isFinite { attributes[String(kv[0])] = d }
        }
        guard let lat = attributes["latitude_deg"], let lon = attributes["longitude_deg"],
              (-90...90).contains(lat), (-180...360).contains(lon) else { return nil }
        return (lat, lon, attributes["height_m"] ?? 0)
    }

    /// Writes atomically (`Syscall.replaceFile`: a temporary file beside the target, fsynced, then renamed over
    /// it), so a crash never leaves a half-written calibration. "-" writes to standard output.
    static func write(_ text: String, to path: String) throws {
        do throws(SystemError) {
            if path == "-" {
                do { try Syscall.writeFully(1, Array(text.utf8)) } catch { throw SystemError("write", path: "standard output", error) }
            } else {
                try Syscall.replaceFile(path, with: Array(text.utf8), temporary: path + ".tmp-\(getpid())")
            }
        } catch { throw CommandFailure(error) }
    }

    static func summary(_ r: CalibrationResult, file: CalibrationFile, stream: CalibrationSession.Stream,
                        progress: CalibrationCollector.Progress, reference: MagneticFieldElements?, output: String) -> String {
        let m = r.metrics
        let c = r.calibration
        var lines: [String] = []
        let chip = file.chip.map { " (\($0))" } ?? ""
        lines.append("source:        \(stream.sourceID)\(chip), \(stream.uncalibrated ? "uncalibrated" : "as-logged") samples: "
                     + "\(progress.samplesSeen) read, \(m.sampleCount) kept for the fit, \(m.inlierCount) inliers")
        lines.append("method:        \(r.method.rawValue)")
        lines.append("hard iron:     \(vector(c.hardIronMicrotesla)) µT")
        let s = c.softIron
        lines.append("soft iron:     \(row(s.r0))")
        lines.append("               \(row(s.r1))")
        lines.append("               \(row(s.r2))")
        lines.append("residual std:  \(fixed(m.residualStdMicrotesla, 3)) µT")
        lines.append("coverage:      \(fixed(m.coveragePercent, 0)) % of directions")
        var field = "\(fixed(m.fieldMicrotesla, 2)) µT" + (r.method == .circle ? " (the field's component in the plane)" : "")
        if let ref = r.referenceFieldMicrotesla, let dev = r.fieldDeviationFraction {
            let name = r.method == .circle ? "horizontal H" : "F"
            field += "; WMM \(name) \(fixed(ref, 2)) µT (\(dev >= 0 ? "+" : "")\(fixed(100 * dev, 1)) %)"
            if abs(dev) > 0.15 { field += ": more than 15 % off, check for nearby iron or the sensor's scale" }
            if reference?.outsideValidity == true { field += " (date outside WMM2025's validity)" }
        }
        lines.append("field:         \(field)")
        for note in r.notes { lines.append("note:          \(note)") }
        lines.append("written:       \(output == "-" ? "standard output" : output)")
        return lines.joined(separator: "\n")
    }

    static func fixed(_ v: Double, _ digits: Int) -> String {
        guard v.isFinite else { return "\(v)" }
        var p = 1.0
        for _ in 0..<digits { p *= 10 }
        let n = (abs(v) * p).rounded()
        let whole = Int(n / p), frac = Int(n.truncatingRemainder(dividingBy: p))
        let sign = v < 0 && n != 0 ? "-" : ""
        guard digits > 0 else { return sign + "\(whole)" }
        let f = "\(frac)"
        return sign + "\(whole)." + String(repeating: "0", count: digits - f.count) + f
    }

    static func vector(_ v: Vector3, digits: Int = 2) -> String {
        "(\(fixed(v.x, digits)), \(fixed(v.y, digits)), \(fixed(v.z, digits)))"
    }

    static func row(_ v: Vector3) -> String {
        [v.x, v.y, v.z].map { ($0 >= 0 ? " " : "") + fixed($0, 4) }.joined(separator: "  ")
    }
}

/// Feeds magnetometer samples to one `CalibrationCollector` per stream and drives the progress display.
/// Captures feed it through `collect(from:)`; a live source can call `consume(_:)` with each event the same way.
struct CalibrationSession {
    /// One magnetometer stream: a source, and whether its samples are known to be uncalibrated (Lodestar `M`
    /// records, Android `UncalMag` rows, which carry a bias) or are field values as logged (Android `Mag` rows,
    /// already corrected by the phone; IMU CSV columns, whatever the logger wrote).
    struct Stream: Hashable {
        var sourceID: Int
        var uncalibrated: Bool
    }

    let sourceID: Int?
    var display: ProgressDisplay
    var collectors: [Stream: CalibrationCollector] = [:]
    /// Sources in the order their first magnetometer sample arrived.
    private(set) var sourceOrder: [Int] = []
    /// UTC of the first magnetometer sample, when the capture gives one (selects the model's date).
    private(set) var firstUTC: Timestamp?
    /// Stop collecting as soon as the coverage is sufficient (live collection; captures are read to the end).
    var stopWhenSufficient = false

    init(sourceID: Int?, display: ProgressDisplay) {
        self.sourceID = sourceID
        self.display = display
    }

    /// The stream the calibration is fitted from: the chosen (or first) source, raw samples preferred.
    var selectedStream: Stream? {
        guard let id = sourceID ?? sourceOrder.first else { return nil }
        let raw = Stream(sourceID: id, uncalibrated: true)
        if collectors[raw] != nil { return raw }
        let processed = Stream(sourceID: id, uncalibrated: false)
        return collectors[processed] != nil ? processed : nil
    }

    /// Reads events until the source ends, a stop signal arrives, or (with `stopWhenSufficient`) there is enough.
    mutating func collect(from next: () throws(CaptureError) -> SensorEvent?) throws(CaptureError) {
        while let event = try next() {
            if clinux_stop_requested() != 0 { break }
            if consume(event) && stopWhenSufficient { break }
        }
    }

    /// Takes one event; returns true when the selected stream's coverage is sufficient.
    @discardableResult
    mutating func consume(_ event: SensorEvent) -> Bool {
        guard case .motion(let sample) = event.payload else { return false }
        let field: Vector3, uncalibrated: Bool
        switch sample {
        case .magnetometerRaw(let raw): field = raw.vector; uncalibrated = true
        case .magnetometer(let f, let bias): field = f; uncalibrated = bias != nil
        default: return false
        }
        if let wanted = sourceID, wanted != event.sourceID { return false }
        if !sourceOrder.contains(event.sourceID) { sourceOrder.append(event.sourceID) }
        if firstUTC == nil { firstUTC = event.utc }
        let stream = Stream(sourceID: event.sourceID, uncalibrated: uncalibrated)
        collectors[stream, default: CalibrationCollector()].add(field, monotonicNanos: event.monotonicNanos)
        guard stream == selectedStream, let collector = collectors[stream] else { return false }
        display.update(collector)
        return collector.isSufficient
    }
}

/// Coverage progress on standard error: on a terminal a redrawn block (status line and a map of the directions
/// seen); otherwise one plain line per 10 % of coverage.
struct ProgressDisplay {
    let terminal: Bool
    private var drawnLines = 0
    private var lastDrawNanos: Int64 = 0
    private var lastCoveredBins = -1
    private var lastDecile = 0

    /// Rows and columns of the map: latitude bands (+z at the top) × 10° azimuth sectors.
    static let mapRows = 5
    static let mapColumns = 36

    init(terminal: Bool) { self.terminal = terminal }

    mutating func update(_ collector: CalibrationCollector) {
        let p = collector.progress
        if terminal {
            let now = clinux_monotonic_ns()
            // Redraw on new coverage or every 100 ms, never faster than every 30 ms.
            guard now - lastDrawNanos >= 30_000_000,
                  p.coveredBins != lastCoveredBins || now - lastDrawNanos >= 100_000_000 else { return }
            lastDrawNanos = now
            lastCoveredBins = p.coveredBins
            draw(p, map: Self.map(collector))
        } else {
            let decile = Int(p.coveragePercent / 10)
            if decile > lastDecile {
                lastDecile = decile
                var line = "lodestar: calibrate: coverage \(Int(p.coveragePercent)) % (\(p.samplesSeen) samples"
                if let r = p.residualStdMicrotesla { line += ", residual \(Calibrate.fixed(r, 2)) µT" }
                printError(line + ")")
            }
        }
    }

    /// Draws the final state (terminal) and ends the block.
    mutating func finish(_ collector: CalibrationCollector?) {
        guard terminal else { return }
        if let collector { draw(collector.progress, map: Self.map(collector)) }
        if drawnLines > 0 { printError(""); drawnLines = 0 }
    }

    private mutating func draw(_ p: CalibrationCollector.Progress, map: [String]) {
        let width = 30
        let filled = min(width, Int(p.coveragePercent / 100 * Double(width) + 0.5))
        var status = "calibrating  [" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            + "] \(Int(p.coveragePercent)) %  \(p.samplesSeen) samples"
        if let r = p.residualStdMicrotesla { status += "  residual \(Calibrate.fixed(r, 2)) µT" }
        if p.isSufficient { status += "  enough" }
        var out = ""
        if drawnLines > 0 { out += "\u{1B}[\(drawnLines - 1)A\r" }  // back to the block's first line
        let lines = [status] + map
        for (i, line) in lines.enumerated() {
            out += "\u{1B}[2K" + line
            if i < lines.count - 1 { out += "\n" }
        }
        drawnLines = lines.count
        writeStderr(out)
    }

    /// One character per cell: '#' where the nearest direction bin holds samples, '.' where it is empty.
    static func map(_ collector: CalibrationCollector) -> [String] {
        let occupancy = collector.occupancy
        let cells = collector.directionCells
        var rows: [String] = []
        for r in 0..<mapRows {
            // Equal-area bands: z evenly spaced from +1 to −1.
            let z = 1 - (2 * Double(r) + 1) / Double(mapRows)
            let rho = (1 - z * z).squareRoot()
            var line = r == 0 ? "  +z " : (r == mapRows - 1 ? "  -z " : "     ")
            for c in 0..<mapColumns {
                let phi = (Double(c) + 0.5) / Double(mapColumns) * 2 * .pi
                let d = Vector3(x: rho * cos(phi), y: rho * sin(phi), z: z)
                line += cells.bin(of: d).map { occupancy[$0] > 0 ? "#" : "." } ?? " "
            }
            rows.append(line)
        }
        return rows
    }

    private func writeStderr(_ s: String) { Syscall.writeMessage(s) }
}

