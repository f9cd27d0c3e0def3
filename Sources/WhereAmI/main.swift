// WhereAmI: an example of LodestarKit (docs/api.md). Replays a capture (default: the shipped simulated drive)
// through a LocationManager and prints location updates (desiredAccuracy hundredMeters, distanceFilter 100 m),
// region events for a region around the drive's stop, and visits (45 s dwell: the simulated stop lasts 60 s).
//
//   swift run WhereAmI [CAPTURE] [--realtime] [--gps DEVICE]
import LodestarKit

var arguments = Array(CommandLine.arguments.dropFirst())
let realtime = arguments.contains("--realtime")
arguments.removeAll { $0 == "--realtime" }
var source = LocationSource.replay(path: "captures/simulated-drive.lcap", speed: realtime ? 1 : nil)
if let i = arguments.firstIndex(of: "--gps"), i + 1 < arguments.count {
    source = .live(gps: [arguments[i + 1]])
} else if let path = arguments.first {
    source = .replay(path: path, speed: realtime ? 1 : nil)
}

let manager = LocationManager(source: source)
let updates = manager.liveUpdates(.init(desiredAccuracy: .hundredMeters, distanceFilterMeters: 100))
let monitor = manager.monitor()
monitor.add(CircularRegion(identifier: "stop", center: Coordinate(latitudeDegrees: 37.38575, longitudeDegrees: -122.07683),
                           radiusMeters: 100))
var visitSettings = VisitDetector.Settings()
visitSettings.minimumDwellSeconds = 45
let visits = manager.visits(visitSettings)
manager.start()

func position(_ c: Coordinate?) -> String {
    guard let c else { return "-" }
    return "\(Double(Int(c.latitudeDegrees * 1e6)) / 1e6),\(Double(Int(c.longitudeDegrees * 1e6)) / 1e6)"
}

await withTaskGroup(of: Void.self) { group in
    group.addTask {
        do {
            for try await u in updates {
                if u.locationUnavailable { print("\(u.time) location unavailable"); continue }
                let accuracy = u.location?.horizontalAccuracyMeters.map { "±\(Int($0.rounded())) m" } ?? ""
                print("\(u.time) update \(position(u.location?.coordinate)) \(accuracy)\(u.accuracyLimited ? " (accuracy limited)" : "")")
            }
        } catch {
            print("location updates ended: \(error)")
        }
    }
    group.addTask {
        for await e in monitor.events { print("\(e.time) region \(e.identifier): \(e.kind) (was \(e.previousState))") }
    }
    group.addTask {
        for await v in visits {
            let arrival = v.arrivalDate == .distantPast ? "before the session" : "\(v.arrivalDate)"
            let departure = v.departureDate == .distantFuture ? "not yet" : "\(v.departureDate)"
            print("\(v.detectionDate) visit \(v.kind) at \(position(v.coordinate)): arrived \(arrival), departed \(departure)")
        }
    }
}
