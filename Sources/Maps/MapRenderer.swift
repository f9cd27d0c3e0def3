#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geocoding

/// Draws `MapData` as SVG (and HTML around it): an offline base map from the bundled Natural Earth polygons, the
/// tracks, accuracy circles, heading cones, regions, visits, and the scale bar, north arrow, legend and summary.
/// Everything is in one file; no network is needed to open it.
public struct MapRenderer {
    public struct Style: Sendable {
        public var width = 1200.0
        public var height = 800.0
        public var margin = 48.0
        /// Length of a heading cone, pixels.
        public var coneLengthPixels = 34.0
        /// Accuracy circles and cones are drawn at most this often along the track (screen spacing, pixels).
        public var markerSpacingPixels = 28.0
        public var title: String?
        public init() {}
    }

    public static let colors = (
        sea: "#cde2f2", land: "#f4f1ea", border: "#a89f8c", raw: "#8a8f96", track: "#1a73e8",
        deadReckoned: "#f29900", interference: "#a142f4", accuracy: "#1a73e8", cone: "#e8453c",
        region: "#188038", entry: "#188038", exit: "#d93025", visit: "#c5221f", start: "#188038", end: "#d93025"
    )

    public let data: MapData
    public let style: Style
    public let viewport: MapViewport

    public init(_ data: MapData, style: Style = Style()) {
        self.data = data
        self.style = style
        var box = data.boundingBox
        for r in data.regions {
            let dLat = r.radiusMeters / 111_195, dLon = dLat / max(cos(r.latitudeDegrees * .pi / 180), 0.01)
            box.include(latitude: r.latitudeDegrees - dLat, longitude: r.longitudeDegrees - dLon)
            box.include(latitude: r.latitudeDegrees + dLat, longitude: r.longitudeDegrees + dLon)
        }
        if box.isEmpty { box = BoundingBox(minLatitude: -60, maxLatitude: 75, minLongitude: -170, maxLongitude: 170) }
        // A single point or a tiny track: show at least ~300 m.
        let minSpan = 0.003
        if box.maxLatitude - box.minLatitude < minSpan {
            let c = (box.maxLatitude + box.minLatitude) / 2
            box.minLatitude = c - minSpan / 2; box.maxLatitude = c + minSpan / 2
        }
        if box.maxLongitude - box.minLongitude < minSpan {
            let c = (box.maxLongitude + box.minLongitude) / 2
            box.minLongitude = c - minSpan / 2; box.maxLongitude = c + minSpan / 2
        }
        viewport = MapViewport(fitting: box, width: style.width, height: style.height, margin: style.margin + 40)
    }

    // MARK: SVG

