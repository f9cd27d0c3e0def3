import LocationCore

/// Stops of a receiver that reports no speed (GGA alone) and of a board without an accelerometer
/// (`Settings.stopFromPositions`): the speed is estimated from the fixes themselves, by straight-line fits over the
/// recent positions, and stands in for the receiver's speed in the stop's hysteresis.
///
/// - **Entering**: the fit's window is the shortest recent span whose slope has a per-axis σ of at most
///   `positionSpeedSigmaMetersPerSecond` (0.2 m/s) for the fixes' white noise (2 s at the least, 20 s or 128 fixes at
///   the most). A receiver with 0.5 m of white noise at 1 Hz needs about 4 s, one with 2 m about 11 s; the stop begins
///   that much after the vehicle stopped. The speed is slow below the enter speed or within 2 σ of zero (0.4 m/s).
/// - **Leaving** must be quick: the speed over the last 2 s of fixes (3 at least), where it is significant against the
///   white noise or the slope's spread at rest (χ² for 2 degrees of freedom beyond `positionGateChiSquare`), suspends
///   the stop as a receiver's speed does; a second significant slope going the same way confirms the start, and the
///   filter restarts from the line through those fixes (a single outlier's slope turns round instead).
/// - **Manoeuvres**: after two rejected fixes, a line that differs significantly from the filter (its slope from the
///   filter's velocity, or its point at the fix from the filter's position) restarts the filter from that line too.
/// - **Creeping** inside a stop: the mean of the last three fixes significantly off the stop's earlier fixes, without
///   a significant speed, starts the stop again at those fixes. (A phone's error wanders in the same way: on the
///   Pixel 4 drives this follows some of that wander.)
///
/// The white noise is the fixes' S(1 s) once the stops have shown it, before that the residual of the fit over the
/// whole ring (positions at rest: noise and its wander; moving: manoeuvres too — larger, so the windows are longer),
/// never more than the receiver claims.
struct PositionWindow: Sendable {
    static let capacity = 128
    private var t = InlineArray<128, Double>(repeating: 0)
    private var e = InlineArray<128, Double>(repeating: 0)
    private var n = InlineArray<128, Double>(repeating: 0)
    private var head = 0
    private(set) var count = 0
    static let longestSeconds = 20.0
    /// The per-axis variance of the 2 s slope at rest (m²/s², a running mean over stops): what the receiver's error
    /// alone moves the fixes by over that window (its wander, which the white noise does not hold), so that the
    /// start of motion is judged against it. NaN before the first stop.
    var restSlopeVariance = Double.nan
    var restSlopeCount = 0
    /// The last significant 2 s slope (m/s).
    var lastSlope: (east: Double, north: Double)?

    mutating func clear() { head = 0; count = 0 }

    /// Re-expresses every position in another frame (the filter re-initialised or re-anchored).
    mutating func move(_ transform: ((east: Double, north: Double)) -> (east: Double, north: Double)) {
        for j in 0..<count {
            let i = (head + j) % Self.capacity
            let p = transform((e[i], n[i]))
            e[i] = p.east; n[i] = p.north
        }
    }

    mutating func add(time: Double, east: Double, north: Double) {
        if count == Self.capacity { head = (head + 1) % Self.capacity; count -= 1 }
        let i = (head + count) % Self.capacity
        t[i] = time; e[i] = east; n[i] = north
        count += 1
        while count > 1, time - t[head] > Self.longestSeconds { head = (head + 1) % Self.capacity; count -= 1 }
    }

    /// A straight-line fit over a window: the velocity (m/s), Σ(t − t̄)² (s²), the residual variance per axis (m²;
    /// NaN with fewer than 3 fixes) and the number of fixes.
    struct Fit { var east: Double, north: Double, sxx: Double, residual: Double, count: Int
        /// The line's position at the newest fix (local frame, m).
        var atNewest: (east: Double, north: Double)
        var speed: Double { (east * east + north * north).squareRoot() }
    }

