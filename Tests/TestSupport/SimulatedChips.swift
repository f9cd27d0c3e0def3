
/// Register-level models of the supported chips for `I2CSimulator`, written from the datasheets independently
/// of the drivers (literal register numbers, not the drivers' constants), so a driver that gets a register or a
/// bit wrong fails against them.
///
/// `sample` holds the next measurement in the chip's raw units: [x, y, z] for magnetometers (register counts;
/// BMM150: [x, y, z, rhall] ADC values; MMC5983MA: the field in 18-bit counts, 16384/G), [ax, ay, az, gx, gy, gz]
/// for IMUs. A `tick()` is one output-data period.
public enum SimulatedChips {
    public typealias Device = I2CSimulator.Device

    // MARK: helpers

    public static func putLE(_ d: inout Device, _ index: Int, _ value: Int32) {
        let v = UInt16(bitPattern: Int16(clamping: value))
        d.set(index, UInt8(v & 0xFF)); d.set(index + 1, UInt8(v >> 8))
    }

    public static func putBE(_ d: inout Device, _ index: Int, _ value: Int32) {
        let v = UInt16(bitPattern: Int16(clamping: value))
        d.set(index, UInt8(v >> 8)); d.set(index + 1, UInt8(v & 0xFF))
    }

    public static func value(_ d: Device, _ i: Int) -> Int32 { d.sample.indices.contains(i) ? d.sample[i] : 0 }

    // MARK: Honeywell HMC5883L / ST LSM303DLHC magnetometer

    /// HMC5883L: CRA 0x10, CRB 0x20, MODE 0x01 at power-on; 'H43' at 0x0A-0x0C; data X, Z, Y big-endian at
    /// 0x03; status 0x09 RDY. Single mode: a write of MD = 01 clears RDY and measures at the next tick, then the
    /// mode register goes idle (MD = 11). Continuous (MD = 00): every tick. Nonexistent registers read 0.
    public static func hmc5883l(_ sample: [Int32] = [0, 0, 0]) -> Device {
        h43(name: "HMC5883L", sample: sample, power: [0x00: 0x10, 0x01: 0x20, 0x02: 0x01])
    }

    /// LSM303DLHC magnetometer: the HMC5883L's layout, MR_REG_M 0x03 (sleep) at power-on, 0x3C at 0x0F
    /// (what Linux st_magn checks), temperature at 0x31/0x32.
    public static func lsm303dlhcMagnetometer(_ sample: [Int32] = [0, 0, 0]) -> Device {
        h43(name: "LSM303DLHC-M", sample: sample, power: [0x00: 0x10, 0x01: 0x20, 0x02: 0x03, 0x0F: 0x3C, 0x31: 0x01, 0x32: 0x40])
    }

    private static func h43(name: String, sample: [Int32], power: [Int: UInt8]) -> Device {
        var registers = power
        registers[0x0A] = 0x48; registers[0x0B] = 0x34; registers[0x0C] = 0x33
        var d = Device(name: name, registers: registers)
        d.sample = sample
        d.readOnly = Set(0x03...0x0C).union([0x0F, 0x31, 0x32])
        d.dataReadyBits = [(0x09, 0x01)]
        d.onWrite = { d, index, _, new in
            if index == 0x02 && new & 0x03 == 0x01 {
                d.state["pending"] = 1
                d.set(0x09, d.register(0x09) & ~0x01)
            }
        }
        d.onTick = { d in
            let mode = d.register(0x02) & 0x03
            guard mode == 0x00 || d.state["pending"] == 1 else { return }
            putBE(&d, 0x03, value(d, 0)); putBE(&d, 0x05, value(d, 2)); putBE(&d, 0x07, value(d, 1))
            d.set(0x09, d.register(0x09) | 0x01)
            if d.state["pending"] == 1 {
                d.state["pending"] = 0
                d.set(0x02, (d.register(0x02) & ~0x03) | 0x03)
            }
        }
        return d
    }

    // MARK: QST QMC5883L

