import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Geocoding
import LocationCore
import Testing
import TestSupport
@testable import Maps

/// Maps rendered by a real headless Chromium: the pixels must be where the projection says.
@Suite(.ownThreads) struct MapRenderingTests {
    /// A straight north-going track of four fixes (1.1 km apart) at 48.80° N, 2.0° E (Île-de-France, inland).
    static func northTrack(headings: [Double?] = [nil, nil, nil, nil]) -> MapData {
        var d = MapData()
        for k in 0..<4 {
            var p = TrackPoint(latitudeDegrees: 48.80 + 0.01 * Double(k), longitudeDegrees: 2.0,
                               time: Timestamp(secondsSince1970: 1_700_000_000 + Double(k) * 60))
            if let a = headings[k] { p.headingDegrees = 90; p.headingAccuracyDegrees = a }
            d.smoothed.append(p)
        }
        return d
    }

    static func write(_ text: String, _ name: String) throws -> (TemporaryDirectory, String) {
        let dir = try TemporaryDirectory()
        return (dir, try dir.write(name, text))
    }

    static func isTrackBlue(_ p: (r: Int, g: Int, b: Int)) -> Bool { p.b > 180 && p.r < 90 && p.g > 80 && p.g < 160 }

    @Test(.enabled(if: Chromium.available, Comment(rawValue: Chromium.skipMessage)))
    func trackIsDrawnWhereTheProjectionSays() throws {
        let data = Self.northTrack()
        let r = MapRenderer(data)
        let (dir, path) = try Self.write(r.html(), "track.html")
        _ = dir
        let img = try Chromium.screenshot("file://" + path, width: 1200, height: 800)
        #expect(img.width == 1200 && img.height == 800)
        // The projection, computed here from the page's zoom and origin (independent of the renderer's drawing).
        let size = 256 * pow(2, r.viewport.zoom)
        func expected(_ lat: Double, _ lon: Double) -> (Int, Int) {
            let x = (lon + 180) / 360 * size - r.viewport.originX
            let s = sin(lat * .pi / 180)
            let y = (0.5 - log((1 + s) / (1 - s)) / (4 * .pi)) * size - r.viewport.originY
            return (Int(x.rounded()), Int(y.rounded()))
        }
        // Midpoints between fixes lie on the drawn line (no marker covers them).
        for k in 0..<3 {
            let lat = 48.805 + 0.01 * Double(k)
            let (x, y) = expected(lat, 2.0)
            let blue = img.count(x0: x - 1, y0: y - 1, x1: x + 2, y1: y + 2, where: Self.isTrackBlue)
            #expect(blue >= 3, "no track pixels at (\(x), \(y)) for latitude \(lat)")
            // And not 12 pixels to either side.
            #expect(img.count(x0: x - 13, y0: y - 1, x1: x - 10, y1: y + 2, where: Self.isTrackBlue) == 0)
            #expect(img.count(x0: x + 11, y0: y - 1, x1: x + 14, y1: y + 2, where: Self.isTrackBlue) == 0)
        }
        // The start marker (green) is centred on the first fix.
        let (sx, sy) = expected(48.80, 2.0)
        let c = img.pixel(sx, sy)
        #expect(c.g > 110 && c.r < 60 && c.b < 90, "start marker colour at (\(sx), \(sy)): \(c)")
        // Land is drawn from the bundled polygons (France): the background is the land colour, not the sea's.
        let corner = img.pixel(700, 200)
        #expect(corner.r > 235 && corner.g > 230 && corner.b > 220 && corner.b < 240, "land colour expected, got \(corner)")
    }

    /// The cone's area is π L² · 2·accuracy / 360: it must grow with headingAccuracy as that says.
    @Test(.enabled(if: Chromium.available, Comment(rawValue: Chromium.skipMessage)))
    func coneWidthFollowsHeadingAccuracy() throws {
        let data = Self.northTrack(headings: [nil, 10, 30, nil])
        var style = MapRenderer.Style()
        style.coneLengthPixels = 40
        let r = MapRenderer(data, style: style)
        let (dir, path) = try Self.write(r.html(), "cones.html")
        _ = dir
        let img = try Chromium.screenshot("file://" + path, width: 1200, height: 800)
        func isCone(_ p: (r: Int, g: Int, b: Int)) -> Bool { p.r - p.g > 35 && p.r - p.b > 40 && p.r > 200 }
        for (k, accuracy) in [(1, 10.0), (2, 30.0)] {
            let q = r.viewport.point(latitude: data.smoothed[k].latitudeDegrees, longitude: 2.0)
            let x = Int(q.x), y = Int(q.y)
            let n = img.count(x0: x - 2, y0: y - 45, x1: x + 46, y1: y + 46, where: isCone)
            let area = Double.pi * 40 * 40 * 2 * accuracy / 360
            #expect(abs(Double(n) - area) / area < 0.15, "cone ±\(accuracy)°: \(n) pixels, expected ≈ \(Int(area))")
            // All of it east of the fix (heading 90°).
            #expect(img.count(x0: x - 45, y0: y - 45, x1: x - 3, y1: y + 46, where: isCone) == 0)
        }
    }

