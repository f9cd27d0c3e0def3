/// The UBX messages that carry `ReceiverSettings` to a u-blox receiver of a given generation (MON-VER's
/// `generation`), one step per setting so a NAK names the setting refused. Pure: builds bytes, sends nothing.
///
/// - Generation 9 and later (F9, M10, X20): one CFG-VALSET per setting, layer RAM, or RAM+BBR+Flash when saving —
///   CFG-RATE-MEAS, CFG-NAVSPG-DYNMODEL, the CFG-SIGNAL-*_ENA switches together (the receiver restarts its
///   signal configuration once), CFG-MSGOUT-* (UART1 and USB), CFG-UART1-BAUDRATE last.
/// - Generations 6–8: CFG-RATE, CFG-NAV5 (dynamic model only), CFG-GNSS (7 and 8), CFG-MSG (3-byte form: the
///   port the command arrives on), CFG-PRT (UART1) last, then CFG-CFG (save to BBR, flash, EEPROM) only when saving.
///
/// Every step expects ACK-ACK (0x05 0x01) naming its class and id; ACK-NAK (0x05 0x00) refuses it.
public struct UBXConfigurationStep: Sendable, Hashable {
    /// What the user asked for, for messages: `rate 5 Hz (CFG-RATE-MEAS)`.
    public var setting: String
    public var message: UBXMessage
    /// The step changes the port's baud rate: its ACK may come at either rate, the port follows afterwards.
    public var newBaudRate: Int?
}

public enum UBXConfigurationPlan {
    /// VALSET layers bit field.
    public static let layerRAM: UInt8 = 0x01, layerBBR: UInt8 = 0x02, layerFlash: UInt8 = 0x04

    public static func steps(for settings: ReceiverSettings, generation: Int, save: Bool) throws(ReceiverSettingsError) -> [UBXConfigurationStep] {
        if generation >= 9 { return valsetSteps(settings, save: save) }
        guard generation >= 6 else {
            throw ReceiverSettingsError("u-blox generation \(generation) is not supported (generations 6 and later are)")
        }
        return try legacySteps(settings, generation: generation, save: save)
    }

    // MARK: Generation 9+: configuration keys

    public static let keyRateMeas: UInt32 = 0x3021_0001
    public static let keyDynModel: UInt32 = 0x2011_0021
    public static let keyUART1Baud: UInt32 = 0x4052_0001
    public static func signalKey(_ c: ReceiverSettings.Constellation) -> UInt32 {
        switch c {
        case .gps: 0x1031_001F
        case .sbas: 0x1031_0020
        case .galileo: 0x1031_0021
        case .beidou: 0x1031_0022
        case .qzss: 0x1031_0024
        case .glonass: 0x1031_0025
        case .navic: 0x1031_0026
        }
    }

    /// The value's size in bytes from the key's size field (bits 28–30): 1 bit and 1 byte → 1, 2 → 2, 4 → 4, 8 → 8.
    public static func valueSize(ofKey key: UInt32) -> Int {
        switch (key >> 28) & 0x7 {
        case 3: 2
        case 4: 4
        case 5: 8
        default: 1
        }
    }

    /// A CFG-VALSET (version 0) of `items` to `layers`.
    public static func valset(_ items: [(UInt32, UInt64)], layers: UInt8) -> UBXMessage {
        var p: [UInt8] = [0x00, layers, 0x00, 0x00]
        for (key, value) in items {
            for i in 0..<4 { p.append(UInt8(truncatingIfNeeded: key >> (8 * UInt32(i)))) }
            for i in 0..<valueSize(ofKey: key) { p.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
        }
        return UBXMessage(classID: 0x06, messageID: 0x8A, payload: p)
    }

    static func measurementPeriodMilliseconds(_ hz: Double) -> Int {
        max(25, min(65_535, Int((1000 / hz).rounded())))
    }

    static func valsetSteps(_ s: ReceiverSettings, save: Bool) -> [UBXConfigurationStep] {
        let layers = save ? layerRAM | layerBBR | layerFlash : layerRAM
        var steps: [UBXConfigurationStep] = []
        if let hz = s.rateHertz {
            let ms = measurementPeriodMilliseconds(hz)
            steps.append(.init(setting: "rate \(ReceiverSettings.format(hz)) Hz (CFG-RATE-MEAS \(ms) ms)",
                               message: valset([(keyRateMeas, UInt64(ms))], layers: layers)))
        }
        if let m = s.dynamicModel {
            steps.append(.init(setting: "dynamic model \(m.rawValue) (CFG-NAVSPG-DYNMODEL \(m.ubloxValue))",
                               message: valset([(keyDynModel, UInt64(m.ubloxValue))], layers: layers)))
        }
        if let set = s.constellations {
            let items = ReceiverSettings.Constellation.allCases.map { (signalKey($0), UInt64(set.contains($0) ? 1 : 0)) }
            steps.append(.init(setting: "constellations \(set.sorted().map(\.rawValue).joined(separator: "+")) (CFG-SIGNAL-*_ENA)",
                               message: valset(items, layers: layers)))
        }
        for m in s.messages {
            let rate = UInt64(m.rate)
            steps.append(.init(setting: "message \(m.message.displayName) rate \(m.rate) (CFG-MSGOUT)",
                               message: valset([(m.message.uart1Key, rate), (m.message.uart1Key + 2, rate)], layers: layers)))
        }
        if let b = s.baudRate {
            steps.append(.init(setting: "baud \(b) (CFG-UART1-BAUDRATE)",
                               message: valset([(keyUART1Baud, UInt64(b))], layers: layers), newBaudRate: b))
        }
        return steps
    }

    // MARK: Generations 6–8: CFG messages

    /// CFG-GNSS gnssId, reserved and maximum tracking channels (u-blox M8 defaults), and the L1 signal mask.
    static func gnssBlock(_ c: ReceiverSettings.Constellation) -> (id: UInt8, reserved: UInt8, maximum: UInt8)? {
        switch c {
        case .gps: (0, 8, 16)
        case .sbas: (1, 1, 3)
        case .galileo: (2, 4, 8)
        case .beidou: (3, 8, 16)
        case .qzss: (5, 0, 3)
        case .glonass: (6, 8, 14)
        case .navic: nil
        }
    }

    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }

