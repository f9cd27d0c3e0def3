import Foundation
import Testing
import TestSupport

/// docs/architecture.md's module table is the module graph as it is: every non-test target of Package.swift has a
/// row, and the row's "depends on" column is exactly the target's dependencies.
@Suite("Architecture document", .ownThreads)
struct ArchitectureDocTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOf: SharedData.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// Target name → dependencies, from Package.swift's text (test targets and TestSupport left out).
    static func packageGraph() throws -> [String: Set<String>] {
        let source = try text("Package.swift")
        var graph: [String: Set<String>] = [:]
        let starts = ["\n        .target(", "\n        .executableTarget(", "\n        .systemLibrary("]
        for start in starts {
            var rest = Substring(source)
            while let r = rest.range(of: start) {
                rest = rest[r.upperBound...]
                // The call runs to the first line that starts a new element (or closes the list).
                let end = rest.range(of: "\n        .")?.lowerBound ?? rest.range(of: "\n    ]")?.lowerBound ?? rest.endIndex
                let call = rest[..<end]
                guard let nameRange = call.range(of: #"name: "(\w+)""#, options: .regularExpression) else { continue }
                let name = call[nameRange].dropFirst(7).dropLast()
                if name == "TestSupport" { continue }
                var deps: Set<String> = []
                if let d = call.range(of: "dependencies: [") {
                    var depth = 1, i = d.upperBound
                    while i < call.endIndex, depth > 0 {
                        if call[i] == "[" { depth += 1 } else if call[i] == "]" { depth -= 1 }
                        i = call.index(after: i)
                    }
                    var list = String(call[d.upperBound..<call.index(before: i)])
                    list = list.replacingOccurrences(of: #"package: "[^"]*""#, with: "", options: .regularExpression)
                    for m in list.matches(of: /"(\w+)"/) { deps.insert(String(m.1)) }
                }
                graph[String(name)] = deps
            }
        }
        return graph
    }

    /// Module → dependencies from the document's table (rows with several modules give each the same column).
    static func documentGraph() throws -> [String: Set<String>] {
        let doc = try text("docs/architecture.md")
        guard let start = doc.range(of: "| module | what | depends on |") else { return [:] }
        var graph: [String: Set<String>] = [:]
        for line in doc[start.upperBound...].split(separator: "\n").dropFirst() {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { continue }
            let names = cells[1].matches(of: /`(\w+)`/).map { String($0.1) }
            let deps = Set(cells[cells.count - 2].matches(of: /`(\w+)`/).map { String($0.1) })
            for n in names { graph[n] = deps }
        }
        return graph
    }

    @Test func moduleTableMatchesPackageSwift() throws {
        let package = try Self.packageGraph()
        let document = try Self.documentGraph()
        #expect(package.count >= 20, "Package.swift parse found \(package.count) targets")
        #expect(!document.isEmpty)
        for (name, deps) in package.sorted(by: { $0.key < $1.key }) {
            guard let documented = document[name] else {
                Issue.record("docs/architecture.md has no row for \(name)")
                continue
            }
            #expect(documented == deps, "\(name): document says \(documented.sorted()), Package.swift \(deps.sorted())")
        }
        for name in document.keys where package[name] == nil {
            Issue.record("docs/architecture.md lists \(name), which Package.swift does not have")
        }
    }

    /// The layering rules the document states, checked on the sources.
    @Test func devicesImportsNeitherCaptureNorPipeline() throws {
        let root = SharedData.packageRoot.appendingPathComponent("Sources/Devices")
        let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        #expect(!files.isEmpty)
        for file in files {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains("\nimport Capture"), "\(file) imports Capture")
            #expect(!text.contains("\nimport Pipeline"), "\(file) imports Pipeline")
        }
    }
}
