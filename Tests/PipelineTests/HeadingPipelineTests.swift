import Events
import Glibc
import LocationCore
import Magnetics
import Pipeline
import Testing
import TestSupport

@Suite("Heading through the pipeline", .ownThreads)
struct HeadingPipelineTests {
    /// A level, still board with its x axis 30° east of magnetic north (field 20 µT horizontal, 40 µT down).
    static func samples(_ pipeline: Pipeline, seconds: Double, rateHz: Double = 50) {
        let h = 30.0 * .pi / 180
        // Board frame x forward, y left, z up: north = (cos h, sin h) rotated into the body (heading h east of north).
        let field = Vector3(x: 20 * cos(h), y: 20 * sin(h), z: -40)
        let n = Int(seconds * rateHz)
        for i in 0..<n {
            let t = Int64(Double(i) / rateHz * 1e9) + 1_000_000_000
            pipeline.process(SensorEvent(monotonicNanos: t, sourceID: 1,
                                         payload: .motion(.accelerometer(metersPerSecondSquared: Vector3(x: 0, y: 0, z: 9.81), biasMetersPerSecondSquared: nil))))
            pipeline.process(SensorEvent(monotonicNanos: t + 1000, sourceID: 1,
                                         payload: .motion(.magnetometer(fieldMicrotesla: field, biasMicrotesla: nil))))
        }
    }

    @Test func headingIsDeliveredAndAnUnavailableSensorMakesItInvalid() throws {
        var settings = Pipeline.Settings()
        settings.availability.headingSourceNames = ["imu0"]
        settings.availability.locationSourceNames = ["gps0"]
        let pipeline = Pipeline(settings: settings, encoder: LodestarJSONEncoder(), sinks: [])
        var headings: [HeadingReport] = []
        var availability: [(Bool, Bool)] = []
        pipeline.observer = { e in
            if case .heading(let h, _) = e { headings.append(h) }
            if case .availability(let l, let h) = e { availability.append((l, h)) }
        }
        pipeline.process(SensorEvent(sourceID: 1, payload: .status(StatusReport(source: "imu0", state: .available))))
        Self.samples(pipeline, seconds: 3)
        let valid = try #require(headings.last { $0.headingAccuracyDegrees >= 0 })
        // North lies 30° to the left (+y) of the board's x axis, so x points 30° east of magnetic north.
        #expect(abs(Angle.differenceDegrees(valid.magneticHeadingDegrees, 30)) < 1, "heading \(valid.magneticHeadingDegrees)")
        #expect(valid.trueHeadingDegrees == nil) // no position yet: trueHeading −1 on output
        pipeline.process(SensorEvent(sourceID: 1, payload: .status(StatusReport(source: "imu0", state: .unavailable, message: "I/O error"))))
        #expect(headings.last?.headingAccuracyDegrees == -1)
        #expect(availability.count == 2)
        #expect(availability.first.map { $0 == (false, true) } == true)
        #expect(availability.last.map { $0 == (false, false) } == true)
    }

    @Test func aFixGivesTheTrueHeadingFromTheWorldMagneticModel() throws {
        let pipeline = Pipeline(encoder: LodestarJSONEncoder(), sinks: [])
        var headings: [HeadingReport] = []
        pipeline.observer = { if case .heading(let h, _) = $0 { headings.append(h) } }
        var fix = Location()
        fix.latitudeDegrees = 37.3861
        fix.longitudeDegrees = -122.0839
        fix.mode = .twoD
        fix.time = Timestamp(year: 2025, month: 6, day: 1)
        // Through the input, as a receiver fix from another engine (the pipeline's output is private).
        pipeline.process(SensorEvent(sourceID: 0, payload: .fix(ExternalFix(provider: "GPS", location: fix))))
        Self.samples(pipeline, seconds: 3)
        let h = try #require(headings.last { $0.headingAccuracyDegrees >= 0 })
        let declination = try #require(h.declinationDegrees)
        let expected = WorldMagneticModel.wmm2025.field(latitudeDegrees: 37.3861, longitudeDegrees: -122.0839,
                                                        heightAboveEllipsoidKilometers: 0, decimalYear: 2025.414)
        #expect(abs(declination - expected.declinationDegrees) < 0.01)
        let trueHeading = try #require(h.trueHeadingDegrees)
        #expect(abs(Angle.differenceDegrees(trueHeading, h.magneticHeadingDegrees + declination)) < 1e-6)
    }
}
