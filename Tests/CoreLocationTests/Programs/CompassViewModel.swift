// Shape: a compass view model (heading with headingFilter).
import CoreLocation

final class CompassViewModel: NSObject, CLLocationManagerDelegate {
    private let manager = CLLocationManager()
    private(set) var degrees: Double = 0
    private(set) var accuracy: Double = -1
    private(set) var history: [Double] = []
    /// Indices in `history` that follow a lost (invalid) heading.
    private(set) var afterLoss: Set<Int> = []
    var onUpdate: ((Double) -> Void)?

    init(filter: CLLocationDegrees) {
        super.init()
        manager.delegate = self
        manager.headingFilter = filter
        manager.headingOrientation = .portrait
    }

    var isAvailable: Bool { CLLocationManager.headingAvailable() }

    func start() { manager.startUpdatingHeading() }
    func stop() { manager.stopUpdatingHeading() }

    func locationManager(_ manager: CLLocationManager, didUpdateHeading newHeading: CLHeading) {
        guard newHeading.headingAccuracy >= 0 else {
            afterLoss.insert(history.count)
            return
        }
        degrees = newHeading.trueHeading >= 0 ? newHeading.trueHeading : newHeading.magneticHeading
        accuracy = newHeading.headingAccuracy
        history.append(degrees)
        onUpdate?(degrees)
    }

    func locationManagerShouldDisplayHeadingCalibration(_ manager: CLLocationManager) -> Bool { true }

    var cardinal: String {
        let names = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
        return names[Int((degrees + 22.5) / 45) % 8]
    }
}
