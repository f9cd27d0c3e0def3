import LocationCore

/// Writes `MapData` as GPX 1.1, GeoJSON (RFC 7946), KML 2.2 or CSV.
public enum TrackExporter {
    public enum Format: String, CaseIterable, Sendable { case gpx, geojson, kml, csv }
    public enum Tracks: String, CaseIterable, Sendable { case smoothed, raw, both }

    public static func export(_ d: MapData, format: Format, tracks: Tracks = .smoothed, name: String = "Lodestar track") -> String {
        let list = selected(d, tracks)
        switch format {
        case .gpx: return gpx(d, list, name: name)
        case .geojson: return geoJSON(d, list, name: name)
        case .kml: return kml(d, list, name: name)
        case .csv: return csv(list)
        }
    }

    /// The tracks to write, named; `smoothed` falls back to raw when the input had no smoothed fixes.
    static func selected(_ d: MapData, _ t: Tracks) -> [(name: String, points: [TrackPoint])] {
        switch t {
        case .smoothed: return d.smoothed.isEmpty ? [("raw", d.raw)] : [("smoothed", d.smoothed)]
        case .raw: return [("raw", d.raw)]
        case .both: return [("raw", d.raw), ("smoothed", d.smoothed)].filter { !$0.1.isEmpty }
        }
    }

    static func time(_ t: Timestamp) -> String { t.iso8601(fractionDigits: 3) }

    // MARK: GPX 1.1

    public static let lodestarNamespace = "https://github.com/lodestar-gnss/lodestar/gpx/1"
    public static let garminTrackPointExtension = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2"

    static func gpx(_ d: MapData, _ tracks: [(name: String, points: [TrackPoint])], name: String) -> String {
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s += "<gpx version=\"1.1\" creator=\"Lodestar\" xmlns=\"http://www.topografix.com/GPX/1/1\""
        s += " xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xmlns:gpxtpx=\"\(garminTrackPointExtension)\""
        s += " xmlns:lodestar=\"\(lodestarNamespace)\""
        s += " xsi:schemaLocation=\"http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd\">\n"
        s += "<metadata><name>\(xml(name))</name>"
        if let t = tracks.first?.points.first?.time { s += "<time>\(time(t))</time>" }
        let b = d.boundingBox
        if !b.isEmpty {
            s += "<bounds minlat=\"\(fmt(b.minLatitude, 9))\" minlon=\"\(fmt(b.minLongitude, 9))\" maxlat=\"\(fmt(b.maxLatitude, 9))\" maxlon=\"\(fmt(b.maxLongitude, 9))\"/>"
        }
        s += "</metadata>\n"
        for v in d.visits {
            s += "<wpt lat=\"\(fmt(v.latitudeDegrees, 9))\" lon=\"\(fmt(v.longitudeDegrees, 9))\">"
            if let a = v.arrival { s += "<time>\(time(a))</time>" }
            s += "<name>visit</name><desc>\(xml(visitText(v)))</desc><type>visit</type></wpt>\n"
        }
        for c in d.crossings {
            s += "<wpt lat=\"\(fmt(c.latitudeDegrees, 9))\" lon=\"\(fmt(c.longitudeDegrees, 9))\">"
            if let t = c.time { s += "<time>\(time(t))</time>" }
            s += "<name>\(c.isEntry ? "enter" : "exit") \(xml(c.identifier))</name><type>region \(c.isEntry ? "entry" : "exit")</type></wpt>\n"
        }
        for t in tracks {
            s += "<trk><name>\(t.name)</name><trkseg>\n"
            for p in t.points {
                s += "<trkpt lat=\"\(fmt(p.latitudeDegrees, 9))\" lon=\"\(fmt(gpxLongitude(p.longitudeDegrees), 9))\">"
                if let e = p.altitudeMSLMeters { s += "<ele>\(fmt(e, 3))</ele>" }
                if let t = p.time { s += "<time>\(time(t))</time>" }
                if let n = p.satellitesUsed, n >= 0 { s += "<sat>\(n)</sat>" }
                if let h = p.hdop { s += "<hdop>\(fmt(h, 2))</hdop>" }
                var ext = ""
                if p.speedMetersPerSecond != nil || p.courseDegrees != nil {
                    ext += "<gpxtpx:TrackPointExtension>"
                    if let v = p.speedMetersPerSecond { ext += "<gpxtpx:speed>\(fmt(v, 3))</gpxtpx:speed>" }
                    if let c = p.courseDegrees { ext += "<gpxtpx:course>\(fmt(c, 3))</gpxtpx:course>" }
                    ext += "</gpxtpx:TrackPointExtension>"
                }
                if let a = p.horizontalAccuracyMeters { ext += "<lodestar:horizontalAccuracyMeters>\(fmt(a, 3))</lodestar:horizontalAccuracyMeters>" }
                if let h = p.headingDegrees { ext += "<lodestar:headingDegrees>\(fmt(h, 2))</lodestar:headingDegrees>" }
                if let a = p.headingAccuracyDegrees { ext += "<lodestar:headingAccuracyDegrees>\(fmt(a, 2))</lodestar:headingAccuracyDegrees>" }
                if p.isDeadReckoned { ext += "<lodestar:deadReckoned>true</lodestar:deadReckoned>" }
                if p.interference { ext += "<lodestar:interference>true</lodestar:interference>" }
                if !ext.isEmpty { s += "<extensions>\(ext)</extensions>" }
                s += "</trkpt>\n"
            }
            s += "</trkseg></trk>\n"
        }
        return s + "</gpx>\n"
    }

