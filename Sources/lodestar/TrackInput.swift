import ArgumentParser
import Capture
import CLinux
import Events
import LocationCore
import LodestarIO
import SystemPackage
import LocationServices
import Maps
import NMEA
import Pipeline
#if canImport(Glibc)
import Glibc
#endif

/// Input of `lodestar map` and `lodestar export`: any replayable capture (replayed twice through the pipeline, without
/// and with smoothing, for the raw and the smoothed track) or Lodestar JSON-lines output (read back).
struct TrackInputOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("A capture (any replayable format) or Lodestar JSON-lines output.", valueName: "input"))
    var input: String

    @Option(name: .long, help: "Input format instead of detecting it: lodestar, nmea, gnsslogger, imu-csv (JSON lines are detected).")
    var format: CaptureFormat?

    @Option(name: .long, help: ArgumentHelp("Draw and monitor the circular regions in this JSON file (as for replay --regions, or GeoJSON from export --format geojson --regions).", valueName: "file"))
    var regions: String?

    @Option(name: .long, help: ArgumentHelp("Shortest dwell that counts as a visit (default 120 s).", valueName: "seconds"))
    var visitMinDwell: Double?

    @Option(name: .long, help: ArgumentHelp("Date (YYYY-MM-DD) near the recording, for 2-digit years and GPS week rollover, when the capture has no '# Date:' header. Default: today.", valueName: "date"))
    var referenceDate: String?

    @Flag(name: .long, help: "Accept NMEA sentences without a checksum.")
    var lenient = false

    @OptionGroup(title: "Heading") var headingOptions: HeadingOptions

    func validate() throws {
        if let d = referenceDate, parseISODate(d) == nil { throw ValidationError("--reference-date must be YYYY-MM-DD, got '\(d)'") }
        if let v = visitMinDwell, !(v > 0 && v.isFinite) { throw ValidationError("--visit-min-dwell must be a positive number of seconds") }
    }

    var loader: TrackLoader {
        TrackLoader(input: input, format: format, regions: regions, visitMinDwell: visitMinDwell,
                    referenceDate: referenceDate.flatMap(parseISODate), lenient: lenient,
                    configure: { [headingOptions] settings, today in try headingOptions.apply(to: &settings, today: today) })
    }
}

/// Loads `MapData` from a capture or from JSON lines.
struct TrackLoader {
    var input: String
    var format: CaptureFormat?
    var regions: String?
    var visitMinDwell: Double?
    var referenceDate: CivilDate?
    var lenient = false
    /// Adjusts the pipeline's settings (heading options) before each replay.
    var configure: (inout Pipeline.Settings, CivilDate) throws -> Void = { _, _ in }

    /// Loads the input, failing with one line and a distinct exit code.
    func load(quiet: Bool = false) throws -> MapData {
        var regionList: [CircularRegion] = []
        if let path = regions {
            do {
                let bytes = try ServiceOptions.readFile(path)
                regionList = try RegionIO.parse(bytes)
            } catch let e as CaptureError { throw CommandFailure(e.description, code: Exit.code(for: e)) }
            catch { throw CommandFailure("\(path): \(error)", code: Exit.dataError) }
        }
        let prefix: [UInt8]
        do {
            let source = try ByteSource(path: input)
            prefix = Array(try source.read())
        } catch { throw CommandFailure(error.description, code: Exit.code(for: error)) }
        if format == nil && JSONLinesTrackReader.looksLikeJSONLines(prefix) {
            let bytes: [UInt8]
            do { bytes = try ServiceOptions.readFile(input) } catch { throw CommandFailure(error.description, code: Exit.code(for: error)) }
            var reader = JSONLinesTrackReader()
            reader.read(bytes)
            if !quiet && reader.corruptLines > 0 {
                printError("lodestar: \(input): \(reader.corruptLines) of \(reader.lines) lines are not Lodestar JSON objects (skipped)")
            }
            var data = reader.data
            data.regions = MapRecorder.regions(regionList)
            return data
        }
        var recorder = MapRecorder()
        recorder.setRegions(regionList)
        try replay(smoothing: false, regions: [], into: &recorder)
        try replay(smoothing: true, regions: regionList, into: &recorder)
        return recorder.data
    }

    private func replay(smoothing: Bool, regions: [CircularRegion], into recorder: inout MapRecorder) throws {
        let reader: any CaptureReader
        do { reader = try CaptureDetector.open(path: input, format: format) } catch { throw CommandFailure(error.description, code: Exit.code(for: error)) }
        var settings = Pipeline.Settings()
        settings.nmea.framer = NMEAFramer.Options(acceptMissingChecksum: lenient)
        settings.nmea.emitSky = false
        if !smoothing { settings.smoothing.smoothing = nil }
        let today = CivilDate(daysSinceEpochFromClock: clinux_realtime_ns())
        try configure(&settings, today)
        var services: LocationServicesStage?
        if smoothing {
            var s = LocationServicesStage.Settings()
            s.regions = regions
            var v = VisitDetector.Settings()
            if let d = visitMinDwell { v.minimumDwellSeconds = d }
            s.visits = v
            services = LocationServicesStage(settings: s)
        }
        var pipeline: Pipeline?
        let role: MapRecorder.Role = smoothing ? .smoothed : .raw
        recorder.countsHeadings = smoothing
        recorder.beginRun()
        var events: [OutputEvent] = []
        do {
            while let event = try reader.next() {
                if pipeline == nil {
                    settings.nmea.referenceDate = reader.header.referenceDate ?? referenceDate ?? today
                    let p = Pipeline(settings: settings, encoder: makeEncoder(.json), sinks: [])
                    p.services = services
                    p.observer = { events.append($0) }
                    pipeline = p
                }
                pipeline?.process(event)
                for e in events { recorder.record(e, as: role) }
                events.removeAll(keepingCapacity: true)
            }
        } catch { throw CommandFailure(error.description, code: Exit.code(for: error)) }
        pipeline?.finish()
        for e in events { recorder.record(e, as: role) }
    }
}
/// Writes a whole file (created or truncated; "-" is standard output), failing with one line and exit 73/74/77.
func writeWholeFile(_ path: String, _ text: String) throws {
    do throws(SystemError) {
        if path == "-" {
            do { try Syscall.writeFully(1, Array(text.utf8)) } catch { throw SystemError("write", path: "standard output", error) }
        } else {
            try Syscall.writeWholeFile(path, Array(text.utf8))
        }
    } catch { throw CommandFailure(error) }
}
