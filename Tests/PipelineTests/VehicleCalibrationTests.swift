import Foundation
import LocationCore
import Magnetics
import Testing
import TestSupport
@testable import Capture

@Suite("Vehicle calibration learned in motion", .ownThreads)
struct VehicleCalibrationTests {
    @Test func hardIronAndMountingYawAreLearnedFromTheCourse() throws {
        // Sensor turned 12° clockwise and tilted; the simulator's hard iron is (12, −8, 5) µT in the sensor frame.
        let sim = VehicleHeadingTests.drive(seed: 21, duration: 400) {
            $0.mountYawDegrees = 12; $0.mountRollDegrees = 3; $0.mountPitchDegrees = -2; $0.hillAmplitudeDegrees = 2 }
        let run = try VehicleHeadingRun.run(sim)
        let yaw = try #require(run.estimator.mountingYawDegrees)
        #expect(abs(yaw - 12) < 1.5, "mounting yaw \(yaw)")
        let level = try VehicleHeadingRun.run(VehicleHeadingTests.drive(seed: 22, duration: 400))
        let b = try #require(level.estimator.hardIronMicrotesla)
        // Planar part from the fit, vertical from the WMM (the simulator's fixed field differs from it by ≈ 1 %).
        #expect(abs(b.x - 12) < 1 && abs(b.y + 8) < 1, "hard iron \(b)")
        #expect(abs(b.z - 5) < 2, "vertical hard iron \(b.z)")
        #expect(abs(try #require(level.estimator.mountingYawDegrees)) < 1.5)
    }

    @Test func stateFileRoundTripsAndRejectsBadInput() throws {
        let run = try VehicleHeadingRun.run(VehicleHeadingTests.drive(seed: 23, duration: 200))
        let state = try #require(run.estimator.calibrationState)
        let parsed = try VehicleCalibrationState(parsing: state.text)
        #expect(parsed == state)
        #expect(parsed.text == state.text)
        #expect(throws: VehicleCalibrationStateError.notAStateFile) { try VehicleCalibrationState(parsing: "hello\n") }
        #expect(throws: VehicleCalibrationStateError.unsupportedVersion("2")) {
            try VehicleCalibrationState(parsing: "lodestar-vehicle-calibration 2\n")
        }
        let broken = state.text.replacingOccurrences(of: "field_matrix_uT = ", with: "field_matrix_uT = 1, ")
        #expect(throws: (any Error).self) { try VehicleCalibrationState(parsing: broken) }
        let missing = state.text.split(separator: "\n").filter { !$0.hasPrefix("forward") }.joined(separator: "\n")
        #expect(throws: VehicleCalibrationStateError.missingKey("forward")) { try VehicleCalibrationState(parsing: missing) }
    }

    /// A restarted board: another drive (other seed, starting at another heading) with the saved state is valid
    /// and honest from its first seconds, before the course could have taught it anything.
    @Test func aRestartedBoardStartsCalibrated() throws {
        let first = try VehicleHeadingRun.run(VehicleHeadingTests.drive(seed: 24, duration: 300))
        let state = try VehicleCalibrationState(parsing: try #require(first.estimator.calibrationState).text)
        var estimator = VehicleHeadingEstimator()
        estimator.restore(state)
        let second = try VehicleHeadingRun.run(VehicleHeadingTests.drive(seed: 25, duration: 200) {
            $0.initialHeadingDegrees = 250; $0.stopStartSeconds = 100 }, estimator: estimator)
        let early = second.score(after: 0, exclude: -1e9, until: 12)  // parked, then pulling away: no course yet
        print("restarted, first 12 s: \(early); whole drive \(second.honestyEverywhere())")
        #expect(early.validShare >= 0.9, "\(early)")
        #expect(early.honestShare >= 0.95, "\(early)")
        #expect(early.rmse <= 3, "\(early)")
        let all = second.honestyEverywhere()
        #expect(all.honestShare >= 0.95 && all.validShare >= 0.9, "\(all)")
    }

    /// Without a state file the first minutes are honest too: invalid until the course observed the heading.
    @Test func aFreshBoardIsInvalidUntilItMoves() throws {
        let run = try VehicleHeadingRun.run(VehicleHeadingTests.drive(seed: 26, duration: 60))
        let parked = run.samples.filter { $0.seconds < 2 }
        #expect(!parked.isEmpty && parked.allSatisfy { !$0.report.isValid })
        let all = run.honestyEverywhere()
        #expect(all.honestShare >= 0.95, "\(all)")
    }
}
