#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import LocationCore

/// A simulated GNSS receiver on a stop-and-go drive, for judging the smoother on receivers we do not have: white
/// noise plus first-order Gauss–Markov biases on chosen time scales (a constant offset: τ = ∞), a reported accuracy
/// that is honest or off by a factor, outages, and RTK-like centimetre noise. Seeded (SplitMix64): the same fixes on
/// every run. Used by EstimationTests and by SmoothingEval.
public struct SimulatedReceiver: Sendable {
    public struct Bias: Sendable {
        /// Per-axis 1-σ (m) and correlation time (s; `.infinity`: a constant offset drawn once).
        public var sigmaMeters: Double
        public var tauSeconds: Double
        public init(sigmaMeters: Double, tauSeconds: Double) { self.sigmaMeters = sigmaMeters; self.tauSeconds = tauSeconds }
    }

    public var name: String
    /// Per-axis white noise 1-σ, m.
    public var whiteSigmaMeters: Double
    public var biases: [Bias]
    /// Reported 68 % radius ÷ the true one (1 honest, 3 pessimistic, 0.5 optimistic).
    public var claimFactor: Double
    public var quality: FixQuality = .gps
    /// Doppler velocity noise per axis, m/s.
    public var velocitySigma: Double = 0.1
    /// Fix rate, Hz.
    public var rateHz: Double = 1
    /// Seconds (from the start) without fixes.
    public var outages: [Range<Double>] = []
    public var durationSeconds: Double = 1800
    /// The vehicle creeps forward once in each stop, as in a queue: 0.5–1.5 m at 0.1–0.3 m/s, starting 20–70 % into
    /// the stop (below the smoother's exit speed; the F9K's real stops hold such creeps). Off in the catalogue.
    public var creepsInStops = false
    /// The share of fixes that never arrive, each on its own (a phone or a busy serial line dropping epochs); 0 in the
    /// catalogue. Its draws come from their own stream, so the other fixes are those without dropouts.
    public var dropoutProbability = 0.0
    /// How much the receiver's error and its claim swing together with its satellite geometry (a DOP): both are
    /// scaled by 1 + this × sin(2π t / 600 s); 0 in the catalogue.
    public var geometrySwing = 0.0
    /// The vertical error's 1-σ over the horizontal per-axis one, for the white part and each bias alike (same time
    /// scales; GNSS geometry typically makes VDOP 1.5–2 × HDOP). The vertical errors come from their own random
    /// stream, so the horizontal fixes are those of a receiver without altitude. The truth climbs and falls over hills
    /// (±15 m over 2 km of road); the reported vertical accuracy is the vertical 1-σ times `claimFactor`.
    public var verticalSigmaFactor = 1.5

    /// The per-axis 1-σ of the whole horizontal error (white and biases).
    var totalSigmaPerAxis: Double {
        (whiteSigmaMeters * whiteSigmaMeters + biases.reduce(0) { $0 + $1.sigmaMeters * $1.sigmaMeters }).squareRoot()
    }

    public init(name: String, whiteSigmaMeters: Double, biases: [Bias], claimFactor: Double) {
        self.name = name; self.whiteSigmaMeters = whiteSigmaMeters; self.biases = biases; self.claimFactor = claimFactor
    }

    public static let frame = LocalTangentFrame(latitudeDegrees: 37.4, longitudeDegrees: -122.1)
    public static let start = Timestamp(year: 2024, month: 5, day: 1, hour: 12)!

