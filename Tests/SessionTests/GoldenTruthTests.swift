import Capture
import Foundation
import LocationCore
import Simulation
import Testing
import TestSupport

/// The shipped capture's golden output (Tests/CLITests/Expected/simulated-drive.jsonl, what `lodestar replay
/// --heading-filter 5 captures/simulated-drive.lcap` prints) checked against the simulator's own truth rather than
/// against the program's previous output: fix error against the simulated track, heading error against the
/// simulated heading, the interference flag against the injected interval (200–205 s).
///
/// These state what SHOULD hold. Where the heading does not (issue 14 rewrites the estimator), the assertions are
/// marked as known issues naming issue 14 instead of being loosened; when it is fixed, they start passing and the
/// known-issue markers fail, which is the signal to remove them.
@Suite("Golden output against the simulator's truth", .ownThreads)
struct GoldenTruthTests {
    struct Truth {
        let rows: [RouteSimulator.TruthSample]
        func at(_ t: Timestamp) -> RouteSimulator.TruthSample? {
            // Rows are per GNSS epoch (1 Hz) and IMU sample; the nearest row in time.
            var lo = 0, hi = rows.count - 1
            guard hi >= 0 else { return nil }
            while lo < hi {
                let mid = (lo + hi) / 2
                if rows[mid].time < t { lo = mid + 1 } else { hi = mid }
            }
            let candidates = [lo - 1, lo].filter { $0 >= 0 && $0 < rows.count }
            return candidates.map { rows[$0] }.min {
                abs($0.time.seconds(to: t)) < abs($1.time.seconds(to: t))
            }
        }
    }

    static let truth: Truth = {
        let dir = try! TemporaryDirectory()
        let writer = try! CaptureWriter(path: dir.path("sim.lcap"))
        let rows = try! RouteSimulator(settings: .default).write(to: writer)
        try! writer.close()
        return Truth(rows: rows)
    }()

    static let start = Timestamp(year: 2025, month: 6, day: 1, hour: 12)!
    static let interference = 200.0...205.0

    static func golden() throws -> [[String: Any]] {
        let url = SharedData.packageRoot.appendingPathComponent("Tests/CLITests/Expected/simulated-drive.jsonl")
        return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
    }

    /// Seconds since the drive started, from a heading's monotonic stamp (clock header: 1 s ↔ 12:00:00Z).
    static func seconds(monotonicNanos: Int) -> Double { Double(monotonicNanos - 1_000_000_000) / 1e9 }

    @Test func truthMatchesTheShippedCaptureSettings() {
        #expect(Self.truth.rows.count == 300) // one row per 1 Hz GNSS epoch of the 300 s drive
        let flagged = Self.truth.rows.filter(\.interference)
        #expect(!flagged.isEmpty)
        #expect(flagged.allSatisfy { Self.interference.contains(Self.start.seconds(to: $0.time)) })
    }

    @Test func fixesFollowTheTrackWithHonestAccuracy() throws {
        let fixes = try Self.golden().filter { $0["class"] as? String == "fix" }
        #expect(fixes.count == 300)
        var errors: [Double] = []
        var within = 0
        for f in fixes {
            guard let timeText = f["time"] as? String, let t = parseISOTimestamp(timeText),
                  let lat = f["latitudeDegrees"] as? Double, let lon = f["longitudeDegrees"] as? Double,
                  let accuracy = f["horizontalAccuracyMeters"] as? Double, let truth = Self.truth.at(t) else { continue }
            let e = Geo.distanceMeters(lat, lon, truth.latitudeDegrees, truth.longitudeDegrees)
            errors.append(e)
            if e <= accuracy { within += 1 }
        }
        #expect(errors.count == fixes.count)
        errors.sort()
        let median = errors[errors.count / 2], p95 = errors[errors.count * 95 / 100]
        // Receiver noise of a few metres, smoothed: the median error stays under 5 m, the 95th percentile under 15 m.
        #expect(median < 5, "median fix error \(median) m")
        #expect(p95 < 15, "95th percentile fix error \(p95) m")
        // horizontalAccuracyMeters is a 68 % radius: at least about two thirds of the fixes fall inside it,
        // and not nearly all (an inflated accuracy is not honest either).
        let share = Double(within) / Double(errors.count)
        #expect(share >= 0.6, "\(Int(share * 100)) % of fixes within their stated accuracy")
        // The simulated receiver's HDOP × 9.5 m claim is several times its white noise; the smoother's learned accuracy
        // keeps the claim minus the white part it measures (a bias that never changes looks the same as pessimism:
        // docs/smoothing.md), so here it is conservative: measured 100 %.
        withKnownIssue("pessimistic simulated receiver: \(Int(share * 100)) % within (docs/smoothing.md)") {
            #expect(share <= 0.95, "\(Int(share * 100)) % of fixes within their stated accuracy")
        }
    }

    struct HeadingRow { let seconds: Double; let trueHeading: Double; let accuracy: Double; let interference: String }

    static func headings() throws -> [HeadingRow] {
        try golden().compactMap { h in
            guard h["class"] as? String == "heading", let mono = h["monotonicNanos"] as? Int,
                  let trueHeading = h["trueHeadingDegrees"] as? Double, let accuracy = h["headingAccuracyDegrees"] as? Double,
                  let interference = h["interference"] as? String else { return nil }
            return HeadingRow(seconds: seconds(monotonicNanos: mono), trueHeading: trueHeading, accuracy: accuracy,
                              interference: interference)
        }
    }

    @Test func headingsOutsideTheInterferenceAreValidAndNearTheTruth() throws {
        let rows = try Self.headings().filter { $0.seconds > 5 && !(195...215).contains($0.seconds) }
        #expect(rows.count > 50)
        let valid = rows.filter { $0.accuracy >= 0 && $0.trueHeading >= 0 }
        #expect(Double(valid.count) >= 0.9 * Double(rows.count), "\(valid.count) of \(rows.count) headings valid")
        var errors: [Double] = []
        for r in valid {
            guard let truth = Self.truth.at(Self.start.adding(seconds: r.seconds)) else { continue }
            errors.append(abs(Angle.differenceDegrees(r.trueHeading, truth.headingDegrees)))
        }
        errors.sort()
        #expect(!errors.isEmpty)
        if !errors.isEmpty {
            #expect(errors[errors.count / 2] <= 5, "median heading error \(errors[errors.count / 2])°")
            #expect(errors[errors.count * 95 / 100] <= 15, "95th percentile heading error \(errors[errors.count * 95 / 100])°")
        }
    }

    @Test func interferenceIsFlaggedOnlyAroundTheInjectedInterval() throws {
        let rows = try Self.headings()
        #expect(!rows.isEmpty)
        let during = rows.filter { Self.interference.contains($0.seconds) }
        let outside = rows.filter { $0.seconds > 5 && !(195...215).contains($0.seconds) }
        #expect(!outside.isEmpty)
        let flaggedOutside = outside.filter { $0.interference != "none" }
        #expect(Double(flaggedOutside.count) <= 0.05 * Double(outside.count),
                "\(flaggedOutside.count) of \(outside.count) headings outside 195–215 s flagged")
        // While the 40 µT disturbance is on, the heading says so (flagged or invalid).
        #expect(during.isEmpty || during.contains { $0.interference != "none" || $0.accuracy < 0 })
    }
}
