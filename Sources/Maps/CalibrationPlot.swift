#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore
import Magnetics

/// `lodestar calibrate … --plot cal.svg`: the raw and calibrated magnetometer samples, the fitted ellipsoid
/// (or circle), the direction coverage and the numbers, as one SVG.
///
/// Ellipsoid and sphere fits: three orthogonal projections (x–y, x–z, y–z). The fitted surface is drawn as the
/// image of the calibrated sphere's great circle in each plane (raw = h + S⁻¹·F·u), the calibrated sphere as the
/// circle of radius F. Circle fits (a level vehicle turning): one panel in the plane of the circle.
public struct CalibrationPlot {
    public let rawSamples: [Vector3]
    public let result: CalibrationResult
    public let bins: DirectionBins
    public let occupancy: [Int]
    public var title = "Magnetometer calibration"

    public init(rawSamples: [Vector3], result: CalibrationResult, bins: DirectionBins, occupancy: [Int]) {
        self.rawSamples = rawSamples; self.result = result; self.bins = bins; self.occupancy = occupancy
    }

    static let rawColor = "#9aa0a6", calibratedColor = "#1a73e8", fitColor = "#d93025", sphereColor = "#188038"

    /// Samples drawn at most (evenly thinned).
    static let maximumDots = 3000

    public func svg() -> String {
        let W = 1200.0, H = 820.0
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s += "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"calibration-plot\" width=\"\(fmt(W, 0))\" height=\"\(fmt(H, 0))\" viewBox=\"0 0 \(fmt(W, 0)) \(fmt(H, 0))\" font-family=\"DejaVu Sans, Arial, sans-serif\" data-method=\"\(result.method.rawValue)\">\n"
        s += "<title>\(xml(title))</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
        s += "<text x=\"20\" y=\"30\" font-size=\"18\" font-weight=\"bold\">\(xml(title)) — \(result.method.rawValue) fit</text>\n"
        let c = result.calibration
        let F = result.metrics.fieldMicrotesla
        let stride = max(1, rawSamples.count / Self.maximumDots)
        let raw = Swift.stride(from: 0, to: rawSamples.count, by: stride).map { rawSamples[$0] }
        let calibrated = raw.map { c.apply($0) }
        let inverse = Self.inverse(c.softIron)
        if result.method == .circle {
            let n = result.unobservableAxis ?? Vector3(x: 0, y: 0, z: 1)
            let (e1, e2) = Self.basis(normal: n)
            s += panel(x: 20, y: 50, size: 520, name: "plane of the turns (normal \(vec(n)))", axes: (e1, e2),
                       raw: raw, calibrated: calibrated, inverse: inverse, hardIron: c.hardIronMicrotesla, field: F, id: "plane")
        } else {
            let X = Vector3(x: 1, y: 0, z: 0), Y = Vector3(x: 0, y: 1, z: 0), Z = Vector3(x: 0, y: 0, z: 1)
            for (k, (a, b, name, key)) in [(X, Y, "x–y", "xy"), (X, Z, "x–z", "xz"), (Y, Z, "y–z", "yz")].enumerated() {
                s += panel(x: 20 + Double(k) * 390, y: 50, size: 370, name: name, axes: (a, b), raw: raw, calibrated: calibrated,
                           inverse: inverse, hardIron: c.hardIronMicrotesla, field: F, id: "projection-\(key)")
            }
        }
        let top = result.method == .circle ? 50.0 : 440.0
        let left = result.method == .circle ? 570.0 : 20.0
        s += coverage(x: left, y: top, width: 600, height: 320)
        s += numbers(x: result.method == .circle ? 570 : 650, y: result.method == .circle ? 400 : top)
        s += legend(x: 20, y: H - 30)
        return s + "</svg>\n"
    }

    func vec(_ v: Vector3) -> String { "\(fmt(v.x, 2)), \(fmt(v.y, 2)), \(fmt(v.z, 2))" }

