// Shape: the delegate wrapper most apps have — one object owns the manager, forwards callbacks as closures.
import CoreLocation

final class LocationProvider: NSObject, CLLocationManagerDelegate {
    enum Event {
        case authorization(CLAuthorizationStatus)
        case location(CLLocation)
        case failure(Error)
    }

    private let manager = CLLocationManager()
    var onEvent: ((Event) -> Void)?
    private(set) var lastLocation: CLLocation?
    private(set) var isUpdating = false

    override init() {
        super.init()
        manager.delegate = self
        manager.desiredAccuracy = kCLLocationAccuracyNearestTenMeters
        manager.distanceFilter = kCLDistanceFilterNone
        manager.activityType = .automotiveNavigation
        manager.pausesLocationUpdatesAutomatically = false
    }

    var isAuthorized: Bool {
        switch manager.authorizationStatus {
        case .authorizedAlways, .authorizedWhenInUse: return true
        case .denied, .restricted, .notDetermined: return false
        @unknown default: return false
        }
    }

    func start() {
        guard CLLocationManager.locationServicesEnabled() else {
            onEvent?(.failure(CLError(.denied)))
            return
        }
        if manager.authorizationStatus == .notDetermined {
            manager.requestWhenInUseAuthorization()
        }
        isUpdating = true
        manager.startUpdatingLocation()
    }

    func stop() {
        isUpdating = false
        manager.stopUpdatingLocation()
    }

    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        onEvent?(.authorization(manager.authorizationStatus))
        if manager.accuracyAuthorization == .reducedAccuracy {
            manager.requestTemporaryFullAccuracyAuthorization(withPurposeKey: "Navigation") { _ in }
        }
    }

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        guard let location = locations.last, location.horizontalAccuracy >= 0 else { return }
        lastLocation = location
        onEvent?(.location(location))
    }

    func locationManager(_ manager: CLLocationManager, didFailWithError error: Error) {
        if let error = error as? CLError {
            switch error.code {
            case .locationUnknown:
                return  // transient: Core Location keeps trying
            case .denied:
                stop()
            default:
                break
            }
        }
        onEvent?(.failure(error))
    }
}

/// Shape: a command-line tool's main loop (CoreLocationCLI and the like wrap the run loop in an autorelease pool).
func runMainLoop(for seconds: TimeInterval) {
    autoreleasepool {
        RunLoop.main.run(until: Date().addingTimeInterval(seconds))
    }
}
