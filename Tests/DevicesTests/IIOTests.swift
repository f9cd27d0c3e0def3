#if canImport(Glibc)
import Glibc
#endif
import Devices
import Foundation
import LocationCore
import LodestarIO
import Synchronization
import Testing
import TestSupport

/// A fake `/sys/bus/iio/devices` tree in a temporary directory.
final class FakeIIOTree: Sendable {
    let directory: TemporaryDirectory
    var root: String { directory.url.path }
    var devices: String { root + "/bus/iio/devices" }

    init() throws {
        directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: devices, withIntermediateDirectories: true)
    }

    /// Creates a device directory with the given attribute files. Built beside the tree and renamed into place,
    /// so a running source never sees half a device (the kernel's add uevent also comes after the attributes).
    @discardableResult
    func add(_ id: String, _ files: [String: String]) throws -> String {
        let staging = root + "/staging-" + id
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        for (name, content) in files { try content.write(toFile: staging + "/" + name, atomically: false, encoding: .utf8) }
        let path = devices + "/" + id
        try FileManager.default.moveItem(atPath: staging, toPath: path)
        return path
    }

    /// Removes a device at once (renamed away first, then deleted).
    func remove(_ id: String) throws {
        let away = root + "/removed-\(UUID().uuidString)"
        try FileManager.default.moveItem(atPath: devices + "/" + id, toPath: away)
        try FileManager.default.removeItem(atPath: away)
    }

    func write(_ id: String, _ file: String, _ content: String) throws {
        try content.write(toFile: devices + "/" + id + "/" + file, atomically: true, encoding: .utf8)
    }

    func read(_ id: String, _ file: String) throws -> String {
        try String(contentsOfFile: devices + "/" + id + "/" + file, encoding: .utf8)
    }

    /// ST LIS3MDL through st_magn: shared scale 0.000146 G per count (±4 G), sampling_frequency 80 Hz.
    static let lis3mdl: [String: String] = [
        "name": "lis3mdl\n",
        "in_magn_x_raw": "1000\n", "in_magn_y_raw": "-2000\n", "in_magn_z_raw": "6842\n",
        "in_magn_scale": "0.000146\n",
        "sampling_frequency": "80\n", "sampling_frequency_available": "0.625 1.25 2.5 5 10 20 40 80\n",
    ]
    /// An st_accel accelerometer: 0.000598 m/s² per count.
    static let accelerometer: [String: String] = [
        "name": "lis3dh\n",
        "in_accel_x_raw": "-100\n", "in_accel_y_raw": "50\n", "in_accel_z_raw": "16400\n",
        "in_accel_scale": "0.000598\n", "sampling_frequency": "100\n",
    ]
    /// BMC150-like magnetometer with per-axis scales (z twice x and y) and per-axis offsets.
    static let bmc150: [String: String] = [
        "name": "bmc150_magn\n",
        "in_magn_x_raw": "100\n", "in_magn_y_raw": "-200\n", "in_magn_z_raw": "50\n",
        "in_magn_x_scale": "0.0003\n", "in_magn_y_scale": "0.0003\n", "in_magn_z_scale": "0.0006\n",
        "in_magn_x_offset": "10\n", "in_magn_z_offset": "-5\n",
        "in_magn_sampling_frequency": "25\n",
    ]
    /// An IMU with accelerometer and gyroscope in one device (bmi160-like).
    static let imu: [String: String] = [
        "name": "bmi160\n",
        "in_accel_x_raw": "1\n", "in_accel_y_raw": "2\n", "in_accel_z_raw": "3\n", "in_accel_scale": "0.000598\n",
        "in_anglvel_x_raw": "100\n", "in_anglvel_y_raw": "-100\n", "in_anglvel_z_raw": "0\n",
        "in_anglvel_scale": "0.001065\n",
        "in_accel_sampling_frequency": "100\n", "in_anglvel_sampling_frequency": "200\n",
    ]
}

