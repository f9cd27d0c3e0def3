#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore
import NMEA

extension UBXEpochAssembler {
    // The epoch's readers (`fixState`, `location`, `skyReport`, `epochTime`) are static and take the receiver state
    // they need as arguments: as methods called from the mutating `flush`, each call copied the whole assembler
    // (1.6 KB) and the epoch (1.3 KB) first, a tenth of a UBX replay's memory traffic.

    /// The epoch's own fix type and quality flags: NAV-PVT, else NAV-SOL, else NAV-STATUS, else HNR-PVT; nil when
    /// none of them arrived.
    static func fixState(_ e: Epoch) -> FixState? {
        if let p = e.pvt {
            return FixState(type: p.fixType, differential: p.differentialSolution, carrier: p.carrierSolution, iTOW: e.iTOW)
        } else if let s = e.sol {
            return FixState(type: s.fixType, differential: s.differentialSolution, carrier: 0, iTOW: e.iTOW)
        } else if let s = e.status {
            return FixState(type: s.fixType, differential: s.differentialSolution, carrier: 0, iTOW: e.iTOW)
        } else if let h = e.hnr {
            return FixState(type: h.fixType, differential: h.differentialSolution, carrier: 0, iTOW: e.iTOW)
        }
        return nil
    }

    /// How long (ms of iTOW) the last epoch's fix type is kept for an epoch that has a position but no fix type.
    static let fixTypeCarryMilliseconds: UInt32 = 2000

