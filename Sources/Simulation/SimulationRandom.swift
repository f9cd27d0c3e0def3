#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// xoshiro256** (Blackman & Vigna) seeded through SplitMix64, with Box–Muller normals. Each use (GNSS, IMU, sky)
/// has its own stream so changing, say, the IMU rate leaves the GNSS noise untouched.
struct SimulationRandom {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64
    private var spare: Double?

    init(seed: UInt64, stream: UInt64) {
        var seeder = SplitMix64(state: seed &+ stream &* 0xD1B5_4A32_D192_ED03)
        s0 = seeder.next(); s1 = seeder.next(); s2 = seeder.next(); s3 = seeder.next()
        if s0 | s1 | s2 | s3 == 0 { s0 = 1 }
    }

    mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }

    /// Uniform in [0, 1).
    mutating func uniform() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Standard normal (Box–Muller; the second value of each pair is kept for the next call).
    mutating func normal() -> Double {
        if let v = spare { spare = nil; return v }
        let u1 = 1 - uniform() // (0, 1]
        let u2 = uniform()
        let r = (-2 * log(u1)).squareRoot()
        let theta = 2 * Double.pi * u2
        spare = r * sin(theta)
        return r * cos(theta)
    }
}
