import Testing
import TestSupport
@testable import Geocoding

/// Forward search at the edges a new user hits: an exact name against an alternate name of a bigger place,
/// capitals, "City of …" forms (issue 18's examples).
@Suite(.ownThreads) struct ForwardRankingTests {
    @Test(arguments: [
        ("Islamabad", "PK"), ("Bridgetown", "BB"), ("Adamstown", "PN"), ("Victoria", "SC"),
        ("City of San Marino", "SM"), ("the city of Victoria", "SC"), ("Panama City", "PA"), ("Guatemala City", "GT"),
        ("Cologne", "DE"), ("Paris, TX", "US"), ("Springfield, Illinois", "US"),
    ])
    func topResult(query: String, country: String) throws {
        let g = try Geocoder.shared()
        let top = g.geocode(query, limit: 3).first
        #expect(top?.isoCountryCode == country, "\(query): \(String(describing: top?.name)) \(String(describing: top?.isoCountryCode))")
    }

    @Test func capitalsTableIsEmbedded() {
        let c = Capitals.embedded
        #expect(c.national.count > 200 && c.admin1.count > 3000)
        #expect(c.rank(3374036) == .national)      // Bridgetown
        #expect(c.rank(6174041) == .admin1Seat)    // Victoria, British Columbia
        #expect(c.rank(5128581) == .none)          // New York City is neither
    }

    @Test func cityOfWithoutACityStillFindsNothing() throws {
        #expect(try Geocoder.shared().geocode("City of Nowhereland Xyzzy").isEmpty)
    }
}
