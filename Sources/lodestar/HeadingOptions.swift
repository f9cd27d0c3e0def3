import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import Capture
import LocationCore
import Magnetics
import Pipeline

/// Heading options shared by `replay` and `run`.
struct HeadingOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A calibration file written by `lodestar calibrate` (hard and soft iron).", valueName: "file"))
    var calibration: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("A fixed position LAT,LON[,HEIGHT_M] for the true-north correction (WMM2025) until a GNSS fix arrives.", valueName: "lat,lon"))
    var location: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Deliver a heading only when it changed by at least this many degrees, or its validity or interference changed (Core Location's headingFilter).", valueName: "degrees"))
    var headingFilter: Double = HeadingEstimator.Settings.default.headingFilterDegrees

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Display orientation offset added to every heading (degrees, e.g. 90 for a screen in landscape).", valueName: "degrees"))
    var displayOffset: Double = 0

    @Option(name: .customLong("sensor-mounting"), parsing: .unconditional, help: ArgumentHelp("How the magnetometer/IMU axes map onto the board (x forward, y left, z up), e.g. -y,x,z. Headings are of the board's x axis.", valueName: "axes"))
    var sensorMounting: String?

    @Flag(name: .long, help: "Do not compute headings from motion samples.")
    var noHeading = false

    @Flag(name: .long, help: "Do not refine the magnetometer calibration in the background (by default a better fit is adopted when coverage, residual and field strength justify it; see docs/calibration.md).")
    var noBackgroundCalibration = false

    @Option(name: .long, help: ArgumentHelp("Which heading: automatic (the vehicle estimator once a fix shows vehicle speed), vehicle, or handheld (docs/heading.md).", valueName: "platform"))
    var platform: String = "automatic"

    @Option(name: .long, help: ArgumentHelp("Vehicle calibration learned in motion: read at start when the file exists, written (atomically) whenever a calibration is adopted and at the end (docs/heading.md).", valueName: "file"))
    var calibrationState: String?

    @Option(name: .long, help: ArgumentHelp("Course-vs-heading uncertainty for vehicles that sideslip (degrees, 1 σ; car 1, boat 5–10).", valueName: "degrees"))
    var sideslip: Double = VehicleHeadingEstimator.Settings.default.sideslipDegrees

    func validate() throws {
        guard VehicleHeadingStage.Platform(rawValue: platform) != nil else {
            throw ValidationError("--platform must be automatic, vehicle or handheld, got '\(platform)'")
        }
        guard sideslip.isFinite, sideslip >= 0, sideslip < 90 else { throw ValidationError("--sideslip must be in [0, 90)") }
        guard headingFilter >= 0, headingFilter < 360, headingFilter.isFinite else { throw ValidationError("--heading-filter must be in [0, 360)") }
        guard displayOffset.isFinite else { throw ValidationError("--display-offset must be a number") }
        if let location, Self.parseLocation(location) == nil {
            throw ValidationError("--location must be LAT,LON[,HEIGHT_M] with -90…90 and -180…360, got '\(location)'")
        }
        if let m = sensorMounting {
            do { _ = try SensorMounting(parsing: m) } catch { throw ValidationError("--sensor-mounting \(m): \(error)") }
        }
    }

    static func parseLocation(_ text: String) -> Location? {
        let parts = text.split(separator: ",").map { Double(String($0).trimmingCharacters(in: " ")) }
        guard parts.count == 2 || parts.count == 3, let lat = parts[0], let lon = parts[1], (-90...90).contains(lat),
              (-180...360).contains(lon) else { return nil }
        var l = Location()
        l.latitudeDegrees = lat
        l.longitudeDegrees = lon
        if parts.count == 3 { guard let h = parts[2] else { return nil }; l.altitudeEllipsoidMeters = h }
        l.mode = parts.count == 3 ? .threeD : .twoD
        return l
    }

    /// Applies the options to pipeline settings; a bad calibration file ends the run with one line (exit 65/66).
    func apply(to settings: inout Pipeline.Settings, today: CivilDate) throws {
        guard !noHeading else { settings.heading.heading = nil; return }
        var h = HeadingEstimator.Settings.default
        h.headingFilterDegrees = headingFilter
        h.displayOffsetDegrees = displayOffset
        if let m = sensorMounting, let mounting = try? SensorMounting(parsing: m) { h.mounting = mounting }
        settings.heading.heading = h
        settings.heading.backgroundCalibration = !noBackgroundCalibration
        if let path = calibration {
            do {
                let reader = LineReader(source: try ByteSource(path: path))
                var bytes: [UInt8] = []
                while try reader.nextLine({ line, _ -> Bool in bytes += line; bytes.append(0x0A); return true }) != nil {}
                settings.heading.calibration = try CalibrationFile(bytes: bytes).calibration
            } catch CaptureError.isDirectory(let p) {
                throw CommandFailure("--calibration \(p): is a directory; give the calibration file written by lodestar calibrate",
                                     code: Exit.noInput)
            } catch let e as CaptureError {
                throw CommandFailure("--calibration " + e.description, code: Exit.code(for: e))
            } catch {
                throw CommandFailure("\(path): \(error)", code: Exit.dataError)
            }
        }
        settings.heading.platform = VehicleHeadingStage.Platform(rawValue: platform) ?? .automatic
        settings.heading.vehicleHeading.sideslipDegrees = sideslip
        if let path = calibrationState, access(path, F_OK) == 0 {
            do {
                let reader = LineReader(source: try ByteSource(path: path))
                var bytes: [UInt8] = []
                while try reader.nextLine({ line, _ -> Bool in bytes += line; bytes.append(0x0A); return true }) != nil {}
                settings.heading.vehicleCalibrationState = try VehicleCalibrationState(parsing: String(decoding: bytes, as: UTF8.self))
            } catch let e as CaptureError {
                throw CommandFailure(e.description, code: Exit.code(for: e))
            } catch {
                throw CommandFailure("\(path): \(error)", code: Exit.dataError)
            }
        }
        if let path = calibrationState {
            // Persisted whenever a calibration is adopted or refined; a failed write is reported and retried at
            // the next change and at the end (where it fails the command).
            settings.heading.vehicleCalibrationChanged = { state in
                do { try Calibrate.write(state.text, to: path) } catch { printError("\(error)") }
            }
        }
        if let text = location, var l = Self.parseLocation(text) {
            l.time = Timestamp(year: today.year, month: today.month, day: today.day)
            settings.heading.configuredLocation = l
        }
    }
}

extension HeadingOptions {
    /// Writes the vehicle calibration at the end of a session (`--calibration-state`).
    func saveState(_ pipeline: Pipeline?) throws {
        guard let path = calibrationState, let state = pipeline?.vehicle?.estimator.calibrationState else { return }
        try Calibrate.write(state.text, to: path)
    }
}
