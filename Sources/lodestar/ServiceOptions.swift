import ArgumentParser
import Capture
import LocationCore
import LodestarIO
import SystemPackage
import LocationServices
import Maps
#if canImport(Glibc)
import Glibc
#endif

/// Location-services options shared by `replay` and `run` (docs/services.md).
struct ServiceOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Monitor the circular regions in this JSON file (array of {identifier, latitude, longitude, radius, notifyOnEntry, notifyOnExit}); enter/exit events go to the output.", valueName: "file"))
    var regions: String?

    @Option(name: .long, help: ArgumentHelp("Keep region states in this file (read at start if present, rewritten after each region event and at the end) so a restart repeats and misses no event.", valueName: "file"))
    var regionState: String?

    @Flag(name: .long, help: "Emit visit events (arrivals and departures; a dwell of --visit-min-dwell seconds within 50 m).")
    var visits = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Shortest dwell that counts as a visit (default 120 s; shorter stops such as traffic lights are ignored).", valueName: "seconds"))
    var visitMinDwell: Double?

    @Flag(name: .long, help: "Emit significant-change events (moved ≥ --significant-change-distance metres, debounced against accuracy).")
    var significantChanges = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Distance for --significant-changes (default 500 m).", valueName: "metres"))
    var significantChangeDistance: Double?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Deliver a fix only when it is at least this far from the last delivered fix (Core Location's distanceFilter).", valueName: "metres"))
    var distanceFilter: Double?

    @Option(name: .long, help: ArgumentHelp("Core Location's desiredAccuracy: bestForNavigation, best, nearestTenMeters, hundredMeters, kilometer, threeKilometers (or navigation, 10m, 100m, 1km, 3km).", valueName: "name"))
    var desiredAccuracy: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Deliver fixes in batches once the path reaches this many metres (deferred delivery).", valueName: "metres"))
    var deferDistance: Double?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Deliver fixes in batches at most this many seconds apart (deferred delivery).", valueName: "seconds"))
    var deferSeconds: Double?

    func validate() throws {
        func positive(_ v: Double?, _ name: String, allowZero: Bool = false) throws {
            guard let v else { return }
            guard v.isFinite, allowZero ? v >= 0 : v > 0 else {
                throw ValidationError("\(name) must be a \(allowZero ? "non-negative" : "positive") number, got \(v)")
            }
        }
        try positive(visitMinDwell, "--visit-min-dwell")
        try positive(significantChangeDistance, "--significant-change-distance")
        try positive(distanceFilter, "--distance-filter", allowZero: true)
        try positive(deferDistance, "--defer-distance")
        try positive(deferSeconds, "--defer-seconds")
        if let d = desiredAccuracy, DesiredAccuracy(name: d) == nil {
            throw ValidationError("--desired-accuracy must be one of \(DesiredAccuracy.allCases.map(\.rawValue).joined(separator: ", ")), got '\(d)'")
        }
        if regionState != nil && regions == nil { throw ValidationError("--region-state needs --regions FILE") }
        if visitMinDwell != nil && !visits { throw ValidationError("--visit-min-dwell needs --visits") }
        if significantChangeDistance != nil && !significantChanges {
            throw ValidationError("--significant-change-distance needs --significant-changes")
        }
    }

    /// The services stage for these options (nil when none is asked for). Bad files end the run with one line:
    /// missing 66, unreadable 74/77, malformed 65.
    func makeStage() throws -> LocationServicesStage? {
        var s = LocationServicesStage.Settings()
        if distanceFilter != nil || desiredAccuracy != nil {
            s.updatePolicy = LocationUpdatePolicy(desiredAccuracy: desiredAccuracy.flatMap(DesiredAccuracy.init(name:)) ?? .bestForNavigation,
                                                  distanceFilterMeters: distanceFilter ?? 0)
        }
        if significantChanges { s.significantChangeMeters = significantChangeDistance ?? 500 }
        if visits {
            var v = VisitDetector.Settings()
            if let d = visitMinDwell { v.minimumDwellSeconds = d }
            s.visits = v
        }
        s.deferDistanceMeters = deferDistance
        s.deferSeconds = deferSeconds
        if let path = regions {
            do { s.regions = try RegionIO.parse(Self.readFile(path)) } catch let e as CaptureError {
                throw CommandFailure(e.description, code: Exit.code(for: e))
            } catch {
                throw CommandFailure("\(path): \(error)", code: Exit.dataError)
            }
        }
        guard s.updatePolicy != nil || s.significantChangeMeters != nil || s.visits != nil || s.defers || !s.regions.isEmpty
        else { return nil }
        let stage = LocationServicesStage(settings: s)
        if let path = regionState {
            do {
                if access(path, F_OK) == 0 { try stage.restoreRegionState(Self.readFile(path)) }
            } catch let e as CaptureError {
                throw CommandFailure(e.description, code: Exit.code(for: e))
            } catch {
                throw CommandFailure("\(path): \(error)", code: Exit.dataError)
            }
            // A failed write mid-run is reported and retried at the next change; the final save decides the exit.
            stage.regionStateChanged = { monitor in
                do { try Self.writeState(monitor, to: path) } catch { printError("\(error)") }
            }
        }
        return stage
    }

    /// Writes the region state at the end of a run.
    func saveState(_ stage: LocationServicesStage?) throws {
        guard let stage, let path = regionState else { return }
        try Self.writeState(stage.regions, to: path)
    }

    static func readFile(_ path: String) throws(CaptureError) -> [UInt8] {
        let source = try ByteSource(path: path)
        var bytes: [UInt8] = []
        while true {
            let block = try source.read()
            if block.isEmpty { return bytes }
            guard bytes.count + block.count <= 256 << 20 else { throw .unrecognizedFormat(path: path, reason: "larger than 256 MB") }
            bytes.append(contentsOf: block)
        }
    }

    /// Replaces the file atomically (write a temporary file beside it, then rename).
    static func writeState(_ monitor: RegionMonitor, to path: String) throws {
        let bytes = monitor.encodeState()
        let tmp = path + ".tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw CommandFailure("\(path): cannot write region state (\(String(cString: strerror(errno))))",
                 code: errno == EACCES || errno == EPERM ? Exit.permission : Exit.cannotCreate)
        }
        var ok = true
        do { try Syscall.writeFully(fd, bytes) } catch { ok = false }
        if close(fd) != 0 { ok = false }
        guard ok, rename(tmp, path) == 0 else {
            unlink(tmp)
            throw CommandFailure("\(path): cannot write region state (\(String(cString: strerror(errno))))", code: Exit.ioError)
        }
    }
}
