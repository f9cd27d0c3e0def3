import LocationCore
import LocationServices

// Encodings of the location-services events (docs/services.md). Each encoder's switch calls one of these.

enum ServiceEncoding {
    /// A no-fix report at `time` (Core Location's locationUnavailable) as a fix event with mode "none".
    static func unavailableFix(_ time: Timestamp) -> Location {
        var l = Location()
        l.time = time
        l.mode = .noFix
        return l
    }

    /// Appends `line` (one `{…}\n` object) without its closing brace and newline, then `extra`, then `}\n`.
    static func appendExtending(_ line: borrowing ByteBuffer, _ out: inout ByteBuffer, _ extra: StaticString) {
        let bytes = line.array
        guard bytes.count >= 2, bytes[bytes.count - 2] == 0x7D, bytes[bytes.count - 1] == 0x0A else { out.append(bytes); return }
        out.append(Array(bytes[..<(bytes.count - 2)]))
        out.append(extra)
        out.append(0x7D); out.append(0x0A)
    }

    /// The common fields of region / visit / significant-change objects (after `class`).
    static func position(_ w: inout JSONWriter, _ out: inout ByteBuffer, _ l: Location) {
        w.number(&out, "latitudeDegrees", l.latitudeDegrees, decimals: 9)
        w.number(&out, "longitudeDegrees", l.longitudeDegrees, decimals: 9)
        w.number(&out, "horizontalAccuracyMeters", l.horizontalAccuracyMeters, decimals: 3)
    }

    static func date(_ w: inout JSONWriter, _ out: inout ByteBuffer, _ key: StaticString, _ t: Timestamp) {
        if t == .distantFuture { w.string(&out, key, "4001-01-01T00:00:00.000Z") }
        else if t == .distantPast { w.string(&out, key, "0001-01-01T00:00:00.000Z") }
        else { w.time(&out, key, t, fractionDigits: 3) }
    }

    /// Region, visit and significant-change objects; `device` for gpsd's optional device key.
    static func encodeNonFix(_ s: ServiceEvent, classes: (region: StaticString, visit: StaticString, significant: StaticString),
                             device: String?, crlf: Bool = false, into out: inout ByteBuffer) {
        var w = JSONWriter()
        let start = out.count
        switch s {
        case .significantChange(let c):
            w.begin(&out, class: classes.significant)
            if let device { w.string(&out, "device", device) }
            w.time(&out, "time", c.time, fractionDigits: 3)
            position(&w, &out, c.location)
            w.number(&out, "distanceMeters", c.distanceMeters, decimals: 1)
            w.end(&out)
        case .region(let e):
            w.begin(&out, class: classes.region)
            if let device { w.string(&out, "device", device) }
            w.time(&out, "time", e.time, fractionDigits: 3)
            w.string(&out, "identifier", e.identifier)
            w.string(&out, "event", e.kind.rawValue)
            w.string(&out, "previousState", e.previousState.rawValue)
            w.string(&out, "state", e.kind == .enter ? "inside" : "outside")
            position(&w, &out, e.location)
            w.number(&out, "distanceMeters", e.distanceMeters, decimals: 1)
            w.end(&out)
        case .visit(let v):
            w.begin(&out, class: classes.visit)
            if let device { w.string(&out, "device", device) }
            w.time(&out, "time", v.detectionDate, fractionDigits: 3)
            w.string(&out, "event", v.kind.rawValue)
            w.number(&out, "latitudeDegrees", v.coordinate.latitudeDegrees, decimals: 9)
            w.number(&out, "longitudeDegrees", v.coordinate.longitudeDegrees, decimals: 9)
            w.number(&out, "horizontalAccuracyMeters", v.horizontalAccuracyMeters, decimals: 3)
            date(&w, &out, "arrivalDate", v.arrivalDate)
            date(&w, &out, "departureDate", v.departureDate)
            w.end(&out)
        case .location, .batch, .heading:
            break
        }
        // gpsd's lines end in CR LF: turn the closing "}\n" into "}\r\n".
        if crlf, out.count > start { out.removeLast(); out.append(0x0D); out.append(0x0A) }
    }
}

extension LodestarJSONEncoder {
    mutating func encodeService(_ s: ServiceEvent, into out: inout ByteBuffer) {
        switch s {
        case .location(let u):
            if let l = u.location {
                guard u.accuracyLimited else { encode(.fix(l), into: &out); return }
                var line = ByteBuffer(capacity: 1024)
                encode(.fix(l), into: &line)
                ServiceEncoding.appendExtending(line, &out, ",\"accuracyLimited\":true")
            } else {
                encode(.fix(ServiceEncoding.unavailableFix(u.time)), into: &out)
            }
        case .batch(let b):
            var w = JSONWriter()
            w.begin(&out, class: "batch")
            w.time(&out, "time", b.locations.last?.time, fractionDigits: 3)
            w.string(&out, "reason", b.reason.rawValue)
            w.integer(&out, "count", b.locations.count)
            w.number(&out, "distanceMeters", b.distanceMeters, decimals: 1)
            w.number(&out, "durationSeconds", b.durationSeconds, decimals: 3)
            w.rawKey(&out, "fixes")
            out.append(0x5B)
            for (i, l) in b.locations.enumerated() {
                if i > 0 { out.append(0x2C) }
                var line = ByteBuffer(capacity: 1024)
                encode(.fix(l), into: &line)
                let bytes = line.array
                out.append(Array(bytes.dropLast()))   // without the newline
            }
            out.append(0x5D)
            w.end(&out)
        case .significantChange, .region, .visit:
            ServiceEncoding.encodeNonFix(s, classes: ("region", "visit", "significantChange"), device: nil, into: &out)
        case .heading:
            break
        }
    }
}

extension GpsdJSONEncoder {
    /// Delivered fixes as TPV, a batch as its TPVs back to back (one write), region/visit/significant change as
    /// extra classes REGION / VISIT / SIGCHANGE that gpsd clients skip (Lodestar JSON field names).
    mutating func encodeService(_ s: ServiceEvent, into out: inout ByteBuffer) {
        switch s {
        case .location(let u): encode(.fix(u.location ?? ServiceEncoding.unavailableFix(u.time)), into: &out)
        case .batch(let b): for l in b.locations { encode(.fix(l), into: &out) }
        case .significantChange, .region, .visit:
            ServiceEncoding.encodeNonFix(s, classes: ("REGION", "VISIT", "SIGCHANGE"), device: device, crlf: true, into: &out)
        case .heading: break
        }
    }
}

extension NMEAOutputEncoder {
    /// Delivered fixes as RMC+GGA (a batch as all of its fixes in one write); other service events have no NMEA form.
    mutating func encodeService(_ s: ServiceEvent, into out: inout ByteBuffer) {
        switch s {
        case .location(let u): if let l = u.location { encode(.fix(l), into: &out) }
        case .batch(let b): for l in b.locations { encode(.fix(l), into: &out) }
        case .significantChange, .region, .visit, .heading: break
        }
    }
}
