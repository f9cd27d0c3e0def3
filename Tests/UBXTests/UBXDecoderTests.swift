import Foundation
import LocationCore
import NMEA
import Testing
import TestSupport
@testable import UBX

/// Frames built by pyubx2 (an independent Python UBX implementation, test-only: `make ubx-test-venv`) from known
/// field values (scripts/ubx-test-frames.py); each decoder must give the same values back. pyubx2 scales with
/// `int(value / resolution)`, which truncates (117.5° → 11749999 × 1e-5°), so scaled fields compare to one LSB.
enum PyUBX2 {
    static let python = SharedData.packageRoot.appendingPathComponent(".build/venv/bin/python3").path
    static let available = FileManager.default.isExecutableFile(atPath: python)
    static let skipMessage = ".build/venv (pyubx2) is missing: run `make ubx-test-venv` (make test does); skipping pyubx2 frame tests"

    static let frames: [String: [UInt8]] = {
        guard available else { return [:] }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = [SharedData.packageRoot.appendingPathComponent("scripts/ubx-test-frames.py").path]
        let pipe = Pipe()
        p.standardOutput = pipe
        guard (try? p.run()) != nil else { return [:] }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        var out: [String: [UInt8]] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2 else { continue }
            let hex = Array(parts[1].utf8)
            out[String(parts[0])] = stride(from: 0, to: hex.count - 1, by: 2).map {
                UInt8(NMEAFramer.hexValue(hex[$0])! << 4 | NMEAFramer.hexValue(hex[$0 + 1])!)
            }
        }
        return out
    }()

    /// The decoded message of the frame `name`.
    static func decode(_ name: String) -> UBXDecoded? {
        guard let bytes = frames[name], let m = UBXMessage(framed: bytes) else { return nil }
        return m.payload.withUnsafeBufferPointer {
            if case .decoded(let d) = UBXDecoded.decode(classID: m.classID, messageID: m.messageID, payload: $0) { return d }
            return nil
        }
    }
}

func close(_ a: Double?, _ b: Double, _ tolerance: Double = 1e-9) -> Bool { a.map { abs($0 - b) <= tolerance } ?? false }

@Suite(.enabled(if: PyUBX2.available, Comment(rawValue: PyUBX2.skipMessage)))
struct UBXDecoderPyUBX2Tests {
    @Test func navPVT() throws {
        guard case .navPVT(let m)? = PyUBX2.decode("NAV-PVT") else { Issue.record("no NAV-PVT"); return }
        #expect(m.iTOWMilliseconds == 123_456_000)
        let fields: [Int] = [m.year, m.month, m.day, m.hour, m.minute, m.second]
        #expect(fields == [2024, 6, 1, 12, 34, 56])
        #expect(m.validDate && m.validTime && m.fullyResolved)
        #expect(m.nanosecond == -1200 && close(m.timeAccuracySeconds, 25e-9))
        #expect(m.fixType == .threeD && m.gnssFixOK && m.differentialSolution && m.carrierSolution == 2)
        #expect(m.satellitesUsed == 17)
        #expect(close(m.longitudeDegrees, -122.1234567, 1.01e-7) && close(m.latitudeDegrees, 37.3456789, 1.01e-7))
        #expect(close(m.heightMeters, 12.345) && close(m.heightMSLMeters, 45.678))
        #expect(close(m.horizontalAccuracyMeters, 1.234) && close(m.verticalAccuracyMeters, 2.345))
        #expect(close(m.velocityNorthMetersPerSecond, -0.1) && close(m.velocityEastMetersPerSecond, 0.2))
        #expect(close(m.velocityDownMetersPerSecond, -0.03) && close(m.groundSpeedMetersPerSecond, 0.224))
        #expect(close(m.headingOfMotionDegrees, 117.5, 1.01e-5) && close(m.speedAccuracyMetersPerSecond, 0.056))
        #expect(close(m.headingAccuracyDegrees, 3.45678, 1.01e-5) && close(m.pdop, 1.23))
    }

