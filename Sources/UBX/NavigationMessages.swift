/// UBX-NAV position and velocity solutions, decoded little-endian and scaled to SI units.

/// GNSS fix type as NAV-PVT, NAV-SOL, NAV-STATUS and HNR-PVT report it.
public enum UBXFixType: UInt8, Sendable, Hashable {
    case noFix = 0, deadReckoningOnly = 1, twoD = 2, threeD = 3, gnssDeadReckoning = 4, timeOnly = 5
}

/// UBX-NAV-PVT (0x01 0x07): navigation position, velocity and time. 92 bytes (protocol 14+: 84 bytes, without
/// headVeh/magDec/magAcc). Longer payloads are taken, their extra bytes ignored, as gpsd does and as u-blox asks of
/// parsers (a later protocol may append fields); so for every fixed-layout message here.
public struct NavPVT: Sendable, Hashable {
    public var iTOWMilliseconds: UInt32
    public var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
    public var validDate: Bool, validTime: Bool, fullyResolved: Bool
    public var timeAccuracySeconds: Double
    /// Fraction of the second, −1e9 … 1e9 ns (added to the UTC fields).
    public var nanosecond: Int
    public var fixType: UBXFixType?
    public var gnssFixOK: Bool
    public var differentialSolution: Bool
    /// 0 none, 1 float, 2 fixed.
    public var carrierSolution: Int
    public var headVehicleValid: Bool
    public var satellitesUsed: Int
    public var longitudeDegrees: Double, latitudeDegrees: Double
    public var heightMeters: Double, heightMSLMeters: Double
    public var horizontalAccuracyMeters: Double, verticalAccuracyMeters: Double
    public var velocityNorthMetersPerSecond: Double, velocityEastMetersPerSecond: Double, velocityDownMetersPerSecond: Double
    public var groundSpeedMetersPerSecond: Double
    public var headingOfMotionDegrees: Double
    public var speedAccuracyMetersPerSecond: Double
    public var headingAccuracyDegrees: Double
    /// Nil from NAV-PVAT, which has no DOP.
    public var pdop: Double?
    /// flags3 invalidLlh: longitude, latitude and heights are not valid.
    public var invalidLLH: Bool
    /// Vehicle heading and magnetic declination (92-byte version only).
    public var headingOfVehicleDegrees: Double?
    public var magneticDeclinationDegrees: Double?

    public init?(payload: UnsafeBufferPointer<UInt8>) {
        guard payload.count >= 84 else { return nil }
        let p = LittleEndian(payload)
        iTOWMilliseconds = p.u4(0)
        year = Int(p.u2(4)); month = Int(p.u1(6)); day = Int(p.u1(7))
        hour = Int(p.u1(8)); minute = Int(p.u1(9)); second = Int(p.u1(10))
        let valid = p.u1(11)
        validDate = valid & 1 != 0; validTime = valid & 2 != 0; fullyResolved = valid & 4 != 0
        timeAccuracySeconds = Double(p.u4(12)) * 1e-9
        nanosecond = Int(p.i4(16))
        fixType = UBXFixType(rawValue: p.u1(20))
        let flags = p.u1(21)
        gnssFixOK = flags & 1 != 0
        differentialSolution = flags & 2 != 0
        headVehicleValid = flags & 0x20 != 0
        carrierSolution = Int(flags >> 6)
        satellitesUsed = Int(p.u1(23))
        longitudeDegrees = Double(p.i4(24)) * 1e-7
        latitudeDegrees = Double(p.i4(28)) * 1e-7
        heightMeters = Double(p.i4(32)) * 1e-3
        heightMSLMeters = Double(p.i4(36)) * 1e-3
        horizontalAccuracyMeters = Double(p.u4(40)) * 1e-3
        verticalAccuracyMeters = Double(p.u4(44)) * 1e-3
        velocityNorthMetersPerSecond = Double(p.i4(48)) * 1e-3
        velocityEastMetersPerSecond = Double(p.i4(52)) * 1e-3
        velocityDownMetersPerSecond = Double(p.i4(56)) * 1e-3
        groundSpeedMetersPerSecond = Double(p.i4(60)) * 1e-3
        headingOfMotionDegrees = Double(p.i4(64)) * 1e-5
        speedAccuracyMetersPerSecond = Double(p.u4(68)) * 1e-3
        headingAccuracyDegrees = Double(p.u4(72)) * 1e-5
        pdop = Double(p.u2(76)) * 0.01
        invalidLLH = p.u1(78) & 1 != 0
        if payload.count >= 92 {
            headingOfVehicleDegrees = Double(p.i4(84)) * 1e-5
            magneticDeclinationDegrees = Double(p.i2(88)) * 1e-2
        }
    }
}

