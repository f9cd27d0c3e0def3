#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import LocationCore

extension PositionSmoother {
    func measurementSigmas(_ fix: Location) -> (Double, Double) {
        let s = settings
        var e: Double, n: Double
        if let a = fix.latitudeErrorMeters, let b = fix.longitudeErrorMeters {
            n = a; e = b
        } else if let h = fix.horizontalAccuracyMeters, h > 0 {
            e = HorizontalError.sigma(fromRadius68: h); n = e
        } else {
            e = s.defaultMeasurementSigmaMeters; n = e
        }
        e = max(s.minimumMeasurementSigmaMeters, e * s.measurementNoiseScale)
        n = max(s.minimumMeasurementSigmaMeters, n * s.measurementNoiseScale)
        return (e, n)
    }

    mutating func initialise(fix: Location, lat: Double, lon: Double, sigE: Double, sigN: Double, t: Timestamp) {
        frame = LocalTangentFrame(latitudeDegrees: lat, longitudeDegrees: lon)
        let f = settings.correlatedErrorFraction
        kf = KalmanFilter(n: 6)
        var ve = 0.0, vn = 0.0, vv = 100.0
        if let sp = fix.speedMetersPerSecond, let c = fix.courseDegrees, sp >= settings.minimumSpeedForCourseMetersPerSecond {
            ve = sp * sin(c * .pi / 180); vn = sp * cos(c * .pi / 180); vv = 4
        } else if let sp = fix.speedMetersPerSecond, sp < settings.stationaryEnterSpeedMetersPerSecond {
            vv = 1
        }
        kf.x = [0, 0, ve, vn, 0, 0]
        let varE = sigE * sigE, varN = sigN * sigN
        kf[0, 0] = varE; kf[1, 1] = varN
        kf[2, 2] = vv; kf[3, 3] = vv
        kf[4, 4] = f * varE; kf[5, 5] = f * varN
        kf[0, 4] = -f * varE; kf[4, 0] = -f * varE
        kf[1, 5] = -f * varN; kf[5, 1] = -f * varN
        lastMeasurementVariance = (varE + varN) / 2
        time = t
        consecutiveRejections = 0
        isStationary = false
        held = nil
        lowSpeedSince = nil
    }

    /// Constant-velocity propagation (with the accelerometer as control input when fresh); zero process noise on
    /// velocity while stationary. The correlated error decays towards zero with its time constant.
    mutating func propagate(dt: Double, at t: Timestamp) {
        guard dt > 0 else { return }
        let s = settings
        var u: [Double]? = nil
        var qd = s.accelerationNoiseDensity
        if let a = accelerationENU, let at = accelerationTime,
           abs(Double(t.nanosecondsSince1970 - at.nanosecondsSince1970) / 1e9) <= s.accelerometerMaximumAgeSeconds + dt,
           !isStationary {
            u = [0.5 * a.east * dt * dt, 0.5 * a.north * dt * dt, a.east * dt, a.north * dt, 0, 0]
            qd = s.aidedAccelerationNoiseDensity
        }
        if isStationary { qd = 0 }
        let phi = exp(-dt / s.correlatedErrorTimeConstantSeconds)
        var f = [Double](repeating: 0, count: 36)
        for i in 0..<6 { f[i * 6 + i] = 1 }
        f[0 * 6 + 2] = dt; f[1 * 6 + 3] = dt
        f[4 * 6 + 4] = phi; f[5 * 6 + 5] = phi
        var q = [Double](repeating: 0, count: 36)
        let q11 = qd * dt * dt * dt / 3, q12 = qd * dt * dt / 2, q22 = qd * dt
        for (p, v) in [(0, 2), (1, 3)] {
            q[p * 6 + p] = q11; q[p * 6 + v] = q12; q[v * 6 + p] = q12; q[v * 6 + v] = q22
        }
        let qb = s.correlatedErrorFraction * lastMeasurementVariance * (1 - phi * phi)
        q[4 * 6 + 4] = qb; q[5 * 6 + 5] = qb
        kf.predict(f: f, q: q, u: u)
    }

    mutating func updateMotionState(fix: Location, t: Timestamp) {
        let s = settings
        let accVar = accelerometerVariance(at: t)
        let speed = fix.speedMetersPerSecond
        if isStationary {
            var leave = false
            if let sp = speed, sp >= s.stationaryExitSpeedMetersPerSecond { leave = true }
            if let v = accVar, v >= s.accelerometerVarianceExit { leave = true }
            if speed == nil && accVar == nil { leave = true }
            if leave {
                isStationary = false
                held = nil
                lowSpeedSince = nil
                // Let the velocity catch up with the start of motion.
                kf[2, 2] += 1; kf[3, 3] += 1
            }
            return
        }
        var low: Bool
        if let sp = speed { low = sp <= s.stationaryEnterSpeedMetersPerSecond } else { low = accVar != nil }
        if let v = accVar { low = low && v <= s.accelerometerVarianceEnter }
        if !low { lowSpeedSince = nil; return }
        if lowSpeedSince == nil { lowSpeedSince = t }
        if Double(t.nanosecondsSince1970 - lowSpeedSince!.nanosecondsSince1970) / 1e9 >= s.stationaryEnterSeconds {
            isStationary = true
            zeroVelocityUpdate()
        }
    }

