import LocationCore

/// Register map of the TDK InvenSense ICM-20948 (datasheet DS-000189 rev 1.3, sections 7 "Register map" and
/// 8-11 "Register descriptions" for user banks 0-3).
enum ICM20948Registers {
    static let addresses: [UInt16] = [0x68, 0x69]  // AD0 low/high
    static let regBankSel: UInt8 = 0x7F           // in every bank; USER_BANK (5:4)
    static let bank0: UInt8 = 0x00
    static let bank2: UInt8 = 0x20
    // Bank 0
    static let whoAmI: UInt8 = 0x00               // 0xEA
    static let whoAmIValue: UInt8 = 0xEA
    static let userCtrl: UInt8 = 0x03             // I2C_MST_EN (5) must be 0 for bypass
    static let pwrMgmt1: UInt8 = 0x06             // DEVICE_RESET (7), SLEEP (6, set after reset), CLKSEL (2:0)
    static let pwrMgmt2: UInt8 = 0x07             // DISABLE_ACCEL (5:3), DISABLE_GYRO (2:0)
    static let intPinCfg: UInt8 = 0x0F            // BYPASS_EN (1)
    static let intEnable1: UInt8 = 0x11           // RAW_DATA_0_RDY_EN (0)
    static let intStatus1: UInt8 = 0x1A           // RAW_DATA_0_RDY_INT (0), cleared on read
    static let accelXOutH: UInt8 = 0x2D           // ACCEL X/Y/Z then GYRO X/Y/Z (0x33): 12 bytes, big-endian
    // Bank 2
    static let gyroSmplrtDiv: UInt8 = 0x00        // ODR = 1125 / (1 + div) Hz
    static let gyroConfig1: UInt8 = 0x01          // GYRO_DLPFCFG (5:3), GYRO_FS_SEL (2:1), GYRO_FCHOICE (0)
    static let accelSmplrtDiv1: UInt8 = 0x10      // bits 11:8 of the divider
    static let accelSmplrtDiv2: UInt8 = 0x11      // bits 7:0; ODR = 1125 / (1 + div) Hz
    static let accelConfig: UInt8 = 0x14          // ACCEL_DLPFCFG (5:3), ACCEL_FS_SEL (2:1), ACCEL_FCHOICE (0)
    static let reset: UInt8 = 0x80
    static let clockAuto: UInt8 = 0x01            // wake (SLEEP = 0), CLKSEL = 1
    static let divider: UInt8 = 10                // 1125 / 11 = 102.3 Hz
    /// DLPFCFG = 3 (about 51 Hz), FS = 00 (±250 dps / ±2 g), FCHOICE = 1 (DLPF in use).
    static let filterConfig: UInt8 = 0x19
    static let bypass: UInt8 = 0x02
    static let rawReady: UInt8 = 0x01
    /// Tables 1 and 2: ±250 dps 131 LSB/(dps); ±2 g 16384 LSB/g.
    static let countsPerG = 16384.0
    static let countsPerDegreePerSecond = 131.0
}

/// Register map of the AKM AK09916 inside the ICM-20948 (ICM-20948 datasheet, "Register map for magnetometer").
enum AK09916Registers {
    static let address: UInt16 = 0x0C
    static let wia2: UInt8 = 0x01                 // device ID 0x09 (WIA1 0x00 is the company ID 0x48)
    static let wia2Value: UInt8 = 0x09
    static let st1: UInt8 = 0x10                  // DOR (1), DRDY (0)
    static let hxl: UInt8 = 0x11                  // HXL … HZH (little-endian), TMPS 0x17 (dummy), ST2 0x18
    static let cntl2: UInt8 = 0x31                // MODE (4:0): 0 power-down, 1 single, 2/4/6/8 continuous 10/20/50/100 Hz
    static let powerDown: UInt8 = 0x00
    static let continuous100Hz: UInt8 = 0x08
    static let dataReady: UInt8 = 0x01
    static let dataOverrun: UInt8 = 0x02
    static let overflow: UInt8 = 0x08             // ST2 HOFL
    static let modeChangeNanos: Int64 = 100_000   // as the AK8963: power-down ≥ 100 µs before another mode
    /// 0.15 µT/LSB (ICM-20948 Table 3 "Magnetometer specifications": sensitivity scale factor).
    static let microteslaPerCount = 0.15
}

