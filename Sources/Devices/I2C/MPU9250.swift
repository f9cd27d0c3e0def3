import LocationCore

/// Register map of the InvenSense MPU-9250 (Register Map RM-MPU-9250A-00 rev 1.6; product spec PS-MPU-9250A-01).
enum MPU9250Registers {
    static let addresses: [UInt16] = [0x68, 0x69]  // AD0 low/high
    static let smplrtDiv: UInt8 = 0x19            // rate = 1 kHz / (1 + div) with the DLPF on
    static let config: UInt8 = 0x1A               // DLPF_CFG (2:0)
    static let gyroConfig: UInt8 = 0x1B           // GYRO_FS_SEL (4:3), FCHOICE_B (1:0)
    static let accelConfig: UInt8 = 0x1C          // ACCEL_FS_SEL (4:3)
    static let accelConfig2: UInt8 = 0x1D         // ACCEL_FCHOICE_B (3), A_DLPFCFG (2:0)
    static let intPinCfg: UInt8 = 0x37            // BYPASS_EN (1): the auxiliary bus (AK8963) joins the main bus
    static let intEnable: UInt8 = 0x38            // RAW_RDY_EN (0)
    static let intStatus: UInt8 = 0x3A            // RAW_DATA_RDY_INT (0), cleared by reading INT_STATUS
    static let accelXOutH: UInt8 = 0x3B           // ACCEL X/Y/Z, TEMP, GYRO X/Y/Z: 14 bytes, big-endian
    static let userCtrl: UInt8 = 0x6A             // I2C_MST_EN (5) must be 0 for bypass
    static let pwrMgmt1: UInt8 = 0x6B             // H_RESET (7), SLEEP (6), CLKSEL (2:0)
    static let pwrMgmt2: UInt8 = 0x6C             // per-axis standby
    static let whoAmI: UInt8 = 0x75
    /// 0x71 MPU-9250; 0x73 MPU-9255 (same AK8963). 0x70 is the MPU-6500 (no magnetometer), 0x68 the MPU-6050/9150.
    static let whoAmIValues: Set<UInt8> = [0x71, 0x73]
    static let reset: UInt8 = 0x80
    static let clockAuto: UInt8 = 0x01            // CLKSEL = 1: PLL when ready
    static let dlpf41Hz: UInt8 = 0x03
    static let divider100Hz: UInt8 = 0x09
    static let bypass: UInt8 = 0x02
    static let rawReady: UInt8 = 0x01
    /// ±2 g: 16384 LSB/g; ±250 °/s: 131 LSB/(°/s) (PS-MPU-9250A-01 Tables 1 and 2).
    static let countsPerG = 16384.0
    static let countsPerDegreePerSecond = 131.0
}

/// Register map of the AKM AK8963 inside the MPU-9250 (AK8963 datasheet MS1356-E-02, section 8 "Registers").
enum AK8963Registers {
    static let address: UInt16 = 0x0C             // on the auxiliary bus, visible at 0x0C with BYPASS_EN
    static let wia: UInt8 = 0x00                  // device ID 0x48
    static let wiaValue: UInt8 = 0x48
    static let st1: UInt8 = 0x02                  // DOR (1), DRDY (0)
    static let hxl: UInt8 = 0x03                  // HXL … HZH (little-endian), then ST2 at 0x09
    static let st2: UInt8 = 0x09                  // BITM (4), HOFL (3); reading it ends the data read ("release")
    static let cntl1: UInt8 = 0x0A                // BIT (4): 1 = 16-bit; MODE (3:0)
    static let asax: UInt8 = 0x10                 // ASAX, ASAY, ASAZ: fuse ROM, readable in fuse ROM access mode only
    static let powerDown: UInt8 = 0x00
    static let fuseROMAccess: UInt8 = 0x0F
    /// 16-bit output, continuous measurement mode 2 (100 Hz).
    static let continuous100Hz16Bit: UInt8 = 0x16
    static let dataReady: UInt8 = 0x01
    static let dataOverrun: UInt8 = 0x02
    static let overflow: UInt8 = 0x08
    /// Section 6.3 "Operation mode": "When user wants to change operation mode, transit to power-down mode first and then transit to
    /// other modes. After power-down mode is set, at least 100 µs (Twat) is needed before setting another mode."
    static let modeChangeNanos: Int64 = 100_000
    /// 16-bit output: 0.15 µT/LSB ("Magnetic sensor specifications": measurement data output resolution).
    static let microteslaPerCount = 0.15
}

/// The AK8963 as seen through bypass; shared by `MPU9250` (the AK09916 of the ICM-20948 is a different map).
struct AK8963 {
    let bus: any I2CBus
    /// Fuse-ROM sensitivity adjustment values ASAX/Y/Z (0…255).
    var asa: [UInt8] = [128, 128, 128]

    /// Datasheet 8.3.11 "ASAX, ASAY, ASAZ": Hadj = H × ((ASA − 128) × 0.5 / 128 + 1) = H × (ASA + 128) / 256. The counts are
    /// multiplied by (ASA + 128) exactly and the scale divided by 256, so value = counts × scale is the adjusted
    /// field with no rounding (ASA = 0xB0 → factor 304/256 = 1.1875).
    static let scale = AK8963Registers.microteslaPerCount / 256

    var factors: (Int32, Int32, Int32) { (Int32(asa[0]) + 128, Int32(asa[1]) + 128, Int32(asa[2]) + 128) }

