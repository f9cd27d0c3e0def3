import Capture
import Events
import Foundation
import LocationCore
import NMEA
import Pipeline
import Testing
import TestSupport

/// gpsd JSON and NMEA encodings as gpsd's clients and NMEA consumers need them.
@Suite("gpsd JSON and NMEA encodings", .ownThreads)
struct EncoderTests {
    static func replay(_ path: String, format: OutputFormat, smoothing: Bool = true) throws -> String {
        var settings = Pipeline.Settings()
        if !smoothing { settings.smoothing.smoothing = nil }
        return try SessionReplay.output(path, settings: settings, encoder: makeEncoder(format, device: "/dev/gps0"),
                                        today: CivilDate(year: 2025, month: 6, day: 1))
    }

    static var logs: [String] { SharedData.available ? SharedData.files(in: "nmea-gpsd", suffix: ".log") : [] }

    /// Every gpsd JSON line ends in CR LF and carries `device`; SKY lists each satellite once, nSat = entries,
    /// uSat = entries used.
    @Test(.enabled(if: SharedData.available, Comment(rawValue: SharedData.skipMessage)), arguments: logs)
    func gpsdJSONOnRealLogs(log: String) throws {
        let text = try Self.replay(log, format: .gpsd)
        let bytes = Array(text.utf8)
        #expect(bytes.indices.allSatisfy { bytes[$0] != 0x0A || ($0 > 0 && bytes[$0 - 1] == 0x0D) })
        for object in jsonObjects(text) {
            #expect(object["device"] as? String == "/dev/gps0", "\(object)")
            guard object["class"] as? String == "SKY" else { continue }
            let sats = object["satellites"] as? [[String: Any]] ?? []
            let keys = sats.map { "\($0["gnssid"] ?? "-")/\($0["svid"] ?? $0["PRN"] ?? "-")" }
            #expect(Set(keys).count == sats.count, "duplicate satellites in \(URL(fileURLWithPath: log).lastPathComponent)")
            #expect(object["nSat"] as? Int == sats.count)
            #expect(object["uSat"] as? Int == sats.filter { $0["used"] as? Bool == true }.count)
        }
    }

    /// u-blox ZED-F9P lists every satellite per signal (82 entries, 41 satellites): gpsd gets 41 entries.
    @Test(.enabled(if: SharedData.available, Comment(rawValue: SharedData.skipMessage)))
    func f9pSkyIsOneEntryPerSatellite() throws {
        let text = try Self.replay(SharedData.path("nmea-gpsd/ublox-zed-f9p-nmea.log"), format: .gpsd)
        let sky = try #require(jsonObjects(text).last { $0["class"] as? String == "SKY" })
        #expect(sky["nSat"] as? Int == 41)
        #expect((sky["uSat"] as? Int ?? 0) <= 41)
    }