extension NavPVT {
    /// UBX-NAV-PVAT (0x01 0x17; ADR/HPS/LAP 9-series firmware, protocol 30+): NAV-PVT plus the vehicle's attitude,
    /// version 0, 116 bytes, read into the NAV-PVT it extends (as gpsd's `ubx_msg_nav_pvat` reads it). It differs from
    /// NAV-PVT in its layout and in three fields: no pDOP (nil); no accuracy of the heading of motion, so the vehicle
    /// heading's (`accHeading`, 1e-2°) stands for it when `vehHeadingValid`, else 180°; and no `invalidLlh` flag.
    public init?(attitudePayload payload: UnsafeBufferPointer<UInt8>) {
        guard payload.count >= 116 else { return nil }   // longer: fields a later protocol appends, ignored
        let p = LittleEndian(payload)
        guard p.u1(4) == 0 else { return nil }
        iTOWMilliseconds = p.u4(0)
        let valid = p.u1(5)
        validDate = valid & 1 != 0; validTime = valid & 2 != 0; fullyResolved = valid & 4 != 0
        year = Int(p.u2(6)); month = Int(p.u1(8)); day = Int(p.u1(9))
        hour = Int(p.u1(10)); minute = Int(p.u1(11)); second = Int(p.u1(12))
        timeAccuracySeconds = Double(p.u4(16)) * 1e-9
        nanosecond = Int(p.i4(20))
        fixType = UBXFixType(rawValue: p.u1(24))
        let flags = p.u1(25)
        gnssFixOK = flags & 1 != 0
        differentialSolution = flags & 2 != 0
        headVehicleValid = flags & 0x20 != 0   // vehHeadingValid
        carrierSolution = Int(flags >> 6)
        satellitesUsed = Int(p.u1(27))
        longitudeDegrees = Double(p.i4(28)) * 1e-7
        latitudeDegrees = Double(p.i4(32)) * 1e-7
        heightMeters = Double(p.i4(36)) * 1e-3
        heightMSLMeters = Double(p.i4(40)) * 1e-3
        horizontalAccuracyMeters = Double(p.u4(44)) * 1e-3
        verticalAccuracyMeters = Double(p.u4(48)) * 1e-3
        velocityNorthMetersPerSecond = Double(p.i4(52)) * 1e-3
        velocityEastMetersPerSecond = Double(p.i4(56)) * 1e-3
        velocityDownMetersPerSecond = Double(p.i4(60)) * 1e-3
        groundSpeedMetersPerSecond = Double(p.i4(64)) * 1e-3
        speedAccuracyMetersPerSecond = Double(p.u4(68)) * 1e-3
        headingOfMotionDegrees = Double(p.i4(84)) * 1e-5
        let headingAccuracy = Double(p.u2(92)) * 1e-2
        headingAccuracyDegrees = headVehicleValid && headingAccuracy > 0 ? headingAccuracy : 180
        pdop = nil
        invalidLLH = false
        headingOfVehicleDegrees = headVehicleValid ? Double(p.i4(80)) * 1e-5 : nil
        magneticDeclinationDegrees = valid & 8 != 0 ? Double(p.i2(94)) * 1e-2 : nil
    }
}

/// UBX-NAV-POSLLH (0x01 0x02): geodetic position. 28 bytes.
public struct NavPOSLLH: Sendable, Hashable {
    public var iTOWMilliseconds: UInt32
    public var longitudeDegrees: Double, latitudeDegrees: Double
    public var heightMeters: Double, heightMSLMeters: Double
    public var horizontalAccuracyMeters: Double, verticalAccuracyMeters: Double

