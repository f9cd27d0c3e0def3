#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import LocationCore

extension PositionSmoother {
    /// Static (settings passed in): a method on the smoother, called from `process`, made Swift copy the whole
    /// smoother (≈ 12 KB with the error-structure ring) onto the stack on every fix. The three settings it reads are
    /// passed, not the settings: passing `settings` copied all 246 bytes of them, here and in `claimedVariance`.
    static func measurementSigmas(_ fix: Location, settings s: MeasurementSettings) -> (Double, Double) {
        var e: Double, n: Double
        if let a = fix.latitudeErrorMeters, let b = fix.longitudeErrorMeters, a > 0, b > 0, a.isFinite, b.isFinite {
            n = a; e = b
        } else if let h = fix.horizontalAccuracyMeters, h > 0, h.isFinite {
            e = HorizontalError.sigma(fromRadius68: h); n = e
        } else {
            e = s.defaultMeasurementSigmaMeters; n = e
        }
        e = Swift.max(s.minimumMeasurementSigmaMeters, e * s.measurementNoiseScale)
        n = Swift.max(s.minimumMeasurementSigmaMeters, n * s.measurementNoiseScale)
        return (e, n)
    }

    /// The receiver's own claimed per-axis variance (m²) for the accuracy it outputs: as `measurementSigmas` but
    /// without `minimumMeasurementSigmaMeters`, which keeps the filter from trusting a fix absolutely but is not
    /// what the receiver claims (an RTK receiver claims about 1 cm; a 2 cm floor made its smoothed radius 1.4×
    /// too large). Nil when the fix states no accuracy of its own.
    static func claimedVariance(_ fix: Location, settings s: MeasurementSettings) -> Double? {
        if let a = fix.latitudeErrorMeters, let b = fix.longitudeErrorMeters, a > 0, b > 0, a.isFinite, b.isFinite {
            return (a * a + b * b) / 2 * s.measurementNoiseScale * s.measurementNoiseScale
        } else if let h = fix.horizontalAccuracyMeters, h > 0, h.isFinite {
            let e = HorizontalError.sigma(fromRadius68: h) * s.measurementNoiseScale
            return e * e
        }
        return nil
    }

    struct MeasurementSettings {
        var defaultMeasurementSigmaMeters: Double, minimumMeasurementSigmaMeters: Double, measurementNoiseScale: Double
    }
    var measurementSettings: MeasurementSettings {
        MeasurementSettings(defaultMeasurementSigmaMeters: settings.defaultMeasurementSigmaMeters,
                            minimumMeasurementSigmaMeters: settings.minimumMeasurementSigmaMeters,
                            measurementNoiseScale: settings.measurementNoiseScale)
    }

    mutating func initialise(fix: Location, lat: Double, lon: Double, sigE: Double, sigN: Double, t: Timestamp) {
        let old = frame
        frame = LocalTangentFrame(latitudeDegrees: lat, longitudeDegrees: lon)
        // The recent fixes of a receiver without speed are kept, in the new frame.
        if let o = old, let n = frame, positionWindowBox != nil {
            positionWindowBox!.value.move { p in
                let g = o.geodetic(east: p.east, north: p.north)
                let q = n.enu(latitudeDegrees: g.latitudeDegrees, longitudeDegrees: g.longitudeDegrees)
                return (q.east, q.north)
            }
        }
        // So are the error structure's samples (as on a re-anchoring). Left in the old frame, the next increment held
        // the distance between the two origins: restarted as it left a stop, the simulated RTK receiver at 25 Hz learned
        // a "wander" of 5,800 m² and claimed a median radius of 1 km for 2 cm errors.
        if let o = old {
            let p = o.enu(latitudeDegrees: lat, longitudeDegrees: lon)
            errorStructure.shift(east: p.east, north: p.north)
        }
        let f = settings.correlatedErrorFraction
        kf = KalmanFilter()
        var ve = 0.0, vn = 0.0, vv = 100.0
        if let sp = fix.speedMetersPerSecond, sp >= settings.minimumSpeedForCourseMetersPerSecond,
           let v = fixVelocity(fix) {
            ve = v.east; vn = v.north; vv = 4
        } else if let sp = fix.speedMetersPerSecond, sp < settings.stationaryEnterSpeedMetersPerSecond {
            vv = 1
        }
        kf.x[2] = ve; kf.x[3] = vn
        let varE = sigE * sigE, varN = sigN * sigN
        kf[0, 0] = varE; kf[1, 1] = varN
        kf[2, 2] = vv; kf[3, 3] = vv
        kf[4, 4] = f * varE; kf[5, 5] = f * varN
        kf[0, 4] = -f * varE; kf[4, 0] = -f * varE
        kf[1, 5] = -f * varN; kf[5, 1] = -f * varN
        // The real error: the first fix's, in position (its white noise, taken as the claim until it is learned),
        // none in the error state (what the receiver's error does not average is counted apart).
        kf.pt[0 * 6 + 0] = varE; kf.pt[1 * 6 + 1] = varN; kf.pt[2 * 6 + 2] = vv; kf.pt[3 * 6 + 3] = vv
        lastReportedVariance = (varE + varN) / 2
        claimedVariance = Self.claimedVariance(fix, settings: measurementSettings) ?? lastReportedVariance
        time = t
        consecutiveRejections = 0
        beforeRestart = nil
        adaptiveCount = 0   // the adapted scale (a property of the receiver) is kept; its transient is skipped again
        isStationary = false
        suspendedStop = nil
        lastFixENU = nil
        lastRejectedFix = nil
        held = nil
        stopSum = (0, 0); stopCount = 0
        lowSpeedSince = nil
        outputENU = nil
        outputTime = nil
        provisional = nil
        positionsMaybeSlow = false; positionShortPoint = nil; positionSeed = nil
        afterOutage = false
        resetInertialIntegration()
    }

    mutating func resetInertialIntegration() {
        yawSinceFix = 0
        displacementSinceFix = (0, 0)
        gyroCoveredUntil = nil
    }

    /// The accelerometer variance a stop may be entered at and the one that ends it ((m/s²)²): the settings, until
    /// this board's levels at rest and driving are known apart (`AccelerometerLevels`); then their geometric mean, and
    /// the geometric mean of that and the driving level (an engine that shakes the board at idle more than 0.02 never
    /// let a stop begin).
    /// Nil where the levels are known and not apart: the accelerometer then neither vetoes nor ends a stop.
    var accelerometerEnterVariance: Double? { accelerometerLevels.enterVariance(setting: settings.accelerometerVarianceEnter) }
    var accelerometerExitVariance: Double? { accelerometerLevels.exitVariance(setting: settings.accelerometerVarianceExit) }

    /// True when the vehicle stands still at `t` between fixes: stopped (the motion state), or, in an `outage` (no fix
    /// to say so), the accelerometer (fresh at `t`) as quiet as this vehicle's accelerometer is at rest and not while
    /// it drives (`AccelerometerLevels.stillThreshold`, once the GNSS has shown both). A fixed variance cannot tell: the
    /// simulator's road vibration (0.12 m/s² per axis) is 0.015 (m/s²)² on the magnitude, below the 0.02 a stop is
    /// entered on, so every cruising second was "still" and the gyroscope-aided velocity was zeroed at each fix
    /// (`lodestar simulate --gyroscope`: p95 24 m against 5.4 m raw). (`mutating` though it changes nothing, as
    /// `KalmanFilter.innovation`: called from the smoother's mutating methods, a non-mutating one copied the smoother.)
    mutating func isStationaryNow(at t: Timestamp, outage: Bool) -> Bool {
        if isStationary { return true }
        guard outage else { return false }
        guard let threshold = accelerometerLevels.stillThreshold else { return false }
        let age = settings.inertialMaximumAgeSeconds
        guard let v = Self.accelerometerVariance(accelWindowBox, at: t, maximumAgeSeconds: age) else { return false }
        return v <= threshold
    }

