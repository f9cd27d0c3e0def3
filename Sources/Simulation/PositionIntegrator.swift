#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// East/north position by integrating the velocity on a fixed 10 ms grid (Simpson's rule), so positions do not
/// depend on which times are asked for. Queries must not go backwards.
struct PositionIntegrator {
    let route: SimulatedRoute
    static let step = 0.01
    private var node = 0
    private var east = 0.0, north = 0.0

    init(route: SimulatedRoute) { self.route = route }

    private func velocity(_ t: Double) -> (Double, Double) {
        let k = route.kinematics(at: t)
        let psi = k.headingDegrees * Double.pi / 180
        return (k.speed * sin(psi), k.speed * cos(psi))
    }

    private func simpson(from a: Double, length h: Double) -> (Double, Double) {
        let (e0, n0) = velocity(a), (em, nm) = velocity(a + h / 2), (e1, n1) = velocity(a + h)
        return (h / 6 * (e0 + 4 * em + e1), h / 6 * (n0 + 4 * nm + n1))
    }

    mutating func position(at t: Double) -> (east: Double, north: Double) {
        while Double(node + 1) * Self.step <= t {
            let (de, dn) = simpson(from: Double(node) * Self.step, length: Self.step)
            east += de; north += dn; node += 1
        }
        let rest = t - Double(node) * Self.step
        guard rest > 0 else { return (east, north) }
        let (de, dn) = simpson(from: Double(node) * Self.step, length: rest)
        return (east + de, north + dn)
    }
}
