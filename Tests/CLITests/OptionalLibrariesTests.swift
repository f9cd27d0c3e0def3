import Foundation
import Testing
import TestSupport

/// libgps and libmosquitto are loaded when first used (Sources/CGPS, Sources/CMosquitto): `lodestar` does not link
/// them, and when one is missing the feature that needs it says so in one line while the rest keeps working. The
/// missing library is real: a private mount namespace (unshare -m, root) binds /dev/null over it, so the dynamic
/// loader finds a file it cannot load.
@Suite("Optional libraries", .ownThreads)
struct OptionalLibrariesTests {
    /// The shared library `ldconfig` resolves for a soname, e.g. /lib/x86_64-linux-gnu/libgps.so.28.
    static func libraryPath(_ soname: String) -> String? {
        guard let out = try? Tool.run("/sbin/ldconfig", ["-p"], timeout: 20).output else { return nil }
        for line in out.split(separator: "\n") where line.contains(soname + " ") {
            if let arrow = line.range(of: "=> ") { return String(line[arrow.upperBound...]).trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }

    static var canHideLibraries: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
            && ((try? Tool.run("/usr/bin/unshare", ["-m", "true"], timeout: 20).status) == 0)
    }

    /// Runs lodestar with `library` replaced by an unloadable file.
    static func withoutLibrary(_ library: String, _ arguments: [String], seconds: Int) throws -> (status: Int32, output: String) {
        let quoted = ([Lodestar.binary] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return try Tool.run("/usr/bin/timeout", ["-s", "KILL", String(seconds), "/usr/bin/unshare", "-m", "/bin/sh", "-c",
                                                 "mount --bind /dev/null '\(library)' && cd '\(SharedData.packageRoot.path)' && exec \(quoted)"],
                            timeout: Double(seconds + 10))
    }

    @Test func theBinaryLinksNeitherLibrary() throws {
        let r = try Tool.run("/usr/bin/readelf", ["-d", Lodestar.binary], timeout: 30)
        #expect(r.status == 0)
        let needed = r.output.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(!needed.isEmpty)
        #expect(!needed.contains { $0.contains("libgps") || $0.contains("libmosquitto") || $0.contains("libssl") }, "\(needed)")
    }

    @Test(.enabled(if: canHideLibraries, "needs root and unshare -m"))
    func aGpsdSourceWithoutLibgpsIsUnavailableWithTheReason() throws {
        let lib = try #require(Self.libraryPath("libgps.so.28"))
        let r = try Self.withoutLibrary(lib, ["run", "--gps", "gpsd://127.0.0.1:1", "--quiet"], seconds: 4)
        #expect(r.status == 137, "lodestar should keep running until the timeout kills it: \(r.output)")
        #expect(r.output.contains("\"state\":\"unavailable\"") && r.output.contains("libgps cannot be loaded"), "\(r.output)")
    }

    @Test(.enabled(if: canHideLibraries, "needs root and unshare -m"))
    func mqttWithoutLibmosquittoKeepsTheFixesAndSaysWhy() throws {
        let lib = try #require(Self.libraryPath("libmosquitto.so.1"))
        let dir = try TemporaryDirectory()
        let r = try Self.withoutLibrary(lib, ["replay", "--mqtt", "mqtt://127.0.0.1:1/lodestar", "--mqtt-spool", dir.path("spool"),
                                              "captures/simulated-drive.lcap"], seconds: 60)
        // The replay itself completes; the broker is unavailable (69) and every fix waits in the spool.
        #expect(r.status == 69, "\(r.output.suffix(800))")
        #expect(r.output.contains("lodestar: mqtt: unavailable — mqtt: libmosquitto cannot be loaded"), "\(r.output.suffix(800))")
        #expect(r.output.contains("300 fixes") && r.output.contains("300 kept in"), "\(r.output.suffix(800))")
    }
}
