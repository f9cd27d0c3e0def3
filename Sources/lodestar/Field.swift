import ArgumentParser
import Capture
import CLinux
import LocationCore
import LodestarIO
import SystemPackage
import Magnetics
#if canImport(Glibc)
import Glibc
#endif

struct Field: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "field",
        abstract: "Earth's magnetic field from the World Magnetic Model (WMM2025): declination, inclination, intensities, grid variation and their change per year.",
        discussion: """
        Heights are above the WGS84 ellipsoid (as GNSS receivers report altitudeEllipsoidMeters), not above sea level. \
        Warnings go to standard error: inside the blackout zone (H < 2000 nT, compass unreliable), the caution zone \
        (H < 6000 nT) and dates outside the model's validity (2025.0–2030.0, values extrapolated).

        --batch reads CSV rows 'decimal_year,lat_deg,lon_deg,height_km' from standard input (the date may also be \
        YYYY-MM-DD) and writes one row 'D_deg,I_deg,H_nT,X_nT,Y_nT,Z_nT,F_nT,GV_deg' per input line, in order, \
        streaming in constant memory. GV is empty where undefined (|lat| < 55°). A first line that is not numeric is a \
        header and is answered with the output header. A bad row is written as ',,,,,,,' (so rows stay aligned), \
        counted, and reported on standard error at the end with its line number; the exit status is then 65.

        Examples:
          lodestar field --lat 48.137 --lon 11.575 --height-km 0.52 --date 2026-03-01
          lodestar field --lat -80 --lon 240 --height-km 100 --date 2027.5 --json
          printf '2025.0,80,0,0\\n2027.5,-80,240,100\\n' | lodestar field --batch
        """)

    @Option(name: .customLong("lat"), parsing: .unconditional,
            help: ArgumentHelp("Geodetic latitude, degrees north (−90…90).", valueName: "deg"))
    var latitudeDegrees: Double?

    @Option(name: .customLong("lon"), parsing: .unconditional,
            help: ArgumentHelp("Longitude, degrees east (−180…360).", valueName: "deg"))
    var longitudeDegrees: Double?

    @Option(name: .customLong("height-km"), parsing: .unconditional,
            help: ArgumentHelp("Height above the WGS84 ellipsoid, km (−1…850). Default: 0.", valueName: "km"))
    var heightKilometers: Double?

    @Option(name: .long, help: ArgumentHelp("YYYY-MM-DD or a decimal year such as 2027.5. Default: today (UTC).", valueName: "date"))
    var date: String?

    @Flag(name: .long, help: "Print one JSON object instead of the table.")
    var json = false

    @Flag(name: .long, help: "Read CSV rows decimal_year,lat_deg,lon_deg,height_km from standard input; write D,I,H,X,Y,Z,F,GV rows.")
    var batch = false

    static let latitudeRange = -90.0...90.0
    static let longitudeRange = -180.0...360.0
    static let heightRange = -1.0...850.0
    static let yearRange = 1900.0...2200.0

    func validate() throws {
        if batch {
            if latitudeDegrees != nil || longitudeDegrees != nil || heightKilometers != nil || date != nil || json {
                throw ValidationError("--batch takes positions and dates from standard input; do not combine it with --lat, --lon, --height-km, --date or --json")
            }
            return
        }
        guard let lat = latitudeDegrees, let lon = longitudeDegrees else {
            throw ValidationError("give --lat and --lon (try: lodestar field --lat 48.137 --lon 11.575), or --batch")
        }
        if let message = Self.rangeProblem(latitude: lat, longitude: lon, height: heightKilometers ?? 0) {
            throw ValidationError(message)
        }
        if let d = date, Self.parseDate(d) == nil {
            throw ValidationError("--date must be YYYY-MM-DD or a decimal year in 1900…2200, got '\(d)'")
        }
    }

    func run() throws {
        let model = WorldMagneticModel.wmm2025
        if batch {
            try runBatch(model)
            return
        }
        // validate() has checked these.
        guard let lat = latitudeDegrees, let lon = longitudeDegrees else { return }
        let height = heightKilometers ?? 0
        let (year, dateLabel) = date.flatMap { d in Self.parseDate(d).map { ($0, d) } } ?? Self.today()
        let e = model.field(latitudeDegrees: lat, longitudeDegrees: lon, heightAboveEllipsoidKilometers: height, decimalYear: year)
        if json {
            print(Self.json(e, model: model, latitude: lat, longitude: lon, height: height, year: year))
        } else {
            print(Self.table(e, model: model, latitude: lat, longitude: lon, height: height, year: year, dateLabel: dateLabel), terminator: "")
        }
        if e.blackout {
            printError("lodestar: warning: H = \(fixed(e.horizontalNanotesla, 1)) nT < 2000 nT: inside the blackout zone around the magnetic pole; compass headings are unreliable here")
        } else if e.caution {
            printError("lodestar: warning: H = \(fixed(e.horizontalNanotesla, 1)) nT < 6000 nT: in the caution zone near the magnetic pole; compass accuracy may be degraded")
        }
        if e.outsideValidity {
            printError("lodestar: warning: \(fixed(year, 4)) is outside \(model.modelName)'s validity (\(fixed(model.validFrom, 1))–\(fixed(model.validUntil, 1))): values are extrapolated")
        }
    }

    // MARK: - Inputs

    /// The first range violated, as a message, or nil. NaN violates every range.
    static func rangeProblem(latitude: Double, longitude: Double, height: Double) -> String? {
        if !latitudeRange.contains(latitude) { return "latitude \(latitude) is outside −90…90" }
        if !longitudeRange.contains(longitude) { return "longitude \(longitude) is outside −180…360" }
        if !heightRange.contains(height) { return "height \(height) km is outside the model's −1…850 km" }
        return nil
    }

    /// YYYY-MM-DD (at 00:00 UTC) or a decimal year, in 1900…2200.
    static func parseDate(_ text: String) -> Double? {
        if text.utf8.count == 10, text.utf8.dropFirst(4).first == UInt8(ascii: "-"), let d = parseISODate(text) {
            return d.decimalYear
        }
        guard let year = Double(text), yearRange.contains(year) else { return nil }
        return year
    }

    /// Today's date from the system clock (the only clock read in this command).
    static func today() -> (Double, String) {
        let date = Timestamp(nanosecondsSince1970: clinux_realtime_ns()).civilDate
        let label = "\(date.year)-\(date.month < 10 ? "0" : "")\(date.month)-\(date.day < 10 ? "0" : "")\(date.day)"
        return (date.decimalYear, label)
    }

    // MARK: - Table and JSON

    static func table(_ e: MagneticFieldElements, model: WorldMagneticModel, latitude: Double, longitude: Double,
                      height: Double, year: Double, dateLabel: String) -> String {
        let sv = e.secularVariation
        var out = "\(model.modelName) at \(fixed(abs(latitude), 4))° \(latitude < 0 ? "S" : "N"), "
        out += "\(fixed(abs(longitude), 4))° \(longitude < 0 ? "W" : "E"), \(fixed(height, 3)) km above the WGS84 ellipsoid\n"
        out += dateLabel.utf8.count == 10 && dateLabel.contains("-")
            ? "Date \(dateLabel) (decimal year \(fixed(year, 4)))\n\n" : "Date: decimal year \(fixed(year, 4))\n\n"
        out += pad("Element", 22) + pad("Value", 14, left: true) + pad("Change per year", 18, left: true) + "\n"
        func row(_ name: String, _ value: String, _ rate: String) {
            out += pad(name, 22) + pad(value, 14, left: true) + pad(rate, 18, left: true) + "\n"
        }
        row("Declination D", fixed(e.declinationDegrees, 4) + "°", fixed(sv.declinationDegreesPerYear, 4) + "°")
        row("Inclination I", fixed(e.inclinationDegrees, 4) + "°", fixed(sv.inclinationDegreesPerYear, 4) + "°")
        row("Horizontal H", fixed(e.horizontalNanotesla, 1) + " nT", fixed(sv.horizontalNanoteslaPerYear, 1) + " nT")
        row("North X", fixed(e.northNanotesla, 1) + " nT", fixed(sv.northNanoteslaPerYear, 1) + " nT")
        row("East Y", fixed(e.eastNanotesla, 1) + " nT", fixed(sv.eastNanoteslaPerYear, 1) + " nT")
        row("Down Z", fixed(e.downNanotesla, 1) + " nT", fixed(sv.downNanoteslaPerYear, 1) + " nT")
        row("Total F", fixed(e.totalNanotesla, 1) + " nT", fixed(sv.totalNanoteslaPerYear, 1) + " nT")
        if let gv = e.gridVariationDegrees, let gvDot = sv.gridVariationDegreesPerYear {
            row("Grid variation GV", fixed(gv, 4) + "°", fixed(gvDot, 4) + "°")
        } else {
            out += pad("Grid variation GV", 22) + "  undefined for |latitude| < 55°\n"
        }
        return out
    }

    static func json(_ e: MagneticFieldElements, model: WorldMagneticModel, latitude: Double, longitude: Double,
                     height: Double, year: Double) -> String {
        let sv = e.secularVariation
        func number(_ v: Double?, _ decimals: Int) -> String { v.map { fixed($0, decimals) } ?? "null" }
        var s = "{\"class\":\"field\",\"model\":\"\(model.modelName)\",\"decimalYear\":\(fixed(year, 6))"
        s += ",\"latitudeDegrees\":\(fixed(latitude, 9)),\"longitudeDegrees\":\(fixed(longitude, 9))"
        s += ",\"heightAboveEllipsoidKilometers\":\(fixed(height, 6))"
        s += ",\"declinationDegrees\":\(fixed(e.declinationDegrees, 6)),\"inclinationDegrees\":\(fixed(e.inclinationDegrees, 6))"
        s += ",\"horizontalNanotesla\":\(fixed(e.horizontalNanotesla, 3)),\"northNanotesla\":\(fixed(e.northNanotesla, 3))"
        s += ",\"eastNanotesla\":\(fixed(e.eastNanotesla, 3)),\"downNanotesla\":\(fixed(e.downNanotesla, 3))"
        s += ",\"totalNanotesla\":\(fixed(e.totalNanotesla, 3)),\"gridVariationDegrees\":\(number(e.gridVariationDegrees, 6))"
        s += ",\"secularVariation\":{\"declinationDegreesPerYear\":\(fixed(sv.declinationDegreesPerYear, 6))"
        s += ",\"inclinationDegreesPerYear\":\(fixed(sv.inclinationDegreesPerYear, 6))"
        s += ",\"horizontalNanoteslaPerYear\":\(fixed(sv.horizontalNanoteslaPerYear, 3))"
        s += ",\"northNanoteslaPerYear\":\(fixed(sv.northNanoteslaPerYear, 3)),\"eastNanoteslaPerYear\":\(fixed(sv.eastNanoteslaPerYear, 3))"
        s += ",\"downNanoteslaPerYear\":\(fixed(sv.downNanoteslaPerYear, 3)),\"totalNanoteslaPerYear\":\(fixed(sv.totalNanoteslaPerYear, 3))"
        s += ",\"gridVariationDegreesPerYear\":\(number(sv.gridVariationDegreesPerYear, 6))}"
        s += ",\"blackout\":\(e.blackout),\"caution\":\(e.caution),\"outsideValidity\":\(e.outsideValidity)}"
        return s
    }

    // MARK: - Batch

    /// Streams standard input to standard output, one output row per input line, in constant memory.
    func runBatch(_ model: WorldMagneticModel) throws {
        var batch = Batch(model: model)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n: Int
            do { n = try chunk.withUnsafeMutableBytes { try Syscall.read(0, into: $0) } } catch {
                try batch.flush()
                throw CommandFailure(SystemError("read", path: "standard input", (error as? Errno) ?? .ioError).description,
                                     code: Exit.ioError)
            }
            if n == 0 { break }
            try chunk.withUnsafeBufferPointer { p in try batch.feed(UnsafeBufferPointer(rebasing: p[0..<n])) }
        }
        batch.finish()
        try batch.flush()
        if batch.outsideValidityRows > 0 {
            printError("lodestar: warning: \(batch.outsideValidityRows) row(s) outside \(model.modelName)'s validity (\(fixed(model.validFrom, 1))–\(fixed(model.validUntil, 1))): values are extrapolated")
        }
        if batch.badRows > 0 {
            for message in batch.firstProblems { printError("lodestar: \(message)") }
            if batch.badRows > batch.firstProblems.count {
                printError("lodestar: … and \(batch.badRows - batch.firstProblems.count) more")
            }
            printError("lodestar: \(batch.badRows) of \(batch.rows) rows were bad (written as empty rows ',,,,,,,')")
            throw ExitCode(Exit.dataError)
        }
    }
}