    /// Fills a `Location` from one epoch's messages (time is set by the caller); `own` is the epoch's `fixState`,
    /// `lastFixState` the last epoch's, `leapSeconds` and `integrity` the receiver's (carried between epochs).
    static func location(_ e: Epoch, own: FixState?, lastFixState: FixState?, leapSeconds: Int?,
                         integrity: ReceiverIntegrity?) -> Location {
        var l = Location()
        // Fix type and quality: the epoch's own (`fixState`). Where its NAV-PVT was lost (a bad checksum, a dropped
        // byte on a serial line) and no other message carries one, the last epoch's, up to 2 s before: a position
        // from NAV-POSLLH or NAV-POSECEF alone was reported as mode 0, "no fix", while gpsd keeps the mode it had
        // (found on a ZED-F9P log with one NAV-PVT corrupted, docs/ubx.md).
        // (Not a last "no fix": the position would be dropped; without a fix type it is reported, mode unknown.)
        var state = own
        if state == nil, let last = lastFixState, last.type != nil, last.type != .noFix,
           (e.iTOW &+ 604_800_000 &- last.iTOW) % 604_800_000 <= Self.fixTypeCarryMilliseconds {
            state = last
        }
        let fixType = state?.type
        let differential = state?.differential ?? false
        var carrier = state?.carrier ?? 0
        if let s = e.status, carrier == 0 { carrier = s.carrierSolution }
        if let r = e.relposned, carrier == 0, r.relativePositionValid { carrier = r.carrierSolution }
        // Mode from the fix type alone, as gpsd: a fix outside the receiver's DOP/accuracy masks (gnssFixOK
        // clear) is still a fix with a position; u-blox's flag is kept out of the mode (docs/ubx.md).
        switch fixType {
        case .none: l.mode = .unknown
        case .noFix?: l.mode = .noFix
        case .deadReckoningOnly?, .twoD?: l.mode = .twoD
        case .threeD?, .gnssDeadReckoning?, .timeOnly?: l.mode = .threeD
        }
        // As gpsd (NAV-PVT, HNR-PVT, NAV-SOL, NAV-STATUS alike): the fix type's quality, unless the solution is
        // differential or RTK, which wins over dead reckoning too (an M8L's NAV-PVT, fix type 4 with diffSoln, is
        // gpsd's status 2, not 6); a time-only fix stays time-only.
        switch fixType {
        case .timeOnly?: l.quality = .timeOnly
        case .deadReckoningOnly?, .gnssDeadReckoning?, .twoD?, .threeD?:
            if carrier == 1 { l.quality = .rtkFloat }
            else if carrier == 2 { l.quality = .rtkFixed }
            else if differential { l.quality = .dgps }
            else if fixType == .deadReckoningOnly { l.quality = .deadReckoning }
            else if fixType == .gnssDeadReckoning { l.quality = .gnssDeadReckoning }
            else { l.quality = .gps }
        default: l.quality = .unknown
        }

        // Position: the most precise message that has one.
        let hasPosition = l.mode == .twoD || l.mode == .threeD || l.mode == .unknown
        if hasPosition {
            if let h = e.hpposllh, !h.invalidLLH {
                setPosition(&l, h.latitudeDegrees, h.longitudeDegrees, h.heightMeters, h.heightMSLMeters)
                l.horizontalAccuracyMeters = h.horizontalAccuracyMeters
                l.verticalAccuracyMeters = h.verticalAccuracyMeters
            } else if let h = e.hnr {
                // The high-rate output is the receiver's fused solution; at a whole second it follows NAV-PVT.
                setPosition(&l, h.latitudeDegrees, h.longitudeDegrees, h.heightMeters, h.heightMSLMeters)
            } else if let p = e.pvt, !p.invalidLLH {
                setPosition(&l, p.latitudeDegrees, p.longitudeDegrees, p.heightMeters, p.heightMSLMeters)
            } else if let p = e.posllh {
                setPosition(&l, p.latitudeDegrees, p.longitudeDegrees, p.heightMeters, p.heightMSLMeters)
            } else if let s = e.sol {
                setPosition(&l, ecefX: s.ecefXMeters, s.ecefYMeters, s.ecefZMeters)
            } else if let p = e.posecef, !p.invalidECEF {
                setPosition(&l, ecefX: p.ecefXMeters, p.ecefYMeters, p.ecefZMeters)
            }
        }

        // Accuracies: NAV-PVT, else NAV-POSLLH, else NAV-SOL's 3-D pAcc, else HNR-PVT.
        if let p = e.pvt {
            l.horizontalAccuracyMeters = l.horizontalAccuracyMeters ?? p.horizontalAccuracyMeters
            l.verticalAccuracyMeters = l.verticalAccuracyMeters ?? p.verticalAccuracyMeters
            l.speedAccuracyMetersPerSecond = p.speedAccuracyMetersPerSecond
            l.courseAccuracyDegrees = p.headingAccuracyDegrees
            l.timeAccuracySeconds = p.timeAccuracySeconds
            l.speedMetersPerSecond = p.groundSpeedMetersPerSecond
            l.courseDegrees = Angle.normalizedDegrees(p.headingOfMotionDegrees)
            l.satellitesUsed = p.satellitesUsed
            l.pdop = p.pdop
        } else if let h = e.hnr {
            l.horizontalAccuracyMeters = l.horizontalAccuracyMeters ?? h.horizontalAccuracyMeters
            l.verticalAccuracyMeters = l.verticalAccuracyMeters ?? h.verticalAccuracyMeters
            l.speedAccuracyMetersPerSecond = h.speedAccuracyMetersPerSecond
            l.courseAccuracyDegrees = h.headingAccuracyDegrees
            l.speedMetersPerSecond = h.groundSpeedMetersPerSecond
            l.courseDegrees = Angle.normalizedDegrees(h.headingOfMotionDegrees)
        }
        if let p = e.posllh {
            l.horizontalAccuracyMeters = l.horizontalAccuracyMeters ?? p.horizontalAccuracyMeters
            l.verticalAccuracyMeters = l.verticalAccuracyMeters ?? p.verticalAccuracyMeters
        }
        if let v = e.velned {
            l.speedMetersPerSecond = l.speedMetersPerSecond ?? v.groundSpeedMetersPerSecond
            l.courseDegrees = l.courseDegrees ?? Angle.normalizedDegrees(v.headingDegrees)
            l.speedAccuracyMetersPerSecond = l.speedAccuracyMetersPerSecond ?? v.speedAccuracyMetersPerSecond
            l.courseAccuracyDegrees = l.courseAccuracyDegrees ?? v.courseAccuracyDegrees
        }
        if let s = e.sol {
            l.horizontalAccuracyMeters = l.horizontalAccuracyMeters ?? s.positionAccuracyMeters
            l.satellitesUsed = l.satellitesUsed ?? s.satellitesUsed
            l.pdop = l.pdop ?? s.pdop
            l.speedAccuracyMetersPerSecond = l.speedAccuracyMetersPerSecond ?? s.speedAccuracyMetersPerSecond
            setSpeedAndCourse(&l, ecefVX: s.ecefVelocityXMetersPerSecond, s.ecefVelocityYMetersPerSecond,
                              s.ecefVelocityZMetersPerSecond)
        }
        if let p = e.posecef, !p.invalidECEF {
            // A 3-D accuracy, as NAV-SOL's pAcc (gpsd reports it as its ECEF pAcc).
            l.horizontalAccuracyMeters = l.horizontalAccuracyMeters ?? p.positionAccuracyMeters
        }
        if let v = e.velecef {
            l.speedAccuracyMetersPerSecond = l.speedAccuracyMetersPerSecond ?? v.speedAccuracyMetersPerSecond
            setSpeedAndCourse(&l, ecefVX: v.ecefVelocityXMetersPerSecond, v.ecefVelocityYMetersPerSecond,
                              v.ecefVelocityZMetersPerSecond)
        }
        if let g = e.timegps { l.timeAccuracySeconds = l.timeAccuracySeconds ?? g.timeAccuracySeconds }
        if let u = e.timeutc { l.timeAccuracySeconds = l.timeAccuracySeconds ?? u.timeAccuracySeconds }
        if let d = e.dop {
            l.hdop = d.hdop; l.vdop = d.vdop; l.pdop = d.pdop
        }
        // The receiver's own heading of the vehicle: a moving-base pair's (NAV-RELPOSNED), else a sensor-fusion
        // module's (NAV-ATT, else HNR-PVT's, NAV-PVT's or NAV-PVAT's headVeh when headVehValid: ADR/UDR/HPS firmware,
        // e.g. NEO-M8L, NEO-M8U, ZED-F9R), each with its accuracy. A plain GNSS module never sets headVehValid.
        if let r = e.relposned, r.headingValid, let h = r.headingDegrees {
            l.receiverHeadingDegrees = Angle.normalizedDegrees(h)
            if let a = r.headingAccuracyDegrees, a.isFinite, a > 0 { l.receiverHeadingAccuracyDegrees = a }
        } else if let a = e.att, a.headingAccuracyDegrees > 0 {
            l.receiverHeadingDegrees = Angle.normalizedDegrees(a.headingDegrees)
            l.receiverHeadingAccuracyDegrees = a.headingAccuracyDegrees
        } else if let h = e.hnr, h.headVehicleValid, h.headingAccuracyDegrees > 0, h.headingAccuracyDegrees < 180 {
            l.receiverHeadingDegrees = Angle.normalizedDegrees(h.headingOfVehicleDegrees)
            l.receiverHeadingAccuracyDegrees = h.headingAccuracyDegrees
        } else if let p = e.pvt, p.headVehicleValid, let h = p.headingOfVehicleDegrees,
                  p.headingAccuracyDegrees > 0, p.headingAccuracyDegrees < 180 {
            // Only with an accuracy: headAcc covers the heading of motion and of the vehicle alike (tens of degrees
            // at walking speed on a NEO-M8U); without one the estimator would take a dual-antenna receiver's σ.
            l.receiverHeadingDegrees = Angle.normalizedDegrees(h)
            l.receiverHeadingAccuracyDegrees = p.headingAccuracyDegrees
        }
        l.leapSeconds = leapSeconds
        l.integrity = integrity
        // hAcc/vAcc/sAcc/headAcc are the receiver's own estimates (gpsd reports them as they are).
        l.accuracyFromReceiver = l.horizontalAccuracyMeters != nil
        return l
    }

