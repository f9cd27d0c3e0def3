import LocationCore

/// Collects GSV sets (per talker and signal) and GSA used-satellite lists into one sky view.
struct SkyAssembler {
    private struct Key: Hashable { let talker: Talker; let signal: Int }
    /// One GSV stream (talker + signal): the set being received and the last complete one. A handful exist,
    /// so a linear search beats hashing on the hot path.
    private struct Stream {
        let key: Key
        var pending: [SatelliteInfo] = []
        var completed: [SatelliteInfo] = []
        var epoch = 0
        var hasCompleted = false
    }
    private var streams: [Stream] = []
    /// Cycles counted by `startEpoch`; a GSV list not refreshed for `maximumAgeInCycles` is dropped from the view.
    private var epoch = 0
    static let maximumAgeInCycles = 5
    /// (constellation or nil when unknown, NMEA id) of satellites used, from this epoch's GSAs.
    private var used: [UInt32] = []
    private(set) var changed = false
    private var seenBits: [UInt64] = []
    private var seenSet: [Int] = []
    private(set) var satellitesInViewReported: Int?

    static func constellation(talker: Talker, nmeaID id: Int) -> (Constellation, Int) {
        if let c = talker.constellation, c != .gps {
            switch c {
            case .glonass where id > 64 && id <= 96: return (.glonass, id - 64)
            case .qzss where id >= 193 && id <= 202: return (.qzss, id - 192)
            case .beidou where id >= 401 && id <= 437: return (.beidou, id - 400)
            case .beidou where id >= 201 && id <= 237: return (.beidou, id - 200)
            case .galileo where id >= 301 && id <= 336: return (.galileo, id - 300)
            default: return (c, id)
            }
        }
        switch id {
        case 1...32: return (.gps, id)
        case 33...64: return (.sbas, id + 87)
        case 65...96: return (.glonass, id - 64)
        case 120...158: return (.sbas, id)
        case 193...202: return (.qzss, id - 192)
        case 201...237: return (.beidou, id - 200)
        case 301...336: return (.galileo, id - 300)
        case 401...437: return (.beidou, id - 400)
        default: return (.unknown, id)
        }
    }

    private static func usedKey(_ c: Constellation?, _ id: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: (c?.rawValue ?? 254) << 16) | UInt32(truncatingIfNeeded: id & 0xFFFF)
    }

    mutating func add(_ gsv: GSV, talker: Talker) {
        let key = Key(talker: talker, signal: gsv.signalID ?? -1)
        let number = gsv.messageNumber ?? 1
        let index: Int
        if let found = streams.firstIndex(where: { $0.key == key }) { index = found } else {
            // Bounded whatever the input: at most 64 streams (talker × signal id) are tracked.
            if streams.count >= 64 { streams.removeFirst() }
            streams.append(Stream(key: key))
            index = streams.count - 1
        }
        streams[index].epoch = epoch
        if number <= 1 { streams[index].pending.removeAll(keepingCapacity: true) }
        for s in gsv.satellites {
            let (c, svid) = Self.constellation(talker: talker, nmeaID: s.id)
            streams[index].pending.append(
                SatelliteInfo(nmeaID: s.id, constellation: c, svid: svid, elevationDegrees: s.elevationDegrees,
                              azimuthDegrees: s.azimuthDegrees, snrDBHz: s.snrDBHz, used: false,
                              signalID: gsv.signalID))
        }
        if let total = gsv.totalMessages, number >= total {
            // Exchange the buffers (the old completed list's storage is reused for the next set).
            let done = streams[index].pending
            streams[index].pending = streams[index].completed
            streams[index].completed = done
            streams[index].pending.removeAll(keepingCapacity: true)
            streams[index].hasCompleted = true
            changed = true
        }
        if let v = gsv.satellitesInView { satellitesInViewReported = v }
    }

    mutating func add(_ gsa: GSA, talker: Talker) {
        var c: Constellation? = talker == Talker("GN") ? nil : talker.constellation
        if let sys = gsa.systemID {
            switch sys {
            case 1: c = .gps
            case 2: c = .glonass
            case 3: c = .galileo
            case 4: c = .beidou
            case 5: c = .qzss
            case 6: c = .navic
            default: break
            }
        }
        for id in gsa.satelliteIDs {
            let key = Self.usedKey(c, Int(id))
            if !used.contains(key) { used.append(key) }
            let any = Self.usedKey(nil, Int(id))
            if !used.contains(any) { used.append(any) }
        }
        changed = true
    }

    /// Builds the sky view and starts a new epoch for the used lists.
    mutating func report() -> SkyReport {
        var sky = SkyReport()
        sky.satellites.reserveCapacity(64)
        if seenBits.isEmpty { seenBits = Array(repeating: 0, count: 1 << 11) }
        seenSet.removeAll(keepingCapacity: true)
        streams.removeAll { epoch - $0.epoch > Self.maximumAgeInCycles }
        for stream in streams where stream.hasCompleted {
            let list = stream.completed
            for var s in list {
                // Deduplicate (the same satellite in GP and GN lists) with a bitmap over
                // constellation × svid × signal, cleared after use.
                let c = s.constellation == .unknown ? 8 : s.constellation.rawValue
                let bit = (c << 13) | ((s.svid & 0x1FF) << 4) | ((s.signalID ?? 0) & 0xF)
                let word = bit >> 6, mask = UInt64(1) << UInt64(bit & 63)
                guard seenBits[word] & mask == 0 else { continue }
                seenBits[word] |= mask
                seenSet.append(word)
                s.used = used.contains(Self.usedKey(s.constellation, s.nmeaID)) || used.contains(Self.usedKey(nil, s.nmeaID))
                sky.satellites.append(s)
            }
        }
        for w in seenSet { seenBits[w] = 0 }
        changed = false
        return sky
    }

    mutating func startEpoch() {
        epoch += 1
        used.removeAll(keepingCapacity: true)
        changed = false
    }
}
