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
