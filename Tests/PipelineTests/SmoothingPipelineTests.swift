import Foundation
import Testing
import TestSupport
import LocationCore
import NMEA
import Events
@testable import Pipeline

/// The smoother inside the pipeline: smoothed fixes carry isStationary, a GNSS outage is bridged by dead reckoning
/// (status 6, mode kept) up to the limit, then "no fix"; `smoothing = nil` passes fixes through as parsed.
@Suite("Smoothing in the pipeline", .ownThreads)
struct SmoothingPipelineTests {
    /// 1 Hz GGA+RMC moving east at 10 m/s from 12:00:00; seconds in `outage` have quality 0 / status V.
    static func stream(seconds: Int, outage: Range<Int>) -> [UInt8] {
        var out: [UInt8] = []
        for i in 0..<seconds {
            let t = String(format2: 12, 0 + i / 60, i % 60)
            let lonMinutes = 31.0 + Double(i) * 10 / (1852 * 60 * 0.6691) * 60  // ≈ 10 m/s east at 48.1° N
            let lon = "011" + String(fixed: lonMinutes, decimals: 5)
            if outage.contains(i) {
                out += Array(NMEAEncoder.sentence("GPGGA,\(t),,,,,0,00,,,M,,M,,").utf8)
                out += Array(NMEAEncoder.sentence("GPRMC,\(t),V,,,,,,,010624,,,N").utf8)
            } else {
                out += Array(NMEAEncoder.sentence("GPGGA,\(t),4807.0380,N,\(lon),E,1,08,0.9,545.4,M,46.9,M,,").utf8)
                out += Array(NMEAEncoder.sentence("GPRMC,\(t),A,4807.0380,N,\(lon),E,19.4,90.0,010624,,,A").utf8)
            }
        }
        return out
    }

    static func run(_ bytes: [UInt8], configure: (inout Pipeline.Settings) -> Void = { _ in }) -> [Location] {
        var settings = Pipeline.Settings()
        settings.heading.heading = nil
        configure(&settings)
        let p = Pipeline(settings: settings, encoder: LodestarJSONEncoder(), sinks: [])
        var fixes: [Location] = []
        p.observer = { if case .fix(let l) = $0 { fixes.append(l) } }
        bytes.withUnsafeBufferPointer { p.feedNMEA($0) }
        p.finish()
        return fixes
    }

    @Test func outageIsDeadReckonedThenUnavailable() throws {
        let fixes = Self.run(Self.stream(seconds: 40, outage: 20..<30)) { $0.smoothing.smoothing?.maximumOutageSeconds = 5 }
        #expect(fixes.count == 40)
        let before = try #require(fixes.first { $0.time?.secondsSince1970.truncatingRemainder(dividingBy: 60) == 19 })
        #expect(before.isSmoothed && before.isStationary == false && before.quality == .gps)
        // 20…24 s: dead reckoned (within 5 s of the last fix), mode kept, accuracy growing; 25…29: no fix.
        let dr = fixes.filter { $0.quality == .gnssDeadReckoning }
        #expect(dr.count == 5)
        #expect(dr.isNonEmptyAndAllSatisfy { $0.mode == .threeD && $0.latitudeDegrees != nil })
        let radii = dr.compactMap(\.horizontalAccuracyMeters)
        #expect(radii == radii.sorted() && radii.first! > (before.horizontalAccuracyMeters ?? .infinity))
        // Dead reckoning continues eastwards at ≈ 10 m/s.
        let first = try #require(dr.first?.longitudeDegrees), last = try #require(dr.last?.longitudeDegrees)
        #expect(abs((last - first) * 111_320 * 0.6678 - 40) < 5)
        let unavailable = fixes.filter { $0.mode == .noFix }
        #expect(unavailable.count == 5 && unavailable.allSatisfy { $0.latitudeDegrees == nil })
        // gpsd status 6 on the TPV of a dead-reckoned fix.
        var enc = GpsdJSONEncoder(device: nil)
        var buffer = ByteBuffer()
        enc.encode(.fix(dr[0]), into: &buffer)
        #expect(buffer.withBytes { String(decoding: $0, as: UTF8.self) }.contains("\"status\":6"))
    }