    /// Data X, Y, Z little-endian at 0x00; status 0x06 DRDY (0), OVL (1), DOR (2); control 1 at 0x09
    /// (MODE 01 = continuous); 0x0C reads 0x01, 0x0D 0xFF. Reading any data register clears DRDY and DOR.
    /// `state["overflow"] = 1` (or a sample outside ±32767) sets OVL and saturates.
    public static func qmc5883l(_ sample: [Int32] = [0, 0, 0]) -> Device {
        var d = Device(name: "QMC5883L", registers: [0x0C: 0x01, 0x0D: 0xFF])
        d.sample = sample
        d.readOnly = Set(0x00...0x08).union([0x0C, 0x0D])
        d.dataReadyBits = [(0x06, 0x01)]
        d.onRead = { d, index in
            if index <= 0x05 { d.set(0x06, d.register(0x06) & ~0x05) }
            return nil
        }
        d.onWrite = { d, index, _, new in
            if index == 0x0A && new & 0x80 != 0 { d.powerOnReset() }
        }
        d.onTick = { d in
            guard d.register(0x09) & 0x03 == 0x01 else { return }
            var status = d.register(0x06)
            if status & 0x01 != 0 { status |= 0x04 }
            let values = (0..<3).map { value(d, $0) }
            let out = values.contains { $0 > 32767 || $0 < -32768 } || d.state["overflow"] == 1
            status = out ? status | 0x02 : status & ~0x02
            for (i, v) in values.enumerated() { putLE(&d, i * 2, v) }
            d.set(0x06, status | 0x01)
        }
        return d
    }

    // MARK: ST LIS3MDL / LSM9DS1 magnetometer, LIS2MDL / LSM303AGR magnetometer, LSM303 accelerometer

    /// LIS3MDL (and the LSM9DS1 magnetometer): WHO_AM_I 0x0F = 0x3D; CTRL_REG3 0x22 = 0x03 (power-down) at
    /// power-on; continuous when MD = 00; STATUS 0x27 (ZYXOR 0x80, ZYXDA 0x08 + per-axis bits); data LE at 0x28;
    /// multi-byte transfers increment only with bit 7 of the register address; reading OUT_Z_H clears STATUS.
    public static func lis3mdl(_ sample: [Int32] = [0, 0, 0]) -> Device {
        stMagnetometer(name: "LIS3MDL", power: [0x0F: 0x3D, 0x20: 0x10, 0x22: 0x03], autoIncrement: .whenRegisterMSBSet,
                       running: { $0.register(0x22) & 0x03 == 0x00 }, status: 0x27, data: 0x28, readOnly: [0x0F], sample: sample)
    }

    /// LIS2MDL (and the LSM303AGR magnetometer): WHO_AM_I 0x4F = 0x40; CFG_REG_A 0x60 = 0x03 (idle) at power-on,
    /// continuous when MD = 00; STATUS 0x67; data LE at 0x68; plain auto-increment (bit 7 would address 0xE7…).
    public static func lis2mdl(_ sample: [Int32] = [0, 0, 0]) -> Device {
        stMagnetometer(name: "LIS2MDL", power: [0x4F: 0x40, 0x60: 0x03], autoIncrement: .always,
                       running: { $0.register(0x60) & 0x03 == 0x00 }, status: 0x67, data: 0x68, readOnly: [0x4F], sample: sample)
    }

    private static func stMagnetometer(name: String, power: [Int: UInt8], autoIncrement: I2CSimulator.AutoIncrement,
                                       running: @escaping @Sendable (Device) -> Bool, status: Int, data: Int,
                                       readOnly: Set<Int>, sample: [Int32]) -> Device {
        var d = Device(name: name, registers: power, autoIncrement: autoIncrement)
        d.sample = sample
        d.readOnly = readOnly.union(Set(status...(data + 7)))
        d.dataReadyBits = [(status, 0x0F)]
        d.onRead = { d, index in
            if index == data + 5 { d.set(status, 0) }
            return nil
        }
        d.onTick = { d in
            guard running(d) else { return }
            for i in 0..<3 { putLE(&d, data + 2 * i, value(d, i)) }
            let s = d.register(status)
            d.set(status, (s & 0x08 != 0 ? 0xF0 : 0) | 0x0F)
        }
        return d
    }

    /// LSM303AGR/LSM303DLHC accelerometer: WHO_AM_I 0x0F = 0x33; CTRL_REG1_A 0x20 = 0x07 (ODR 0: power-down)
    /// at power-on; STATUS 0x27; data LE, 12-bit left-justified in high-resolution mode, at 0x28; bit 7
    /// auto-increment. `sample` in 12-bit counts.
    public static func lsm303Accelerometer(_ sample: [Int32] = [0, 0, 0]) -> Device {
        var d = Device(name: "LSM303-A", registers: [0x0F: 0x33, 0x20: 0x07], autoIncrement: .whenRegisterMSBSet)
        d.sample = sample
        d.readOnly = Set([0x0F]).union(Set(0x27...0x2D))
        d.dataReadyBits = [(0x27, 0x0F)]
        d.onRead = { d, index in
            if index == 0x2D { d.set(0x27, 0) }
            return nil
        }
        d.onTick = { d in
            guard d.register(0x20) >> 4 != 0 else { return }
            for i in 0..<3 { putLE(&d, 0x28 + 2 * i, value(d, i) << 4) }
            let s = d.register(0x27)
            d.set(0x27, (s & 0x08 != 0 ? 0xF0 : 0) | 0x0F)
        }
        return d
    }

