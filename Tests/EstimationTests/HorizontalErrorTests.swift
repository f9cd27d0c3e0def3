import Estimation
import Testing

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