    /// Constant-velocity propagation to `t`. Control inputs when fresh: the gyroscope's dead-reckoned displacement
    /// and turned velocity, or the navigation-frame acceleration. Zero process noise on velocity while stationary.
    /// The correlated error decays towards zero with its time constant.
    mutating func propagate(dt: Double, at t: Timestamp, deadReckoning: Bool = false) {
        guard dt > 0 else { return }
        velocityLearning.errorCovariance = nil   // until the next velocity update: the filter's own from here
        var u: (Double, Double, Double, Double)? = nil
        var qd = settings.accelerationNoiseDensity
        var gyroAided = false
        let ve = kf.x[2], vn = kf.x[3]
        if let covered = gyroCoveredUntil, let last = time,
           Double(t.nanosecondsSince1970 - covered.nanosecondsSince1970) / 1e9 <= settings.inertialMaximumAgeSeconds + dt {
            // Gyro-aided: the velocity turned by the integrated heading change; stopped when stationary (in an
            // outage also when the accelerometer is as quiet as at rest).
            let c = cos(yawSinceFix), sn = sin(yawSinceFix)
            var ve2 = ve * c + vn * sn, vn2 = -ve * sn + vn * c
            if isStationaryNow(at: covered, outage: deadReckoning || dt > gapThresholdSeconds) { ve2 = 0; vn2 = 0 }
            // From the last gyroscope sample to the end of this step, at the turned velocity; negative where the
            // samples run past the step's end (the step to a velocity's time tag, `velocityShift`, stops short of the
            // fix): that part of the integrated displacement is taken off again, or it was counted twice (6.5 m at
            // 13 m/s with c = ½).
            let rest = dt - Double(Swift.max(covered, last).nanosecondsSince1970 - last.nanosecondsSince1970) / 1e9
            u = (displacementSinceFix.east + ve2 * rest - ve * dt, displacementSinceFix.north + vn2 * rest - vn * dt,
                 ve2 - ve, vn2 - vn)
            gyroAided = true
        } else if let a = accelerationENU, let at = accelerationTime,
                  abs(Double(t.nanosecondsSince1970 - at.nanosecondsSince1970) / 1e9) <= settings.inertialMaximumAgeSeconds + dt,
                  !isStationary {
            u = (0.5 * a.east * dt * dt, 0.5 * a.north * dt * dt, a.east * dt, a.north * dt)
            qd = settings.aidedAccelerationNoiseDensity
        }
        if isStationary { qd = 0 }
        // The vehicle's real motion against the filter's acceleration noise: what the velocity innovations show
        // (≤ 1), once learned: the position filter's own (`processPriorScale`). Dead reckoning takes the larger of
        // that and the reported velocity's (`velocityPriorScale`, whose prior misses the time tag): with no fix to
        // correct it, the longer outage is the vehicle's manoeuvres, which a share learned while cruising
        // underestimates (the outage receiver's 20–30 s band: within 0.59 with the filter's own alone, 0.70 with the larger).
        let own = velocityLearning.processPriorCount > 0 ? Swift.min(1, velocityLearning.processPriorScale) : 1
        let reported = velocityLearning.priorCount > 0 ? Swift.min(1, velocityLearning.priorScale) : 1
        kf.trueProcessScale = deadReckoning ? Swift.max(own, reported) : own
        let speed = (ve * ve + vn * vn).squareRoot()
        if gyroAided, qd > 0, speed >= settings.minimumSpeedForCourseMetersPerSecond {
            // The gyroscope turns the velocity, so the acceleration across the track is known (the aided density);
            // speeding up and braking it does not see (the unaided one along the track). Aided in both, the filter
            // overshot every braking vehicle: 1–2 m at each stop, p95 2.56 → 2.87 m on white 2 m.
            kf.predict(dt: dt, along: qd, across: settings.aidedAccelerationNoiseDensity, direction: (ve / speed, vn / speed),
                       biasTimeConstant: settings.correlatedErrorTimeConstantSeconds, biasVariance: modelledBiasVariance, u: u)
        } else {
            kf.predict(dt: dt, accelerationDensity: qd, biasTimeConstant: settings.correlatedErrorTimeConstantSeconds,
                       biasVariance: modelledBiasVariance, u: u)
        }
        resetInertialIntegration()
        gyroCoveredUntil = nil
    }

    /// A fix after an interval of more than 1 s (not while stopped): the constant-velocity model's spread
    /// (q·T³/3 for position) assumes the acceleration changes every instant, but a vehicle keeps accelerating or turning
    /// through a gap: a steady acceleration of √q (1.4 m/s² for the default q) over T moves it ½·a·T² and changes its
    /// velocity by a·T, far more than q·T³/3 allows after 10 s (118 m against 33 m at T = 13 s). The position and velocity
    /// variances are raised to those (from about 1.3 s on they exceed the constant-velocity spread), so that the fix is
    /// taken, not gated out with the four after it (`SmootherRobustnessTests`: a car that accelerated to 17 m/s during a
    /// 13 s gap was 237–280 m off for four fixes; a receiver at 0.2 Hz came out 2–4 × worse than its raw fixes).
    mutating func openAfterGap(dt: Double) {
        let a2 = settings.accelerationNoiseDensity   // (m/s²)² for a steady acceleration of √q over 1 s
        let position = a2 * dt * dt * dt * dt / 4, velocity = a2 * dt * dt
        kf[0, 0] = Swift.max(kf[0, 0], position); kf[1, 1] = Swift.max(kf[1, 1], position)
        kf[2, 2] = Swift.max(kf[2, 2], velocity); kf[3, 3] = Swift.max(kf[3, 3], velocity)
    }

    /// Covariance matching: the white measurement variance is what the innovations show beyond the predicted
    /// uncertainty, E[yyᵀ] − HPHᵀ, as a multiple of the reported white variance (bounded).
    mutating func adapt(innovation inn: (y: (Double, Double), s: (Double, Double, Double, Double), nis: Double),
                        reported: Double, r: (Double, Double, Double, Double)) {
        guard settings.adaptiveMeasurementNoise, reported > 0 else { return }
        // After a restart the covariance is still the initial guess. A restart from the line (`restartFromLine`) keeps the
        // running means, and a re-initialisation starts them again at its 11th fix (`adaptiveCount`), from that fix's
        // spread: both only after these fixes.
        if adaptTransient > 0 { adaptTransient -= 1; return }
        let w = settings.adaptiveWeight
        let power = (inn.y.0 * inn.y.0 + inn.y.1 * inn.y.1) / 2
        let predicted = (inn.s.0 + inn.s.3 - r.0 - r.3) / 2
        adaptiveCount += 1
        // Skip the start-up transient (the covariance is still the initial guess), then start from the reported
        // noise (scale 1) and move gradually.
        guard adaptiveCount > 10 else { return }
        if adaptiveCount == 11 {
            innovationPower = predicted + reported * adaptiveScale; predictedPower = predicted
        }
        innovationPower += w * (power - innovationPower)
        predictedPower += w * (predicted - predictedPower)
        guard adaptiveCount >= 20 else { return }
        let estimate = innovationPower - predictedPower
        // The floor is `adaptiveScaleMinimum`, or lower where the fixes' own 1 s increments show less white noise than
        // that: S(1 s) is an upper bound of the white variance (it also holds 1 s of wander), so adapting down to it
        // never assumes less noise than the data shows. Covariance matching cannot resolve a noise far below the
        // process noise, and a receiver that filters its own fixes (an automotive dead-reckoning receiver: S(1 s)
        // ≈ 0.001 m² against a claimed ≈ 1.8 m² per axis) has no white noise to average: held at the setting's
        // share of its claim, the filter would still smooth its fixes, which only adds lag. Receivers whose S(1 s)
        // is above the setting's share are unchanged.
        var floor = settings.adaptiveScaleMinimum
        if let s1 = incrementWhite {
            let smallest = settings.minimumMeasurementSigmaMeters * settings.minimumMeasurementSigmaMeters
            floor = Swift.min(floor, Swift.max(s1, smallest) / reported)
        }
        // Where covariance matching cannot resolve the noise at all (its estimate below that floor: the filter's prior
        // is far larger than the innovations, as with a centimetre receiver at 5 Hz under a 2 m²/s³ acceleration noise),
        // it says nothing about the white noise, and the floor would be a guess: the white noise the 1 s increments
        // show, with the motion placed where the velocity applies (`ErrorStructure.Lags.positionWhite`, as the last
        // output's estimate read it), is what the data says instead.
        // Adapted to 1 % of its claim, a 1 cm RTK receiver at 5 Hz was modelled with 1 mm of noise: the filter took its
        // position at each stop as exact, put what the stop's fixes showed into the error state and carried it away
        // from the stop (p95 0.034 → 0.043 m, worse than raw).
        // Not below 1 Hz, where the shortest lag is the receiver's interval: the constant-velocity prediction over 2–5 s
        // is then poorer than the fix, and a filter raised to the white noise the data shows froze that prediction's
        // error into the stops (a 2 m receiver at 0.2 Hz: p50 2.13 → 2.59 m against 2.34 raw).
        if estimate / reported < floor, let pw = fittedWhite, !errorStructure.shortestLagIsLong {
            floor = Swift.max(floor, pw / reported)
        }
        // The ceiling: `adaptiveScaleMaximum`, or as much more as the evidence shows the receiver's total above its
        // claim (`ErrorStructure.Estimate.shown`). Held at its claim, a receiver claiming a quarter of its σ had its
        // velocity follow its fixes' noise: course within 0.47 and 13 m of parked path per 180 s (0.71 and 5.3 m now).
        let ceiling = Swift.max(settings.adaptiveScaleMaximum, claimedVariance > 0 ? shownTotal / claimedVariance : 0)
        adaptiveScale = Swift.min(ceiling, Swift.max(floor, estimate / reported))
    }

