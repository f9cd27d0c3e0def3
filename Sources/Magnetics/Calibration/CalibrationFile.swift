import LocationCore

/// A magnetometer calibration on disk: versioned UTF-8 text, one `key = value` per line (docs/calibration.md).
///
/// ```
/// lodestar-calibration 1
/// chip = LIS3MDL
/// hard_iron_uT = 12.02, -7.98, 0
/// soft_iron = 1, 0, 0, 0, 1, 0, 0, 0, 1
/// field_uT = 47.81
/// method = sphere
/// ```
/// Required: the first line, `hard_iron_uT`, `soft_iron`. Blank lines and `#` comments are ignored; unknown keys
/// are kept (in order) so a newer writer's additions survive a rewrite. Parsing is pure and never traps.
public struct CalibrationFile: Sendable, Hashable {
    public static let magic = "lodestar-calibration"
    public static let version = 1

    /// A geodetic position, degrees.
    public struct Location: Sendable, Hashable {
        public var latitudeDegrees: Double
        public var longitudeDegrees: Double
        public init(latitudeDegrees: Double, longitudeDegrees: Double) {
            self.latitudeDegrees = latitudeDegrees; self.longitudeDegrees = longitudeDegrees
        }
    }

    public var calibration: MagnetometerCalibration
    /// The chip (or source description) the calibration belongs to.
    public var chip: String?
    public var method: CalibrationMethod?
    public var residualStdMicrotesla: Double?
    public var coveragePercent: Double?
    public var sampleCount: Int?
    /// When it was made.
    public var created: Timestamp?
    /// Where it was made (selects the World Magnetic Model reference).
    public var location: Location?
    /// The World Magnetic Model's F at `location` when it was made, µT.
    public var referenceFieldMicrotesla: Double?
    /// Circle fits: the axis along which the hard iron is unknown (left 0).
    public var unobservableAxis: Vector3?
    /// Where the samples came from (a capture path, `live`).
    public var source: String?
    /// Keys this version does not know, in file order.
    public var otherFields: [Field] = []

    public struct Field: Sendable, Hashable {
        public var key: String
        public var value: String
        public init(key: String, value: String) { self.key = key; self.value = value }
    }

    public init(calibration: MagnetometerCalibration, chip: String? = nil, method: CalibrationMethod? = nil,
                residualStdMicrotesla: Double? = nil, coveragePercent: Double? = nil, sampleCount: Int? = nil,
                created: Timestamp? = nil, location: Location? = nil, referenceFieldMicrotesla: Double? = nil,
                unobservableAxis: Vector3? = nil, source: String? = nil) {
        self.calibration = calibration; self.chip = chip; self.method = method
        self.residualStdMicrotesla = residualStdMicrotesla; self.coveragePercent = coveragePercent
        self.sampleCount = sampleCount; self.created = created; self.location = location
        self.referenceFieldMicrotesla = referenceFieldMicrotesla; self.unobservableAxis = unobservableAxis
        self.source = source
    }

    /// A file describing a fit result.
    public init(result: CalibrationResult, chip: String? = nil, created: Timestamp? = nil, location: Location? = nil,
                source: String? = nil) {
        self.init(calibration: result.calibration, chip: chip, method: result.method,
                  residualStdMicrotesla: result.metrics.residualStdMicrotesla,
                  coveragePercent: result.metrics.coveragePercent, sampleCount: result.metrics.inlierCount,
                  created: created, location: location, referenceFieldMicrotesla: result.metrics.referenceTotalMicrotesla,
                  unobservableAxis: result.unobservableAxis, source: source)
    }

    // MARK: - Writing

