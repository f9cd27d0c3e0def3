import LocationCore

/// Register map of the Honeywell HMC5883L (datasheet "3-Axis Digital Compass IC HMC5883L", Rev. E, 2013).
enum HMC5883LRegisters {
    static let address: UInt16 = 0x1E            // fixed (datasheet "I2C Interface": 0x3C write / 0x3D read)
    static let configA: UInt8 = 0x00             // "Configuration Register A": MA1-0 averaging (6:5), DO2-0 rate (4:2), MS1-0 bias
    static let configB: UInt8 = 0x01             // "Configuration Register B": GN2-0 gain (7:5)
    static let mode: UInt8 = 0x02                // "Mode Register": MD1-0: 00 continuous, 01 single (default), 1x idle
    static let dataXMSB: UInt8 = 0x03            // "Register List": X MSB, X LSB, Z MSB, Z LSB, Y MSB, Y LSB (X, Z, Y order!)
    static let status: UInt8 = 0x09             // "Status Register": LOCK (1), RDY (0)
    static let identificationA: UInt8 = 0x0A     // "Identification Register A/B/C": 'H', '4', '3'
    static let identification: [UInt8] = [0x48, 0x34, 0x33]
    static let ready: UInt8 = 0x01
    /// 8 samples averaged, 15 Hz, normal measurement (the datasheet's operational examples use 0x70).
    static let configAValue: UInt8 = 0x70
    /// Gain 1: ±1.3 Ga, 1090 LSB/Ga ("Gain Settings" table). The datasheet example uses 0xA0 (gain 5, 390 LSB/Ga); ±1.3 Ga
    /// covers the Earth's field (≤ 0.65 Ga) with 2.8× the resolution.
    static let configBValue: UInt8 = 0x20
    static let countsPerGauss = 1090.0
    static let singleMeasurement: UInt8 = 0x01
    /// "In the event the ADC reading overflows or underflows for the given channel, or if there is a math
    /// overflow during the bias measurement, this data register will contain the value -4096" (Data Output X).
    static let overflow: Int16 = -4096
    /// ID at 0x0F: the HMC5883L has no register there and "any attempt to read an invalid address location
    /// returns 0's" (datasheet "Register Access"); the LSM303DLHC/DLM magnetometer answers 0x3C (Linux st_magn).
    static let whoAmIRegister: UInt8 = 0x0F
}

/// The measuring logic shared by the HMC5883L and the LSM303DLHC magnetometer (an HMC-derived design with the
/// same 'H43' identification, register layout and X, Z, Y data order).
///
/// Both run in single-measurement mode: each read that finds RDY set takes the data and triggers the next
/// measurement. In continuous mode RDY only clears when the chip starts writing the next sample ("Cleared when
/// device initiates a write to the data output registers", "Status Register"), so a poller would see each sample several
/// times; single mode makes RDY mean "a new sample" (the datasheet's single-measurement example; ArduPilot's
/// AP_Compass_HMC5843 does the same).
struct H43SingleShot {
    let bus: any I2CBus
    let address: UInt16
    /// configA, configB, mode, in this order.
    let initSequence: [(register: UInt8, value: UInt8)]
    var counters = DriverCounters()
    /// "The new gain setting is effective from the second measurement and on" (HMC5883L, "Configuration Register B"): the first
    /// measurement after configure is dropped.
    var discardNext = true

    mutating func configure() throws(I2CError) {
        for (register, value) in initSequence {
            try bus.writeRegister(address: address, register: register, value: value)
        }
        discardNext = true
    }

    /// The next raw (x, y, z) in register counts, or nil (not ready, discarded or overflow).
    mutating func read() throws(I2CError) -> (x: Int16, y: Int16, z: Int16)? {
        let status = try bus.readRegister(address: address, register: HMC5883LRegisters.status)
        guard status & HMC5883LRegisters.ready != 0 else {
            counters.notReady += 1
            return nil
        }
        let b = try bus.readBlock(address: address, register: HMC5883LRegisters.dataXMSB, count: 6)
        try bus.writeRegister(address: address, register: HMC5883LRegisters.mode,
                              value: HMC5883LRegisters.singleMeasurement)
        let x = b.int16BE(0), z = b.int16BE(2), y = b.int16BE(4)
        if discardNext {
            discardNext = false
            return nil
        }
        if x == HMC5883LRegisters.overflow || y == HMC5883LRegisters.overflow || z == HMC5883LRegisters.overflow {
            counters.overflows += 1
            return nil
        }
        return (x, y, z)
    }

    static func hasH43(_ bus: any I2CBus, _ address: UInt16) -> Bool {
        (try? bus.readBlock(address: address, register: HMC5883LRegisters.identificationA, count: 3))
            == HMC5883LRegisters.identification
    }
}

/// Honeywell HMC5883L magnetometer at 0x1E: 1090 LSB/G at ±1.3 G, data in X, Z, Y order, −4096 on overflow.
///
/// Probe: identification registers 'H','4','3' and 0 at 0x0F. The LSM303DLHC magnetometer also answers 'H43'
/// but reads 0x3C at 0x0F; the QMC5883L (0x0D) and LIS3MDL/LIS2MDL (0x0F/0x4F WHO_AM_I) do not answer 'H43'.
/// The obsolete LSM303DLH magnetometer (0 at 0x0F, X, Y, Z order) cannot be told apart and would be taken for an
/// HMC5883L.
public final class HMC5883L: MotionSensorDriver {
    public let address: UInt16
    public var chip: I2CChip { .hmc5883l }
    public var chipName: String { "HMC5883L" }
    public var roles: [SensorRole] { [.magnetometer] }
    /// Poll-driven single measurements; 50 Hz leaves margin over the 6 ms measurement with 8× averaging.
    public var sampleRateHz: Double { 50 }
    public var counters: DriverCounters { core.counters }
    private var core: H43SingleShot
    /// µT per count.
    public static let scale = Units.microteslaPerGauss / HMC5883LRegisters.countsPerGauss

    public init(bus: any I2CBus, address: UInt16 = 0x1E) {
        self.address = address
        core = H43SingleShot(bus: bus, address: address, initSequence: [
            (HMC5883LRegisters.configA, HMC5883LRegisters.configAValue),
            (HMC5883LRegisters.configB, HMC5883LRegisters.configBValue),
            (HMC5883LRegisters.mode, HMC5883LRegisters.singleMeasurement),
        ])
    }

    public static func probe(bus: any I2CBus, address: UInt16) -> Bool {
        H43SingleShot.hasH43(bus, address) && bus.peek(address, HMC5883LRegisters.whoAmIRegister) == 0x00
    }

    public func configure() throws(I2CError) { try core.configure() }

    public func read() throws(I2CError) -> [MotionSample] {
        guard let v = try core.read() else { return [] }
        core.counters.samples += 1
        return [.magnetometer(Int32(v.x), Int32(v.y), Int32(v.z), scale: Self.scale)]
    }
}
