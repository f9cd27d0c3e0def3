import LocationCore

/// Small math for the per-sample path, written to inline: LocationCore's `Vector3.norm` is not inlinable across
/// modules, and libm's atan2 (≈ 20–40 ns) would be most of the 200 ns budget of a heading update.
enum HeadingMath {
    static var degreesPerRadian: Double { 57.295779513082320876798 }
    static var radiansPerDegree: Double { 0.017453292519943295769237 }

    /// atan2 in degrees, within 1e-6° of libm's (|error| ≤ 1e-8 rad): a degree-8 polynomial in t² for atan(t) on
    /// [0, 1] and octant reduction. atan2(0, 0) = 0; NaN in, NaN out.
    @inline(__always)
    static func atan2Degrees(_ y: Double, _ x: Double) -> Double {
        let ax = abs(x), ay = abs(y)
        let big = max(ax, ay)
        guard big > 0 else { return (x.isNaN || y.isNaN) ? .nan : 0 }
        let t = min(ax, ay) / big
        let u = t * t
        var p = 0.0027508758303768431
        p = p * u - 0.015659736590646837
        p = p * u + 0.042000830383508603
        p = p * u - 0.074429674924881978
        p = p * u + 0.10610352379366764
        p = p * u - 0.14195185154057224
        p = p * u + 0.19991427181943264
        p = p * u - 0.33333004140674111
        p = p * u + 0.99999997592860224
        var r = t * p * degreesPerRadian
        if ay > ax { r = 90 - r }
        if x < 0 { r = 180 - r }
        return y < 0 ? -r : r
    }

    /// asin in degrees for |s| ≤ 1 (clamped), through atan2.
    @inline(__always)
    static func asinDegrees(_ s: Double) -> Double {
        let c = min(1, max(-1, s))
        return atan2Degrees(c, (max(0, 1 - c * c)).squareRoot())
    }

    /// Wraps into [0, 360) without fmod for the usual range (|d| < 720); falls back to `Angle` otherwise.
    @inline(__always)
    static func wrap360(_ d: Double) -> Double {
        guard abs(d) < 720 else { return Angle.normalizedDegrees(d) }
        var r = d
        if r < 0 { r += 360 }
        if r >= 360 { r -= 360 }
        if r < 0 { r += 360 }
        return r >= 360 ? 0 : r
    }

    /// Signed difference a − b in (−180, 180] without fmod for the usual range.
    @inline(__always)
    static func difference(_ a: Double, _ b: Double) -> Double {
        var d = a - b
        guard abs(d) < 540 else { return Angle.differenceDegrees(a, b) }
        if d > 180 { d -= 360 } else if d <= -180 { d += 360 }
        return d
    }
}

extension Vector3 {
    @inline(__always) var length: Double { (x * x + y * y + z * z).squareRoot() }
    @inline(__always) func plus(_ o: Vector3) -> Vector3 { var r = self; r.x += o.x; r.y += o.y; r.z += o.z; return r }
    @inline(__always) func minus(_ o: Vector3) -> Vector3 { var r = self; r.x -= o.x; r.y -= o.y; r.z -= o.z; return r }
    @inline(__always) func times(_ s: Double) -> Vector3 { var r = self; r.x *= s; r.y *= s; r.z *= s; return r }
    @inline(__always) var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }
}