    /// The receivers the smoother is judged on (docs/smoothing.md).
    public static let catalogue: [SimulatedReceiver] = {
        var list: [SimulatedReceiver] = []
        func add(_ name: String, _ white: Double, _ biases: [(Double, Double)], _ claim: Double,
                 _ configure: (inout SimulatedReceiver) -> Void = { _ in }) {
            var r = SimulatedReceiver(name: name, whiteSigmaMeters: white,
                                      biases: biases.map { Bias(sigmaMeters: $0.0, tauSeconds: $0.1) }, claimFactor: claim)
            configure(&r)
            list.append(r)
        }
        add("white 2 m, honest", 2, [], 1)
        add("white 1 m + GM 10 s 1 m, honest", 1, [(1, 10)], 1)
        add("white 1 m + GM 60 s 1.5 m, honest", 1, [(1.5, 60)], 1)
        add("white 0.5 m + GM 300 s 2 m, honest", 0.5, [(2, 300)], 1)
        add("white 0.5 m + offset 1.5 m, honest", 0.5, [(1.5, .infinity)], 1)
        add("phone: 0.5 m + 10/60/300 s + offset, honest", 0.5, [(0.5, 10), (1, 60), (1.5, 300), (1, .infinity)], 1)
        add("white 1 m + GM 60 s 1 m, 3× pessimistic", 1, [(1, 60)], 3)
        add("white 0.5 m + GM 300 s 2 m, 3× pessimistic", 0.5, [(2, 300)], 3)
        add("white 1 m + GM 60 s 1.5 m, 2× optimistic", 1, [(1.5, 60)], 0.5)
        add("white 0.5 m + GM 300 s 2 m, 2× optimistic", 0.5, [(2, 300)], 0.5)
        add("GM 60 s 1.5 m with outages, honest", 0.7, [(1.5, 60)], 1) { $0.outages = [300..<330, 900..<920, 1400..<1460] }
        add("RTK fixed: 1 cm + GM 60 s 1 cm", 0.01, [(0.01, 60)], 1) { $0.quality = .rtkFixed; $0.velocitySigma = 0.02 }
        return list
    }()

    /// The receiver's true S(1 s) for one step: half the mean square of the increments of consecutive fixes' errors
    /// against the truth, per axis (m²), counting the increments whose later truth epoch passes `include`. The fixes
    /// and truth of one `run` without outages, epoch for epoch.
    public static func trueIncrementVariance(fixes: [Location], truth: [Location],
                                             include: (Location) -> Bool = { _ in true }) -> Double {
        var sum = 0.0, count = 0.0
        var last: (Double, Double)?
        for (r, t) in zip(fixes, truth) {
            let a = frame.enu(latitudeDegrees: r.latitudeDegrees!, longitudeDegrees: r.longitudeDegrees!)
            let b = frame.enu(latitudeDegrees: t.latitudeDegrees!, longitudeDegrees: t.longitudeDegrees!)
            let e = (a.east - b.east, a.north - b.north)
            if let l = last, include(t) { sum += ((e.0 - l.0) * (e.0 - l.0) + (e.1 - l.1) * (e.1 - l.1)) / 4; count += 1 }
            last = e
        }
        return sum / count
    }