    public func svg(standalone: Bool = true) -> String {
        var s = ""
        s.reserveCapacity(1 << 20)
        let w = fmt(style.width, 0), h = fmt(style.height, 0)
        if standalone { s += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" }
        s += "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"lodestar-map\" width=\"\(w)\" height=\"\(h)\" viewBox=\"0 0 \(w) \(h)\""
        s += " data-zoom=\"\(fmt(viewport.zoom, 6))\" data-origin-x=\"\(fmt(viewport.originX, 3))\" data-origin-y=\"\(fmt(viewport.originY, 3))\""
        s += " data-meters-per-pixel=\"\(fmt(centerMetersPerPixel, 6))\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n"
        s += "<title>\(xml(titleText))</title>\n"
        s += "<rect id=\"sea\" x=\"0\" y=\"0\" width=\"\(w)\" height=\"\(h)\" fill=\"\(Self.colors.sea)\"/>\n"
        s += "<g id=\"viewport\">\n"
        baseMap(&s)
        regions(&s)
        accuracyCircles(&s)
        tracks(&s)
        cones(&s)
        visits(&s)
        startEnd(&s)
        crossings(&s)
        s += "</g>\n"
        overlay(&s)
        s += "</svg>\n"
        return s
    }

    var centerMetersPerPixel: Double {
        viewport.metersPerPixel(latitude: viewport.coordinate(x: style.width / 2, y: style.height / 2).latitude)
    }

    var titleText: String {
        if let t = style.title { return t }
        guard let p = data.primary.first, let g = try? Geocoder.shared() else { return "Lodestar track" }
        guard let pm = g.reverse(latitude: p.latitudeDegrees, longitude: p.longitudeDegrees) else { return "Lodestar track" }
        let parts = [pm.locality, pm.administrativeArea, pm.country].compactMap { $0 }
        return parts.isEmpty ? "Lodestar track" : parts.joined(separator: ", ")
    }

    func px(_ lat: Double, _ lon: Double) -> (x: Double, y: Double) { viewport.point(latitude: lat, longitude: lon) }

    // MARK: Layers

    func baseMap(_ s: inout String) {
        guard let g = try? Geocoder.shared() else { return }
        let b = viewport.bounds
        let pad = 0.05 * max(b.maxLatitude - b.minLatitude, b.maxLongitude - b.minLongitude)
        let rings = g.outlineRings(.countries, minLatitude: b.minLatitude - pad, maxLatitude: b.maxLatitude + pad,
                                   minLongitude: b.minLongitude - pad, maxLongitude: b.maxLongitude + pad)
        s += "<g id=\"land\" fill=\"\(Self.colors.land)\" stroke=\"\(Self.colors.border)\" stroke-width=\"0.8\" stroke-linejoin=\"round\">\n"
        let clip = (minX: -20.0, minY: -20.0, maxX: style.width + 20, maxY: style.height + 20)
        for r in rings {
            var pts = r.points.map { px($0.latitude, $0.longitude) }
            pts = Clip.polygon(pts, clip)
            pts = Clip.thin(pts, minimumPixels: 0.6)
            guard pts.count >= 3 else { continue }
            s += "<path d=\"M"
            for (i, p) in pts.enumerated() { s += (i == 0 ? "" : "L") + fmt(p.x, 1) + " " + fmt(p.y, 1) }
            s += "Z\" vector-effect=\"non-scaling-stroke\"/>\n"
        }
        s += "</g>\n"
    }

    func regions(_ s: inout String) {
        guard !data.regions.isEmpty else { return }
        s += "<g id=\"regions\" fill=\"\(Self.colors.region)\" fill-opacity=\"0.10\" stroke=\"\(Self.colors.region)\" stroke-width=\"2\">\n"
        for r in data.regions {
            let c = px(r.latitudeDegrees, r.longitudeDegrees)
            let rad = r.radiusMeters / viewport.metersPerPixel(latitude: r.latitudeDegrees)
            s += "<circle class=\"region\" data-identifier=\"\(xml(r.identifier))\" cx=\"\(fmt(c.x, 1))\" cy=\"\(fmt(c.y, 1))\" r=\"\(fmt(rad, 1))\" vector-effect=\"non-scaling-stroke\"/>\n"
            s += "<text x=\"\(fmt(c.x, 1))\" y=\"\(fmt(c.y - rad - 4, 1))\" text-anchor=\"middle\" font-size=\"12\" fill=\"\(Self.colors.region)\" stroke=\"none\" fill-opacity=\"1\">\(xml(r.identifier))</text>\n"
        }
        s += "</g>\n"
    }

    /// Indices of the primary track's fixes that get markers: at least `markerSpacingPixels` apart on screen.
    func markerIndices(_ t: [TrackPoint]) -> [Int] {
        var out: [Int] = []
        var last: (x: Double, y: Double)?
        for (i, p) in t.enumerated() {
            let q = px(p.latitudeDegrees, p.longitudeDegrees)
            if let l = last, (q.x - l.x) * (q.x - l.x) + (q.y - l.y) * (q.y - l.y) < style.markerSpacingPixels * style.markerSpacingPixels { continue }
            out.append(i)
            last = q
        }
        return out
    }

    func accuracyCircles(_ s: inout String) {
        let t = data.primary
        s += "<g id=\"accuracy\" fill=\"\(Self.colors.accuracy)\" fill-opacity=\"0.08\" stroke=\"\(Self.colors.accuracy)\" stroke-opacity=\"0.35\" stroke-width=\"0.7\">\n"
        for i in markerIndices(t) {
            guard let a = t[i].horizontalAccuracyMeters, a > 0 else { continue }
            let c = px(t[i].latitudeDegrees, t[i].longitudeDegrees)
            let r = a / viewport.metersPerPixel(latitude: t[i].latitudeDegrees)
            guard r >= 1 else { continue }
            s += "<circle cx=\"\(fmt(c.x, 1))\" cy=\"\(fmt(c.y, 1))\" r=\"\(fmt(r, 1))\" vector-effect=\"non-scaling-stroke\"/>\n"
        }
        s += "</g>\n"
    }

    enum SegmentKind: String { case normal, deadReckoned = "dead-reckoned", interference }

    func tracks(_ s: inout String) {
        if !data.raw.isEmpty && !data.smoothed.isEmpty {
            s += "<polyline id=\"track-raw\" fill=\"none\" stroke=\"\(Self.colors.raw)\" stroke-width=\"1.2\" stroke-dasharray=\"3 2\" vector-effect=\"non-scaling-stroke\" points=\""
            polyline(&s, data.raw)
            s += "\"/>\n"
        }
        let t = data.primary
        s += "<g id=\"track\" fill=\"none\" stroke-linejoin=\"round\" stroke-linecap=\"round\">\n"
        // Split into runs of one kind; consecutive runs share their joining fix.
        var i = 0
        while i < t.count {
            let kind = Self.kind(t[i])
            var j = i
            while j + 1 < t.count && Self.kind(t[j + 1]) == kind { j += 1 }
            let end = min(j + 1, t.count - 1)
            let color = kind == .normal ? Self.colors.track : kind == .deadReckoned ? Self.colors.deadReckoned : Self.colors.interference
            let dash = kind == .deadReckoned ? " stroke-dasharray=\"6 4\"" : ""
            s += "<polyline class=\"track \(kind.rawValue)\" stroke=\"\(color)\" stroke-width=\"\(kind == .normal ? "3" : "4")\"\(dash) vector-effect=\"non-scaling-stroke\" points=\""
            polyline(&s, Array(t[i...max(end, i)]))
            s += "\"/>\n"
            i = j + 1
        }
        s += "</g>\n"
    }

    static func kind(_ p: TrackPoint) -> SegmentKind { p.isDeadReckoned ? .deadReckoned : p.interference ? .interference : .normal }

    func polyline(_ s: inout String, _ t: [TrackPoint]) {
        var last: (x: Double, y: Double)?
        for (k, p) in t.enumerated() {
            let q = px(p.latitudeDegrees, p.longitudeDegrees)
            if let l = last, k != t.count - 1, abs(q.x - l.x) < 0.3 && abs(q.y - l.y) < 0.3 { continue }
            s += fmt(q.x, 1) + "," + fmt(q.y, 1) + " "
            last = q
        }
        if t.count == 1 { let q = px(t[0].latitudeDegrees, t[0].longitudeDegrees); s += fmt(q.x, 1) + "," + fmt(q.y, 1) }
    }

    /// A heading cone: a wedge from the fix, `coneLengthPixels` long, spanning heading ± headingAccuracy.
    static func conePath(x: Double, y: Double, headingDegrees: Double, accuracyDegrees: Double, length: Double) -> String {
        let half = min(accuracyDegrees, 180)
        if half >= 179.999 {
            return "M\(fmt(x - length, 2)) \(fmt(y, 2))A\(fmt(length, 2)) \(fmt(length, 2)) 0 1 0 \(fmt(x + length, 2)) \(fmt(y, 2))A\(fmt(length, 2)) \(fmt(length, 2)) 0 1 0 \(fmt(x - length, 2)) \(fmt(y, 2))Z"
        }
        func at(_ deg: Double) -> (Double, Double) {
            let r = deg * .pi / 180
            return (x + length * sin(r), y - length * cos(r))
        }
        let a = at(headingDegrees - half), b = at(headingDegrees + half)
        let large = half * 2 > 180 ? 1 : 0
        return "M\(fmt(x, 2)) \(fmt(y, 2))L\(fmt(a.0, 2)) \(fmt(a.1, 2))A\(fmt(length, 2)) \(fmt(length, 2)) 0 \(large) 1 \(fmt(b.0, 2)) \(fmt(b.1, 2))Z"
    }

    func cones(_ s: inout String) {
        let t = data.primary
        s += "<g id=\"headings\" fill=\"\(Self.colors.cone)\" fill-opacity=\"0.45\" stroke=\"none\">\n"
        for i in markerIndices(t) {
            guard let hd = t[i].headingDegrees, let acc = t[i].headingAccuracyDegrees, acc >= 0 else { continue }
            let c = px(t[i].latitudeDegrees, t[i].longitudeDegrees)
            s += "<path class=\"cone\" data-heading=\"\(fmt(hd, 1))\" data-accuracy=\"\(fmt(acc, 1))\" d=\"\(Self.conePath(x: c.x, y: c.y, headingDegrees: hd, accuracyDegrees: acc, length: style.coneLengthPixels))\"/>\n"
        }
        s += "</g>\n"
    }

    func visits(_ s: inout String) {
        guard !data.visits.isEmpty else { return }
        s += "<g id=\"visits\">\n"
        for v in data.visits {
            let c = px(v.latitudeDegrees, v.longitudeDegrees)
            var label = "visit"
            if let a = v.arrival { label += " from " + a.iso8601(fractionDigits: 0) }
            if let d = v.departure { label += " to " + d.iso8601(fractionDigits: 0) }
            s += "<g class=\"visit\" transform=\"translate(\(fmt(c.x, 1)) \(fmt(c.y, 1)))\"><title>\(label)</title>"
            s += "<path d=\"M0 0C-3 -8 -10 -12 -10 -20A10 10 0 1 1 10 -20C10 -12 3 -8 0 0Z\" fill=\"\(Self.colors.visit)\" stroke=\"#fff\" stroke-width=\"1.5\"/>"
            s += "<circle cx=\"0\" cy=\"-20\" r=\"3.5\" fill=\"#fff\"/></g>\n"
        }
        s += "</g>\n"
    }

    func startEnd(_ s: inout String) {
        let t = data.primary
        guard let first = t.first, let last = t.last else { return }
        let a = px(first.latitudeDegrees, first.longitudeDegrees), b = px(last.latitudeDegrees, last.longitudeDegrees)
        s += "<circle id=\"start\" cx=\"\(fmt(a.x, 2))\" cy=\"\(fmt(a.y, 2))\" r=\"7\" fill=\"\(Self.colors.start)\" stroke=\"#fff\" stroke-width=\"2\"><title>start</title></circle>\n"
        s += "<rect id=\"end\" x=\"\(fmt(b.x - 6, 2))\" y=\"\(fmt(b.y - 6, 2))\" width=\"12\" height=\"12\" fill=\"\(Self.colors.end)\" stroke=\"#fff\" stroke-width=\"2\"><title>end</title></rect>\n"
    }

    func crossings(_ s: inout String) {
        guard !data.crossings.isEmpty else { return }
        s += "<g id=\"crossings\">\n"
        for c in data.crossings {
            let p = px(c.latitudeDegrees, c.longitudeDegrees)
            let color = c.isEntry ? Self.colors.entry : Self.colors.exit
            let shape = c.isEntry ? "M0 -7L7 5L-7 5Z" : "M0 7L7 -5L-7 -5Z"
            s += "<path class=\"crossing \(c.isEntry ? "enter" : "exit")\" transform=\"translate(\(fmt(p.x, 1)) \(fmt(p.y, 1)))\" d=\"\(shape)\" fill=\"\(color)\" stroke=\"#fff\" stroke-width=\"1.2\"><title>\(c.isEntry ? "enter" : "exit") \(xml(c.identifier))</title></path>\n"
        }
        s += "</g>\n"
    }

    // MARK: Overlay: scale bar, north arrow, legend, summary

    /// A round scale-bar length (1, 2 or 5 × 10^k metres) about `targetPixels` long.
    public static func scaleBar(metersPerPixel: Double, targetPixels: Double) -> (meters: Double, pixels: Double, label: String) {
        let target = metersPerPixel * targetPixels
        let base = pow(10, floor(log10(target)))
        let meters = [5.0, 2.0, 1.0].map { $0 * base }.first { $0 <= target } ?? base
        let label = meters >= 1000 ? "\(fmt(meters / 1000, meters >= 10_000 || meters.truncatingRemainder(dividingBy: 1000) == 0 ? 0 : 1)) km" : "\(fmt(meters, 0)) m"
        return (meters, meters / metersPerPixel, label)
    }

    func overlay(_ s: inout String) {
        let W = style.width, H = style.height
        // Summary (top left).
        let summary = data.summary
        s += "<g id=\"summary\" transform=\"translate(12 12)\">"
        s += "<rect width=\"\(fmt(min(W - 120, 560), 0))\" height=\"46\" rx=\"6\" fill=\"#fff\" fill-opacity=\"0.88\" stroke=\"#999\"/>"
        s += "<text x=\"10\" y=\"19\" font-size=\"14\" font-weight=\"bold\" fill=\"#202124\">\(xml(titleText))</text>"
        s += "<text id=\"summary-text\" x=\"10\" y=\"37\" font-size=\"12\" fill=\"#202124\">\(xml(summary.text))</text></g>\n"
        // North arrow (top right): Web Mercator keeps north up.
        s += "<g id=\"north-arrow\" transform=\"translate(\(fmt(W - 34, 0)) 52)\"><circle r=\"22\" fill=\"#fff\" fill-opacity=\"0.88\" stroke=\"#999\"/>"
        s += "<path d=\"M0 -16L7 6L0 1L-7 6Z\" fill=\"#202124\"/><text y=\"17\" text-anchor=\"middle\" font-size=\"10\" font-weight=\"bold\">N</text></g>\n"
        // Scale bar (bottom right).
        let bar = Self.scaleBar(metersPerPixel: centerMetersPerPixel, targetPixels: W / 6)
        s += "<g id=\"scale-bar\" transform=\"translate(\(fmt(W - bar.pixels - 24, 1)) \(fmt(H - 24, 0)))\" data-meters=\"\(fmt(bar.meters, 0))\">"
        s += "<rect x=\"-6\" y=\"-20\" width=\"\(fmt(bar.pixels + 12, 1))\" height=\"30\" fill=\"#fff\" fill-opacity=\"0.85\"/>"
        s += "<path id=\"scale-bar-line\" d=\"M0 -4V4H\(fmt(bar.pixels, 1))V-4\" fill=\"none\" stroke=\"#202124\" stroke-width=\"2\"/>"
        s += "<text id=\"scale-bar-label\" x=\"\(fmt(bar.pixels / 2, 1))\" y=\"-7\" text-anchor=\"middle\" font-size=\"11\">\(bar.label)</text></g>\n"
        // Legend (bottom left): only what is drawn.
        var items: [(String, String)] = []
        items.append(("<line x1=\"0\" y1=\"0\" x2=\"22\" y2=\"0\" stroke=\"\(Self.colors.track)\" stroke-width=\"3\"/>", data.smoothed.isEmpty ? "track" : "smoothed track"))
        if !data.raw.isEmpty && !data.smoothed.isEmpty {
            items.append(("<line x1=\"0\" y1=\"0\" x2=\"22\" y2=\"0\" stroke=\"\(Self.colors.raw)\" stroke-width=\"1.2\" stroke-dasharray=\"3 2\"/>", "raw fixes"))
        }
        if data.primary.contains(where: \.isDeadReckoned) {
            items.append(("<line x1=\"0\" y1=\"0\" x2=\"22\" y2=\"0\" stroke=\"\(Self.colors.deadReckoned)\" stroke-width=\"4\" stroke-dasharray=\"6 4\"/>", "dead-reckoned"))
        }
        if data.primary.contains(where: \.interference) {
            items.append(("<line x1=\"0\" y1=\"0\" x2=\"22\" y2=\"0\" stroke=\"\(Self.colors.interference)\" stroke-width=\"4\"/>", "magnetic interference"))
        }
        items.append(("<circle cx=\"11\" cy=\"0\" r=\"6\" fill=\"\(Self.colors.accuracy)\" fill-opacity=\"0.15\" stroke=\"\(Self.colors.accuracy)\" stroke-opacity=\"0.5\"/>", "horizontal accuracy (68 %)"))
        if data.primary.contains(where: { ($0.headingAccuracyDegrees ?? -1) >= 0 }) {
            items.append(("<path d=\"\(Self.conePath(x: 11, y: 7, headingDegrees: 0, accuracyDegrees: 25, length: 14))\" fill=\"\(Self.colors.cone)\" fill-opacity=\"0.45\"/>", "heading ± accuracy"))
        }
        if !data.regions.isEmpty {
            items.append(("<circle cx=\"11\" cy=\"0\" r=\"6\" fill=\"\(Self.colors.region)\" fill-opacity=\"0.1\" stroke=\"\(Self.colors.region)\" stroke-width=\"2\"/>", "region"))
        }
        if !data.crossings.isEmpty {
            items.append(("<path d=\"M5 4L11 -6L17 4Z\" fill=\"\(Self.colors.entry)\"/>", "region entry"))
            items.append(("<path d=\"M5 -4L11 6L17 -4Z\" fill=\"\(Self.colors.exit)\"/>", "region exit"))
        }
        if !data.visits.isEmpty {
            items.append(("<path d=\"M11 7C9 2 5 0 5 -4A6 6 0 1 1 17 -4C17 0 13 2 11 7Z\" fill=\"\(Self.colors.visit)\"/>", "visit (stop)"))
        }
        items.append(("<circle cx=\"6\" cy=\"0\" r=\"5\" fill=\"\(Self.colors.start)\"/><rect x=\"13\" y=\"-5\" width=\"10\" height=\"10\" fill=\"\(Self.colors.end)\"/>", "start / end"))
        let lh = 18.0
        let height = Double(items.count) * lh + 12
        s += "<g id=\"legend\" transform=\"translate(12 \(fmt(H - height - 12, 0)))\"><rect width=\"210\" height=\"\(fmt(height, 0))\" rx=\"6\" fill=\"#fff\" fill-opacity=\"0.88\" stroke=\"#999\"/>"
        for (k, item) in items.enumerated() {
            let y = 15 + Double(k) * lh
            s += "<g transform=\"translate(10 \(fmt(y, 0)))\">\(item.0)<text x=\"32\" y=\"4\" font-size=\"11\" fill=\"#202124\">\(xml(item.1))</text></g>"
        }
        s += "</g>\n"
        s += "<text x=\"\(fmt(W - 6, 0))\" y=\"\(fmt(H - 4, 0))\" text-anchor=\"end\" font-size=\"8\" fill=\"#5f6368\">Made with Natural Earth · Lodestar</text>\n"
    }
}

/// Escapes text for XML content and attributes.
func xml(_ s: String) -> String {
    var out = ""
    out.reserveCapacity(s.utf8.count)
    for c in s.unicodeScalars {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&apos;"
        default:
            if c.value < 0x20 && c != "\n" && c != "\t" { continue }
            out.unicodeScalars.append(c)
        }
    }
    return out
}

