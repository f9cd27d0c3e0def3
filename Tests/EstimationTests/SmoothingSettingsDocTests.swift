import Foundation
import Testing
import TestSupport
@testable import Estimation

/// docs/smoothing.md's "Settings" lists every key `--smoothing-config` reads, with its default, and no key the code
/// does not read: the keys and defaults are taken from `PositionSmoother.Settings` itself.
@Suite struct SmoothingSettingsDocTests {
    @Test func everySettingKeyIsDocumentedWithItsDefault() throws {
        let doc = try String(contentsOf: SharedData.packageRoot.appendingPathComponent("docs/smoothing.md"), encoding: .utf8)
        guard let start = doc.range(of: "## Settings"), let end = doc.range(of: "\n## ", range: start.upperBound..<doc.endIndex) else {
            Issue.record("docs/smoothing.md has no Settings section"); return
        }
        let section = String(doc[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "\n", with: " ")
        let defaults = PositionSmoother.Settings.default
        for (key, path) in PositionSmoother.Settings.booleanKeys {
            #expect(section.contains("`\(key)` (\(defaults[keyPath: path]))"), "\(key) (\(defaults[keyPath: path])) not in docs/smoothing.md's Settings")
        }
        for (key, path) in PositionSmoother.Settings.numericKeys {
            #expect(section.contains("`\(key)`"), "\(key) not in docs/smoothing.md's Settings")
            let v = defaults[keyPath: path]
            let text = v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
            #expect(section.contains("`\(key)` (\(text)") || section.contains("`\(key)` (m²/s³, \(text))"),
                    "\(key): default \(text) not documented")
        }
        // Every documented key is one the code reads.
        let documented = section.matches(of: /`([a-zA-Z]+)` \(/).map { String($0.1) }
        let known = Set(PositionSmoother.Settings.keys)
        #expect(section.contains("`reinitialiseAfterRejections` (\(defaults.reinitialiseAfterRejections))"))
        #expect(documented.count >= known.count)
        for k in documented { #expect(known.contains(k), "docs/smoothing.md documents \(k), which --smoothing-config does not read") }
    }
}
