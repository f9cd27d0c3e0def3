import Testing
@testable import LocationServices
@Test func LocationServicesBuilds() { #expect(Bool(true)) }
