import CGPS
import Events
import LocationCore
import NMEA
import Pipeline
import Testing
import TestSupport

/// gpsd's own client library is the peer: every line of `--output gpsd` must parse with libgps' `gps_unpack`
/// into the values Lodestar meant.
@Suite("gpsd JSON read by libgps", .ownThreads)
struct GpsdClientInteropTests {
    static let log = [
        "GPRMC,225308,A,4527.458,S,16709.165,E,000.0,094.5,060601,024.1,E",
        "GPGGA,225308,4527.458,S,16709.165,E,2,05,2.1,14.7,M,1.1,M,,",
        "GPGSA,A,3,01,,,,13,20,22,,,,28,,3.1,2.1,2.0",
        "GPGSV,3,1,11,01,78,221,47,03,09,042,00,04,05,242,00,06,04,149,00",
        "GPGSV,3,2,11,13,37,235,48,20,41,333,46,22,65,081,46,24,02,205,00",
        "GPGSV,3,3,11,25,20,108,00,27,08,281,00,28,17,339,39,,,,",
        "GPRMC,225309,V,,,,,,,060601,,",
    ]

    @Test func everyLineParsesWithGpsUnpack() throws {
        var bytes: [UInt8] = []
        for b in Self.log { bytes += Array(NMEAEncoder.sentence(b).utf8) }
        var lines: [String] = []
        var settings = Pipeline.Settings()
        settings.smoothing.smoothing = nil  // the encoding of parsed fixes (incl. a no-fix epoch) is what is checked
        settings.nmea.referenceDate = CivilDate(year: 2005, month: 3, day: 11)
        let pipeline = Pipeline(settings: settings, encoder: GpsdJSONEncoder(), sinks: [])
        var encoder = GpsdJSONEncoder()
        pipeline.observer = { event in
            var buffer = ByteBuffer()
            encoder.encode(event, into: &buffer)
            if !buffer.isEmpty { lines.append(String(decoding: buffer.array.dropLast(), as: UTF8.self)) }
        }
        bytes.withUnsafeBufferPointer { pipeline.feedNMEA($0) }
        pipeline.finish()
        #expect(lines.count == 3) // SKY, TPV (3D DGPS), TPV (no fix)

        #expect(cgps_load() == 0, "libgps: \(cgps_load_error().map { String(cString: $0) } ?? "")")
        guard let data = cgps_alloc() else { Issue.record("allocation failed"); return }
        defer { cgps_free(data) }
        var sawFix = false, sawSky = false, sawNoFix = false
        for line in lines {
            var cLine = Array(line.utf8CString)
            let status = cLine.withUnsafeMutableBufferPointer { cgps_unpack($0.baseAddress, data) }
            #expect(status >= 0, "gps_unpack rejected: \(line)")
            if line.hasPrefix("{\"class\":\"TPV\"") && data.pointee.fix.mode == 3 {
                sawFix = true
                #expect(abs(data.pointee.fix.latitude - -45.457633333) < 1e-9)
                #expect(abs(data.pointee.fix.longitude - 167.15275) < 1e-9)
                #expect(abs(data.pointee.fix.altMSL - 14.7) < 1e-6)
                #expect(abs(data.pointee.fix.altHAE - 15.8) < 1e-6)
                #expect(abs(data.pointee.fix.track - 94.5) < 1e-6)
                #expect(data.pointee.fix.status == 2)
                #expect(data.pointee.fix.time.tv_sec == 991_867_988) // 2001-06-06T22:53:08Z
            } else if line.hasPrefix("{\"class\":\"TPV\"") {
                sawNoFix = true
                #expect(data.pointee.fix.mode == 1)
            } else if line.hasPrefix("{\"class\":\"SKY\"") {
                sawSky = true
                #expect(data.pointee.satellites_visible == 11)
                #expect(data.pointee.satellites_used == 5)
                #expect(abs(data.pointee.dop.hdop - 2.1) < 1e-9)
            }
        }
        #expect(sawFix && sawSky && sawNoFix)
    }
}
