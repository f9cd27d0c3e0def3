import Foundation
import LocationCore
import Testing
import TestSupport
@testable import Capture

/// `../shared/data` beside the package root (Tests/CaptureTests/<file> → three levels up is the root).
private let gnssSharedDataDirectory: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/data/gnsslogger").path
private let gnssSharedDataAvailable = FileManager.default.fileExists(atPath: gnssSharedDataDirectory)
private let gnssSkipMessage: Comment = "../shared/data/gnsslogger not found beside the package: real-file test skipped"

/// Writes `text` to a fresh temporary file, runs `body` with its path, then removes it.
private func withGnssFixture<R>(_ text: String, _ body: (String) throws -> R) throws -> R {
    let dir = FileManager.default.temporaryDirectory
        .appendingPathComponent("lodestar-gnsslogger-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("gnss_log.txt")
    try Data(text.utf8).write(to: file)
    return try body(file.path)
}

private func readAllGnss(_ reader: GnssLoggerReader) throws -> [SensorEvent] {
    var events: [SensorEvent] = []
    while let event = try reader.next() { events.append(event) }
    return events
}

private func readGnssFixture(_ text: String, window: Int64 = GnssLoggerReader.defaultReorderWindowNanos,
                             capacity: Int = GnssLoggerReader.defaultReorderCapacity) throws
    -> (events: [SensorEvent], reader: GnssLoggerReader) {
    try withGnssFixture(text) { path in
        let reader = try GnssLoggerReader(path: path, reorderWindowNanos: window, reorderCapacity: capacity)
        return (try readAllGnss(reader), reader)
    }
}

private func fixOf(_ event: SensorEvent) -> ExternalFix? {
    if case .fix(let fix) = event.payload { return fix }
    return nil
}

private func motionOf(_ event: SensorEvent) -> MotionSample? {
    if case .motion(let sample) = event.payload { return sample }
    return nil
}

private func nmeaOf(_ event: SensorEvent) -> [UInt8]? {
    if case .nmea(let bytes) = event.payload { return bytes }
    return nil
}

/// What kind of sample an event carries ("accelerometer", "gyroscope", "magnetometer", "orientation", …).
private func sensorName(_ event: SensorEvent) -> String {
    switch event.payload {
    case .motion(.accelerometer): return "accelerometer"
    case .motion(.gyroscope): return "gyroscope"
    case .motion(.magnetometer): return "magnetometer"
    case .motion: return "raw"
    case .orientation: return "orientation"
    case .fix: return "fix"
    case .nmea: return "nmea"
    case .status: return "status"
    }
}

private func ms(_ milliseconds: Int64) -> Timestamp { Timestamp(nanosecondsSince1970: milliseconds * 1_000_000) }

private let v3Header = """
    #
    # Header Description:
    #
    # Version: v3.0.6.4 Platform: 14 Manufacturer: Google Model: Pixel 7
    #
    # Raw,utcTimeMillis,TimeNanos,LeapSecond,Svid
    #
    # UncalAccel,utcTimeMillis,elapsedRealtimeNanos,UncalAccelXMps2,UncalAccelYMps2,UncalAccelZMps2,BiasXMps2,BiasYMps2,BiasZMps2
    #
    # Accel,utcTimeMillis,elapsedRealtimeNanos,AccelXMps2,AccelYMps2,AccelZMps2
    #
    # UncalGyro,utcTimeMillis,elapsedRealtimeNanos,UncalGyroXRadPerSec,UncalGyroYRadPerSec,UncalGyroZRadPerSec,DriftXRadPerSec,DriftYRadPerSec,DriftZRadPerSec
    #
    # Gyro,utcTimeMillis,elapsedRealtimeNanos,GyroXRadPerSec,GyroYRadPerSec,GyroZRadPerSec
    #
    # UncalMag,utcTimeMillis,elapsedRealtimeNanos,UncalMagXMicroT,UncalMagYMicroT,UncalMagZMicroT,BiasXMicroT,BiasYMicroT,BiasZMicroT
    #
    # Mag,utcTimeMillis,elapsedRealtimeNanos,MagXMicroT,MagYMicroT,MagZMicroT
    #
    # OrientationDeg,utcTimeMillis,elapsedRealtimeNanos,yawDeg,rollDeg,pitchDeg
    #
    # Fix,Provider,LatitudeDegrees,LongitudeDegrees,AltitudeMeters,SpeedMps,AccuracyMeters,BearingDegrees,UnixTimeMillis,SpeedAccuracyMps,BearingAccuracyDegrees,elapsedRealtimeNanos,VerticalAccuracyMeters,MockLocation,NumberOfUsedSignals,VerticalSpeedAccuracyMps,SolutionType
    #
    #,
    # Status,UnixTimeMillis,SignalCount,SignalIndex,ConstellationType,Svid
    #

    """

@Suite("GnssLoggerReader", .ownThreads)
struct GnssLoggerReaderTests {
    @Test("a v3 GPS Fix row maps to an exact Location")
    func gpsFix() throws {
        let text = v3Header + """
            Fix,GPS,37.4264969338,-122.1737394073,22.58852262993909,0.8924806,4.107699,201.09357,1699400600000,0.16946356,10.303598,16142559392000,3.0,0,,,

            """
        let (events, reader) = try readGnssFixture(text)
        #expect(events.count == 1)
        let event = try #require(events.first)
        let fix = try #require(fixOf(event))
        #expect(fix.provider == "GPS")
        let l = fix.location
        #expect(l.latitudeDegrees == 37.4264969338)
        #expect(l.longitudeDegrees == -122.1737394073)
        #expect(l.altitudeEllipsoidMeters == 22.58852262993909)
        #expect(l.altitudeMSLMeters == nil)
        #expect(l.speedMetersPerSecond == 0.8924806)
        #expect(l.horizontalAccuracyMeters == 4.107699)
        #expect(l.courseDegrees == 201.09357)
        #expect(l.speedAccuracyMetersPerSecond == 0.16946356)
        #expect(l.courseAccuracyDegrees == 10.303598)
        #expect(l.verticalAccuracyMeters == 3.0)
        #expect(l.time == ms(1_699_400_600_000))
        #expect(l.mode == .threeD)
        #expect(l.quality == .gps)
        #expect(event.utc == ms(1_699_400_600_000))
        #expect(event.monotonicNanos == 16_142_559_392_000)
        #expect(reader.statistics.recordsRead == 2)  // the "#," line and the Fix row
        #expect(reader.statistics.recordsAccepted == 1)
        #expect(reader.statistics.recordsIgnored == 1)
        #expect(reader.header.value(for: "Version") == "v3.0.6.4")
        #expect(reader.header.value(for: "Platform") == "14")
        #expect(reader.header.value(for: "Manufacturer") == "Google")
        #expect(reader.header.value(for: "Model") == "Pixel 7")
        #expect(reader.header.referenceDate == CivilDate(year: 2023, month: 11, day: 7))
    }

    @Test("empty Fix fields are nil, never 0; FLP without altitude is 2D with unknown quality")
    func fixEmptyFields() throws {
        let text = v3Header + """
            Fix,FLP,37.4265084000,-122.1737085000,,,4.139,,1699400584473,,,16126559152000,,0,,,

            """
        let (events, _) = try readGnssFixture(text)
        let fix = try #require(events.first.flatMap(fixOf))
        #expect(fix.provider == "FLP")
        #expect(fix.location.altitudeEllipsoidMeters == nil)
        #expect(fix.location.speedMetersPerSecond == nil)
        #expect(fix.location.courseDegrees == nil)
        #expect(fix.location.speedAccuracyMetersPerSecond == nil)
        #expect(fix.location.courseAccuracyDegrees == nil)
        #expect(fix.location.verticalAccuracyMeters == nil)
        #expect(fix.location.horizontalAccuracyMeters == 4.139)
        #expect(fix.location.mode == .twoD)
        #expect(fix.location.quality == .unknown)
    }

    @Test("NMEA rows: the sentence keeps its commas and gains CR LF; utc is the trailing receive time")
    func nmeaRows() throws {
        let text = """
            NMEA,$GPGGA,234257.00,3725.590397,N,12210.422534,W,1,24,0.4,51.9,M,-28.4,M,,*63,1699400577561
            NMEA,$GPRMC,234257.00,A,3725.590397,N,12210.422534,W,000.0,,071123,,,A*65,1699400577566\r
            NMEA,$GPGSA,A,3,,,,,,,,,,,,,,,*1E
            NMEA,garbage,1699400577570

            """
        let (events, reader) = try readGnssFixture(text)
        #expect(events.count == 3)
        #expect(events.map(nmeaOf) == [
            Array("$GPGGA,234257.00,3725.590397,N,12210.422534,W,1,24,0.4,51.9,M,-28.4,M,,*63\r\n".utf8),
            Array("$GPRMC,234257.00,A,3725.590397,N,12210.422534,W,000.0,,071123,,,A*65\r\n".utf8),
            Array("$GPGSA,A,3,,,,,,,,,,,,,,,*1E\r\n".utf8),
        ])
        #expect(events.map(\.utc) == [ms(1_699_400_577_561), ms(1_699_400_577_566), nil])
        #expect(events.isNonEmptyAndAllSatisfy { $0.monotonicNanos == nil })
        #expect(reader.statistics.rejections.byReason == ["badNMEA": 1])
    }

    @Test("sensor rows: Uncal rows carry bias/drift, calibrated rows none; orientation maps yaw/roll/pitch")
    func sensorRows() throws {
        let text = v3Header + """
            UncalMag,1699400576748,16118834125931,-54.1436,-88.937996,-147.3638,-79.950134,-76.57953,-113.967804
            UncalGyro,1699400576750,16118836475732,-0.06261369,-0.09315695,0.036651913,-0.0020643917,-0.0038384064,-0.0013324362
            UncalAccel,1699400576751,16118836475733,0.17288144,0.44925246,9.886545,0.065623306,0.002461203,-0.031848617
            Mag,1699400576752,16118836475734,-54.1436,-88.937996,-147.3638
            Gyro,1699400576753,16118836475735,-0.06261369,-0.09315695,6.7132956E-4
            Accel,1699400576754,16118836475736,0.17288144,0.44925246,9.886545
            OrientationDeg,1699400576755,16118836475737,245.0,0.0,-2.0

            """
        let (events, reader) = try readGnssFixture(text)
        #expect(events.count == 7)
        #expect(reader.statistics.rejections.total == 0)
        guard events.count == 7 else { return }
        #expect(motionOf(events[0]) == .magnetometer(
            fieldMicrotesla: Vector3(x: -54.1436, y: -88.937996, z: -147.3638),
            biasMicrotesla: Vector3(x: -79.950134, y: -76.57953, z: -113.967804)))
        #expect(motionOf(events[1]) == .gyroscope(
            radiansPerSecond: Vector3(x: -0.06261369, y: -0.09315695, z: 0.036651913),
            driftRadiansPerSecond: Vector3(x: -0.0020643917, y: -0.0038384064, z: -0.0013324362)))
        #expect(motionOf(events[2]) == .accelerometer(
            metersPerSecondSquared: Vector3(x: 0.17288144, y: 0.44925246, z: 9.886545),
            biasMetersPerSecondSquared: Vector3(x: 0.065623306, y: 0.002461203, z: -0.031848617)))
        #expect(motionOf(events[3]) == .magnetometer(
            fieldMicrotesla: Vector3(x: -54.1436, y: -88.937996, z: -147.3638), biasMicrotesla: nil))
        #expect(motionOf(events[4]) == .gyroscope(
            radiansPerSecond: Vector3(x: -0.06261369, y: -0.09315695, z: 0.00067132956), driftRadiansPerSecond: nil))
        #expect(motionOf(events[5]) == .accelerometer(
            metersPerSecondSquared: Vector3(x: 0.17288144, y: 0.44925246, z: 9.886545), biasMetersPerSecondSquared: nil))
        guard case .orientation(let o) = events[6].payload else {
            Issue.record("expected an orientation event")
            return
        }
        #expect(o == ReportedOrientation(yawDegrees: 245, rollDegrees: 0, pitchDegrees: -2))
        #expect(events[0].utc == ms(1_699_400_576_748))
        #expect(events[0].monotonicNanos == 16_118_834_125_931)
        #expect(events[6].monotonicNanos == 16_118_836_475_737)
    }

    @Test("corrupt rows are rejected by reason, other record types ignored, nothing thrown")
    func corruptRows() throws {
        let text = """
            # Version: v2.0.4.2 Platform: 10 Manufacturer: Google Model: Pixel 4
            Mag,1589494244849,19637944305324,25.06863,-48.203823,-17.910692
            # Mag,utcTimeMillis,elapsedRealtimeNanos,MagXmicroT,MagYmicroT,MagZmicroT
            # Accel,utcTimeMillis,elapsedRealtimeNanos,AccelXMps2,AccelYMps2,AccelZMps2
            # Fix,Provider,LatitudeDegrees,LongitudeDegrees,AltitudeMeters,SpeedMps,AccuracyMeters,BearingDegrees,UnixTimeMillis,SpeedAccuracyMps,BearingAccuracyDegrees
            # Gyro,utcTimeMillis,elapsedRealtimeNanos,GyroXRadPerSec
            #,
            Mag,1589494244860,19637954245636,25.011307,-48.403454,-17.473583
            Mag,1589494244861,19637954245637,25.011307,-48.403454
            Mag,1589494244862,19637954245638,25.0x1307,-48.403454,-17.473583
            Mag,1589494244863,19637954245639,nan,-48.403454,-17.473583
            Mag,1589494244864,19637954245640,,-48.403454,-17.473583
            Mag,1589494244865,1963795424564x,25.011307,-48.403454,-17.473583
            Mag,1694113198000,19637954245641,0.,0.,0.
            Accel,1589494244845,19637940404074,0.17786033,10.1592455,1.0529282
            Fix,NLP,37.4239073,-122.0944650,-29co.199999,0.000000,44.319000,0.000000,1589494244403,0.000000,0.000000
            Fix,GPS,37.4235845,-122.0941221,-32.830566,0.000000,3.790092,0.000000,1589494247000,0.086023,0.000000
            Fix,GPS,97.4235845,-122.0941221,-32.830566,0.000000,3.790092,0.000000,1589494247000,0.086023,0.000000
            Fix,GPS,,-122.0941221,-32.830566,0.000000,3.790092,0.000000,1589494247000,0.086023,0.000000
            Gyro,1589494244844,19637939874074,-0.0035500922
            UncalAccel,1589494244845,19637940404074,0.1,0.2,0.3,0.0,0.0,0.0
            OrientationDeg,1589494244845,19637940404074
            Raw,1589494244403,19637552000000,,,-1273529463442385024,0.0
            Status,,51,0,1,2,1575420032.000
            Nav,2,257,1,-1,-1,-117,1,1
            Agc,1589494244403,19637552000000
            GnssAntennaInfo,1575420032.0
            ,

            Fix,GPS,37.4235845,-122.0941220,-32.829407,0.000000,3.790092,0.000000,1589494248000,0.086023

            """
        let (events, reader) = try readGnssFixture(text)
        let s = reader.statistics
        #expect(events.count == 3)  // Mag, Accel, Fix GPS
        #expect(s.rejections.byReason == [
            "noHeader": 3,  // Mag before its header, UncalAccel and OrientationDeg without one
            "tooFewFields": 2,  // Mag with two axes, last Fix without BearingAccuracyDegrees
            "badNumber": 3,  // 25.0x1307, nan, -29co.199999
            "missingValue": 2,  // empty Mag X, empty latitude
            "badTimestamp": 1,
            "zeroMagnetometer": 1,
            "badCoordinate": 1,
            "headerMissingColumns": 1,  // Gyro header lacks Y/Z
        ])
        #expect(s.recordsIgnored == 8)  // "#,", Raw, Status, Nav, Agc, GnssAntennaInfo, ",", blank line
        #expect(s.recordsAccepted == 3)
        #expect(s.recordsRead == s.recordsAccepted + s.rejections.total + s.recordsIgnored)
        #expect(s.recordsRead == 25)
        let fix = try #require(events.compactMap(fixOf).first)
        // v2.0.4.2 Fix rows have no elapsedRealtimeNanos: no monotonic time, bearing 0 kept as written.
        #expect(fix.location.latitudeDegrees == 37.4235845)
        #expect(fix.location.courseDegrees == 0)
        #expect(events.first { fixOf($0) != nil }?.monotonicNanos == nil)
    }

    @Test("reorder: events within the window come out sorted by elapsedRealtimeNanos, ties in file order")
    func reorderWithinWindow() throws {
        let text = v3Header + """
            Accel,1000,1000000000,1,0,0
            Gyro,999,900000000,2,0,0
            UncalMag,1001,1000000000,3,0,0,0,0,0
            OrientationDeg,998,800000000,4,0,0
            Fix,GPS,1,2,,,5,,1700000000000,,,950000000,,0,,,

            """
        let (events, reader) = try readGnssFixture(text)
        #expect(events.map(\.monotonicNanos) == [800_000_000, 900_000_000, 950_000_000, 1_000_000_000, 1_000_000_000])
        guard events.count == 5 else { return }
        #expect(sensorName(events[3]) == "accelerometer")
        #expect(sensorName(events[4]) == "magnetometer")
        #expect(reader.outOfOrderEvents == 0)
    }

    @Test("reorder window is bounded in time: an event more than 2 s late is delivered out of order, not held")
    func reorderWindowTime() throws {
        let text = v3Header + """
            Accel,1,1000000000,1,0,0
            Accel,2,500000000,2,0,0
            Accel,3,700000000,3,0,0
            Accel,4,4000000000,4,0,0
            Accel,5,900000000,5,0,0

            """
        let (events, reader) = try readGnssFixture(text)
        #expect(events.map(\.monotonicNanos) == [500_000_000, 700_000_000, 1_000_000_000, 900_000_000, 4_000_000_000])
        #expect(reader.outOfOrderEvents == 1)
    }

    @Test("reorder window is bounded in count: at most reorderCapacity events are held")
    func reorderWindowCapacity() throws {
        let text = v3Header + """
            Accel,1,40,1,0,0
            Accel,2,30,2,0,0
            Accel,3,20,3,0,0
            Accel,4,10,4,0,0

            """
        let (events, reader) = try readGnssFixture(text, capacity: 2)
        #expect(events.map(\.monotonicNanos) == [20, 10, 30, 40])
        #expect(reader.outOfOrderEvents == 1)
        let (all, full) = try readGnssFixture(text)
        #expect(all.map(\.monotonicNanos) == [10, 20, 30, 40])
        #expect(full.outOfOrderEvents == 0)
    }

    @Test("events without monotonic time keep their file position")
    func untimedEvents() throws {
        let text = v3Header + """
            NMEA,$GPGGA,1*00,1000
            Accel,1,2000000000,1,0,0
            NMEA,$GPGGA,2*00,2000
            Accel,3,1000000000,3,0,0
            NMEA,$GPGGA,3*00,3000

            """
        let (events, _) = try readGnssFixture(text)
        // NMEA 1 precedes every timed event; NMEA 2 sorts at the newest time read before it (2 s), after the
        // Accel it followed in the file; the late Accel (1 s) sorts before both.
        #expect(events.map(\.utc) == [ms(1000), ms(3), ms(1), ms(2000), ms(3000)])
        #expect(events.map(\.monotonicNanos) == [nil, 1_000_000_000, 2_000_000_000, nil, nil])
    }

    @Test("v1.4 logs: header-less Fix rows use the v1 layout; lower-case provider gps is GPS quality")
    func v1Layout() throws {
        let text = """
            # Version: 1.4.0.0, Platform: N
            Fix,gps,37.422541,-122.081659,-33.000000,0.000000,3.000000,1467321969000
            # Fix,Provider,Latitude,Longitude,Altitude,Speed,Accuracy,(UTC)TimeInMs
            Fix,gps,37.422538,-122.081655,-32.000000,0.940000,3.000000,1467321973000

            """
        let (events, reader) = try readGnssFixture(text)
        #expect(reader.header.value(for: "Version") == "1.4.0.0")
        #expect(reader.header.value(for: "Platform") == "N")
        let fixes = events.compactMap(fixOf)
        #expect(fixes.count == 2)
        guard fixes.count == 2 else { return }
        #expect(fixes[0].location.latitudeDegrees == 37.422541)
        #expect(fixes[0].location.longitudeDegrees == -122.081659)
        #expect(fixes[0].location.altitudeEllipsoidMeters == -33)
        #expect(fixes[0].location.horizontalAccuracyMeters == 3)
        #expect(fixes[0].location.quality == .gps)
        #expect(fixes[0].location.time == ms(1_467_321_969_000))
        #expect(fixes[1].location.speedMetersPerSecond == 0.94)
        #expect(events.isNonEmptyAndAllSatisfy { $0.monotonicNanos == nil })
    }

    @Test("GSDC ground-truth CSV: the MessageType row is the Fix header")
    func groundTruthLayout() throws {
        let text = """
            MessageType,Provider,LatitudeDegrees,LongitudeDegrees,AltitudeMeters,SpeedMps,AccuracyMeters,BearingDegrees,UnixTimeMillis,SpeedAccuracyMps,BearingAccuracyDegrees,elapsedRealtimeNanos,VerticalAccuracyMeters
            Fix,GT,37.692231,-122.0884199,20.9736302800885,0.0028273123,0.1,288.27866,1694113198000,,,,

            """
        let (events, reader) = try readGnssFixture(text)
        let fix = try #require(events.first.flatMap(fixOf))
        #expect(fix.provider == "GT")
        #expect(fix.location.altitudeEllipsoidMeters == 20.9736302800885)
        #expect(fix.location.quality == .unknown)
        #expect(events.first?.monotonicNanos == nil)
        #expect(reader.statistics.recordsRead == 1)
    }

    @Test("a missing file throws fileNotFound")
    func missingFile() {
        #expect(throws: CaptureError.fileNotFound(path: "/nonexistent/lodestar/gnss_log.txt")) {
            _ = try GnssLoggerReader(path: "/nonexistent/lodestar/gnss_log.txt")
        }
    }

    // MARK: - Real files (../shared/data/gnsslogger)

    @Test("real v3.0.6.4 walk log: counts by record type, sorted output", .enabled(if: gnssSharedDataAvailable, gnssSkipMessage))
    func realWalkLog() throws {
        let reader = try GnssLoggerReader(path: gnssSharedDataDirectory + "/pixel7_v3.0.6.4_walk_decimated.txt")
        let events = try readAllGnss(reader)
        let fixes = events.compactMap(fixOf)
        // grep -c '^Fix,GPS' → 94, '^Fix,FLP' → 95, '^Fix,NLP' → 54
        #expect(fixes.filter { $0.provider == "GPS" }.count == 94)
        #expect(fixes.filter { $0.provider == "FLP" }.count == 95)
        #expect(fixes.filter { $0.provider == "NLP" }.count == 54)
        #expect(fixes.filter { $0.location.quality == .gps }.count == 94)
        let motion = events.compactMap(motionOf)
        #expect(motion.count == 30)  // 10 UncalAccel + 10 UncalGyro + 10 UncalMag
        #expect(events.filter { sensorName($0) == "orientation" }.count == 10)
        let s = reader.statistics
        #expect(s.recordsIgnored == 1011)  // 930 Raw + 80 Agc + 1 blank line
        #expect(s.rejections.total == 0)
        #expect(s.recordsAccepted == 283)
        #expect(reader.outOfOrderEvents == 0)
        let times = events.compactMap(\.monotonicNanos)
        #expect(times.count == 283)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(reader.header.value(for: "Model") == "Pixel 7")
        #expect(reader.header.referenceDate == CivilDate(year: 2023, month: 11, day: 7))
        let firstGPS = try #require(fixes.first { $0.provider == "GPS" })
        #expect(firstGPS.location.latitudeDegrees == 37.4265079783)
        #expect(firstGPS.location.longitudeDegrees == -122.1737079613)
        #expect(firstGPS.location.altitudeEllipsoidMeters == 23.67296474531974)
        #expect(firstGPS.location.horizontalAccuracyMeters == 4.2366138)
        #expect(firstGPS.location.courseDegrees == nil)
        #expect(firstGPS.location.time == ms(1_699_400_582_000))
    }

    @Test("real v2.0.4.2 GSDC 2021 log: Accel/Gyro/Mag/Fix, one corrupt Fix altitude",
          .enabled(if: gnssSharedDataAvailable, gnssSkipMessage))
    func realV2Log() throws {
        let reader = try GnssLoggerReader(path: gnssSharedDataDirectory + "/gsdc2021_Pixel4_GnssLog_v2.0.4.2_truncated.txt")
        let events = try readAllGnss(reader)
        var accel = 0, gyro = 0, mag = 0
        for sample in events.compactMap(motionOf) {
            switch sample {
            case .accelerometer(_, let bias): accel += 1; #expect(bias == nil)
            case .gyroscope: gyro += 1
            case .magnetometer: mag += 1
            default: Issue.record("unexpected sample \(sample)")
            }
        }
        #expect(accel == 22)
        #expect(gyro == 22)
        #expect(mag == 7)
        let fixes = events.compactMap(fixOf)
        #expect(fixes.count == 4)  // 5 Fix rows; the NLP row's altitude reads "-29co.199999"
        #expect(fixes.filter { $0.provider == "GPS" }.count == 2)
        #expect(reader.statistics.rejections.byReason == ["badNumber": 1])
        // 29 Raw + 14 Status + "#," + "," + 1 blank line
        #expect(reader.statistics.recordsIgnored == 46)
        #expect(reader.header.value(for: "Version") == "v2.0.4.2")
        let timed = events.compactMap(\.monotonicNanos)
        #expect(zip(timed, timed.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test("real all-sensors sample: one event per sensor record", .enabled(if: gnssSharedDataAvailable, gnssSkipMessage))
    func realAllSensors() throws {
        let reader = try GnssLoggerReader(path: gnssSharedDataDirectory + "/all_sensors_v3.0.6.4.txt")
        let events = try readAllGnss(reader)
        #expect(events.count == 7)
        #expect(reader.statistics.rejections.total == 0)
        let uncalMag = events.compactMap(motionOf).compactMap { sample -> Vector3? in
            if case .magnetometer(_, let bias?) = sample { return bias }
            return nil
        }
        #expect(uncalMag == [Vector3(x: -79.950134, y: -76.57953, z: -113.967804)])
    }

    @Test("real GnssLogger NMEA file: 96 sentences, byte-exact", .enabled(if: gnssSharedDataAvailable, gnssSkipMessage))
    func realNMEAFile() throws {
        let reader = try GnssLoggerReader(path: gnssSharedDataDirectory + "/pixel6.nmea")
        let events = try readAllGnss(reader)
        #expect(events.count == 96)
        #expect(events.first.flatMap(nmeaOf)
                == Array("$GPGGA,234257.00,3725.590397,N,12210.422534,W,1,24,0.4,51.9,M,-28.4,M,,*63\r\n".utf8))
        #expect(events.first?.utc == ms(1_699_400_577_561))
        #expect(reader.statistics.rejections.total == 0)
    }

    @Test("real GSDC 2023 log: the all-zero placeholder Mag row is rejected", .enabled(if: gnssSharedDataAvailable, gnssSkipMessage))
    func realGSDC2023() throws {
        let reader = try GnssLoggerReader(path: gnssSharedDataDirectory + "/gsdc2023_pixel7pro_gnss_log_truncated.txt")
        let events = try readAllGnss(reader)
        #expect(events.isEmpty)
        #expect(reader.statistics.rejections.byReason == ["zeroMagnetometer": 1])
        #expect(reader.statistics.recordsIgnored == 181)  // 180 Raw + "#,"
        #expect(reader.header.value(for: "Version") == "Not Available")
    }

    @Test("real GSDC 2022 ground truth: 200 GT fixes", .enabled(if: gnssSharedDataAvailable, gnssSkipMessage))
    func realGroundTruth() throws {
        let reader = try GnssLoggerReader(path: gnssSharedDataDirectory + "/gsdc2022_ground_truth_truncated.csv")
        let fixes = try readAllGnss(reader).compactMap(fixOf)
        #expect(fixes.count == 200)
        #expect(fixes.isNonEmptyAndAllSatisfy { $0.provider == "GT" && $0.location.quality == .unknown })
        #expect(fixes.first?.location.latitudeDegrees == 37.395817)
    }
}
