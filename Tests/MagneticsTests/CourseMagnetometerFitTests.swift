import Foundation
import LocationCore
import Magnetics
import Testing

/// The course fit's estimate of its residuals' white part (`whiteResidualMeanSquare`): against the noise put into
/// synthetic pairs, and against a misfit the linear model cannot follow, which must stay out of it.
@Suite("Course–magnetometer fit: the residuals' white part")
struct CourseMagnetometerFitTests {
    /// A deterministic normal generator (splitmix64 and Box–Muller), so the bounds are reproducible.
    struct Normal {
        var state: UInt64
        mutating func next() -> Double {
            func u() -> Double {
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                z ^= z >> 31
                return (Double(z >> 11) + 0.5) / 9_007_199_254_740_992
            }
            return (-2 * log(u())).squareRoot() * cos(2 * Double.pi * u())
        }
    }

    /// Pairs at 1 Hz from a car turning slowly through 720° (0.8 °/s): field b + A·(cos ψ, sin ψ) in a 10.7 µT
    /// horizontal field, white noise σ per axis, plus `harmonic` µT of a second harmonic (cos 2ψ) that no
    /// b + A·(cos, sin) fits.
    static func fit(sigma: Double, harmonic: Double = 0, seed: UInt64) -> CourseMagnetometerFit {
        var f = CourseMagnetometerFit()
        var g = Normal(state: seed)
        let h = 10.7
        for k in 0..<900 {
            let psi = Double(k) * 0.8
            let a = psi * Double.pi / 180
            let x = 12 + h * cos(a) + harmonic * cos(2 * a) + sigma * g.next()
            let y = -8 + h * sin(a) + harmonic * sin(2 * a) + sigma * g.next()
            f.add(x: x, y: y, vertical: -25, headingDegrees: psi, weight: 1, forgetting: exp(-1.0 / 600))
        }
        return f
    }

    @Test(arguments: [0.1, 0.4, 1.2])
    func whiteNoiseIsMeasured(sigma: Double) throws {
        let f = Self.fit(sigma: sigma, seed: 7)
        let white = try #require(f.whiteResidualMeanSquare)
        let s = try #require(f.solve())
        // Both axes: 2σ². Within 15 % (about 600 effective pairs; the fit's own drift adds a little).
        #expect(abs(white / (2 * sigma * sigma) - 1) < 0.15, "white \(white) for σ \(sigma)")
        #expect(abs(s.residualMeanSquare / white - 1) < 0.15, "all of the residual is white: \(s.residualMeanSquare) vs \(white)")
    }

    @Test func aMisfitStaysOutOfTheWhitePart() throws {
        // 2 µT of second harmonic (≈ 11° of heading in this field) and 0.4 µT of noise.
        let f = Self.fit(sigma: 0.4, harmonic: 2, seed: 11)
        let white = try #require(f.whiteResidualMeanSquare)
        let s = try #require(f.solve())
        #expect(abs(white / (2 * 0.4 * 0.4) - 1) < 0.2, "white \(white)")
        // The residual holds the misfit (2² µT² on top of the noise); the white part does not.
        #expect(s.residualMeanSquare > white + 3, "residual \(s.residualMeanSquare), white \(white)")
    }

    @Test func aGapBreaksTheSuccession() throws {
        var f = CourseMagnetometerFit()
        #expect(f.whiteResidualMeanSquare == nil)
        for k in 0..<20 {
            let a = Double(k) * 10 * Double.pi / 180
            f.add(x: 10 * cos(a), y: 10 * sin(a), vertical: 0, headingDegrees: Double(k) * 10, weight: 1)
            f.interruptSuccession()
        }
        // No pair followed another: nothing measured.
        #expect(f.whiteResidualMeanSquare == nil)
    }
}