    /// One projection panel: raw dots, calibrated dots, the fitted ellipse (raw space), the calibrated circle.
    func panel(x: Double, y: Double, size: Double, name: String, axes: (Vector3, Vector3), raw: [Vector3],
               calibrated: [Vector3], inverse: Matrix3, hardIron: Vector3, field: Double, id: String) -> String {
        let (a, b) = axes
        var extent = field * 1.15
        for v in raw + calibrated { extent = max(extent, abs(v.dot(a)) * 1.05, abs(v.dot(b)) * 1.05) }
        let scale = (size / 2 - 14) / max(extent, 1e-9)
        let cx = x + size / 2, cy = y + size / 2 + 10
        func p(_ v: Vector3) -> (Double, Double) { (cx + v.dot(a) * scale, cy - v.dot(b) * scale) }
        var s = "<g id=\"\(id)\" class=\"panel\">"
        s += "<rect x=\"\(fmt(x, 1))\" y=\"\(fmt(y + 10, 1))\" width=\"\(fmt(size, 1))\" height=\"\(fmt(size, 1))\" fill=\"#fafafa\" stroke=\"#ccc\"/>"
        s += "<line x1=\"\(fmt(x, 1))\" y1=\"\(fmt(cy, 1))\" x2=\"\(fmt(x + size, 1))\" y2=\"\(fmt(cy, 1))\" stroke=\"#ddd\"/>"
        s += "<line x1=\"\(fmt(cx, 1))\" y1=\"\(fmt(y + 10, 1))\" x2=\"\(fmt(cx, 1))\" y2=\"\(fmt(y + 10 + size, 1))\" stroke=\"#ddd\"/>"
        s += "<text x=\"\(fmt(x + 6, 1))\" y=\"\(fmt(y + 26, 1))\" font-size=\"12\" fill=\"#444\">\(xml(name)) (µT; scale \(fmt(1 / scale * 50, 1)) µT per 50 px)</text>"
        s += "<g class=\"raw\" fill=\"\(Self.rawColor)\">"
        for v in raw { let q = p(v); s += "<circle cx=\"\(fmt(q.0, 1))\" cy=\"\(fmt(q.1, 1))\" r=\"1.3\"/>" }
        s += "</g><g class=\"calibrated\" fill=\"\(Self.calibratedColor)\">"
        for v in calibrated { let q = p(v); s += "<circle cx=\"\(fmt(q.0, 1))\" cy=\"\(fmt(q.1, 1))\" r=\"1.3\"/>" }
        s += "</g>"
        // Fitted surface in raw space and the calibrated circle of radius F.
        var fit = "", sphere = ""
        for k in 0...96 {
            let t = Double(k) / 96 * 2 * .pi
            let u = a * (cos(t) * field) + b * (sin(t) * field)
            let r = hardIron + inverse * u
            let q = p(r), q2 = p(u)
            fit += (k == 0 ? "M" : "L") + fmt(q.0, 1) + " " + fmt(q.1, 1)
            sphere += (k == 0 ? "M" : "L") + fmt(q2.0, 1) + " " + fmt(q2.1, 1)
        }
        s += "<path class=\"fit\" d=\"\(fit)Z\" fill=\"none\" stroke=\"\(Self.fitColor)\" stroke-width=\"1.6\"/>"
        s += "<path class=\"sphere\" d=\"\(sphere)Z\" fill=\"none\" stroke=\"\(Self.sphereColor)\" stroke-width=\"1.6\" stroke-dasharray=\"5 3\"/>"
        let h = p(hardIron)
        s += "<path d=\"M\(fmt(h.0 - 5, 1)) \(fmt(h.1, 1))H\(fmt(h.0 + 5, 1))M\(fmt(h.0, 1)) \(fmt(h.1 - 5, 1))V\(fmt(h.1 + 5, 1))\" stroke=\"\(Self.fitColor)\" stroke-width=\"2\"/>"
        return s + "</g>\n"
    }

    /// Direction coverage: every bin at its azimuth/elevation, shaded by how many samples it holds.
    func coverage(x: Double, y: Double, width: Double, height: Double) -> String {
        var s = "<g id=\"coverage\"><text x=\"\(fmt(x, 1))\" y=\"\(fmt(y + 16, 1))\" font-size=\"13\" font-weight=\"bold\">Direction coverage: \(fmt(result.metrics.coveragePercent, 0)) % of \(bins.count) cells (calibrated directions)</text>"
        let top = y + 26, h = height - 40
        s += "<rect x=\"\(fmt(x, 1))\" y=\"\(fmt(top, 1))\" width=\"\(fmt(width, 1))\" height=\"\(fmt(h, 1))\" fill=\"#fafafa\" stroke=\"#ccc\"/>"
        let maxCount = max(occupancy.max() ?? 1, 1)
        for (i, c) in bins.centers.enumerated() {
            let az = atan2(c.y, c.x) * 180 / .pi, el = asin(max(-1, min(1, c.z / max(c.norm, 1e-12)))) * 180 / .pi
            let px = x + (az + 180) / 360 * width, py = top + (90 - el) / 180 * h
            let n = i < occupancy.count ? occupancy[i] : 0
            let fill = n == 0 ? "#fff" : "rgb(26,115,232)"
            let opacity = n == 0 ? 1 : 0.25 + 0.75 * Double(n) / Double(maxCount)
            s += "<circle class=\"bin\(n > 0 ? " covered" : "")\" cx=\"\(fmt(px, 1))\" cy=\"\(fmt(py, 1))\" r=\"12\" fill=\"\(fill)\" fill-opacity=\"\(fmt(opacity, 2))\" stroke=\"#9aa0a6\"><title>\(n) samples</title></circle>"
        }
        s += "<text x=\"\(fmt(x, 1))\" y=\"\(fmt(top + h + 14, 1))\" font-size=\"11\" fill=\"#444\">azimuth −180° … 180° (left to right), elevation +90° … −90° (top to bottom)</text>"
        return s + "</g>\n"
    }

