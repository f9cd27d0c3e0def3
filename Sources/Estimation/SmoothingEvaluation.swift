#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import LocationCore

/// Raw-vs-smoothed accuracy of fixes against a truth track, matched by time stamp. Pure.
public enum SmoothingEvaluation {
    public struct ErrorStats: Sendable, Hashable {
        public var count = 0
        public var p50 = Double.nan, p68 = Double.nan, p95 = Double.nan, max = Double.nan
        /// Fraction of epochs whose error is within the reported horizontalAccuracyMeters (honest ≈ 0.68).
        public var withinReportedAccuracy = Double.nan
        /// The same for speed (speedAccuracyMetersPerSecond) and course (courseAccuracyDegrees, where the truth moves
        /// at ≥ 2 m/s), against the truth's speed and course (its own when given, else from its positions).
        public var withinSpeedAccuracy = Double.nan
        public var withinCourseAccuracy = Double.nan
        /// The same for altitude (verticalAccuracyMeters, a 1-σ: 68 % in one dimension), ellipsoidal heights, where the
        /// fix and the truth both give one; and the vertical error's p68 (m).
        public var withinVerticalAccuracy = Double.nan
        public var verticalP68 = Double.nan
        /// Path length of the fixes while the truth is stopped, scaled to 180 s.
        public var parkedPathPer180s = Double.nan
        /// The same after each stop's first 5 s (the braking into the stop): the path the stop hold itself draws, per 180 s.
        public var settledParkedPathPer180s = Double.nan
        /// Largest path length over any 180 s window (or shorter stop) while the truth is stopped.
        public var worstParkedPath180s = Double.nan
        /// Largest distance from a stop's mean position while the truth is stopped.
        public var parkedMaxExcursion = Double.nan
    }

    public struct Report: Sendable {
        public var raw: ErrorStats
        public var smoothed: ErrorStats
        public var matchedEpochs: Int
        public var stoppedSeconds: Double
    }

    /// The truth sorted by time, with speed and course from its own positions where it gives none (central
    /// differences over ≈ 1 s): what the speed and course shares are judged against.
    public static func truthWithMotion(_ truth: [Location]) -> [Location] {
        var sortedTruth = truth.filter { $0.time != nil && $0.latitudeDegrees != nil }.sorted { $0.time! < $1.time! }
        for i in sortedTruth.indices where sortedTruth[i].speedMetersPerSecond == nil {
            let t = sortedTruth[i].time!.secondsSince1970
            var a = i, b = i
            while a > 0, t - sortedTruth[a].time!.secondsSince1970 < 0.5 { a -= 1 }
            while b < sortedTruth.count - 1, sortedTruth[b].time!.secondsSince1970 - t < 0.5 { b += 1 }
            let dt = sortedTruth[b].time!.secondsSince1970 - sortedTruth[a].time!.secondsSince1970
            guard dt > 0, dt <= 3 else { continue }
            let fr = LocalTangentFrame(latitudeDegrees: sortedTruth[a].latitudeDegrees!, longitudeDegrees: sortedTruth[a].longitudeDegrees!)
            let d = fr.enu(latitudeDegrees: sortedTruth[b].latitudeDegrees!, longitudeDegrees: sortedTruth[b].longitudeDegrees!)
            sortedTruth[i].speedMetersPerSecond = (d.east * d.east + d.north * d.north).squareRoot() / dt
            sortedTruth[i].courseDegrees = Angle.normalizedDegrees(atan2(d.east, d.north) * 180 / .pi)
        }
        return sortedTruth
    }

    /// Truth is stopped where it moves < `stopSpeed` m/s (from its own positions) for at least `minimumStopSeconds`.
    public static func evaluate(raw: [Location], smoothed: [Location], truth: [Location],
                                stopSpeed: Double = 0.2, minimumStopSeconds: Double = 10) -> Report {
        var truthByTime: [Int64: Location] = [:]
        let sortedTruth = truthWithMotion(truth)
        for t in sortedTruth { truthByTime[key(t.time!)] = t }
        let stoppedKeys = stoppedEpochs(sortedTruth, stopSpeed: stopSpeed, minimumStopSeconds: minimumStopSeconds)
        let r = stats(raw, truthByTime, stoppedKeys)
        let s = stats(smoothed, truthByTime, stoppedKeys)
        return Report(raw: r.0, smoothed: s.0, matchedEpochs: r.1, stoppedSeconds: r.2)
    }

