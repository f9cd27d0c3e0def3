import Foundation
import LocationCore
import Testing
import TestSupport
@testable import Capture

/// `../shared/data` beside the package root (Tests/CaptureTests/<file> → three levels up is the root).
private let imuSharedDataDirectory: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/data").path
private let imuSharedDataAvailable = FileManager.default.fileExists(atPath: imuSharedDataDirectory + "/mag")
    && FileManager.default.fileExists(atPath: imuSharedDataDirectory + "/gnss/rtklibexplorer-walk")
private let imuSkipMessage: Comment = "../shared/data (mag/, gnss/rtklibexplorer-walk/) not found beside the package: real-file test skipped"

/// Writes `text` to a fresh temporary file, runs `body` with its path, then removes it.
private func withIMUFixture<R>(_ text: String, _ body: (String) throws -> R) throws -> R {
    let dir = FileManager.default.temporaryDirectory
        .appendingPathComponent("lodestar-imucsv-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("imu.csv")
    try Data(text.utf8).write(to: file)
    return try body(file.path)
}

private func readAllIMU(_ reader: IMUCSVReader) throws -> [SensorEvent] {
    var events: [SensorEvent] = []
    while let event = try reader.next() { events.append(event) }
    return events
}

private func readIMUFixture(_ text: String) throws -> (events: [SensorEvent], reader: IMUCSVReader) {
    try withIMUFixture(text) { path in
        let reader = try IMUCSVReader(path: path)
        return (try readAllIMU(reader), reader)
    }
}

private func imuSample(_ event: SensorEvent) -> MotionSample? {
    if case .motion(let sample) = event.payload { return sample }
    return nil
}

private enum Kind: Equatable { case acc, gyr, mag }

private func kind(_ event: SensorEvent) -> Kind? {
    switch imuSample(event) {
    case .accelerometer?: .acc
    case .gyroscope?: .gyr
    case .magnetometer?: .mag
    default: nil
    }
}

private func vector(_ event: SensorEvent) -> Vector3? {
    switch imuSample(event) {
    case .accelerometer(let v, _)?: v
    case .gyroscope(let v, _)?: v
    case .magnetometer(let v, _)?: v
    default: nil
    }
}

/// The reason an init failure carries, or nil when it did not throw `.unrecognizedFormat`.
private func headerFailure(_ text: String) throws -> String? {
    try withIMUFixture(text) { path -> String? in
        do {
            _ = try IMUCSVReader(path: path)
            return nil
        } catch let error as CaptureError {
            if case .unrecognizedFormat(let p, let reason) = error, p == path { return reason }
            return nil
        }
    }
}

@Suite("IMUCSVReader", .ownThreads)
struct IMUCSVReaderTests {
    @Test("canonical columns: accelerometer, gyroscope, magnetometer events per row, in that order")
    func canonical() throws {
        let text = """
            t_s,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z,mag_x,mag_y,mag_z,q_w,q_x,q_y,q_z,movement
            0.5,0.0870173,0.112934,9.85026,0.0031957,5.21742e-19,0,0.405826,16.1633,-42.7047,nan,nan,nan,nan,0
            0.514,1,2,3,4,5,6,7,8,9,1,0,0,0,1

            """
        let (events, reader) = try readIMUFixture(text)
        #expect(events.map(kind) == [.acc, .gyr, .mag, .acc, .gyr, .mag])
        #expect(reader.hasAccelerometer && reader.hasGyroscope && reader.hasMagnetometer)
        guard events.count == 6 else { return }
        #expect(imuSample(events[0]) == .accelerometer(
            metersPerSecondSquared: Vector3(x: 0.0870173, y: 0.112934, z: 9.85026), biasMetersPerSecondSquared: nil))
        #expect(imuSample(events[1]) == .gyroscope(
            radiansPerSecond: Vector3(x: 0.0031957, y: 5.21742e-19, z: 0), driftRadiansPerSecond: nil))
        #expect(imuSample(events[2]) == .magnetometer(
            fieldMicrotesla: Vector3(x: 0.405826, y: 16.1633, z: -42.7047), biasMicrotesla: nil))
        #expect(events[0...2].allSatisfy { $0.sampleTimeSeconds == 0.5 && $0.monotonicNanos == 500_000_000 })
        #expect(events[3...5].allSatisfy { $0.sampleTimeSeconds == 0.514 && $0.monotonicNanos == 514_000_000 })
        #expect(events.isNonEmptyAndAllSatisfy { $0.utc == nil })
        #expect(reader.statistics.recordsRead == 2)
        #expect(reader.statistics.recordsAccepted == 2)
        #expect(reader.statistics.rejections.total == 0)
        #expect(reader.header.value(for: "Columns")?.hasPrefix("t_s,acc_x") == true)
        #expect(reader.header.referenceDate == nil)
    }

    @Test("x-io Fusion aliases: deg/s → rad/s, g → m/s², µT unchanged")
    func fusionAliases() throws {
        let text = """
            Time (s),Gyroscope X (deg/s),Gyroscope Y (deg/s),Gyroscope Z (deg/s),Accelerometer X (g),Accelerometer Y (g),Accelerometer Z (g),Magnetometer X (uT),Magnetometer Y (uT),Magnetometer Z (uT)
            0.010078907,90,-180,0,1,-0.5,0,15.30666,-0.3084283,-41.06782

            """
        let (events, _) = try readIMUFixture(text)
        #expect(events.map(kind) == [.acc, .gyr, .mag])
        guard events.count == 3, let acc = vector(events[0]), let gyr = vector(events[1]), let mag = vector(events[2])
        else { return }
        #expect(acc == Vector3(x: 9.80665, y: -4.903325, z: 0))
        #expect(abs(gyr.x - Double.pi / 2) < 1e-15)
        #expect(abs(gyr.y + Double.pi) < 1e-15)
        #expect(gyr.z == 0)
        #expect(mag == Vector3(x: 15.30666, y: -0.3084283, z: -41.06782))
        #expect(events[0].sampleTimeSeconds == 0.010078907)
        #expect(events[0].monotonicNanos == 10_078_907)
    }

    @Test("RTKLIB explorer aliases: GPST seconds since 1970, g and deg/s, no magnetometer")
    func rtklibAliases() throws {
        let text = """
            gpst_s_since_1970_epoch_no_leap,ax_g,ay_g,az_g,gx_dps,gy_dps,gz_dps
            1756402240.9610,-0.0170,-0.0070,1.0110,0.0380,-0.1600,180

            """
        let (events, reader) = try readIMUFixture(text)
        #expect(events.map(kind) == [.acc, .gyr])
        #expect(!reader.hasMagnetometer)
        guard events.count == 2, let acc = vector(events[0]), let gyr = vector(events[1]) else { return }
        #expect(acc.z == 1.0110 * 9.80665)
        #expect(abs(gyr.z - Double.pi) < 1e-15)
        #expect(abs(gyr.x - 0.038 * Double.pi / 180) < 1e-18)
        #expect(events[0].sampleTimeSeconds == 1756402240.9610)
        #expect(events[0].monotonicNanos == 1_756_402_240_960_999_936)  // Int64((t × 1e9).rounded()) of the Double
        #expect(reader.header.referenceDate == CivilDate(year: 2025, month: 8, day: 28))
    }

    @Test("magnetometer-only files are accepted")
    func magnetometerOnly() throws {
        let (events, reader) = try readIMUFixture("t_s,mag_x,mag_y,mag_z\n1,20,0,-40\n")
        #expect(events.map(kind) == [.mag])
        #expect(!reader.hasAccelerometer)
    }

    @Test("corrupt rows are rejected by reason and skipped; blank lines ignored")
    func corruptRows() throws {
        let text = """
            t_s,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z,q_w
            0,0,0,9.8,20,0,-40,nan

            0.1,nan,0,9.8,20,0,-40,1
            0.2,0,0,9.8,20,0,-40
            0.3,0,0,9.8,20,0,-40,1,extra
            0.4,0,0,9.8,2x0,0,-40,1
            0.5,0,0,9.8,,0,-40,1
            x,0,0,9.8,20,0,-40,1
            nan,0,0,9.8,20,0,-40,1
            1e30,0,0,9.8,20,0,-40,1
            0.6,0,0,inf,20,0,-40,1
            0.7,0,0,9.8,20,0,-40,1
            """
        let (events, reader) = try readIMUFixture(text)
        #expect(events.map(\.sampleTimeSeconds) == [0, 0, 0.7, 0.7])
        let s = reader.statistics
        #expect(s.rejections.byReason == ["nonFiniteValue": 2, "fieldCount": 2, "badNumber": 2, "badTime": 3])
        #expect(s.recordsAccepted == 2)
        #expect(s.recordsIgnored == 1)
        #expect(s.recordsRead == 12)
        #expect(s.recordsRead == s.recordsAccepted + s.rejections.total + s.recordsIgnored)
    }

    @Test("headers without a time column or sensor triples fail in init with a clear reason")
    func badHeaders() throws {
        #expect(try headerFailure("time,acc_x,acc_y,acc_z\n0,0,0,9.8\n")?.contains("no t_s column") == true)
        #expect(try headerFailure("t_s,gyr_x,gyr_y,gyr_z,movement\n0,0,0,0,0\n")?
            .contains("neither accelerometer") == true)
        #expect(try headerFailure("t_s,acc_x,acc_y,mag_x,mag_y,mag_z\n") == "header has acc_x but no acc_z column")
        #expect(try headerFailure("0.1,0,0,9.8\n")?.contains("not a header row") == true)
        #expect(try headerFailure("\n\n") == "empty file: no header row")
        #expect(try headerFailure("") == "empty file: no header row")
        #expect(throws: CaptureError.fileNotFound(path: "/nonexistent/lodestar/imu.csv")) {
            _ = try IMUCSVReader(path: "/nonexistent/lodestar/imu.csv")
        }
    }

    @Test("header names match case-insensitively, trimmed of spaces, quotes and a BOM")
    func headerTolerance() throws {
        let (events, _) = try readIMUFixture("\u{FEFF}\"T_S\", ACC_X ,acc_y,\"acc_z\"\r\n2,1,2,3\r\n")
        #expect(events.count == 1)
        #expect(events.first.flatMap(vector) == Vector3(x: 1, y: 2, z: 3))
    }

    // MARK: - Real files (../shared/data)

    @Test("real BROAD trial 02: every row gives acc, gyr and mag", .enabled(if: imuSharedDataAvailable, imuSkipMessage))
    func realBROAD() throws {
        let reader = try IMUCSVReader(path: imuSharedDataDirectory + "/mag/broad_02_undisturbed_slow_rotation_B_dec4.csv")
        let events = try readAllIMU(reader)
        #expect(reader.statistics.recordsAccepted == 13310)  // wc -l minus the header
        #expect(reader.statistics.rejections.total == 0)
        #expect(events.count == 3 * 13310)
        #expect(events.prefix(3).map(kind) == [.acc, .gyr, .mag])
        let last = try #require(events.last)
        #expect(last.sampleTimeSeconds == 186.326)
        #expect(vector(last) == Vector3(x: 0.702462, y: 16.1633, z: -40.608))
        let times = events.compactMap(\.monotonicNanos)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test("real x-io Fusion sample: 13514 rows with unit conversion", .enabled(if: imuSharedDataAvailable, imuSkipMessage))
    func realFusion() throws {
        let reader = try IMUCSVReader(path: imuSharedDataDirectory + "/mag/fusion_sensor_data.csv")
        let events = try readAllIMU(reader)
        #expect(reader.statistics.recordsAccepted == 13514)
        #expect(reader.statistics.rejections.total == 0)
        #expect(events.count == 3 * 13514)
        // First row: 0,0.01644619,-0.1517251,0.1080897,0.001015204,-0.02045836,0.9970807,15.3017,0.4328527,-41.06483
        #expect(events.first.flatMap(vector) == Vector3(x: 0.001015204 * 9.80665, y: -0.02045836 * 9.80665,
                                                         z: 0.9970807 * 9.80665))
        #expect(events.dropFirst().first.flatMap(vector)?.x == 0.01644619 * (Double.pi / 180))
        #expect(events.dropFirst(2).first.flatMap(vector) == Vector3(x: 15.3017, y: 0.4328527, z: -41.06483))
    }

    @Test("real RTKLIB explorer walk IMU: 20455 rows, acc + gyr only", .enabled(if: imuSharedDataAvailable, imuSkipMessage))
    func realRTKLIB() throws {
        let reader = try IMUCSVReader(path: imuSharedDataDirectory + "/gnss/rtklibexplorer-walk/imu_1730_gpst_unfiltered.csv")
        let events = try readAllIMU(reader)
        #expect(reader.statistics.recordsAccepted == 20455)
        #expect(reader.statistics.rejections.total == 0)
        #expect(events.count == 2 * 20455)
        #expect(events.first?.sampleTimeSeconds == 1756402240.9610)
        #expect(events.last?.sampleTimeSeconds == 1756402375.2320)
        #expect(reader.header.referenceDate == CivilDate(year: 2025, month: 8, day: 28))
    }
}