    func numbers(x: Double, y: Double) -> String {
        let c = result.calibration, m = result.metrics, si = c.softIron
        var lines = [
            "method: \(result.method.rawValue)",
            "hard iron: (\(vec(c.hardIronMicrotesla))) µT",
            "soft iron: [\(fmt(si.r0.x, 4)) \(fmt(si.r0.y, 4)) \(fmt(si.r0.z, 4))]",
            "           [\(fmt(si.r1.x, 4)) \(fmt(si.r1.y, 4)) \(fmt(si.r1.z, 4))]",
            "           [\(fmt(si.r2.x, 4)) \(fmt(si.r2.y, 4)) \(fmt(si.r2.z, 4))]",
            "field: \(fmt(m.fieldMicrotesla, 2)) µT" + (result.referenceFieldMicrotesla.map { "  (WMM \(fmt($0, 2)) µT)" } ?? ""),
            "residual std: \(fmt(m.residualStdMicrotesla, 3)) µT",
            "coverage: \(fmt(m.coveragePercent, 0)) %",
            "samples: \(m.sampleCount) kept, \(m.inlierCount) inliers (\(rawSamples.count) plotted before thinning)",
        ]
        for note in result.notes {
            // Long notes wrap at ~88 characters, on spaces.
            var line = "note:"
            for word in note.split(separator: " ") {
                if line.count + word.count + 1 > 88 { lines.append(line); line = "     " }
                line += " " + word
            }
            lines.append(line)
        }
        var s = "<g id=\"numbers\" font-size=\"12\" fill=\"#202124\">"
        for (k, l) in lines.enumerated() {
            // Long notes wrap at ~90 characters.
            s += "<text x=\"\(fmt(x, 1))\" y=\"\(fmt(y + 16 + Double(k) * 17, 1))\" xml:space=\"preserve\">\(xml(l))</text>"
        }
        return s + "</g>\n"
    }

    func legend(x: Double, y: Double) -> String {
        var s = "<g id=\"legend\" font-size=\"12\">"
        let items = [("<circle r=\"3\" fill=\"\(Self.rawColor)\"/>", "raw samples"), ("<circle r=\"3\" fill=\"\(Self.calibratedColor)\"/>", "calibrated samples"),
                     ("<line x1=\"-8\" x2=\"8\" stroke=\"\(Self.fitColor)\" stroke-width=\"2\"/>", "fitted \(result.method == .circle ? "circle" : "ellipsoid") (raw space), + its centre = hard iron"),
                     ("<line x1=\"-8\" x2=\"8\" stroke=\"\(Self.sphereColor)\" stroke-width=\"2\" stroke-dasharray=\"5 3\"/>", "calibrated field, radius F")]
        var px = x + 8
        for (shape, label) in items {
            s += "<g transform=\"translate(\(fmt(px, 1)) \(fmt(y, 1)))\">\(shape)<text x=\"14\" y=\"4\">\(xml(label))</text></g>"
            px += 40 + Double(label.count) * 6.4
        }
        return s + "</g>\n"
    }

    static func basis(normal n: Vector3) -> (Vector3, Vector3) {
        let nn = n * (1 / max(n.norm, 1e-12))
        let helper = abs(nn.x) < 0.9 ? Vector3(x: 1, y: 0, z: 0) : Vector3(x: 0, y: 1, z: 0)
        var e1 = helper - nn * helper.dot(nn)
        e1 = e1 * (1 / e1.norm)
        return (e1, nn.cross(e1))
    }

    static func inverse(_ m: Matrix3) -> Matrix3 {
        let a = m.r0, b = m.r1, c = m.r2
        let det = a.dot(b.cross(c))
        guard abs(det) > 1e-12 else { return .identity }
        let i = 1 / det
        let c0 = b.cross(c) * i, c1 = c.cross(a) * i, c2 = a.cross(b) * i
        // Columns of the inverse are those cross products; transpose into rows.
        return Matrix3(r0: Vector3(x: c0.x, y: c1.x, z: c2.x), r1: Vector3(x: c0.y, y: c1.y, z: c2.y), r2: Vector3(x: c0.z, y: c1.z, z: c2.z))
    }
}
