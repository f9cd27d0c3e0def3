import Estimation
import Foundation
import Testing
import TestSupport

@Suite struct HorizontalErrorTests {
    /// The written-out table is what the integration gives (the table is not recomputed at start-up).
    @Test func radiusTableMatchesTheIntegration() {
        #expect(HorizontalError.radiusTable.count == 65)
        for k in 0...64 {
            let r = Double(k) / 64
            let exact = HorizontalError.radius68Exact(pee: 1, pnn: r * r, pen: 0)
            #expect(abs(HorizontalError.radiusTable[k] - exact) < 1e-9, "k \(k): \(HorizontalError.radiusTable[k]) vs \(exact)")
        }
    }

    /// The held point's radius about an offset Gaussian: the table matches the integration, the tail form beyond 8 σ
    /// holds, and both agree with an independent truth: scipy's Rice quantile (`scipy.stats.rice.ppf(0.68, b)`: 1.5096
    /// at b = 0, 1.8703 at b = 1, 3.6216 at b = 3, 12.5086 at b = 12) and a Monte Carlo count.
    @Test func heldRadiusAboutAnOffset() {
        #expect(HorizontalError.offsetTable.count == 65)
        for k in 0...64 {
            let d = Double(k) / 8
            let exact = HorizontalError.radius68OffsetExact(offset: d, sigma: 1) - d
            #expect(abs(HorizontalError.offsetTable[k] - exact) < 2e-4, "k \(k): \(HorizontalError.offsetTable[k]) vs \(exact)")
        }
        for (b, rice) in [(0.0, 1.5096), (1.0, 1.8703), (3.0, 3.6216), (12.0, 12.5086)] {
            #expect(abs(HorizontalError.radius68(offset: 2 * b, sigma: 2) - 2 * rice) < 2 * 0.002, "b \(b)")
        }
        // Between table points and in the tail: within 0.2 % of the integration (interpolation < 0.1 %).
        for d in [0.37, 1.9, 5.55, 7.9, 9.3, 20.0] {
            let a = HorizontalError.radius68(offset: d, sigma: 1), e = HorizontalError.radius68OffsetExact(offset: d, sigma: 1)
            #expect(abs(a - e) < 0.002 * e, "d \(d): \(a) vs \(e)")
        }
        // Monte Carlo: a point 1.5 m from a circular Gaussian's centre (σ 1 m) has 68 % of its draws within the radius.
        var rng = SplitMix64(seed: 7)
        let r = HorizontalError.radius68(offset: 1.5, sigma: 1)
        var inside = 0
        let n = 200_000
        for _ in 0..<n {
            let x = rng.gaussian(), y = rng.gaussian()
            if ((x + 1.5) * (x + 1.5) + y * y).squareRoot() <= r { inside += 1 }
        }
        #expect(abs(Double(inside) / Double(n) - 0.68) < 0.005)
        // The bound it replaces: the mean's radius plus the offset.
        #expect(r < 1.5 + HorizontalError.radius68PerSigma)
    }

    /// Independent truth: a circular Gaussian holds 68 % within σ·√(−2 ln 0.32); a degenerate (1-D) one within
    /// 0.9945 σ (the normal distribution's 68 % two-sided quantile); any ellipse's radius lies between.
    @Test func radiusAgreesWithClosedForms() {
        #expect(abs(HorizontalError.radius68(pee: 4, pnn: 4, pen: 0) - 2 * 1.5095921854516634) < 1e-6)
        #expect(abs(HorizontalError.radius68(pee: 4, pnn: 0, pen: 0) - 2 * 0.994457883) < 2e-3)
        let rotated = HorizontalError.radius68(pee: 2.5, pnn: 2.5, pen: 1.5)   // λ = 4, 1
        let aligned = HorizontalError.radius68(pee: 4, pnn: 1, pen: 0)
        #expect(abs(rotated - aligned) < 1e-9)
        #expect(abs(aligned - HorizontalError.radius68Exact(pee: 4, pnn: 1, pen: 0)) < 1e-3 * aligned)
    }
}
