#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

/// A unit quaternion rotating board-frame vectors into the local level frame used by the heading filter:
/// x magnetic north, y west, z up (NWU), so a level board facing magnetic north is the identity.
struct AttitudeQuaternion: Sendable, Hashable {
    var w: Double, x: Double, y: Double, z: Double

    static let identity = AttitudeQuaternion(w: 1, x: 0, y: 0, z: 0)

    @inline(__always)
    static func * (a: AttitudeQuaternion, b: AttitudeQuaternion) -> AttitudeQuaternion {
        AttitudeQuaternion(w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                           x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                           y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                           z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
    }

    @inline(__always)
    var normalized: AttitudeQuaternion {
        let n = (w * w + x * x + y * y + z * z).squareRoot()
        guard n > 0, n.isFinite else { return .identity }
        let s = 1 / n
        return AttitudeQuaternion(w: w * s, x: x * s, y: y * s, z: z * s)
    }

    /// The rotation for a small rotation vector `v` (radians), to second order: exact to ~θ⁴/384, i.e. 5e-7 for
    /// 7° (500 °/s at 71 Hz); the caller renormalises.
    @inline(__always)
    static func small(_ v: Vector3) -> AttitudeQuaternion {
        let t2 = v.x * v.x + v.y * v.y + v.z * v.z
        let c = 1 - t2 / 8
        let s = 0.5 * (1 - t2 / 24)
        return AttitudeQuaternion(w: c, x: v.x * s, y: v.y * s, z: v.z * s)
    }

    /// Rotation about the level frame's vertical (z, up) by `angle` radians, counter-clockwise seen from above.
    @inline(__always)
    static func aboutVertical(_ angle: Double) -> AttitudeQuaternion {
        let t2 = angle * angle
        if t2 < 0.01 {
            return AttitudeQuaternion(w: 1 - t2 / 8, x: 0, y: 0, z: 0.5 * angle * (1 - t2 / 24))
        }
        return AttitudeQuaternion(w: cos(angle / 2), x: 0, y: 0, z: sin(angle / 2))
    }

    /// Board → level rotation matrix.
    @inline(__always)
    var matrix: Matrix3 {
        let xx = x * x, yy = y * y, zz = z * z
        let xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z
        return Matrix3(r0: Vector3(x: 1 - 2 * (yy + zz), y: 2 * (xy - wz), z: 2 * (xz + wy)),
                       r1: Vector3(x: 2 * (xy + wz), y: 1 - 2 * (xx + zz), z: 2 * (yz - wx)),
                       r2: Vector3(x: 2 * (xz - wy), y: 2 * (yz + wx), z: 1 - 2 * (xx + yy)))
    }

    /// The level frame's up axis in board coordinates: the third row of `matrix`.
    @inline(__always)
    var upInBoard: Vector3 {
        Vector3(x: 2 * (x * z - w * y), y: 2 * (y * z + w * x), z: 1 - 2 * (x * x + y * y))
    }

    /// From a proper rotation matrix (Shepperd's method, stable for every rotation).
    init(matrix m: Matrix3) {
        let trace = m.r0.x + m.r1.y + m.r2.z
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            self.init(w: 0.25 * s, x: (m.r2.y - m.r1.z) / s, y: (m.r0.z - m.r2.x) / s, z: (m.r1.x - m.r0.y) / s)
        } else if m.r0.x > m.r1.y && m.r0.x > m.r2.z {
            let s = (1 + m.r0.x - m.r1.y - m.r2.z).squareRoot() * 2
            self.init(w: (m.r2.y - m.r1.z) / s, x: 0.25 * s, y: (m.r0.y + m.r1.x) / s, z: (m.r0.z + m.r2.x) / s)
        } else if m.r1.y > m.r2.z {
            let s = (1 + m.r1.y - m.r0.x - m.r2.z).squareRoot() * 2
            self.init(w: (m.r0.z - m.r2.x) / s, x: (m.r0.y + m.r1.x) / s, y: 0.25 * s, z: (m.r1.z + m.r2.y) / s)
        } else {
            let s = (1 + m.r2.z - m.r0.x - m.r1.y).squareRoot() * 2
            self.init(w: (m.r1.x - m.r0.y) / s, x: (m.r0.z + m.r2.x) / s, y: (m.r1.z + m.r2.y) / s, z: 0.25 * s)
        }
        self = normalized
    }

    init(w: Double, x: Double, y: Double, z: Double) { self.w = w; self.x = x; self.y = y; self.z = z }

    /// The attitude from gravity and the field alone (TRIAD): `up` is the accelerometer's specific force (it reads
    /// +g upwards at rest), `field` the magnetometer, both in the board frame. nil when they are (anti)parallel or zero.
    static func triad(up: Vector3, field: Vector3) -> AttitudeQuaternion? {
        triadMatrix(up: up, field: field).map { AttitudeQuaternion(matrix: $0) }
    }

    /// TRIAD as the board → level matrix: its rows are magnetic north, west and up seen from the board.
    @inline(__always)
    static func triadMatrix(up: Vector3, field: Vector3) -> Matrix3? {
        let un = up.length
        guard un > 0, un.isFinite else { return nil }
        let u = up.times(1 / un)
        let west = u.cross(field)
        let wn = west.length
        guard wn > 1e-9, wn.isFinite else { return nil }
        let wv = west.times(1 / wn)
        return Matrix3(r0: wv.cross(u), r1: wv, r2: u)
    }
}
