import LocationCore

/// How the motion sensor sits on the board: the rotation from the sensor's axes to the board's axes.
///
/// The heading estimator works in the **board frame**: x forward (the axis whose heading is reported), y to the left,
/// z up, right-handed — the frame in which a level board at rest reads +g on z. A sensor soldered differently is
/// described by saying, for each board axis in order x, y, z, which signed sensor axis points that way:
///
/// - `"x,y,z"` — identity (the sensor's axes are the board's);
/// - `"-y,x,z"` — board x is the sensor's −y, board y is the sensor's +x, board z the sensor's +z
///   (a sensor turned 90° clockwise, seen from above);
/// - `"x,-y,-z"` — a sensor whose z points down (a north-east-down style part, or one mounted upside down).
///
/// The remap must be a rotation (right-handed): a spec that mirrors the frame (determinant −1) is rejected, because
/// a physical sensor cannot be mounted as its own mirror image and a mirrored frame reverses every heading.
/// The same mounting applies to the accelerometer, gyroscope and magnetometer; a chip whose magnetometer axes differ
/// from its accelerometer's (the AK8963 inside an MPU-9250) is aligned by its driver before events reach the core.
public struct SensorMounting: Sendable, Hashable, CustomStringConvertible {
    /// board = rotation × sensor.
    public let rotation: Matrix3

    public static let identity = SensorMounting(uncheckedRotation: .identity)

    private init(uncheckedRotation: Matrix3) { rotation = uncheckedRotation }

    /// A general mounting rotation (e.g. a board tilted by a few degrees), board = rotation × sensor.
    /// Returns nil unless `rotation` is orthonormal with determinant +1 (to 1e-6).
    public init?(rotation: Matrix3) {
        let p = rotation * rotation.transposed
        let rows = [p.r0 - Vector3(x: 1, y: 0, z: 0), p.r1 - Vector3(x: 0, y: 1, z: 0), p.r2 - Vector3(x: 0, y: 0, z: 1)]
        guard rows.allSatisfy({ $0.norm < 1e-6 }), abs(rotation.determinant - 1) < 1e-6 else { return nil }
        self.rotation = rotation
    }

    /// Parses an axis remap such as `"x,y,z"` or `"-y,x,z"` (case-insensitive, spaces allowed, `+` optional).
    public init(parsing spec: String) throws(SensorMountingError) {
        let parts = spec.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .wrongAxisCount(spec: spec, count: parts.count) }
        var rows: [Vector3] = []
        var used = Set<Character>()
        for part in parts {
            var text = Substring(part.lowercased()).drop { $0 == " " || $0 == "\t" }
            while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
            var sign = 1.0
            if let first = text.first, first == "-" || first == "+" {
                sign = first == "-" ? -1 : 1
                text = text.dropFirst()
            }
            guard text.count == 1, let axis = text.first, "xyz".contains(axis) else {
                throw .invalidAxis(spec: spec, axis: String(part))
            }
            guard used.insert(axis).inserted else { throw .repeatedAxis(spec: spec, axis: String(axis)) }
            switch axis {
            case "x": rows.append(Vector3(x: sign, y: 0, z: 0))
            case "y": rows.append(Vector3(x: 0, y: sign, z: 0))
            default: rows.append(Vector3(x: 0, y: 0, z: sign))
            }
        }
        let m = Matrix3(r0: rows[0], r1: rows[1], r2: rows[2])
        guard m.determinant > 0 else { throw .mirrored(spec: spec) }
        rotation = m
    }

    /// A sensor-frame vector expressed in the board frame.
    @inlinable
    public func boardVector(_ sensor: Vector3) -> Vector3 { rotation * sensor }

    /// The remap in the `"x,y,z"` notation when it is an axis permutation, else the matrix rows.
    public var description: String {
        func axis(_ r: Vector3) -> String? {
            let comps: [(Double, String)] = [(r.x, "x"), (r.y, "y"), (r.z, "z")]
            let nonzero = comps.filter { $0.0 != 0 }
            guard nonzero.count == 1, let (v, name) = nonzero.first, abs(v) == 1 else { return nil }
            return (v < 0 ? "-" : "") + name
        }
        if let a = axis(rotation.r0), let b = axis(rotation.r1), let c = axis(rotation.r2) { return "\(a),\(b),\(c)" }
        func row(_ r: Vector3) -> String { "[\(r.x), \(r.y), \(r.z)]" }
        return "[\(row(rotation.r0)), \(row(rotation.r1)), \(row(rotation.r2))]"
    }
}

/// Why a mounting spec was rejected.
public enum SensorMountingError: Error, Sendable, Hashable, CustomStringConvertible {
    case wrongAxisCount(spec: String, count: Int)
    case invalidAxis(spec: String, axis: String)
    case repeatedAxis(spec: String, axis: String)
    /// The remap mirrors the frame (determinant −1): e.g. `"y,x,z"`; use `"y,x,-z"` or `"-y,x,z"`.
    case mirrored(spec: String)

    public var description: String {
        switch self {
        case .wrongAxisCount(let spec, let count):
            "mounting \"\(spec)\": expected 3 comma-separated axes (e.g. \"x,y,z\" or \"-y,x,z\"), found \(count)"
        case .invalidAxis(let spec, let axis):
            "mounting \"\(spec)\": \"\(axis)\" is not an axis (x, y or z with an optional sign)"
        case .repeatedAxis(let spec, let axis):
            "mounting \"\(spec)\": sensor axis \(axis) is used twice"
        case .mirrored(let spec):
            "mounting \"\(spec)\" mirrors the frame (left-handed); flip the sign of one axis"
        }
    }
}
