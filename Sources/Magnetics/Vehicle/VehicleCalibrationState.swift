import LocationCore

/// What `VehicleHeadingEstimator` learned in motion, persisted so a restarted board starts calibrated
/// (`lodestar run --calibration-state FILE`). UTF-8 text, the first line the magic and version, then `key = value`
/// lines (blank lines and `#` comments ignored, unknown keys ignored), numbers in Swift's shortest round-trip form.
///
/// ```
/// lodestar-vehicle-calibration 1
/// reference_axis = 1, 0, 0          sensor axis whose levelled projection is the fit's x axis
/// mount_up = 0.001, -0.002, 1       the vehicle's up axis in the sensor frame
/// forward = 1, 0.0004, -0.001       the vehicle's forward axis in the sensor frame
/// hard_iron_xy_uT = 11.9, -8.1      planar hard iron (levelled frame of the reference axis)
/// field_matrix_uT = a11, a12, a21, a22    h = b + A (cos ψ, sin ψ), ψ the true heading
/// vertical_uT = -36.8               mean vertical component (up) and its spread
/// vertical_std_uT = 0.4
/// hard_iron_uT = 11.9, -8.1, 5.0    3-D hard iron, sensor frame: vertical from the WMM at the fit's place
/// declination_deg = 12.8            the WMM's declination where the fit was made (A includes it)
/// mounting_yaw_deg = 0.2            the sensor's yaw against the vehicle's forward axis
/// residual_deg = 2.1                quality: residual as a heading RMS, coverage (0…0.5), course pairs
/// coverage = 0.12
/// pairs = 220
/// location = 37.39, -122.08
/// ```
public struct VehicleCalibrationState: Sendable, Hashable {
    public var referenceAxis: Vector3
    public var mountUp: Vector3
    public var forward: Vector3
    public var solution: CourseMagnetometerFit.Solution
    public var hardIronMicrotesla: Vector3?
    public var declinationDegrees: Double?
    public var mountingYawDegrees: Double?
    public var residualDegrees: Double
    public var coverage: Double
    public var pairs: Int
    public var latitudeDegrees: Double?
    public var longitudeDegrees: Double?

    public static let magic = "lodestar-vehicle-calibration"

    public init(referenceAxis: Vector3, mountUp: Vector3, forward: Vector3, solution: CourseMagnetometerFit.Solution,
                hardIronMicrotesla: Vector3?, declinationDegrees: Double?, mountingYawDegrees: Double?,
                residualDegrees: Double, coverage: Double, pairs: Int, latitudeDegrees: Double?, longitudeDegrees: Double?) {
        self.referenceAxis = referenceAxis; self.mountUp = mountUp; self.forward = forward; self.solution = solution
        self.hardIronMicrotesla = hardIronMicrotesla; self.declinationDegrees = declinationDegrees
        self.mountingYawDegrees = mountingYawDegrees; self.residualDegrees = residualDegrees; self.coverage = coverage
        self.pairs = pairs; self.latitudeDegrees = latitudeDegrees; self.longitudeDegrees = longitudeDegrees
    }