    public init?(payload: UnsafeBufferPointer<UInt8>) {
        guard payload.count >= 28 else { return nil }   // longer: fields a later protocol appends, ignored
        let p = LittleEndian(payload)
        iTOWMilliseconds = p.u4(0)
        longitudeDegrees = Double(p.i4(4)) * 1e-7
        latitudeDegrees = Double(p.i4(8)) * 1e-7
        heightMeters = Double(p.i4(12)) * 1e-3
        heightMSLMeters = Double(p.i4(16)) * 1e-3
        horizontalAccuracyMeters = Double(p.u4(20)) * 1e-3
        verticalAccuracyMeters = Double(p.u4(24)) * 1e-3
    }
}

/// UBX-NAV-HPPOSLLH (0x01 0x14): high-precision geodetic position (0.1 mm, 1e-9°). 36 bytes.
public struct NavHPPOSLLH: Sendable, Hashable {
    public var version: Int
    public var invalidLLH: Bool
    public var iTOWMilliseconds: UInt32
    /// The full-precision values (standard part + high-precision part).
    public var longitudeDegrees: Double, latitudeDegrees: Double
    public var heightMeters: Double, heightMSLMeters: Double
    public var horizontalAccuracyMeters: Double, verticalAccuracyMeters: Double

    public init?(payload: UnsafeBufferPointer<UInt8>) {
        guard payload.count >= 36 else { return nil }   // longer: fields a later protocol appends, ignored
        let p = LittleEndian(payload)
        version = Int(p.u1(0))
        invalidLLH = p.u1(3) & 1 != 0
        iTOWMilliseconds = p.u4(4)
        longitudeDegrees = Double(p.i4(8)) * 1e-7 + Double(p.i1(24)) * 1e-9
        latitudeDegrees = Double(p.i4(12)) * 1e-7 + Double(p.i1(25)) * 1e-9
        heightMeters = Double(p.i4(16)) * 1e-3 + Double(p.i1(26)) * 1e-4
        heightMSLMeters = Double(p.i4(20)) * 1e-3 + Double(p.i1(27)) * 1e-4
        horizontalAccuracyMeters = Double(p.u4(28)) * 1e-4
        verticalAccuracyMeters = Double(p.u4(32)) * 1e-4
    }
}

/// UBX-NAV-SOL (0x01 0x06): ECEF navigation solution (u-blox 6/7/8). 52 bytes.
public struct NavSOL: Sendable, Hashable {
    public var iTOWMilliseconds: UInt32
    /// Fractional nanoseconds to add to iTOW, −500 000 … 500 000.
    public var fTOWNanoseconds: Int32
    public var week: Int
    public var fixType: UBXFixType?
    public var gnssFixOK: Bool, differentialSolution: Bool, weekValid: Bool, timeOfWeekValid: Bool
    public var ecefXMeters: Double, ecefYMeters: Double, ecefZMeters: Double
    /// 3-D position accuracy estimate.
    public var positionAccuracyMeters: Double
    public var ecefVelocityXMetersPerSecond: Double, ecefVelocityYMetersPerSecond: Double, ecefVelocityZMetersPerSecond: Double
    public var speedAccuracyMetersPerSecond: Double
    public var pdop: Double
    public var satellitesUsed: Int

    public init?(payload: UnsafeBufferPointer<UInt8>) {
        guard payload.count >= 52 else { return nil }   // longer: fields a later protocol appends, ignored
        let p = LittleEndian(payload)
        iTOWMilliseconds = p.u4(0)
        fTOWNanoseconds = p.i4(4)
        week = Int(p.i2(8))
        fixType = UBXFixType(rawValue: p.u1(10))
        let flags = p.u1(11)
        gnssFixOK = flags & 1 != 0; differentialSolution = flags & 2 != 0
        weekValid = flags & 4 != 0; timeOfWeekValid = flags & 8 != 0
        ecefXMeters = Double(p.i4(12)) * 0.01
        ecefYMeters = Double(p.i4(16)) * 0.01
        ecefZMeters = Double(p.i4(20)) * 0.01
        positionAccuracyMeters = Double(p.u4(24)) * 0.01
        ecefVelocityXMetersPerSecond = Double(p.i4(28)) * 0.01
        ecefVelocityYMetersPerSecond = Double(p.i4(32)) * 0.01
        ecefVelocityZMetersPerSecond = Double(p.i4(36)) * 0.01
        speedAccuracyMetersPerSecond = Double(p.u4(40)) * 0.01
        pdop = Double(p.u2(44)) * 0.01
        satellitesUsed = Int(p.u1(47))
    }
}

