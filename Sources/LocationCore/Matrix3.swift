/// A 3×3 matrix, row-major (`m[row][column]` as `r0`, `r1`, `r2`).
public struct Matrix3: Sendable, Hashable {
    public var r0: Vector3
    public var r1: Vector3
    public var r2: Vector3

    public init(r0: Vector3, r1: Vector3, r2: Vector3) { self.r0 = r0; self.r1 = r1; self.r2 = r2 }

    public static let identity = Matrix3(r0: Vector3(x: 1, y: 0, z: 0), r1: Vector3(x: 0, y: 1, z: 0), r2: Vector3(x: 0, y: 0, z: 1))

    @inlinable
    public static func * (m: Matrix3, v: Vector3) -> Vector3 {
        Vector3(x: m.r0.x * v.x + m.r0.y * v.y + m.r0.z * v.z,
                y: m.r1.x * v.x + m.r1.y * v.y + m.r1.z * v.z,
                z: m.r2.x * v.x + m.r2.y * v.y + m.r2.z * v.z)
    }

    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        let c0 = Vector3(x: b.r0.x, y: b.r1.x, z: b.r2.x)
        let c1 = Vector3(x: b.r0.y, y: b.r1.y, z: b.r2.y)
        let c2 = Vector3(x: b.r0.z, y: b.r1.z, z: b.r2.z)
        func row(_ r: Vector3) -> Vector3 { Vector3(x: r.dot(c0), y: r.dot(c1), z: r.dot(c2)) }
        return Matrix3(r0: row(a.r0), r1: row(a.r1), r2: row(a.r2))
    }

    public var transposed: Matrix3 {
        Matrix3(r0: Vector3(x: r0.x, y: r1.x, z: r2.x), r1: Vector3(x: r0.y, y: r1.y, z: r2.y),
                r2: Vector3(x: r0.z, y: r1.z, z: r2.z))
    }

    public var determinant: Double {
        r0.x * (r1.y * r2.z - r1.z * r2.y) - r0.y * (r1.x * r2.z - r1.z * r2.x) + r0.z * (r1.x * r2.y - r1.y * r2.x)
    }
}

extension Vector3 {
    @inlinable public func dot(_ o: Vector3) -> Double { x * o.x + y * o.y + z * o.z }
    @inlinable public func cross(_ o: Vector3) -> Vector3 {
        Vector3(x: y * o.z - z * o.y, y: z * o.x - x * o.z, z: x * o.y - y * o.x)
    }
    @inlinable public var normalized: Vector3 { let n = norm; return n > 0 ? self * (1 / n) : self }
}
