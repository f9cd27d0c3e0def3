import Testing
@testable import Geocoding
@Test func GeocodingBuilds() { #expect(Bool(true)) }