    /// The epochs (`key`) of a time-sorted truth that lie in its stops: runs moving < `stopSpeed` m/s for at least
    /// `minimumStopSeconds`.
    public static func stoppedEpochs(_ sortedTruth: [Location], stopSpeed: Double = 0.2, minimumStopSeconds: Double = 10) -> Set<Int64> {
        var stoppedKeys = Set<Int64>()
        var runStart = 0
        func speed(_ a: Location, _ b: Location) -> Double {
            let dt = (b.time!.secondsSince1970 - a.time!.secondsSince1970)
            return dt > 0 ? LocalTangentFrame.distanceMeters(a.latitudeDegrees!, a.longitudeDegrees!, b.latitudeDegrees!, b.longitudeDegrees!) / dt : 0
        }
        var i = 1
        while i <= sortedTruth.count {
            let moving = i == sortedTruth.count || speed(sortedTruth[i - 1], sortedTruth[i]) >= stopSpeed
                || sortedTruth[i].time!.secondsSince1970 - sortedTruth[i - 1].time!.secondsSince1970 > 2
            if moving {
                let run = sortedTruth[runStart..<i]
                if let f = run.first?.time, let l = run.last?.time, l.secondsSince1970 - f.secondsSince1970 >= minimumStopSeconds {
                    for r in run { stoppedKeys.insert(key(r.time!)) }
                }
                runStart = i
            }
            i += 1
        }
        return stoppedKeys
    }

    /// The fixes inside the truth's stops, one run per stop: consecutive fixes whose epochs are `stopped`, split where
    /// two are more than 2.5 s apart. Fixes without a position or a truth epoch are passed over.
    public static func stoppedRuns(_ fixes: [Location], truth: [Int64: Location], stopped: Set<Int64>) -> [[Location]] {
        var runs: [[Location]] = [], current: [Location] = []
        for f in fixes {
            guard let t = f.time, f.latitudeDegrees != nil, f.longitudeDegrees != nil, truth[key(t)] != nil else { continue }
            if stopped.contains(key(t)) {
                if let last = current.last?.time, t.secondsSince1970 - last.secondsSince1970 > 2.5 { runs.append(current); current = [] }
                current.append(f)
            } else if !current.isEmpty { runs.append(current); current = [] }
        }
        if !current.isEmpty { runs.append(current) }
        return runs
    }

    /// An epoch's key: its time in centiseconds (rounded), so fixes and truth match by time stamp.
    public static func key(_ t: Timestamp) -> Int64 { (t.nanosecondsSince1970 + 5_000_000) / 10_000_000 }

