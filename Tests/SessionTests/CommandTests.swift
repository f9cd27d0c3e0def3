import Capture
import Devices
import Foundation
import LocationCore
import Magnetics
import NMEA
import Pipeline
import Session
import Testing
import TestSupport
@testable import lodestar

/// `replay` and `run` in-process: commands throw instead of exiting, so their failures are values here.
@Suite("Commands in-process", .ownThreads)
struct CommandTests {
    static let capture = SharedData.packageRoot.appendingPathComponent("captures/simulated-drive.lcap").path
    static func golden(_ name: String) throws -> String {
        try String(contentsOf: SharedData.packageRoot.appendingPathComponent("Tests/CLITests/Expected/\(name)"), encoding: .utf8)
    }

    @Test(arguments: [("json", "simulated-drive.jsonl"), ("gpsd", "simulated-drive.gpsd.jsonl"), ("nmea", "simulated-drive.nmea")])
    func replayInProcessPrintsTheGolden(format: String, golden: String) throws {
        let command = try Replay.parse(["--quiet", "--output", format, "--heading-filter", "5", Self.capture])
        let sink = MemorySink()
        try command.replay(sinks: [sink], fifo: nil, consumers: [])
        #expect(!sink.bytes.isEmpty)
        #expect(sink.text == (try Self.golden(golden)))
    }

    @Test func replayOfAMissingFileThrowsNoInput() throws {
        let command = try Replay.parse(["--quiet", "/nonexistent/drive.lcap"])
        #expect {
            try command.replay(sinks: [MemorySink()], fifo: nil, consumers: [])
        } throws: { error in
            guard let f = error as? CommandFailure else { return false }
            return f.code == Exit.noInput && f.message.contains("/nonexistent/drive.lcap")
        }
    }

    @Test func replayOfAnUnreadableCalibrationThrowsInsteadOfExiting() throws {
        let command = try Replay.parse(["--quiet", "--calibration", "/nonexistent/mag.cal", Self.capture])
        #expect(throws: CommandFailure.self) { try command.replay(sinks: [MemorySink()], fifo: nil, consumers: []) }
    }

    @Test func runWithoutSourcesIsAValidationError() throws {
        let command = try Run.parse(["--quiet"])
        #expect(throws: (any Error).self) { try command.run() }
    }

    @Test func runWithABadImuSpecIsAValidationError() throws {
        let command = try Run.parse(["--imu", "spi:0", "--quiet"])
        #expect(throws: (any Error).self) { try command.run() }
    }
}

@Suite("Capture records and session configuration", .ownThreads)
struct CaptureRecordTests {
    @Test func externalFixRoundTripsExactly() throws {
        var l = Location()
        l.time = Timestamp(nanosecondsSince1970: 1_748_779_200_123_000_000)
        l.timeFractionDigits = 3
        l.latitudeDegrees = 37.386_123_456_789_01
        l.longitudeDegrees = -122.083_9
        l.altitudeMSLMeters = 12.25
        l.altitudeEllipsoidMeters = -20.1
        l.mode = .threeD
        l.quality = .dgps
        l.horizontalAccuracyMeters = 0.1 + 0.2
        l.speedMetersPerSecond = 1e-300
        l.courseDegrees = 359.999_999_999
        l.satellitesUsed = 11
        l.satellitesVisible = 23
        l.isStationary = false
        let fix = ExternalFix(provider: "gpsd", location: l)
        let payload = LodestarCapture.fixPayload(fix)
        let back = payload.withUnsafeBufferPointer { LodestarCapture.fix(from: $0) }
        #expect(back == fix)
    }

    @Test(arguments: [
        StatusReport(source: "gps0", state: .unavailable, message: "read failed: hung up (the device went away)"),
        StatusReport(source: "imu 0", state: .recovered, message: "LIS3MDL at 0x1e\\on i2c-1"),
        StatusReport(source: "gps1", state: .starting),
    ])
    func statusRoundTrips(_ status: StatusReport) throws {
        let payload = LodestarCapture.statusPayload(status)
        #expect(!payload.contains(0x0A))
        let back = payload.withUnsafeBufferPointer { LodestarCapture.status(from: $0, defaultName: "x") }
        #expect(back == status)
    }

    @Test func oldStatusRecordsStillRead() throws {
        let payload = Array("unavailable: read failed (Input/output error)".utf8)
        let back = payload.withUnsafeBufferPointer { LodestarCapture.status(from: $0, defaultName: "gps0") }
        #expect(back == StatusReport(source: "gps0", state: .unavailable, message: "read failed (Input/output error)"))
        let junk = Array("nonsense text".utf8)
        #expect(junk.withUnsafeBufferPointer { LodestarCapture.status(from: $0, defaultName: "gps0") } == nil)
    }