    /// The file's text (ends with a newline). Numbers are written in Swift's shortest round-trip form, so reading
    /// the text back gives bit-identical values.
    public var text: String {
        var lines = ["\(Self.magic) \(Self.version)"]
        func put(_ key: String, _ value: String?) { if let value { lines.append("\(key) = \(value)") } }
        put("chip", chip.map(Self.singleLine))
        put("method", method?.rawValue)
        let h = calibration.hardIronMicrotesla
        put("hard_iron_uT", Self.list([h.x, h.y, h.z]))
        put("soft_iron", Self.list(calibration.softIron.rowMajor))
        put("field_uT", calibration.fieldMicrotesla.map { "\($0)" })
        put("residual_std_uT", residualStdMicrotesla.map { "\($0)" })
        put("coverage_percent", coveragePercent.map { "\($0)" })
        put("samples", sampleCount.map { "\($0)" })
        put("unobservable_axis", unobservableAxis.map { Self.list([$0.x, $0.y, $0.z]) })
        put("created", created?.iso8601(fractionDigits: 0))
        put("location", location.map { Self.list([$0.latitudeDegrees, $0.longitudeDegrees]) })
        put("reference_field_uT", referenceFieldMicrotesla.map { "\($0)" })
        put("source", source.map(Self.singleLine))
        for f in otherFields { put(f.key, Self.singleLine(f.value)) }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func list(_ values: [Double]) -> String { values.map { "\($0)" }.joined(separator: ", ") }
    private static func singleLine(_ s: String) -> String { String(s.filter { $0 != "\n" && $0 != "\r" }) }

    // MARK: - Reading

    /// Parses a calibration file's bytes.
    public init(bytes: [UInt8]) throws(CalibrationFileError) {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .notText }
        try self.init(parsing: text)
    }

    /// Parses a calibration file's text.
    public init(parsing text: String) throws(CalibrationFileError) {
        // Character-wise: "\r\n" is one Character (a newline), so CRLF files split like LF files.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        guard let first = lines.first(where: { !$0.allSatisfy(\.isWhitespace) }) else { throw .empty }
        let head = first.split(separator: " ", omittingEmptySubsequences: true)
        guard head.first.map(String.init) == Self.magic else {
            throw .notACalibrationFile(firstLine: String(first.prefix(60)))
        }
        guard head.count == 2, let version = Int(head[1]) else {
            throw .unsupportedVersion(String(head.dropFirst().joined(separator: " ").prefix(20)))
        }
        guard version == Self.version else { throw .unsupportedVersion(String(version)) }

        var values: [String: (value: String, line: Int)] = [:]
        var order: [String] = []
        var sawMagic = false
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            let line = raw.trimmingWhitespace
            if line.isEmpty || line.hasPrefix("#") { continue }
            if !sawMagic { sawMagic = true; continue }  // the magic line checked above
            guard let eq = line.firstIndex(of: "=") else {
                throw .malformedLine(line: number, text: String(line.prefix(60)))
            }
            let key = line[..<eq].trimmingWhitespace
            let value = line[line.index(after: eq)...].trimmingWhitespace
            guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw .malformedLine(line: number, text: String(line.prefix(60)))
            }
            if let previous = values[key] { throw .duplicateKey(key: key, line: number, firstLine: previous.line) }
            values[key] = (value, number)
            order.append(key)
        }

        func numbers(_ key: String, count: Int) throws(CalibrationFileError) -> [Double]? {
            guard let (value, line) = values[key] else { return nil }
            let parts = value.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingWhitespace }
            guard parts.count == count else {
                throw .invalidValue(key: key, line: line, reason: "expected \(count) comma-separated numbers, found \(parts.count)")
            }
            var out: [Double] = []
            for p in parts {
                guard let d = Double(p) else { throw .invalidValue(key: key, line: line, reason: "'\(p.prefix(30))' is not a number") }
                guard d.isFinite else { throw .invalidValue(key: key, line: line, reason: "'\(p.prefix(30))' is not finite") }
                out.append(d)
            }
            return out
        }
        func number(_ key: String, range: ClosedRange<Double>? = nil) throws(CalibrationFileError) -> Double? {
            guard let v = try numbers(key, count: 1)?.first else { return nil }
            if let range, !range.contains(v), let line = values[key]?.line {
                throw .invalidValue(key: key, line: line, reason: "\(v) is outside \(range.lowerBound)…\(range.upperBound)")
            }
            return v
        }

        guard let h = try numbers("hard_iron_uT", count: 3) else { throw .missingKey("hard_iron_uT") }
        guard let s = try numbers("soft_iron", count: 9) else { throw .missingKey("soft_iron") }
        let softIron = Matrix3(rowMajor: s)
        let det = softIron.determinant
        if !(det > 1e-6), let line = values["soft_iron"]?.line {
            throw .invalidValue(key: "soft_iron", line: line,
                                reason: "the matrix is singular or a reflection (determinant \(det))")
        }
        let field = try number("field_uT", range: 0.001...100_000)
        calibration = MagnetometerCalibration(hardIronMicrotesla: Vector3(x: h[0], y: h[1], z: h[2]), softIron: softIron,
                                              fieldMicrotesla: field)
        chip = values["chip"].map(\.value)
        source = values["source"].map(\.value)
        if let (m, line) = values["method"] {
            guard let parsed = CalibrationMethod(rawValue: m) else {
                throw .invalidValue(key: "method", line: line, reason: "'\(m.prefix(30))' is not one of "
                                    + CalibrationMethod.allCases.map(\.rawValue).joined(separator: ", "))
            }
            method = parsed
        }
        residualStdMicrotesla = try number("residual_std_uT", range: 0...100_000)
        coveragePercent = try number("coverage_percent", range: 0...100)
        if let (v, line) = values["samples"] {
            guard let n = Int(v), n >= 0 else { throw .invalidValue(key: "samples", line: line, reason: "'\(v.prefix(30))' is not a count") }
            sampleCount = n
        }
        if let a = try numbers("unobservable_axis", count: 3) {
            let axis = Vector3(x: a[0], y: a[1], z: a[2])
            if abs(axis.norm - 1) > 1e-3, let line = values["unobservable_axis"]?.line {
                throw .invalidValue(key: "unobservable_axis", line: line, reason: "not a unit vector")
            }
            unobservableAxis = axis
        }
        if let (v, line) = values["created"] {
            guard let t = Timestamp.parseISO8601(v) else {
                throw .invalidValue(key: "created", line: line, reason: "'\(v.prefix(40))' is not YYYY-MM-DDThh:mm:ssZ")
            }
            created = t
        }
        if let l = try numbers("location", count: 2), let line = values["location"]?.line {
            guard (-90...90).contains(l[0]), (-180...360).contains(l[1]) else {
                throw .invalidValue(key: "location", line: line, reason: "latitude must be −90…90 and longitude −180…360")
            }
            location = Location(latitudeDegrees: l[0], longitudeDegrees: l[1])
        }
        referenceFieldMicrotesla = try number("reference_field_uT", range: 0.001...100_000)
        otherFields = order.filter { !Self.knownKeys.contains($0) }.compactMap { k in
            values[k].map { Field(key: k, value: $0.value) }
        }
    }

    static let knownKeys: Set<String> = ["chip", "method", "hard_iron_uT", "soft_iron", "field_uT", "residual_std_uT",
                                         "coverage_percent", "samples", "unobservable_axis", "created", "location",
                                         "reference_field_uT", "source"]
}

