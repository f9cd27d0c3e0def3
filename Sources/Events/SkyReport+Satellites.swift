import LocationCore

extension SkyReport {
    /// One entry per satellite (constellation + svid), in first-seen order: receivers that list every signal
    /// (NMEA 4.10+ GSV with a signal id, e.g. u-blox F9P: L1 and L2 of one satellite) give several entries for
    /// one satellite. The first listed signal (the receiver's primary, L1/E1/B1) keeps its position, signal id and
    /// level; `used` is true when any signal of the satellite is used.
    public var satellitesOnePerSatellite: [SatelliteInfo] {
        // Most skies list each satellite once (u-blox NAV-SAT, NMEA before 4.10): checked with a bitmap on the
        // stack, they are returned as they are. Any bit seen twice (a second signal, or two keys sharing a bit)
        // takes the exact path below.
        var seen = InlineArray<64, UInt64>(repeating: 0)
        var unique = true
        for s in satellites {
            let bit = ((s.constellation.rawValue & 7) << 9) | (s.svid & 0x1FF)
            let mask = UInt64(1) << UInt64(bit & 63)
            if seen[bit >> 6] & mask != 0 { unique = false; break }
            seen[bit >> 6] |= mask
        }
        if unique { return satellites }
        var out: [SatelliteInfo] = []
        out.reserveCapacity(satellites.count)
        // Keys of `out`, searched linearly: a sky has at most a few hundred signals, and a hash table built per
        // report cost more than the scan (7 % of a UBX replay).
        var keys: [Int] = []
        keys.reserveCapacity(satellites.count)
        for s in satellites {
            let key = (s.constellation.rawValue << 16) | (s.svid & 0xFFFF)
            if let i = keys.firstIndex(of: key) {
                if s.used { out[i].used = true }
                if out[i].elevationDegrees == nil { out[i].elevationDegrees = s.elevationDegrees }
                if out[i].azimuthDegrees == nil { out[i].azimuthDegrees = s.azimuthDegrees }
                continue
            }
            keys.append(key)
            out.append(s)
        }
        return out
    }
}
