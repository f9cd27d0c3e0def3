/// One UBX message with its own payload copy: what a configuration tool builds and sends, or keeps from a
/// received frame. (The framer hands out `UBXFrame` views instead, which copy nothing.)
public struct UBXMessage: Sendable, Hashable {
    public var classID: UInt8
    public var messageID: UInt8
    public var payload: [UInt8]

    public init(classID: UInt8, messageID: UInt8, payload: [UInt8] = []) {
        self.classID = classID; self.messageID = messageID; self.payload = payload
    }

    public init(_ frame: UBXFrame) {
        self.init(classID: frame.classID, messageID: frame.messageID, payload: Array(frame.payload))
    }

    /// The framed bytes (sync, header, payload, checksum); nil when the payload is longer than 65,535 bytes.
    public var framed: [UInt8]? { UBX.frame(classID: classID, messageID: messageID, payload: payload) }

    /// Parses exactly one complete frame (sync to checksum); nil when anything is wrong.
    public init?(framed bytes: [UInt8]) {
        guard bytes.count >= UBX.overheadLength, bytes[0] == UBX.sync1, bytes[1] == UBX.sync2 else { return nil }
        let length = Int(bytes[4]) | Int(bytes[5]) << 8
        guard bytes.count == length + UBX.overheadLength else { return nil }
        let (a, b) = bytes.withUnsafeBufferPointer { UBX.checksum(UnsafeBufferPointer(rebasing: $0[2..<(6 + length)])) }
        guard a == bytes[6 + length], b == bytes[7 + length] else { return nil }
        self.init(classID: bytes[2], messageID: bytes[3], payload: Array(bytes[6..<(6 + length)]))
    }

    /// `NAV-PVT`, `MON-VER`, … or `NAV-0x42` for an id this module does not name.
    public var name: String { UBXMessageID.name(classID: classID, messageID: messageID) }
}

/// One framed UBX message, valid only during the framer's callback.
public struct UBXFrame {
    public let classID: UInt8
    public let messageID: UInt8
    public let payload: UnsafeBufferPointer<UInt8>
    /// The whole frame, sync to checksum (for pass-through and capture).
    public let bytes: UnsafeBufferPointer<UInt8>
}

/// One RTCM3 frame (preamble 0xD3 to the CRC-24Q), valid only during the framer's callback.
public struct RTCM3Frame {
    public let bytes: UnsafeBufferPointer<UInt8>
    /// The 12-bit message number (1005, 1077, …), nil when the payload is shorter than 2 bytes.
    public var messageNumber: Int? {
        guard bytes.count >= 5 else { return nil }
        return Int(bytes[3]) << 4 | Int(bytes[4]) >> 4
    }
}

/// Names of the messages this module decodes.
public enum UBXMessageID {
    public static let navPOSLLH: (UInt8, UInt8) = (0x01, 0x02)
    public static let navSTATUS: (UInt8, UInt8) = (0x01, 0x03)
    public static let navDOP: (UInt8, UInt8) = (0x01, 0x04)
    public static let navSOL: (UInt8, UInt8) = (0x01, 0x06)
    public static let navPVT: (UInt8, UInt8) = (0x01, 0x07)
    public static let navVELNED: (UInt8, UInt8) = (0x01, 0x12)
    public static let navHPPOSLLH: (UInt8, UInt8) = (0x01, 0x14)
    public static let navTIMEGPS: (UInt8, UInt8) = (0x01, 0x20)
    public static let navTIMEUTC: (UInt8, UInt8) = (0x01, 0x21)
    public static let navSVINFO: (UInt8, UInt8) = (0x01, 0x30)
    public static let navSAT: (UInt8, UInt8) = (0x01, 0x35)
    public static let navRELPOSNED: (UInt8, UInt8) = (0x01, 0x3C)
    public static let navEOE: (UInt8, UInt8) = (0x01, 0x61)
    public static let monVER: (UInt8, UInt8) = (0x0A, 0x04)
    public static let monHW: (UInt8, UInt8) = (0x0A, 0x09)
    public static let monRF: (UInt8, UInt8) = (0x0A, 0x38)
    public static let timTP: (UInt8, UInt8) = (0x0D, 0x01)
    public static let hnrPVT: (UInt8, UInt8) = (0x28, 0x00)
    public static let cfgVALSET: (UInt8, UInt8) = (0x06, 0x8A)
    public static let cfgVALGET: (UInt8, UInt8) = (0x06, 0x8B)
    public static let cfgMSG: (UInt8, UInt8) = (0x06, 0x01)
    public static let cfgPRT: (UInt8, UInt8) = (0x06, 0x00)

    static let names: [UInt16: String] = [
        0x0101: "POSECEF", 0x0111: "VELECEF", 0x0113: "HPPOSECEF", 0x0102: "POSLLH", 0x0103: "STATUS", 0x0104: "DOP", 0x0106: "SOL", 0x0107: "PVT", 0x0112: "VELNED",
        0x0114: "HPPOSLLH", 0x0120: "TIMEGPS", 0x0121: "TIMEUTC", 0x0130: "SVINFO", 0x0135: "SAT", 0x013C: "RELPOSNED",
        0x0161: "EOE", 0x0A04: "VER", 0x0A09: "HW", 0x0A38: "RF", 0x0D01: "TP", 0x2800: "PVT", 0x0500: "NAK",
        0x0501: "ACK", 0x0600: "PRT", 0x0601: "MSG", 0x068A: "VALSET", 0x068B: "VALGET",
    ]

    public static func name(classID: UInt8, messageID: UInt8) -> String {
        let id = names[UInt16(classID) << 8 | UInt16(messageID)] ?? "0x" + UBX.hex2(messageID)
        return UBX.className(classID) + "-" + id
    }
}