    mutating func updateMotionState(fix: Location, t: Timestamp) {
        let accVar = Self.accelerometerVariance(accelWindowBox, at: t,
                                                maximumAgeSeconds: settings.inertialMaximumAgeSeconds)
        var speed = fix.speedMetersPerSecond
        // No speed and no accelerometer: the speed the positions show (`stopFromPositions`).
        var fromPositions: PositionMotion?
        positionsMaybeSlow = false
        // With an accelerometer too: its quiet alone is no stop (a smooth road is as quiet as an idling engine), so
        // the positions must show one as well; the accelerometer can only veto it (`accelerometerVarianceEnter`).
        if speed == nil, settings.stopFromPositions, let p = speedFromPositions(fix: fix, t: t) {
            speed = p.speed; fromPositions = p
        }
        if let v = accVar, let sp = speed {
            let standing = fromPositions.map(\.slow) ?? (sp <= settings.stationaryEnterSpeedMetersPerSecond)
            accelerometerLevels.learn(variance: v, standing: standing, speed: sp)
        }
        let previousSpeed = lastReportedSpeed, previousTime = lastReportedTime
        lastReportedSpeed = speed ?? .nan
        lastReportedTime = t.nanosecondsSince1970
        // The interval since the last fix (s).
        let interval = Double(t.nanosecondsSince1970 &- previousTime) / 1e9
        let slowSpeed = recentSpeed(fix.speedMetersPerSecond, interval: interval, first: previousTime == 0)
        let netSpeed = recentNetSpeed(speed: fix.speedMetersPerSecond, course: fix.courseDegrees, interval: interval,
                                      first: previousTime == 0, exitSpeed: settings.stationaryExitSpeedMetersPerSecond)
        if isStationary {
            var leave = false
            // After a gap in the fixes (a tunnel, a garage exit), the first fix significantly off the held point (χ²
            // beyond the position gate against the white noise, the held point's variance and the parked wander) ends
            // the stop by itself, whatever its speed: the car may have driven off and parked again during the gap.
            // Held, the filter (its velocity clamped, no process noise) rejected that fix and the next four and then
            // re-initialised, 300 m behind meanwhile in `PositionStopTests`.
            var movedDuringGap: Double?
            if previousTime != 0, interval > Self.positionExitWindowSeconds, let h = held, let fr = frame,
               let lat = fix.latitudeDegrees, let lon = fix.longitudeDegrees {
                let z = fr.enu(latitudeDegrees: lat, longitudeDegrees: lon)
                let d2 = (z.east - h.east) * (z.east - h.east) + (z.north - h.north) * (z.north - h.north)
                var wander = 0.0
                if let t0 = stopStart { wander = Self.parkedWander(errorStructure.lags, seconds: t0.seconds(to: t)) }
                if d2 / (holdWhiteVariance + h.variance + wander) >= settings.positionGateChiSquare {
                    movedDuringGap = d2; leave = true
                }
            }
            if let sp = speed, sp >= settings.stationaryExitSpeedMetersPerSecond { leave = true }
            var shaken = false
            if let v = accVar, let exit = accelerometerExitVariance, v >= exit { leave = true; shaken = true }
            if speed == nil && accVar == nil && !settings.stopFromPositions { leave = true }
            if leave {
                isStationary = false
                // Left on the receiver's speed alone: kept until the next epochs tell, in case it was a speed spike
                // while parked (phones report ~1 m/s for a second or two where the vehicle does not move).
                // (With an accelerometer that did not shake: it has not said the vehicle moves. Not suspended, a
                // position-speed spike ended every stop of a receiver without a speed on a board whose idling engine
                // shakes the accelerometer as the road does: parked path 10 → 24 m per 180 s.)
                if !shaken, movedDuringGap == nil, let sp = speed, let h = held {
                    suspendedStop = SuspendedStop(held: h, sum: stopSum, count: stopCount, start: stopStart, speed: sp, since: t)
                }
                stopSum = (0, 0); stopCount = 0
                held = nil
                lowSpeedSince = nil
                // Motion began at an unknown moment up to a few seconds ago: open position and velocity so the
                // estimate catches up with the start of motion instead of lagging behind it. The velocity by at
                // least the speed the fix reports: after a gap in the fixes the vehicle may be at full speed, and a
                // velocity held at zero with (2 m/s)² gated out the receiver's 14 m/s, and then every fix for 5 s (the
                // simulated outage receiver: 54 m off, 179 m before the gap rule above). (Not a speed the fixes show:
                // it may be an outlier's; a start found from the positions restarts the filter from their line once
                // confirmed, below.)
                let sp = fix.speedMetersPerSecond ?? 0
                kf[0, 0] += 1; kf[1, 1] += 1
                kf[2, 2] += Swift.max(4, sp * sp); kf[3, 3] += Swift.max(4, sp * sp)
                if let d2 = movedDuringGap {
                    // Moved during the gap: the fix is as far off as the vehicle went. Without a speed, its velocity
                    // is as unknown as at the first fix (`initialise`: (10 m/s)²).
                    kf[0, 0] += d2 / 2; kf[1, 1] += d2 / 2
                    if fix.speedMetersPerSecond == nil { kf[2, 2] = Swift.max(kf[2, 2], 100); kf[3, 3] = Swift.max(kf[3, 3], 100) }
                }
            }
            return
        }
        if let sus = suspendedStop {
            if let sp = speed, sp >= settings.stationaryExitSpeedMetersPerSecond {
                // A start from rest accelerates (v ∝ t: the speed doubles from its first second at the exit speed to
                // the next; 1.5 × that first speed is the tolerance) or keeps the exit speed as long as a stop must
                // stay slow to begin (`stationaryEnterSeconds`, at 1 Hz the third epoch): in time, not epochs, so
                // that at 5 or 10 Hz a spike of a second is not taken for a start.
                // Found from the positions, only a slope that goes on the way the stop ended confirms it (a single
                // outlier's turns round as it passes through the window).
                let shown = fix.speedMetersPerSecond != nil || fromPositions?.startShown == true
                if shown, sp >= 1.5 * sus.speed || sus.since.seconds(to: t) >= settings.stationaryEnterSeconds {
                    suspendedStop = nil
                    // A start found from the positions (`stopFromPositions`), now confirmed: it began some seconds ago,
                    // and the filter, held, is as far behind as the vehicle has gone since. It restarts from the line
                    // through the last 2 s of fixes. (Not at the first sign of a start, which may be a single outlier;
                    // and not by opening its covariance, which let this one fix carry the whole move since the stop:
                    // 22.7 m/s for a car at 7.5, and the next four fixes were rejected.)
                    if fix.speedMetersPerSecond == nil, let f = fromPositions?.shortFit {
                        restartFromLine(f, white: holdWhiteVariance)
                    }
                }
            } else if speed != nil {
                // Back below the exit speed: it was a spike. The stop goes on where it was.
                isStationary = true
                held = sus.held; stopSum = sus.sum; stopCount = sus.count; stopStart = sus.start
                suspendedStop = nil
                return
            } else {
                suspendedStop = nil
            }
        }
        // A gap in the fixes breaks a stop's clock: what the vehicle did in it is unknown, and the point a possible stop
        // waited at is from before it (`aStopIsNotEnteredAcrossAGap`).
        if previousTime != 0, interval > gapThresholdSeconds {
            lowSpeedSince = nil
            provisional = nil
        }
        // (A stop entered from motion, not the one a recording starts in: `holdWanderBeyondShownLags`.)
        if let sp = speed, sp >= settings.stationaryExitSpeedMetersPerSecond { seenMoving = true }
        var low: Bool
        if let slow = fromPositions?.slow {
            low = slow
        } else if let sp = slowSpeed ?? speed {
            low = sp <= settings.stationaryEnterSpeedMetersPerSecond
            // A receiver whose speed at rest is noise: the velocities' mean stands still (`recentNetSpeed`).
            if !low, let net = netSpeed { low = net <= settings.stationaryEnterSpeedMetersPerSecond }
        } else { low = accVar != nil }
        // A receiver that reports the mean velocity of the last interval (time tag c > 0) shows a stop one epoch late:
        // the vehicle that braked to rest during the interval reports about half its speed. Its speed at the fix's time,
        // carried on along the change from the previous fix (v + c·(v − v₀); a braking vehicle, v < v₀, from at least
        // the exit speed), shows it at once. The speed, not the velocity: at a stop the velocity's direction is noise,
        // and a turn is no stop. Only where what the vehicle may still move after the fix (the enter speed over half an
        // interval) is within one fix's white noise: a centimetre receiver sees that creep, and its stop is better
        // placed a fix later.
        if settings.stopFromVelocities, !low, let sp = speed, sp < previousSpeed,
           previousSpeed >= settings.stationaryExitSpeedMetersPerSecond, timeTag > Self.timeTagMinimum {
            let creep = settings.stationaryEnterSpeedMetersPerSecond * interval / 2
            if interval > 0, interval <= 2, creep * creep <= holdWhiteVariance,
               sp + timeTag * (sp - previousSpeed) <= settings.stationaryEnterSpeedMetersPerSecond {
                low = true
            }
        }
        // The accelerometer vetoes a stop only where the receiver gives no speed: the receiver's speed says a stop
        // within a second, while the accelerometer's 1 s window still holds the braking for a second after it (with
        // it, the stop began a fix late and the output followed the filter's settling: 0.5–3.7 m per 180 s more in
        // the first five steps of a stop).
        if let v = accVar, fix.speedMetersPerSecond == nil, let enter = accelerometerEnterVariance { low = low && v <= enter }
        guard low else { lowSpeedSince = nil; return }
        let since = lowSpeedSince ?? t
        lowSpeedSince = since
        if Double(t.nanosecondsSince1970 - since.nanosecondsSince1970) / 1e9 >= settings.stationaryEnterSeconds {
            isStationary = true
            stopFromMotion = seenMoving
            // Seed the stop's mean with the moving estimate (worth one fix), so the output does not jump to
            // the first parked fix.
            stopSum = (kf.x[0], kf.x[1]); stopCount = 1
            // Found from the positions: the line through the fixes, not the filter (which lags without a speed).
            if fix.speedMetersPerSecond == nil {
                if let p = positionSeed, p.since == since { stopSum = (p.east, p.north) } else if let p = provisional { stopSum = p }
            }
            positionSeed = nil
            stopStart = t
            zeroVelocityUpdate()
        }
    }

