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
