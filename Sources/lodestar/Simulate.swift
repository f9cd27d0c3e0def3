import ArgumentParser
import Capture
import LocationCore
#if canImport(Glibc)
import Glibc
#endif

struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
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

    func validate() throws {
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
        let truthRows: [RouteSimulator.TruthSample]
        let capturePath = format == .lodestar ? output : output + ".lcap-tmp-\(getpid())"
        do {
            let writer = try CaptureWriter(path: capturePath)
            truthRows = try RouteSimulator(settings: settings).write(to: writer)
            try writer.close()
            if format == .nmea {
                defer { unlink(capturePath) }
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