    @Test(.enabled(if: Chromium.available, Comment(rawValue: Chromium.skipMessage)))
    func panZoomScriptRunsAndKeepsTheScaleBarTrue() throws {
        let r = MapRenderer(Self.northTrack())
        let (dir, path) = try Self.write(r.html(), "zoom.html")
        _ = dir
        let dom = try Chromium.dumpDOM("file://" + path + "#zoom=4")
        #expect(dom.contains("data-ready=\"true\""), "the inline script did not run")
        #expect(dom.contains("scale(4.00000)"))
        let before = MapRenderer.scaleBar(metersPerPixel: r.centerMetersPerPixel, targetPixels: 200)
        let after = MapRenderer.scaleBar(metersPerPixel: r.centerMetersPerPixel / 4, targetPixels: 200)
        #expect(before.meters != after.meters)
        #expect(dom.contains("data-meters=\"\(Int(after.meters))\""), "scale bar not updated to \(after.label)")
        // Self-contained: no external scripts, styles, images or fonts.
        for needle in ["src=\"http", "href=\"http", "url(http", "@import"] { #expect(!r.html().contains(needle)) }
    }

    @Test func svgIsWellFormedXML() throws {
        var d = Self.northTrack(headings: [nil, 20, 20, nil])
        d.raw = d.smoothed
        d.regions = [MapRegion(identifier: "a&b <depot>", latitudeDegrees: 48.81, longitudeDegrees: 2.0, radiusMeters: 300)]
        d.crossings = [MapRegionCrossing(identifier: "a&b <depot>", isEntry: true, time: nil, latitudeDegrees: 48.81, longitudeDegrees: 2.0)]
        d.visits = [MapVisit(latitudeDegrees: 48.82, longitudeDegrees: 2.0, horizontalAccuracyMeters: 5, arrival: nil, departure: nil)]
        let svg = MapRenderer(d).svg()
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "SVG does not parse: \(String(describing: parser.parserError))")
        for id in ["land", "track", "track-raw", "headings", "regions", "crossings", "visits", "scale-bar", "north-arrow", "legend", "summary"] {
            #expect(svg.contains("id=\"\(id)\""), "missing layer \(id)")
        }
        #expect(svg.contains("a&amp;b &lt;depot&gt;"))
    }

    @Test func outlinesCoverEveryStoredVertex() throws {
        let g = try Geocoder.shared()
        let stats = g.outlineStatistics(.countries)
        #expect(stats.rings > 1000)
        // Rings found near Paris are France's (the point is inside one of them).
        let rings = g.outlineRings(.countries, minLatitude: 48.8, maxLatitude: 48.9, minLongitude: 2.3, maxLongitude: 2.4)
        #expect(!rings.isEmpty)
        #expect(rings.allSatisfy { $0.points.first! == $0.points.last! })
        let inside = rings.contains { ring in
            var c = false
            let pts = ring.points
            for i in 1..<pts.count {
                let a = pts[i - 1], b = pts[i]
                if (a.latitude > 48.85) != (b.latitude > 48.85),
                   2.35 < a.longitude + (48.85 - a.latitude) / (b.latitude - a.latitude) * (b.longitude - a.longitude) { c.toggle() }
            }
            return c
        }
        #expect(inside)
    }

    @Test func summaryNumbers() {
        let d = Self.northTrack()
        let s = d.summary
        // 3 × 0.01° of latitude on the mean sphere.
        #expect(abs(s.distanceMeters - 3 * 1111.95) < 1)
        #expect(s.durationSeconds == 180 && s.fixes == 4 && s.validHeadingShare == nil)
        #expect(s.text == "3.34 km · 3 min 0 s · 4 fixes · no heading")
    }
}
