import Events
import LocationCore
import Pipeline
import Testing
import TestSupport

@Suite("Availability stage", .ownThreads)
struct AvailabilityStageTests {
    @Test func statusSequenceGivesAvailabilityChangesAndHeadingLoss() {
        var stage = AvailabilityStage(settings: .init(headingSourceNames: ["imu0"], locationSourceNames: ["gps0"]))
        func note(_ source: String, _ state: StatusReport.State) -> AvailabilityStage.Outcome {
            stage.note(StatusReport(source: source, state: state))
        }
        #expect(note("gps0", .starting) == .init())
        var o = note("gps0", .available)
        #expect(o.availability?.locationServicesEnabled == true && o.availability?.headingAvailable == false)
        o = note("imu0", .available)
        #expect(o.availability?.headingAvailable == true && !o.headingSourceLost)
        o = note("imu0", .available)
        #expect(o.availability == nil) // no change, nothing announced
        o = note("imu0", .unavailable)
        #expect(o.headingSourceLost && o.availability?.headingAvailable == false)
        o = note("gps0", .unavailable)
        #expect(!o.headingSourceLost && o.availability?.locationServicesEnabled == false)
        #expect(stage.snapshot.sourceAvailable == ["gps0": false, "imu0": false])
    }

    @Test func pipelineSnapshotReportsTheStages() {
        var settings = Pipeline.Settings()
        settings.availability.headingSourceNames = ["imu0"]
        settings.availability.locationSourceNames = ["gps0"]
        let p = Pipeline(settings: settings, encoder: LodestarJSONEncoder(), sinks: [])
        p.process(SensorEvent(monotonicNanos: 1, sourceID: 0, payload: .status(StatusReport(source: "gps0", state: .available))))
        let s = p.snapshot
        #expect(s.eventsProcessed == 1)
        #expect(s.availability.locationServicesEnabled == true)
        #expect(s.availability.headingAvailable == false)
    }
}
