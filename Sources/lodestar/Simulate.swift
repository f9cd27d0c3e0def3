import ArgumentParser
import Capture
import LocationCore
import LodestarIO
import Magnetics
import Simulation
#if canImport(Glibc)
import Glibc
#endif

struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Write a deterministic, seeded capture of a simulated drive (GNSS NMEA with noise and a stop, magnetometer with hard iron and an interference event, accelerometer).",
        discussion: """
        The same seed always gives the same bytes. captures/simulated-drive.lcap was made with:
          lodestar simulate --seed 1 --duration 300 captures/simulated-drive.lcap
        """)

    @Argument(help: ArgumentHelp("Where to write the Lodestar capture ('-' for standard output).", valueName: "file"))
    var output: String

    @Option(name: .long, parsing: .unconditional, help: "Random seed.")
    var seed: UInt64 = RouteSimulator.Settings.default.seed

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Length of the drive in seconds.", valueName: "seconds"))
    var duration: Double = RouteSimulator.Settings.default.durationSeconds

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("GNSS fix rate.", valueName: "Hz"))
    var gnssRate: Double = RouteSimulator.Settings.default.gnssRateHz

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Magnetometer/accelerometer sample rate.", valueName: "Hz"))
    var imuRate: Double = RouteSimulator.Settings.default.imuRateHz

    @Option(name: .long, help: ArgumentHelp("Also write the ground truth as CSV here.", valueName: "file"))
    var truth: String?

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case lodestar, nmea
    }

    @Option(name: .long, help: "lodestar (a capture with GNSS and IMU records) or nmea (only the receiver's NMEA stream, as a serial port would deliver it: for gpsfake, a pty or other NMEA tools).")
    var format: Format = .lodestar

    @Flag(name: .long, help: "Also write gyroscope records (bias and noise).")
    var gyroscope = false

    @Option(name: .long, help: ArgumentHelp("Drive at another place: the origin and the WMM2025 field there (instead of Mountain View's fixed field).", valueName: "lat,lon"))
    var location: String?

    @Option(name: .long, help: ArgumentHelp("Hills: road pitch amplitude (degrees, 700 m wavelength).", valueName: "degrees"))
    var hillDegrees: Double = 0

    @Option(name: .long, help: ArgumentHelp("Sensor mounting against the vehicle: yaw (clockwise), pitch, roll in degrees; the header still says identity.", valueName: "yaw,pitch,roll"))
    var mount: String?

    @Option(name: .long, help: ArgumentHelp("A GNSS outage (tunnel): no NMEA from START for SECONDS; repeatable.", valueName: "start,seconds"))
    var gnssOutage: [String] = []

    @Option(name: .long, help: ArgumentHelp("From this time the hard iron changes to (−6, 10, −4) µT.", valueName: "seconds"))
    var hardIronChange: Double?

    @Option(name: .long, help: ArgumentHelp("Start and length of the magnetic disturbance (default 200,5).", valueName: "start,seconds"))
    var interference: String?

    private static func numbers(_ text: String, _ count: Int) -> [Double]? {
        let v = text.split(separator: ",").map { Double(String($0.filter { $0 != " " })) }
        guard v.count == count, v.allSatisfy({ $0?.isFinite == true }) else { return nil }
        return v.map { $0! }
    }

    func validate() throws {
        if let l = location {
            guard let v = Self.numbers(l, 2), abs(v[0]) <= 89, abs(v[1]) <= 360 else { throw ValidationError("--location must be LAT,LON") }
        }
        if let m = mount, Self.numbers(m, 3) == nil { throw ValidationError("--mount must be YAW,PITCH,ROLL (degrees)") }
        for o in gnssOutage where Self.numbers(o, 2) == nil { throw ValidationError("--gnss-outage must be START,SECONDS") }
        if let i = interference, Self.numbers(i, 2) == nil { throw ValidationError("--interference must be START,SECONDS") }
        guard hillDegrees.isFinite, abs(hillDegrees) <= 20 else { throw ValidationError("--hill-degrees must be within ±20") }
        guard duration > 0, duration <= 86_400, duration.isFinite else { throw ValidationError("--duration must be in (0, 86400] seconds") }
        guard gnssRate > 0, gnssRate <= 50 else { throw ValidationError("--gnss-rate must be in (0, 50] Hz") }
        guard imuRate > 0, imuRate <= 2000 else { throw ValidationError("--imu-rate must be in (0, 2000] Hz") }
    }

    func run() throws {
        var settings = RouteSimulator.Settings.default
        settings.seed = seed
        settings.durationSeconds = duration
        settings.gnssRateHz = gnssRate
        settings.imuRateHz = imuRate
        settings.gyroscope = gyroscope
        settings.hillAmplitudeDegrees = hillDegrees
        if let l = location, let v = Self.numbers(l, 2) {
            settings.originLatitudeDegrees = v[0]; settings.originLongitudeDegrees = v[1]
            let e = WorldMagneticModel.wmm2025.field(latitudeDegrees: v[0], longitudeDegrees: v[1],
                                                     heightAboveEllipsoidKilometers: 0,
                                                     decimalYear: WorldMagneticModel.decimalYear(of: settings.start))
            settings.earthFieldNEDMicrotesla = Vector3(x: e.northNanotesla / 1000, y: e.eastNanotesla / 1000, z: e.downNanotesla / 1000)
        }
        if let m = mount, let v = Self.numbers(m, 3) {
            settings.mountYawDegrees = v[0]; settings.mountPitchDegrees = v[1]; settings.mountRollDegrees = v[2]
        }
        settings.gnssOutages = gnssOutage.compactMap { Self.numbers($0, 2) }.map { ($0[0], $0[1]) }
        if let h = hardIronChange { settings.hardIronChangeSeconds = h }
        if let i = interference, let v = Self.numbers(i, 2) {
            settings.interferenceStartSeconds = v[0]; settings.interferenceDurationSeconds = v[1]
        }
        let truthRows: [RouteSimulator.TruthSample]
        let capturePath = format == .lodestar ? output : output + ".lcap-tmp-\(getpid())"
        do {
            let writer = try CaptureWriter(path: capturePath)
            truthRows = try RouteSimulator(settings: settings).write(to: writer)
            try writer.close()
            if format == .nmea {
                defer { Syscall.remove(capturePath) }
                let reader = try LodestarCaptureReader(path: capturePath)
                let out = try CaptureWriter(path: output)
                while let event = try reader.next() {
                    if case .nmea(let bytes) = event.payload { try out.writeRaw(bytes) }
                }
                try out.close()
            }
        } catch {
            throw CommandFailure(error.description, code: error == .permissionDenied(path: output) ? Exit.permission : Exit.cannotCreate)
        }
        if let truth {
            do {
                let w = try CaptureWriter(path: truth)
                try w.writeRaw(RouteSimulator.truthCSV(truthRows))
                try w.close()
            } catch {
                throw CommandFailure(error.description, code: Exit.cannotCreate)
            }
        }
    }
}
