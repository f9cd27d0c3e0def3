import Foundation
import Testing
import TestSupport

/// `lodestar replay` with the location-services options on the shipped capture.
@Suite("lodestar location services", .ownThreads)
struct ServicesCLITests {
    static let capture = "captures/simulated-drive.lcap"
    static let regions = "captures/simulated-drive-regions.json"

    static func lines(_ out: String, _ cls: String) -> [String] {
        out.split(whereSeparator: \.isNewline).map(String.init).filter { $0.hasPrefix("{\"class\":\"\(cls)\"") }
    }

    @Test func regionsVisitsAndSignificantChangesOnTheOutput() throws {
        let r = try Lodestar.run(["replay", "--quiet", "--no-sky", "--regions", Self.regions, "--visits", "--visit-min-dwell", "45",
                                  "--significant-changes", Self.capture], currentDirectory: SharedData.packageRoot.path)
        #expect(r.status == 0, "\(r.stderr)")
        let regions = Self.lines(r.stdout, "region")
        #expect(regions.count == 4)
        #expect(regions.first?.contains(#""identifier":"start","event":"enter","previousState":"unknown""#) == true)
        #expect(!r.stdout.contains("elsewhere"))
        let visits = Self.lines(r.stdout, "visit")
        #expect(visits.count == 2)
        #expect(visits.first?.contains(#""departureDate":"4001-01-01T00:00:00.000Z""#) == true)
        #expect(Self.lines(r.stdout, "significantChange").count >= 2)
        #expect(Self.lines(r.stdout, "fix").count == 300)   // no policy: every fix
    }

    @Test func distanceFilterAndDeferralReplaceTheFixStream() throws {
        let root = SharedData.packageRoot.path
        let filtered = try Lodestar.run(["replay", "--quiet", "--no-sky", "--no-heading", "--distance-filter", "200", Self.capture], currentDirectory: root)
        #expect(filtered.status == 0)
        let n = Self.lines(filtered.stdout, "fix").count
        #expect(n > 5 && n < 40)
        let batched = try Lodestar.run(["replay", "--quiet", "--no-sky", "--no-heading", "--defer-seconds", "60", Self.capture], currentDirectory: root)
        #expect(Self.lines(batched.stdout, "fix").isEmpty)
        let batches = Self.lines(batched.stdout, "batch")
        #expect(batches.count == 5)
        let gpsd = try Lodestar.run(["replay", "--quiet", "--no-sky", "--no-heading", "--output", "gpsd", "--defer-seconds", "60",
                                     "--regions", Self.regions, Self.capture], currentDirectory: root)
        #expect(gpsd.stdout.components(separatedBy: "\"class\":\"TPV\"").count - 1 == 300)
        #expect(gpsd.stdout.contains("\"class\":\"REGION\""))
    }

    @Test func regionStateMakesASecondRunSilent() throws {
        let dir = try TemporaryDirectory()
        let state = dir.path("state.json")
        let args = ["replay", "--quiet", "--no-sky", "--no-heading", "--regions", Self.regions, "--region-state", state, Self.capture]
        let first = try Lodestar.run(args, currentDirectory: SharedData.packageRoot.path)
        #expect(Self.lines(first.stdout, "region").count == 4)
        #expect(FileManager.default.fileExists(atPath: state))
        let second = try Lodestar.run(args, currentDirectory: SharedData.packageRoot.path)
        #expect(second.status == 0)
        #expect(Self.lines(second.stdout, "region").isEmpty)  // the same fixes again: no duplicate event
    }

    @Test func badInputGivesOneLineAndADistinctExitCode() throws {
        let dir = try TemporaryDirectory()
        let root = SharedData.packageRoot.path
        let missing = try Lodestar.run(["replay", "--regions", dir.path("none.json"), Self.capture], currentDirectory: root)
        #expect(missing.status == 66)
        let badPath = try dir.write("bad.json", #"[{"identifier":"a","latitude":100,"longitude":0,"radius":5}]"#)
        let bad = try Lodestar.run(["replay", "--regions", badPath, Self.capture], currentDirectory: root)
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("region 0") && bad.stderr.split(whereSeparator: \.isNewline).count == 1)
        let usage = try Lodestar.run(["replay", "--desired-accuracy", "perfect", Self.capture], currentDirectory: root)
        #expect(usage.status == 64)
        let stateWithoutRegions = try Lodestar.run(["replay", "--region-state", dir.path("s"), Self.capture], currentDirectory: root)
        #expect(stateWithoutRegions.status == 64)
    }
}