    /// Checks WIA, reads the fuse ROM and starts 16-bit continuous mode 2 (section 6.3 "Operation mode":
    /// power-down, fuse ROM access, power-down, measurement mode, with Twat between mode changes).
    mutating func configure() throws(I2CError) {
        typealias R = AK8963Registers
        let wia = try bus.readRegister(address: R.address, register: R.wia)
        guard wia == R.wiaValue else {
            throw .unexpectedDevice(address: R.address, detail: "AK8963 WIA reads \(hexAddress(UInt16(wia))), expected 0x48")
        }
        try bus.writeRegister(address: R.address, register: R.cntl1, value: R.powerDown)
        bus.wait(nanoseconds: R.modeChangeNanos)
        try bus.writeRegister(address: R.address, register: R.cntl1, value: R.fuseROMAccess)
        asa = try bus.readBlock(address: R.address, register: R.asax, count: 3)
        try bus.writeRegister(address: R.address, register: R.cntl1, value: R.powerDown)
        bus.wait(nanoseconds: R.modeChangeNanos)
        try bus.writeRegister(address: R.address, register: R.cntl1, value: R.continuous100Hz16Bit)
    }

    /// ST1; if DRDY, the data and ST2 in one burst (reading ST2 releases the data registers for the next sample).
    func read(_ counters: inout DriverCounters) throws(I2CError) -> MotionSample? {
        typealias R = AK8963Registers
        let st1 = try bus.readRegister(address: R.address, register: R.st1)
        guard st1 & R.dataReady != 0 else { return nil }
        if st1 & R.dataOverrun != 0 { counters.overruns += 1 }
        let b = try bus.readBlock(address: R.address, register: R.hxl, count: 7)
        if b[6] & R.overflow != 0 {
            counters.overflows += 1
            return nil
        }
        let f = factors
        return .magnetometer(Int32(b.int16LE(0)) * f.0, Int32(b.int16LE(2)) * f.1, Int32(b.int16LE(4)) * f.2, scale: Self.scale)
    }
}

/// InvenSense MPU-9250 (or MPU-9255) accelerometer + gyroscope at 0x68/0x69 with its AK8963 magnetometer
/// reached through bypass mode at 0x0C.
///
/// Init: reset, clock, all axes on, DLPF 41 Hz, 100 Hz sample rate, ±250 °/s, ±2 g, I2C master off, bypass on,
/// raw-data-ready interrupt enabled; then the AK8963 (ID check, fuse ROM → `asa`, 16-bit 100 Hz continuous).
/// The AK8963's axes differ from the accelerometer's (x↔y swapped, z inverted: PS-MPU-9250A-01 section 9.1);
/// samples are left in each die's own frame.
/// Read: INT_STATUS RAW_DATA_RDY → 14 bytes of accel/temp/gyro; AK8963 ST1 DRDY → data + ST2; HOFL → skipped and
/// counted; DOR → overrun counted. Nothing new → [].
public final class MPU9250: MotionSensorDriver {
    public let address: UInt16
    private let bus: any I2CBus
    private var magnetometer: AK8963
    public private(set) var counters = DriverCounters()
    public var chip: I2CChip { .mpu9250 }
    public var chipName: String { "MPU-9250 + AK8963" }
    public var roles: [SensorRole] { [.accelerometer, .gyroscope, .magnetometer] }
    public var sampleRateHz: Double { 100 }
    public static let accelerometerScale = Units.standardGravity / MPU9250Registers.countsPerG
    public static let gyroscopeScale = Units.radiansPerDegree / MPU9250Registers.countsPerDegreePerSecond
    /// µT per magnetometer count (counts already carry the ASA factor: see `AK8963.scale`).
    public static let magnetometerScale = AK8963.scale
    /// The AK8963 fuse-ROM sensitivity adjustment read by `configure()`.
    public var sensitivityAdjustment: [UInt8] { magnetometer.asa }

    public init(bus: any I2CBus, address: UInt16) {
        self.bus = bus; self.address = address
        magnetometer = AK8963(bus: bus)
    }

    public static func probe(bus: any I2CBus, address: UInt16) -> Bool {
        bus.peek(address, MPU9250Registers.whoAmI).map(MPU9250Registers.whoAmIValues.contains) ?? false
    }

    public func configure() throws(I2CError) {
        typealias R = MPU9250Registers
        try bus.writeRegister(address: address, register: R.pwrMgmt1, value: R.reset)
        bus.wait(nanoseconds: 100_000_000)        // start-up after reset (PS-MPU-9250A-01 Table 1: gyro start-up 35 ms)
        for (register, value) in [(R.pwrMgmt1, R.clockAuto), (R.pwrMgmt2, 0x00), (R.config, R.dlpf41Hz),
                                  (R.smplrtDiv, R.divider100Hz), (R.gyroConfig, 0x00), (R.accelConfig, 0x00),
                                  (R.accelConfig2, R.dlpf41Hz), (R.userCtrl, 0x00), (R.intPinCfg, R.bypass),
                                  (R.intEnable, R.rawReady)] {
            try bus.writeRegister(address: address, register: register, value: value)
        }
        try magnetometer.configure()
    }

    public func read() throws(I2CError) -> [MotionSample] {
        var samples: [MotionSample] = []
        let status = try bus.readRegister(address: address, register: MPU9250Registers.intStatus)
        if status & MPU9250Registers.rawReady != 0 {
            let b = try bus.readBlock(address: address, register: MPU9250Registers.accelXOutH, count: 14)
            samples.append(.accelerometer(Int32(b.int16BE(0)), Int32(b.int16BE(2)), Int32(b.int16BE(4)),
                                          scale: Self.accelerometerScale))
            samples.append(.gyroscope(Int32(b.int16BE(8)), Int32(b.int16BE(10)), Int32(b.int16BE(12)),
                                      scale: Self.gyroscopeScale))
        }
        if let m = try magnetometer.read(&counters) { samples.append(m) }
        if samples.isEmpty { counters.notReady += 1 }
        counters.samples += samples.count
        return samples
    }
}