    /// The reported speeds' recent mean, for entering a stop: the speed itself after an interval of
    /// `recentSpeedIntervalSeconds` or more (1 and 2 Hz, or after a gap), and at higher rates an exponential mean with a
    /// time constant of `recentSpeedTimeConstantSeconds` (about 2 fixes at 10 Hz, 4 at 25 Hz). A stop begins after
    /// `stationaryEnterSeconds` of slow fixes. Judged fix by fix, a speed noise that lets one fix in 20 pass the enter
    /// speed (0.1 m/s per axis against 0.25 m/s) holds 90 % of the 2 s windows at 1 Hz (2 fixes), but only one in ten
    /// at 25 Hz (50 fixes). A longer time constant averages more noise but sees a braking vehicle later, and the output
    /// drew that lag as path (docs/smoothing.md, "Kept … stops at 10–25 fixes per second").
    mutating func recentSpeed(_ speed: Double?, interval: Double, first: Bool) -> Double? {
        guard let sp = speed, sp.isFinite else { recentSpeedMean = .nan; return nil }
        if first || recentSpeedMean.isNaN || !(interval > 0) || interval >= Self.recentSpeedIntervalSeconds {
            recentSpeedMean = sp
        } else {
            recentSpeedMean += (1 - exp(-interval / Self.recentSpeedTimeConstantSeconds)) * (sp - recentSpeedMean)
        }
        return recentSpeedMean
    }

    /// The speed of the reported velocities' recent mean, for entering a stop on a receiver whose speed at rest is
    /// noise. A 2-D velocity noise of σ per axis has a mean speed of 1.25 σ at rest: for σ = 0.2 m/s that is
    /// 0.25 m/s, the enter speed itself, and no mean of the speed falls below it (such a receiver drew 7–14 m of parked
    /// path per 180 s at 1 Hz and 62–95 m at 10–25 Hz). But the noise's directions are random, so the velocities' mean
    /// goes to zero, while a vehicle creeping at v keeps a mean of v. The mean is taken over the fixes since the last one
    /// at or above the exit speed (equal weights), forgetting over `recentVelocityTimeConstantSeconds` once it holds
    /// more than that: a braking vehicle's earlier speed does not linger in it. Only fixes with a course count (or a
    /// speed of exactly 0): a slow fix without one says nothing of its direction. Nil otherwise; restarted after a gap.
    mutating func recentNetSpeed(speed: Double?, course: Double?, interval: Double, first: Bool, exitSpeed: Double) -> Double? {
        guard let sp = speed, sp < exitSpeed, sp == 0 || course?.isFinite == true,
              let v = velocity(speed: sp, courseDegrees: course) else { recentVelocityCount = 0; return nil }
        if first || recentVelocityCount == 0 || !(interval > 0) || interval > gapThresholdSeconds {
            recentVelocityMean = v; recentVelocityCount = 1
        } else {
            recentVelocityCount += 1
            let a = Swift.max(1 / Double(recentVelocityCount), 1 - exp(-interval / Self.recentVelocityTimeConstantSeconds))
            recentVelocityMean.east += a * (v.east - recentVelocityMean.east)
            recentVelocityMean.north += a * (v.north - recentVelocityMean.north)
        }
        return (recentVelocityMean.east * recentVelocityMean.east + recentVelocityMean.north * recentVelocityMean.north).squareRoot()
    }

    /// `recentNetSpeed`'s memory, s. At 1, 5 and 10 Hz, 1 s drew more parked path than 2 s on receivers with 0.2 m/s of
    /// velocity noise, and 2, 3 and 5 s came out the same (a stop begins within 2 s of its first slow fix, before
    /// the mean forgets).
    static let recentVelocityTimeConstantSeconds = 2.0

    /// `recentSpeed`'s time constant, and the interval from which a fix's speed stands alone, s.
    static let recentSpeedTimeConstantSeconds = 0.1
    static let recentSpeedIntervalSeconds = 0.75

    /// Whether a fix the position gate rejects, with its velocity `v`, and the rejected fix before it, `dt` seconds
    /// earlier, show the same motion: the second where the first and the mean of their velocities put it (the first's
    /// velocity where it has one, else this one's), within the gate against two fixes' white noise and the
    /// displacement's (dt × the speed's σ per axis), while the filter's motion disagrees (below). Two fixes that agree
    /// with each other and with their own velocity, but not with the filter, are a manoeuvre the filter did not follow
    /// (a car turning at speed, where the fixes between carry no speed), not outliers: the filter restarts from this
    /// one instead of rejecting three more (a random drive with a speed on half of its fixes was 39 m off for three
    /// fixes in a turn at 15 m/s).
    mutating func rejectedFixesAgree(_ p: RejectedFix, _ z: (east: Double, north: Double), _ v: (east: Double, north: Double),
                                     dt: Double, fix: Location) -> Bool {
        guard dt > 0, dt <= gapThresholdSeconds else { return false }
        // Only where the filter's motion is wrong, not only its position (a receiver whose wander jumps past an
        // optimistic claim keeps the filter's velocity, and two fixes 0.1 s apart agree whatever happened): the fix's
        // velocity is beyond the velocity gate, or the step between the two fixes is beyond the position gate against
        // the filter's velocity.
        let sp = fix.speedMetersPerSecond ?? 0
        let ss = fix.speedAccuracyMetersPerSecond ?? settings.speedSigmaMetersPerSecond
        let sc = (fix.courseAccuracyDegrees ?? settings.courseSigmaDegrees) * .pi / 180 * sp
        let rv = (ss * ss + sc * sc) / 2
        let white = holdWhiteVariance
        let fe = z.east - (p.east + dt * kf.x[2]), fn = z.north - (p.north + dt * kf.x[3])
        let filterStep = (fe * fe + fn * fn) / (2 * white + dt * dt * (kf[2, 2] + kf[3, 3]) / 2)
        guard kf.innovation((v.east, v.north), a: (2, 3), b: (-1, -1), r: (rv, 0, 0, rv)).nis > settings.velocityGateChiSquare
              || filterStep > settings.positionGateChiSquare else { return false }
        let pv = p.velocity ?? v
        let de = z.east - (p.east + dt * (pv.east + v.east) / 2)
        let dn = z.north - (p.north + dt * (pv.north + v.north) / 2)
        let variance = 2 * white + dt * dt * ss * ss
        guard variance.isFinite, variance > 0 else { return false }
        return (de * de + dn * dn) / variance <= settings.positionGateChiSquare
    }