    /// Fits the newest fixes back from the newest, growing the window until `stop(span, sxx)` says it is enough or
    /// the ring ends.
    func fit(until stop: (_ span: Double, _ sxx: Double, _ count: Int) -> Bool) -> Fit? {
        guard count >= 2 else { return nil }
        let last = (head + count - 1) % Self.capacity
        let t0 = t[last], e0 = e[last], n0 = n[last]
        var st = 0.0, stt = 0.0, se = 0.0, ste = 0.0, sn = 0.0, stn = 0.0, see = 0.0, snn = 0.0
        var k = 0
        var result: Fit?
        for j in 0..<count {
            let i = (last - j + Self.capacity) % Self.capacity
            let x = t[i] - t0, a = e[i] - e0, b = n[i] - n0
            st += x; stt += x * x; se += a; ste += x * a; sn += b; stn += x * b; see += a * a; snn += b * b
            k += 1
            guard k >= 2 else { continue }
            let c = Double(k)
            let sxx = stt - st * st / c
            guard sxx > 0 else { continue }
            let sxe = ste - st * se / c, sxn = stn - st * sn / c
            let ve = sxe / sxx, vn = sxn / sxx
            var residual = Double.nan
            if k >= 3 {
                let rss = (see - se * se / c - sxe * ve) + (snn - sn * sn / c - sxn * vn)
                residual = Swift.max(0, rss) / (2 * (c - 2))
            }
            result = Fit(east: ve, north: vn, sxx: sxx, residual: residual, count: k,
                         atNewest: (e0 + (se - ve * st) / c, n0 + (sn - vn * st) / c))
            if stop(-x, sxx, k) { break }
        }
        return result
    }

    /// The mean of the fixes at or after `since` (s), leaving out the newest `skip`, with their count.
    func mean(since: Double, skip: Int) -> (east: Double, north: Double, count: Int)? {
        var se = 0.0, sn = 0.0, k = 0
        for j in skip..<Swift.max(skip, count) {
            let i = (head + count - 1 - j + Self.capacity) % Self.capacity
            guard t[i] >= since else { break }
            se += e[i]; sn += n[i]; k += 1
        }
        return k > 0 ? (se / Double(k), sn / Double(k), k) : nil
    }

    /// The sum of the newest `k` fixes' positions, skipping the newest `skip` (local frame, m), with their count.
    func sum(newest k: Int, skip: Int = 0) -> (east: Double, north: Double, count: Int) {
        var se = 0.0, sn = 0.0, c = 0
        for j in skip..<Swift.min(k, count) {
            let i = (head + count - 1 - j + Self.capacity) % Self.capacity
            se += e[i]; sn += n[i]; c += 1
        }
        return (se, sn, c)
    }

    /// The newest fix (local frame, m).
    var newest: (east: Double, north: Double)? {
        guard count >= 1 else { return nil }
        let i = (head + count - 1) % Self.capacity
        return (e[i], n[i])
    }
}

extension PositionSmoother {
    /// Restarts the filter's position and velocity from a line through the recent fixes (its point for the newest fix,
    /// its slope), with at least the fixes' white variance for the position and the slope's variance plus (2 m/s)² for
    /// the velocity (the slope is the window's mean velocity).
    mutating func restartFromLine(_ f: PositionWindow.Fit, white: Double) {
        adaptTransient = Self.restartTransientFixes
        kf.x[0] = f.atNewest.east; kf.x[1] = f.atNewest.north
        kf.x[2] = f.east; kf.x[3] = f.north
        kf[0, 0] = Swift.max(kf[0, 0], white); kf[1, 1] = Swift.max(kf[1, 1], white)
        kf[2, 2] = Swift.max(kf[2, 2], white / f.sxx + 4); kf[3, 3] = Swift.max(kf[3, 3], white / f.sxx + 4)
    }

    /// The per-axis σ of the fitted velocity a stop is entered on, m/s.
    static let positionSpeedSigmaMetersPerSecond = 0.2
    /// The window the start of motion is looked for in, s.
    static let positionExitWindowSeconds = 2.0
    /// How many of the newest fixes must stand off the stop's earlier ones for a creep.
    static let creepFixes = 3

