// LODESTAR_REPLAY=captures/simulated-drive.lcap swift run CoreLocationExample
import CoreLocation

final class Printer: NSObject, CLLocationManagerDelegate {
    let manager = CLLocationManager()
    override init() {
        super.init()
        manager.delegate = self
        manager.headingFilter = 10
    }
    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        print("authorization:", manager.authorizationStatus.rawValue)
        guard manager.authorizationStatus == .authorizedAlways else { exit(1) }
        manager.startUpdatingLocation()
        if CLLocationManager.headingAvailable() { manager.startUpdatingHeading() }
    }
    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        print(locations.last!)
    }
    func locationManager(_ manager: CLLocationManager, didUpdateHeading newHeading: CLHeading) {
        print("heading:", Int(newHeading.trueHeading), "±", Int(newHeading.headingAccuracy))
    }
    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) { print("error:", error) }
}

let printer = Printer()
RunLoop.main.run()