    /// NAV-PVAT (F9 ADR/HPS firmware) is read into the NAV-PVT it extends; an epoch of NAV-PVAT alone is a fix.
    @Test func navPVAT() throws {
        guard case .navPVT(let m)? = PyUBX2.decode("NAV-PVAT") else { Issue.record("no NAV-PVAT"); return }
        #expect(m.iTOWMilliseconds == 234_567_000)
        let fields: [Int] = [m.year, m.month, m.day, m.hour, m.minute, m.second]
        #expect(fields == [2026, 4, 20, 13, 48, 55])
        #expect(m.validDate && m.validTime && m.fullyResolved)
        #expect(m.nanosecond == 85_767 && close(m.timeAccuracySeconds, 22e-9))
        #expect(m.fixType == .gnssDeadReckoning && m.gnssFixOK && m.differentialSolution && m.carrierSolution == 1)
        #expect(m.satellitesUsed == 32 && m.headVehicleValid && !m.invalidLLH && m.pdop == nil)
        #expect(close(m.longitudeDegrees, -0.5732272, 1.01e-7) && close(m.latitudeDegrees, 51.2623256, 1.01e-7))
        #expect(close(m.heightMeters, 82.729) && close(m.heightMSLMeters, 36.649))
        #expect(close(m.horizontalAccuracyMeters, 0.803) && close(m.verticalAccuracyMeters, 0.651))
        #expect(close(m.velocityNorthMetersPerSecond, -0.321) && close(m.velocityEastMetersPerSecond, 0.068))
        #expect(close(m.velocityDownMetersPerSecond, -0.006) && close(m.groundSpeedMetersPerSecond, 0.328))
        #expect(close(m.speedAccuracyMetersPerSecond, 0.158))
        // The heading of motion, not the vehicle's; its accuracy is the vehicle heading's (NAV-PVAT has no other).
        #expect(close(m.headingOfMotionDegrees, 168.81256, 1.01e-5) && close(m.headingOfVehicleDegrees, 168.82255, 1.01e-5))
        #expect(close(m.headingAccuracyDegrees, 0.61, 1.01e-2) && close(m.magneticDeclinationDegrees, -1.25, 1.01e-2))

        var assembler = UBXEpochAssembler()
        var fixes: [Location] = []
        let bytes = try #require(PyUBX2.frames["NAV-PVAT"])
        let outcome = bytes.withUnsafeBufferPointer { b in
            assembler.add(frame: UBXFrame(classID: b[2], messageID: b[3],
                                          payload: UnsafeBufferPointer(rebasing: b[6..<(b.count - 2)]), bytes: b)) {
                if case .epoch(.fix(let l)) = $0 { fixes.append(l) }
            }
        }
        assembler.finish { if case .epoch(.fix(let l)) = $0 { fixes.append(l) } }
        #expect(outcome == .decoded)
        let f = try #require(fixes.first)
        // Fix type 4 (GNSS + DR) with carrSoln 1: RTK float, as gpsd's status (the carrier solution wins over DR).
        #expect(fixes.count == 1 && f.mode == .threeD && f.quality == .rtkFloat && f.pdop == nil)
        #expect(f.time == Timestamp(year: 2026, month: 4, day: 20, hour: 13, minute: 48, second: 55))
        #expect(close(f.latitudeDegrees, 51.2623256, 1.01e-7) && close(f.horizontalAccuracyMeters, 0.803))
        #expect(close(f.speedMetersPerSecond, 0.328) && close(f.courseDegrees, 168.81256, 1.01e-5))
    }