    /// The truth and the receiver's fixes at `rateHz` (none inside outages). Truth carries speed and course.
    public func run(seed: UInt64) -> (fixes: [Location], truth: [Location]) {
        var rng = SplitMix64(seed: seed)
        func gaussian() -> Double {
            let u1 = Swift.max(rng.unit(), 1e-300), u2 = rng.unit()
            return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
        }
        // The drive: legs at 8–16 m/s with gentle turns, stops of 20–150 s between them.
        let dt = 1 / rateHz
        var e = 0.0, n = 0.0, course = 90.0, speed = 0.0, target = 12.0
        var stopLeft = 60.0, legLeft = 0.0, turnRate = 0.0
        var creepAt = -1.0, creepLeft = 0.0, creepSpeed = 0.0
        var bias = biases.map { _ in (0.0, 0.0) }
        for i in biases.indices {
            bias[i] = (biases[i].sigmaMeters * gaussian(), biases[i].sigmaMeters * gaussian())
        }
        // The vertical errors: their own stream (the horizontal draws stay those without altitude).
        var vrng = SplitMix64(seed: seed ^ 0x5645_5254_4943_414C)
        let vf = verticalSigmaFactor
        var verticalBias = biases.map { vf * $0.sigmaMeters * vrng.gaussian() }
        let verticalAccuracy = vf * totalSigmaPerAxis * claimFactor
        var distance = 0.0
        let radius = (-2 * log(0.32)).squareRoot() * totalSigmaPerAxis * claimFactor
        var fixes: [Location] = [], truth: [Location] = []
        var drops = SplitMix64(seed: seed ^ 0x4452_4F50_4F55_5453)
        var t = 0.0
        while t < durationSeconds {
            // Motion: stopped → accelerating/driving (1.5 m/s²) → braking (2 m/s²) → stopped.
            if stopLeft > 0 {
                stopLeft -= dt
                speed = 0
                if creepLeft > 0, stopLeft <= creepAt {
                    speed = Swift.min(creepSpeed, creepLeft / dt)
                    creepLeft -= speed * dt
                }
                if stopLeft <= 0 { legLeft = 60 + 240 * rng.unit(); target = 8 + 8 * rng.unit(); speed = 0 }
            } else if legLeft > 0 {
                legLeft -= dt
                if rng.unit() < 0.02 * dt { turnRate = (rng.unit() - 0.5) * 12 }
                if rng.unit() < 0.05 * dt { turnRate = 0 }
                course = Angle.normalizedDegrees(course + turnRate * dt)
                speed += Swift.max(-2 * dt, Swift.min(1.5 * dt, target - speed))
            } else {
                speed = Swift.max(0, speed - 2 * dt)
                if speed == 0 {
                    stopLeft = 20 + 130 * rng.unit(); turnRate = 0
                    if creepsInStops {
                        creepAt = stopLeft * (0.3 + 0.5 * rng.unit())
                        creepLeft = 0.5 + rng.unit(); creepSpeed = 0.1 + 0.2 * rng.unit()
                    }
                }
            }
            e += speed * sin(course * .pi / 180) * dt
            n += speed * cos(course * .pi / 180) * dt
            distance += speed * dt
            // Errors.
            for i in biases.indices where biases[i].tauSeconds.isFinite {
                let phi = exp(-dt / biases[i].tauSeconds), k = biases[i].sigmaMeters * (1 - phi * phi).squareRoot()
                bias[i] = (phi * bias[i].0 + k * gaussian(), phi * bias[i].1 + k * gaussian())
                verticalBias[i] = phi * verticalBias[i] + vf * k * vrng.gaussian()
            }
            let altitude = 30 + 15 * sin(2 * .pi * distance / 2000)
            // Each seed on its own day, so runs can be pooled in one evaluation.
            let time = Self.start.adding(nanoseconds: Int64(((t + Double(seed % 1000) * 86_400) * 1e9).rounded()))
            let g = Self.frame.geodetic(east: e, north: n)
            var tr = Location()
            tr.time = time; tr.latitudeDegrees = g.latitudeDegrees; tr.longitudeDegrees = g.longitudeDegrees
            tr.mode = .threeD; tr.speedMetersPerSecond = speed; tr.courseDegrees = course
            tr.altitudeMSLMeters = altitude
            let verticalError = verticalBias.reduce(0, +) + vf * whiteSigmaMeters * vrng.gaussian()
            truth.append(tr)
            if !outages.contains(where: { $0.contains(t) }) {
                let be = bias.reduce(0) { $0 + $1.0 }, bn = bias.reduce(0) { $0 + $1.1 }
                let swing = 1 + geometrySwing * sin(2 * .pi * t / 600)
                let m = Self.frame.geodetic(east: e + swing * (be + whiteSigmaMeters * gaussian()),
                                            north: n + swing * (bn + whiteSigmaMeters * gaussian()))
                var f = Location()
                f.time = time; f.latitudeDegrees = m.latitudeDegrees; f.longitudeDegrees = m.longitudeDegrees
                f.mode = .threeD; f.quality = quality
                f.horizontalAccuracyMeters = radius * swing
                f.altitudeMSLMeters = altitude + verticalError
                f.verticalAccuracyMeters = verticalAccuracy
                let ve = speed * sin(course * .pi / 180) + velocitySigma * gaussian()
                let vn = speed * cos(course * .pi / 180) + velocitySigma * gaussian()
                f.speedMetersPerSecond = (ve * ve + vn * vn).squareRoot()
                f.courseDegrees = Angle.normalizedDegrees(atan2(ve, vn) * 180 / .pi)
                if dropoutProbability == 0 || drops.unit() >= dropoutProbability { fixes.append(f) }
            }
            t += dt
        }
        return (fixes, truth)
    }
}
