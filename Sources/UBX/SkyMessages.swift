import LocationCore

/// UBX-NAV-SAT (0x01 0x35, u-blox 8+): satellites in view. 8 + 12·numSvs bytes.
public struct NavSAT: Sendable, Hashable {
    public struct Satellite: Sendable, Hashable {
        public var constellation: Constellation
        public var svid: Int
        public var carrierToNoiseDBHz: Double
        /// nil when the receiver does not know (out of ±90°).
        public var elevationDegrees: Double?
        public var azimuthDegrees: Double?
        public var pseudorangeResidualMeters: Double
        public var qualityIndicator: Int
        public var used: Bool
        /// 0 unknown, 1 healthy, 2 unhealthy.
        public var health: Int
    }
    public var iTOWMilliseconds: UInt32
    public var version: Int
    public var satellites: [Satellite]

    public init?(payload: UnsafeBufferPointer<UInt8>) {
        let p = LittleEndian(payload)
        guard payload.count >= 8 else { return nil }
        let n = Int(p.u1(5))
        guard payload.count == 8 + 12 * n else { return nil }
        iTOWMilliseconds = p.u4(0)
        version = Int(p.u1(4))
        satellites = (0..<n).map { k in
            let o = 8 + 12 * k
            let elevation = Int(p.i1(o + 3))
            let azimuth = Int(p.i2(o + 4))
            let known = (-90...90).contains(elevation)
            let flags = p.u4(o + 8)
            return Satellite(constellation: Constellation(rawValue: Int(p.u1(o))) ?? .unknown, svid: Int(p.u1(o + 1)),
                             carrierToNoiseDBHz: Double(p.u1(o + 2)),
                             elevationDegrees: known ? Double(elevation) : nil,
                             azimuthDegrees: known && (0...360).contains(azimuth) ? Double(azimuth) : nil,
                             pseudorangeResidualMeters: Double(p.i2(o + 6)) * 0.1,
                             qualityIndicator: Int(flags & 7), used: flags & 8 != 0, health: Int((flags >> 4) & 3))
        }
    }
}

/// UBX-NAV-SVINFO (0x01 0x30, u-blox 5–8): satellites in view by channel. 8 + 12·numCh bytes.
public struct NavSVINFO: Sendable, Hashable {
    public struct Channel: Sendable, Hashable {
        public var channel: Int
        /// u-blox's own satellite numbering (1–32 GPS, 33–64 BeiDou, 65–96 GLONASS, 120–158 SBAS, 193–202 QZSS,
        /// 211–246 Galileo, 255 unknown GLONASS).
        public var ubloxSVID: Int
        public var used: Bool
        public var quality: Int
        public var carrierToNoiseDBHz: Double
        public var elevationDegrees: Double?
        public var azimuthDegrees: Double?
        public var pseudorangeResidualMeters: Double
        /// The satellite by gpsd's gnssid/svid numbering.
        public var constellation: Constellation { NavSVINFO.split(ubloxSVID).0 }
        public var svid: Int { NavSVINFO.split(ubloxSVID).1 }
    }
    public var iTOWMilliseconds: UInt32
    /// globalFlags chipGen: 0 Antaris, 1 u-blox 5, 2 u-blox 6, 3 u-blox 7, 4 u-blox 8.
    public var chipGeneration: Int
    public var channels: [Channel]

    public init?(payload: UnsafeBufferPointer<UInt8>) {
        let p = LittleEndian(payload)
        guard payload.count >= 8 else { return nil }
        let n = Int(p.u1(4))
        guard payload.count == 8 + 12 * n else { return nil }
        iTOWMilliseconds = p.u4(0)
        chipGeneration = Int(p.u1(5) & 7)
        channels = (0..<n).map { k in
            let o = 8 + 12 * k
            let elevation = Int(p.i1(o + 5))
            let azimuth = Int(p.i2(o + 6))
            let known = (-90...90).contains(elevation) && !(elevation == 0 && azimuth == 0)
            return Channel(channel: Int(p.u1(o)), ubloxSVID: Int(p.u1(o + 1)), used: p.u1(o + 2) & 1 != 0,
                           quality: Int(p.u1(o + 3) & 0x0F), carrierToNoiseDBHz: Double(p.u1(o + 4)),
                           elevationDegrees: known ? Double(elevation) : nil,
                           azimuthDegrees: known && (0...360).contains(azimuth) ? Double(azimuth) : nil,
                           pseudorangeResidualMeters: Double(p.i4(o + 8)) * 0.01)
        }
    }

    /// u-blox's satellite number → (constellation, number inside it).
    public static func split(_ id: Int) -> (Constellation, Int) {
        switch id {
        case 1...32: (.gps, id)
        case 33...64: (.beidou, id - 32)
        case 65...96: (.glonass, id - 64)
        case 120...158: (.sbas, id)
        case 159...163: (.beidou, id - 158 + 32)
        case 173...182: (.imes, id - 172)
        case 193...202: (.qzss, id - 192)
        case 211...246: (.galileo, id - 210)
        default: (.unknown, id)
        }
    }
}

extension SatelliteInfo {
    /// The NMEA-style satellite number Lodestar's NMEA path would give (GPS 1–32, SBAS 33–64, GLONASS 65–96,
    /// QZSS 193–202, Galileo 301–336, BeiDou 401–437).
    static func nmeaNumber(_ c: Constellation, _ svid: Int) -> Int {
        switch c {
        case .gps: svid
        case .sbas: svid >= 120 ? svid - 87 : svid
        case .glonass: svid + 64
        case .qzss: svid + 192
        case .galileo: svid + 300
        case .beidou: svid + 400
        default: svid
        }
    }
}