    /// The p-quantile (0…1) of an ascending array, nearest rank; NaN when empty.
    public static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let idx = min(sorted.count - 1, max(0, Int((p * Double(sorted.count - 1)).rounded())))
        return sorted[idx]
    }

    static func stats(_ fixes: [Location], _ truth: [Int64: Location], _ stopped: Set<Int64>) -> (ErrorStats, Int, Double) {
        var errors: [Double] = []
        var within = 0, withAccuracy = 0, speedWithin = 0, speedCount = 0, courseWithin = 0, courseCount = 0
        var verticalWithin = 0, verticalCount = 0, verticalErrors: [Double] = []
        for f in fixes {
            guard let t = f.time, let lat = f.latitudeDegrees, let lon = f.longitudeDegrees,
                  let tr = truth[key(t)], let tlat = tr.latitudeDegrees, let tlon = tr.longitudeDegrees else { continue }
            let e = LocalTangentFrame.distanceMeters(tlat, tlon, lat, lon)
            errors.append(e)
            if let h = f.horizontalAccuracyMeters { withAccuracy += 1; if e <= h { within += 1 } }
            if let a = ellipsoidHeight(f), let b = ellipsoidHeight(tr) {
                verticalErrors.append(abs(a - b))
                if let v = f.verticalAccuracyMeters { verticalCount += 1; if abs(a - b) <= v { verticalWithin += 1 } }
            }
            if let ts = tr.speedMetersPerSecond, let sp = f.speedMetersPerSecond, let a = f.speedAccuracyMetersPerSecond {
                // Where the truth moves (≥ 2 m/s, as for the course): a held stop's zero speed is within any radius.
                if ts >= 2 { speedCount += 1; if abs(sp - ts) <= a { speedWithin += 1 } }
            }
            if let ts = tr.speedMetersPerSecond, ts >= 2, let tc = tr.courseDegrees, let c = f.courseDegrees,
               let a = f.courseAccuracyDegrees {
                courseCount += 1; if abs(Angle.normalizedDegrees(c - tc + 180) - 180) <= a { courseWithin += 1 }
            }
        }
        let segments = stoppedRuns(fixes, truth: truth, stopped: stopped).map { run in
            run.map { (t: $0.time!.secondsSince1970, lat: $0.latitudeDegrees!, lon: $0.longitudeDegrees!) }
        }
        var st = ErrorStats()
        let sorted = errors.sorted()
        st.count = sorted.count
        st.p50 = percentile(sorted, 0.5); st.p68 = percentile(sorted, 0.68); st.p95 = percentile(sorted, 0.95)
        st.max = sorted.last ?? .nan
        st.withinReportedAccuracy = withAccuracy > 0 ? Double(within) / Double(withAccuracy) : .nan
        st.withinSpeedAccuracy = speedCount > 0 ? Double(speedWithin) / Double(speedCount) : .nan
        st.withinCourseAccuracy = courseCount > 0 ? Double(courseWithin) / Double(courseCount) : .nan
        st.withinVerticalAccuracy = verticalCount > 0 ? Double(verticalWithin) / Double(verticalCount) : .nan
        st.verticalP68 = percentile(verticalErrors.sorted(), 0.68)
        var path = 0.0, seconds = 0.0, worst = 0.0, excursion = 0.0, settledPath = 0.0, settledSeconds = 0.0
        for seg in segments where seg.count >= 2 {
            seconds += seg.last!.t - seg.first!.t
            let settledFrom = seg.first!.t + 5
            settledSeconds += Swift.max(0, seg.last!.t - settledFrom)
            var steps: [(t: Double, d: Double)] = []
            for k in 1..<seg.count {
                let d = LocalTangentFrame.distanceMeters(seg[k - 1].lat, seg[k - 1].lon, seg[k].lat, seg[k].lon)
                path += d; steps.append((seg[k].t, d))
                if seg[k - 1].t >= settledFrom { settledPath += d }
            }
            // Worst 180 s window.
            var lo = 0, acc = 0.0
            for hi in 0..<steps.count {
                acc += steps[hi].d
                while steps[hi].t - steps[lo].t > 180 { acc -= steps[lo].d; lo += 1 }
                worst = max(worst, acc)
            }
            let mlat = seg.reduce(0) { $0 + $1.lat } / Double(seg.count)
            let mlon = seg.reduce(0) { $0 + $1.lon } / Double(seg.count)
            for p in seg { excursion = max(excursion, LocalTangentFrame.distanceMeters(mlat, mlon, p.lat, p.lon)) }
        }
        st.parkedPathPer180s = seconds > 0 ? path / seconds * 180 : .nan
        st.worstParkedPath180s = seconds > 0 ? worst : .nan
        st.settledParkedPathPer180s = settledSeconds > 0 ? settledPath / settledSeconds * 180 : .nan
        st.parkedMaxExcursion = seconds > 0 ? excursion : .nan
        return (st, sorted.count, seconds)
    }

    /// Height above the ellipsoid (m): the fix's own, or its altitude above MSL plus the geoid separation (0 when not
    /// given: the recordings here give both or report ellipsoidal heights with a zero separation).
    static func ellipsoidHeight(_ l: Location) -> Double? {
        l.altitudeEllipsoidMeters ?? l.altitudeMSLMeters.map { $0 + (l.geoidSeparationMeters ?? 0) }
    }

    /// Runs a smoother over the raw fixes in time order and returns its outputs.
    public static func smooth(_ raw: [Location], settings: PositionSmoother.Settings = .default) -> [Location] {
        var s = PositionSmoother(settings: settings)
        return raw.map { s.process(fix: $0) }
    }
}