    /// What the positions show at a fix without a speed (`speedFromPositions`).
    struct PositionMotion {
        /// The speed, m/s, and whether it counts as slow for entering a stop.
        var speed: Double, slow: Bool
        /// The line through the last 2 s of fixes (at least 3), when there are enough.
        var shortFit: PositionWindow.Fit?
        /// A suspended stop's start is shown: a significant slope going the way the previous one did.
        var startShown = false
    }

    /// The speed (m/s) the positions show at this fix, for a fix without a speed and a board without a fresh
    /// accelerometer (`Settings.stopFromPositions`); nil where there are too few fixes yet. Adds the fix to the window.
    mutating func speedFromPositions(fix: Location, t: Timestamp) -> PositionMotion? {
        positionFitPoint = nil
        var shortFit: PositionWindow.Fit?
        guard let fr = frame, let lat = fix.latitudeDegrees, let lon = fix.longitudeDegrees else { return nil }
        let z = fr.enu(latitudeDegrees: lat, longitudeDegrees: lon)
        if positionWindowBox == nil { positionWindowBox = CopyOnWrite(PositionWindow()) }
        positionWindowBox!.value.add(time: Double(t.nanosecondsSince1970) / 1e9, east: z.east, north: z.north)
        let window = positionWindowBox!.value
        guard window.count >= 3 else { return nil }
        // The white noise: S(1 s) once known, else the residual about a line through the whole ring; at most the claim.
        var white = incrementWhite ?? window.fit(until: { _, _, _ in false })?.residual ?? claimedVariance
        if !white.isFinite { white = claimedVariance }
        white = Swift.max(Swift.min(white, claimedVariance),
                          settings.minimumMeasurementSigmaMeters * settings.minimumMeasurementSigmaMeters)
        let gate = settings.positionGateChiSquare
        // Leaving: a significant speed over the last 2 s, against the white noise or what the slope at rest shows.
        // (At least 3 fixes: 2 s holds one interval of a receiver at 0.5 Hz or slower.)
        if let short = window.fit(until: { span, _, k in span >= Self.positionExitWindowSeconds && k >= 3 }), short.count >= 3 {
            shortFit = short
            let sp = short.speed
            let rest = window.restSlopeVariance
            // Without a speed the filter learns a change of velocity only from the positions, a fix at a time: braking
            // into a stop, it coasted on until its gate rejected the fixes and it re-initialised (5 s later at 1 Hz).
            // Where the filter has rejected the last two fixes, it restarts from the line through the last 2 s of fixes
            // when that line differs from it significantly: its slope from the filter's velocity by more than both
            // their uncertainties, or its point at this fix from the filter's position by more than the gate allows for
            // the line's white noise and the filter's position variance. (Not on one rejection: a single outlier tilts
            // the slope. Opening the filter's covariance instead, before the gate, let it take the outlier, or let one
            // fix carry the whole move since the filter lost the track.) The position's test catches a vehicle that
            // speeds up or turns while the filter's velocity is itself uncertain, as it is without a speed: on the
            // modded Pixel 4 XL of GSDC MTV-1 (held out) with its speed removed, a car pulling away from 2.7 to 13 m/s
            // gave the slope's test 10.5 (the filter's velocity variance 6.7–10.7 m²/s²) and the point's 22–27; the
            // filter coasted on for 4 fixes and ended 36 m off.
            if !isStationary, consecutiveRejections >= 2 {
                let de = short.east - kf.x[2], dn = short.north - kf.x[3]
                let v = Swift.max(white / short.sxx, rest.isFinite ? rest : 0) + (kf[2, 2] + kf[3, 3]) / 2
                let pe = short.atNewest.east - kf.x[0], pn = short.atNewest.north - kf.x[1]
                let pv = white + (kf[0, 0] + kf[1, 1]) / 2
                if (de * de + dn * dn) / v >= gate || (pe * pe + pn * pn) / pv >= gate { restartFromLine(short, white: white) }
            }
            if sp * sp / Swift.max(white / short.sxx, rest.isFinite ? rest : 0) >= gate {
                // A start goes on the way the last significant slope went, while a single outlier's slope turns round
                // as it passes through the window (taken for the start's confirmation, it restarted the filter along
                // the outlier's line: 33 m off two fixes later). So a suspended stop's start is shown only by a
                // significant slope that goes the way the previous one did.
                let previous = window.lastSlope
                positionWindowBox!.value.lastSlope = (short.east, short.north)
                if isStationary { return PositionMotion(speed: sp, slow: false, shortFit: short) }
                if suspendedStop != nil, let x = previous, x.east * short.east + x.north * short.north <= 0 {
                    // Reversed: not a start. The speed is the longer window's, below.
                } else {
                    return PositionMotion(speed: sp, slow: false, shortFit: short, startShown: suspendedStop != nil)
                }
            }
            // Not significant: the vehicle may be stopping (`positionsMaybeSlow`) where the slope is also below the
            // exit speed and within 2 σ of standing still (σ as for the longer window's test below). Where 2 s of fixes
            // cannot tell the exit speed from standing still at 1 σ (white 1 m at 1 Hz and noisier), over the fewest
            // fixes (2 s at least) that show it at 2 σ.
            if !isStationary, settings.waitFromShortSlope {
                let exit = settings.stationaryExitSpeedMetersPerSecond
                var f = short
                if white / short.sxx > exit * exit,
                   let wide = window.fit(until: { span, sxx, k in span >= 2 && k >= 3 && white / sxx <= exit * exit / 4 }),
                   white / wide.sxx <= exit * exit / 4 {
                    f = wide
                }
                let sigma = Swift.max(white / f.sxx, rest.isFinite ? rest : 0).squareRoot()
                positionShortPoint = (f.atNewest.east, f.atNewest.north)
                positionsMaybeSlow = f.speed <= Swift.min(exit, Swift.max(settings.stationaryEnterSpeedMetersPerSecond, 2 * sigma))
            }
            if isStationary {
                let n = positionWindowBox!.value.restSlopeCount + 1
                positionWindowBox!.value.restSlopeCount = n
                let w = Swift.max(settings.adaptiveWeight, 1 / Double(n)), p = sp * sp / 2
                positionWindowBox!.value.restSlopeVariance = rest.isFinite ? rest + w * (p - rest) : p
            }
        }
        // Inside a stop, the mean of the last `creepFixes` fixes off the mean of the stop's fixes before them, by more
        // than their white noise and what the receiver's error wanders over the stop (χ² beyond the gate), without a
        // significant speed: the vehicle crept (a queue). The stop starts again there, held at those fixes' mean. (A
        // start shows a significant speed a fix later.)
        let k = Self.creepFixes
        if isStationary, let t0 = stopStart, window.count > k,
           let m = window.mean(since: Double(t0.nanosecondsSince1970) / 1e9, skip: k) {
            let recent = window.sum(newest: k), c = Double(k)
            let me = recent.east / c - m.east, mn = recent.north / c - m.north
            let wander = Self.parkedWander(errorStructure.lags, seconds: t0.seconds(to: t))
            if (me * me + mn * mn) / (white / c + white / Double(m.count) + wander) >= gate {
                // `holdPoint` adds this fix to the stop's sum: the sum starts with the ones before.
                held = (recent.east / c, recent.north / c, white / c)
                let before = window.sum(newest: k, skip: 1)
                stopSum = (before.east, before.north); stopCount = before.count
                stopStart = t
            }
        }
        // Otherwise the speed known to `positionSpeedSigmaMetersPerSecond`.
        let target = Self.positionSpeedSigmaMetersPerSecond * Self.positionSpeedSigmaMetersPerSecond
        guard let long = window.fit(until: { span, sxx, _ in span >= 2 && white / sxx <= target }),
              white / long.sxx <= 4 * target else { return nil }
        positionFitPoint = long.atNewest
        // Slow: below the enter speed, or within 2 σ of standing still where σ is larger (the white noise's, or what
        // the 2 s slope at rest shows, which the longer window's can only be below), and never at the exit speed.
        let rest = window.restSlopeVariance
        let sigma = Swift.max(white / long.sxx, rest.isFinite ? rest : 0).squareRoot()
        let slow = Swift.min(settings.stationaryExitSpeedMetersPerSecond,
                             Swift.max(settings.stationaryEnterSpeedMetersPerSecond, 2 * sigma))
        return PositionMotion(speed: long.speed, slow: long.speed <= slow, shortFit: shortFit)
    }
}