    @Test func returnAfterOutageJumpsNoMoreThanTheFixAccuracy() throws {
        // 15 s without fixes, within the default 30 s limit: dead reckoned throughout, then exactly one return to GPS.
        let fixes = Self.run(Self.stream(seconds: 60, outage: 20..<35))
        let returns = zip(fixes, fixes.dropFirst()).filter { $0.quality == .gnssDeadReckoning && $1.quality == .gps }
        try #require(returns.count == 1, "\(returns.count) dead-reckoning → GPS transitions")
        #expect(fixes.filter { $0.quality == .gnssDeadReckoning }.count == 15)
        let (a, b) = returns[0]
        let jump = LocalTangentFrameDistance.meters(a, b) - 10  // minus one second of travel
        #expect(jump <= (b.horizontalAccuracyMeters ?? 0) + 1, "jump \(jump) m, accuracy \(b.horizontalAccuracyMeters ?? 0) m")
    }

    /// A vehicle faster per fix than its fixes' radius (25 m/s against HDOP 0.5) slows to 15 m/s in a 15 s tunnel: the
    /// dead reckoning (at 25 m/s) ends ~65 m ahead. When the fixes return, the output converges on them, beyond the
    /// vehicle's own motion, by no more per fix than the accuracy it then reports (the distance left halves each fix):
    /// the error falls every fix until it is within the smoothed radius, and stays there. (The limit used to count the
    /// motion too: at more than a fix's radius per fix, the output fell further behind with every fix and never caught
    /// up. Steps of the fix's radius alone took 13 fixes here.)
    @Test func outputCatchesUpAfterAnOutageWhenTheVehicleIsFasterThanTheFixRadius() throws {
        func meters(_ t: Double) -> Double {   // along the road from t = 0: 25 m/s, 20…35 s braking to 15 m/s
            if t <= 20 { return 25 * t }
            if t <= 35 { let u = t - 20; return 500 + 25 * u - u * u / 3 }
            return 500 + 300 + 15 * (t - 35)
        }
        func speed(_ t: Double) -> Double { t <= 20 ? 25 : (t <= 35 ? 25 - 2 * (t - 20) / 3 : 15) }
        let metersPerLonMinute = 1852 * 0.6691
        var bytes: [UInt8] = []
        for i in 0..<120 {
            let t = String(format2: 12, i / 60, i % 60)
            if (20..<35).contains(i) {
                bytes += Array(NMEAEncoder.sentence("GPGGA,\(t),,,,,0,00,,,M,,M,,").utf8)
                bytes += Array(NMEAEncoder.sentence("GPRMC,\(t),V,,,,,,,010624,,,N").utf8)
                continue
            }
            let lon = "011" + String(fixed: 31.0 + meters(Double(i)) / metersPerLonMinute, decimals: 6)
            let knots = String(fixed: speed(Double(i)) / 0.514444, decimals: 2)
            bytes += Array(NMEAEncoder.sentence("GPGGA,\(t),4807.038000,N,\(lon),E,1,12,0.5,545.4,M,46.9,M,,").utf8)
            bytes += Array(NMEAEncoder.sentence("GPRMC,\(t),A,4807.038000,N,\(lon),E,\(knots),90.0,010624,,,A").utf8)
        }
        let fixes = Self.run(bytes)
        func error(_ l: Location) -> Double? {
            guard let s = l.time?.secondsSince1970, let lon = l.longitudeDegrees, let lat = l.latitudeDegrees else { return nil }
            let t = s.truncatingRemainder(dividingBy: 3600)
            let east = (lon - (11 + 31.0 / 60)) * 60 * metersPerLonMinute - meters(t)
            let north = (lat - (48 + 7.038 / 60)) * 60 * 1852
            return (east * east + north * north).squareRoot()
        }
        let dr = fixes.filter { $0.quality == .gnssDeadReckoning }
        #expect(dr.count == 15)
        let overshoot = try #require(dr.last.flatMap(error))
        #expect(overshoot > 40, "dead reckoning ends \(overshoot) m off")
        let back = fixes.filter { $0.quality == .gps && ($0.time?.secondsSince1970.truncatingRemainder(dividingBy: 3600) ?? 0) >= 35 }
        let errors = back.compactMap(error)
        try #require(errors.count == 85)
        // The receiver's own radius (the least the output may move beyond the motion per fix), and the smoothed fixes'
        // radius once caught up.
        let fixRadius = try #require(Self.run(bytes) { $0.smoothing.smoothing = nil }.first?.horizontalAccuracyMeters)
        let radius = try #require(back.last?.horizontalAccuracyMeters)
        #expect(radius <= 2 * fixRadius && errors.suffix(40).allSatisfy { $0 <= fixRadius },
                "\(errors.suffix(40).max() ?? 0) m off at the end, radius \(radius) m against the fixes' \(fixRadius) m")
        let caught = try #require(errors.firstIndex { $0 <= radius }, "never within \(radius) m: \(errors.prefix(10))")
        // The distance left halving each fix: no more fixes than halving the overshoot down to a fix's radius takes,
        // and two to spare; and not at once (no jump larger than the accuracy reported).
        #expect(caught >= 2 && Double(caught) <= log2(overshoot / fixRadius).rounded(.up) + 2,
                "\(caught) fixes to converge from \(overshoot) m")
        for k in stride(from: 1, through: caught, by: 1) {
            #expect(errors[k] < errors[k - 1], "fix \(k) after the outage: \(errors[k - 1]) → \(errors[k]) m")
        }
        #expect(errors[caught...].allSatisfy { $0 <= radius }, "\(errors[caught...].max() ?? 0) m after catching up")
        // Each fix honest about the part not yet caught up, and no step (beyond the motion) larger than that accuracy.
        for (l, e) in zip(back, errors) { #expect(e <= (l.horizontalAccuracyMeters ?? 0) + 0.5) }
        let sequence = [try #require(dr.last)] + back
        for (a, b) in zip(sequence, sequence.dropFirst()) {
            let ta = a.time!.secondsSince1970.truncatingRemainder(dividingBy: 3600)
            let travel = meters(ta + 1) - meters(ta)
            #expect(LocalTangentFrameDistance.meters(a, b) - travel <= (b.horizontalAccuracyMeters ?? 0) + 0.5)
        }
    }

    @Test func noSmoothingPassesFixesThroughAsParsed() {
        let raw = Self.run(Self.stream(seconds: 30, outage: 10..<15)) { $0.smoothing.smoothing = nil }
        #expect(raw.isNonEmptyAndAllSatisfy { !$0.isSmoothed && $0.isStationary == nil })
        #expect(raw.filter { $0.quality == .gnssDeadReckoning }.isEmpty)
        #expect(raw.filter { $0.mode == .noFix }.count == 5)
    }
}

enum LocalTangentFrameDistance {
    static func meters(_ a: Location, _ b: Location) -> Double {
        guard let la = a.latitudeDegrees, let oa = a.longitudeDegrees, let lb = b.latitudeDegrees, let ob = b.longitudeDegrees
        else { return .infinity }
        let dn = (lb - la) * 111_320, de = (ob - oa) * 111_320 * 0.6678
        return (dn * dn + de * de).squareRoot()
    }
}

extension String {
    init(format2 h: Int, _ m: Int, _ s: Int) {
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        self = two(h) + two(m) + two(s)
    }
    init(fixed v: Double, decimals: Int) { self = FixedFormat.string(v, decimals: decimals) }
}