    /// LSM9DS1 accelerometer/gyroscope: WHO_AM_I 0x0F = 0x68; CTRL_REG8 0x22 = 0x04 (IF_ADD_INC) at power-on;
    /// the gyroscope (and the accelerometer with it) runs when ODR_G (CTRL_REG1_G 0x10, bits 7:5) is not 0;
    /// STATUS 0x17: GDA (1), XLDA (0); gyro LE at 0x18, accel LE at 0x28; reading OUT_Z_H_G / OUT_Z_H_XL clears
    /// GDA / XLDA. Auto-increment follows IF_ADD_INC.
    public static func lsm9ds1AccelGyro(_ sample: [Int32] = [0, 0, 0, 0, 0, 0]) -> Device {
        var d = Device(name: "LSM9DS1-AG", registers: [0x0F: 0x68, 0x22: 0x04])
        d.sample = sample
        d.readOnly = Set([0x0F]).union(Set(0x17...0x1D)).union(Set(0x27...0x2D))
        d.dataReadyBits = [(0x17, 0x03)]
        d.onRead = { d, index in
            if index == 0x1D { d.set(0x17, d.register(0x17) & ~0x02) }
            if index == 0x2D { d.set(0x17, d.register(0x17) & ~0x01) }
            return nil
        }
        d.onWrite = { d, index, _, new in
            if index == 0x22 { d.autoIncrement = new & 0x04 != 0 ? .always : .never }
        }
        d.onTick = { d in
            guard d.register(0x10) >> 5 != 0 else { return }
            for i in 0..<3 {
                putLE(&d, 0x28 + 2 * i, value(d, i))
                putLE(&d, 0x18 + 2 * i, value(d, 3 + i))
            }
            d.set(0x17, d.register(0x17) | 0x03)
        }
        return d
    }

    // MARK: InvenSense MPU-9250 + AKM AK8963

    /// MPU-9250: WHO_AM_I 0x75 = 0x71, PWR_MGMT_1 0x6B = 0x01 at power-on; H_RESET (0x80) resets every register;
    /// INT_STATUS 0x3A bit 0 sets each tick while INT_ENABLE 0x38 bit 0 is set and clears when read;
    /// ACCEL (0x3B), TEMP, GYRO (0x43) big-endian.
    public static func mpu9250(_ sample: [Int32] = [0, 0, 0, 0, 0, 0], whoAmI: UInt8 = 0x71) -> Device {
        var d = Device(name: "MPU-9250", registers: [0x75: whoAmI, 0x6B: 0x01])
        d.sample = sample
        d.readOnly = Set(0x3A...0x48).union([0x75])
        d.dataReadyBits = [(0x3A, 0x01)]
        d.onRead = { d, index in
            if index == 0x3A { d.set(0x3A, 0) }
            return nil
        }
        d.onWrite = { d, index, _, new in
            if index == 0x6B && new & 0x80 != 0 { d.powerOnReset() }
        }
        d.onTick = { d in
            guard d.register(0x6B) & 0x40 == 0 else { return }
            for i in 0..<3 {
                putBE(&d, 0x3B + 2 * i, value(d, i))
                putBE(&d, 0x43 + 2 * i, value(d, 3 + i))
            }
            if d.register(0x38) & 0x01 != 0 { d.set(0x3A, d.register(0x3A) | 0x01) }
        }
        return d
    }

