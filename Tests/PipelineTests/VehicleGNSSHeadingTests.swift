import Events
import Foundation
import LocationCore
import Magnetics
import Pipeline
import Testing
import TestSupport
@testable import Capture
@testable import Simulation

/// Issue 24 part 3: a dual-antenna receiver's true heading (HDT here; NAV-RELPOSNED's heading arrives the same
/// way, in `Location.receiverHeadingDegrees` with its accuracy). Without a magnetometer it is the heading, with the
/// receiver's accuracy; with one it calibrates the magnetometer (hard iron, mounting yaw) and the compass (and the
/// gyroscope) hold the heading while the second antenna has no fix. Scored against the simulator's truth.
@Suite("Vehicle heading with a GNSS (dual-antenna) heading", .ownThreads)
struct VehicleGNSSHeadingTests {
    struct Scenario: CustomTestStringConvertible, Sendable {
        var name: String
        var settings: RouteSimulator.Settings
        /// The antenna outage (no heading) to score separately.
        var outage: (start: Double, duration: Double)
        var maximumRMSEDegrees: Double
        var maximumOutageRMSEDegrees: Double
        var testDescription: String { name }
    }

    static func drive(seed: UInt64, sigma: Double, outage: (Double, Double), magnetometer: Bool, gyroscope: Bool,
                      _ change: (inout RouteSimulator.Settings) -> Void = { _ in }) -> RouteSimulator.Settings {
        VehicleHeadingTests.drive(seed: seed) {
            $0.dualAntennaHeadingSigmaDegrees = sigma
            $0.dualAntennaOutages = [(outage.0, outage.1)]
            $0.magnetometer = magnetometer
            $0.gyroscope = gyroscope
            change(&$0)
        }
    }

    static let scenarios: [Scenario] = [
        Scenario(name: "no magnetometer, σ 0.3°, outage 60–90 s", settings: drive(
            seed: 41, sigma: 0.3, outage: (60, 30), magnetometer: false, gyroscope: false),
            outage: (60, 30), maximumRMSEDegrees: 1, maximumOutageRMSEDegrees: 4),
        Scenario(name: "no magnetometer, gyroscope, σ 1°, outage 230–260 s", settings: drive(
            seed: 42, sigma: 1, outage: (230, 30), magnetometer: false, gyroscope: true),
            outage: (230, 30), maximumRMSEDegrees: 1, maximumOutageRMSEDegrees: 2),
        Scenario(name: "magnetometer, σ 0.3°, outage 230–260 s", settings: drive(
            seed: 43, sigma: 0.3, outage: (230, 30), magnetometer: true, gyroscope: false),
            outage: (230, 30), maximumRMSEDegrees: 1, maximumOutageRMSEDegrees: 2),
        Scenario(name: "magnetometer, σ 1°, outage through the stop 110–190 s", settings: drive(
            seed: 44, sigma: 1, outage: (110, 80), magnetometer: true, gyroscope: false),
            outage: (110, 80), maximumRMSEDegrees: 1.5, maximumOutageRMSEDegrees: 2),
        Scenario(name: "magnetometer and gyroscope, σ 0.5°, outage 230–260 s", settings: drive(
            seed: 45, sigma: 0.5, outage: (230, 30), magnetometer: true, gyroscope: true),
            outage: (230, 30), maximumRMSEDegrees: 1, maximumOutageRMSEDegrees: 1),
    ]

