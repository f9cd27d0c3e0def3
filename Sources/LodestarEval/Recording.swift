#if canImport(Glibc)
import Glibc
#endif
import Capture
import LocationCore

/// One recording: its sensor events (through the project's own IMU CSV reader) and, for BROAD trials, the
/// motion-capture truth (q_w…q_z: orientation sensor → ENU; NaN in marker dropouts) by row.
struct Recording {
    var name: String
    var path: String
    var events: [SensorEvent] = []
    /// Row times (t_s) and, per row, the truth quaternion (w, x, y, z) when the file has one and it is finite.
    var times: [Double] = []
    var truth: [(w: Double, x: Double, y: Double, z: Double)?] = []
    var fields: [Vector3] = []
    var hasTruth = false

    init(name: String, path: String) throws {
        self.name = name
        self.path = path
        let reader = try IMUCSVReader(path: path)
        while let e = try reader.next() { events.append(e) }
        try readTruth()
    }

    /// A second, independent pass over the CSV for the columns the reader ignores (the truth).
    private mutating func readTruth() throws {
        guard let file = fopen(path, "r") else { throw EvalError.cannotOpen(path) }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        var columns: [String: Int] = [:]
        var first = true
        while getline(&line, &capacity, file) > 0 {
            guard let line else { break }
            let text = String(cString: line)
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: " \r\n\"")
            }
            if first {
                first = false
                for (i, p) in parts.enumerated() { columns[p.lowercased()] = i }
                hasTruth = ["q_w", "q_x", "q_y", "q_z"].allSatisfy { columns[$0] != nil }
                continue
            }
            func value(_ name: String) -> Double? {
                guard let i = columns[name], i < parts.count else { return nil }
                return parts[i].withCString { strtod($0, nil) }
            }
            guard let t = value("t_s") ?? value("time (s)") else { continue }
            times.append(t)
            if let mx = value("mag_x"), let my = value("mag_y"), let mz = value("mag_z") {
                fields.append(Vector3(x: mx, y: my, z: mz))
            } else {
                fields.append(.zero)
            }
            if hasTruth, let w = value("q_w"), let x = value("q_x"), let y = value("q_y"), let z = value("q_z"),
               w.isFinite, x.isFinite, y.isFinite, z.isFinite {
                truth.append((w, x, y, z))
            } else {
                truth.append(nil)
            }
        }
    }
}

enum EvalError: Error, CustomStringConvertible {
    case cannotOpen(String)
    var description: String {
        switch self {
        case .cannotOpen(let p): "cannot open \(p)"
        }
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var s = self
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}

/// Truth geometry: the sensor x axis in ENU from the quaternion (sensor → ENU).
func truthAxis(_ q: (w: Double, x: Double, y: Double, z: Double)) -> Vector3 {
    let (w, x, y, z) = q
    return Vector3(x: 1 - 2 * (y * y + z * z), y: 2 * (x * y + w * z), z: 2 * (x * z - w * y))
}

/// Sensor → ENU rotation of a vector.
func truthRotate(_ q: (w: Double, x: Double, y: Double, z: Double), _ v: Vector3) -> Vector3 {
    let (w, x, y, z) = q
    let r0 = Vector3(x: 1 - 2 * (y * y + z * z), y: 2 * (x * y - w * z), z: 2 * (x * z + w * y))
    let r1 = Vector3(x: 2 * (x * y + w * z), y: 1 - 2 * (x * x + z * z), z: 2 * (y * z - w * x))
    let r2 = Vector3(x: 2 * (x * z - w * y), y: 2 * (y * z + w * x), z: 1 - 2 * (x * x + y * y))
    return Vector3(x: r0.dot(v), y: r1.dot(v), z: r2.dot(v))
}
