import LocationCore

/// Payloads of the `S` (status) and `F` (external fix) records: text that round-trips exactly, so a replayed
/// status or gpsd fix is the value the live session processed.
extension LodestarCapture {
    /// `S` payload: `<state> <name>[ <message>]`, the name and message escaped like `N` payloads with a space as
    /// `\x20`. Version 1 captures written before this form carry `<state>[: <message>]` (read as the header's name).
    public static func statusPayload(_ s: StatusReport) -> [UInt8] {
        var out = Array(s.state.rawValue.utf8)
        out.append(0x20)
        escapeWord(s.source.utf8, into: &out)
        if let m = s.message {
            out.append(0x20)
            escapeWord(m.utf8, into: &out)
        }
        return out
    }

    /// Parses an `S` payload; `defaultName` is the header's name of the record's source (old form).
    public static func status(from payload: UnsafeBufferPointer<UInt8>, defaultName: String) -> StatusReport? {
        let words = payload.split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
        guard let first = words.first else { return nil }
        let stateText = String(decoding: first, as: UTF8.self)
        if let state = StatusReport.State(rawValue: stateText) {
            var name = defaultName
            var message: String?
            if words.count > 1 {
                guard let n = unescapeWord(words[1]) else { return nil }
                name = n
            }
            if words.count > 2 {
                guard let m = unescapeWord(words[2]) else { return nil }
                message = m
            }
            return StatusReport(source: name, state: state, message: message)
        }
        // Old form: "state: message" (free text after the colon).
        guard stateText.hasSuffix(":"), let state = StatusReport.State(rawValue: String(stateText.dropLast())) else { return nil }
        let rest = String(decoding: payload.dropFirst(first.count + 1), as: UTF8.self)
        return StatusReport(source: defaultName, state: state, message: rest.isEmpty ? nil : rest)
    }

    private static func escapeWord(_ bytes: some Sequence<UInt8>, into out: inout [UInt8]) {
        var escaped: [UInt8] = []
        escape(bytes, into: &escaped)
        for b in escaped {
            if b == 0x20 { out += Array("\\x20".utf8) } else { out.append(b) }
        }
    }

    private static func unescapeWord(_ bytes: some Sequence<UInt8>) -> String? {
        let bytes = Array(bytes)
        return bytes.withUnsafeBufferPointer { unescape($0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    // MARK: External fixes

    /// `F` payload: `<provider> key=value …` with every non-nil field of the location; numbers in Swift's
    /// shortest round-trip form, so the replayed fix is bit-identical.
    public static func fixPayload(_ fix: ExternalFix) -> [UInt8] {
        let l = fix.location
        var parts: [String] = []
        var provider: [UInt8] = []
        escapeWord(fix.provider.utf8, into: &provider)
        parts.append(String(decoding: provider, as: UTF8.self))
        if let t = l.time { parts.append("t=\(t.nanosecondsSince1970)") }
        parts.append("tfd=\(l.timeFractionDigits)")
        parts.append("mode=\(l.mode.rawValue)")
        parts.append("quality=\(l.quality.rawValue)")
        for (key, path) in doubleFields { if let v = l[keyPath: path] { parts.append("\(key)=\(v)") } }
        if let v = l.satellitesUsed { parts.append("used=\(v)") }
        if let v = l.satellitesVisible { parts.append("visible=\(v)") }
        if let v = l.dgpsStation { parts.append("dgps_station=\(v)") }
        if let v = l.isStationary { parts.append("stationary=\(v ? 1 : 0)") }
        if l.isSmoothed { parts.append("smoothed=1") }
        return Array(parts.joined(separator: " ").utf8)
    }

    public static func fix(from payload: UnsafeBufferPointer<UInt8>) -> ExternalFix? {
        let words = payload.split(separator: 0x20)
        guard let first = words.first, let provider = unescapeWord(first) else { return nil }
        var l = Location()
        for word in words.dropFirst() {
            guard let eq = word.firstIndex(of: 0x3D) else { return nil }
            let key = String(decoding: word[word.startIndex..<eq], as: UTF8.self)
            let value = String(decoding: word[(eq + 1)...], as: UTF8.self)
            if let path = doubleFieldsByKey[key] {
                guard let v = Double(value) else { return nil }
                l[keyPath: path] = v
                continue
            }
            guard let n = Int64(value) else { return nil }
            switch key {
            case "t": l.time = Timestamp(nanosecondsSince1970: n)
            case "tfd": l.timeFractionDigits = Int(n)
            case "mode": guard let m = FixMode(rawValue: Int(n)) else { return nil }; l.mode = m
            case "quality": guard let q = FixQuality(rawValue: Int(n)) else { return nil }; l.quality = q
            case "used": l.satellitesUsed = Int(n)
            case "visible": l.satellitesVisible = Int(n)
            case "dgps_station": l.dgpsStation = Int(n)
            case "stationary": l.isStationary = n != 0
            case "smoothed": l.isSmoothed = n != 0
            default: break // a later writer's field: ignored
            }
        }
        return ExternalFix(provider: provider, location: l)
    }

    nonisolated(unsafe) static let doubleFields: [(String, WritableKeyPath<Location, Double?>)] = [
        ("lat", \.latitudeDegrees), ("lon", \.longitudeDegrees), ("alt_msl", \.altitudeMSLMeters),
        ("alt_hae", \.altitudeEllipsoidMeters), ("geoid_sep", \.geoidSeparationMeters),
        ("h_acc", \.horizontalAccuracyMeters), ("v_acc", \.verticalAccuracyMeters),
        ("lat_err", \.latitudeErrorMeters), ("lon_err", \.longitudeErrorMeters), ("alt_err", \.altitudeErrorMeters),
        ("speed", \.speedMetersPerSecond), ("speed_acc", \.speedAccuracyMetersPerSecond),
        ("course", \.courseDegrees), ("course_acc", \.courseAccuracyDegrees), ("mag_var", \.magneticVariationDegrees),
        ("hdop", \.hdop), ("vdop", \.vdop), ("pdop", \.pdop), ("dgps_age", \.dgpsAgeSeconds),
        ("receiver_heading", \.receiverHeadingDegrees), ("receiver_heading_acc", \.receiverHeadingAccuracyDegrees),
    ]
    nonisolated(unsafe) static let doubleFieldsByKey = Dictionary(uniqueKeysWithValues: doubleFields.map { ($0.0, $0.1) })
}