/// UBX-NAV-POSECEF (0x01 0x01, 20 bytes) or UBX-NAV-HPPOSECEF (0x01 0x13, 28 bytes, u-blox 8 high-precision and
/// F9): the position in ECEF with a 3-D accuracy estimate. Neither states a fix type (NAV-STATUS does).
public struct NavPOSECEF: Sendable, Hashable {
    public var iTOWMilliseconds: UInt32
    public var ecefXMeters: Double, ecefYMeters: Double, ecefZMeters: Double
    /// 3-D position accuracy estimate.
    public var positionAccuracyMeters: Double
    /// NAV-HPPOSECEF's invalidEcef flag (always false for NAV-POSECEF).
    public var invalidECEF: Bool

    /// NAV-POSECEF: iTOW, ecefX/Y/Z (cm), pAcc (cm).
    public init?(payload: UnsafeBufferPointer<UInt8>) {
        guard payload.count >= 20 else { return nil }   // longer: fields a later protocol appends, ignored
        let p = LittleEndian(payload)
        iTOWMilliseconds = p.u4(0)
        ecefXMeters = Double(p.i4(4)) * 0.01
        ecefYMeters = Double(p.i4(8)) * 0.01
        ecefZMeters = Double(p.i4(12)) * 0.01
        positionAccuracyMeters = Double(p.u4(16)) * 0.01
        invalidECEF = false
    }

    /// NAV-HPPOSECEF (version 0): iTOW at 4, ecefX/Y/Z (cm) plus their 0.1 mm parts, flags (invalidEcef), pAcc
    /// (0.1 mm).
    public init?(highPrecisionPayload payload: UnsafeBufferPointer<UInt8>) {
        guard payload.count >= 28, payload[0] == 0 else { return nil }
        let p = LittleEndian(payload)
        iTOWMilliseconds = p.u4(4)
        ecefXMeters = Double(p.i4(8)) * 0.01 + Double(p.i1(20)) * 1e-4
        ecefYMeters = Double(p.i4(12)) * 0.01 + Double(p.i1(21)) * 1e-4
        ecefZMeters = Double(p.i4(16)) * 0.01 + Double(p.i1(22)) * 1e-4
        invalidECEF = p.u1(23) & 1 != 0
        positionAccuracyMeters = Double(p.u4(24)) * 1e-4
    }
}

/// UBX-NAV-VELECEF (0x01 0x11): velocity in ECEF with a speed accuracy estimate. 20 bytes.
public struct NavVELECEF: Sendable, Hashable {
    public var iTOWMilliseconds: UInt32
    public var ecefVelocityXMetersPerSecond: Double, ecefVelocityYMetersPerSecond: Double, ecefVelocityZMetersPerSecond: Double
    public var speedAccuracyMetersPerSecond: Double

    public init?(payload: UnsafeBufferPointer<UInt8>) {
        guard payload.count >= 20 else { return nil }   // longer: fields a later protocol appends, ignored
        let p = LittleEndian(payload)
        iTOWMilliseconds = p.u4(0)
        ecefVelocityXMetersPerSecond = Double(p.i4(4)) * 0.01
        ecefVelocityYMetersPerSecond = Double(p.i4(8)) * 0.01
        ecefVelocityZMetersPerSecond = Double(p.i4(12)) * 0.01
        speedAccuracyMetersPerSecond = Double(p.u4(16)) * 0.01
    }
}

/// UBX-NAV-VELNED (0x01 0x12): velocity in the local NED frame. 36 bytes.
public struct NavVELNED: Sendable, Hashable {
    public var iTOWMilliseconds: UInt32
    public var velocityNorthMetersPerSecond: Double, velocityEastMetersPerSecond: Double, velocityDownMetersPerSecond: Double
    public var speedMetersPerSecond: Double
    public var groundSpeedMetersPerSecond: Double
    public var headingDegrees: Double
    public var speedAccuracyMetersPerSecond: Double
    public var courseAccuracyDegrees: Double