/// Why a calibration file could not be read. Each description is one line naming the line and key at fault.
public enum CalibrationFileError: Error, Sendable, Hashable, CustomStringConvertible {
    case empty
    case notText
    case notACalibrationFile(firstLine: String)
    case unsupportedVersion(String)
    case malformedLine(line: Int, text: String)
    case duplicateKey(key: String, line: Int, firstLine: Int)
    case invalidValue(key: String, line: Int, reason: String)
    case missingKey(String)

    public var description: String {
        switch self {
        case .empty: "the calibration file is empty"
        case .notText: "the calibration file is not UTF-8 text"
        case .notACalibrationFile(let first):
            "not a Lodestar calibration file (the first line must be '\(CalibrationFile.magic) \(CalibrationFile.version)', found '\(first)')"
        case .unsupportedVersion(let v):
            "unsupported calibration file version '\(v)' (this build reads version \(CalibrationFile.version))"
        case .malformedLine(let line, let text): "line \(line): expected 'key = value', found '\(text)'"
        case .duplicateKey(let key, let line, let first): "line \(line): '\(key)' already given on line \(first)"
        case .invalidValue(let key, let line, let reason): "line \(line): \(key): \(reason)"
        case .missingKey(let key): "the calibration file has no '\(key)' line"
        }
    }
}

extension StringProtocol {
    fileprivate var trimmingWhitespace: String {
        guard let start = firstIndex(where: { !$0.isWhitespace }),
              let end = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[start...end])
    }
}
