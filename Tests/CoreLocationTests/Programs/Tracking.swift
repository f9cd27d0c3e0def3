// Shape: iOS 17 live updates kept going with a background activity session; a CLLocation subclass; a mock
// manager for unit tests.
import CoreLocation

@available(macOS 14, iOS 17, *)
final class Tracker {
    private var session: CLBackgroundActivitySession?
    private(set) var points: [CLLocation] = []

    func track(maximum: Int) async throws {
        session = CLBackgroundActivitySession()
        defer { session?.invalidate(); session = nil }
        let updates = CLLocationUpdate.liveUpdates(.automotiveNavigation)
        for try await update in updates {
            if update.authorizationDenied { break }
            if update.locationUnavailable { continue }
            guard let location = update.location else { continue }
            points.append(location)
            if points.count >= maximum { break }
        }
    }
}

final class TaggedLocation: CLLocation {
    let tag: String

    init(tag: String, coordinate: CLLocationCoordinate2D, accuracy: CLLocationAccuracy = 5) {
        self.tag = tag
        super.init(coordinate: coordinate, altitude: 0, horizontalAccuracy: accuracy, verticalAccuracy: -1,
                   timestamp: Date())
    }

    required init?(coder: NSCoder) {
        tag = coder.decodeObject(forKey: "tag") as? String ?? ""
        super.init(coder: coder)
    }

    override var description: String { "\(tag) \(super.description)" }
}

final class MockLocationManager: CLLocationManager {
    var stubbedLocations: [CLLocation] = []
    var stubbedStatus: CLAuthorizationStatus = .authorizedWhenInUse
    private(set) var startCount = 0

    override var authorizationStatus: CLAuthorizationStatus { stubbedStatus }
    override var location: CLLocation? { stubbedLocations.last }
    override class func locationServicesEnabled() -> Bool { true }

    override func startUpdatingLocation() {
        startCount += 1
        delegate?.locationManager(self, didUpdateLocations: stubbedLocations)
    }

    override func requestLocation() {
        if let last = stubbedLocations.last {
            delegate?.locationManager(self, didUpdateLocations: [last])
        } else {
            delegate?.locationManager(self, didFailWithError: CLError(.locationUnknown))
        }
    }

    override func stopUpdatingLocation() {}
}
