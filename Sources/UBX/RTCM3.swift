/// RTCM 3 framing: preamble 0xD3, 6 reserved zero bits and a 10-bit length, the payload, and CRC-24Q.
public enum RTCM3 {
    public static let preamble: UInt8 = 0xD3
    /// Preamble and the two length bytes.
    public static let headerLength = 3
    public static let crcLength = 3
    public static let maximumPayloadLength = 1023

    static let table: [UInt32] = (0..<256).map { i -> UInt32 in
        var crc = UInt32(i) << 16
        for _ in 0..<8 {
            crc <<= 1
            if crc & 0x100_0000 != 0 { crc ^= 0x186_4CFB }
        }
        return crc & 0xFF_FFFF
    }

    /// CRC-24Q (Qualcomm) over `bytes`, as RTCM 10403 defines it.
    public static func crc24q(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var crc: UInt32 = 0
        table.withUnsafeBufferPointer { t in
            for b in bytes { crc = ((crc << 8) & 0xFF_FFFF) ^ t[Int((crc >> 16) ^ UInt32(b)) & 0xFF] }
        }
        return crc
    }

    /// A complete frame around `payload` (for tests and an NTRIP relay); nil when the payload is too long.
    public static func frame(payload: [UInt8]) -> [UInt8]? {
        guard payload.count <= maximumPayloadLength else { return nil }
        var out: [UInt8] = [preamble, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
        let crc = out.withUnsafeBufferPointer { crc24q($0) }
        out += [UInt8(crc >> 16), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        return out
    }
}