    /// GPX longitudes lie in [−180, 180).
    static func gpxLongitude(_ lon: Double) -> Double {
        var l = lon.truncatingRemainder(dividingBy: 360)
        if l >= 180 { l -= 360 } else if l < -180 { l += 360 }
        return l
    }

    static func visitText(_ v: MapVisit) -> String {
        var s = "stop"
        if let a = v.arrival { s += " from \(time(a))" }
        if let dep = v.departure { s += " to \(time(dep))" }
        return s + ", accuracy \(fmt(v.horizontalAccuracyMeters, 1)) m"
    }

    // MARK: GeoJSON (RFC 7946)

    static func position(_ p: TrackPoint) -> String {
        var s = "[\(fmt(p.longitudeDegrees, 9)),\(fmt(p.latitudeDegrees, 9))"
        if let e = p.altitudeMSLMeters { s += ",\(fmt(e, 3))" }
        return s + "]"
    }

    static func geoJSON(_ d: MapData, _ tracks: [(name: String, points: [TrackPoint])], name: String) -> String {
        var features: [String] = []
        for t in tracks where !t.points.isEmpty {
            // A LineString needs two positions; a single fix stays a Point below.
            if t.points.count >= 2 {
                var f = "{\"type\":\"Feature\",\"properties\":{\"kind\":\"track\",\"track\":\"\(t.name)\",\"name\":\(jsonString(name))"
                if let a = t.points.first?.time { f += ",\"startTime\":\"\(time(a))\"" }
                if let b = t.points.last?.time { f += ",\"endTime\":\"\(time(b))\"" }
                f += ",\"fixes\":\(t.points.count)},\"geometry\":{\"type\":\"LineString\",\"coordinates\":["
                f += t.points.map(position).joined(separator: ",") + "]}}"
                features.append(f)
            }
            for p in t.points {
                var props = ["\"kind\":\"fix\"", "\"track\":\"\(t.name)\""]
                if let v = p.time { props.append("\"time\":\"\(time(v))\"") }
                if let v = p.altitudeMSLMeters { props.append("\"altitudeMSLMeters\":\(fmt(v, 3))") }
                if let v = p.horizontalAccuracyMeters { props.append("\"horizontalAccuracyMeters\":\(fmt(v, 3))") }
                if let v = p.speedMetersPerSecond { props.append("\"speedMetersPerSecond\":\(fmt(v, 3))") }
                if let v = p.courseDegrees { props.append("\"courseDegrees\":\(fmt(v, 3))") }
                if let v = p.hdop { props.append("\"hdop\":\(fmt(v, 2))") }
                if let v = p.satellitesUsed { props.append("\"satellitesUsed\":\(v)") }
                if let v = p.headingDegrees { props.append("\"headingDegrees\":\(fmt(v, 2))") }
                if let v = p.headingAccuracyDegrees { props.append("\"headingAccuracyDegrees\":\(fmt(v, 2))") }
                props.append("\"deadReckoned\":\(p.isDeadReckoned)")
                props.append("\"interference\":\(p.interference)")
                features.append("{\"type\":\"Feature\",\"properties\":{\(props.joined(separator: ","))},\"geometry\":{\"type\":\"Point\",\"coordinates\":\(position(p))}}")
            }
        }
        for v in d.visits {
            var props = ["\"kind\":\"visit\"", "\"horizontalAccuracyMeters\":\(fmt(v.horizontalAccuracyMeters, 3))"]
            if let a = v.arrival { props.append("\"arrivalTime\":\"\(time(a))\"") }
            if let b = v.departure { props.append("\"departureTime\":\"\(time(b))\"") }
            features.append("{\"type\":\"Feature\",\"properties\":{\(props.joined(separator: ","))},\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(fmt(v.longitudeDegrees, 9)),\(fmt(v.latitudeDegrees, 9))]}}")
        }
        for c in d.crossings {
            var props = ["\"kind\":\"region\(c.isEntry ? "Entry" : "Exit")\"", "\"identifier\":\(jsonString(c.identifier))"]
            if let t = c.time { props.append("\"time\":\"\(time(t))\"") }
            features.append("{\"type\":\"Feature\",\"properties\":{\(props.joined(separator: ","))},\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(fmt(c.longitudeDegrees, 9)),\(fmt(c.latitudeDegrees, 9))]}}")
        }
        for r in d.regions {
            features.append("{\"type\":\"Feature\",\"properties\":{\"kind\":\"region\",\"identifier\":\(jsonString(r.identifier)),\"radius\":\(RegionIO.num(r.radiusMeters))},\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(fmt(r.longitudeDegrees, 9)),\(fmt(r.latitudeDegrees, 9))]}}")
        }
        return "{\"type\":\"FeatureCollection\",\"features\":[\n" + features.joined(separator: ",\n") + "\n]}\n"
    }