/// TDK ICM-20948 accelerometer + gyroscope at 0x68/0x69 with its AK09916 magnetometer through bypass at 0x0C.
///
/// Init: bank 0 reset, wake with auto clock, all axes on; bank 2: 102.3 Hz, ±250 dps, ±2 g with DLPF; back to
/// bank 0: I2C master off, bypass on, raw-data-ready enabled; then the AK09916 (WIA2 check, power-down, 100 Hz
/// continuous). The AK09916 is 16-bit only and has no fuse-ROM adjustment.
/// Read (bank 0, where the driver always leaves the chip): INT_STATUS_1 → 12 bytes accel/gyro; AK09916 ST1 DRDY →
/// 8 bytes HXL…ST2 (ST2 must be read to end the measurement read); HOFL → skipped and counted.
public final class ICM20948: MotionSensorDriver {
    public let address: UInt16
    private let bus: any I2CBus
    public private(set) var counters = DriverCounters()
    public var chip: I2CChip { .icm20948 }
    public var chipName: String { "ICM-20948 + AK09916" }
    public var roles: [SensorRole] { [.accelerometer, .gyroscope, .magnetometer] }
    public var sampleRateHz: Double { 1125.0 / (1 + Double(ICM20948Registers.divider)) }
    public static let accelerometerScale = Units.standardGravity / ICM20948Registers.countsPerG
    public static let gyroscopeScale = Units.radiansPerDegree / ICM20948Registers.countsPerDegreePerSecond
    public static let magnetometerScale = AK09916Registers.microteslaPerCount

    public init(bus: any I2CBus, address: UInt16) {
        self.bus = bus; self.address = address
    }

    /// WHO_AM_I in bank 0. If the chip was left in another bank (a previous program), REG_BANK_SEL reads
    /// 0x10/0x20/0x30: then bank 0 is selected and WHO_AM_I read again. Registers 0x00/0x7F of other chips at
    /// 0x68/0x69 are only written when 0x7F already holds such a bank value.
    public static func probe(bus: any I2CBus, address: UInt16) -> Bool {
        typealias R = ICM20948Registers
        if bus.peek(address, R.whoAmI) == R.whoAmIValue { return true }
        guard let bank = bus.peek(address, R.regBankSel), bank & 0xCF == 0, bank != 0 else { return false }
        guard (try? bus.writeRegister(address: address, register: R.regBankSel, value: R.bank0)) != nil else { return false }
        return bus.peek(address, R.whoAmI) == R.whoAmIValue
    }

    public func configure() throws(I2CError) {
        typealias R = ICM20948Registers
        typealias M = AK09916Registers
        try write(R.regBankSel, R.bank0)
        try write(R.pwrMgmt1, R.reset)
        bus.wait(nanoseconds: 100_000_000)        // start-up time after reset (Table 1: gyroscope start-up 35 ms)
        try write(R.pwrMgmt1, R.clockAuto)
        try write(R.pwrMgmt2, 0x00)
        try write(R.regBankSel, R.bank2)
        try write(R.gyroSmplrtDiv, R.divider)
        try write(R.gyroConfig1, R.filterConfig)
        try write(R.accelSmplrtDiv1, 0x00)
        try write(R.accelSmplrtDiv2, R.divider)
        try write(R.accelConfig, R.filterConfig)
        try write(R.regBankSel, R.bank0)
        try write(R.userCtrl, 0x00)
        try write(R.intPinCfg, R.bypass)
        try write(R.intEnable1, R.rawReady)

        let wia2 = try bus.readRegister(address: M.address, register: M.wia2)
        guard wia2 == M.wia2Value else {
            throw .unexpectedDevice(address: M.address, detail: "AK09916 WIA2 reads \(hexAddress(UInt16(wia2))), expected 0x09")
        }
        try bus.writeRegister(address: M.address, register: M.cntl2, value: M.powerDown)
        bus.wait(nanoseconds: M.modeChangeNanos)
        try bus.writeRegister(address: M.address, register: M.cntl2, value: M.continuous100Hz)
    }

    private func write(_ register: UInt8, _ value: UInt8) throws(I2CError) {
        try bus.writeRegister(address: address, register: register, value: value)
    }

    public func read() throws(I2CError) -> [MotionSample] {
        typealias R = ICM20948Registers
        typealias M = AK09916Registers
        var samples: [MotionSample] = []
        let status = try bus.readRegister(address: address, register: R.intStatus1)
        if status & R.rawReady != 0 {
            let b = try bus.readBlock(address: address, register: R.accelXOutH, count: 12)
            samples.append(.accelerometer(Int32(b.int16BE(0)), Int32(b.int16BE(2)), Int32(b.int16BE(4)),
                                          scale: Self.accelerometerScale))
            samples.append(.gyroscope(Int32(b.int16BE(6)), Int32(b.int16BE(8)), Int32(b.int16BE(10)), scale: Self.gyroscopeScale))
        }
        let st1 = try bus.readRegister(address: M.address, register: M.st1)
        if st1 & M.dataReady != 0 {
            if st1 & M.dataOverrun != 0 { counters.overruns += 1 }
            let m = try bus.readBlock(address: M.address, register: M.hxl, count: 8)
            if m[7] & M.overflow != 0 {
                counters.overflows += 1
            } else {
                samples.append(.magnetometer(Int32(m.int16LE(0)), Int32(m.int16LE(2)), Int32(m.int16LE(4)),
                                             scale: Self.magnetometerScale))
            }
        }
        if samples.isEmpty { counters.notReady += 1 }
        counters.samples += samples.count
        return samples
    }
}
