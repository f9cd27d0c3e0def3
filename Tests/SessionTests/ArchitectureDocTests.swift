import Foundation
import Testing
import TestSupport

/// docs/architecture.md's module table is the module graph as it is: every non-test target of Package.swift has a
/// row, the row's "depends on" column is exactly the target's dependencies, and it is exactly what the module's
/// sources import (of the package's modules and products). The document's import list and layering rules are
/// checked on the `import` lines of the sources too.
@Suite("Architecture document", .ownThreads)
struct ArchitectureDocTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOf: SharedData.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    struct Target {
        var dependencies: Set<String>
        var isTest: Bool
        /// The directory of its sources, relative to the package root.
        var path: String
    }

    /// Target name → dependencies and source directory, from Package.swift's text.
    static func packageTargets() throws -> [String: Target] {
        let source = try text("Package.swift")
        var targets: [String: Target] = [:]
        let starts = ["\n        .target(", "\n        .executableTarget(", "\n        .systemLibrary(", "\n        .testTarget("]
        for start in starts {
            var rest = Substring(source)
            while let r = rest.range(of: start) {
                rest = rest[r.upperBound...]
                // The call runs to the first line that starts a new element (or closes the list).
                let end = rest.range(of: "\n        .")?.lowerBound ?? rest.range(of: "\n    ]")?.lowerBound ?? rest.endIndex
                let call = rest[..<end]
                guard let nameRange = call.range(of: #"name: "(\w+)""#, options: .regularExpression) else { continue }
                let name = String(call[nameRange].dropFirst(7).dropLast())
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
                let isTest = start.contains("testTarget")
                let path = call.firstMatch(of: /path: "([^"]+)"/).map { String($0.1) } ?? ((isTest ? "Tests/" : "Sources/") + name)
                targets[name] = Target(dependencies: deps, isTest: isTest, path: path)
            }
        }
        return targets
    }

    /// Target name → dependencies (test targets and TestSupport left out): what the table documents.
    static func packageGraph() throws -> [String: Set<String>] {
        try packageTargets().filter { !$0.value.isTest && $0.key != "TestSupport" }.mapValues(\.dependencies)
    }

    /// Every module a target's Swift files import (any attribute or access level; conditional imports included).
    static func imports(under path: String) throws -> Set<String> {
        let root = SharedData.packageRoot.appendingPathComponent(path)
        let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") } ?? []
        var modules: Set<String> = []
        for file in files {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n", omittingEmptySubsequences: true) where line.contains("import ") {
                if let m = line.wholeMatch(of: /\s*(?:@\w+\s+)*(?:public\s+|package\s+|internal\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+).*/) {
                    modules.insert(String(m.1))
                }
            }
        }
        return modules
    }

    /// Whether a target has Swift sources (C and system-library targets have none).
    static func hasSwiftSources(_ path: String) -> Bool {
        let root = SharedData.packageRoot.appendingPathComponent(path)
        return FileManager.default.enumerator(atPath: root.path)?.contains { ($0 as? String)?.hasSuffix(".swift") == true } ?? false
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

    /// The package's own modules and the products it depends on: the names a module table row can list.
    static func knownModules(_ targets: [String: Target]) -> Set<String> {
        Set(targets.keys).union(targets.values.flatMap(\.dependencies))
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

    /// A module the table says depends on X imports X in some file, and every package module or product a module
    /// imports is in its row.
    @Test func moduleTableMatchesImports() throws {
        let targets = try Self.packageTargets()
        let known = Self.knownModules(targets)
        let document = try Self.documentGraph()
        var checked = 0
        for (name, documented) in document.sorted(by: { $0.key < $1.key }) {
            guard let target = targets[name], Self.hasSwiftSources(target.path) else { continue }
            let imported = try Self.imports(under: target.path).intersection(known).subtracting([name])
            #expect(imported == documented,
                    "\(name): document says \(documented.sorted()); its sources import \(imported.sorted()) (missing from the row: \(imported.subtracting(documented).sorted()), never imported: \(documented.subtracting(imported).sorted()))")
            checked += 1
        }
        #expect(checked >= 25, "only \(checked) modules with Swift sources found")
    }

    /// Every target (tests included) declares in Package.swift each package module or product its files import
    /// (an undeclared import builds only by accident of the build order).
    @Test func everyImportIsDeclared() throws {
        let targets = try Self.packageTargets()
        let known = Self.knownModules(targets)
        #expect(targets.values.contains { $0.isTest }, "no test targets parsed")
        for (name, target) in targets.sorted(by: { $0.key < $1.key }) where Self.hasSwiftSources(target.path) {
            let undeclared = try Self.imports(under: target.path).intersection(known)
                .subtracting(target.dependencies).subtracting([name])
            #expect(undeclared.isEmpty, "\(name) imports \(undeclared.sorted()) without declaring it in Package.swift")
        }
    }

    /// The document's list of who imports each C shim and system module matches the sources exactly.
    @Test func importListMatchesSources() throws {
        let doc = try Self.text("docs/architecture.md")
        let targets = try Self.packageTargets()
        let modules = targets.filter { !$0.value.isTest && $0.key != "TestSupport" }
        guard let start = doc.range(of: "**Who imports the C shims and the system modules besides Glibc**") else {
            Issue.record("docs/architecture.md has no import list")
            return
        }
        var imported: [String: Set<String>] = [:]  // module → what its sources import
        for (name, target) in modules where Self.hasSwiftSources(target.path) {
            imported[name] = try Self.imports(under: target.path)
        }
        var listed: [String: Set<String>] = [:]
        var current: String?
        // The bulleted list after the heading: "- `Shim`: `Module`, …", continuation lines indented.
        let lines = doc[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
        for line in lines.drop(while: { !$0.hasPrefix("- ") }) {
            if line.hasPrefix("- ") {
                let names = line.matches(of: /`(\w+)`/).map { String($0.1) }
                guard let first = names.first else { continue }
                current = first
                listed[first] = Set(names.dropFirst().filter { modules[$0] != nil })
            } else if line.hasPrefix("  "), let c = current {
                listed[c, default: []].formUnion(line.matches(of: /`(\w+)`/).map { String($0.1) }.filter { modules[$0] != nil })
            } else {
                break
            }
        }
        #expect(listed.count >= 9, "the list has \(listed.count) entries")
        for (shim, documented) in listed.sorted(by: { $0.key < $1.key }) {
            let real = Set(imported.filter { $0.value.contains(shim) }.keys)
            #expect(real == documented, "\(shim): document says \(documented.sorted()), sources: \(real.sorted())")
        }
        // Every C target and system library of the package is in the list.
        for (name, target) in modules where !Self.hasSwiftSources(target.path) && imported.values.contains(where: { $0.contains(name) }) {
            #expect(listed[name] != nil, "\(name) is imported but not in the document's list")
        }
    }

    /// The layering rules the document states, checked on the sources.
    @Test func devicesImportsNeitherCaptureNorPipeline() throws {
        let imported = try Self.imports(under: "Sources/Devices")
        #expect(imported.contains("LocationCore"), "the import parser found nothing in Sources/Devices")
        #expect(!imported.contains("Capture"), "Devices imports Capture")
        #expect(!imported.contains("Pipeline"), "Devices imports Pipeline")
    }

    /// The outputs see events, not the pipeline: no output module imports Pipeline or depends on it.
    @Test(arguments: ["NetworkOutput", "MQTT", "Maps", "LivePage"])
    func outputModuleDoesNotImportPipeline(_ module: String) throws {
        let imported = try Self.imports(under: "Sources/\(module)")
        #expect(imported.contains("Events"), "\(module) does not import Events (parser or layout changed?)")
        #expect(!imported.contains("Pipeline"), "\(module) imports Pipeline")
        let deps = try Self.packageGraph()[module]
        #expect(deps != nil && deps?.contains("Pipeline") == false, "\(module) depends on Pipeline in Package.swift")
    }

    /// Pipeline and Events re-export nothing (an `@_exported import` would hand every importer the modules below).
    @Test(arguments: ["Pipeline", "Events"])
    func reExportsNothing(_ module: String) throws {
        let root = SharedData.packageRoot.appendingPathComponent("Sources/\(module)")
        let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        #expect(!files.isEmpty)
        for file in files {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains("@_exported"), "\(module)/\(file) re-exports a module")
        }
    }
}
