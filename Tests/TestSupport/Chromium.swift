import Foundation

/// Debian's headless Chromium, run once per page (screenshot or DOM dump), and its screenshots as RGB pixels
/// (decoded by GDAL's gdal_translate into PPM, so no PNG decoder is written here).
public enum Chromium {
    public static let binary: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    public static let gdalTranslate = "/usr/bin/gdal_translate"
    public static var available: Bool { binary != nil && FileManager.default.isExecutableFile(atPath: gdalTranslate) }
    public static let skipMessage = "chromium or gdal-bin is not installed (make test installs them)"

    /// An RGB image.
    public struct Image: Sendable {
        public let width: Int
        public let height: Int
        public let rgb: [UInt8]
        public func pixel(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int) {
            let i = 3 * (y * width + x)
            return (Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2]))
        }
        /// Pixels in [x0, x1) × [y0, y1) (clamped) for which `test` holds.
        public func count(x0: Int, y0: Int, x1: Int, y1: Int, where test: ((r: Int, g: Int, b: Int)) -> Bool) -> Int {
            var n = 0
            for y in max(0, y0)..<min(height, y1) { for x in max(0, x0)..<min(width, x1) where test(pixel(x, y)) { n += 1 } }
            return n
        }
    }

    static func run(_ arguments: [String], timeoutSeconds: Int = 90) throws -> (status: Int32, stdout: Data, stderr: Data) {
        let p = Process()
        // SIGKILL: the test threads block SIGTERM and a child inherits the mask.
        p.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        p.arguments = ["-s", "KILL", String(timeoutSeconds)] + arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return (p.terminationStatus, outData, errData)
    }

    public static func browserArguments(_ profile: String, width: Int, height: Int) -> [String] {
        [binary ?? "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
         "--force-device-scale-factor=1", "--user-data-dir=\(profile)", "--window-size=\(width),\(height)"]
    }

    /// Loads `url` and returns a screenshot of the window.
    public static func screenshot(_ url: String, width: Int, height: Int, virtualTimeBudgetMilliseconds: Int? = nil) throws -> Image {
        let dir = try TemporaryDirectory()
        let png = dir.path("shot.png"), ppm = dir.path("shot.ppm")
        var args = browserArguments(dir.path("profile"), width: width, height: height) + ["--screenshot=\(png)"]
        if let v = virtualTimeBudgetMilliseconds { args.append("--virtual-time-budget=\(v)") }
        let r = try run(args + [url])
        guard FileManager.default.fileExists(atPath: png) else {
            throw Failure("chromium wrote no screenshot (status \(r.status)): \(String(decoding: r.stderr.suffix(2000), as: UTF8.self))")
        }
        let g = try run([gdalTranslate, "-q", "-of", "PNM", "-b", "1", "-b", "2", "-b", "3", png, ppm])
        guard g.status == 0 else { throw Failure("gdal_translate failed: \(String(decoding: g.stderr, as: UTF8.self))") }
        return try readPPM(Data(contentsOf: URL(fileURLWithPath: ppm)))
    }

    /// Loads `url`, runs its scripts (for `virtualTimeBudgetMilliseconds` of virtual time) and returns the DOM.
    public static func dumpDOM(_ url: String, width: Int = 1200, height: Int = 800, virtualTimeBudgetMilliseconds: Int = 2000) throws -> String {
        let dir = try TemporaryDirectory()
        let r = try run(browserArguments(dir.path("profile"), width: width, height: height)
                        + ["--virtual-time-budget=\(virtualTimeBudgetMilliseconds)", "--dump-dom", url])
        guard r.status == 0 else { throw Failure("chromium --dump-dom exited \(r.status): \(String(decoding: r.stderr.suffix(2000), as: UTF8.self))") }
        return String(decoding: r.stdout, as: UTF8.self)
    }

    /// Binary PPM (P6, maxval 255).
    static func readPPM(_ d: Data) throws -> Image {
        let b = [UInt8](d)
        var i = 0
        func token() -> String {
            while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 || b[i] == 0x23 {
                if b[i] == 0x23 { while i < b.count && b[i] != 0x0A { i += 1 } } else { i += 1 }
            }
            let s = i
            while i < b.count, !(b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09) { i += 1 }
            return String(decoding: b[s..<i], as: UTF8.self)
        }
        guard token() == "P6", let w = Int(token()), let h = Int(token()), token() == "255" else { throw Failure("not a P6 PPM") }
        i += 1
        guard b.count - i >= 3 * w * h else { throw Failure("PPM truncated") }
        return Image(width: w, height: h, rgb: Array(b[i..<(i + 3 * w * h)]))
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ d: String) { description = d }
    }
}
