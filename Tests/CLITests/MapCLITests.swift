import Foundation
import Testing
import TestSupport

/// `lodestar map` and `lodestar export` end to end, read back by real programs: Chromium, xmllint (GPX 1.1
/// schema), gpsbabel, GDAL's ogrinfo.
@Suite("lodestar map and export", .ownThreads)
struct MapCLITests {
    static let capture = "captures/simulated-drive.lcap"
    static let regions = "captures/simulated-drive-regions.json"
    static let schema = SharedData.packageRoot.appendingPathComponent("Tests/MapsTests/Resources/gpx-1.1.xsd").path

    static func tool(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }
    static let haveXmllint = tool("/usr/bin/xmllint")
    static let haveGpsbabel = tool("/usr/bin/gpsbabel")
    static let haveOgrinfo = tool("/usr/bin/ogrinfo")
    static let missingGPXTools = "xmllint or gpsbabel is not installed (`make map-test-deps`: libxml2-utils, gpsbabel): the GPX export is not read back"
    static let missingOgrinfo = "ogrinfo is not installed (`make map-test-deps`: gdal-bin): GeoJSON and KML exports are not read back"

    /// xmllint says `path` is well-formed XML. `make test` installs xmllint (map-test-deps): without it the check
    /// cannot run, which is recorded as an issue rather than passing silently.
    static func expectWellFormedXML(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard haveXmllint else {
            Issue.record("xmllint is not installed (`make map-test-deps`: libxml2-utils): \(path) not checked as XML",
                         sourceLocation: sourceLocation)
            return
        }
        let r = try run("/usr/bin/xmllint", ["--noout", path])
        #expect(r.status == 0, "xmllint: \(r.stderr)", sourceLocation: sourceLocation)
    }

    static func run(_ path: String, _ args: [String]) throws -> RunResult { try Tool.output(path, args) }

