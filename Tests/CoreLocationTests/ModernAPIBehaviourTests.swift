#if !canImport(Darwin)  // behaviour of this package's CoreLocation (LODESTAR_REPLAY, internals)
import Foundation
import Testing
import CoreLocation
import Contacts

@Suite struct ModernAPIBehaviourTests {
    init() { ReplayEnvironment.configure() }

    @Test func liveUpdatesWithBackgroundActivitySession() async throws {
        let tracker = Tracker()
        try await tracker.track(maximum: 5)
        try #require(tracker.points.count == 5)   // (not an #expect: points[0] below would trap on none)
        let first = tracker.points[0].coordinate
        #expect(abs(first.latitude - 37.3861) < 0.001)
        #expect(zip(tracker.points, tracker.points.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
    }

    @Test func monitorReportsEntriesAndExits() async throws {
        let places = [ReplayEnvironment.start, ReplayEnvironment.stop, ReplayEnvironment.elsewhere].map {
            ($0.name, CLLocationCoordinate2D(latitude: $0.latitude, longitude: $0.longitude), $0.radius)
        }
        let log = try await watchWithMonitor(places) { $0.contains("exit stop") }
        #expect(log == ["enter start", "exit start", "enter stop", "exit stop"])
    }

    @Test func reverseGeocodingWithPostalAddress() async throws {
        let lookup = AddressLookup()
        let drive = CLLocation(latitude: 37.386096, longitude: -122.083878)
        let text: String? = await withCheckedContinuation { k in lookup.address(at: drive) { k.resume(returning: $0) } }
        let address = try #require(text)
        #expect(address.contains("Mountain View"))
        #expect(address.hasSuffix("United States"))
        let placemark = try #require(try await lookup.placemark(at: drive))
        #expect(placemark.locality == "Mountain View")
        #expect(placemark.isoCountryCode == "US")
        #expect(placemark.timeZone?.identifier == "America/Los_Angeles")
        #expect(AddressLookup.label(placemark) == address)
    }

    @Test func forwardGeocoding() async throws {
        let coordinate = try #require(try await AddressLookup().coordinate(of: "Mountain View, California"))
        #expect(coordinate.distance(to: CLLocationCoordinate2D(latitude: 37.386, longitude: -122.084)) < 10_000)
    }

    @Test func geocoderFailsWithNoResult() async {
        do {
            _ = try await CLGeocoder().geocodeAddressString("qqqqzzzzxxxx")
            Issue.record("expected an error")
        } catch CLError.geocodeFoundNoResult {
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func postalAddressFormatting() {
        let a = CNMutablePostalAddress()
        a.street = "1 Main Street"
        a.city = "Mountain View"
        a.state = "CA"
        a.postalCode = "94040"
        a.country = "United States"
        a.isoCountryCode = "US"
        #expect(CNPostalAddressFormatter.string(from: a, style: .mailingAddress)
                == "1 Main Street\nMountain View CA 94040\nUnited States")
        let copy = a.copy() as! CNPostalAddress
        #expect(copy == a)
        a.isoCountryCode = "DE"; a.city = "Berlin"; a.postalCode = "10115"; a.state = ""; a.country = "Germany"
        #expect(CNPostalAddressFormatter().string(from: a) == "1 Main Street\n10115 Berlin\nGermany")
    }
}

@Suite struct TypesTests {
    @Test func coordinateConformancesAddedByTheProgram() throws {
        let a = CLLocationCoordinate2D(latitude: 37.386096, longitude: -122.083878)
        let b = CLLocationCoordinate2DMake(37.385750, -122.076830)
        #expect(a == a && a != b)
        #expect(Set([a, a, b]).count == 2)
        let data = try JSONEncoder().encode([a, b])
        #expect(try JSONDecoder().decode([CLLocationCoordinate2D].self, from: data) == [a, b])
        #expect(abs(a.distance(to: b) - 621) < 5)
        let bearing = a.bearing(to: b)
        #expect(bearing > 85 && bearing < 95)
        #expect(!kCLLocationCoordinate2DInvalid.isValid && a.isValid)
    }

    @Test func constantsAndRawValuesAreApples() {
        #expect(CLAuthorizationStatus.notDetermined.rawValue == 0)
        #expect(CLAuthorizationStatus.restricted.rawValue == 1)
        #expect(CLAuthorizationStatus.denied.rawValue == 2)
        #expect(CLAuthorizationStatus.authorizedAlways.rawValue == 3)
        #expect(CLAuthorizationStatus.authorizedWhenInUse.rawValue == 4)
        #expect(kCLLocationAccuracyBestForNavigation == -2 && kCLLocationAccuracyBest == -1)
        #expect(kCLLocationAccuracyReduced == 3000 && kCLDistanceFilterNone == -1 && kCLHeadingFilterNone == -1)
        #expect(kCLErrorDomain == "kCLErrorDomain")
        #expect(CLError.Code.denied.rawValue == 1 && CLError.Code.rangingUnavailable.rawValue == 16)
        let error: Error = CLError(.denied)
        #expect((error as NSError).domain == kCLErrorDomain && (error as NSError).code == 1)
        switch error {
        case CLError.denied: break
        default: Issue.record("pattern did not match")
        }
    }

    @Test func locationSubclassAndDistance() throws {
        let tagged = TaggedLocation(tag: "depot", coordinate: CLLocationCoordinate2D(latitude: 37.38575, longitude: -122.07683))
        let other = CLLocation(coordinate: CLLocationCoordinate2D(latitude: 37.386096, longitude: -122.083878), altitude: 10,
                               horizontalAccuracy: 5, verticalAccuracy: 3, course: 90, courseAccuracy: 5, speed: 2,
                               speedAccuracy: 0.5, timestamp: Date(),
                               sourceInfo: CLLocationSourceInformation(softwareSimulationState: true, andExternalAccessoryState: false))
        #expect(abs(tagged.distance(from: other) - 621) < 5)
        #expect(tagged.description.hasPrefix("depot <+37.38575000,-122.07683000>"))
        #expect(other.sourceInformation?.isSimulatedBySoftware == true)
        #expect(other.courseAccuracy == 5 && other.speedAccuracy == 0.5 && other.ellipsoidalAltitude == 10)
    }

    @Test func mockManagerDrivesADelegate() {
        let mock = MockLocationManager()
        final class Sink: NSObject, CLLocationManagerDelegate {
            var got: [CLLocation] = []
            var errors: [Error] = []
            func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) { got += locations }
            func locationManager(_ manager: CLLocationManager, didFailWithError error: Error) { errors.append(error) }
        }
        let sink = Sink()
        mock.delegate = sink
        mock.requestLocation()
        #expect((sink.errors.first as? CLError)?.code == .locationUnknown)
        mock.stubbedLocations = [CLLocation(latitude: 1, longitude: 2)]
        mock.startUpdatingLocation()
        #expect(sink.got.count == 1 && mock.location?.coordinate.longitude == 2)
        #expect(mock.authorizationStatus == .authorizedWhenInUse && MockLocationManager.locationServicesEnabled())
    }
}
#endif