    private static func setPosition(_ l: inout Location, ecefX x: Double, _ y: Double, _ z: Double) {
        let g = ECEF.geodetic(x: x, y: y, z: z)
        l.latitudeDegrees = g.latitudeDegrees; l.longitudeDegrees = g.longitudeDegrees
        l.altitudeEllipsoidMeters = g.heightMeters
    }

    /// Speed and course from an ECEF velocity, when no message gave them and the fix has a position to rotate at.
    private static func setSpeedAndCourse(_ l: inout Location, ecefVX vx: Double, _ vy: Double, _ vz: Double) {
        guard l.speedMetersPerSecond == nil, let lat = l.latitudeDegrees, let lon = l.longitudeDegrees else { return }
        let v = ECEF.northEastDown(vx: vx, vy: vy, vz: vz, latitudeDegrees: lat, longitudeDegrees: lon)
        l.speedMetersPerSecond = (v.north * v.north + v.east * v.east).squareRoot()
        l.courseDegrees = Angle.normalizedDegrees(atan2Degrees(v.east, v.north))
    }

    private static func setPosition(_ l: inout Location, _ lat: Double, _ lon: Double, _ height: Double, _ msl: Double) {
        l.latitudeDegrees = lat; l.longitudeDegrees = lon
        l.altitudeEllipsoidMeters = height; l.altitudeMSLMeters = msl
        l.geoidSeparationMeters = height - msl
    }