    /// The smoothed fixes of the capture as `lodestar replay` prints them (the truth the exports must carry).
    static func replayedFixes() throws -> [[String: Any]] {
        let r = try Lodestar.run(["replay", "--quiet", capture])
        return r.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }.filter { $0["class"] as? String == "fix" && $0["latitudeDegrees"] != nil }
    }

    @Test(.enabled(if: Chromium.available, Comment(rawValue: Chromium.skipMessage)))
    func mapOfTheShippedCaptureOpensInChromium() throws {
        let dir = try TemporaryDirectory()
        let html = dir.path("drive.html"), svg = dir.path("drive.svg")
        let r = try Lodestar.run(["map", "--regions", Self.regions, "--visit-min-dwell", "45", Self.capture, "-o", html])
        #expect(r.status == 0, "\(r.stderr)")
        let dom = try Chromium.dumpDOM("file://" + html)
        #expect(dom.contains("data-ready=\"true\""))
        #expect(dom.components(separatedBy: "class=\"region\"").count - 1 == 3)
        #expect(dom.contains("class=\"crossing enter\"") && dom.contains("class=\"crossing exit\""))
        #expect(dom.contains("class=\"visit\""))
        #expect(dom.contains("300 fixes"))
        #expect(dom.contains("Mountain View"))
        let s = try Lodestar.run(["map", "--regions", Self.regions, Self.capture, "-o", svg])
        #expect(s.status == 0, "\(s.stderr)")
        try Self.expectWellFormedXML(svg)
    }

    @Test func badArgumentsAndOutputs() throws {
        #expect(try Lodestar.run(["map", "/nonexistent.nmea", "-o", "/tmp/x.html"]).status == 66)
        #expect(try Lodestar.run(["map", Self.capture, "-o", "/nonexistent-dir/x.html"]).status == 73)
        #expect(try Lodestar.run(["map", Self.capture, "-o", "drive.png"]).status == 64)
        #expect(try Lodestar.run(["export", Self.capture, "--format", "shp"]).status == 64)
    }

    @Test(.enabled(if: haveXmllint && haveGpsbabel, Comment(rawValue: missingGPXTools)))
    func gpxValidatesAgainstTheSchemaAndGpsbabelReadsTheTrack() throws {
        let dir = try TemporaryDirectory()
        let gpx = dir.path("drive.gpx")
        let r = try Lodestar.run(["export", "--format", "gpx", "--regions", Self.regions, Self.capture, "-o", gpx])
        #expect(r.status == 0, "\(r.stderr)")
        let v = try Self.run("/usr/bin/xmllint", ["--noout", "--schema", Self.schema, gpx])
        #expect(v.status == 0, "\(v.stderr)")
        let b = try Self.run("/usr/bin/gpsbabel", ["-t", "-i", "gpx", "-f", gpx, "-o", "unicsv", "-F", "-"])
        #expect(b.status == 0, "\(b.stderr)")
        let rows = b.stdout.split(whereSeparator: \.isNewline).dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let fixes = try Self.replayedFixes()
        #expect(rows.count == fixes.count && fixes.count == 300)
        // Columns: No,Latitude,Longitude,Altitude,HDOP,Satellites,Date,Time — against the replayed fixes.
        for (row, fix) in zip(rows, fixes) {
            #expect(abs(Double(row[1])! - (fix["latitudeDegrees"] as! Double)) < 1e-6)
            #expect(abs(Double(row[2])! - (fix["longitudeDegrees"] as! Double)) < 1e-6)
            #expect(abs(Double(row[3])! - (fix["altitudeMSLMeters"] as! Double)) < 0.05)
        }
        // Waypoints: the region crossings.
        let w = try Self.run("/usr/bin/gpsbabel", ["-w", "-i", "gpx", "-f", gpx, "-o", "unicsv", "-F", "-"])
        #expect(w.stdout.contains("enter start") && w.stdout.contains("exit start"))
        // A broken document fails the schema (the check can fail).
        let bad = try dir.write("bad.gpx", try String(contentsOfFile: gpx, encoding: .utf8).replacingOccurrences(of: "<ele>", with: "<elevation>").replacingOccurrences(of: "</ele>", with: "</elevation>"))
        #expect(try Self.run("/usr/bin/xmllint", ["--noout", "--schema", Self.schema, bad]).status != 0)
    }

    @Test(.enabled(if: haveOgrinfo, Comment(rawValue: missingOgrinfo)))
    func geoJSONAndKMLAreReadByOgrinfo() throws {
        let dir = try TemporaryDirectory()
        let geojson = dir.path("drive.geojson"), kml = dir.path("drive.kml")
        #expect(try Lodestar.run(["export", "--format", "geojson", Self.capture, "-o", geojson]).status == 0)
        #expect(try Lodestar.run(["export", "--format", "kml", Self.capture, "-o", kml]).status == 0)
        let g = try Self.run("/usr/bin/ogrinfo", ["-ro", "-al", "-so", geojson])
        #expect(g.status == 0, "\(g.stderr)")
        // 300 fix points + the LineString + visits/crossings (none without --regions; visits with the default dwell).
        let count = g.stdout.split(separator: "\n").first { $0.hasPrefix("Feature Count:") }.flatMap { Int($0.split(separator: " ").last!) }
        #expect((count ?? 0) >= 301)
        #expect(g.stdout.contains("Extent: (-122.08"))
        let line = try Self.run("/usr/bin/ogrinfo", ["-ro", "-al", "-q", "-where", "kind='track'", geojson])
        #expect(line.stdout.contains("LINESTRING"))
        let k = try Self.run("/usr/bin/ogrinfo", ["-ro", "-al", "-q", kml])
        #expect(k.status == 0, "\(k.stderr)")
        #expect(k.stdout.contains("smoothed track") && k.stdout.contains("LINESTRING"))
        #expect(k.stdout.contains("2025/06/01 12:00:00"))
    }

    /// JSON-lines output read back gives the same track as the capture replayed.
    @Test func jsonLinesInputGivesTheSameTrack() throws {
        let dir = try TemporaryDirectory()
        let jsonl = try dir.write("drive.jsonl", try Lodestar.run(["replay", "--quiet", Self.capture]).stdout)
        let a = try Lodestar.run(["export", "--format", "csv", Self.capture])
        let b = try Lodestar.run(["export", "--format", "csv", jsonl])
        #expect(a.status == 0 && b.status == 0)
        #expect(a.stdout.split(separator: "\n").count == 301)
        #expect(a.stdout == b.stdout)
    }

    @Test func regionsRoundTripThroughGeoJSON() throws {
        let dir = try TemporaryDirectory()
        let geo = dir.path("regions.geojson")
        #expect(try Lodestar.run(["export", "--regions-only", "--regions", Self.regions, "--format", "geojson", "-o", geo]).status == 0)
        let text = try String(contentsOfFile: geo, encoding: .utf8)
        #expect(text.contains("\"type\":\"FeatureCollection\"") && text.contains("\"identifier\":\"elsewhere\""))
        let a = try Lodestar.run(["replay", "--quiet", "--regions", Self.regions, Self.capture])
        let b = try Lodestar.run(["replay", "--quiet", "--regions", geo, Self.capture])
        #expect(a.status == 0 && b.status == 0, "\(b.stderr)")
        #expect(a.stdout == b.stdout)
        #expect(a.stdout.contains("\"class\":\"region\""))
    }
}