extension Field {
    /// The batch state machine: splits lines across reads, evaluates each row, buffers output.
    struct Batch: ~Copyable {
        let model: WorldMagneticModel
        var out = ByteBuffer(capacity: 1 << 17)
        /// The current, unfinished line (bounded: a longer line is a bad row).
        var line: [UInt8] = []
        var lineTooLong = false
        var lineNumber = 0
        var rows = 0
        var badRows = 0
        var outsideValidityRows = 0
        var firstProblems: [String] = []

        static let maximumLineBytes = 1024
        static let header: StaticString = "D_deg,I_deg,H_nT,X_nT,Y_nT,Z_nT,F_nT,GV_deg\n"

        init(model: WorldMagneticModel) {
            self.model = model
            line.reserveCapacity(Self.maximumLineBytes)
        }

        mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) throws {
            for b in bytes {
                if b == 0x0A {
                    endLine()
                } else if line.count < Self.maximumLineBytes {
                    line.append(b)
                } else {
                    lineTooLong = true
                }
            }
            if out.count >= 1 << 16 { try flush() }
        }

        /// A last line without a newline still counts.
        mutating func finish() {
            if !line.isEmpty || lineTooLong { endLine() }
        }

        mutating func endLine() {
            lineNumber += 1
            if line.last == 0x0D { line.removeLast() }
            defer { line.removeAll(keepingCapacity: true); lineTooLong = false }
            if lineTooLong { return bad("line \(lineNumber): longer than \(Self.maximumLineBytes) bytes") }
            let fields = line.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map { field in
                var f = field[...]
                while let b = f.first, b == 0x20 || b == 0x09 { f = f.dropFirst() }
                while let b = f.last, b == 0x20 || b == 0x09 { f = f.dropLast() }
                return String(decoding: f, as: UTF8.self)
            }
            if lineNumber == 1, let first = fields.first, Double(first) == nil, Field.parseDate(first) == nil,
               first.utf8.contains(where: { ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") }) {
                out.append(Self.header)
                return
            }
            rows += 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return bad("line \(lineNumber): empty line") }
            guard fields.count == 4 else {
                return bad("line \(lineNumber): expected 4 fields decimal_year,lat_deg,lon_deg,height_km, got \(fields.count)")
            }
            guard let year = Field.parseDate(fields[0]) else {
                return bad("line \(lineNumber): date '\(fields[0])' is not a decimal year in 1900…2200 or YYYY-MM-DD")
            }
            guard let lat = Double(fields[1]), let lon = Double(fields[2]), let height = Double(fields[3]) else {
                return bad("line \(lineNumber): latitude, longitude and height must be numbers")
            }
            if let problem = Field.rangeProblem(latitude: lat, longitude: lon, height: height) {
                return bad("line \(lineNumber): \(problem)")
            }
            let e = model.field(latitudeDegrees: lat, longitudeDegrees: lon, heightAboveEllipsoidKilometers: height, decimalYear: year)
            if e.outsideValidity { outsideValidityRows += 1 }
            append(e.declinationDegrees, 4); out.append(0x2C)
            append(e.inclinationDegrees, 4); out.append(0x2C)
            append(e.horizontalNanotesla, 1); out.append(0x2C)
            append(e.northNanotesla, 1); out.append(0x2C)
            append(e.eastNanotesla, 1); out.append(0x2C)
            append(e.downNanotesla, 1); out.append(0x2C)
            append(e.totalNanotesla, 1); out.append(0x2C)
            if let gv = e.gridVariationDegrees { append(gv, 4) }
            out.append(0x0A)
        }

