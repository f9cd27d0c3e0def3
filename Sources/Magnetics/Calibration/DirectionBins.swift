#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

/// Near-equal-area cells over the sphere of directions, for measuring how much of it a calibration saw.
///
/// The cell centres are a Fibonacci lattice (golden-angle spiral, equal steps in z, so every centre stands for
/// the same area by Archimedes' hat-box theorem); a direction belongs to the nearest centre. The Voronoi cells of
/// this lattice have areas within a few percent of 4π/N, which is all a coverage percentage needs.
public struct DirectionBins: Sendable, Hashable {
    /// Unit vectors of the cell centres.
    public let centers: [Vector3]

    /// The default 100 cells: each ≈ 413 deg² (a cap of ≈ 11.5° radius).
    public static let standard = DirectionBins(count: 100)

    public init(count: Int) {
        let n = max(count, 1)
        let golden = Double.pi * (3 - 5.0.squareRoot())
        centers = (0..<n).map { k in
            let z = 1 - (2 * Double(k) + 1) / Double(n)
            let r = max(0, 1 - z * z).squareRoot()
            let phi = golden * Double(k)
            return Vector3(x: r * cos(phi), y: r * sin(phi), z: z)
        }
    }

    public var count: Int { centers.count }

    /// The cell of a direction (need not be unit length); nil for the zero vector or non-finite input.
    ///
    /// Centres are ordered by z in steps of 2/N, and the nearest centre lies within the largest cell radius
    /// (< 0.35 rad for N ≥ 50, so within 0.35 in z): only the centres in that z window are compared, about a third
    /// of them for N = 100. `bruteForceBin(of:)` checks all (the tests compare both).
    public func bin(of direction: Vector3) -> Int? {
        guard direction.x.isFinite, direction.y.isFinite, direction.z.isFinite,
              direction.x != 0 || direction.y != 0 || direction.z != 0 else { return nil }
        let n = centers.count
        guard n >= 50 else { return bruteForceBin(of: direction) }
        let u = direction.normalized
        // z_k = 1 − (2k + 1)/n  ⇒  k = (n(1 − z) − 1)/2.
        let window = 0.35 * Double(n) / 2
        let k = (Double(n) * (1 - u.z) - 1) / 2
        let lo = max(0, Int((k - window).rounded(.down)))
        let hi = min(n - 1, Int((k + window).rounded(.up)))
        var best = lo
        var bestDot = -Double.infinity
        centers.withUnsafeBufferPointer { c in
            for i in lo...hi {
                let d = c[i].x * u.x + c[i].y * u.y + c[i].z * u.z
                if d > bestDot { bestDot = d; best = i }
            }
        }
        return best
    }

    /// The nearest centre by comparing all of them.
    func bruteForceBin(of direction: Vector3) -> Int? {
        guard direction.x.isFinite, direction.y.isFinite, direction.z.isFinite,
              direction.x != 0 || direction.y != 0 || direction.z != 0 else { return nil }
        var best = 0
        var bestDot = -Double.infinity
        for (i, c) in centers.enumerated() {
            let d = c.x * direction.x + c.y * direction.y + c.z * direction.z
            if d > bestDot { bestDot = d; best = i }
        }
        return best
    }

    /// Per-cell counts of `directions`.
    public func occupancy(_ directions: some Sequence<Vector3>) -> [Int] {
        var counts = [Int](repeating: 0, count: count)
        for d in directions { if let b = bin(of: d) { counts[b] += 1 } }
        return counts
    }

    /// Percentage of cells holding at least one of `directions`.
    public func coveragePercent(_ directions: some Sequence<Vector3>) -> Double {
        let occupied = occupancy(directions).filter { $0 > 0 }.count
        return 100 * Double(occupied) / Double(count)
    }
}
