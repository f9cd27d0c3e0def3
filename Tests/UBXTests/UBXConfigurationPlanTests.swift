import Foundation
import Testing
@testable import UBX

/// The configuration messages byte for byte, from the u-blox interface descriptions (F9 HPG 1.32, M8 protocol 18).
struct UBXConfigurationPlanTests {
    @Test func generation9RateIsOneValsetToRAM() throws {
        let steps = try UBXConfigurationPlan.steps(for: ReceiverSettings(rateHertz: 5), generation: 9, save: false)
        #expect(steps.count == 1)
        // version 0, layers RAM, reserved, key 0x30210001 (U2) = 200 ms
        #expect(steps[0].message == UBXMessage(classID: 0x06, messageID: 0x8A,
                                               payload: [0, 1, 0, 0, 0x01, 0x00, 0x21, 0x30, 200, 0]))
        let saved = try UBXConfigurationPlan.steps(for: ReceiverSettings(rateHertz: 5), generation: 10, save: true)
        #expect(saved[0].message.payload[1] == 0x07)
    }

    @Test func valueSizesComeFromTheKey() {
        #expect(UBXConfigurationPlan.valueSize(ofKey: 0x1031_001F) == 1)
        #expect(UBXConfigurationPlan.valueSize(ofKey: 0x2011_0021) == 1)
        #expect(UBXConfigurationPlan.valueSize(ofKey: 0x3021_0001) == 2)
        #expect(UBXConfigurationPlan.valueSize(ofKey: 0x4052_0001) == 4)
    }

    @Test func generation8UsesCFGMessagesAndSavesOnlyWhenAsked() throws {
        let s = ReceiverSettings(rateHertz: 10, constellations: [.gps, .glonass], dynamicModel: .sea)
        let steps = try UBXConfigurationPlan.steps(for: s, generation: 8, save: false)
        #expect(steps.map(\.message.messageID) == [0x08, 0x24, 0x3E])
        #expect(steps[0].message.payload == [100, 0, 1, 0, 1, 0])
        #expect(steps[1].message.payload.count == 36 && steps[1].message.payload[0] == 1 && steps[1].message.payload[2] == 5)
        #expect(steps[2].message.payload.count == 4 + 8 * 6)
        let saved = try UBXConfigurationPlan.steps(for: s, generation: 8, save: true)
        #expect(saved.last?.message.messageID == 0x09 && saved.last?.message.payload.count == 13)
        #expect(throws: ReceiverSettingsError.self) {
            try UBXConfigurationPlan.steps(for: ReceiverSettings(constellations: [.navic]), generation: 8, save: false)
        }
        #expect(throws: ReceiverSettingsError.self) {
            try UBXConfigurationPlan.steps(for: ReceiverSettings(rateHertz: 1), generation: 5, save: false)
        }
    }

    @Test(arguments: ["", "x", "0", "-1", "nan", "inf", "41"])
    func badRatesAreRefused(text: String) {
        #expect(throws: ReceiverSettingsError.self) { try ReceiverSettings.parseRate(text) }
    }
}

/// Every message `--messages` can switch: its CFG-MSGOUT keys for UART1 and USB (the USB key taken as UART1's + 2)
/// against pyubx2's configuration database, an independent transcription of u-blox's interface description.
@Suite(.enabled(if: PyUBX2.available, Comment(rawValue: PyUBX2.skipMessage)))
struct ReceiverMessageKeyTests {
    @Test func outputMessageKeysMatchPyubx2() throws {
        let names = ReceiverSettings.OutputMessage.allCases.map { m -> String in
            let (c, _) = m.classAndID
            let base = m.rawValue.uppercased().replacingOccurrences(of: "-", with: "_")
            return c == 0xF0 ? "NMEA_ID_" + base : "UBX_" + base
        }
        let script = """
        from pyubx2.ubxtypes_configdb import UBX_CONFIG_DATABASE as db
        import sys
        for n in sys.argv[1:]:
            print(n, db["CFG_MSGOUT_" + n + "_UART1"][0], db["CFG_MSGOUT_" + n + "_USB"][0])
        """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: PyUBX2.python)
        p.arguments = ["-c", script] + names
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        var keys: [String: (UInt32, UInt32)] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let f = line.split(separator: " ")
            if f.count == 3, let a = UInt32(f[1]), let b = UInt32(f[2]) { keys[String(f[0])] = (a, b) }
        }
        #expect(keys.count == names.count)
        for (m, name) in zip(ReceiverSettings.OutputMessage.allCases, names) {
            let k = try #require(keys[name], "\(name) not in pyubx2's database")
            #expect(m.uart1Key == k.0 && m.uart1Key + 2 == k.1, "\(name): \(m.uart1Key) vs pyubx2 \(k.0)/\(k.1)")
        }
    }
}
