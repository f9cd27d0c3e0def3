import Foundation
import LocationCore
import Magnetics
import Testing
import TestSupport
@testable import Capture
@testable import Simulation

/// The vehicle heading against the simulator's truth (`SimulatedTruth`), per magnetometer sample.
/// "Done" (issue 14): after 120 s and outside the interference window ± 10 s, ≥ 90 % valid, true-heading
/// RMSE ≤ 2°, ≥ 95 % of valid samples within their accuracy; interference flagged within 1 s of its start and
/// cleared within 2 s of its end. No calibration file, no gyroscope unless the scenario says so.
@Suite("Vehicle heading against the simulator's truth", .ownThreads)
struct VehicleHeadingTests {
    static func drive(seed: UInt64 = 1, duration: Double = 300, _ change: (inout RouteSimulator.Settings) -> Void = { _ in })
        -> RouteSimulator.Settings {
        var s = RouteSimulator.Settings.default
        s.seed = seed
        s.durationSeconds = duration
        change(&s)
        return s
    }

    /// The simulator's field replaced by the WMM's at a place (and the drive moved there).
    static func at(_ lat: Double, _ lon: Double) -> (inout RouteSimulator.Settings) -> Void {
        { s in
            s.originLatitudeDegrees = lat; s.originLongitudeDegrees = lon
            s.earthFieldNEDMicrotesla = VehicleHeadingRun.wmmField(latitude: lat, longitude: lon)
        }
    }

    struct Scenario: CustomTestStringConvertible, Sendable {
        var name: String
        var settings: RouteSimulator.Settings
        var testDescription: String { name }
    }

    static let doneScenarios: [Scenario] = [
        Scenario(name: "shipped drive, seed 1, 300 s", settings: drive()),
        Scenario(name: "seed 2, 300 s", settings: drive(seed: 2)),
        Scenario(name: "seed 3, 600 s", settings: drive(seed: 3, duration: 600)),
        Scenario(name: "seed 4, 900 s, interference at 500 s", settings: drive(seed: 4, duration: 900) {
            $0.interferenceStartSeconds = 500 }),
        Scenario(name: "seed 5, 450 s, horizontal disturbance", settings: drive(seed: 5, duration: 450) {
            $0.interferenceMicrotesla = Vector3(x: 25, y: -15, z: 0) }),
    ]

    @Test("done criteria", arguments: doneScenarios)
    func doneCriteria(_ scenario: Scenario) throws {
        let run = try VehicleHeadingRun.run(scenario.settings)
        let score = run.score()
        let everywhere = run.honestyEverywhere()
        let timing = run.interferenceTiming()
        print("\(scenario.name): \(score); everywhere \(everywhere); flag \(timing.flagDelay ?? -1) s, clear \(timing.clearDelay ?? -1) s; false flags \(run.falseFlagShare())")
        #expect(score.validShare >= 0.9, "\(score)")
        #expect(score.rmse <= 2, "\(score)")
        #expect(score.honestShare >= 0.95, "\(score)")
        #expect(everywhere.honestShare >= 0.95, "first seconds and interference included: \(everywhere)")
        let flag = try #require(timing.flagDelay)
        let clear = try #require(timing.clearDelay)
        #expect(flag <= 1, "flagged \(flag) s after the start")
        #expect(clear <= 2, "cleared \(clear) s after the end")
        #expect(run.falseFlagShare() <= 0.02, "undisturbed samples flagged: \(run.falseFlagShare())")
    }

    static let harderScenarios: [Scenario] = [
        Scenario(name: "gyroscope", settings: drive(seed: 6) { $0.gyroscope = true }),
        Scenario(name: "Tromsø, inclination 78°", settings: drive(seed: 7, at(69.65, 18.96))),
        Scenario(name: "Hobart, southern hemisphere, inclination −72°", settings: drive(seed: 8, at(-42.88, 147.33))),
        Scenario(name: "São Paulo, weak field (H 17 µT)", settings: drive(seed: 9, at(-23.55, -46.63))),
        Scenario(name: "hills 3° and a tilted, turned mount", settings: drive(seed: 10) {
            $0.hillAmplitudeDegrees = 3; $0.mountRollDegrees = 4; $0.mountPitchDegrees = -3; $0.mountYawDegrees = 12 }),
        Scenario(name: "hills, mount and gyroscope", settings: drive(seed: 11) {
            $0.hillAmplitudeDegrees = 3; $0.mountRollDegrees = 4; $0.mountPitchDegrees = -3; $0.mountYawDegrees = 12
            $0.gyroscope = true }),
        Scenario(name: "IMU 20 Hz, GNSS 5 Hz", settings: drive(seed: 12) { $0.imuRateHz = 20; $0.gnssRateHz = 5 }),
        Scenario(name: "IMU 100 Hz, other chip scales", settings: drive(seed: 13) {
            $0.imuRateHz = 100; $0.magnetometerScaleMicroteslaPerCount = 0.15; $0.magnetometerNoiseMicrotesla = 0.5 }),
        Scenario(name: "tunnel 240–270 s", settings: drive(seed: 14) { $0.gnssOutages = [(240, 30)] }),
        Scenario(name: "disturbance while stopped", settings: drive(seed: 15) {
            $0.interferenceStartSeconds = 140; $0.interferenceDurationSeconds = 10
            $0.interferenceMicrotesla = Vector3(x: 20, y: 12, z: 0) }),
        Scenario(name: "hard iron changes at 250 s", settings: drive(seed: 16, duration: 700) {
            $0.hardIronChangeSeconds = 250 }),
    ]

    @Test("harder conditions", arguments: harderScenarios)
    func harder(_ scenario: Scenario) throws {
        let run = try VehicleHeadingRun.run(scenario.settings)
        let score = run.score()
        let everywhere = run.honestyEverywhere()
        let timing = run.interferenceTiming()
        print("\(scenario.name): \(score); everywhere \(everywhere); flag \(timing.flagDelay ?? -1) s, clear \(timing.clearDelay ?? -1) s; false flags \(run.falseFlagShare()) \(run.estimator.status)")
        #expect(score.validShare >= 0.9, "\(score)")
        #expect(score.rmse <= 2, "\(score)")
        #expect(score.honestShare >= 0.95, "\(score)")
        #expect(everywhere.honestShare >= 0.95, "\(everywhere)")
        if let flag = timing.flagDelay, let clear = timing.clearDelay {
            #expect(flag <= 1 && clear <= 2, "flag \(flag) s, clear \(clear) s")
        } else {
            Issue.record("the disturbance was not flagged and cleared")
        }
    }
}