    /// The sky from NAV-SAT (else NAV-SVINFO), with the epoch's DOPs.
    static func skyReport(_ e: Epoch) -> SkyReport? {
        var s = SkyReport()
        if let sat = e.sat {
            s.satellites = sat.satellites.map {
                SatelliteInfo(nmeaID: SatelliteInfo.nmeaNumber($0.constellation, $0.svid), constellation: $0.constellation,
                              svid: $0.svid, elevationDegrees: $0.elevationDegrees, azimuthDegrees: $0.azimuthDegrees,
                              snrDBHz: $0.carrierToNoiseDBHz > 0 ? $0.carrierToNoiseDBHz : nil, used: $0.used)
            }
        } else if let info = e.svinfo {
            s.satellites = info.channels.map {
                SatelliteInfo(nmeaID: SatelliteInfo.nmeaNumber($0.constellation, $0.svid), constellation: $0.constellation,
                              svid: $0.svid, elevationDegrees: $0.elevationDegrees, azimuthDegrees: $0.azimuthDegrees,
                              snrDBHz: $0.carrierToNoiseDBHz > 0 ? $0.carrierToNoiseDBHz : nil, used: $0.used)
            }
        } else {
            return nil
        }
        s.satellitesUsed = s.satellites.filter(\.used).count
        if let d = e.dop { s.hdop = d.hdop; s.vdop = d.vdop; s.pdop = d.pdop } else if let p = e.pvt { s.pdop = p.pdop }
        return s
    }
}

private func atan2Degrees(_ y: Double, _ x: Double) -> Double { atan2(y, x) * 180 / Double.pi }

/// WGS84 Earth-centred Earth-fixed conversions for NAV-SOL.
public enum ECEF {
    static let a = 6_378_137.0
    static let f = 1 / 298.257223563
    static let e2 = f * (2 - f)

    /// Geodetic latitude, longitude (degrees) and ellipsoidal height of an ECEF point (iterative, < 1 mm).
    public static func geodetic(x: Double, y: Double, z: Double) -> (latitudeDegrees: Double, longitudeDegrees: Double, heightMeters: Double) {
        let p = (x * x + y * y).squareRoot()
        let lon = atan2(y, x)
        var lat = atan2(z, p * (1 - e2))
        var h = 0.0
        for _ in 0..<6 {
            let s = sin(lat)
            let n = a / (1 - e2 * s * s).squareRoot()
            h = p / cos(lat) - n
            lat = atan2(z, p * (1 - e2 * n / (n + h)))
        }
        if !p.isFinite || p < 1 { return (z >= 0 ? 90 : -90, 0, abs(z) - a * (1 - f)) }
        return (lat * 180 / .pi, lon * 180 / .pi, h)
    }

    /// An ECEF velocity in the local north-east-down frame at a position.
    public static func northEastDown(vx: Double, vy: Double, vz: Double, latitudeDegrees: Double, longitudeDegrees: Double)
        -> (north: Double, east: Double, down: Double) {
        let phi = latitudeDegrees * .pi / 180, lam = longitudeDegrees * .pi / 180
        let sp = sin(phi), cp = cos(phi), sl = sin(lam), cl = cos(lam)
        return (-sp * cl * vx - sp * sl * vy + cp * vz, -sl * vx + cl * vy, -cp * cl * vx - cp * sl * vy - sp * vz)
    }
}