    public init?(payload: UnsafeBufferPointer<UInt8>) {
        guard payload.count >= 36 else { return nil }   // longer: fields a later protocol appends, ignored
        let p = LittleEndian(payload)
        iTOWMilliseconds = p.u4(0)
        velocityNorthMetersPerSecond = Double(p.i4(4)) * 0.01
        velocityEastMetersPerSecond = Double(p.i4(8)) * 0.01
        velocityDownMetersPerSecond = Double(p.i4(12)) * 0.01
        speedMetersPerSecond = Double(p.u4(16)) * 0.01
        groundSpeedMetersPerSecond = Double(p.u4(20)) * 0.01
        headingDegrees = Double(p.i4(24)) * 1e-5
        speedAccuracyMetersPerSecond = Double(p.u4(28)) * 0.01
        courseAccuracyDegrees = Double(p.u4(32)) * 1e-5
    }
}

/// UBX-NAV-DOP (0x01 0x04): dilutions of precision (scale 0.01). 18 bytes.
public struct NavDOP: Sendable, Hashable {
    public var iTOWMilliseconds: UInt32
    public var gdop: Double, pdop: Double, tdop: Double, vdop: Double, hdop: Double, ndop: Double, edop: Double

    public init?(payload: UnsafeBufferPointer<UInt8>) {
        guard payload.count >= 18 else { return nil }   // longer: fields a later protocol appends, ignored
        let p = LittleEndian(payload)
        iTOWMilliseconds = p.u4(0)
        gdop = Double(p.u2(4)) * 0.01; pdop = Double(p.u2(6)) * 0.01; tdop = Double(p.u2(8)) * 0.01
        vdop = Double(p.u2(10)) * 0.01; hdop = Double(p.u2(12)) * 0.01; ndop = Double(p.u2(14)) * 0.01
        edop = Double(p.u2(16)) * 0.01
    }
}

/// UBX-HNR-PVT (0x28 0x00): high-rate fused position, velocity and time (u-blox 8 ADR/UDR). 72 bytes.
public struct HnrPVT: Sendable, Hashable {
    public var iTOWMilliseconds: UInt32
    public var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
    public var validDate: Bool, validTime: Bool
    public var nanosecond: Int
    public var fixType: UBXFixType?
    public var gnssFixOK: Bool, differentialSolution: Bool
    public var longitudeDegrees: Double, latitudeDegrees: Double
    public var heightMeters: Double, heightMSLMeters: Double
    public var groundSpeedMetersPerSecond: Double
    public var headingOfMotionDegrees: Double
    public var horizontalAccuracyMeters: Double, verticalAccuracyMeters: Double
    public var speedAccuracyMetersPerSecond: Double
    public var headingAccuracyDegrees: Double
    /// flags headVehValid (bit 4): the vehicle's heading `headingOfVehicleDegrees` (headVeh) is valid.
    public var headVehicleValid: Bool
    public var headingOfVehicleDegrees: Double

    public init?(payload: UnsafeBufferPointer<UInt8>) {
        guard payload.count >= 72 else { return nil }   // longer: fields a later protocol appends, ignored
        let p = LittleEndian(payload)
        iTOWMilliseconds = p.u4(0)
        year = Int(p.u2(4)); month = Int(p.u1(6)); day = Int(p.u1(7))
        hour = Int(p.u1(8)); minute = Int(p.u1(9)); second = Int(p.u1(10))
        validDate = p.u1(11) & 1 != 0; validTime = p.u1(11) & 2 != 0
        nanosecond = Int(p.i4(12))
        fixType = UBXFixType(rawValue: p.u1(16))
        gnssFixOK = p.u1(17) & 1 != 0; differentialSolution = p.u1(17) & 2 != 0
        longitudeDegrees = Double(p.i4(20)) * 1e-7
        latitudeDegrees = Double(p.i4(24)) * 1e-7
        heightMeters = Double(p.i4(28)) * 1e-3
        heightMSLMeters = Double(p.i4(32)) * 1e-3
        groundSpeedMetersPerSecond = Double(p.i4(36)) * 1e-3
        headingOfMotionDegrees = Double(p.i4(44)) * 1e-5
        horizontalAccuracyMeters = Double(p.u4(52)) * 1e-3
        verticalAccuracyMeters = Double(p.u4(56)) * 1e-3
        speedAccuracyMetersPerSecond = Double(p.u4(60)) * 1e-3
        headingAccuracyDegrees = Double(p.u4(64)) * 1e-5
        headVehicleValid = p.u1(17) & 0x10 != 0
        headingOfVehicleDegrees = Double(p.i4(48)) * 1e-5
    }
}
