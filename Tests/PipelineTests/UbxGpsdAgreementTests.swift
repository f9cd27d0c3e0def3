import Capture
import Events
import Foundation
import LocationCore
import NMEA
import Pipeline
import Testing
import TestSupport
import UBX

/// Replays gpsd's 18 u-blox regression logs (../shared/data/ubx-gpsd: UBX, mixed UBX+NMEA, RTCM3) through the
/// pipeline and compares every positioned TPV gpsd 3.27 emitted (its last one per distinct time) with Lodestar's
/// fix for the same time: time to the millisecond, lat/lon within 1e-6°, and Lodestar must carry a horizontal
/// accuracy (gpsd's `eph`; old logs' TPVs lack it in gpsd, Lodestar takes NAV-POSLLH hAcc or NAV-SOL pAcc).
/// Remaining differences are listed with reasons in `documentedDifferences` and docs/gpsd-compatibility.md.
@Suite("Agreement with gpsd's u-blox regression logs", .ownThreads)
struct UbxGpsdAgreementTests {
    /// "log time" → reason.
    static let documentedDifferences: [String: String] = [
        "ublox-aek-4t.log 2007-12-23T23:11:19.999Z": "gpsd's first TPV precedes NAV-TIMEGPS in that epoch and uses its built-in 18 leap seconds (2007: 14); Lodestar assembles the epoch first and says 23:11:23.999",
        "ublox-lea-4t.log 2009-01-28T20:35:40.001Z": "gpsd's first TPV precedes NAV-TIMEGPS in that epoch and uses its built-in 18 leap seconds (2009: 15); Lodestar assembles the epoch first and says 20:35:43.001",
    ]

    static func replay(_ path: String) throws -> (fixes: [Location], pipeline: Pipeline?) {
        var settings = Pipeline.Settings()
        settings.smoothing.smoothing = nil
        let (runner, events) = try SessionReplay.run(path, settings: settings)
        return (events.compactMap { if case .fix(let l) = $0 { l } else { nil } }, runner.pipeline)
    }

