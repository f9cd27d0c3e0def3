import LocationCore
import LocationServices

/// Board messages the fleet understands: Lodestar JSON fixes on `P/D/fix`, OwnTracks locations on `P/D`.
enum FleetMessage {
    /// The device id of a fix topic under `prefix` (nil for other topics).
    static func device(topic: String, prefix: String) -> (device: String, ownTracks: Bool)? {
        guard topic.hasPrefix(prefix + "/") else { return nil }
        let rest = topic.dropFirst(prefix.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        if rest.count == 2, rest[1] == "fix", !rest[0].isEmpty { return (String(rest[0]), false) }
        if rest.count == 1, !rest[0].isEmpty { return (String(rest[0]), true) }
        return nil
    }

    /// A fix with a position and a time, or nil (a no-fix report, another `_type`, or malformed JSON).
    static func parse(_ payload: [UInt8], ownTracks: Bool) -> Location? {
        guard let v = try? JSONValue.parse(payload) else { return nil }
        var l = Location()
        if ownTracks {
            guard v["_type"]?.string == "location", let tst = v["tst"]?.number, let lat = v["lat"]?.number, let lon = v["lon"]?.number
            else { return nil }
            l.time = Timestamp(nanosecondsSince1970: Int64(tst) * 1_000_000_000)
            l.latitudeDegrees = lat; l.longitudeDegrees = lon
            l.horizontalAccuracyMeters = v["acc"]?.number
            l.altitudeMSLMeters = v["alt"]?.number
            l.verticalAccuracyMeters = v["vac"]?.number
            l.speedMetersPerSecond = v["vel"]?.number.map { $0 / 3.6 }
            l.courseDegrees = v["cog"]?.number
            l.mode = .threeD
        } else {
            guard v["class"]?.string == "fix", let t = v["time"]?.string.flatMap(Timestamp.parseISO8601),
                  let lat = v["latitudeDegrees"]?.number, let lon = v["longitudeDegrees"]?.number else { return nil }
            l.time = t
            l.latitudeDegrees = lat; l.longitudeDegrees = lon
            l.altitudeMSLMeters = v["altitudeMSLMeters"]?.number
            l.horizontalAccuracyMeters = v["horizontalAccuracyMeters"]?.number
            l.verticalAccuracyMeters = v["verticalAccuracyMeters"]?.number
            l.speedMetersPerSecond = v["speedMetersPerSecond"]?.number
            l.courseDegrees = v["courseDegrees"]?.number
            switch v["mode"]?.string {
            case "3d": l.mode = .threeD
            case "2d": l.mode = .twoD
            case "none": l.mode = .noFix
            default: l.mode = .unknown
            }
        }
        guard (-90...90).contains(l.latitudeDegrees!), (-180...180).contains(l.longitudeDegrees!) else { return nil }
        return l
    }

    /// FNV-1a of the device id, for `--shard K/N`.
    static func shard(of device: String, count: Int) -> Int {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in device.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return Int(h % UInt64(count))
    }
}
