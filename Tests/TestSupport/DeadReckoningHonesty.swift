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

/// What follows an outage: the same receiver and seeds, the outages dead reckoned as the pipeline does
/// (`PositionSmoother.deadReckon(to:)` at every truth epoch without a fix, so the output converges when the fixes
/// return), and each fix in the 30 s after a return measured against the truth, smoothed and raw, by seconds since the
/// return (`bandEnds`).
public enum AfterOutage {
    public struct Band: Sendable {
        public var count = 0, within = 0
        public var errorSum = 0.0, rawErrorSum = 0.0
        public var withinShare: Double { count > 0 ? Double(within) / Double(count) : .nan }
        public var meanError: Double { errorSum / Double(Swift.max(1, count)) }
        public var meanRawError: Double { rawErrorSum / Double(Swift.max(1, count)) }
    }

    public static func measure(_ receiver: SimulatedReceiver, seeds: ClosedRange<UInt64>) -> [Band] {
        var bands = [Band](repeating: Band(), count: DeadReckoningHonesty.bandEnds.count)
        for seed in seeds {
            let (fixes, truth) = receiver.run(seed: seed)
            var byTime: [Int64: Location] = [:]
            for f in fixes { byTime[f.time!.nanosecondsSince1970] = f }
            var smoother = PositionSmoother()
            var lastFix: Timestamp?, returned: Timestamp?
            for tr in truth {
                let t = tr.time!
                guard let f = byTime[t.nanosecondsSince1970] else {
                    if lastFix != nil { _ = smoother.deadReckon(to: t) }
                    continue
                }
                if let l = lastFix, l.seconds(to: t) > 2 { returned = t }
                lastFix = t
                let out = smoother.process(fix: f)
                guard let r = returned, let k = DeadReckoningHonesty.bandEnds.firstIndex(where: { r.seconds(to: t) < $0 }),
                      let accuracy = out.horizontalAccuracyMeters else { continue }
                let error = LocalTangentFrame.distanceMeters(tr.latitudeDegrees!, tr.longitudeDegrees!,
                                                             out.latitudeDegrees!, out.longitudeDegrees!)
                let raw = LocalTangentFrame.distanceMeters(tr.latitudeDegrees!, tr.longitudeDegrees!,
                                                           f.latitudeDegrees!, f.longitudeDegrees!)
                bands[k].count += 1; bands[k].errorSum += error; bands[k].rawErrorSum += raw
                if error <= accuracy { bands[k].within += 1 }
            }
        }
        return bands
    }
}
