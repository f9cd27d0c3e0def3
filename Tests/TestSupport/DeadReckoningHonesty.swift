import Estimation
import LocationCore

/// How honest the dead-reckoned accuracy is through a simulated receiver's outages: at every truth epoch without a fix
/// (up to `maximumOutageSeconds` after the last one), `PositionSmoother.predict(to:)`'s error against its accuracy,
/// by how long the outage has lasted. Shared by the test (RealErrorCovarianceTests) and `DRHONEST=1 SmoothingEval`.
public enum DeadReckoningHonesty {
    /// Seconds into the outage that end each band: ≤ 5, 5–10, 10–20 and 20–30 s.
    public static let bandEnds: [Double] = [5, 10, 20, 30]

    public struct Band: Sendable {
        public var count = 0, within = 0
        public var errorSum = 0.0, accuracySum = 0.0
        public var withinShare: Double { count > 0 ? Double(within) / Double(count) : .nan }
    }

    public static func measure(_ receiver: SimulatedReceiver, seeds: ClosedRange<UInt64>) -> [Band] {
        var bands = [Band](repeating: Band(), count: bandEnds.count)
        for seed in seeds {
            let (fixes, truth) = receiver.run(seed: seed)
            var byTime: [Int64: Location] = [:]
            for f in fixes { byTime[f.time!.nanosecondsSince1970] = f }
            var smoother = PositionSmoother()
            var lastFix: Timestamp?
            for tr in truth {
                let t = tr.time!
                if let f = byTime[t.nanosecondsSince1970] { _ = smoother.process(fix: f); lastFix = t; continue }
                guard let l = lastFix, let out = smoother.predict(to: t), let accuracy = out.horizontalAccuracyMeters,
                      let k = bandEnds.firstIndex(where: { l.seconds(to: t) <= $0 }) else { continue }
                let error = LocalTangentFrame.distanceMeters(tr.latitudeDegrees!, tr.longitudeDegrees!,
                                                             out.latitudeDegrees!, out.longitudeDegrees!)
                bands[k].count += 1; bands[k].errorSum += error; bands[k].accuracySum += accuracy
                if error <= accuracy { bands[k].within += 1 }
            }
        }
        return bands
    }
}
