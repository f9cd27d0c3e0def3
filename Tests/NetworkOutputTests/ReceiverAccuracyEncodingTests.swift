import Events
import Foundation
import LocationCore
@testable import NetworkOutput
import NMEA
import Testing

/// A receiver that states its own accuracies (u-blox NAV-PVT hAcc, vAcc, sAcc, headAcc, tAcc), RTK fix quality
/// and integrity: every output format carries them as gpsd does for u-blox, and DEVICE names the driver.
@Suite("Receiver accuracies, RTK quality and integrity in the outputs")
struct ReceiverAccuracyEncodingTests {
    /// gpsd 3.27's TPV for ublox-zed-f9p-rtk.log at 11:04:25 (RTK float): hAcc 0.337 m → eph 0.337.
    static func rtkFix() -> Location {
        var l = Location()
        l.time = Timestamp(nanosecondsSince1970: 1_665_486_265_000_000_000)
        l.mode = .threeD; l.quality = .rtkFloat
        l.latitudeDegrees = 47.1290927; l.longitudeDegrees = 15.2120432
        l.altitudeEllipsoidMeters = 869.218; l.altitudeMSLMeters = 826.56
        l.horizontalAccuracyMeters = 0.337; l.verticalAccuracyMeters = 0.777
        l.speedMetersPerSecond = 0.012; l.speedAccuracyMetersPerSecond = 0.246
        l.courseDegrees = 197.9506; l.courseAccuracyDegrees = 12.5
        l.hdop = 0.6; l.vdop = 0.9; l.pdop = 1.1
        l.accuracyFromReceiver = true
        l.timeAccuracySeconds = 0.000000021
        l.leapSeconds = 18
        l.integrity = ReceiverIntegrity(jamming: .warning, jammingIndicator: 120, spoofing: .none, antenna: .ok)
        return l
    }

    static func tpv(_ l: Location) throws -> [String: Any] {
        var enc = GpsdJSONEncoder(device: "/dev/ttyACM0")
        var out = LocationCore.ByteBuffer(capacity: 4096)
        enc.encode(.fix(l), into: &out)
        let text = out.withBytes { String(decoding: $0, as: UTF8.self) }
        #expect(text.hasSuffix("}\r\n"))
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func gpsdTPVReportsTheReceiversOwnAccuracies() throws {
        let t = try Self.tpv(Self.rtkFix())
        #expect(t["status"] as? Int == 4, "RTK float is gpsd status 4")
        #expect((t["eph"] as? Double) == 0.337, "hAcc as is, not HDOP × UERE")
        #expect((t["epv"] as? Double) == 0.777)
        #expect((t["eps"] as? Double) == 0.25)
        #expect((t["epd"] as? Double) == 12.5)
        #expect(abs((t["ept"] as? Double ?? 0) - 2.1e-8) < 1e-12)
        #expect(t["leapseconds"] as? Int == 18)
        var fixed = Self.rtkFix()
        fixed.quality = .rtkFixed
        #expect(try Self.tpv(fixed)["status"] as? Int == 3)
        // Without the receiver's own figures, gpsd's DOP model is kept (eph = HDOP × 19 m).
        var nmea = Self.rtkFix()
        nmea.accuracyFromReceiver = false; nmea.quality = .gps; nmea.timeAccuracySeconds = nil
        let n = try Self.tpv(nmea)
        #expect(abs((n["eph"] as? Double ?? 0) - 11.4) < 1e-9)
        #expect((n["ept"] as? Double) == 0.005)
    }

    @Test func lodestarJSONCarriesTimeAccuracyAndIntegrity() throws {
        var enc = LodestarJSONEncoder()
        var out = LocationCore.ByteBuffer(capacity: 4096)
        enc.encode(.fix(Self.rtkFix()), into: &out)
        let text = out.withBytes { String(decoding: $0, as: UTF8.self) }
        let o = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(o["quality"] as? String == "rtkFloat")
        #expect(o["horizontalAccuracyMeters"] as? Double == 0.337)
        #expect(abs((o["timeAccuracySeconds"] as? Double ?? 0) - 2.1e-8) < 1e-12)
        let integrity = try #require(o["integrity"] as? [String: Any])
        #expect(integrity["jamming"] as? String == "warning")
        #expect(integrity["jammingIndicator"] as? Int == 120)
        #expect(integrity["spoofing"] as? String == "none")
        #expect(integrity["antenna"] as? String == "ok")
    }

    @Test func ggaQualityShowsRTK() {
        var l = Self.rtkFix()
        #expect(NMEAEncoder.ggaQuality(l) == 5, "RTK float is GGA quality 5")
        l.quality = .rtkFixed
        #expect(NMEAEncoder.ggaQuality(l) == 4, "RTK fixed is GGA quality 4")
    }

    @Test func devicesNamesTheDriverAndSubtype() throws {
        var reply = GpsdProtocol.Reply(device: "/dev/ttyACM0", activatedNanos: 0)
        #expect(reply.deviceJSON(clients: 1, dropped: 0).contains("\"driver\":\"Lodestar\""))
        reply.identity = ReceiverIdentity(driver: "u-blox", model: "ZED-F9P", firmware: "HPG 1.32", protocolVersion: "27.31",
                                          software: "EXT CORE 1.00 (0fa0ae)", hardware: "00190000",
                                          extensions: ["ROM BASE 0x118B2060", "FWVER=HPG 1.32", "PROTVER=27.31", "MOD=ZED-F9P"])
        let json = reply.deviceJSON(clients: 1, dropped: 0)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(o["driver"] as? String == "u-blox")
        // gpsd's own subtype for this module (ublox-zed-f9p-rtk.log's header): "SW EXT CORE 1.00 (0fa0ae),HW 00190000".
        #expect(o["subtype"] as? String == "SW EXT CORE 1.00 (0fa0ae),HW 00190000")
        #expect((o["subtype1"] as? String)?.contains("MOD=ZED-F9P") == true)
    }
}