/// Wraps the real file access and fails reads of `_raw` attributes with a chosen errno once `failAfter` raw
/// reads have succeeded.
final class FailingSysfs: SysfsAccess {
    let errno: Int32
    let failAfter: Int
    private let rawReads = Mutex(0)
    let base = LinuxSysfs()
    init(errno: Int32, failAfter: Int = 0) { self.errno = errno; self.failAfter = failAfter }
    func read(_ path: String) throws(SystemError) -> String {
        if path.hasSuffix("_raw") {
            let n = rawReads.withLock { n in defer { n += 1 }; return n }
            if n >= failAfter { throw SystemError("open", path: path, errno: errno) }
        }
        return try base.read(path)
    }
    func write(_ path: String, _ value: String) throws(SystemError) { try base.write(path, value) }
    func list(_ directory: String) throws(SystemError) -> [String] { try base.list(directory) }
}

/// A test sleep: at most 1 ms of real time, whatever was asked, so backoff and pacing run fast.
let quickSleep: IIOSource.Sleep = { ns in usleep(UInt32(max(1, min(ns, 1_000_000) / 1_000))) }

private func magnetometerSamples(_ events: [SensorEvent]) -> [RawSample] {
    events.compactMap { if case .motion(.magnetometerRaw(let raw)) = $0.payload { raw } else { nil } }
}