/// Polygon clipping and thinning in screen space.
enum Clip {
    typealias P = (x: Double, y: Double)
    /// Sutherland–Hodgman against an axis-aligned rectangle (closed ring in, open ring out).
    static func polygon(_ pts: [P], _ r: (minX: Double, minY: Double, maxX: Double, maxY: Double)) -> [P] {
        var poly = pts
        if let f = poly.first, let l = poly.last, f == l { poly.removeLast() }
        func clipEdge(_ inside: (P) -> Bool, _ cut: (P, P) -> P) {
            guard !poly.isEmpty else { return }
            var out: [P] = []
            out.reserveCapacity(poly.count)
            var prev = poly[poly.count - 1]
            for cur in poly {
                let ci = inside(cur), pi = inside(prev)
                if ci { if !pi { out.append(cut(prev, cur)) }; out.append(cur) } else if pi { out.append(cut(prev, cur)) }
                prev = cur
            }
            poly = out
        }
        clipEdge({ $0.x >= r.minX }, { a, b in (r.minX, a.y + (b.y - a.y) * (r.minX - a.x) / (b.x - a.x)) })
        clipEdge({ $0.x <= r.maxX }, { a, b in (r.maxX, a.y + (b.y - a.y) * (r.maxX - a.x) / (b.x - a.x)) })
        clipEdge({ $0.y >= r.minY }, { a, b in (a.x + (b.x - a.x) * (r.minY - a.y) / (b.y - a.y), r.minY) })
        clipEdge({ $0.y <= r.maxY }, { a, b in (a.x + (b.x - a.x) * (r.maxY - a.y) / (b.y - a.y), r.maxY) })
        return poly
    }

    /// Drops vertices closer than `minimumPixels` to the last kept one (the data's detail beyond the screen's).
    static func thin(_ pts: [P], minimumPixels: Double) -> [P] {
        guard pts.count > 3 else { return pts }
        var out: [P] = [pts[0]]
        let m2 = minimumPixels * minimumPixels
        for p in pts.dropFirst() {
            let l = out[out.count - 1]
            if (p.x - l.x) * (p.x - l.x) + (p.y - l.y) * (p.y - l.y) >= m2 { out.append(p) }
        }
        return out
    }
}