        /// A number, or an empty field if it is not finite (CSV has no null).
        mutating func append(_ v: Double, _ decimals: Int) {
            if v.isFinite { out.appendFixed(v, decimals: decimals) }
        }

        mutating func bad(_ message: String) {
            badRows += 1
            if firstProblems.count < 10 { firstProblems.append(message) }
            out.append(",,,,,,,\n")
        }

        mutating func flush() throws {
            var failed = false
            out.withBytes { p in
                do throws(Errno) { try Syscall.writeFully(1, UnsafeRawBufferPointer(p)) } catch { failed = true }
            }
            out.removeAll()
            if failed { throw CommandFailure("standard output: write failed (errno \(errno))", code: Exit.ioError) }
        }
    }
}

/// `value` with exactly `decimals` places (no "-0.0").
private func fixed(_ value: Double, _ decimals: Int) -> String {
    var b = ByteBuffer(capacity: 64)
    b.appendFixed(value, decimals: decimals)
    return String(decoding: b.array, as: UTF8.self)
}

/// Pads to `width` characters (counting Unicode scalars, so "°" is one).
private func pad(_ s: String, _ width: Int, left: Bool = false) -> String {
    let n = s.unicodeScalars.count
    guard n < width else { return s }
    let spaces = String(repeating: " ", count: width - n)
    return left ? spaces + s : s + spaces
}