    /// A fix's velocity (east, north, m/s) from its speed and course; zero for a speed below the course threshold
    /// without a course (as the velocity update takes it); nil otherwise.
    mutating func fixVelocity(_ fix: Location) -> (east: Double, north: Double)? {
        velocity(speed: fix.speedMetersPerSecond, courseDegrees: fix.courseDegrees)
    }

    /// `fixVelocity` from a speed and a course alone (the per-fix stop test takes these, not the whole fix).
    mutating func velocity(speed: Double?, courseDegrees: Double?) -> (east: Double, north: Double)? {
        guard let sp = speed, sp.isFinite else { return nil }
        guard let c = courseDegrees, c.isFinite else {
            return sp < settings.minimumSpeedForCourseMetersPerSecond ? (0, 0) : nil
        }
        let u = courseSinCos(c)
        return (sp * u.sin, sp * u.cos)
    }

    /// sin and cos of a course (degrees), kept for the next call with the same course: one fix's course was taken
    /// apart three to five times (its velocity for the stop test, the error structure, the velocity updates).
    mutating func courseSinCos(_ c: Double) -> (sin: Double, cos: Double) {
        if c != courseTrig.degrees { courseTrig = (c, sin(c * .pi / 180), cos(c * .pi / 180)) }
        return (courseTrig.sin, courseTrig.cos)
    }

    /// The estimate before a fix is processed, for the stop's entry point (`stopEntry`): position, velocity, the
    /// position's per-axis variance (the smaller of the filter's own and its real-error covariance's) and the
    /// velocity's.
    mutating func stopEntryPrior() -> StopEntryPrior {
        let model = (kf[0, 0] + kf[1, 1]) / 2, real = (kf.pt[0] + kf.pt[7]) / 2
        return StopEntryPrior(east: kf.x[0], north: kf.x[1], velocityEast: kf.x[2], velocityNorth: kf.x[3],
                              positionVariance: real.isFinite ? Swift.min(model, real) : model,
                              velocityVariance: (kf[2, 2] + kf[3, 3]) / 2)
    }

    /// Where the output waits at the first fix of a possible stop. The vehicle moved over the interval by what the
    /// velocities say: with the previous estimate's velocity v₀ and the fix's v, tagged c·dt before their epochs, a
    /// velocity linear between them moves it dt·((½ − c)·v₀ + (½ + c)·v) (the fix's mean velocity alone for c = ½,
    /// the trapezoid for c = 0). That point, the previous estimate's variance plus the displacement's (the
    /// velocities' variances and, for where in the interval the braking happened, |v − v₀|²·dt²/12), is weighed
    /// against the filter's estimate, which took this fix as one more white-noise sample (the gain
    /// P/(P + white)). The filter itself carried the previous velocity through the whole interval.
    mutating func stopEntry(previous p: StopEntryPrior, fix: Location, dt: Double) -> (east: Double, north: Double) {
        // The fix's velocity where it has a course (or stands still); otherwise the filter's.
        let hasVelocity = fix.courseDegrees?.isFinite == true || fix.speedMetersPerSecond == 0
        let v = (hasVelocity ? fixVelocity(fix) : nil) ?? (kf.x[2], kf.x[3])
        let c = Swift.min(0.5, Swift.max(0, timeTag))
        let w0 = 0.5 - c, w1 = 0.5 + c
        let e = p.east + dt * (w0 * p.velocityEast + w1 * v.east)
        let n = p.north + dt * (w0 * p.velocityNorth + w1 * v.north)
        let de = p.velocityEast - v.east, dn = p.velocityNorth - v.north
        let sv = fix.speedAccuracyMetersPerSecond ?? settings.speedSigmaMetersPerSecond
        let displacementVariance = dt * dt * ((de * de + dn * dn) / 12 + w0 * w0 * p.velocityVariance + w1 * w1 * sv * sv)
        let white = holdWhiteVariance
        let prior = p.positionVariance + displacementVariance
        guard prior.isFinite, prior + white > 0 else { return (kf.x[0], kf.x[1]) }
        let k = prior / (prior + white)
        return (e + k * (kf.x[0] - e), n + k * (kf.x[1] - n))
    }

    mutating func zeroVelocityUpdate() {
        kf.update((0, 0), a: (2, 3), b: (-1, -1), r: (1e-4, 0, 0, 1e-4))
    }

    /// How long before `t` the fix's velocity applies (c·dt, with c the time tag fitted to the fixes' 1 s increments:
    /// a receiver that reports the mean velocity over the last interval moves its positions with the new velocity,
    /// c ≈ ½), or 0 to apply it at t as before. Only for a moving fix with speed and course, without a
    /// navigation-frame acceleration (which carries the motion between fixes itself; a body-frame gyroscope only turns
    /// it, and its step stops short of the fix with the rest), at intervals of at most 2 s, and for c > 0.05 (the
    /// F9K's fitted c is 0.01: a receiver whose velocity is that of its epoch keeps exactly the filter it had).
    mutating func velocityShift(fix: Location, dt: Double) -> Double {
        guard settings.velocityAtTimeTag, settings.useVelocity, !isStationary, dt > 0, dt <= 2,
              accelerationENU == nil,
              let sp = fix.speedMetersPerSecond, sp.isFinite, sp >= settings.minimumSpeedForCourseMetersPerSecond,
              let c = fix.courseDegrees, c.isFinite else { return 0 }
        return timeTag > Self.timeTagMinimum ? timeTag * dt : 0
    }

    /// The time tag below which a receiver's velocity counts as its epoch's (the F9K's fitted c is 0.01).
    static let timeTagMinimum = 0.05

    /// The receiver's white variance for the stop hold (m² per axis): what its 1 s increments show (S(1 s), an upper
    /// bound: the hold is worth no more than that), never more than it claims. (A mutating getter, like the other
    /// helpers read on every fix: non-mutating ones copied the smoother, 30–50 ns per fix on MTV-1.)
    var holdWhiteVariance: Double { mutating get { Swift.min(incrementWhite ?? claimedVariance, claimedVariance) } }

    /// The steady variance of the filter's modelled error state (its share of the claim, as adapted).
    var modelledBiasVariance: Double {
        settings.correlatedErrorFraction * lastReportedVariance * (settings.adaptiveMeasurementNoise ? adaptiveScale : 1)
    }

    /// How many fixes covariance matching skips after a restart of the filter (`adaptTransient`).
    static let restartTransientFixes = 5

    /// The error state (the receiver's slow error, x[4], x[5]) is a Gauss–Markov process whose steady variance is its
    /// share of the claim (`modelledBiasVariance`). An estimate beyond the position gate of that model (χ² of 2 dof) is
    /// no error this model allows, but the position's: held at a stop while the fixes wandered off by more, the error
    /// state took the whole offset (−30 to −55 m on a phone's GPS-only single-point solution, GSDC 2021 MTV-1 Pixel 5,
    /// where the model allowed 4 m), and after the stop the filter explained the fixes, good again, by that error, its
    /// output 30–50 m off while the fixes were 3–12 m off, until a restart. On a moving fix the excess is moved into the
    /// position (the prediction of the fix, position + error, is unchanged).
    mutating func boundErrorState() {
        let sb = modelledBiasVariance
        guard sb > 0 else { return }
        let be = kf.x[4], bn = kf.x[5]
        let b2 = be * be + bn * bn
        let limit = settings.positionGateChiSquare * sb
        guard b2 > limit else { return }
        let k = 1 - (limit / b2).squareRoot()
        let de = be * k, dn = bn * k
        kf.x[0] += de; kf.x[1] += dn; kf.x[4] -= de; kf.x[5] -= dn
        errorStateBounds += 1
    }

    /// `role`: which of the smoother's velocity statistics this update's innovation teaches (`VelocityRole`).
    mutating func velocityUpdate(fix: Location, role: VelocityRole = .both) {
        // The settings read field by field (`let s = settings` copied all 246 bytes of them), and the update run on the
        // filter in place through a static function: the reported copy's update once swapped the two 633-byte
        // filters in and out.
        let s = VelocitySettings(useVelocity: settings.useVelocity,
                                 minimumSpeedForCourse: settings.minimumSpeedForCourseMetersPerSecond,
                                 speedSigma: settings.speedSigmaMetersPerSecond, courseSigmaDegrees: settings.courseSigmaDegrees,
                                 gate: settings.velocityGateChiSquare, adaptiveWeight: settings.adaptiveWeight)
        let rt = dopplerCount >= 30 && dopplerNoiseRobust.isFinite ? dopplerNoiseRobust : nil
        let trig = fix.courseDegrees.map { courseSinCos($0) } ?? (sin: 0, cos: 1)
        if role == .reported {
            Self.velocityUpdate(fix: fix, role: role, settings: s, dopplerNoise: rt, courseSinCos: trig,
                                filter: &reportedFilter, learning: &velocityLearning)
        } else {
            Self.velocityUpdate(fix: fix, role: role, settings: s, dopplerNoise: rt, courseSinCos: trig, filter: &kf,
                                learning: &velocityLearning)
        }
    }

