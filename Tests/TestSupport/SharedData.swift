import Foundation

/// Locations of the real recordings in ../shared/data (beside the project) and of the project itself.
public enum SharedData {
    /// The package root, derived from this file's path.
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static let directory: URL = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data")

    /// True when ../shared/data exists. Tests that need it are disabled with a visible reason otherwise.
    public static let available: Bool = FileManager.default.fileExists(atPath: directory.path)

    public static let skipMessage = "../shared/data is absent: skipping tests on real recordings"

    public static func path(_ relative: String) -> String { directory.appendingPathComponent(relative).path }

    public static func files(in folder: String, suffix: String) -> [String] {
        let dir = directory.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(suffix) }.sorted().map { dir.appendingPathComponent($0).path }
    }
}

/// Scratch files for a test, removed when the value goes away.
public final class TemporaryDirectory: @unchecked Sendable {
    public let url: URL
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("lodestar-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    public func write(_ name: String, _ text: String) throws -> String {
        let p = path(name)
        try text.write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }
    public func write(_ name: String, bytes: [UInt8]) throws -> String {
        let p = path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: p))
        return p
    }
}

extension Sequence {
    /// `allSatisfy` that is false for an empty sequence: a test over a list that came out empty fails instead of
    /// passing vacuously.
    public func isNonEmptyAndAllSatisfy(_ predicate: (Element) throws -> Bool) rethrows -> Bool {
        var any = false
        for e in self {
            guard try predicate(e) else { return false }
            any = true
        }
        return any
    }
}