    /// A sensor-fusion module's vehicle heading (NEO-M8L/M8U, ZED-F9R): NAV-ATT, HNR-PVT's and NAV-PVT's headVeh are
    /// decoded, and become the fix's receiver heading (NAV-ATT first, then HNR-PVT, then NAV-PVT), each with its
    /// accuracy; a two-antenna NAV-RELPOSNED heading comes before all three.
    @Test func vehicleHeadingOfSensorFusionModules() throws {
        guard case .navATT(let a)? = PyUBX2.decode("NAV-ATT") else { Issue.record("no NAV-ATT"); return }
        #expect(a.iTOWMilliseconds == 300_000 && close(a.rollDegrees, -1.23456, 1.01e-5) && close(a.pitchDegrees, 2.5, 1.01e-5))
        #expect(close(a.headingDegrees, 338.75, 1.01e-5) && close(a.headingAccuracyDegrees, 1.25, 1.01e-5))
        #expect(close(a.rollAccuracyDegrees, 0.5, 1.01e-5) && close(a.pitchAccuracyDegrees, 0.6, 1.01e-5))
        guard case .navPVT(let p)? = PyUBX2.decode("NAV-PVT-HEADVEH") else { Issue.record("no NAV-PVT"); return }
        #expect(p.headVehicleValid && close(p.headingOfVehicleDegrees, 340.25, 1.01e-5) && close(p.headingAccuracyDegrees, 4.02842, 1.01e-5))
        guard case .hnrPVT(let h)? = PyUBX2.decode("HNR-PVT") else { Issue.record("no HNR-PVT"); return }
        #expect(h.headVehicleValid && close(h.headingOfVehicleDegrees, 251.75, 1.01e-5) && close(h.headingOfMotionDegrees, 251.537, 1.01e-5))

        func heading(_ names: [String]) throws -> (Double?, Double?) {
            var assembler = UBXEpochAssembler()
            var fixes: [Location] = []
            for name in names { assembler.add(try #require(PyUBX2.decode(name))) { if case .epoch(.fix(let l)) = $0 { fixes.append(l) } } }
            assembler.finish { if case .epoch(.fix(let l)) = $0 { fixes.append(l) } }
            let f = try #require(fixes.last)
            return (f.receiverHeadingDegrees, f.receiverHeadingAccuracyDegrees)
        }
        let pvtOnly = try heading(["NAV-PVT-HEADVEH"])
        #expect(close(pvtOnly.0, 340.25, 1.01e-5) && close(pvtOnly.1, 4.02842, 1.01e-5))
        let withATT = try heading(["NAV-PVT-HEADVEH", "NAV-ATT"])
        #expect(close(withATT.0, 338.75, 1.01e-5) && close(withATT.1, 1.25, 1.01e-5))
        let hnr = try heading(["HNR-PVT"])
        #expect(close(hnr.0, 251.75, 1.01e-5) && close(hnr.1, 4.849, 1.01e-5))
        // A plain module's NAV-PVT (headVehValid clear): no receiver heading, though headVeh is in the message.
        let plain = try heading(["NAV-PVT"])
        #expect(plain.0 == nil && plain.1 == nil)
    }

    @Test func navSAT() {
        guard case .navSAT(let m)? = PyUBX2.decode("NAV-SAT") else { Issue.record("no NAV-SAT"); return }
        #expect(m.satellites.count == 2)
        let a = m.satellites[0], b = m.satellites[1]
        #expect(a.constellation == .gps && a.svid == 5 && a.carrierToNoiseDBHz == 38 && a.elevationDegrees == 19)
        #expect(a.azimuthDegrees == 284 && close(a.pseudorangeResidualMeters, 1.5) && a.used && a.qualityIndicator == 7 && a.health == 1)
        #expect(b.constellation == .glonass && b.svid == 3 && b.elevationDegrees == nil && b.azimuthDegrees == nil && !b.used)
    }

    @Test func navDOPStatusTime() {
        guard case .navDOP(let d)? = PyUBX2.decode("NAV-DOP") else { Issue.record("no NAV-DOP"); return }
        #expect(close(d.gdop, 1.64) && close(d.pdop, 1.46) && close(d.tdop, 0.73) && close(d.vdop, 1.28))
        #expect(close(d.hdop, 0.71) && close(d.ndop, 0.51) && close(d.edop, 0.5))
        guard case .navSTATUS(let s)? = PyUBX2.decode("NAV-STATUS") else { Issue.record("no NAV-STATUS"); return }
        #expect(s.fixType == .threeD && s.gnssFixOK && s.differentialSolution && s.weekValid && s.timeOfWeekValid)
        #expect(s.spoofingDetectionState == 2 && s.carrierSolution == 1)
        #expect(close(s.timeToFirstFixSeconds, 31.234) && s.millisecondsSinceStartup == 987_654)
        guard case .navTIMEGPS(let g)? = PyUBX2.decode("NAV-TIMEGPS") else { Issue.record("no NAV-TIMEGPS"); return }
        #expect(g.iTOWMilliseconds == 494_575_000 && g.fTOWNanoseconds == -112_313 && g.week == 1977)
        #expect(g.leapSeconds == 18 && g.leapSecondsValid && g.weekValid && g.timeOfWeekValid && close(g.timeAccuracySeconds, 17e-9))
        guard case .navTIMEUTC(let u)? = PyUBX2.decode("NAV-TIMEUTC") else { Issue.record("no NAV-TIMEUTC"); return }
        let fields: [Int] = [u.year, u.month, u.day, u.hour, u.minute, u.second, u.nanosecond]
        #expect(fields == [2025, 12, 31, 23, 59, 58, 250])
        #expect(u.utcValid && close(u.timeAccuracySeconds, 21e-9))
        guard case .timTP(let t)? = PyUBX2.decode("TIM-TP") else { Issue.record("no TIM-TP"); return }
        #expect(t.timeOfWeekMilliseconds == 83_485_000 && t.week == 1459 && close(t.quantizationErrorSeconds, -1.234e-9, 1e-15))
    }

    @Test func navSOLPOSLLHVELNEDHPPOSLLH() {
        guard case .navSOL(let s)? = PyUBX2.decode("NAV-SOL") else { Issue.record("no NAV-SOL"); return }
        #expect(s.week == 1459 && s.fTOWNanoseconds == -868 && s.fixType == .threeD && s.gnssFixOK && !s.differentialSolution)
        #expect(close(s.ecefXMeters, 305449.31) && close(s.ecefYMeters, -5963890.99) && close(s.ecefZMeters, 2233051.73))
        #expect(close(s.positionAccuracyMeters, 2.8) && close(s.ecefVelocityYMetersPerSecond, -0.02) && close(s.pdop, 2.5))
        #expect(s.satellitesUsed == 7 && close(s.speedAccuracyMetersPerSecond, 0.17))
        // gpsd's TPV for this ECEF point (ublox-aek-4t): 20.629282025, -87.068075525, altHAE 61.9117.
        let g = ECEF.geodetic(x: s.ecefXMeters, y: s.ecefYMeters, z: s.ecefZMeters)
        #expect(close(g.latitudeDegrees, 20.629282025, 1e-8) && close(g.longitudeDegrees, -87.068075525, 1e-8))
        #expect(close(g.heightMeters, 61.9117, 1e-3))
        guard case .navPOSLLH(let p)? = PyUBX2.decode("NAV-POSLLH") else { Issue.record("no NAV-POSLLH"); return }
        #expect(close(p.latitudeDegrees, 45.2185411, 1.01e-7) && close(p.longitudeDegrees, 5.8071775, 1.01e-7))
        #expect(close(p.heightMeters, 278.879) && close(p.heightMSLMeters, 230.231))
        #expect(close(p.horizontalAccuracyMeters, 3.791) && close(p.verticalAccuracyMeters, 5.123))
        guard case .navVELNED(let v)? = PyUBX2.decode("NAV-VELNED") else { Issue.record("no NAV-VELNED"); return }
        #expect(close(v.velocityNorthMetersPerSecond, -0.12) && close(v.velocityEastMetersPerSecond, 0.34))
        #expect(close(v.groundSpeedMetersPerSecond, 0.36) && close(v.headingDegrees, 158.924) && close(v.courseAccuracyDegrees, 12.5))
        guard case .navHPPOSLLH(let h)? = PyUBX2.decode("NAV-HPPOSLLH") else { Issue.record("no NAV-HPPOSLLH"); return }
        // pyubx2 leaves the high-precision parts at 0 here (its scaling of lonHp/latHp/heightHp truncates them away);
        // they are checked with a literal frame in UBXEpochAssemblerTests.
        #expect(close(h.longitudeDegrees, 170.5001248, 1.01e-7) && close(h.latitudeDegrees, -45.8775915, 1.01e-7))
        #expect(close(h.heightMeters, 100.123, 1e-4) && close(h.heightMSLMeters, 90.456, 1e-4))
        #expect(close(h.horizontalAccuracyMeters, 0.1415, 1e-4) && close(h.verticalAccuracyMeters, 0.2002, 1e-4))
    }

    /// NAV-POSECEF, NAV-HPPOSECEF and NAV-VELECEF of a point given in geodetic form (the script converts it to ECEF
    /// with the closed forward formula), and an epoch of NAV-STATUS + NAV-POSECEF + NAV-VELECEF (a receiver set to its
    /// ECEF messages, as gpsd decodes them): a 3-D fix at that point, with pAcc as its accuracy and the velocity's
    /// 3 m/s north, 4 m/s east as speed and course.
    @Test func navPOSECEFHPPOSECEFVELECEFAndTheirEpoch() throws {
        let lat = 48.1173, lon = 11.5183333, h = 545.4
        guard case .navPOSECEF(let p)? = PyUBX2.decode("NAV-POSECEF") else { Issue.record("no NAV-POSECEF"); return }
        #expect(p.iTOWMilliseconds == 10_000 && close(p.positionAccuracyMeters, 2.8) && !p.invalidECEF)
        let g = ECEF.geodetic(x: p.ecefXMeters, y: p.ecefYMeters, z: p.ecefZMeters)
        #expect(close(g.latitudeDegrees, lat, 2e-7) && close(g.longitudeDegrees, lon, 2e-7) && close(g.heightMeters, h, 0.01))
        guard case .navPOSECEF(let hp)? = PyUBX2.decode("NAV-HPPOSECEF") else { Issue.record("no NAV-HPPOSECEF"); return }
        #expect(hp.iTOWMilliseconds == 11_000 && close(hp.positionAccuracyMeters, 0.0142, 1.01e-4) && !hp.invalidECEF)
        let gh = ECEF.geodetic(x: hp.ecefXMeters, y: hp.ecefYMeters, z: hp.ecefZMeters)
        // The 0.1 mm parts count: within 0.2 mm (pyubx2 truncates one LSB), far inside the centimetre of NAV-POSECEF.
        #expect(close(gh.latitudeDegrees, lat, 3e-9) && close(gh.longitudeDegrees, lon, 3e-9) && close(gh.heightMeters, h, 3e-4))
        guard case .navVELECEF(let v)? = PyUBX2.decode("NAV-VELECEF") else { Issue.record("no NAV-VELECEF"); return }
        #expect(v.iTOWMilliseconds == 10_000 && close(v.speedAccuracyMetersPerSecond, 0.35))

        var assembler = UBXEpochAssembler()
        var fixes: [Location] = []
        for name in ["NAV-STATUS-10000", "NAV-POSECEF", "NAV-VELECEF"] {
            let m = try #require(PyUBX2.decode(name))
            assembler.add(m) { if case .epoch(.fix(let l)) = $0 { fixes.append(l) } }
        }
        assembler.finish { if case .epoch(.fix(let l)) = $0 { fixes.append(l) } }
        // The same frames through the framed fast path (`add(frame:)`, as a live or replayed stream takes them).
        var framed = UBXEpochAssembler()
        var framedFixes: [Location] = []
        for name in ["NAV-STATUS-10000", "NAV-POSECEF", "NAV-VELECEF"] {
            let bytes = try #require(PyUBX2.frames[name])
            let outcome = bytes.withUnsafeBufferPointer { b in
                framed.add(frame: UBXFrame(classID: b[2], messageID: b[3],
                                           payload: UnsafeBufferPointer(rebasing: b[6..<(b.count - 2)]), bytes: b)) {
                    if case .epoch(.fix(let l)) = $0 { framedFixes.append(l) }
                }
            }
            #expect(outcome == .decoded, "\(name)")
        }
        framed.finish { if case .epoch(.fix(let l)) = $0 { framedFixes.append(l) } }
        #expect(framedFixes == fixes, "the framed path gives the same fix")
        let f = try #require(fixes.first)
        #expect(fixes.count == 1 && f.mode == .threeD && f.quality == .gps)
        #expect(close(f.latitudeDegrees, lat, 2e-7) && close(f.longitudeDegrees, lon, 2e-7))
        #expect(close(f.horizontalAccuracyMeters, 2.8) && close(f.speedAccuracyMetersPerSecond, 0.35))
        #expect(close(f.speedMetersPerSecond, 5, 0.02) && close(f.courseDegrees, atan2(4.0, 3.0) * 180 / .pi, 0.3))
    }

    @Test func navRELPOSNEDEOEAndMonHW() {
        guard case .navRELPOSNED(let r)? = PyUBX2.decode("NAV-RELPOSNED") else { Issue.record("no NAV-RELPOSNED"); return }
        #expect(r.version == 1 && close(r.northMeters, 1.20) && close(r.eastMeters, -0.45))
        #expect(close(r.headingDegrees, 339.45, 1.01e-5) && close(r.headingAccuracyDegrees, 0.5, 1.01e-5) && close(r.lengthMeters, 1.28))
        #expect(r.headingValid && r.relativePositionValid && r.carrierSolution == 2)
        guard case .navEOE(let t)? = PyUBX2.decode("NAV-EOE") else { Issue.record("no NAV-EOE"); return }
        #expect(t == 9000)
        guard case .monHW(let hw)? = PyUBX2.decode("MON-HW") else { Issue.record("no MON-HW"); return }
        #expect(hw.antennaStatus == 4 && hw.jammingState == 2 && hw.jammingIndicator == 120 && hw.agcCount == 5120)
    }
}

@Suite struct UBXDecoderLiteralTests {
    static func decode(_ frame: [UInt8]) -> UBXDecoded.Outcome {
        guard let m = UBXMessage(framed: frame) else { return .malformed }
        return m.payload.withUnsafeBufferPointer { UBXDecoded.decode(classID: m.classID, messageID: m.messageID, payload: $0) }
    }

    @Test func monVERAndGeneration() {
        func field(_ s: String, _ n: Int) -> [UInt8] { Array(s.utf8) + Array(repeating: 0, count: n - s.utf8.count) }
        let payload = field("EXT CORE 1.00 (0fa0ae)", 30) + field("00190000", 10) + field("ROM BASE 0x118B2060", 30)
            + field("FWVER=HPG 1.32", 30) + field("PROTVER=27.31", 30) + field("MOD=ZED-F9P", 30) + field("GPS;GLO;GAL;BDS", 30)
        guard case .decoded(.monVER(let v)) = Self.decode(UBX.frame(classID: 0x0A, messageID: 0x04, payload: payload)!) else {
            Issue.record("no MON-VER"); return
        }
        #expect(v.softwareVersion == "EXT CORE 1.00 (0fa0ae)" && v.hardwareVersion == "00190000")
        #expect(v.firmwareVersion == "HPG 1.32" && v.protocolVersion == 27.31 && v.module == "ZED-F9P")
        #expect(v.generation == 9)
        #expect(v.summary == "u-blox ZED-F9P HPG 1.32 PROTVER 27.31")
        #expect(MonVER(softwareVersion: "7.03 (45969)", hardwareVersion: "00070000").generation == 7)
    }

    @Test func monRFLiteral() {
        var block = [UInt8](repeating: 0, count: 24)
        block[0] = 0; block[1] = 2; block[2] = 3; block[3] = 1; block[12] = 0x57; block[14] = 0x00; block[15] = 0x14; block[16] = 200
        guard case .decoded(.monRF(let rf)) = Self.decode(UBX.frame(classID: 0x0A, messageID: 0x38, payload: [0, 1, 0, 0] + block)!) else {
            Issue.record("no MON-RF"); return
        }
        #expect(rf.blocks.count == 1 && rf.blocks[0].jammingState == 2 && rf.blocks[0].antennaStatus == 3)
        #expect(rf.blocks[0].jammingIndicator == 200 && rf.blocks[0].noisePerMillisecond == 0x57 && rf.blocks[0].agcCount == 0x1400)
    }

    @Test func navSVINFOLiteral() {
        // One channel: ch 3, svid 67 (GLONASS 3), used, quality 7, 41 dB-Hz, el 33, az 94, prRes -123 cm.
        let ch: [UInt8] = [3, 67, 1, 7, 41, 33, 94, 0, 0x85, 0xFF, 0xFF, 0xFF]
        guard case .decoded(.navSVINFO(let s)) = Self.decode(UBX.frame(classID: 0x01, messageID: 0x30,
                                                                          payload: [0xE8, 3, 0, 0, 1, 4, 0, 0] + ch)!) else {
            Issue.record("no NAV-SVINFO"); return
        }
        #expect(s.chipGeneration == 4 && s.channels.count == 1)
        let c = s.channels[0]
        #expect(c.constellation == .glonass && c.svid == 3 && c.used && c.carrierToNoiseDBHz == 41)
        #expect(c.elevationDegrees == 33 && c.azimuthDegrees == 94 && close(c.pseudorangeResidualMeters, -1.23))
    }

    @Test func wrongLengthsAreMalformedAndUnknownIdsUnknown() {
        // Shorter than the oldest NAV-PVT (84 bytes); a longer one is taken, its extra bytes ignored, as gpsd does.
        #expect(Self.decode(UBX.frame(classID: 0x01, messageID: 0x07, payload: Array(repeating: 0, count: 83))!) == .malformed)
        #expect(Self.decode(UBX.frame(classID: 0x01, messageID: 0x35, payload: [0, 0, 0, 0, 1, 2, 0, 0] + Array(repeating: 0, count: 12))!) == .malformed)
        #expect(Self.decode(UBX.frame(classID: 0x01, messageID: 0x3C, payload: Array(repeating: 0, count: 64))!) == .malformed,
                "RELPOSNED version 0 with the version-1 length")
        #expect(Self.decode(UBX.frame(classID: 0x02, messageID: 0x15, payload: [1, 2, 3])!) == .unknown)
    }
}