    /// The settings `velocityUpdate` reads.
    struct VelocitySettings {
        var useVelocity: Bool, minimumSpeedForCourse: Double, speedSigma: Double, courseSigmaDegrees: Double
        var gate: Double, adaptiveWeight: Double
    }

    /// The velocity update on `kf` (the position filter, or the reported copy): `dopplerNoise` is the receiver's
    /// learned velocity noise (`dopplerNoiseRobust`) once it is known; `courseSinCos` the sine and cosine of the
    /// fix's course (`courseSinCos(_:)`; not read when the fix has none).
    static func velocityUpdate(fix: Location, role: VelocityRole, settings s: VelocitySettings, dopplerNoise: Double?,
                               courseSinCos u: (sin: Double, cos: Double),
                               filter kf: inout KalmanFilter, learning: inout VelocityLearning) {
        guard s.useVelocity, let sp = fix.speedMetersPerSecond, sp.isFinite, sp >= 0 else { return }
        guard let c = fix.courseDegrees, c.isFinite, sp >= s.minimumSpeedForCourse else {
            // Below the course threshold the speed still says the velocity is small: each axis within the speed
            // (and its σ) of zero. This stops the estimate with the vehicle instead of letting it coast into a stop.
            let ss = fix.speedAccuracyMetersPerSecond ?? s.speedSigma
            let v = sp * sp + ss * ss
            if kf.innovation((0, 0), a: (2, 3), b: (-1, -1), r: (v, 0, 0, v)).nis <= s.gate {
                kf.update((0, 0), a: (2, 3), b: (-1, -1), r: (v, 0, 0, v))
            }
            return
        }
        let ss = fix.speedAccuracyMetersPerSecond ?? s.speedSigma
        let sc = (fix.courseAccuracyDegrees ?? s.courseSigmaDegrees) * .pi / 180 * sp
        // Along-track (sin c, cos c) and cross-track (cos c, −sin c) variances rotated into east/north.
        let a = (u.sin, u.cos), x = (u.cos, -u.sin)
        let va = ss * ss, vx = sc * sc
        let ree = va * a.0 * a.0 + vx * x.0 * x.0
        let rnn = va * a.1 * a.1 + vx * x.1 * x.1
        let ren = va * a.0 * a.1 + vx * x.0 * x.1
        let z = (sp * a.0, sp * a.1), r = (ree, ren, ren, rnn)
        let inn = kf.innovation(z, a: (2, 3), b: (-1, -1), r: r)
        if inn.nis <= s.gate {
            // The prior's real share α: the velocity innovations' power beyond the learned noise Rₜ against the prior
            // variance the filter assumed (its acceleration noise is a bound for manoeuvres, not the vehicle's usual
            // motion); a running mean. The position filter's own (at the time tag, or at t when not shifted) is the
            // real-error covariance's process share; the reported velocity's is its accuracy's, below.
            let pm = (kf[2, 2] + kf[3, 3]) / 2
            if let rt = dopplerNoise, pm > 0 {
                let ratio = Swift.min(Swift.max(0, (inn.y.0 * inn.y.0 + inn.y.1 * inn.y.1) / 2 - rt) / pm,
                                      4 * s.gate)
                func learn(_ scale: inout Double, _ count: inout Int) {
                    count += 1
                    scale += Swift.max(s.adaptiveWeight, 1 / Double(count)) * (ratio - scale)
                }
                if role != .reported { learn(&learning.processPriorScale, &learning.processPriorCount) }
                if role != .positionFilter { learn(&learning.priorScale, &learning.priorCount) }
            }
            if role != .positionFilter, let rt = dopplerNoise {
                // What the speed and course accuracies report: the velocity's error after this update as it is, not
                // as the filter assumes. The filter's gain K = P (P + R)⁻¹ (its assumed noise R) is kept; the error is
                // (I − K) αP (I − K)ᵀ + K Rₜ Kᵀ with the receiver's learned velocity noise Rₜ, and αP the prior's
                // real error (α as above).
                let scale = Swift.min(1, learning.priorScale)
                let p00 = kf[2, 2] * scale, p01 = kf[2, 3] * scale, p11 = kf[3, 3] * scale
                let f00 = kf[2, 2], f01 = kf[2, 3], f11 = kf[3, 3]
                let s00 = f00 + ree, s01 = f01 + ren, s11 = f11 + rnn
                let det = s00 * s11 - s01 * s01
                if det > 0 {
                    let i00 = s11 / det, i01 = -s01 / det, i11 = s00 / det
                    let k00 = f00 * i00 + f01 * i01, k01 = f00 * i01 + f01 * i11
                    let k10 = f01 * i00 + f11 * i01, k11 = f01 * i01 + f11 * i11
                    let a00 = 1 - k00, a01 = -k01, a10 = -k10, a11 = 1 - k11
                    // A P Aᵀ
                    let t00 = a00 * p00 + a01 * p01, t01 = a00 * p01 + a01 * p11
                    let t10 = a10 * p00 + a11 * p01, t11 = a10 * p01 + a11 * p11
                    let e00 = t00 * a00 + t01 * a01 + rt * (k00 * k00 + k01 * k01)
                    let e01 = t00 * a10 + t01 * a11 + rt * (k00 * k10 + k01 * k11)
                    let e11 = t10 * a10 + t11 * a11 + rt * (k10 * k10 + k11 * k11)
                    learning.errorCovariance = (e00, e01, e11)
                }
            }
            kf.update(z, a: (2, 3), b: (-1, -1), r: r, rTrue: dopplerNoise.map { ($0, 0, 0, $0) })
        }
        if role != .positionFilter, inn.nis.isFinite {
            learning.innovations += 1
            let w = Swift.max(s.adaptiveWeight, 1 / Double(learning.innovations))
            learning.consistency += w * (Swift.min(inn.nis, 4 * s.gate) / 2 - learning.consistency)
        }
    }

    /// Feeds an accepted fix to the error-structure analysis: the measured position with the receiver's own velocity.
    mutating func learnErrorStructure(fix: Location, t: Timestamp, z: (Double, Double)) {
        let v = fixVelocity(fix)
        if let vv = v { deadReckoningDriftBox.value.add(seconds: Double(t.nanosecondsSince1970) / 1e9, east: vv.east, north: vv.north) }
        if let vv = v, !isStationary {
            if let l = lastDoppler, Double(t.nanosecondsSince1970 - l.t.nanosecondsSince1970) / 1e9 <= 1.5 {
                let p = ((vv.east - l.east) * (vv.east - l.east) + (vv.north - l.north) * (vv.north - l.north)) / 4
                dopplerCount += 1
                let w = Swift.max(settings.adaptiveWeight, 1 / Double(dopplerCount))
                dopplerNoise = dopplerNoise.isNaN ? p : dopplerNoise + w * (p - dopplerNoise)
                // The median of p (a running estimate: up or down by a fixed ratio per sample) over its median for
                // white noise (p is σ² χ²₂/2, whose median is ln 2 ≈ 0.693 σ²). Unlike the mean square, one manoeuvre
                // does not carry it; like S(1 s) for positions it still holds the typical change over 1 s, so it is an
                // upper bound on the velocity's noise.
                // Steps of 1/n at first (so the start is forgotten), then 5 %.
                let step = dopplerCount >= 20 ? Self.medianStep : exp(1 / Double(dopplerCount))
                if dopplerMedian.isNaN { dopplerMedian = Swift.max(p, 1e-8) } else { dopplerMedian *= p > dopplerMedian ? step : 1 / step }
            }
            lastDoppler = (vv.east, vv.north, t)
        } else {
            lastDoppler = nil
        }
        errorStructure.add(time: Double(t.nanosecondsSince1970) / 1e9, east: z.0, north: z.1, velocity: v,
                           stationary: isStationary, claim: claimedVariance)
        let lags = errorStructure.lags   // one copy of the sums, read three times
        incrementWhite = lags.white.map { $0 * lags.claimRatio(claimedVariance) }
        timeTag = lags.velocityTimeTag
    }