    /// NMEA out on every log and the simulated drive: checksums valid, at most 82 characters, headings with `HC`,
    /// GGA with a satellite count whenever the input gave one (gpsd 3.22 takes an empty count as "at most 2D",
    /// so it is never invented), ZDA per fix.
    @Test(.enabled(if: SharedData.available, Comment(rawValue: SharedData.skipMessage)), arguments: logs + [simulatedDrive])
    func nmeaWithinLimits(log: String) throws {
        let text = try Self.replay(log, format: .nmea)
        let lines = text.split(whereSeparator: \.isNewline).map(String.init)
        for s in lines {
            #expect(s.utf8.count + 2 <= NMEAEncoder.maximumSentenceLength, "\(s)")
            let star = try #require(s.lastIndex(of: "*"))
            let sum = s[s.index(after: s.startIndex)..<star].utf8.reduce(UInt8(0), ^)
            #expect(String(format: "%02X", sum) == String(s[s.index(after: star)...]), "\(s)")
            if s.dropFirst(3).hasPrefix("HDT") || s.dropFirst(3).hasPrefix("HDM") || s.dropFirst(3).hasPrefix("HDG") {
                #expect(s.hasPrefix("$HC"), "\(s)")
            }
        }
        let counted = lines.filter { $0.hasPrefix("$GPGGA") }.filter {
            let f = $0.split(separator: ",", omittingEmptySubsequences: false)
            return f[6] != "0" && !f[7].isEmpty
        }.count
        let known = jsonObjects(try Self.replay(log, format: .json)).filter {
            $0["class"] as? String == "fix" && $0["satellitesUsed"] != nil && ["2d", "3d"].contains($0["mode"] as? String ?? "")
        }.count
        #expect(counted >= known, "GGA with a count: \(counted), fixes with a count: \(known)")
        #expect(lines.filter { $0.hasPrefix("$GPRMC") }.count == lines.filter { $0.hasPrefix("$GPZDA") }.count
                || lines.contains { $0.hasPrefix("$GPRMC,,") })
    }

    /// Precision goes before fields: a 10-digit-minute position with long altitude and station still fits.
    @Test func ggaDropsPrecisionNotFields() {
        var l = Location()
        l.mode = .threeD; l.quality = .dgps
        l.time = Timestamp(nanosecondsSince1970: 1_748_779_200_123_000_000)
        l.latitudeDegrees = -45.123456789; l.longitudeDegrees = -170.987654321
        l.altitudeMSLMeters = -12345.678; l.geoidSeparationMeters = -123.4; l.hdop = 12.3
        l.satellitesUsed = 12; l.dgpsAgeSeconds = 123.4; l.dgpsStation = 1023
        let e = NMEAEncoder(talker: "GP", coordinateDecimals: 7)
        let gga = e.gga(l)
        #expect(gga.utf8.count <= 82, "\(gga)")
        let f = gga.split(separator: ",", omittingEmptySubsequences: false)
        #expect(f.count == 15)
        #expect(f[6] == "2" && f[7] == "12" && f[14].hasPrefix("1023"))
        #expect(e.zda(l.time!).hasPrefix("$GPZDA,120000.12,01,06,2025,00,00*"))
    }

    /// eph/epx/epy/epv: gpsd's 95 % figures. A receiver's fix uses gpsd's error model on its DOPs (HDOP × 19 m),
    /// matching gpsd's own TPV for the same sentences; a smoothed fix scales the filter's 68 % radius to 95 %.
    @Test func accuracyConventions() {
        var raw = Location()
        raw.mode = .threeD; raw.quality = .gps; raw.hdop = 2.1; raw.vdop = 2.0; raw.pdop = 3.1
        raw.horizontalAccuracyMeters = 2.1 * 9.5
        raw.latitudeErrorMeters = 2.0; raw.longitudeErrorMeters = 3.0
        let r = GpsdJSONEncoder.errorEstimates(raw)
        #expect(abs((r.eph ?? 0) - 39.9) < 1e-9)        // gpsd's garmin48 TPV: "eph":39.900
        #expect(abs((r.epv ?? 0) - 46.0) < 1e-9)        // "epv":46.000
        #expect(abs((r.sep ?? 0) - 58.9) < 1e-9)        // "sep":58.900
        #expect(abs((r.epx ?? 0) - 3.0 * 1.959964) < 1e-5)
        var smoothed = raw
        smoothed.isSmoothed = true
        smoothed.horizontalAccuracyMeters = 10
        let s = GpsdJSONEncoder.errorEstimates(smoothed)
        #expect(abs((s.eph ?? 0) - 16.214) < 0.001)
        // The scale is the ratio of circular-Gaussian radii: P(r ≤ R) = 1 − exp(−R²/2σ²).
        let sigma = 10 / (-2 * log(0.32)).squareRoot()
        #expect(abs(1 - exp(-pow(s.eph!, 2) / (2 * sigma * sigma)) - 0.95) < 1e-9)
        // epv: gpsd's model (VDOP × 23 m) for a smoothed fix, unless the smoother raised the vertical accuracy beyond it
        // (a receiver whose fixes show its claim too small): then that 1-σ at 95 %.
        smoothed.verticalAccuracyMeters = 2.0 * 11.5
        #expect(abs((GpsdJSONEncoder.errorEstimates(smoothed).epv ?? 0) - 46.0) < 1e-9)
        smoothed.verticalAccuracyMeters = 40
        #expect(abs((GpsdJSONEncoder.errorEstimates(smoothed).epv ?? 0) - 40 * 1.959964) < 1e-4)
    }
}
