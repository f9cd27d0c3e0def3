#if !canImport(Darwin)
import Foundation

/// What Core Location keeps across launches of a program, as Apple's does: the manager's monitored regions (every
/// manager of the program sees the same set, and a new launch finds them still monitored) and each named
/// `CLMonitor`'s conditions with their last state.
///
/// Where: `$XDG_STATE_HOME/lodestar/corelocation/APP/` (default `~/.local/state/…`), APP being `LODESTAR_APP_ID` or
/// the executable's name. `regions.json` holds the circular regions; `monitor-NAME.json` one monitor's records.
/// Files are written whole (a temporary file, then rename), so a crash leaves the old or the new set, never half.
/// With no home directory (a system user without one) nothing persists: `CLMonitor` events then say
/// `persistenceUnavailable`, as Apple's do when a monitor's storage cannot be used.
struct CLPersistentStore: Sendable {
    let directory: URL

    /// Tests point the store elsewhere for the managers and monitors they make inside `withValue`.
    @TaskLocal static var directoryOverride: URL?
    /// Tests that do not test persistence turn it off, so one test's regions do not come back in the next.
    nonisolated(unsafe) static var enabled = true

    /// The program's store, or nil when nothing can persist.
    static func current() -> CLPersistentStore? {
        if let dir = directoryOverride { return CLPersistentStore(directory: dir) }
        return enabled ? resolve(ProcessInfo.processInfo.environment) : nil
    }

    /// The store an environment names (see the type's comment), or nil when it names none.
    static func resolve(_ env: [String: String]) -> CLPersistentStore? {
        let base: URL
        if let state = env["XDG_STATE_HOME"], state.hasPrefix("/") {
            base = URL(fileURLWithPath: state)
        } else if let home = env["HOME"], home.hasPrefix("/"), home != "/nonexistent" {
            base = URL(fileURLWithPath: home).appendingPathComponent(".local/state")
        } else {
            return nil
        }
        return CLPersistentStore(directory: base.appendingPathComponent("lodestar/corelocation/\(appID(env))"))
    }

    static func appID(_ env: [String: String]) -> String {
        let raw = env["LODESTAR_APP_ID"].flatMap { $0.isEmpty ? nil : $0 }
            ?? URL(fileURLWithPath: CommandLine.arguments.first ?? "program").lastPathComponent
        return safeName(raw)
    }

    /// A file name from any string: letters, digits, `.`, `-`, `_`; the rest become `_`.
    static func safeName(_ s: String) -> String {
        let kept = s.unicodeScalars.map { c -> Character in
            (c.properties.isAlphabetic && c.isASCII) || ("0"..."9").contains(c) || c == "." || c == "-" || c == "_" ? Character(c) : "_"
        }
        let name = String(kept)
        return name.isEmpty || name.hasPrefix(".") ? "_" + name : name
    }

    /// A circle as stored (the manager's regions and the monitors' conditions).
    struct Circle: Codable, Equatable, Sendable {
        var identifier: String
        var latitude: Double
        var longitude: Double
        var radius: Double
        var notifyOnEntry = true
        var notifyOnExit = true
        /// A monitor's last state (CLMonitor.Event.State raw value); nil for the manager's regions.
        var state: UInt?
    }

    var regionsFile: URL { directory.appendingPathComponent("regions.json") }
    func monitorFile(_ name: String) -> URL { directory.appendingPathComponent("monitor-\(Self.safeName(name)).json") }

    /// The stored circles (none when the file is missing; a damaged file is reported once and read as none).
    func load(_ file: URL) -> [Circle] {
        guard let data = try? Data(contentsOf: file) else { return [] }
        do { return try JSONDecoder().decode([Circle].self, from: data) } catch {
            LocationServiceSource.log("\(file.path): damaged, starting with nothing monitored (\(error))")
            return []
        }
    }

    /// Writes the circles whole; an empty set removes the file. False (reported once) when it cannot be written.
    @discardableResult
    func save(_ circles: [Circle], to file: URL) -> Bool {
        do {
            if circles.isEmpty {
                if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
                return true
            }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try encoder.encode(circles).write(to: file, options: .atomic)
            return true
        } catch {
            LocationServiceSource.log("\(file.path): cannot save (\(error)); monitoring goes on for this run only")
            return false
        }
    }
}
#endif
