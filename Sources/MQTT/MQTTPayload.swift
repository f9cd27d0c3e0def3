import Events
import LocationCore
import LocationServices

/// Message bodies: Lodestar JSON, OwnTracks JSON, Home Assistant discovery (docs/fleet.md, "Payloads").
public enum MQTTPayload {
    /// One Lodestar JSON object (docs/output.md), without the newline.
    public static func lodestar(_ event: OutputEvent) -> [UInt8] {
        var encoder = LodestarJSONEncoder()
        var out = ByteBuffer(capacity: 1024)
        encoder.encode(event, into: &out)
        var bytes = out.array
        while bytes.last == 0x0A { bytes.removeLast() }
        return bytes
    }

    /// `{"class":"sky","time":…,"satellitesUsed":…,"satellitesVisible":…,"hdop":…,…}` without the satellite list.
    public static func skySummary(_ s: SkyReport) -> [UInt8] {
        var parts = ["\"class\":\"sky\""]
        if let t = s.time { parts.append("\"time\":\"\(t.iso8601(fractionDigits: 3))\"") }
        if let n = s.satellitesUsed { parts.append("\"satellitesUsed\":\(n)") }
        parts.append("\"satellitesVisible\":\(s.satellites.count)")
        for (k, v) in [("hdop", s.hdop), ("vdop", s.vdop), ("pdop", s.pdop)] {
            if let v, v.isFinite { parts.append("\"\(k)\":\(fixed(v, 2))") }
        }
        return Array(("{" + parts.joined(separator: ",") + "}").utf8)
    }

    /// OwnTracks' tracker id: the device name's last two characters.
    static func trackerID(_ device: String) -> String { String(device.suffix(2)) }

    /// OwnTracks `_type: location` (https://owntracks.org/booklet/tech/json/): tst s, lat/lon °, acc/alt/vac m,
    /// vel km/h, cog ° (integers, as the apps send them), tid, and `t` = "t" (periodic publish while moving).
    /// Nil for a fix without a position or time.
    public static func ownTracksLocation(_ l: Location, device: String) -> [UInt8]? {
        guard let t = l.time, let lat = l.latitudeDegrees, let lon = l.longitudeDegrees else { return nil }
        var parts = ["\"_type\":\"location\"", "\"tst\":\(t.nanosecondsSince1970 / 1_000_000_000)",
                     "\"lat\":\(fixed(lat, 7))", "\"lon\":\(fixed(lon, 7))"]
        func int(_ key: String, _ v: Double?) { if let v, v.isFinite { parts.append("\"\(key)\":\(Int(v.rounded()))") } }
        int("acc", l.horizontalAccuracyMeters)
        int("alt", l.altitudeMSLMeters)
        int("vac", l.verticalAccuracyMeters)
        int("vel", l.speedMetersPerSecond.map { $0 * 3.6 })
        int("cog", l.courseDegrees)
        parts.append("\"tid\":\(JSONText.quoted(trackerID(device)))")
        parts.append("\"t\":\"t\"")
        return Array(("{" + parts.joined(separator: ",") + "}").utf8)
    }

    /// OwnTracks `_type: transition` for a region event: event "enter"/"leave", desc = region identifier,
    /// t = "c" (circular region), wtst = the event time (the region's creation time is not known).
    public static func ownTracksTransition(_ e: RegionEvent, device: String) -> [UInt8] {
        let tst = e.time.nanosecondsSince1970 / 1_000_000_000
        var parts = ["\"_type\":\"transition\"", "\"wtst\":\(tst)", "\"tst\":\(tst)"]
        if let lat = e.location.latitudeDegrees, let lon = e.location.longitudeDegrees {
            parts.append("\"lat\":\(fixed(lat, 7))"); parts.append("\"lon\":\(fixed(lon, 7))")
        }
        if let a = e.location.horizontalAccuracyMeters, a.isFinite { parts.append("\"acc\":\(Int(a.rounded()))") }
        parts.append("\"tid\":\(JSONText.quoted(trackerID(device)))")
        parts.append("\"event\":\"\(e.kind == .enter ? "enter" : "leave")\"")
        parts.append("\"desc\":\(JSONText.quoted(e.identifier))")
        parts.append("\"t\":\"c\"")
        return Array(("{" + parts.joined(separator: ",") + "}").utf8)
    }

    /// Home Assistant MQTT discovery: a `device_tracker` fed by the fix topic's JSON attributes and a heading
    /// `sensor`, both tied to the availability topic, under `discoveryPrefix` (Home Assistant's default: homeassistant).
    public static func homeAssistantDiscovery(topics: MQTTTopics, discoveryPrefix: String) -> [(String, [UInt8])] {
        let id = "lodestar_" + String(topics.device.map { $0.isLetter || $0.isNumber ? $0 : "_" })
        let device = "{\"identifiers\":[\(JSONText.quoted(id))],\"name\":\(JSONText.quoted(topics.device)),\"manufacturer\":\"Lodestar\",\"model\":\"Lodestar board\"}"
        let availability = "\"availability_topic\":\(JSONText.quoted(topics.availability)),\"payload_available\":\"online\",\"payload_not_available\":\"offline\""
        let attributes = topics.format == .owntracks
            ? "{{ {'latitude': value_json.lat, 'longitude': value_json.lon, 'gps_accuracy': value_json.acc} | tojson }}"
            : "{{ {'latitude': value_json.latitudeDegrees, 'longitude': value_json.longitudeDegrees, 'gps_accuracy': value_json.horizontalAccuracyMeters, 'altitude': value_json.altitudeMSLMeters, 'speed': value_json.speedMetersPerSecond, 'course': value_json.courseDegrees} | tojson }}"
        let tracker = "{\"name\":\"Location\",\"unique_id\":\(JSONText.quoted(id + "_location")),\"source_type\":\"gps\",\"json_attributes_topic\":\(JSONText.quoted(topics.fix)),\"json_attributes_template\":\(JSONText.quoted(attributes)),\(availability),\"device\":\(device)}"
        let headingTemplate = "{{ value_json.trueHeadingDegrees if value_json.trueHeadingDegrees >= 0 else value_json.magneticHeadingDegrees }}"
        let heading = "{\"name\":\"Heading\",\"unique_id\":\(JSONText.quoted(id + "_heading")),\"state_topic\":\(JSONText.quoted(topics.heading)),\"value_template\":\(JSONText.quoted(headingTemplate)),\"unit_of_measurement\":\"°\",\"state_class\":\"measurement\",\"icon\":\"mdi:compass\",\(availability),\"device\":\(device)}"
        return [("\(discoveryPrefix)/device_tracker/\(id)/config", Array(tracker.utf8)),
                ("\(discoveryPrefix)/sensor/\(id)_heading/config", Array(heading.utf8))]
    }

    /// `v` with `decimals` digits after the point (no exponent).
    static func fixed(_ v: Double, _ decimals: Int) -> String {
        var out = ByteBuffer(capacity: 32)
        out.appendFixed(v, decimals: decimals)
        return String(decoding: out.array, as: UTF8.self)
    }
}