    /// The per-axis variance of the receiver's error change over `seconds` while parked: S(T) − S(1 s) from the
    /// structure function's lags (within stops), interpolated between lags; 0 without evidence. Beyond the longest lag
    /// with evidence (two independent samples), at least `beyondShown`.
    static func parkedWander(_ lags: ErrorStructure.Lags, seconds: Double, beyondShown: Double = 0) -> Double {
        guard let s1 = lags.structure(lag: 0) else { return seconds > 0 ? beyondShown : 0 }
        guard seconds > 1 else { return 0 }
        var below = (lag: 1.0, value: s1)
        for k in 1..<ErrorStructure.lagCount {
            guard lags.counts[k] >= 2 * Double(1 << k), let v = lags.structure(lag: k) else { break }
            let lag = Double(1 << k)
            if seconds <= lag {
                let x = (seconds - below.lag) / (lag - below.lag)
                return Swift.max(0, below.value + x * (v - below.value) - s1)
            }
            below = (lag, v)
        }
        return Swift.max(0, below.value - s1, beyondShown)
    }

    /// How far (m) two positions whose difference has this per-axis variance may lie apart before it is motion:
    /// `holdDeadbandRadiusFactor` × the difference's 68 % radius, at least `holdMinimumDeadbandMeters`.
    func holdDeadband(variance: Double) -> Double {
        Swift.max(settings.holdMinimumDeadbandMeters,
                  settings.holdDeadbandRadiusFactor * HorizontalError.radius68PerSigma * variance.squareRoot())
    }

    /// The learned split of the receiver's per-axis variance for the current claim.
    var errorEstimate: ErrorStructure.Estimate { errorStructure.lags.estimate(claim: claimedVariance) }

    mutating func reanchorIfNeeded() {
        guard let fr = frame else { return }
        let e = kf.x[0], n = kf.x[1]
        guard (e * e + n * n).squareRoot() > settings.reanchorDistanceMeters else { return }
        let g = fr.geodetic(east: e, north: n)
        let nf = LocalTangentFrame(latitudeDegrees: g.latitudeDegrees, longitudeDegrees: g.longitudeDegrees)
        frame = nf
        kf.x[0] = 0; kf.x[1] = 0
        errorStructure.shift(east: e, north: n)
        func move(_ p: (east: Double, north: Double)) -> (east: Double, north: Double) {
            let pg = fr.geodetic(east: p.east, north: p.north)
            let q = nf.enu(latitudeDegrees: pg.latitudeDegrees, longitudeDegrees: pg.longitudeDegrees)
            return (q.east, q.north)
        }
        // A sum of `count` positions: its mean moved, times the count.
        func moveSum(_ sum: (east: Double, north: Double), _ count: Int) -> (east: Double, north: Double) {
            guard count > 0 else { return sum }
            let c = Double(count)
            let m = move((sum.east / c, sum.north / c))
            return (m.east * c, m.north * c)
        }
        if let h = held { let m = move((h.east, h.north)); held = (m.east, m.north, h.variance) }
        stopSum = moveSum(stopSum, stopCount)
        if let o = outputENU { outputENU = move(o) }
        if let l = lastFixENU { lastFixENU = move(l) }
        if let p = provisional { provisional = move(p) }
        stopCreep.move(move)
        positionWindowBox?.value.move(move)
        if var sus = suspendedStop {
            let h = move((sus.held.east, sus.held.north))
            sus.held = (h.east, h.north, sus.held.variance)
            sus.sum = moveSum(sus.sum, sus.count)
            suspendedStop = sus
        }
    }

    /// The held point while stationary (`output`): the stop's mean and the held point updated with this fix, the point
    /// (local frame, m), and when the stop has fixes, the mean's per-axis variance (white noise left after its fixes;
    /// the slow part is added by the caller) and how far the held point is from the mean. (Not inlined: inside
    /// `output` the stop's code made every fix, moving or not, ~40 ns slower.)
    @inline(never)
    mutating func holdPoint(fix: Location, measured measuredENU: (east: Double, north: Double)?, white: Double, slow: Double)
        -> (east: Double, north: Double, variance: Double?, offset: Double)? {
        if let m = measuredENU {
            stopSum.east += m.east; stopSum.north += m.north; stopCount += 1
        }
        if stopCount > 0 {
            let newStop = held == nil
            if held == nil, let p = provisional {
                held = (p.east, p.north, Swift.min((kf[0, 0] + kf[1, 1]) / 2, white))
            }
            if held == nil {
                // The moving estimate, worth at least one fix: its variance is the filter's, but no more than the
                // white variance the fixes show (the filter's own is the receiver's claim at first, often far
                // too large, which would hold a poor point for the whole stop).
                held = (kf.x[0], kf.x[1], Swift.min((kf[0, 0] + kf[1, 1]) / 2, white))
            }
            // A vehicle creeping: the held point follows it (`holdFollowsCreep`).
            let crept = settings.holdFollowsCreep && followCreep(fix: fix, measured: measuredENU, newStop: newStop, white: white)
            let c = Double(stopCount)
            let me = stopSum.east / c, mn = stopSum.north / c
            let meanVariance = white / c
            if !crept, let h = held {
                let d = ((me - h.east) * (me - h.east) + (mn - h.north) * (mn - h.north)).squareRoot()
                // How far the receiver's own error wanders over the stop so far, as its parked fixes show it
                // (S(T) − S(1 s) at the stop's duration T): the mean leaving the held point by that much is the
                // receiver's wander, not motion.
                // Beyond the longest lag the parked fixes have shown, at least the learned slow part: what a wander
                // can reach, which the stop's mean follows while the truth stands (`holdWanderBeyondShownLags`).
                var wander = 0.0
                if let t0 = stopStart, let t1 = time {
                    wander = Self.parkedWander(errorStructure.lags, seconds: t0.seconds(to: t1),
                                               beyondShown: settings.holdWanderBeyondShownLags && stopFromMotion ? slow : 0)
                }
                let deadband = holdDeadband(variance: Swift.min(h.variance, white) + meanVariance + wander)
                // (The held point is worth at most one fix's white variance, as the white variance is known now: a
                // hold made before the first S(1 s) kept the claim's variance, 7 m² on MTV-2's first stop, and so
                // an 8 m deadband for the whole stop.)
                if d > deadband { held = (me, mn, meanVariance) }
            }
            let h = held!
            // The mean's error (white noise left after c fixes; the caller adds the slow part) plus how far the held
            // point is from it.
            return (h.east, h.north, meanVariance, ((me - h.east) * (me - h.east) + (mn - h.north) * (mn - h.north)).squareRoot())
        } else if let h = held {
            return (h.east, h.north, nil, 0)
        }
        return nil
    }

