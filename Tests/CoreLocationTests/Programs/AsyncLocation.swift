// Shape: async/await over the delegate — a one-shot requestLocation as an async function, and an AsyncStream of
// updates.
import CoreLocation

final class AsyncLocation: NSObject, CLLocationManagerDelegate {
    private let manager = CLLocationManager()
    private var oneShot: CheckedContinuation<CLLocation, Error>?
    private var streamContinuation: AsyncStream<CLLocation>.Continuation?

    override init() {
        super.init()
        manager.delegate = self
        manager.desiredAccuracy = kCLLocationAccuracyHundredMeters
    }

    /// One location via `requestLocation()`.
    func currentLocation() async throws -> CLLocation {
        try await withCheckedThrowingContinuation { continuation in
            oneShot = continuation
            manager.requestLocation()
        }
    }

    /// Every location until the consumer stops listening.
    var locations: AsyncStream<CLLocation> {
        AsyncStream { continuation in
            streamContinuation = continuation
            continuation.onTermination = { [weak self] _ in
                DispatchQueue.main.async { self?.manager.stopUpdatingLocation() }
            }
            manager.startUpdatingLocation()
        }
    }

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        if let location = locations.last, let oneShot = oneShot {
            self.oneShot = nil
            oneShot.resume(returning: location)
        }
        for location in locations { streamContinuation?.yield(location) }
    }

    func locationManager(_ manager: CLLocationManager, didFailWithError error: Error) {
        if let clError = error as? CLError, clError.code == .locationUnknown, streamContinuation != nil { return }
        oneShot?.resume(throwing: error)
        oneShot = nil
    }
}