    static func legacySteps(_ s: ReceiverSettings, generation: Int, save: Bool) throws(ReceiverSettingsError) -> [UBXConfigurationStep] {
        var steps: [UBXConfigurationStep] = []
        if let hz = s.rateHertz {
            let ms = measurementPeriodMilliseconds(hz)
            steps.append(.init(setting: "rate \(ReceiverSettings.format(hz)) Hz (CFG-RATE measRate \(ms) ms)",
                               message: UBXMessage(classID: 0x06, messageID: 0x08, payload: le16(ms) + le16(1) + le16(1))))
        }
        if let m = s.dynamicModel {
            guard m.ubloxValue <= 8 || generation >= 8 else {
                throw ReceiverSettingsError("dynamic model \(m.rawValue) needs u-blox generation 8 or later (this is \(generation))")
            }
            guard m.ubloxValue <= 9 else {
                throw ReceiverSettingsError("dynamic model \(m.rawValue) needs u-blox generation 9 or later (this is \(generation))")
            }
            var p = [UInt8](repeating: 0, count: 36)
            p[0] = 0x01            // mask: dyn only
            p[2] = m.ubloxValue
            steps.append(.init(setting: "dynamic model \(m.rawValue) (CFG-NAV5 dynModel \(m.ubloxValue))",
                               message: UBXMessage(classID: 0x06, messageID: 0x24, payload: p)))
        }
        if let set = s.constellations {
            guard generation >= 7 else {
                throw ReceiverSettingsError("choosing constellations needs u-blox generation 7 or later (this is \(generation), GPS only)")
            }
            if set.contains(.navic) {
                throw ReceiverSettingsError("constellation navic needs u-blox generation 9 or later (this is \(generation))")
            }
            let all = ReceiverSettings.Constellation.allCases.compactMap { c in gnssBlock(c).map { (c, $0) } }
            var p: [UInt8] = [0x00, 0x00, 0xFF, UInt8(all.count)]
            for (c, b) in all {
                let enable: UInt32 = set.contains(c) ? 1 : 0
                p += [b.id, b.reserved, b.maximum, 0] + le32(enable | 0x0001_0000)
            }
            steps.append(.init(setting: "constellations \(set.sorted().map(\.rawValue).joined(separator: "+")) (CFG-GNSS)",
                               message: UBXMessage(classID: 0x06, messageID: 0x3E, payload: p)))
        }
        for m in s.messages {
            let (cls, id) = m.message.classAndID
            steps.append(.init(setting: "message \(m.message.displayName) rate \(m.rate) (CFG-MSG)",
                               message: UBXMessage(classID: 0x06, messageID: 0x01, payload: [cls, id, UInt8(m.rate)])))
        }
        if let b = s.baudRate {
            // UART1, 8N1, in UBX+NMEA+RTCM3, out UBX+NMEA.
            let p: [UInt8] = [0x01, 0x00] + le16(0) + le32(0x0000_08D0) + le32(UInt32(b)) + le16(0x0007) + le16(0x0003)
                + le16(0) + le16(0)
            steps.append(.init(setting: "baud \(b) (CFG-PRT UART1)", message: UBXMessage(classID: 0x06, messageID: 0x00, payload: p),
                               newBaudRate: b))
        }
        if save {
            // clearMask 0, saveMask all sections, loadMask 0, devices BBR | Flash | EEPROM | SPI flash.
            let p = le32(0) + le32(0x0000_1F1F) + le32(0) + [0x17]
            steps.append(.init(setting: "save to BBR and flash (CFG-CFG)", message: UBXMessage(classID: 0x06, messageID: 0x09, payload: p)))
        }
        return steps
    }

    /// What an ACK frame says about a class/id: true ACK-ACK, false ACK-NAK, nil not an acknowledgement of it.
    public static func acknowledgement(_ frame: UBXFrame, for message: UBXMessage) -> Bool? {
        guard frame.classID == 0x05, frame.messageID <= 1, frame.payload.count == 2,
              frame.payload[0] == message.classID, frame.payload[1] == message.messageID else { return nil }
        return frame.messageID == 1
    }
}
