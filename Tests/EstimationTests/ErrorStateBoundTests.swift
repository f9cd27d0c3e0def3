import Foundation
import Testing
import LocationCore
import TestSupport
@testable import Estimation

/// Two guards found on a receiver no shared file has (a phone's GPS-only single-point solution from RTKLIB, GSDC 2021
/// MTV-1 Pixel 5, kept outside the project; docs/smoothing.md):
/// - the error state never holds more than its model allows on a moving fix (`PositionSmoother.boundErrorState`);
/// - covariance matching skips the 5 fixes right after a restart (`adaptTransient`).
@Suite struct ErrorStateBoundTests {
    static let frame = LocalTangentFrame(latitudeDegrees: 37.4, longitudeDegrees: -122.1)
    static let start = Timestamp(year: 2021, month: 4, day: 28, hour: 22)!

    /// The fix at second `k` of a drive east at 10 m/s, 3 m of white noise per axis with an honest claim, speed and
    /// course (0.1 m/s of noise), `north` m north of the road.
    static func fix(_ k: Int, _ rng: inout SplitMix64, north: Double = 0, claimFactor: Double = 1) -> Location {
        let g = frame.geodetic(east: 10 * Double(k) + 3 * rng.gaussian(), north: north + 3 * rng.gaussian())
        var fix = Location()
        fix.time = start.adding(nanoseconds: Int64(k) * 1_000_000_000)
        fix.latitudeDegrees = g.latitudeDegrees; fix.longitudeDegrees = g.longitudeDegrees
        fix.mode = .threeD
        fix.horizontalAccuracyMeters = 3 * claimFactor * HorizontalError.radius68PerSigma
        fix.speedMetersPerSecond = 10 + 0.1 * rng.gaussian()
        fix.courseDegrees = 90 + 0.5 * rng.gaussian()
        return fix
    }

    static func error(_ out: Location, _ k: Int, north: Double = 0) -> Double {
        let p = frame.enu(latitudeDegrees: out.latitudeDegrees!, longitudeDegrees: out.longitudeDegrees!)
        let de = p.east - 10 * Double(k), dn = p.north - north
        return (de * de + dn * dn).squareRoot()
    }

    /// The state the phone left after a stop: the filter's position 40 m east of the truth and its error state −40 m,
    /// so that it predicts the (good) fixes where they are. Within 3 fixes the output is back on the fixes (before:
    /// 30–40 m off for as long as the error state took to decay, τ = 60 s, or until a restart).
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func anErrorBeyondTheModelIsThePositions(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var smoother = PositionSmoother()
        for k in 0..<60 { _ = smoother.process(fix: Self.fix(k, &rng)) }
        #expect(smoother.errorStateBounds == 0)
        smoother.kf.x[0] += 40; smoother.kf.x[4] -= 40
        var errors: [Double] = []
        for k in 60..<90 { errors.append(Self.error(smoother.process(fix: Self.fix(k, &rng)), k)) }
        #expect(smoother.errorStateBounds >= 1)
        #expect(errors[3...].allSatisfy { $0 < 10 }, "\(errors.map { Int($0) })")
        #expect(abs(smoother.kf.x[4]) < 10, "error state east \(smoother.kf.x[4])")
    }

    /// A re-initialisation (the fixes moved 60 m north for good at 100 s): the adapted noise is kept while the new
    /// filter's covariance settles, for the 5 fixes of `restartTransientFixes` and then the start's own 20 (10 skipped,
    /// 10 to fill the running means), and moves again after them. Before, the means started again at the 11th fix,
    /// from its spread, and the noise moved from the 20th. The claim is twice the noise, so that the adapted scale is
    /// below its ceiling and moves with every fix it learns from.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func covarianceMatchingWaitsAfterARestart(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var smoother = PositionSmoother()
        var restartAt: Int?
        var scales: [Double] = []
        for k in 0..<200 {
            _ = smoother.process(fix: Self.fix(k, &rng, north: k >= 100 ? 60 : 0, claimFactor: 2))
            if restartAt == nil, smoother.lastOutcome == .reinitialised { restartAt = k }
            scales.append(smoother.adaptiveScale)
        }
        let r = try #require(restartAt)
        let kept = Array(scales[r..<(r + PositionSmoother.restartTransientFixes + 20)])
        #expect(kept.allSatisfy { $0 == kept[0] }, "\(kept)")
        #expect(scales[(r + PositionSmoother.restartTransientFixes + 20)...].contains { $0 != kept[0] })
    }
}