    public var text: String {
        func v(_ x: Vector3) -> String { "\(x.x), \(x.y), \(x.z)" }
        let s = solution
        var lines = [
            "\(Self.magic) 1",
            "reference_axis = \(v(referenceAxis))",
            "mount_up = \(v(mountUp))",
            "forward = \(v(forward))",
            "hard_iron_xy_uT = \(s.hardIron.x), \(s.hardIron.y)",
            "field_matrix_uT = \(s.a11), \(s.a12), \(s.a21), \(s.a22)",
            "vertical_uT = \(s.verticalMicrotesla)",
            "vertical_std_uT = \(s.verticalStdMicrotesla)",
            "residual_mean_square_uT2 = \(s.residualMeanSquare)",
        ]
        if let h = hardIronMicrotesla { lines.append("hard_iron_uT = \(v(h))") }
        if let d = declinationDegrees { lines.append("declination_deg = \(d)") }
        if let m = mountingYawDegrees { lines.append("mounting_yaw_deg = \(m)") }
        lines.append("residual_deg = \(residualDegrees)")
        lines.append("coverage = \(coverage)")
        lines.append("pairs = \(pairs)")
        if let lat = latitudeDegrees, let lon = longitudeDegrees { lines.append("location = \(lat), \(lon)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Parses a state file. Errors name the line or the missing key; never traps.
    public init(parsing text: String) throws(VehicleCalibrationStateError) {
        var values: [String: [Double]] = [:]
        var sawMagic = false
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: " \t\r")
            if line.isEmpty || line.hasPrefix("#") { continue }
            if !sawMagic {
                let parts = line.split(separator: " ")
                guard parts.count == 2, parts[0] == Self.magic else { throw .notAStateFile }
                guard parts[1] == "1" else { throw .unsupportedVersion(String(parts[1])) }
                sawMagic = true
                continue
            }
            guard let eq = line.firstIndex(of: "=") else { throw .badLine(index + 1, "expected key = value") }
            let key = line[..<eq].trimmingCharacters(in: " \t")
            let numbers = line[line.index(after: eq)...].split(separator: ",").map {
                Double($0.trimmingCharacters(in: " \t"))
            }
            guard !numbers.isEmpty, numbers.allSatisfy({ $0?.isFinite == true }) else {
                throw .badLine(index + 1, "\(key): expected comma-separated numbers")
            }
            values[key] = numbers.map { $0! }
        }
        guard sawMagic else { throw .notAStateFile }
        func vector(_ key: String, _ count: Int) throws(VehicleCalibrationStateError) -> [Double] {
            guard let v = values[key] else { throw .missingKey(key) }
            guard v.count == count else { throw .badValue(key, "expected \(count) numbers, found \(v.count)") }
            return v
        }
        func v3(_ key: String) throws(VehicleCalibrationStateError) -> Vector3 {
            let v = try vector(key, 3)
            return Vector3(x: v[0], y: v[1], z: v[2])
        }
        let b = try vector("hard_iron_xy_uT", 2), a = try vector("field_matrix_uT", 4)
        solution = CourseMagnetometerFit.Solution(
            hardIron: (b[0], b[1]), a11: a[0], a12: a[1], a21: a[2], a22: a[3],
            residualMeanSquare: values["residual_mean_square_uT2"]?.first ?? 0,
            verticalMicrotesla: try vector("vertical_uT", 1)[0],
            verticalStdMicrotesla: values["vertical_std_uT"]?.first ?? 0)
        guard solution.isUsable else { throw .badValue("field_matrix_uT", "not a usable calibration (singular or mirrored)") }
        referenceAxis = try v3("reference_axis")
        mountUp = try v3("mount_up")
        forward = try v3("forward")
        guard referenceAxis.norm > 0.5, mountUp.norm > 0.5, forward.norm > 0.5 else {
            throw .badValue("reference_axis/mount_up/forward", "expected unit vectors")
        }
        hardIronMicrotesla = values["hard_iron_uT"].flatMap { $0.count == 3 ? Vector3(x: $0[0], y: $0[1], z: $0[2]) : nil }
        declinationDegrees = values["declination_deg"]?.first
        mountingYawDegrees = values["mounting_yaw_deg"]?.first
        residualDegrees = values["residual_deg"]?.first ?? 5
        coverage = values["coverage"]?.first ?? 0
        pairs = Int(values["pairs"]?.first ?? 0)
        if let l = values["location"], l.count == 2 { latitudeDegrees = l[0]; longitudeDegrees = l[1] }
    }
}

public enum VehicleCalibrationStateError: Error, Sendable, Hashable, CustomStringConvertible {
    case notAStateFile
    case unsupportedVersion(String)
    case badLine(Int, String)
    case missingKey(String)
    case badValue(String, String)

    public var description: String {
        switch self {
        case .notAStateFile: "not a vehicle calibration state file (first line must be '\(VehicleCalibrationState.magic) 1')"
        case .unsupportedVersion(let v): "unsupported vehicle calibration state version '\(v)' (this build reads version 1)"
        case .badLine(let n, let why): "line \(n): \(why)"
        case .missingKey(let k): "the vehicle calibration state has no '\(k)' line"
        case .badValue(let k, let why): "\(k): \(why)"
        }
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