private func close(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool { abs(a - b) <= tolerance }

/// Runs a source on its own thread; stops it and waits for `finished` when the body returns.
private func running(_ source: IIOSource, sourceID: Int = 3, _ body: (SourceRecorder) throws -> Void) rethrows -> SourceRecorder {
    let sink = SourceRecorder()
    Thread.detachNewThread { source.run(sourceID: sourceID, sink: sink) }
    defer {
        source.stop()
        let finished = sink.wait { $0.states.last == .finished }
        #expect(finished, "run returned after stop()")
    }
    try body(sink)
    return sink
}

@Suite("IIO devices", .ownThreads)
struct IIOTests {
    @Test func discoveryListsNamesChannelsAndFrequencies() throws {
        let tree = try FakeIIOTree()
        try tree.add("iio:device0", FakeIIOTree.lis3mdl)
        try tree.add("iio:device1", FakeIIOTree.accelerometer)
        try tree.add("iio:device2", FakeIIOTree.bmc150)
        try tree.add("iio:device10", FakeIIOTree.imu)
        try tree.add("iio:device3", ["name": "bme280\n", "in_temp_input": "21500\n", "in_pressure_input": "101.3\n"])
        try tree.add("trigger0", ["name": "lis3mdl-trigger\n"])
        // Only two axes: not a usable three-axis channel.
        try tree.add("iio:device4", ["name": "odd\n", "in_magn_x_raw": "1\n", "in_magn_y_raw": "2\n", "in_magn_scale": "1\n"])

        let found = try IIODevice.discover(sysfsRoot: tree.root)
        #expect(found.map(\.id) == ["iio:device0", "iio:device1", "iio:device2", "iio:device3", "iio:device4", "iio:device10"])
        #expect(found.map(\.name) == ["lis3mdl", "lis3dh", "bmc150_magn", "bme280", "odd", "bmi160"])
        #expect(found.map(\.channels) == [[.magn], [.accel], [.magn], [], [], [.accel, .anglvel]])
        #expect(found.map(\.samplingFrequencyHz) == [80, 100, 25, nil, nil, 100])
        #expect(found[0].path == tree.devices + "/iio:device0")
    }

    @Test func absentIIOSubsystemGivesAnEmptyList() throws {
        let empty = try TemporaryDirectory()
        #expect(try IIODevice.discover(sysfsRoot: empty.url.path).isEmpty)
        // The real /sys of this machine: must not throw (this VM has no IIO bus at all).
        _ = try IIODevice.discover()
    }

    @Test func lis3mdlGaussScaleBecomesMicrotesla() throws {
        let tree = try FakeIIOTree()
        try tree.add("iio:device0", FakeIIOTree.lis3mdl)
        let device = try IIODevice.open("lis3mdl", sysfsRoot: tree.root)
        #expect(device.info.id == "iio:device0")
        let sample = try device.read(.magn)
        #expect([sample.x, sample.y, sample.z] == [1000, -2000, 6842])
        #expect(close(sample.scale, 0.0146))  // 0.000146 G × 100 µT/G
        let field = sample.vector
        #expect(close(field.x, 14.6) && close(field.y, -29.2) && close(field.z, 99.8932))
        #expect(try device.samplingFrequency(for: .magn) == 80)
        // The CLI's spelling (--imu iio:NAME) and a full path find the same device.
        #expect(try IIODevice.open("iio:lis3mdl", sysfsRoot: tree.root).info.id == "iio:device0")
        #expect(try IIODevice.open(tree.devices + "/iio:device0", sysfsRoot: tree.root).info.name == "lis3mdl")
    }

    /// The kernel's hmc5843 family reports 1/100 of gauss per count (the sysfs files as Debian's 6.1 kernel wrote
    /// them in `make hil` for an HMC5883L at its default gain, registers X 545, Y -218, Z 1090 at 1090 counts/G).
    @Test func hmc5843FamilyScaleIsCorrectedToGauss() throws {
        let tree = try FakeIIOTree()
        try tree.add("iio:device0", ["name": "hmc5883l\n", "in_magn_x_raw": "545\n", "in_magn_y_raw": "-218\n",
                                     "in_magn_z_raw": "1090\n", "in_magn_x_scale": "0.000009174\n",
                                     "in_magn_y_scale": "0.000009174\n", "in_magn_z_scale": "0.000009174\n",
                                     "sampling_frequency": "15\n"])
        let field = try IIODevice.open("hmc5883l", sysfsRoot: tree.root).read(.magn).vector
        #expect(close(field.x, 50, 0.01) && close(field.y, -20, 0.01) && close(field.z, 100, 0.01), "\(field)")
        // Other drivers keep the ABI's gauss.
        try tree.add("iio:device1", FakeIIOTree.lis3mdl)
        #expect(close(try IIODevice.open("lis3mdl", sysfsRoot: tree.root).read(.magn).scale, 0.0146))
    }

    @Test func accelerometerScaleIsMetersPerSecondSquared() throws {
        let tree = try FakeIIOTree()
        try tree.add("iio:device1", FakeIIOTree.accelerometer)
        let sample = try IIODevice.open("iio:device1", sysfsRoot: tree.root).read(.accel)
        #expect([sample.x, sample.y, sample.z] == [-100, 50, 16400])
        #expect(close(sample.scale, 0.000598))
        #expect(close(sample.vector.x, -0.0598) && close(sample.vector.y, 0.0299) && close(sample.vector.z, 9.8072))
    }

    @Test func perAxisScalesAndOffsetsFoldIntoCounts() throws {
        let tree = try FakeIIOTree()
        try tree.add("iio:device2", FakeIIOTree.bmc150)
        let device = try IIODevice.open("bmc150_magn", sysfsRoot: tree.root)
        let layout = try #require(device.layouts[.magn])
        #expect(layout.offsets == [10, 0, -5])
        let sample = try device.read(.magn)
        // (raw + offset) × axis scale: (100+10)×0.03 = 3.3, −200×0.03 = −6.0, (50−5)×0.06 = 2.7 µT.
        // Delivered on the smallest scale (0.03 µT): z counts doubled.
        #expect([sample.x, sample.y, sample.z] == [110, -200, 90])
        #expect(close(sample.scale, 0.03))
        #expect(close(sample.vector.x, 3.3) && close(sample.vector.y, -6.0) && close(sample.vector.z, 2.7))
        #expect(try device.samplingFrequency(for: .magn) == 25)
    }

    @Test func unequalAxisScalesRoundWithinHalfTheSmallestScale() throws {
        // LSM303DLHC at ±1.3 G: 1100 LSB/G on x and y, 980 LSB/G on z.
        let tree = try FakeIIOTree()
        try tree.add("iio:device0", [
            "name": "lsm303dlhc_magn\n", "in_magn_x_raw": "550\n", "in_magn_y_raw": "0\n", "in_magn_z_raw": "980\n",
            "in_magn_x_scale": "\(1.0 / 1100)\n", "in_magn_y_scale": "\(1.0 / 1100)\n", "in_magn_z_scale": "\(1.0 / 980)\n",
        ])
        let device = try IIODevice.open("iio:device0", sysfsRoot: tree.root)
        var sample = try device.read(.magn)
        #expect([sample.x, sample.y, sample.z] == [550, 0, 1100])
        #expect(close(sample.vector.x, 50) && close(sample.vector.z, 100))  // 0.5 G and exactly 1 G
        try tree.write("iio:device0", "in_magn_z_raw", "123\n")
        sample = try device.read(.magn)
        #expect(sample.z == 138)  // round(123 × 1100 / 980) = round(138.06)
        #expect(abs(sample.vector.z - 123.0 / 980 * 100) <= sample.scale / 2)
    }

    @Test func nonNumericContentIsInvalid() throws {
        let tree = try FakeIIOTree()
        var files = FakeIIOTree.lis3mdl
        files["in_magn_y_raw"] = "n/a\n"
        try tree.add("iio:device0", files)
        let device = try IIODevice.open("iio:device0", sysfsRoot: tree.root)
        #expect(throws: IIOError.invalidContent(path: tree.devices + "/iio:device0/in_magn_y_raw", content: "n/a")) {
            try device.read(.magn)
        }
    }

    @Test func missingScaleIsReported() throws {
        let tree = try FakeIIOTree()
        try tree.add("iio:device0", ["in_magn_x_raw": "1\n", "in_magn_y_raw": "1\n", "in_magn_z_raw": "1\n"])
        #expect(throws: IIOError.missingAttribute(path: tree.devices + "/iio:device0/in_magn_scale")) {
            try IIODevice.open("iio:device0", sysfsRoot: tree.root)
        }
        #expect(throws: IIOError.notFound("ak8975")) { try IIODevice.open("ak8975", sysfsRoot: tree.root) }
    }

    @Test func samplingFrequencyIsWritten() throws {
        let tree = try FakeIIOTree()
        try tree.add("iio:device0", FakeIIOTree.lis3mdl)
        try tree.add("iio:device2", FakeIIOTree.bmc150)
        try IIODevice.open("iio:device0", sysfsRoot: tree.root).setSamplingFrequency(40, for: .magn)
        #expect(try tree.read("iio:device0", "sampling_frequency") == "40\n")
        try IIODevice.open("iio:device2", sysfsRoot: tree.root).setSamplingFrequency(12.5, for: .magn)
        #expect(try tree.read("iio:device2", "in_magn_sampling_frequency") == "12.5\n")
    }

    @Test func sourceDeliversStampedSamplesAndWritesTheRequestedFrequency() throws {
        let tree = try FakeIIOTree()
        try tree.add("iio:device10", FakeIIOTree.imu)
        var settings = IIOSource.Settings()
        settings.requestedSamplingFrequencyHz = 50
        let source = IIOSource(name: "imu0", device: "bmi160", sysfsRoot: tree.root, settings: settings, sleep: quickSleep)
        let sink = running(source) { sink in
            #expect(sink.wait { $0.events.count >= 6 })
        }
        let events = sink.events
        #expect(events.isNonEmptyAndAllSatisfy { $0.sourceID == 3 && $0.monotonicNanos != nil })
        let stamps = events.compactMap(\.monotonicNanos)
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 <= $1 })
        guard case .motion(.accelerometerRaw(let accel)) = events[0].payload,
              case .motion(.gyroscopeRaw(let gyro)) = events[1].payload else {
            Issue.record("expected accelerometer then gyroscope, got \(events.prefix(2).map(\.payload))"); return
        }
        #expect([accel.x, accel.y, accel.z] == [1, 2, 3] && close(accel.scale, 0.000598))
        #expect([gyro.x, gyro.y, gyro.z] == [100, -100, 0] && close(gyro.scale, 0.001065))
        #expect(try tree.read("iio:device10", "in_accel_sampling_frequency") == "50\n")
        #expect(sink.states == [.starting, .available, .finished])
        #expect(source.captureAttributes["chip"] == "bmi160")
        #expect(source.captureAttributes["channels"] == "accel,anglvel")
    }

    @Test func removalMidRunIsUnavailableAndRecreationRecovers() throws {
        let tree = try FakeIIOTree()
        try tree.add("iio:device0", FakeIIOTree.lis3mdl)
        let source = IIOSource(name: "mag0", device: "lis3mdl", sysfsRoot: tree.root, sleep: quickSleep)
        var countAtRemoval = 0
        let sink = try running(source) { sink in
            #expect(sink.wait { magnetometerSamples($0.events).count >= 3 })
            try tree.remove("iio:device0")
            #expect(sink.wait { $0.states.contains(.unavailable) })
            countAtRemoval = sink.events.count
            // Still gone for a while: retried with backoff, reported once.
            usleep(50_000)
            #expect(sink.events.count == countAtRemoval)
            // Back under another number (probe order changed): found again by name.
            var files = FakeIIOTree.lis3mdl
            files["in_magn_x_raw"] = "-1\n"
            try tree.add("iio:device4", files)
            #expect(sink.wait { $0.states.contains(.recovered) })
            #expect(sink.wait { $0.events.count >= countAtRemoval + 3 })
        }
        #expect(sink.states == [.starting, .available, .unavailable, .recovered, .finished])
        let unavailable = sink.statuses.first { $0.state == .unavailable }
        #expect(unavailable?.message?.contains("vanished") == true)
        #expect(sink.statuses.first { $0.state == .recovered }?.message?.contains("iio:device4") == true)
        let after = magnetometerSamples(Array(sink.events.dropFirst(countAtRemoval)))
        #expect(after.first.map { [$0.x, $0.y, $0.z] } == [-1, -2000, 6842])
        #expect(source.statistics.opens == 2)
    }

    @Test func nonNumericRawIsCountedAndSkippedWhileRunning() throws {
        let tree = try FakeIIOTree()
        var files = FakeIIOTree.lis3mdl
        files["in_magn_z_raw"] = "garbage\n"
        try tree.add("iio:device0", files)
        let source = IIOSource(name: "mag0", device: "iio:device0", sysfsRoot: tree.root, sleep: quickSleep)
        let sink = try running(source) { sink in
            #expect(sink.wait { _ in source.statistics.invalidReads >= 3 })
            #expect(sink.events.isEmpty)
            try tree.write("iio:device0", "in_magn_z_raw", "7\n")
            #expect(sink.wait { $0.events.count >= 2 })
        }
        #expect(sink.states == [.starting, .available, .finished])  // invalid content is not an outage
        #expect(magnetometerSamples(sink.events).first?.z == 7)
        #expect(source.statistics.samples >= 2)
    }

    /// EACCES and EBUSY from the start: the open's trial read fails, so the source never claims `available`.
    @Test(arguments: [
        (EACCES, StatusReport.State.denied, "usermod -aG i2c"),
        (EBUSY, .unavailable, "iio-sensor-proxy"),
    ])
    func unreadableDeviceIsNeverAvailable(errno: Int32, state: StatusReport.State, hint: String) throws {
        let tree = try FakeIIOTree()
        try tree.add("iio:device0", FakeIIOTree.lis3mdl)
        let source = IIOSource(name: "mag0", device: "iio:device0", sysfsRoot: tree.root,
                               sysfs: FailingSysfs(errno: errno), sleep: quickSleep)
        let sink = running(source) { sink in
            #expect(sink.wait { $0.states.contains(state) })
            usleep(30_000)  // several retries with backoff
        }
        let report = try #require(sink.statuses.first { $0.state == state })
        #expect(report.message?.contains(hint) == true, "\(report.message ?? "")")
        #expect(sink.events.isEmpty)
        #expect(sink.states == [.starting, state, .finished], "an outage is reported once")
    }

    @Test func repeatedIOErrorsMakeTheDeviceUnavailable() throws {
        let tree = try FakeIIOTree()
        try tree.add("iio:device0", FakeIIOTree.lis3mdl)
        var settings = IIOSource.Settings()
        settings.errorsBeforeUnavailable = 3
        // Open (3 raw reads) and two samples succeed, then every read fails with EIO.
        let source = IIOSource(name: "mag0", device: "iio:device0", sysfsRoot: tree.root, settings: settings,
                               sysfs: FailingSysfs(errno: EIO, failAfter: 9), sleep: quickSleep)
        let sink = running(source) { sink in
            #expect(sink.wait { $0.states.contains(.unavailable) && source.statistics.ioErrors >= 5 })
        }
        #expect(sink.events.count == 2)
        #expect(sink.states == [.starting, .available, .unavailable, .finished])
        #expect(sink.statuses.first { $0.state == .unavailable }?.message?.contains("Input/output error") == true)
    }

    @Test(.enabled(if: getuid() != 0, "running as root: file modes cannot deny a read"))
    func realPermissionDeniedIsDenied() throws {
        let tree = try FakeIIOTree()
        let path = try tree.add("iio:device0", FakeIIOTree.lis3mdl)
        chmod(path + "/in_magn_x_raw", 0o200)
        let device = try IIODevice.open("iio:device0", sysfsRoot: tree.root)
        let error = #expect(throws: IIOError.self) { try device.read(.magn) }
        guard case .denied = error else { Issue.record("expected denied, got \(String(describing: error))"); return }
    }
}