    /// AK8963 (visible at 0x0C only while the MPU at `host` has BYPASS_EN in INT_PIN_CFG 0x37): WIA 0x48;
    /// ST1 0x02 (DRDY, DOR); data LE at 0x03; ST2 0x09 (BITM 0x10, HOFL 0x08), reading it clears ST1;
    /// CNTL1 0x0A: a change between two non-power-down modes is ignored (the datasheet requires power-down
    /// first); ASA 0x10-0x12 read 0 outside fuse-ROM mode (0x0F). Continuous modes 0x02/0x06 measure each tick.
    /// `state["hofl"] = 1` flags the next measurements as overflowed.
    public static func ak8963(_ sample: [Int32] = [0, 0, 0], asa: [UInt8] = [128, 128, 128], host: UInt16 = 0x68) -> Device {
        var registers: [Int: UInt8] = [0x00: 0x48, 0x01: 0x9A]
        for (i, v) in asa.prefix(3).enumerated() { registers[0x10 + i] = v }
        var d = Device(name: "AK8963", registers: registers)
        d.sample = sample
        d.readOnly = Set(0x00...0x09).union(Set(0x10...0x12))
        d.visibleWhen = (host, 0x37, 0x02, 0x02)
        d.dataReadyBits = [(0x02, 0x01)]
        d.onRead = { d, index in
            if (0x10...0x12).contains(index) && d.register(0x0A) & 0x0F != 0x0F { return 0 }
            if index == 0x09 { d.set(0x02, 0) }
            return nil
        }
        d.onWrite = { d, index, old, new in
            if index == 0x0A && old & 0x0F != 0 && new & 0x0F != 0 { d.set(0x0A, old) }
        }
        d.onTick = { d in
            let mode = d.register(0x0A) & 0x0F
            guard mode == 0x02 || mode == 0x06 else { return }
            for i in 0..<3 { putLE(&d, 0x03 + 2 * i, value(d, i)) }
            d.set(0x09, (d.register(0x0A) & 0x10) | (d.state["hofl"] == 1 ? 0x08 : 0))
            let st1 = d.register(0x02)
            d.set(0x02, (st1 & 0x01 != 0 ? 0x02 : 0) | 0x01)
        }
        return d
    }

    // MARK: TDK ICM-20948 + AK09916

    /// ICM-20948: four banks selected by REG_BANK_SEL 0x7F (bits 5:4); bank 0 WHO_AM_I 0x00 = 0xEA,
    /// PWR_MGMT_1 0x06 = 0x41 (asleep) at power-on, DEVICE_RESET (0x80) resets everything; while awake, each tick
    /// writes ACCEL (0x2D) and GYRO (0x33) big-endian and sets INT_STATUS_1 0x1A bit 0 if INT_ENABLE_1 0x11 bit 0.
    public static func icm20948(_ sample: [Int32] = [0, 0, 0, 0, 0, 0]) -> Device {
        var d = Device(name: "ICM-20948", registers: [0x00: 0xEA, 0x06: 0x41], banks: 4)
        d.bankSelect = (0x7F, { Int(($0 >> 4) & 0x03) })
        d.sample = sample
        d.readOnly = Set([0x00]).union(Set(0x19...0x3A))
        d.dataReadyBits = [(0x1A, 0x01)]
        d.onRead = { d, index in
            if index == 0x1A { d.set(0x1A, 0) }
            return nil
        }
        d.onWrite = { d, index, _, new in
            if index == 0x06 && new & 0x80 != 0 { d.powerOnReset() }
        }
        d.onTick = { d in
            guard d.register(0x06) & 0x40 == 0 else { return }
            for i in 0..<3 {
                putBE(&d, 0x2D + 2 * i, value(d, i))
                putBE(&d, 0x33 + 2 * i, value(d, 3 + i))
            }
            if d.register(0x11) & 0x01 != 0 { d.set(0x1A, d.register(0x1A) | 0x01) }
        }
        return d
    }

    /// AK09916 (visible while the ICM-20948's bank-0 INT_PIN_CFG 0x0F has BYPASS_EN): WIA1 0x48, WIA2 0x09;
    /// ST1 0x10; data LE at 0x11; TMPS 0x17; ST2 0x18 (HOFL 0x08), reading it clears ST1; CNTL2 0x31 with the
    /// power-down-first rule; continuous modes 2/4/6/8 measure each tick.
    public static func ak09916(_ sample: [Int32] = [0, 0, 0], host: UInt16 = 0x68) -> Device {
        var d = Device(name: "AK09916", registers: [0x00: 0x48, 0x01: 0x09])
        d.sample = sample
        d.readOnly = Set(0x00...0x18)
        d.visibleWhen = (host, 0x0F, 0x02, 0x02)
        d.dataReadyBits = [(0x10, 0x01)]
        d.onRead = { d, index in
            if index == 0x18 { d.set(0x10, 0) }
            return nil
        }
        d.onWrite = { d, index, old, new in
            if index == 0x31 && old & 0x1F != 0 && new & 0x1F != 0 { d.set(0x31, old) }
        }
        d.onTick = { d in
            guard [0x02, 0x04, 0x06, 0x08].contains(d.register(0x31) & 0x1F) else { return }
            for i in 0..<3 { putLE(&d, 0x11 + 2 * i, value(d, i)) }
            d.set(0x18, d.state["hofl"] == 1 ? 0x08 : 0)
            let st1 = d.register(0x10)
            d.set(0x10, (st1 & 0x01 != 0 ? 0x02 : 0) | 0x01)
        }
        return d
    }

    // MARK: Bosch BMM150

