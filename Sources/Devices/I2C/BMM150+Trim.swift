extension BMM150 {
    /// The factory trim values (registers 0x5D…0x71) and Bosch's fixed-point compensation.
    ///
    /// The formulas are those of Bosch's BMM050/BMM150 sensor API (`bmm050_compensate_X_s16` …), as used by the
    /// Linux `bmc150_magn` driver: integer arithmetic with C's truncating casts and arithmetic shifts, reproduced
    /// here with explicit `truncatingIfNeeded` conversions. Output: 1/16 µT. Where C would divide by zero
    /// (rhall and dig_xyz1 both 0, a zero Z denominator), and where the Bosch API reports an overflow for Z,
    /// the result is nil instead of a trap or a meaningless value.
    public struct Trim: Sendable, Hashable {
        public var x1: Int8, y1: Int8
        public var z4: Int16
        public var x2: Int8, y2: Int8
        public var z2: Int16
        public var z1: UInt16
        public var xyz1: UInt16
        public var z3: Int16
        public var xy2: Int8
        public var xy1: UInt8

        public init(x1: Int8, y1: Int8, z4: Int16, x2: Int8, y2: Int8, z2: Int16, z1: UInt16, xyz1: UInt16, z3: Int16,
                    xy2: Int8, xy1: UInt8) {
            self.x1 = x1; self.y1 = y1; self.z4 = z4; self.x2 = x2; self.y2 = y2; self.z2 = z2; self.z1 = z1
            self.xyz1 = xyz1; self.z3 = z3; self.xy2 = xy2; self.xy1 = xy1
        }

        /// From the 21 bytes at 0x5D…0x71: x1 0x5D, y1 0x5E, z4 0x62/63, x2 0x64, y2 0x65, z2 0x68/69,
        /// z1 0x6A/6B, xyz1 0x6C/6D, z3 0x6E/6F, xy2 0x70, xy1 0x71 (little-endian pairs).
        public init(registers r: [UInt8]) {
            func s8(_ i: Int) -> Int8 { Int8(bitPattern: r.byte(i)) }
            x1 = s8(0x00); y1 = s8(0x01)
            z4 = r.int16LE(0x05)
            x2 = s8(0x07); y2 = s8(0x08)
            z2 = r.int16LE(0x0B)
            z1 = r.uint16LE(0x0D)
            xyz1 = r.uint16LE(0x0F)
            z3 = r.int16LE(0x11)
            xy2 = s8(0x13)
            xy1 = r.byte(0x14)
        }

        /// Compensated X, Y, Z in 1/16 µT from raw ADC values (x, y 13-bit; z 15-bit; rhall 14-bit), or nil for
        /// overflow codes and degenerate trims.
        public func compensate(x: Int16, y: Int16, z: Int16, rhall: UInt16) -> (x: Int32, y: Int32, z: Int32)? {
            guard let cx = compensateXY(x, rhall: rhall, t1: x1, t2: x2),
                  let cy = compensateXY(y, rhall: rhall, t1: y1, t2: y2),
                  let cz = compensateZ(z, rhall: rhall) else { return nil }
            return (cx, cy, cz)
        }

        /// bmc150_magn_compensate_x/_y.
        func compensateXY(_ raw: Int16, rhall rawRhall: UInt16, t1: Int8, t2: Int8) -> Int32? {
            guard raw != BMM150Registers.overflowXY else { return nil }
            let rhall = rawRhall != 0 ? Int64(rawRhall) : Int64(xyz1)
            guard rhall != 0 else { return nil }
            // val = (s16)((u16)(((s32)xyz1 << 14) / rhall) - (u16)0x4000)
            let q = UInt16(truncatingIfNeeded: (Int64(xyz1) << 14) / rhall)
            let v = Int64(Int16(truncatingIfNeeded: Int64(q) - 0x4000))
            // (s16)(((s32)x * ((((xy2 * ((v * v) >> 7)) + (v * (xy1 << 7))) >> 9) + 0x100000) * (t2 + 0xA0)) >> 12) >> 13)
            let e = Int64(xy2) * ((v * v) >> 7)
            let f = v * (Int64(xy1) << 7)
            let c = ((e + f) >> 9) + 0x100000
            let d = Int64(t2) + 0xA0
            let a = Int64(raw) * ((c * d) >> 12)
            let shifted = Int64(Int16(truncatingIfNeeded: a >> 13))
            // + ((s16)t1 << 3), stored into an s16
            return Int32(Int16(truncatingIfNeeded: shifted + (Int64(t1) << 3)))
        }

        /// bmc150_magn_compensate_z, with the Bosch API's validity checks (the kernel has none): no result for
        /// rhall = 0 or a zero z1, z2 or xyz1 trim.
        func compensateZ(_ raw: Int16, rhall rawRhall: UInt16) -> Int32? {
            guard raw != BMM150Registers.overflowZ, rawRhall != 0, z1 != 0, z2 != 0, xyz1 != 0 else { return nil }
            let rhall = Int64(Int16(truncatingIfNeeded: rawRhall))
            let numerator = ((Int64(raw) - Int64(z4)) << 15) - ((Int64(z3) * (rhall - Int64(Int16(truncatingIfNeeded: xyz1)))) >> 2)
            let denominator = Int64(z2) + Int64(Int16(truncatingIfNeeded: ((Int64(z1) * (rhall << 1)) + (1 << 15)) >> 16))
            guard denominator != 0 else { return nil }
            return Int32(truncatingIfNeeded: numerator / denominator)
        }
    }
}
