// Shape: geofencing, the classic way (CLCircularRegion + delegate) and the iOS 17 way (CLMonitor).
import CoreLocation

final class GeofenceController: NSObject, CLLocationManagerDelegate {
    let manager = CLLocationManager()
    var log: [String] = []
    var onChange: (() -> Void)?

    override init() {
        super.init()
        manager.delegate = self
    }

    func watch(_ name: String, latitude: Double, longitude: Double, radius: CLLocationDistance) {
        guard CLLocationManager.isMonitoringAvailable(for: CLCircularRegion.self) else {
            log.append("unavailable")
            return
        }
        let center = CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
        let region = CLCircularRegion(center: center, radius: min(radius, manager.maximumRegionMonitoringDistance),
                                      identifier: name)
        region.notifyOnEntry = true
        region.notifyOnExit = true
        manager.startMonitoring(for: region)
    }

    func stopAll() {
        for region in manager.monitoredRegions { manager.stopMonitoring(for: region) }
    }

    func locationManager(_ manager: CLLocationManager, didStartMonitoringFor region: CLRegion) {
        manager.requestState(for: region)
    }

    func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
        log.append("enter \(region.identifier)")
        onChange?()
    }

    func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {
        log.append("exit \(region.identifier)")
        onChange?()
    }

    func locationManager(_ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: Error) {
        log.append("failed \(region?.identifier ?? "?") \((error as? CLError)?.code.rawValue ?? -1)")
        onChange?()
    }
}

@available(macOS 14, iOS 17, *)
func watchWithMonitor(_ places: [(String, CLLocationCoordinate2D, CLLocationDistance)],
                      until done: @escaping ([String]) -> Bool) async throws -> [String] {
    let monitor = await CLMonitor("geofences")
    for (name, center, radius) in places {
        let condition = CLMonitor.CircularGeographicCondition(center: center, radius: radius)
        await monitor.add(condition, identifier: name, assuming: .unknown)
    }
    var log: [String] = []
    for try await event in await monitor.events {
        switch event.state {
        case .satisfied: log.append("enter \(event.identifier)")
        case .unsatisfied: log.append("exit \(event.identifier)")
        case .unknown, .unmonitored: continue
        @unknown default: continue
        }
        if let record = await monitor.record(for: event.identifier) {
            _ = record.lastEvent.date
            _ = record.condition is CLMonitor.CircularGeographicCondition
        }
        if done(log) { break }
    }
    for identifier in await monitor.identifiers { await monitor.remove(identifier) }
    return log
}