    /// The smoothed location: the fix's other fields kept, position/velocity/accuracies from the filter.
    /// `measured` is the fix's own 68 % radius when it was used (for the post-outage convergence limit).
    mutating func output(from fix: Location, measured: Double?, measuredENU: (east: Double, north: Double)? = nil) -> Location {
        guard let fr = frame else { return fix }
        var e = kf.x[0], n = kf.x[1]
        // Built where it is kept (`lastOutput`): one copy of the fix in and one to return, where a local built, then
        // stored and returned took five.
        lastOutputStorage = fix
        hasLastOutput = true
        let learned = errorEstimate
        fittedWhite = learned.white
        shownTotal = learned.shown
        let white = holdWhiteVariance
        // What the position's error is, plus what no averaging removes (`learned.slow`).
        var pee: Double, pnn: Double, pen: Double
        if learned.white != nil, kf.pt[0].isFinite, kf.pt[7].isFinite, kf.pt[1].isFinite {
            // Once the receiver's white noise is known: the estimate's real error (`KalmanFilter.pt`: the filter's own
            // gains with the white noise the fixes show and the motion the velocity innovations show). The filter's
            // covariance assumes its own model (its share of the claim white, its acceleration noise), which at
            // 5–10 Hz made the radius twice the error.
            pee = kf.pt[0] + learned.slow; pnn = kf.pt[7] + learned.slow; pen = kf.pt[1]
        } else {
            // Before that: the filter's uncertainty about where the receiver's fixes are centred (position + its
            // modelled error state: what averaging the white noise leaves), scaled up when its innovations show it too
            // small, or when the fixes' 1 s increments show more white noise than the filter's adapted variance
            // (covariance matching cannot resolve a noise far below the process noise).
            let adaptedWhite = lastReportedVariance * (settings.adaptiveMeasurementNoise ? adaptiveScale : 1)
            let whiteRatio = adaptedWhite > 0 ? (learned.white ?? 0) / adaptedWhite : 1
            let inflate = Swift.max(1, positionConsistency, whiteRatio)
            let see = kf[0, 0] + kf[4, 4] + 2 * kf[0, 4], snn = kf[1, 1] + kf[5, 5] + 2 * kf[1, 5]
            let sen = kf[0, 1] + kf[4, 5] + kf[0, 5] + kf[4, 1]
            pee = Swift.max(0, see) * inflate + learned.slow; pnn = Swift.max(0, snn) * inflate + learned.slow
            pen = sen * inflate
        }
        var offset = 0.0
        if isStationary {
            // Held at the mean of the fixes since the stop began (the best static estimate, seeded with the moving
            // estimate); the held point moves to a new mean only when the two differ significantly: by more than
            // `holdDeadbandRadiusFactor` × the 68 % radius of their difference (the held point's variance and the
            // white noise left in the mean), so parked jitter draws (almost) no path.
            if let hp = holdPoint(fix: fix, measured: measuredENU, white: white, slow: learned.slow) {
                e = hp.east; n = hp.north
                if let v = hp.variance { offset = hp.offset; pee = v + learned.slow; pnn = pee; pen = 0 }
            }
            lastOutputStorage.speedMetersPerSecond = 0
            // Stopped: the speed is zero within what the receiver itself still measures.
            lastOutputStorage.speedAccuracyMetersPerSecond = Swift.max(((kf[2, 2] + kf[3, 3]) / 2).squareRoot(), fix.speedMetersPerSecond ?? 0)
        } else {
            // Slow enough to be stopping: the output waits where it is (the first slow fix's estimate) until the
            // stop is confirmed or motion resumes, instead of drawing the filter's settling as path.
            // Without a speed, the output waits as soon as the last 2 s of fixes may be a stop (`positionsMaybeSlow`),
            // at their line's point for the fix (the filter, without a speed, overshoots a braking vehicle by 0.5–1 m
            // a fix), before the longer window confirms a slow speed; once the filter has moved on from that point by
            // more than a fix's white noise (χ² beyond the gate) without the slow speed confirmed, it waits there
            // instead, so a vehicle crawling on is followed in steps of about that noise.
            if lowSpeedSince != nil || positionsMaybeSlow, measuredENU != nil, !afterOutage {
                if lowSpeedSince == nil, let p = provisional,
                   (e - p.east) * (e - p.east) + (n - p.north) * (n - p.north) >= settings.positionGateChiSquare * holdWhiteVariance {
                    provisional = (e, n)
                }
                if provisional == nil, lowSpeedSince == nil, let q = positionShortPoint { provisional = q }
                if let p = provisional { e = p.east; n = p.north } else { provisional = (e, n) }
            } else {
                provisional = nil
            }
            let ov = outputVelocity ?? (kf.x[2], kf.x[3], kf[2, 2], kf[2, 3], kf[3, 3])
            let ve = ov.east, vn = ov.north
            let sp = (ve * ve + vn * vn).squareRoot()
            lastOutputStorage.speedMetersPerSecond = sp
            // Scaled by what the velocity innovations show (their normalised power: below 1 when the receiver's
            // speed and course are better than assumed, above 1 when worse).
            var vInflate = Swift.max(0.01, velocityConsistency)
            let pv = (ov.cee + ov.cnn) / 2
            if dopplerCount >= 10, pv * vInflate > dopplerNoise, pv > 0 { vInflate = dopplerNoise / pv }
            lastOutputStorage.speedAccuracyMetersPerSecond = (pv * vInflate).squareRoot()
            // Right after a velocity update with a learned noise: its error covariance along the track.
            if let c = velocityLearning.errorCovariance, sp > 0 {
                let ue = ve / sp, un = vn / sp
                lastOutputStorage.speedAccuracyMetersPerSecond = Swift.max(0, ue * ue * c.0 + 2 * ue * un * c.1 + un * un * c.2).squareRoot()
            }
            if sp >= settings.minimumSpeedForCourseMetersPerSecond {
                lastOutputStorage.courseDegrees = Angle.normalizedDegrees(atan2(ve, vn) * 180 / .pi)
                // The velocity's uncertainty across the track, as an angle (same σ convention as the speed's).
                let ue = vn / sp, un = -ve / sp
                // Before the velocity noise is learned: the filter's own, inflated (only) when the velocity innovations
                // are larger than predicted.
                var across = (ue * ue * ov.cee + 2 * ue * un * ov.cen + un * un * ov.cnn) * Swift.max(1, velocityConsistency)
                if let c = velocityLearning.errorCovariance { across = ue * ue * c.0 + 2 * ue * un * c.1 + un * un * c.2 }
                lastOutputStorage.courseAccuracyDegrees = min(180, atan2(Swift.max(0, across).squareRoot(), sp) * 180 / .pi)
            } else if fix.courseDegrees == nil {
                lastOutputStorage.courseDegrees = nil
            }
        }
        // Held away from the stop's mean (isotropic there): the 68 % radius about the held point, not the mean's radius
        // plus the offset, which bounds it (97–100 % within on the honest simulated receivers' held epochs).
        var radius = offset > 0 && settings.heldRadiusFromOffset
            ? HorizontalError.radius68(offset: offset, sigma: pee.squareRoot())
            : HorizontalError.radius68(pee: pee, pnn: pnn, pen: pen) + offset
        // A stop left on a speed that may be a spike: the output stays where the stop was held until the next epochs
        // tell; its radius grows by its distance from the estimate. Unless the fix has moved from the last one by more
        // than the receiver's 1 s increments show (2 × the 68 % radius of a 1 s increment, 2 S(1 s) per axis, as for
        // the hold's deadband): that is a start, not a spike (a precise receiver starting at a steady speed).
        if !isStationary, suspendedStop != nil, let m = measuredENU, let p = lastFixENU {
            let fe = m.east - p.east, fn = m.north - p.north
            if (fe * fe + fn * fn).squareRoot() > holdDeadband(variance: 2 * white) { suspendedStop = nil }
        }
        if !isStationary, let sus = suspendedStop {
            let de = e - sus.held.east, dn = n - sus.held.north
            radius += (de * de + dn * dn).squareRoot()
            e = sus.held.east; n = sus.held.north
        }
        // After dead reckoning, converge on the corrected estimate without a jump larger than the accuracy the output
        // then reports: a step s towards it leaves (jump − s) to go, so the radius is (jump − s) + radius, and the
        // largest such step is (jump + radius) / 2 (the remaining distance halves each fix); at least the new fix's
        // radius. The jump is measured from where the last output would be now, moved on with the vehicle (the
        // filter's velocity over the time since), not from where it was. (From where it was, a vehicle covering more
        // than a fix's radius per fix left the output behind for good: 13 m/s against a 10 m radius after a tunnel drew
        // 200 m errors that grew. With steps of the fix's radius alone, 2.7 m on the simulated outage receiver, the
        // first 30 s after its returns averaged 34–55 m off against the raw fixes' 2 m.)
        if afterOutage, settings.limitConvergenceJump, let m = measured, let o = outputENU {
            let since = outputTime.flatMap { ot in time.map { Swift.max(0, ot.seconds(to: $0)) } } ?? 0
            let pe = o.east + kf.x[2] * since, pn = o.north + kf.x[3] * since
            let de = e - pe, dn = n - pn
            let jump = (de * de + dn * dn).squareRoot()
            let step = Swift.max(m, (jump + radius) / 2)
            if jump > step {
                e = pe + de * step / jump; n = pn + dn * step / jump
                radius = Swift.max(radius, jump - step + radius)
            } else {
                afterOutage = false
            }
        } else if measured != nil {
            afterOutage = false
        }
        outputENU = (e, n)
        outputTime = time
        if let m = measuredENU { lastFixENU = m }
        let g = fr.geodetic(east: e, north: n)
        lastOutputStorage.latitudeDegrees = g.latitudeDegrees
        lastOutputStorage.longitudeDegrees = g.longitudeDegrees
        lastOutputStorage.horizontalAccuracyMeters = radius
        lastOutputStorage.latitudeErrorMeters = pnn.squareRoot()
        lastOutputStorage.longitudeErrorMeters = pee.squareRoot()
        // Altitude is the receiver's own, and so is its vertical accuracy, except where its fixes show its horizontal
        // claim too small: the vertical claim is then raised by the same factor (the learned total over the claim),
        // as the receiver's error budget is one for both (docs/smoothing.md, "Vertical accuracy"). Not again on a
        // dead-reckoned fix, whose template is the last output (already raised).
        if !fix.isSmoothed, let v = fix.verticalAccuracyMeters, claimedVariance > 0, learned.total > claimedVariance {
            lastOutputStorage.verticalAccuracyMeters = v * (learned.total / claimedVariance).squareRoot()
        }
        lastOutputStorage.isStationary = isStationary
        lastOutputStorage.isSmoothed = true
        return lastOutputStorage
    }
}
