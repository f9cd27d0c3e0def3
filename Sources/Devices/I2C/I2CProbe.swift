/// A chip found on a bus.
public struct DetectedSensor: Sendable, Hashable, CustomStringConvertible {
    public var address: UInt16
    public var chip: I2CChip
    /// Why the identification is not certain, when it is not (shared WHO_AM_I values).
    public var note: String?
    public var roles: [SensorRole] { chip.roles }

    public init(address: UInt16, chip: I2CChip, note: String? = nil) {
        self.address = address; self.chip = chip; self.note = note
    }

    /// `0x1e  LIS3MDL  magnetometer` (and the note, if any).
    public var description: String {
        "\(hexAddress(address))  \(chip.rawValue)  \(roles.map(\.rawValue).joined(separator: "+"))" + (note.map { "  (\($0))" } ?? "")
    }
}

/// Finds known chips on a bus by their ID registers (backs `lodestar devices --i2c N`).
///
/// Every address is only read, except two documented cases: a BMM150 candidate at 0x10…0x13 whose CHIP_ID and
/// power register both read 0 gets its power bit set (CHIP_ID is unreadable in suspend mode), and a 0x68/0x69
/// device whose 0x7F looks like an ICM-20948 bank selection gets bank 0 selected.
///
/// Chips with shared ID values are told apart by their neighbours:
/// - 0x1E 'H','4','3': HMC5883L when 0x0F reads 0, LSM303DLHC magnetometer when it reads 0x3C.
/// - WHO_AM_I 0x3D at 0x1C/0x1E: LSM9DS1 magnetometer when an LSM9DS1 accel/gyro (0x68 at 0x6A/0x6B) is
///   present, else LIS3MDL.
/// - 0x4F = 0x40 at 0x1E: LSM303AGR magnetometer when an accelerometer with WHO_AM_I 0x33 is at 0x19, else LIS2MDL.
/// - WHO_AM_I 0x33 at 0x19: LSM303DLHC accelerometer next to a DLHC magnetometer, else LSM303AGR (also the
///   LIS3DH's and LIS2DH12's value, per Linux st_accel: noted when no LSM303 magnetometer is present).
/// - 0x68/0x69: MPU-9250/9255 by 0x75 (0x71/0x73) first, then ICM-20948 by 0x00 (0xEA); the MPU's 0x00 is a
///   factory self-test value that may read anything.
public enum I2CProbe {
    /// Addresses probed, in order.
    public static let addresses: [UInt16] = [0x0D, 0x10, 0x11, 0x12, 0x13, 0x19, 0x1C, 0x1E, 0x30, 0x68, 0x69, 0x6A, 0x6B]

    /// Every known chip on the bus, by address.
    public static func probeBus(_ bus: any I2CBus) -> [DetectedSensor] {
        probe(bus, addresses: addresses)
    }

    /// The chip at one address (probing the neighbours it is told apart by), or nil.
    public static func identify(_ bus: any I2CBus, address: UInt16) -> DetectedSensor? {
        let neighbours: [UInt16] = [0x19, 0x1E, 0x6A, 0x6B]
        return probe(bus, addresses: addresses.filter { $0 == address || neighbours.contains($0) })
            .first { $0.address == address }
    }

    static func probe(_ bus: any I2CBus, addresses: [UInt16]) -> [DetectedSensor] {
        var found: [DetectedSensor] = []
        for address in addresses {
            if let chip = candidate(bus, address) { found.append(DetectedSensor(address: address, chip: chip)) }
        }
        let hasLSM9DS1AccelGyro = found.contains { $0.chip == .lsm9ds1AccelGyro }
        let hasDLHCMagnetometer = found.contains { $0.chip == .lsm303dlhcMagnetometer }
        let hasAccel33 = found.contains { $0.chip == .lsm303agrAccelerometer }
        let hasAGRMagnetometer = found.contains { $0.chip == .lis2mdl }
        for i in found.indices {
            switch found[i].chip {
            case .lis3mdl where hasLSM9DS1AccelGyro:
                found[i].chip = .lsm9ds1Magnetometer
            case .lis2mdl where hasAccel33:
                found[i].chip = .lsm303agrMagnetometer
            case .lsm303agrAccelerometer where hasDLHCMagnetometer:
                found[i].chip = .lsm303dlhcAccelerometer
            case .lsm303agrAccelerometer where !hasAGRMagnetometer:
                found[i].note = "WHO_AM_I 0x33 is shared by LSM303AGR, LSM303DLHC, LIS3DH and LIS2DH12; scale assumes LSM303AGR"
            default:
                break
            }
        }
        return found
    }

    /// The first family whose ID check passes at `address` (before neighbour disambiguation).
    static func candidate(_ bus: any I2CBus, _ address: UInt16) -> I2CChip? {
        let order: [I2CChip]
        switch address {
        case 0x0D: order = [.qmc5883l]
        case 0x10...0x13: order = [.bmm150]
        case 0x19: order = [.lsm303agrAccelerometer]
        case 0x1C: order = [.lis3mdl]
        case 0x1E: order = [.lis3mdl, .lis2mdl, .lsm303dlhcMagnetometer, .hmc5883l]
        case 0x30: order = [.mmc5983ma]
        case 0x68, 0x69: order = [.mpu9250, .icm20948]
        case 0x6A, 0x6B: order = [.lsm9ds1AccelGyro]
        default: order = I2CChip.allCases.filter { $0.addresses.contains(address) }
        }
        return order.first { $0.probe(bus: bus, address: address) }
    }
}

/// Every known chip on the bus (see `I2CProbe`).
public func probeBus(_ bus: any I2CBus) -> [DetectedSensor] { I2CProbe.probeBus(bus) }