    @Test func sessionConfigurationRoundTripsThroughTheHeader() throws {
        let calibration = MagnetometerCalibration(hardIronMicrotesla: Vector3(x: 12.5, y: -8.25, z: 0.1),
                                                  softIron: Matrix3(r0: Vector3(x: 1.01, y: 0.02, z: 0),
                                                                    r1: Vector3(x: 0.02, y: 0.99, z: 0),
                                                                    r2: Vector3(x: 0, y: 0, z: 1)),
                                                  fieldMicrotesla: 48.3)
        let config = SessionConfiguration(mounting: "-y,x,z", headingSources: ["imu0", "imu1"], locationSources: ["gps0"],
                                          lenient: true, fixProviders: ["gpsd"],
                                          referenceDate: CivilDate(year: 2026, month: 2, day: 28), calibration: calibration)
        var header = CaptureHeader()
        header.fields = config.headerFields
        #expect(SessionConfiguration(header: header) == config)

        var settings = Pipeline.Settings()
        try config.apply(to: &settings)
        #expect(settings.nmea.framer.acceptMissingChecksum)
        #expect(settings.availability.headingSourceNames == ["imu0", "imu1"])
        #expect(settings.externalFixProviders.contains("gpsd"))
        #expect(settings.heading.calibration == calibration)
        #expect(settings.heading.heading?.mounting == (try SensorMounting(parsing: "-y,x,z")))
        #expect(settings.nmea.referenceDate == CivilDate(year: 2026, month: 2, day: 28))
    }

    @Test func aBadPlatformOrMountingIsAnErrorNotIgnored() throws {
        var settings = Pipeline.Settings()
        var platform = SessionConfiguration()
        platform.platform = "hovercraft"
        #expect(throws: SessionConfigurationError.platform("hovercraft")) { try platform.apply(to: &settings) }
        let mounting = SessionConfiguration(mounting: "y,x,z")  // mirrored
        #expect(throws: SessionConfigurationError.mounting(.mirrored(spec: "y,x,z"))) { try mounting.apply(to: &settings) }
        #expect(settings.heading.platform == .automatic && settings.heading.heading?.mounting == .identity)
    }

    /// A capture whose header names a platform that does not exist: one `lodestar:` line and exit 64, no output.
    @Test func aReplayOfAHeaderWithABadPlatformFailsWithOneLine() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("bad-platform.lcap")
        let writer = try CaptureWriter(path: path)
        var configuration = SessionConfiguration(lenient: false, referenceDate: CivilDate(year: 2024, month: 3, day: 23))
        configuration.platform = "hovercraft"
        try writer.writeHeader(LiveEventQueue(sources: [ScriptedSource(cycles: 1)]).captureHeader() + configuration.headerFields)
        try writer.writeNMEA(monotonicNanos: 1_000_000_000, source: 0,
                             bytes: Array(NMEAEncoder.sentence("GPRMC,120000,A,4807.038,N,01131.000,E,1.0,45.0,230324,,,A").utf8))
        try writer.close()
        let replay = try TestSupport.Lodestar.run(["replay", "--quiet", path])
        #expect(replay.status == 64, "\(replay.stderr)")
        #expect(replay.stdout.isEmpty)
        #expect(replay.stderr == "lodestar: platform must be automatic, vehicle, handheld, got 'hovercraft'\n")
    }

    @Test func commandLineOverridesTheHeaderButTheCaptureDateWins() {
        let header = SessionConfiguration(mounting: "x,y,z", lenient: false, referenceDate: CivilDate(year: 2020, month: 1, day: 1))
        let cli = SessionConfiguration(mounting: "-y,x,z", lenient: true, referenceDate: CivilDate(year: 2030, month: 1, day: 1))
        let merged = cli.overriding(header)
        #expect(merged.mounting == "-y,x,z")
        #expect(merged.lenient == true)
        #expect(ReferenceDate.resolve(header: header.referenceDate, explicit: cli.referenceDate,
                                      today: CivilDate(year: 2026, month: 1, day: 1)) == CivilDate(year: 2020, month: 1, day: 1))
        #expect(ReferenceDate.resolve(header: nil, explicit: nil, today: CivilDate(year: 2026, month: 1, day: 1))
                == CivilDate(year: 2026, month: 1, day: 1))
    }
}
