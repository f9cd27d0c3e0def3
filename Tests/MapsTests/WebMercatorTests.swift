import Testing
import TestSupport
@testable import Maps

/// Web Mercator against published slippy-map numbers.
@Suite(.ownThreads) struct WebMercatorTests {
    /// Google Maps JavaScript API documentation, "Map and tile coordinates": Chicago (41.85, −87.65) has world
    /// coordinate (65.67111, 95.17492) (zoom 0), pixel coordinate (525, 761) and tile (2, 2) at zoom 3.
    @Test func chicagoFromGoogleDocumentation() {
        let w = WebMercator.pixel(latitude: 41.85, longitude: -87.65, zoom: 0)
        #expect(abs(w.x - 65.67111) < 1e-4)
        #expect(abs(w.y - 95.17492) < 1e-4)
        let p = WebMercator.pixel(latitude: 41.85, longitude: -87.65, zoom: 3)
        #expect(Int(p.x) == 525 && Int(p.y) == 761)
        #expect(WebMercator.tile(latitude: 41.85, longitude: -87.65, zoom: 3) == (2, 2))
    }

    /// Tiles holding known places, by the formula of the OpenStreetMap wiki ("Slippy map tilenames"): the London
    /// tile 10/511/340 is the one OSM pages commonly show; the others were checked by hand with that formula.
    @Test(arguments: [
        // (lat, lon, zoom, x, y)
        (51.5074, -0.1278, 10, 511, 340),      // London (tile 10/511/340)
        (48.8566, 2.3522, 12, 2074, 1409),     // Paris (12/2074/1409)
        (52.52, 13.405, 13, 4401, 2686),       // Berlin (13/4401/2686)
        (-33.8688, 151.2093, 11, 1884, 1228),  // Sydney (11/1884/1228)
        (0.0, 0.0, 1, 1, 1),
        (85.0511, -180.0, 5, 0, 0),
        (-85.0511, 179.9999, 5, 31, 31),
    ])
    func tiles(lat: Double, lon: Double, zoom: Int, x: Int, y: Int) {
        let t = WebMercator.tile(latitude: lat, longitude: lon, zoom: zoom)
        #expect(t.x == x && t.y == y, "\(lat),\(lon) z\(zoom): \(t)")
    }

    /// EPSG:3857 metres: the world's edge is ±20037508.34 m; Greenwich/equator is 0.
    @Test func projectedMeters() {
        let e = WebMercator.meters(latitude: WebMercator.maximumLatitude, longitude: 180)
        #expect(abs(e.x - 20_037_508.342789244) < 1e-6)
        #expect(abs(e.y - 20_037_508.342789244) < 1e-3)
        let z = WebMercator.meters(latitude: 0, longitude: 0)
        #expect(abs(z.x) < 1e-9 && abs(z.y) < 1e-9)
        // 156543.03 m per pixel at zoom 0 on the equator (OSM wiki "Zoom levels").
        #expect(abs(WebMercator.metersPerPixel(latitude: 0, zoom: 0) - 156_543.034) < 0.01)
    }

    @Test func inverseRoundTrips() {
        for (lat, lon) in [(37.386, -122.084), (-45.4576, 167.1527), (64.1, -21.9), (0.0, 0.0)] {
            let p = WebMercator.pixel(latitude: lat, longitude: lon, zoom: 15.3)
            let c = WebMercator.coordinate(x: p.x, y: p.y, zoom: 15.3)
            #expect(abs(c.latitude - lat) < 1e-9 && abs(c.longitude - lon) < 1e-9)
        }
    }

    @Test func viewportFitsTheBox() {
        let box = BoundingBox(minLatitude: 37.38, maxLatitude: 37.43, minLongitude: -122.11, maxLongitude: -122.05)
        let v = MapViewport(fitting: box, width: 1000, height: 600, margin: 50)
        let nw = v.point(latitude: box.maxLatitude, longitude: box.minLongitude)
        let se = v.point(latitude: box.minLatitude, longitude: box.maxLongitude)
        #expect(nw.x >= 49.999 && nw.y >= 49.999 && se.x <= 950.001 && se.y <= 550.001)
        // One side touches the margin (largest zoom that fits).
        #expect(abs(nw.x - 50) < 1e-6 || abs(nw.y - 50) < 1e-6)
        #expect(abs((nw.x + se.x) / 2 - 500) < 1e-6 && abs((nw.y + se.y) / 2 - 300) < 1e-6)
    }

    @Test func scaleBarIsRound() {
        let b = MapRenderer.scaleBar(metersPerPixel: 3.7, targetPixels: 200)  // 740 m → 500 m
        #expect(b.meters == 500 && b.label == "500 m" && abs(b.pixels - 500 / 3.7) < 1e-9)
        let k = MapRenderer.scaleBar(metersPerPixel: 40, targetPixels: 200)   // 8 km → 5 km
        #expect(k.meters == 5000 && k.label == "5 km")
    }
}