    /// BMM150: power control 0x4B = 0 (suspend) at power-on, and in suspend every other register reads 0;
    /// CHIP_ID 0x40 = 0x32; trim bytes at 0x5D-0x71; OP_MODE 0x4C = 0x06 (sleep), normal mode (opmode 00)
    /// measures each tick: X/Y 13-bit (<< 3), Z 15-bit (<< 1), RHALL 14-bit (<< 2) | DRDY, little-endian from
    /// 0x42; reading 0x49 (the end of the data burst) clears DRDY. `sample` = [x, y, z, rhall] ADC values.
    public static func bmm150(_ sample: [Int32] = [0, 0, 0, 6000], trim: [UInt8] = Array(repeating: 0, count: 21)) -> Device {
        var registers: [Int: UInt8] = [0x40: 0x32, 0x4C: 0x06]
        for (i, v) in trim.prefix(21).enumerated() { registers[0x5D + i] = v }
        var d = Device(name: "BMM150", registers: registers)
        d.sample = sample
        d.readOnly = Set(0x40...0x4A).union(Set(0x5D...0x71))
        d.dataReadyBits = [(0x48, 0x01)]
        d.onRead = { d, index in
            if index != 0x4B && d.register(0x4B) & 0x01 == 0 { return 0 }
            if index == 0x49 { d.set(0x48, d.register(0x48) & ~0x01) }
            return nil
        }
        d.onTick = { d in
            guard d.register(0x4B) & 0x01 != 0, (d.register(0x4C) >> 1) & 0x03 == 0 else { return }
            func put(_ index: Int, _ raw: Int32, _ shift: Int, _ low: UInt16 = 0) {
                let v = UInt16(truncatingIfNeeded: raw << shift) | low
                d.set(index, UInt8(v & 0xFF)); d.set(index + 1, UInt8(v >> 8))
            }
            put(0x42, value(d, 0), 3); put(0x44, value(d, 1), 3); put(0x46, value(d, 2), 1)
            put(0x48, value(d, 3), 2, 0x01)
        }
        return d
    }

    // MARK: MEMSIC MMC5983MA

    /// MMC5983MA: product ID 0x2F = 0x30; control registers 0x09-0x0C write-only (read 0) with self-clearing
    /// bits; SET (0x08) / RESET (0x10) in control 0 magnetize the sensor one way or the other; TM_M (0x01) clears
    /// Meas_M_Done (status 0x08 bit 0) and measures at the next tick: output = 131072 + polarity × field + offset,
    /// clamped to 18 bits, as Xout0 = [17:10], Xout1 = [9:2], XYZout2 = X[1:0] Y[1:0] Z[1:0] 0 0.
    /// SW_RST (control 1 bit 7) resets. `sample` = field in 18-bit counts; `state["offsetX/Y/Z"]` the bridge offset.
    public static func mmc5983ma(_ field: [Int32] = [0, 0, 0], offset: [Int] = [0, 0, 0]) -> Device {
        var d = Device(name: "MMC5983MA", registers: [0x2F: 0x30, 0x08: 0x10])
        d.sample = field
        d.state = ["offsetX": offset[0], "offsetY": offset[1], "offsetZ": offset[2]]
        d.readOnly = Set(0x00...0x08).union([0x2F])
        d.writeOnly = Set(0x09...0x0C)
        d.dataReadyBits = [(0x08, 0x01)]
        d.onWrite = { d, index, _, new in
            switch index {
            case 0x09:
                if new & 0x08 != 0 { d.state["polarity"] = 1 }
                if new & 0x10 != 0 { d.state["polarity"] = -1 }
                if new & 0x01 != 0 {
                    d.state["pending"] = 1
                    d.set(0x08, d.register(0x08) & ~0x01)
                }
                d.set(0x09, 0)
            case 0x0A:
                if new & 0x80 != 0 { d.powerOnReset() } else { d.set(0x0A, new) }
            default:
                break
            }
        }
        d.onTick = { d in
            guard d.state["pending"] == 1 else { return }
            d.state["pending"] = 0
            let polarity = d.state["polarity"] ?? 0
            var low: UInt8 = 0
            for (i, key) in ["offsetX", "offsetY", "offsetZ"].enumerated() {
                let out = min(max(131_072 + polarity * Int(value(d, i)) + (d.state[key] ?? 0), 0), 262_143)
                d.set(2 * i, UInt8((out >> 10) & 0xFF))
                d.set(2 * i + 1, UInt8((out >> 2) & 0xFF))
                low |= UInt8(out & 0x03) << (6 - 2 * i)
            }
            d.set(0x06, low)
            d.set(0x08, d.register(0x08) | 0x01)
        }
        return d
    }
}