    // MARK: KML 2.2

    static func kml(_ d: MapData, _ tracks: [(name: String, points: [TrackPoint])], name: String) -> String {
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s += "<kml xmlns=\"http://www.opengis.net/kml/2.2\" xmlns:gx=\"http://www.google.com/kml/ext/2.2\">\n<Document>\n"
        s += "<name>\(xml(name))</name>\n"
        s += "<Style id=\"track\"><LineStyle><color>ffe8731a</color><width>3</width></LineStyle></Style>\n"
        s += "<Style id=\"raw\"><LineStyle><color>ff968f8a</color><width>1.5</width></LineStyle></Style>\n"
        for t in tracks where !t.points.isEmpty {
            s += "<Placemark><name>\(t.name) track</name><styleUrl>#\(t.name == "raw" ? "raw" : "track")</styleUrl>"
            if t.points.count >= 2 {
                s += "<LineString><tessellate>1</tessellate><coordinates>\n"
                for p in t.points { s += kmlCoordinate(p) + "\n" }
                s += "</coordinates></LineString>"
            } else {
                s += "<Point><coordinates>\(kmlCoordinate(t.points[0]))</coordinates></Point>"
            }
            s += "</Placemark>\n"
            // The timed track (gx:Track, KML 2.2 extension) for players such as Google Earth.
            let timed = t.points.filter { $0.time != nil }
            if timed.count >= 2 {
                s += "<Placemark><name>\(t.name) track (timed)</name><gx:Track>\n"
                for p in timed { s += "<when>\(time(p.time!))</when>\n" }
                for p in timed { s += "<gx:coord>\(fmt(p.longitudeDegrees, 9)) \(fmt(p.latitudeDegrees, 9)) \(fmt(p.altitudeMSLMeters ?? 0, 3))</gx:coord>\n" }
                s += "</gx:Track></Placemark>\n"
            }
        }
        for v in d.visits {
            s += "<Placemark><name>visit</name><description>\(xml(visitText(v)))</description>"
            s += "<Point><coordinates>\(fmt(v.longitudeDegrees, 9)),\(fmt(v.latitudeDegrees, 9))</coordinates></Point></Placemark>\n"
        }
        for c in d.crossings {
            s += "<Placemark><name>\(c.isEntry ? "enter" : "exit") \(xml(c.identifier))</name>"
            if let t = c.time { s += "<TimeStamp><when>\(time(t))</when></TimeStamp>" }
            s += "<Point><coordinates>\(fmt(c.longitudeDegrees, 9)),\(fmt(c.latitudeDegrees, 9))</coordinates></Point></Placemark>\n"
        }
        return s + "</Document>\n</kml>\n"
    }

    static func kmlCoordinate(_ p: TrackPoint) -> String {
        "\(fmt(p.longitudeDegrees, 9)),\(fmt(p.latitudeDegrees, 9))" + (p.altitudeMSLMeters.map { ",\(fmt($0, 3))" } ?? "")
    }

    // MARK: CSV

    public static let csvHeader = "track,time,latitudeDegrees,longitudeDegrees,altitudeMSLMeters,horizontalAccuracyMeters,speedMetersPerSecond,courseDegrees,hdop,satellitesUsed,headingDegrees,headingAccuracyDegrees,deadReckoned,interference"

    static func csv(_ tracks: [(name: String, points: [TrackPoint])]) -> String {
        var s = csvHeader + "\n"
        func o(_ v: Double?, _ d: Int) -> String { v.map { fmt($0, d) } ?? "" }
        for t in tracks {
            for p in t.points {
                s += [t.name, p.time.map(time) ?? "", fmt(p.latitudeDegrees, 9), fmt(p.longitudeDegrees, 9),
                      o(p.altitudeMSLMeters, 3), o(p.horizontalAccuracyMeters, 3), o(p.speedMetersPerSecond, 3),
                      o(p.courseDegrees, 3), o(p.hdop, 2), p.satellitesUsed.map(String.init) ?? "",
                      o(p.headingDegrees, 2), o(p.headingAccuracyDegrees, 2),
                      p.isDeadReckoned ? "1" : "0", p.interference ? "1" : "0"].joined(separator: ",") + "\n"
            }
        }
        return s
    }
}
