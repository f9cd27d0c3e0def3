import Foundation
import Testing
import LocationCore
import TestSupport
@testable import Estimation

/// A run of fixes off the track that agree among themselves restarts the filter on them (a manoeuvre it missed, or a
/// new truth). When it was a multipath excursion and the fixes come back to the old track, the smoother goes back to
/// the track it had (`beforeRestart`) at the first such fix, instead of rejecting as many fixes again before a second
/// restart. A lasting shift is followed, never undone.
@Suite struct RestartUndoTests {
    static let frame = LocalTangentFrame(latitudeDegrees: 48.1, longitudeDegrees: 11.6)
    static let start = Timestamp(year: 2025, month: 3, day: 1, hour: 9)!

    /// 13 m/s east at 1 Hz for 200 s, 0.5 m of white noise per axis with an honest claim, speed and course on every
    /// fix; from 100 s on the positions (not the velocity) are `offset(k)` m north of the truth. Returns each output's
    /// error against the truth, and the smoother.
    static func drive(seed: UInt64, offset: (Int) -> Double) -> (errors: [Double], smoother: PositionSmoother) {
        var rng = SplitMix64(seed: seed)
        var smoother = PositionSmoother()
        var errors: [Double] = []
        for k in 0..<200 {
            let east = 13 * Double(k)
            let g = frame.geodetic(east: east + 0.5 * rng.gaussian(), north: offset(k) + 0.5 * rng.gaussian())
            var fix = Location()
            fix.time = start.adding(nanoseconds: Int64(k) * 1_000_000_000)
            fix.latitudeDegrees = g.latitudeDegrees; fix.longitudeDegrees = g.longitudeDegrees
            fix.mode = .threeD
            fix.horizontalAccuracyMeters = 0.5 * HorizontalError.radius68PerSigma
            fix.speedMetersPerSecond = 13 + 0.05 * rng.gaussian()
            fix.courseDegrees = 90 + 0.2 * rng.gaussian()
            let out = smoother.process(fix: fix)
            let p = frame.enu(latitudeDegrees: out.latitudeDegrees!, longitudeDegrees: out.longitudeDegrees!)
            errors.append(((p.east - east) * (p.east - east) + p.north * p.north).squareRoot())
        }
        return (errors, smoother)
    }

    /// A 5 s excursion 50 m north. The filter restarts on it at its last fix or before; the first fix back on the road
    /// takes the smoother back. Before, the next four fixes were rejected and held near the excursion (~50 m off).
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func aShortExcursionIsUndoneAtTheFirstFixBack(seed: UInt64) {
        let (errors, smoother) = Self.drive(seed: seed) { (100..<105).contains($0) ? 50 : 0 }
        #expect(smoother.restartsUndone == 1)
        let after = errors[105...]
        #expect(after.allSatisfy { $0 < 3 }, "after the excursion: \(Array(after.prefix(8)))")
    }

    /// The receiver's positions shift 50 m north for good at 100 s (a new truth as far as the fixes can tell): the
    /// smoother follows the shift after its restart and never goes back to the old track.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func aLastingShiftIsFollowed(seed: UInt64) {
        let (errors, smoother) = Self.drive(seed: seed) { $0 >= 100 ? 50 : 0 }
        #expect(smoother.restartsUndone == 0)
        // Against the shifted track: within 3 m from 110 s on.
        #expect(errors[110...].allSatisfy { abs($0 - 50) < 3 }, "\(Array(errors[100..<115]))")
    }
}
