import Events
import Foundation
import LocationCore
import NMEA
import Pipeline
import Testing
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
    static func run(_ times: [Int64], referenceDate: CivilDate?) -> (Run, Pipeline) {
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
        for (i, t) in times.enumerated() { p.process(SensorEvent(payload: .nmea(Array(cycle(t, step: i).utf8)))) }
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

    /// One UBX NAV-PVT epoch at `t` (s since 1970; UTC date and time valid, iTOW its GPS time of week with 18 leap
    /// seconds), 3-D fix, hAcc 1.2 m, 1 m/s to the north along the same track as `cycle`.
    static func navPVT(_ t: Int64, step: Int) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: 92)
        func put<T: FixedWidthInteger>(_ o: Int, _ v: T) { withUnsafeBytes(of: v.littleEndian) { for (i, x) in $0.enumerated() { p[o + i] = x } } }
        let d = CivilDate(daysSince1970: Int(t / 86_400)), sod = t % 86_400
        put(0, UInt32(((t - 315_964_800 + 18) % 604_800) * 1000))
        put(4, UInt16(d.year)); p[6] = UInt8(d.month); p[7] = UInt8(d.day)
        p[8] = UInt8(sod / 3600); p[9] = UInt8(sod / 60 % 60); p[10] = UInt8(sod % 60); p[11] = 0x07
        p[20] = 3; p[21] = 0x01; p[23] = 12
        let lat = 48 + (7.038 + Double(step) * 0.00038) / 60
        put(24, Int32(((11 + 31.0 / 60) * 1e7).rounded())); put(28, Int32((lat * 1e7).rounded()))
        put(32, Int32(592_300)); put(36, Int32(545_400)); put(40, UInt32(1200)); put(44, UInt32(2000))
        put(48, Int32(1000)); put(60, Int32(1000)); put(68, UInt32(300)); put(72, UInt32(500_000)); put(76, UInt16(150))
        return UBX.frame(classID: 0x01, messageID: 0x07, payload: p)!
    }

    /// The same jumps from a u-blox receiver speaking UBX alone: its epochs behind the last fix by more than a late
    /// epoch's second are a new time base, not stale (before, every epoch was dropped until the receiver's time caught
    /// up with the last: a 1,024-week rollover never recovered).
    @Test(arguments: [(Int64(100), "100 s"), (Int64(27 * 60), "27 min"), (Int64(1024 * 7 * 86_400), "1024 weeks")])
    func ubxFixesResumeWithinFiveEpochsAfterAJumpBack(jumpSeconds: Int64, named: String) throws {
        let times = (0..<60).map { Self.start + $0 } + (0..<60).map { Self.start + 60 - jumpSeconds + $0 }
        let p = Pipeline(settings: Pipeline.Settings(), encoder: LodestarJSONEncoder(), sinks: [])
        var r = Run()
        p.observer = { e in
            switch e {
            case .fix(let l): r.fixes.append(l)
            case .status(let s): r.statuses.append(s)
            default: break
            }
        }
        for (i, t) in times.enumerated() { p.process(SensorEvent(payload: .nmea(Self.navPVT(t, step: i)))) }
        p.finish()
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

    @Test func oneLateEpochIsDroppedNotAJump() {
        var times = (0..<20).map { Self.start + $0 }
        times.insert(Self.start + 5, at: 12)  // a stray repeat of an old epoch
        let (r, p) = Self.run(times, referenceDate: nil)
        #expect(r.fixes.count == 20)
        #expect(p.smoothing.snapshot.timeJumps == 0)
        #expect(!r.statuses.contains { $0.message?.contains("jumped") == true })
    }
}