    @Test("RMSE, valid share and honesty, and through an antenna outage", arguments: scenarios)
    func gnssHeading(_ scenario: Scenario) throws {
        let run = try VehicleHeadingRun.run(scenario.settings)
        let all = run.score(after: 10, exclude: 10)
        let outage = run.score(after: scenario.outage.start, exclude: 10, until: scenario.outage.start + scenario.outage.duration)
        let outside = run.samples.filter {
            $0.seconds >= 10 && ($0.seconds < scenario.outage.start || $0.seconds >= scenario.outage.start + scenario.outage.duration) }
        let first = run.samples.first { $0.report.isValid }.map(\.seconds) ?? -1
        print("\(scenario.name): from 10 s \(all); outage \(outage); first valid at \(first) s; \(run.estimator.status)")
        #expect(all.validShare >= 0.95, "\(all)")
        #expect(all.rmse <= scenario.maximumRMSEDegrees, "\(all)")
        #expect(all.honestShare >= 0.95, "\(all)")
        #expect(outage.validShare >= 0.9, "outage: \(outage)")
        #expect(outage.rmse <= scenario.maximumOutageRMSEDegrees, "outage: \(outage)")
        #expect(outage.honestShare >= 0.95, "outage: \(outage)")
        #expect(!outside.isEmpty)
        #expect(first >= 0 && first < 2, "the receiver's heading is valid from its first epoch: \(first) s")
    }

    /// NAV-RELPOSNED's accHeading reaches the estimator as `receiverHeadingAccuracyDegrees`: without a
    /// magnetometer the accuracy follows it.
    @Test("the receiver's accuracy sets the heading's accuracy without a magnetometer")
    func receiverAccuracy() {
        func accuracy(claimed: Double?) -> Double {
            var e = VehicleHeadingEstimator()
            var last = -1.0
            for k in 0..<30 {
                var l = Location()
                l.mode = .threeD; l.latitudeDegrees = 47.4; l.longitudeDegrees = 8.5; l.speedMetersPerSecond = 0
                l.receiverHeadingDegrees = 123.4
                l.receiverHeadingAccuracyDegrees = claimed
                if let r = e.update(fix: l, monotonicNanos: Int64(k) * 1_000_000_000 + 1).report {
                    #expect(abs(Angle.differenceDegrees(r.trueHeadingDegrees ?? -1, 123.4)) < 0.01)
                    last = r.headingAccuracyDegrees
                }
            }
            return last
        }
        let precise = accuracy(claimed: 0.2), coarse = accuracy(claimed: 2), hdt = accuracy(claimed: nil)
        print("accuracy with accHeading 0.2°: \(precise)°, 2°: \(coarse)°, none (default σ): \(hdt)°")
        #expect(precise > 0 && precise < 1)
        #expect(coarse > precise && coarse < 5.5)
        #expect(hdt > precise && hdt < coarse)
    }

    /// Through the session pipeline (default settings, platform automatic): a drive with a heading receiver and no
    /// magnetometer gives `heading` events, valid, with the true heading, at the fixes.
    @Test("no magnetometer: the pipeline emits the receiver's heading as heading events")
    func pipelineHeadingEvents() throws {
        let sim = Self.drive(seed: 46, sigma: 0.5, outage: (100, 10), magnetometer: false, gyroscope: false)
        var settings = Pipeline.Settings()
        settings.heading.heading?.headingFilterDegrees = 0
        let pipeline = Pipeline(settings: settings, encoder: LodestarJSONEncoder(), sinks: [])
        var headings: [HeadingReport] = []
        pipeline.observer = { if case .heading(let r, _) = $0 { headings.append(r) } }
        try VehicleHeadingRun.withSimulatedCapture(sim) { reader in while let e = try reader.next() { pipeline.process(e) } }
        let truth = SimulatedTruth(settings: sim)
        let valid = headings.filter(\.isValid)
        var sumSquares = 0.0, honest = 0
        for r in valid {
            let e = Angle.differenceDegrees(r.trueHeadingDegrees ?? .nan, truth.headingDegrees(atSeconds: SimulatedTruth.seconds(monotonicNanos: r.monotonicNanos)))
            sumSquares += e * e
            if abs(e) <= r.headingAccuracyDegrees { honest += 1 }
        }
        let rmse = (sumSquares / Double(max(valid.count, 1))).squareRoot()
        print("pipeline, no magnetometer: \(headings.count) heading events, \(valid.count) valid, RMSE \(rmse)°, honest \(honest)")
        #expect(headings.count >= 250)
        #expect(Double(valid.count) >= 0.95 * Double(headings.count))
        #expect(rmse <= 1)
        #expect(Double(honest) >= 0.95 * Double(valid.count))
    }
}