@Suite("lodestar calibrate --plot", .ownThreads)
struct CalibrationPlotCLITests {
    /// The planar fit of the shipped drive: one panel in the plane, every kept sample drawn raw and calibrated, the
    /// calibrated ones on the circle of radius F around the panel's centre (the plot's own geometry, checked here).
    @Test func planarCalibrationPlot() throws {
        let dir = try TemporaryDirectory()
        let svg = dir.path("cal.svg")
        let r = try Lodestar.run(["calibrate", "--from", "captures/simulated-drive.lcap", "--output", dir.path("m.cal"), "--plot", svg])
        #expect(r.status == 0, "\(r.stderr)")
        try MapCLITests.expectWellFormedXML(svg)
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(text.contains("data-method=\"circle\"") && text.contains("id=\"plane\"") && text.contains("id=\"coverage\""))
        #expect(text.contains("hard iron: (11.93, -8.04, 0.00) µT"))
        func dots(_ cls: String) -> [(Double, Double)] {
            guard let g = text.range(of: "<g class=\"\(cls)\""), let end = text[g.upperBound...].range(of: "</g>") else { return [] }
            return text[g.upperBound..<end.lowerBound].components(separatedBy: "<circle cx=\"").dropFirst().compactMap { c in
                let parts = c.components(separatedBy: "\"")
                guard parts.count > 2, let x = Double(parts[0]), let y = Double(parts[2]) else { return nil }
                return (x, y)
            }
        }
        let raw = dots("raw"), calibrated = dots("calibrated")
        #expect(raw.count == 375 && calibrated.count == 375)
        // Panel centre (x 20 + 260, y 50 + 260 + 10); the calibrated samples sit on one circle around it.
        let radii = calibrated.map { (($0.0 - 280) * ($0.0 - 280) + ($0.1 - 320) * ($0.1 - 320)).squareRoot() }.sorted()
        let median = radii[radii.count / 2]
        #expect(median > 100)
        #expect(radii[radii.count / 10] > 0.93 * median && radii[radii.count * 9 / 10] < 1.07 * median)
        // The raw samples do not (hard iron of 14 µT against a 23 µT field).
        let rawRadii = raw.map { (($0.0 - 280) * ($0.0 - 280) + ($0.1 - 320) * ($0.1 - 320)).squareRoot() }.sorted()
        #expect(rawRadii[rawRadii.count * 9 / 10] - rawRadii[rawRadii.count / 10] > 0.5 * median)
    }
}
