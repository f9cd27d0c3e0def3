// LODESTAR_REPLAY=captures/simulated-drive.lcap swift run CoreLocationExample   (docs/api.md)
import CoreLocation

final class Printer: NSObject, CLLocationManagerDelegate {
    let manager = CLLocationManager()
    override init() { super.init(); manager.delegate = self; manager.headingFilter = 10 }
    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        guard manager.authorizationStatus == .authorizedAlways else { print("location services unavailable"); exit(1) }
        manager.startUpdatingLocation()
        if CLLocationManager.headingAvailable() { manager.startUpdatingHeading() }
    }
    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) { print(locations.last!) }
    func locationManager(_ manager: CLLocationManager, didUpdateHeading heading: CLHeading) {
        guard heading.headingAccuracy >= 0 else { return }
        print("heading \(Int(heading.trueHeading >= 0 ? heading.trueHeading : heading.magneticHeading))° ±\(Int(heading.headingAccuracy))°")
    }
    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) { print("error:", error) }
}

let printer = Printer()
RunLoop.main.run()
