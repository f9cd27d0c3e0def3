import Events
import Foundation
import LocationCore
import NMEA
import Pipeline
import Testing
import TestSupport
import UBX

/// The receiver's clock goes back (a reset, a week-rollover bug, a looping test feed): with smoothing on (the
/// default), fixes resume within a few epochs and a status names the jump; nothing is dropped without a count.
@Suite("Receiver time that jumps")
struct TimeJumpTests {
    /// One RMC+GGA cycle at `t` (seconds since 1970), 1 m/s to the north-east, creeping along.
    static func cycle(_ t: Int64, step: Int) -> String {
        let days = t / 86_400, sod = t % 86_400
        let d = CivilDate(daysSince1970: Int(days))
        let time = String(format: "%02d%02d%02d.00", sod / 3600, sod / 60 % 60, sod % 60)
        let date = String(format: "%02d%02d%02d", d.day, d.month, d.year % 100)
        let lat = String(format: "%.5f", 4807.038 + Double(step) * 0.00038)
        return NMEAEncoder.sentence("GPRMC,\(time),A,\(lat),N,01131.000,E,1.9,45.0,\(date),,,A")
            + NMEAEncoder.sentence("GPGGA,\(time),\(lat),N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
    }

    struct Run { var fixes: [Location] = []; var statuses: [StatusReport] = [] }

    /// Epoch times (s since 1970) through the default pipeline, one NMEA chunk per cycle.
    static func run(_ times: [Int64], referenceDate: CivilDate?, ubx: Bool = false) -> (Run, Pipeline) {
        var settings = Pipeline.Settings()
        settings.nmea.referenceDate = referenceDate
        let p = Pipeline(settings: settings, encoder: LodestarJSONEncoder(), sinks: [])
        var r = Run()
        p.observer = { e in
            switch e {
            case .fix(let l): r.fixes.append(l)
            case .status(let s): r.statuses.append(s)
            default: break
            }
        }
        for (i, t) in times.enumerated() {
            p.process(SensorEvent(payload: .nmea(ubx ? navPVT(t, step: i) : Array(cycle(t, step: i).utf8))))
        }
        p.finish()
        return (r, p)
    }

    static let start: Int64 = 1_711_195_200  // 2024-03-23T12:00:00Z

    @Test(arguments: [(Int64(100), "100 s"), (Int64(27 * 60), "27 min"), (Int64(1024 * 7 * 86_400), "1024 weeks")])
    func fixesResumeWithinFiveEpochsAfterAJumpBack(jumpSeconds: Int64, named: String) throws {
        // 60 epochs, then the receiver's clock goes back by `jumpSeconds` and carries on for 60 more.
        let before = (0..<60).map { Self.start + $0 }
        let after = (0..<60).map { Self.start + 60 - jumpSeconds + $0 }
        // No reference date: nothing can correct the receiver's date, so the smoother must see the jump.
        let (r, p) = Self.run(before + after, referenceDate: nil)
        // The first fix on the new time base comes right after the 60 before the jump.
        let resumed = r.fixes.indices.dropFirst().first { r.fixes[$0].time! < r.fixes[$0 - 1].time! } ?? -1
        #expect(resumed == 60)
        let lostEpochs = r.fixes.count >= 60 ? 120 - r.fixes.count : 120
        #expect(lostEpochs <= 4, "fixes resume within 5 epochs: \(lostEpochs) lost")
        #expect(r.fixes.count >= 116)
        let jump = try #require(r.statuses.first { $0.message?.contains("jumped back") == true })
        #expect(jump.message?.contains(named) == true, "\(jump.message ?? "")")
        #expect(p.smoothing.snapshot.timeJumps == 1)
        #expect(p.smoothing.snapshot.fixesDroppedForTimeJump == lostEpochs, "every dropped epoch is counted")
        // The smoothed track goes on from where it was: no jump in position (< 5 m from the raw fix).
        if let after = r.fixes.last, let lat = after.latitudeDegrees {
            let rawLat = (4807.038 + 119 * 0.00038) / 100
            let rawDeg = floor(rawLat) + (rawLat - floor(rawLat)) * 100 / 60
            #expect(abs(lat - rawDeg) * 111_000 < 5)
        }
    }

    /// One UBX NAV-PVT epoch at `t` on the same track as `cycle` (`SimulatedUBX.navPVT`).
    static func navPVT(_ t: Int64, step: Int) -> [UInt8] {
        SimulatedUBX.navPVT(t, latitudeDegrees: 48 + (7.038 + Double(step) * 0.00038) / 60, longitudeDegrees: 11 + 31.0 / 60)
    }

    /// The same jumps from a u-blox receiver speaking UBX alone: its epochs behind the last fix by more than a late
    /// epoch's second are a new time base, not stale (before, every epoch was dropped until the receiver's time caught
    /// up with the last: a 1,024-week rollover never recovered).
    @Test(arguments: [(Int64(100), "100 s"), (Int64(27 * 60), "27 min"), (Int64(1024 * 7 * 86_400), "1024 weeks")])
    func ubxFixesResumeWithinFiveEpochsAfterAJumpBack(jumpSeconds: Int64, named: String) throws {
        let times = (0..<60).map { Self.start + $0 } + (0..<60).map { Self.start + 60 - jumpSeconds + $0 }
        let (r, p) = Self.run(times, referenceDate: nil, ubx: true)
        let lostEpochs = 120 - r.fixes.count
        #expect(lostEpochs <= 4, "fixes resume within 5 epochs: \(lostEpochs) lost")
        #expect(r.fixes.last?.time == Timestamp(nanosecondsSince1970: (Self.start + 119 - jumpSeconds) * 1_000_000_000))
        let jump = try #require(r.statuses.first { $0.message?.contains("jumped back") == true })
        #expect(jump.message?.contains(named) == true, "\(jump.message ?? "")")
        #expect(p.smoothing.snapshot.fixesDroppedForTimeJump == lostEpochs, "every dropped epoch is counted")
    }

    @Test func aWeekRolloverIsCorrectedAndNamedWhenTheDateIsKnown() throws {
        let before = (0..<30).map { Self.start + $0 }
        let after = (0..<30).map { Self.start + 30 - 1024 * 7 * 86_400 + $0 }
        let (r, _) = Self.run(before + after, referenceDate: CivilDate(year: 2024, month: 3, day: 23))
        #expect(r.fixes.count == 60, "the rollover is corrected: nothing lost")
        #expect(r.fixes.last?.time == Timestamp(nanosecondsSince1970: (Self.start + 59) * 1_000_000_000))
        let notice = try #require(r.statuses.first { $0.message?.contains("1024 weeks") == true })
        #expect(notice.message?.contains("2004-08-07") == true, "\(notice.message ?? "")")
    }

    /// The same from UBX NAV-PVT: its UTC date, 1,024 weeks early, is corrected against the reference date as NMEA's
    /// is (before, the fixes came out dated 2004, and the smoother saw a jump back).
    @Test func aUBXWeekRolloverIsCorrectedAndNamedWhenTheDateIsKnown() throws {
        let before = (0..<30).map { Self.start + $0 }
        let after = (0..<30).map { Self.start + 30 - 1024 * 7 * 86_400 + $0 }
        let (r, p) = Self.run(before + after, referenceDate: CivilDate(year: 2024, month: 3, day: 23), ubx: true)
        #expect(r.fixes.count == 60, "the rollover is corrected: nothing lost")
        #expect(r.fixes.map(\.time) == (0..<60).map { Timestamp(nanosecondsSince1970: (Self.start + Int64($0)) * 1_000_000_000) })
        let notice = try #require(r.statuses.first { $0.message?.contains("1024 weeks") == true })
        #expect(notice.message?.contains("2004-08-07") == true, "\(notice.message ?? "")")
        #expect(p.smoothing.snapshot.timeJumps == 0)
    }

    @Test func oneLateEpochIsDroppedNotAJump() {
        var times = (0..<20).map { Self.start + $0 }
        times.insert(Self.start + 5, at: 12)  // a stray repeat of an old epoch
        let (r, p) = Self.run(times, referenceDate: nil)
        #expect(r.fixes.count == 20)
        #expect(p.smoothing.snapshot.timeJumps == 0)
        #expect(!r.statuses.contains { $0.message?.contains("jumped") == true })
    }
}
