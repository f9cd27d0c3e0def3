/// UBX-NAV time and status messages, UBX-NAV-RELPOSNED and UBX-TIM-TP.

/// UBX-NAV-STATUS (0x01 0x03): receiver navigation status. 16 bytes.
public struct NavSTATUS: Sendable, Hashable {
    public var iTOWMilliseconds: UInt32
    public var fixType: UBXFixType?
    public var gnssFixOK: Bool, differentialSolution: Bool, weekValid: Bool, timeOfWeekValid: Bool
    /// flags2 spoofDetState: 0 unknown/deactivated, 1 none indicated, 2 indicated, 3 multiple indications.
    public var spoofingDetectionState: Int
    /// flags2 carrSoln (protocol 20+): 0 none, 1 float, 2 fixed.
    public var carrierSolution: Int
    public var timeToFirstFixSeconds: Double
    public var millisecondsSinceStartup: UInt32

    public init?(payload: UnsafeBufferPointer<UInt8>) {
        guard payload.count >= 16 else { return nil }   // longer: fields a later protocol appends, ignored
        let p = LittleEndian(payload)
        iTOWMilliseconds = p.u4(0)
        fixType = UBXFixType(rawValue: p.u1(4))
        let flags = p.u1(5)
        gnssFixOK = flags & 1 != 0; differentialSolution = flags & 2 != 0
        weekValid = flags & 4 != 0; timeOfWeekValid = flags & 8 != 0
        let flags2 = p.u1(7)
        spoofingDetectionState = Int((flags2 >> 3) & 3)
        carrierSolution = Int(flags2 >> 6)
        timeToFirstFixSeconds = Double(p.u4(8)) * 1e-3
        millisecondsSinceStartup = p.u4(12)
    }
}

/// UBX-NAV-TIMEGPS (0x01 0x20): GPS time and leap seconds. 16 bytes.
public struct NavTIMEGPS: Sendable, Hashable {
    public var iTOWMilliseconds: UInt32
    public var fTOWNanoseconds: Int32
    public var week: Int
    /// GPS − UTC leap seconds.
    public var leapSeconds: Int
    public var timeOfWeekValid: Bool, weekValid: Bool, leapSecondsValid: Bool
    public var timeAccuracySeconds: Double

    public init?(payload: UnsafeBufferPointer<UInt8>) {
        guard payload.count >= 16 else { return nil }   // longer: fields a later protocol appends, ignored
        let p = LittleEndian(payload)
        iTOWMilliseconds = p.u4(0)
        fTOWNanoseconds = p.i4(4)
        week = Int(p.i2(8))
        leapSeconds = Int(p.i1(10))
        let valid = p.u1(11)
        timeOfWeekValid = valid & 1 != 0; weekValid = valid & 2 != 0; leapSecondsValid = valid & 4 != 0
        timeAccuracySeconds = Double(p.u4(12)) * 1e-9
    }
}

/// UBX-NAV-TIMEUTC (0x01 0x21): UTC time. 20 bytes.
public struct NavTIMEUTC: Sendable, Hashable {
    public var iTOWMilliseconds: UInt32
    public var timeAccuracySeconds: Double
    public var nanosecond: Int
    public var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
    public var timeOfWeekValid: Bool, weekValid: Bool, utcValid: Bool

    public init?(payload: UnsafeBufferPointer<UInt8>) {
        guard payload.count >= 20 else { return nil }   // longer: fields a later protocol appends, ignored
        let p = LittleEndian(payload)
        iTOWMilliseconds = p.u4(0)
        timeAccuracySeconds = Double(p.u4(4)) * 1e-9
        nanosecond = Int(p.i4(8))
        year = Int(p.u2(12)); month = Int(p.u1(14)); day = Int(p.u1(15))
        hour = Int(p.u1(16)); minute = Int(p.u1(17)); second = Int(p.u1(18))
        let valid = p.u1(19)
        timeOfWeekValid = valid & 1 != 0; weekValid = valid & 2 != 0; utcValid = valid & 4 != 0
    }
}

/// UBX-NAV-RELPOSNED (0x01 0x3C): position relative to the base (moving-base heading). Version 0: 40 bytes
/// (u-blox 8, no heading); version 1: 64 bytes (F9).
public struct NavRELPOSNED: Sendable, Hashable {
    public var version: Int
    public var referenceStationID: Int
    public var iTOWMilliseconds: UInt32
    public var northMeters: Double, eastMeters: Double, downMeters: Double
    public var lengthMeters: Double?
    public var headingDegrees: Double?
    public var headingAccuracyDegrees: Double?
    public var gnssFixOK: Bool, differentialSolution: Bool, relativePositionValid: Bool
    public var carrierSolution: Int
    public var headingValid: Bool