    mutating func zeroVelocityUpdate() {
        let h: [Double] = [0, 0, 1, 0, 0, 0,
                           0, 0, 0, 1, 0, 0]
        kf.update(z: [0, 0], h: h, r: [1e-4, 0, 0, 1e-4])
    }

    mutating func velocityUpdate(fix: Location) {
        let s = settings
        guard s.useVelocity, let sp = fix.speedMetersPerSecond, let c = fix.courseDegrees,
              sp >= s.minimumSpeedForCourseMetersPerSecond else { return }
        let rad = c * .pi / 180
        let ss = fix.speedAccuracyMetersPerSecond ?? s.speedSigmaMetersPerSecond
        let sc = (fix.courseAccuracyDegrees ?? s.courseSigmaDegrees) * .pi / 180 * sp
        // Along-track (sin c, cos c) and cross-track (cos c, −sin c) variances rotated into east/north.
        let a = (sin(rad), cos(rad)), x = (cos(rad), -sin(rad))
        let va = ss * ss, vx = sc * sc
        let ree = va * a.0 * a.0 + vx * x.0 * x.0
        let rnn = va * a.1 * a.1 + vx * x.1 * x.1
        let ren = va * a.0 * a.1 + vx * x.0 * x.1
        let h: [Double] = [0, 0, 1, 0, 0, 0,
                           0, 0, 0, 1, 0, 0]
        let z = [sp * a.0, sp * a.1], r = [ree, ren, ren, rnn]
        if kf.innovation(z: z, h: h, r: r).nis <= s.velocityGateChiSquare {
            kf.update(z: z, h: h, r: r)
        }
    }

    mutating func reanchorIfNeeded() {
        guard let fr = frame else { return }
        let e = kf.x[0], n = kf.x[1]
        guard (e * e + n * n).squareRoot() > settings.reanchorDistanceMeters else { return }
        let g = fr.geodetic(east: e, north: n)
        frame = LocalTangentFrame(latitudeDegrees: g.latitudeDegrees, longitudeDegrees: g.longitudeDegrees)
        kf.x[0] = 0; kf.x[1] = 0
        if let h = held {
            let hg = fr.geodetic(east: h.east, north: h.north)
            let ne = frame!.enu(latitudeDegrees: hg.latitudeDegrees, longitudeDegrees: hg.longitudeDegrees)
            held = (ne.east, ne.north, h.radius)
        }
    }

    /// The smoothed location: the fix's other fields kept, position/velocity/accuracies from the filter.
    mutating func output(from fix: Location) -> Location {
        guard let fr = frame else { return fix }
        var e = kf.x[0], n = kf.x[1]
        var radius = HorizontalError.radius68(pee: kf[0, 0], pnn: kf[1, 1], pen: kf[0, 1])
        var out = fix
        if isStationary {
            let deadband = max(settings.holdMinimumDeadbandMeters, settings.holdDeadbandRadiusFactor * (held?.radius ?? 0))
            if let h = held, ((e - h.east) * (e - h.east) + (n - h.north) * (n - h.north)).squareRoot() <= deadband {
                e = h.east; n = h.north; radius = max(radius, h.radius)
            } else {
                held = (e, n, radius)
            }
            out.speedMetersPerSecond = 0
        } else {
            let ve = kf.x[2], vn = kf.x[3]
            let sp = (ve * ve + vn * vn).squareRoot()
            out.speedMetersPerSecond = sp
            out.speedAccuracyMetersPerSecond = ((kf[2, 2] + kf[3, 3]) / 2).squareRoot()
            if sp >= settings.minimumSpeedForCourseMetersPerSecond {
                out.courseDegrees = Angle.normalizedDegrees(atan2(ve, vn) * 180 / .pi)
            } else if fix.courseDegrees == nil {
                out.courseDegrees = nil
            }
        }
        let g = fr.geodetic(east: e, north: n)
        out.latitudeDegrees = g.latitudeDegrees
        out.longitudeDegrees = g.longitudeDegrees
        out.horizontalAccuracyMeters = radius
        out.latitudeErrorMeters = kf[1, 1].squareRoot()
        out.longitudeErrorMeters = kf[0, 0].squareRoot()
        lastOutput = out
        return out
    }
}