    /// Once UBX solutions supersede a source's NMEA fixes, its NMEA fix sentences are decoded only as far as their
    /// place in a cycle needs: the output (every event, smoothing on, gpsd JSON), the superseded count and the NMEA
    /// statistics are the same as with every field decoded. No single log of gpsd's has both (the one with NMEA,
    /// ublox-zed-f9p_hpg1.11, sends NAV messages Lodestar does not decode), so, like `make bench`, the logs are
    /// concatenated into one stream (their `#` comment lines dropped): after the first UBX solution every later NMEA
    /// fix is superseded.
    @Test(.enabled(if: SharedData.available, Comment(rawValue: SharedData.skipMessage)))
    func supersededNMEAIsCountedTheSameWithoutDecodingItsFields() throws {
        let dir = try TemporaryDirectory()
        var stream: [UInt8] = []
        for log in SharedData.files(in: "ubx-gpsd", suffix: ".log") {
            var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: log)))
            while data.first == 0x23 { data.removeFirst((data.firstIndex(of: 0x0A) ?? data.count - 1) + 1) }
            stream += data
        }
        let path = dir.path("all.ubx")
        try Data(stream).write(to: URL(fileURLWithPath: path))
        var results: [(String, Int, NMEAStatistics)] = []
        for full in [true, false] {
            var settings = Pipeline.Settings()
            settings.nmea.decodeSupersededFixes = full
            let (runner, events) = try SessionReplay.run(path, settings: settings)
            var out = ByteBuffer(capacity: 1 << 16)
            var encoder = GpsdJSONEncoder(device: "log")
            for e in events { encoder.encode(e, into: &out) }
            let pipeline = try #require(runner.pipeline)
            results.append((String(decoding: out.array, as: UTF8.self), pipeline.nmea.nmeaFixesSuperseded, pipeline.nmea.statistics))
        }
        #expect(results[0].0 == results[1].0, "the same output")
        #expect(results[0].1 == results[1].1, "\(results[0].1) vs \(results[1].1) NMEA fixes superseded")
        #expect(results[0].2 == results[1].2, "the same NMEA statistics")
        #expect(results[1].1 >= 600, "the NMEA fixes of ublox-zed-f9p_hpg1.11 are superseded: \(results[1].1)")
        #expect(results[0].0.count > 100_000, "output of the whole stream: \(results[0].0.count) bytes")
    }

    /// gpsd's positioned TPVs, the last one per time, in order of first appearance.
    static func gpsdTPVs(_ chk: String) throws -> [(time: String, lat: Double, lon: Double, mode: Int?)] {
        let text = (try? String(contentsOfFile: chk, encoding: .utf8)) ?? ""
        var byTime: [String: (Double, Double, Int?)] = [:]
        var order: [String] = []
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("{\"class\":\"TPV\"") {
            guard let o = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                  let t = o["time"] as? String, let lat = (o["lat"] as? NSNumber)?.doubleValue,
                  let lon = (o["lon"] as? NSNumber)?.doubleValue else { continue }
            if byTime[t] == nil { order.append(t) }
            byTime[t] = (lat, lon, o["mode"] as? Int)
        }
        return order.compactMap { t in byTime[t].map { (t, $0.0, $0.1, $0.2) } }
    }

    @Test(.enabled(if: SharedData.available, Comment(rawValue: SharedData.skipMessage)))
    func everyLogReplaysAndAgreesWithGpsd() throws {
        let logs = SharedData.files(in: "ubx-gpsd", suffix: ".log")
        #expect(logs.count == 20, "18 u-blox logs and 2 RTCM3 logs")
        var table: [String] = []
        var undocumented: [String] = []
        var totalGpsd = 0, totalMatched = 0
        for log in logs {
            let name = URL(fileURLWithPath: log).lastPathComponent
            let (fixes, pipeline) = try Self.replay(log)
            var ours: [String: Location] = [:]
            for f in fixes { if let t = f.time { ours[t.iso8601(fractionDigits: 3)] = f } }
            let gpsd = try Self.gpsdTPVs(log + ".chk")
            var matched = 0, documented = 0, noAccuracy = 0
            for g in gpsd {
                if let f = ours[g.time], let lat = f.latitudeDegrees, let lon = f.longitudeDegrees,
                   abs(lat - g.lat) <= 1e-6, abs(lon - g.lon) <= 1e-6 {
                    if f.horizontalAccuracyMeters == nil { noAccuracy += 1; undocumented.append("\(name) \(g.time): no horizontal accuracy") }
                    else { matched += 1 }
                } else if Self.documentedDifferences["\(name) \(g.time)"] != nil {
                    documented += 1
                } else {
                    let o = ours[g.time]
                    undocumented.append("\(name) \(g.time): gpsd \(g.lat), \(g.lon); lodestar "
                        + (o.map { "\($0.latitudeDegrees.map { String($0) } ?? "nil"), \($0.longitudeDegrees.map { String($0) } ?? "nil")" } ?? "no fix"))
                }
            }
            if !gpsd.isEmpty {
                let share = Double(matched) / Double(gpsd.count - documented)
                #expect(share >= 0.99, "\(name): \(matched) of \(gpsd.count - documented) gpsd TPV times matched")
            }
            totalGpsd += gpsd.count
            totalMatched += matched
            let b = pipeline?.binaryStatistics ?? MixedStreamStatistics()
            let padded = name.padding(toLength: 32, withPad: " ", startingAt: 0)
            table.append(String(format: "%@ gpsd TPV times %4d  matched %4d  documented %d  lodestar fixes %4d  UBX %5d  RTCM3 %4d  bad %d  unknown %4d  malformed %d",
                                padded as NSString, gpsd.count, matched, documented, fixes.count, b.ubxFrames, b.rtcm3Frames,
                                b.ubxBadChecksums, b.unknownMessages, b.malformedMessages))
        }
        print("gpsd u-blox agreement (gpsd 3.27 .chk vs lodestar):\n" + table.joined(separator: "\n"))
        print("overall: \(totalMatched) of \(totalGpsd) gpsd TPV times matched (\(Self.documentedDifferences.count) documented differences)")
        for u in undocumented { print("undocumented difference: \(u)") }
        #expect(undocumented.isEmpty, "\(undocumented.count) undocumented differences")
        #expect(totalMatched + Self.documentedDifferences.count == totalGpsd)
    }

    /// A NAV-PVT lost on the line (its checksum broken) in every tenth epoch of ublox-glo.log, whose epochs also carry
    /// NAV-POSECEF and NAV-TIMEGPS: each such epoch is still a fix at gpsd's time and place for it, in the mode gpsd
    /// reported (3), from NAV-POSECEF with the last epoch's fix type. It was mode 0 ("no fix" to a gpsd client), found
    /// on a ZED-F9P log with one NAV-PVT corrupted (docs/ubx.md). The broken frames are counted.
    @Test(.enabled(if: SharedData.available, Comment(rawValue: SharedData.skipMessage)))
    func aLostNAVPVTKeepsTheFixAtGpsdsPlace() throws {
        let log = SharedData.path("ubx-gpsd/ublox-glo.log")
        var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: log)))
        var i = 0, pvts = 0, broken = 0
        while i + 8 <= data.count {
            guard data[i] == 0xB5, data[i + 1] == 0x62 else { i += 1; continue }
            let length = Int(data[i + 4]) | Int(data[i + 5]) << 8
            guard i + 8 + length <= data.count else { break }
            if data[i + 2] == 0x01, data[i + 3] == 0x07 {
                pvts += 1
                if pvts % 10 == 5 { data[i + 6 + length] ^= 0xFF; broken += 1 }
            }
            i += 8 + length
        }
        #expect(pvts == 299)
        let dir = try TemporaryDirectory()
        let path = dir.path("glo-lost-pvt.log")
        try Data(data).write(to: URL(fileURLWithPath: path))
        let (fixes, pipeline) = try Self.replay(path)
        #expect(pipeline?.binaryStatistics.ubxBadChecksums == broken)
        var ours: [String: Location] = [:]
        for f in fixes { if let t = f.time { ours[t.iso8601(fractionDigits: 3)] = f } }
        let gpsd = try Self.gpsdTPVs(log + ".chk")
        // gpsd's mode per time with a position (2 or 3 in this log).
        var gpsdMode: [String: Int] = [:]
        for g in gpsd { gpsdMode[g.time] = g.mode }
        var matched = 0, sameMode = 0, carried = 0, unknown = 0
        for g in gpsd {
            guard let f = ours[g.time], let lat = f.latitudeDegrees, let lon = f.longitudeDegrees,
                  abs(lat - g.lat) <= 1e-6, abs(lon - g.lon) <= 1e-6 else { continue }
            matched += 1
            let mode = f.mode == .threeD ? 3 : f.mode == .twoD ? 2 : 0
            // An epoch without its NAV-PVT has no satellite count (NAV-PVT's numSV): it keeps the mode of the second
            // before where gpsd reported a fix there; after a second without a fix its position has mode unknown.
            guard f.satellitesUsed == nil else { if mode == gpsdMode[g.time] { sameMode += 1 }; continue }
            carried += 1
            let before = f.time.map { Timestamp(nanosecondsSince1970: $0.nanosecondsSince1970 - 1_000_000_000).iso8601(fractionDigits: 3) }
            if let m = before.flatMap({ gpsdMode[$0] }), m >= 2 { if mode == m { sameMode += 1 } }
            else if mode == 0 { sameMode += 1; unknown += 1 }
        }
        #expect(matched == gpsd.count, "\(matched) of \(gpsd.count) gpsd TPV times with \(broken) NAV-PVT lost")
        #expect(carried == broken, "\(carried) fixes without their NAV-PVT")
        #expect(sameMode == matched, "\(sameMode) of \(matched) in gpsd's mode (the second before's where NAV-PVT was lost)")
        #expect(unknown < broken / 2, "\(unknown) after a second without a fix")
        print("ublox-glo.log with \(broken) NAV-PVT lost: \(matched) of \(gpsd.count) gpsd TPVs, \(carried) from NAV-POSECEF, \(unknown) of them mode unknown")
    }

    /// A NEO-M8U in sensor fusion (gpsd's ublox-neo-m8u-hnr.log: HNR-PVT at 10 Hz with headVehValid, headVeh equal to
    /// headMot to 1e-5° in every message, as pyubx2 decodes them): every fix carries the receiver's vehicle heading and
    /// its accuracy (headAcc, 33–34° at the log's walking pace), the heading the vehicle estimator takes as a true
    /// heading. gpsd does not use headVeh; its TPVs are unchanged (`everyLogReplaysAndAgreesWithGpsd`).
    @Test(.enabled(if: SharedData.available, Comment(rawValue: SharedData.skipMessage)))
    func sensorFusionModuleGivesItsVehicleHeading() throws {
        let fixes = try Self.replay(SharedData.path("ubx-gpsd/ublox-neo-m8u-hnr.log")).fixes
        #expect(fixes.count == 12)
        for f in fixes {
            let h = try #require(f.receiverHeadingDegrees), c = try #require(f.courseDegrees)
            #expect(abs(Angle.differenceDegrees(h, c)) < 0.001, "\(h) against \(c)")
            let a = try #require(f.receiverHeadingAccuracyDegrees)
            #expect(a > 30 && a < 40)
        }
    }
}