    public init?(payload: UnsafeBufferPointer<UInt8>) {
        let p = LittleEndian(payload)
        guard (payload.count == 40 && p.u1(0) == 0) || (payload.count == 64 && p.u1(0) == 1) else { return nil }
        version = Int(p.u1(0))
        referenceStationID = Int(p.u2(2))
        iTOWMilliseconds = p.u4(4)
        let flags: UInt32
        if version == 0 {
            northMeters = Double(p.i4(8)) * 0.01 + Double(p.i1(20)) * 1e-4
            eastMeters = Double(p.i4(12)) * 0.01 + Double(p.i1(21)) * 1e-4
            downMeters = Double(p.i4(16)) * 0.01 + Double(p.i1(22)) * 1e-4
            flags = p.u4(36)
            headingValid = false
        } else {
            northMeters = Double(p.i4(8)) * 0.01 + Double(p.i1(32)) * 1e-4
            eastMeters = Double(p.i4(12)) * 0.01 + Double(p.i1(33)) * 1e-4
            downMeters = Double(p.i4(16)) * 0.01 + Double(p.i1(34)) * 1e-4
            lengthMeters = Double(p.i4(20)) * 0.01 + Double(p.i1(35)) * 1e-4
            headingDegrees = Double(p.i4(24)) * 1e-5
            headingAccuracyDegrees = Double(p.u4(52)) * 1e-5
            flags = p.u4(60)
            headingValid = flags & 0x100 != 0
        }
        gnssFixOK = flags & 1 != 0; differentialSolution = flags & 2 != 0; relativePositionValid = flags & 4 != 0
        carrierSolution = Int((flags >> 3) & 3)
    }
}

/// UBX-NAV-ATT (0x01 0x05; modules in sensor fusion: ADR/UDR/HPS firmware): the vehicle's attitude, version 0,
/// 32 bytes. Roll, pitch and heading in degrees (1e-5°) with their accuracies. The heading is the vehicle's, against
/// true north.
public struct NavATT: Sendable, Hashable {
    public var iTOWMilliseconds: UInt32
    public var rollDegrees: Double, pitchDegrees: Double, headingDegrees: Double
    public var rollAccuracyDegrees: Double, pitchAccuracyDegrees: Double, headingAccuracyDegrees: Double

    public init?(payload: UnsafeBufferPointer<UInt8>) {
        let p = LittleEndian(payload)
        guard payload.count >= 32, p.u1(4) == 0 else { return nil }
        iTOWMilliseconds = p.u4(0)
        rollDegrees = Double(p.i4(8)) * 1e-5
        pitchDegrees = Double(p.i4(12)) * 1e-5
        headingDegrees = Double(p.i4(16)) * 1e-5
        rollAccuracyDegrees = Double(p.u4(20)) * 1e-5
        pitchAccuracyDegrees = Double(p.u4(24)) * 1e-5
        headingAccuracyDegrees = Double(p.u4(28)) * 1e-5
    }
}

/// UBX-TIM-TP (0x0D 0x01): the time of the next time pulse. 16 bytes.
public struct TimTP: Sendable, Hashable {
    public var timeOfWeekMilliseconds: UInt32
    /// Sub-millisecond part, ms (towSubMS × 2⁻³²).
    public var timeOfWeekSubMilliseconds: Double
    /// Quantisation error of the pulse, seconds (qErr, ps).
    public var quantizationErrorSeconds: Double
    public var week: Int
    /// flags bit 0: 0 GNSS time base, 1 UTC; bit 1 UTC available.
    public var flags: UInt8
    public var referenceInfo: UInt8

    public init?(payload: UnsafeBufferPointer<UInt8>) {
        guard payload.count >= 16 else { return nil }   // longer: fields a later protocol appends, ignored
        let p = LittleEndian(payload)
        timeOfWeekMilliseconds = p.u4(0)
        timeOfWeekSubMilliseconds = Double(p.u4(4)) / 4_294_967_296.0
        quantizationErrorSeconds = Double(p.i4(8)) * 1e-12
        week = Int(p.u2(12))
        flags = p.u1(14)
        referenceInfo = p.u1(15)
    }
}
