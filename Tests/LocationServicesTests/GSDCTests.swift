import Foundation
import LocationCore
import LocationServices
import Testing
import TestSupport

/// Real drives: Pixel 4 chipset fixes of GSDC 2021 MTV-1/MTV-2 against the NovAtel SPAN reference
/// (../shared/data/gnss, Apache-2.0, AILocAR/androidGnss).
@Suite(.enabled(if: SharedData.available, Comment(rawValue: SharedData.skipMessage)), .ownThreads)
struct GSDCDriveTests {
    static let mtv2Phone = SharedData.path("gnss/gsdc2021-mtv2/Pixel4_chipset.nmea")
    static let mtv2Truth = SharedData.path("gnss/gsdc2021-mtv2/SPAN_Pixel4_10Hz.nmea")
    static let mtv1Phone = SharedData.path("gnss/gsdc2021-mtv1/Pixel4_chipset.nmea")
    static let mtv1Truth = SharedData.path("gnss/gsdc2021-mtv1/SPAN_Pixel4_1Hz.nmea")

    /// The SPAN reference as 1 Hz fixes from its GGA sentences (the 10 Hz file's RMC checksums are wrong, and
    /// its RMC positions are rounded), speed from consecutive positions. Epochs with quality 0 are skipped.
    static func reference(_ path: String, date: CivilDate) throws -> [Location] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var out: [Location] = []
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("$GPGGA") {
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f.count > 6, f[6] != "0", f[1].hasSuffix(".00"), f[1].count >= 6,
                  let hh = Int(f[1].prefix(2)), let mm = Int(f[1].dropFirst(2).prefix(2)), let ss = Int(f[1].dropFirst(4).prefix(2)),
                  let latD = Double(f[2].prefix(2)), let latM = Double(f[2].dropFirst(2)),
                  let lonD = Double(f[4].prefix(3)), let lonM = Double(f[4].dropFirst(3)),
                  let t = Timestamp(year: date.year, month: date.month, day: date.day, hour: hh, minute: mm, second: ss)
            else { continue }
            var l = fix(0, Coordinate(latitudeDegrees: (latD + latM / 60) * (f[3] == "S" ? -1 : 1),
                                      longitudeDegrees: (lonD + lonM / 60) * (f[5] == "W" ? -1 : 1)))
            l.time = t
            if let p = out.last, let pc = p.coordinate, let pt = p.time, let c = l.coordinate, pt.seconds(to: t) > 0 {
                l.speedMetersPerSecond = Geo.distanceMeters(pc, c) / pt.seconds(to: t)
            } else {
                l.speedMetersPerSecond = 0
            }
            out.append(l)
        }
        return out
    }

    /// Stops of the reference track: runs of speed < 0.3 m/s lasting `minimum` seconds or more.
    static func truthStops(_ truth: [Location], minimum: Double) -> [(start: Timestamp, end: Timestamp, at: Coordinate)] {
        var out: [(Timestamp, Timestamp, Coordinate)] = []
        var start: Location?
        for l in truth {
            guard let t = l.time, let c = l.coordinate else { continue }
            if (l.speedMetersPerSecond ?? 0) < 0.3 {
                if start == nil { start = l }
            } else if let s = start, let st = s.time, let sc = s.coordinate {
                if st.seconds(to: t) >= minimum { out.append((st, t, sc)) }
                start = nil
            }
            _ = c
        }
        if let s = start, let st = s.time, let sc = s.coordinate, let last = truth.last?.time, st.seconds(to: last) >= minimum {
            out.append((st, last, sc))
        }
        return out
    }

    /// MTV-2: the phone records from inside the first stop (parked ~180 s) and ends in a ~140 s stop; there are three
    /// 4–5 s stops in between (traffic). Expected: an arrival at the start (arrival not observed → distantPast), its
    /// departure at the real end of the stop, an arrival at the final stop — and nothing at the short stops.
    @Test func mtv2VisitsAtTheRealStops() throws {
        let phone = try pipelineFixes(Self.mtv2Phone)
        let truth = try Self.reference(Self.mtv2Truth, date: CivilDate(year: 2020, month: 6, day: 5))
        let stops = Self.truthStops(truth, minimum: 100)
        #expect(stops.count >= 2)
        var d = VisitDetector()
        let visits = phone.compactMap { d.process($0) }
        for v in visits {
            print("MTV-2 visit \(v.kind) at \(v.coordinate) arrival \(v.arrivalDate) departure \(v.departureDate) detected \(v.detectionDate)")
        }
        #expect(visits.map(\.kind) == [.arrival, .departure, .arrival])
        guard visits.count == 3, let first = stops.first, let last = stops.last else { return }
        #expect(visits[0].arrivalDate == .distantPast)
        #expect(Geo.distanceMeters(visits[0].coordinate, first.at) < 15)
        let departureError = first.end.seconds(to: visits[1].departureDate)
        print("MTV-2 departure estimate − SPAN stop end: \(departureError) s")
        #expect(abs(departureError) <= 5)
        #expect(Geo.distanceMeters(visits[2].coordinate, last.at) < 15)
        let arrivalError = last.start.seconds(to: visits[2].arrivalDate)
        print("MTV-2 final arrival estimate − SPAN stop start: \(arrivalError) s")
        #expect(abs(arrivalError) <= 5)
    }

    /// MTV-1: the phone sees only the last 68 s of the first stop and 35 s of the last: shorter than the 120 s
    /// dwell, so no visit; and no visit anywhere in between.
    @Test func mtv1HasNoVisitLongerThanTheDwell() throws {
        let phone = try pipelineFixes(Self.mtv1Phone)
        var d = VisitDetector()
        #expect(phone.count > 1500)
        #expect(phone.compactMap { d.process($0) }.isEmpty)
    }

    /// Regions of 100 m around points of the reference track: the phone's enter/exit events come within 5 s of the
    /// reference's own crossings, one of each per region.
    @Test(arguments: [("mtv1", mtv1Phone, mtv1Truth), ("mtv2", mtv2Phone, mtv2Truth)])
    func regionCrossingsAtTheRightTimes(drive: String, phonePath: String, truthPath: String) throws {
        let phone = try pipelineFixes(phonePath)
        let truth = try Self.reference(truthPath, date: drive == "mtv1" ? CivilDate(year: 2020, month: 5, day: 14)
                                                                       : CivilDate(year: 2020, month: 6, day: 5))
        guard let start = phone.first?.time, let end = phone.last?.time else { Issue.record("no fixes"); return }
        let inWindow = truth.filter { ($0.time ?? start) > start.adding(seconds: 60) && ($0.time ?? end) < end.adding(seconds: -60) }
        // Centres: the reference position every 150 s of the drive where it is moving (so it crosses in and out).
        var regions: [CircularRegion] = []
        var nextTime = inWindow.first?.time ?? start
        for l in inWindow {
            guard let t = l.time, t >= nextTime, (l.speedMetersPerSecond ?? 0) > 3, let c = l.coordinate else { continue }
            regions.append(CircularRegion(identifier: "\(drive)-\(regions.count)", center: c, radiusMeters: 100, assumedState: .outside))
            nextTime = t.adding(seconds: 150)
        }
        #expect(regions.count >= 8)
        var monitor = RegionMonitor(regions: regions)
        var events: [RegionEvent] = []
        for f in phone { monitor.process(f, into: &events) }
        var checked = 0
        var worst = 0.0
        for r in regions {
            // Reference crossings (at the reference's rate), only when the reference crosses exactly once each way.
            // Within the phone's recording, starting outside (the reference starts earlier than the phone).
            var inside = false
            var crossings: [(RegionEvent.Kind, Timestamp)] = []
            let window = truth.filter { ($0.time ?? start) >= start && ($0.time ?? end) <= end }
            guard let w0 = window.first?.coordinate, Geo.distanceMeters(w0, r.center) > r.radiusMeters else { continue }
            for l in window {
                guard let c = l.coordinate, let t = l.time else { continue }
                let now = Geo.distanceMeters(c, r.center) <= r.radiusMeters
                if now != inside { crossings.append((now ? .enter : .exit, t)); inside = now }
            }
            guard crossings.count == 2 else { continue }
            let mine = events.filter { $0.identifier == r.identifier }
            #expect(mine.map(\.kind) == [.enter, .exit], "\(r.identifier)")
            guard mine.count == 2 else { continue }
            for (e, c) in zip(mine, crossings) {
                let late = c.1.seconds(to: e.time)
                worst = Swift.max(worst, abs(late))
                #expect(abs(late) <= 5, "\(r.identifier) \(e.kind): \(late) s from the reference crossing")
            }
            checked += 1
        }
        print("\(drive): \(checked) of \(regions.count) regions checked, worst |event − reference crossing| = \(worst) s")
        #expect(checked >= 8)
    }
}
