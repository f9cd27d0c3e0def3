import LocationCore
import UBX

/// UBX frames of a simulated u-blox receiver, for tests that feed one (a pipeline, a pseudo-terminal).
public enum SimulatedUBX {
    /// One NAV-PVT epoch at `t` (s since 1970; UTC date and time valid, iTOW its GPS time of week with 18 leap
    /// seconds): a 3-D fix with gnssFixOK at the given place, hAcc 1.2 m, vAcc 2 m, 1 m/s to the north (sAcc 0.3 m/s,
    /// headAcc 5°), 12 satellites, pDOP 1.5 (u-blox interface description offsets).
    public static func navPVT(_ t: Int64, latitudeDegrees lat: Double, longitudeDegrees lon: Double) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: 92)
        func put<T: FixedWidthInteger>(_ o: Int, _ v: T) {
            withUnsafeBytes(of: v.littleEndian) { for (i, x) in $0.enumerated() { p[o + i] = x } }
        }
        let d = CivilDate(daysSince1970: Int(t / 86_400)), sod = t % 86_400
        put(0, UInt32(((t - 315_964_800 + 18) % 604_800) * 1000))
        put(4, UInt16(d.year)); p[6] = UInt8(d.month); p[7] = UInt8(d.day)
        p[8] = UInt8(sod / 3600); p[9] = UInt8(sod / 60 % 60); p[10] = UInt8(sod % 60); p[11] = 0x07
        p[20] = 3; p[21] = 0x01; p[23] = 12
        put(24, Int32((lon * 1e7).rounded())); put(28, Int32((lat * 1e7).rounded()))
        put(32, Int32(592_300)); put(36, Int32(545_400)); put(40, UInt32(1200)); put(44, UInt32(2000))
        put(48, Int32(1000)); put(60, Int32(1000)); put(68, UInt32(300)); put(72, UInt32(500_000)); put(76, UInt16(150))
        return UBX.frame(classID: 0x01, messageID: 0x07, payload: p)!
    }
}
