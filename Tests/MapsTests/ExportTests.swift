import LocationCore
import Testing
import TestSupport
@testable import Maps

@Suite(.ownThreads) struct ExportTests {
    @Test func gpxLongitudeStaysInItsSchemaRange() {
        var d = MapData()
        d.raw = [TrackPoint(latitudeDegrees: 0, longitudeDegrees: 180), TrackPoint(latitudeDegrees: 0.001, longitudeDegrees: 179.999)]
        let gpx = TrackExporter.export(d, format: .gpx)
        #expect(gpx.contains("lon=\"-180.000000000\"") && gpx.contains("lon=\"179.999000000\""))
    }

    @Test func jsonLinesReaderCountsCorruptLinesAndParsesTimes() {
        var r = JSONLinesTrackReader()
        r.read(Array("""
        {"class":"fix","time":"2020-05-14T22:10:46.123456Z","mode":"3d","latitudeDegrees":37.1,"longitudeDegrees":-122.2,"smoothed":true}
        not json
        {"class":"fix","time":"2020-05-14T22:10:47Z","mode":"none"}
        {"class":"heading","magneticHeadingDegrees":10,"trueHeadingDegrees":-1.00,"headingAccuracyDegrees":-1.00,"interference":"transient"}
        {"class":"fix","time":"2020-05-14T22:10:48.000Z","mode":"2d","quality":"gnssDeadReckoning","latitudeDegrees":37.2,"longitudeDegrees":-122.3}

        """.utf8))
        #expect(r.lines == 5 && r.corruptLines == 1)  // five non-blank lines, one of them not JSON
        #expect(r.data.smoothed.count == 1 && r.data.raw.count == 1)
        #expect(r.data.smoothed[0].time == Timestamp(year: 2020, month: 5, day: 14, hour: 22, minute: 10, second: 46, nanosecond: 123_456_000))
        #expect(r.data.raw[0].isDeadReckoned && r.data.raw[0].interference)
        #expect(r.data.raw[0].headingAccuracyDegrees == -1 && r.data.raw[0].headingDegrees == 10)
        #expect(r.data.headingEvents == 1 && r.data.validHeadingEvents == 0)
        #expect(Timestamp.parseISO8601("2020-05-14T22:10:46") == nil && Timestamp.parseISO8601("garbage") == nil)
    }

    @Test func regionsGeoJSONRoundTrip() throws {
        let text = """
        [{"identifier": "depot \\"A\\"", "latitude": 37.3861, "longitude": -122.0839, "radius": 150.5, "notifyOnExit": false}]
        """
        let regions = try RegionIO.parse(Array(text.utf8))
        let back = try RegionIO.parse(Array(RegionIO.geoJSON(regions).utf8))
        #expect(back == regions)
        let noRadius = #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"identifier":"x"}}]}"#
        #expect(throws: RegionIO.FormatError.self) { try RegionIO.parse(Array(noRadius.utf8)) }
    }
}
