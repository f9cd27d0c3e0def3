import ArgumentParser
import Capture
import Maps

struct MapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "map",
        abstract: "Draw a drive on an offline map: a self-contained HTML page (pan and zoom) or an SVG file.",
        discussion: """
        The input is any replayable capture (replayed without and with smoothing: the raw and the smoothed track) \
        or Lodestar JSON-lines output. The base map is drawn from the bundled Natural Earth country polygons; \
        nothing is fetched, and the file opens without a network. Shown: raw and smoothed tracks, accuracy \
        circles, dead-reckoned stretches, heading cones (width = headingAccuracy), magnetic interference, \
        visits, regions with entries and exits, scale bar, north arrow, legend and a summary. See docs/maps.md.

        Examples:
          lodestar map captures/simulated-drive.lcap -o drive.html
          lodestar map --regions captures/simulated-drive-regions.json captures/simulated-drive.lcap -o drive.svg
          lodestar replay drive.nmea > fixes.jsonl && lodestar map fixes.jsonl -o fixes.html
        """)

    @OptionGroup var inputOptions: TrackInputOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Output file: .html or .svg ('-' writes HTML to standard output unless --svg).", valueName: "file"))
    var output: String

    @Flag(name: .long, help: "Write SVG (default: from the output file's extension).")
    var svg = false

    @Option(name: .long, help: ArgumentHelp("Map size in pixels, WIDTHxHEIGHT (default 1200x800).", valueName: "size"))
    var size: String = "1200x800"

    @Option(name: .long, help: "Title (default: the place of the first fix, from the offline geocoder).")
    var title: String?

    func parsedSize() -> (Double, Double)? {
        let parts = size.split(separator: "x")
        guard parts.count == 2, let w = Double(parts[0]), let h = Double(parts[1]), (200...8000).contains(w), (200...8000).contains(h) else { return nil }
        return (w, h)
    }

    func validate() throws {
        if parsedSize() == nil { throw ValidationError("--size must be WIDTHxHEIGHT, each 200…8000 pixels, got '\(size)'") }
        let lower = output.lowercased()
        if !svg && output != "-" && !(lower.hasSuffix(".html") || lower.hasSuffix(".htm") || lower.hasSuffix(".svg")) {
            throw ValidationError("the output file must end in .html or .svg (or use --svg), got '\(output)'")
        }
    }

    func run() throws {
        let data = try inputOptions.loader.load()
        if data.raw.isEmpty && data.smoothed.isEmpty {
            printError("lodestar: \(inputOptions.input): no fixes with a position; drawing an empty map")
        }
        var style = MapRenderer.Style()
        (style.width, style.height) = parsedSize()!
        style.title = title
        let renderer = MapRenderer(data, style: style)
        let asSVG = svg || output.lowercased().hasSuffix(".svg")
        try writeWholeFile(output, asSVG ? renderer.svg() : renderer.html())
    }
}

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a drive as GPX 1.1, GeoJSON, KML or CSV; or regions as GeoJSON.",
        discussion: """
        The input is as for `lodestar map`. GPX carries time, elevation, hdop and satellites per point, speed and \
        course in Garmin's TrackPointExtension, and Lodestar's accuracy and heading in its own extension; visits \
        and region crossings are waypoints. GeoJSON (RFC 7946) has a LineString per track plus a Point feature \
        per fix, visit and crossing. KML has the track as a LineString and as a timed gx:Track. See docs/maps.md.

        Examples:
          lodestar export captures/simulated-drive.lcap --format gpx -o drive.gpx
          lodestar export fixes.jsonl --format geojson > drive.geojson
          lodestar export --regions-only --regions captures/simulated-drive-regions.json --format geojson
        """)

    @Argument(help: ArgumentHelp("A capture (any replayable format) or Lodestar JSON-lines output.", valueName: "input"))
    var input: String?

    @Option(name: .long, help: "Input format instead of detecting it: lodestar, nmea, gnsslogger, imu-csv.")
    var inputFormat: CaptureFormat?

    @Option(name: .long, help: "gpx, geojson, kml or csv.")
    var format: TrackExporter.Format

    @Option(name: .long, help: "Which track: smoothed (default; raw when the input has no smoothed fixes), raw or both.")
    var track: TrackExporter.Tracks = .smoothed

    @Option(name: .long, help: ArgumentHelp("Circular regions (regions JSON or GeoJSON) to monitor; entries and exits are exported.", valueName: "file"))
    var regions: String?

    @Flag(name: .long, help: "Export only the --regions file, as GeoJSON (no input).")
    var regionsOnly = false

    @Option(name: .shortAndLong, help: ArgumentHelp("Output file (default: standard output).", valueName: "file"))
    var output: String = "-"

    func validate() throws {
        if regionsOnly {
            guard regions != nil else { throw ValidationError("--regions-only needs --regions FILE") }
            guard format == .geojson else { throw ValidationError("--regions-only writes GeoJSON: use --format geojson") }
        } else if input == nil {
            throw ValidationError("give an input file (a capture or Lodestar JSON lines)")
        }
    }

    func run() throws {
        if regionsOnly, let path = regions {
            do {
                let list = try RegionIO.parse(try ServiceOptions.readFile(path))
                try writeWholeFile(output, RegionIO.geoJSON(list))
            } catch let e as CaptureError { throw CommandFailure(e.description, code: Exit.code(for: e)) }
            catch { throw CommandFailure("\(path): \(error)", code: Exit.dataError) }
            return
        }
        let data = try TrackLoader(input: input!, format: inputFormat, regions: regions).load()
        if data.raw.isEmpty && data.smoothed.isEmpty {
            printError("lodestar: \(input!): no fixes with a position")
        }
        try writeWholeFile(output, TrackExporter.export(data, format: format, tracks: track, name: input!))
    }
}

extension TrackExporter.Format: ExpressibleByArgument {}
extension TrackExporter.Tracks: ExpressibleByArgument {}
