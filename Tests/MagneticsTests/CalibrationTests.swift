import Foundation
import LocationCore
import Testing
import TestSupport
@testable import Magnetics

/// Calibration fit ladder, collector, file format and background refiner: synthetic ellipsoids with known hard and
/// soft iron (seeded noise), the shipped simulated drive, and the real recordings in ../shared/data/mag.
@Suite("Magnetometer calibration", .ownThreads)
struct CalibrationTests {
    static let hardIron = Vector3(x: 25, y: -12, z: 40)
    /// Sensor distortion: raw = distortion · true + hard iron. Symmetric, ±10 % scale, 3–5 % cross-coupling.
    static let distortion = Matrix3(symmetric: 1.10, 0.92, 1.02, xy: 0.05, xz: -0.03, yz: 0.04)
    static let field = 50.0

    // MARK: - Fit ladder on synthetic data

    @Test func ellipsoidRecoversHardAndSoftIron() throws {
        var rng = SplitMix64(seed: 42)
        let samples = Synthetic.ellipsoid(count: 1000, field: Self.field, distortion: Self.distortion,
                                          hardIron: Self.hardIron, noise: 0.3, rng: &rng)
        let r = try CalibrationFitter().fit(samples)
        #expect(r.method == .ellipsoid)
        #expect((r.calibration.hardIronMicrotesla - Self.hardIron).norm < 1.0)
        #expect(r.metrics.residualStdMicrotesla < 0.5)
        #expect(r.metrics.coveragePercent > 95)
        // W·D must be a multiple of the identity (W = k·D⁻¹): the shape is recovered, not just the offset.
        let wd = r.calibration.softIron * Self.distortion
        let k = pow(Self.distortion.determinant, 1.0 / 3.0)
        #expect(CalibrationMath.maximumDifference(wd, CalibrationMath.scaled(.identity, k)) < 0.01)
        #expect(abs(r.calibration.softIron.determinant - 1) < 1e-9)
        // det(W) = 1 keeps the volume: the fitted field is F times the distortion's geometric-mean gain.
        #expect(abs(r.metrics.fieldMicrotesla - Self.field * k) < 0.2)
        // The corrected norms really are constant (independent of the fitter's own metric).
        let norms = samples.map { r.calibration.apply($0).norm }
        #expect(Stats.std(norms) < 0.5)
    }

    @Test func noiseFreeEllipsoidIsExact() throws {
        var rng = SplitMix64(seed: 7)
        let samples = Synthetic.ellipsoid(count: 300, field: Self.field, distortion: Self.distortion,
                                          hardIron: Self.hardIron, noise: 0, rng: &rng)
        let r = try CalibrationFitter().fit(samples)
        #expect(r.method == .ellipsoid)
        #expect((r.calibration.hardIronMicrotesla - Self.hardIron).norm < 1e-6)
        #expect(r.metrics.residualStdMicrotesla < 1e-6)
        #expect(r.metrics.inlierCount == 300)
    }

    @Test func sixtyDegreeCapFallsBackToSphere() throws {
        var rng = SplitMix64(seed: 3)
        let axis = Vector3(x: 0.3, y: -0.5, z: 0.8).normalized
        let samples = Synthetic.cap(count: 800, axis: axis, halfAngleDegrees: 60, field: Self.field,
                                    distortion: .identity, hardIron: Self.hardIron, noise: 0.3, rng: &rng)
        let r = try CalibrationFitter().fit(samples)
        #expect(r.method == .sphere)
        #expect(r.calibration.softIron == .identity)
        // A 60° cap is a quarter of the sphere: ≈ 25 % of the bins.
        #expect(r.metrics.coveragePercent > 18 && r.metrics.coveragePercent < 35)
        #expect((r.calibration.hardIronMicrotesla - Self.hardIron).norm < 1.0)
        #expect(abs(r.metrics.fieldMicrotesla - Self.field) < 1.0)
        #expect(r.notes.contains { $0.contains("sphere fit") })
    }

    @Test func capWithSoftIronStaysNearTheTruth() throws {
        // The sphere cannot model soft iron; over a cap the unmodelled ±10 % distortion biases the centre.
        // Within 2 µT is what a sphere fit on a quarter of the sphere can promise.
        var rng = SplitMix64(seed: 4)
        let samples = Synthetic.cap(count: 800, axis: Vector3(x: 0, y: 0, z: 1), halfAngleDegrees: 60,
                                    field: Self.field, distortion: Matrix3(symmetric: 1.02, 0.99, 1.0, xy: 0.01, xz: 0, yz: 0),
                                    hardIron: Self.hardIron, noise: 0.3, rng: &rng)
        let r = try CalibrationFitter().fit(samples)
        #expect(r.method == .sphere)
        #expect((r.calibration.hardIronMicrotesla - Self.hardIron).norm < 2.0)
    }

    @Test func levelTurningWithAWMMReferenceRecoversTheNormalOffset() throws {
        var rng = SplitMix64(seed: 12)
        // Mountain View, mid-2025: WMM X 22.49, Y 5.12, Z 41.31 µT.
        let reference = WorldMagneticModel.wmm2025.field(latitudeDegrees: 37.3861, longitudeDegrees: -122.0839,
                                                         heightAboveEllipsoidKilometers: 0, decimalYear: 2025.41)
        let earth = Vector3(x: reference.northNanotesla / 1000, y: reference.eastNanotesla / 1000,
                            z: reference.downNanotesla / 1000)
        let samples = Synthetic.horizontalCircle(count: 600, earthNED: earth, hardIron: Self.hardIron, noise: 0.3, rng: &rng)
        let r = try CalibrationFitter().fit(samples, reference: reference)
        #expect(r.method == .circle)
        #expect(r.unobservableAxis == nil)
        let h = r.calibration.hardIronMicrotesla
        #expect((h - Self.hardIron).norm < 1, "recovered \(h), true \(Self.hardIron)")
        #expect(r.notes.contains { $0.contains("taken from the WMM field strength") })
    }

    @Test func levelTurningGivesCircleWithUnobservableZ() throws {
        var rng = SplitMix64(seed: 11)
        let earth = Vector3(x: 22.6, y: 5, z: 41.8)  // north, east, down
        let samples = Synthetic.horizontalCircle(count: 600, earthNED: earth, hardIron: Self.hardIron, noise: 0.3, rng: &rng)
        let r = try CalibrationFitter().fit(samples)
        #expect(r.method == .circle)
        let h = r.calibration.hardIronMicrotesla
        #expect(abs(h.x - Self.hardIron.x) < 1 && abs(h.y - Self.hardIron.y) < 1)
        let axis = try #require(r.unobservableAxis)
        #expect(abs(axis.z) > 0.999)
        // Nothing is claimed along the unobservable axis (not the true 40 µT, not a guess).
        #expect(abs(h.dot(axis)) < 1e-9)
        #expect(abs(h.z) < 0.1)
        #expect(abs(r.metrics.fieldMicrotesla - (22.6 * 22.6 + 25).squareRoot()) < 0.5)
        #expect(r.notes.contains { $0.contains("unobservable") })
        // A great circle crosses about a fifth of the 100 bins.
        #expect(r.metrics.coveragePercent < 30)
        #expect(r.metrics.thicknessRatio < 0.05)
    }

    @Test func fivePercentSpikesAreRejected() throws {
        var rng = SplitMix64(seed: 5)
        var samples = Synthetic.ellipsoid(count: 1000, field: Self.field, distortion: Self.distortion,
                                          hardIron: Self.hardIron, noise: 0.3, rng: &rng)
        var spiked = 0
        for i in samples.indices where i % 20 == 7 {
            let dir = Synthetic.randomUnit(&rng)
            samples[i] = samples[i] + dir * (20 + 40 * rng.unit())
            spiked += 1
        }
        let r = try CalibrationFitter().fit(samples)
        #expect(r.method == .ellipsoid)
        #expect((r.calibration.hardIronMicrotesla - Self.hardIron).norm < 1.0)
        #expect(r.metrics.residualStdMicrotesla < 0.5)
        // A spike that happens to land near the sphere is harmless and may stay; the rest must go.
        #expect(r.metrics.inlierCount < 1000 - spiked + 10)
        #expect(r.metrics.inlierCount > 930)
        // Without rejection the same data would be far off: the test would catch a disabled outlier stage.
        var noRejection = CalibrationFitter.Settings()
        noRejection.outlierSigmas = 1e9
        let naive = try CalibrationFitter(settings: noRejection).fit(samples)
        #expect(naive.metrics.residualStdMicrotesla > 2)
    }

    @Test func fitErrorsSayWhy() {
        #expect(throws: CalibrationFitError.tooFewSamples(count: 3, minimum: 20)) {
            try CalibrationFitter().fit([Vector3(x: 1, y: 2, z: 3), Vector3(x: 1, y: 2, z: 4), Vector3(x: 0, y: 2, z: 3)])
        }
        var rng = SplitMix64(seed: 9)
        let still = (0..<200).map { _ in Vector3(x: 20, y: -5, z: 40) + Synthetic.gaussian3(&rng, sigma: 0.3) }
        do {
            _ = try CalibrationFitter().fit(still)
            Issue.record("a device at rest must not calibrate")
        } catch {
            guard case .insufficientMotion = error else { Issue.record("unexpected \(error)"); return }
            #expect(error.description.contains("fewer than two directions"))
            #expect(error.description.hasSuffix("turn the device through more orientations"))
        }
        // A quarter turn in the plane: too little of the circle to place its centre.
        let arc = (0..<100).map { i -> Vector3 in
            let a = Double(i) / 100 * .pi / 4
            return Vector3(x: 20 * cos(a), y: 20 * sin(a), z: 40)
        }
        #expect(throws: CalibrationFitError.self) { try CalibrationFitter().fit(arc) }
    }

    @Test func fitOf1000SamplesIsFast() throws {
        var rng = SplitMix64(seed: 1)
        let ellipsoid = Synthetic.ellipsoid(count: 1000, field: Self.field, distortion: Self.distortion,
                                            hardIron: Self.hardIron, noise: 0.3, rng: &rng)
        var spiked = ellipsoid
        for i in spiked.indices where i % 20 == 7 { spiked[i] = spiked[i] + Synthetic.randomUnit(&rng) * 40 }
        let cap = Synthetic.cap(count: 1000, axis: Vector3(x: 0, y: 0, z: 1), halfAngleDegrees: 60, field: Self.field,
                                distortion: .identity, hardIron: Self.hardIron, noise: 0.3, rng: &rng)
        let circle = Synthetic.horizontalCircle(count: 1000, earthNED: Vector3(x: 22.6, y: 5, z: 41.8),
                                                hardIron: Self.hardIron, noise: 0.3, rng: &rng)
        let fitter = CalibrationFitter()
        /// This thread's CPU time, in ms: time the thread spends preempted by the other tests running beside it (they
        /// share two cores here) is not counted, as wall-clock time would count it.
        func threadCPUMilliseconds() -> Double {
            var ts = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
            return Double(ts.tv_sec) * 1e3 + Double(ts.tv_nsec) / 1e6
        }
        func milliseconds(_ samples: [Vector3]) throws -> Double {
            let start = threadCPUMilliseconds()
            _ = try fitter.fit(samples)
            return threadCPUMilliseconds() - start
        }
        /// The fastest of `runs` fits, in ms: a pause of a loaded machine lengthens some runs, never the fastest.
        func bestMilliseconds(_ samples: [Vector3], runs: Int = 10) throws -> Double {
            var best = Double.infinity
            for _ in 0..<runs { best = min(best, try milliseconds(samples)) }
            return best
        }
        var worst = 0.0
        for (name, samples) in [("ellipsoid", ellipsoid), ("ellipsoid, 5 % spikes", spiked), ("sphere (60° cap)", cap),
                                ("circle", circle)] {
            let ms = try bestMilliseconds(samples)
            print("calibration: 1,000-sample fit, \(name): \(ms) ms CPU, best of 10 (this build's optimisation level)")
            worst = max(worst, ms)
        }
        // Speed itself is measured by `make bench` (LodestarBench calibration, budget 5 ms in release), not here: a timed
        // test fails on a loaded machine. What this test bounds is how the work grows, which load does not change: the
        // fit is linear in the samples (a fixed number of passes, `Settings.robustIterations` at most), so 4,000 samples
        // take about 4 times as long as 1,000 (measured 4.3×); an accidentally quadratic step would take 16 times.
        // Bound: 8×, twice the linear ratio. The two sizes are timed alternately, in the thread's CPU time, so that both
        // see the same machine: wall-clock best-of-10 taken one size after the other once measured 8.2× in CI, with the
        // suite's other tests on both cores (a longer fit is more often stretched by cache and memory contention).
        let ellipsoid4000 = Synthetic.ellipsoid(count: 4000, field: Self.field, distortion: Self.distortion,
                                                hardIron: Self.hardIron, noise: 0.3, rng: &rng)
        var best1000 = Double.infinity, best4000 = Double.infinity
        for _ in 0..<10 {
            best1000 = min(best1000, try milliseconds(ellipsoid))
            best4000 = min(best4000, try milliseconds(ellipsoid4000))
        }
        let ratio = best4000 / best1000
        print("calibration: 4,000 vs 1,000 samples: \(ratio)× (\(best4000) / \(best1000) ms CPU); slowest 1,000-sample fit \(worst) ms")
        #expect(ratio <= 8, "a fit of 4,000 samples took \(ratio) times as long as one of 1,000")
        // And a runaway loop: the slowest set measured 48–129 ms (best of 10) in a debug build on a loaded 2-core machine;
        // bound 1 s, about 8 times that.
        #expect(worst <= 1000, "slowest 1,000-sample fit \(worst) ms")
    }

    // MARK: - Primitives

    @Test func jacobiEigenDecomposition() {
        let m = Matrix3(symmetric: 4, 3, 2, xy: 1, xz: 0.5, yz: -0.7)
        let e = SymmetricEigen3(m)
        for (value, vector) in [(e.values.0, e.vectors.0), (e.values.1, e.vectors.1), (e.values.2, e.vectors.2)] {
            let mv = m * vector
            #expect((mv - vector * value).norm < 1e-12)
            #expect(abs(vector.norm - 1) < 1e-12)
        }
        #expect(e.values.0 <= e.values.1 && e.values.1 <= e.values.2)
        let root = e.map { $0.squareRoot() }
        #expect(CalibrationMath.maximumDifference(root * root, m) < 1e-12)
    }

    @Test func choleskySolvesAndRejectsSingular() throws {
        var eq = NormalEquations(dimension: 3)
        // Rows of an exactly determined system x = (1, −2, 3).
        for row: [Double] in [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]] {
            var r = InlineArray<10, Double>(repeating: 0)
            for i in 0..<3 { r[i] = row[i] }
            eq.add(r, target: row[0] * 1 + row[1] * -2 + row[2] * 3)
        }
        let (x, _) = try #require(eq.solve())
        #expect(abs(x[0] - 1) < 1e-12 && abs(x[1] + 2) < 1e-12 && abs(x[2] - 3) < 1e-12)
        var singular = NormalEquations(dimension: 2)
        var r = InlineArray<10, Double>(repeating: 0)
        r[0] = 1; r[1] = 2
        singular.add(r, target: 1)
        singular.add(r, target: 2)
        #expect(singular.solve() == nil)
    }

    @Test func directionBinsAreNearlyEqualArea() {
        // 200,000 directions on an equal-area grid (400 equal steps in z × 500 in azimuth: each stands for the same
        // area), so a count measures its cell's area without sampling noise (random directions add ±2.2 % per cell
        // at 1σ, which made the bound depend on the seed).
        let directions = (0..<400).flatMap { i in
            let z = -1 + (2 * Double(i) + 1) / 400, r = (1 - z * z).squareRoot()
            return (0..<500).map { j in
                let phi = 2 * Double.pi * (Double(j) + 0.5) / 500
                return Vector3(x: r * cos(phi), y: r * sin(phi), z: z)
            }
        }
        let counts = DirectionBins.standard.occupancy(directions)
        // Expected 2,000 per bin; Voronoi cells of the Fibonacci lattice stay within ±10 % (measured: 1,858 to 2,109).
        #expect(counts.count == 100)
        #expect(counts.min() ?? 0 > 1800 && counts.max() ?? 0 < 2200)
        // The z-window search finds the same cell as comparing all centres, poles included.
        let bins = DirectionBins.standard
        let special = [Vector3(x: 0, y: 0, z: 1), Vector3(x: 0, y: 0, z: -1), Vector3(x: 1e-9, y: 0, z: -1),
                       Vector3(x: 1, y: 0, z: 0)]
        let mismatches = (directions + special).filter { bins.bin(of: $0) != bins.bruteForceBin(of: $0) }.count
        #expect(mismatches == 0)
        #expect(bins.bin(of: .zero) == nil)
        #expect(bins.bin(of: Vector3(x: .nan, y: 0, z: 1)) == nil)
    }

    // MARK: - Collector

    @Test func collectorKeepsBoundedMemoryAndTracksCoverage() throws {
        var rng = SplitMix64(seed: 21)
        var collector = CalibrationCollector()
        // A minute at rest first (3,000 samples in one direction), then a slow tumble.
        let still = Self.distortion * (Vector3(x: 0, y: 0, z: 1) * Self.field) + Self.hardIron
        for i in 0..<3000 { collector.add(still + Synthetic.gaussian3(&rng, sigma: 0.3), monotonicNanos: Int64(i) * 20_000_000) }
        #expect(collector.progress.coveredBins <= 2)
        #expect(!collector.isSufficient)
        let tumble = Synthetic.ellipsoid(count: 6000, field: Self.field, distortion: Self.distortion,
                                         hardIron: Self.hardIron, noise: 0.3, rng: &rng)
        var sufficientAt: Int?
        for (i, s) in tumble.enumerated() {
            collector.add(s, monotonicNanos: Int64(3000 + i) * 20_000_000)
            if sufficientAt == nil && collector.isSufficient { sufficientAt = i }
        }
        let p = collector.progress
        #expect(p.samplesSeen == 9000)
        #expect(p.samplesKept <= 100 * 20)
        #expect(collector.occupancy.isNonEmptyAndAllSatisfy { $0 <= 20 })
        #expect(p.coveragePercent > 95)
        #expect(sufficientAt != nil)
        let r = try collector.fit()
        #expect(r.method == .ellipsoid)
        #expect((r.calibration.hardIronMicrotesla - Self.hardIron).norm < 1.0)
    }

    @Test func collectorDropsOldSamples() throws {
        var settings = CalibrationCollector.Settings()
        settings.maximumSampleAgeNanos = 60_000_000_000
        var collector = CalibrationCollector(settings: settings)
        var rng = SplitMix64(seed: 22)
        for (i, s) in Synthetic.ellipsoid(count: 1000, field: Self.field, distortion: .identity, hardIron: .zero,
                                          noise: 0.3, rng: &rng).enumerated() {
            collector.add(s, monotonicNanos: Int64(i) * 10_000_000)
        }
        // Ten minutes later the device has a new offset; only new samples remain after the next fit.
        let moved = Vector3(x: 5, y: 0, z: 0)
        for (i, s) in Synthetic.ellipsoid(count: 1000, field: Self.field, distortion: .identity, hardIron: moved,
                                          noise: 0.3, rng: &rng).enumerated() {
            collector.add(s, monotonicNanos: 600_000_000_000 + Int64(i) * 10_000_000)
        }
        let r = try collector.fit()
        #expect((r.calibration.hardIronMicrotesla - moved).norm < 1.0)
    }

    // MARK: - Simulated drive (shipped capture)

    @Test func simulatedDriveRecoversHorizontalHardIron() throws {
        let path = SharedData.packageRoot.appendingPathComponent("captures/simulated-drive.lcap").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var collector = CalibrationCollector()
        var count = 0
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let f = line.split(separator: " ")
            guard f.count == 7, f[2] == "M", let x = Double(f[3]), let y = Double(f[4]), let z = Double(f[5]),
                  let scale = Double(f[6]), let t = Int64(f[0]) else { continue }
            collector.add(Vector3(x: x * scale, y: y * scale, z: z * scale), monotonicNanos: t)
            count += 1
        }
        #expect(count == 15000)
        let r = try collector.fit()
        print("calibration: simulated drive: \(r.method) hard iron \(r.calibration.hardIronMicrotesla) "
              + "radius \(r.metrics.fieldMicrotesla) residual \(r.metrics.residualStdMicrotesla) µT "
              + "coverage \(r.metrics.coveragePercent) % inliers \(r.metrics.inlierCount)/\(r.metrics.sampleCount)")
        #expect(r.method == .circle)
        let h = r.calibration.hardIronMicrotesla
        #expect(abs(h.x - 12) < 1 && abs(h.y - -8) < 1)
        #expect(abs(try #require(r.unobservableAxis).z) > 0.99)
        // The horizontal earth field of the simulation: |(22.6, 5)| = 23.15 µT.
        #expect(abs(r.metrics.fieldMicrotesla - 23.15) < 0.5)
        #expect(r.metrics.residualStdMicrotesla < 0.5)
    }

    // MARK: - Real recordings

    /// BROAD trial 02 (Laidig et al. 2021, TU Berlin; CC BY 4.0): 186 s of slow rotation through most orientations.
    /// Thresholds from the file itself: the norm of the field while the sensor rests (first 40 s) has a standard
    /// deviation of 0.76 µT (per axis 0.76–0.79 µT), so no calibration can get the residual much below that; the
    /// fit measures 0.77 µT. The bound 0.85 µT is that noise floor + 12 %: a fit that leaves any real distortion
    /// (or keeps outliers) fails it. Coverage measures 85 %.
    @Test(.enabled(if: SharedData.available, Comment(rawValue: SharedData.skipMessage)))
    func broadTrial02() throws {
        let samples = try RealData.magnetometer(SharedData.path("mag/broad_02_undisturbed_slow_rotation_B_dec4.csv"))
        let r = try RealData.fit(samples, label: "BROAD 02")
        #expect(r.method == .ellipsoid)
        #expect(r.metrics.residualStdMicrotesla < 0.85)
        #expect(r.metrics.coveragePercent >= 80)
        #expect(r.metrics.axisRatio < 1.1)
        // Earth-like strength: WMM2025 F at TU Berlin is 50.0 µT; indoors the fit sees 44.7 µT (−11 %), inside the
        // ±15 % the background refiner accepts.
        let berlin = WorldMagneticModel.wmm2025.field(latitudeDegrees: 52.512, longitudeDegrees: 13.327,
                                                      heightAboveEllipsoidKilometers: 0.08, decimalYear: 2025.0)
        let f = berlin.totalNanotesla / 1000
        #expect(abs(r.metrics.fieldMicrotesla - f) < 0.15 * f)
    }

    /// x-io Fusion's sample (MIT): 135 s of handheld motion, not a calibration tumble, with a magnetic disturbance
    /// at 99–116 s. Its directions cover 18 % of the sphere, so the ladder must stop at the sphere and warn; the
    /// residual measures 1.65 µT (raw norms: 2.05 µT std; sensor noise 0.33 µT): on such a cap the sphere cannot
    /// absorb the unmodelled distortion and the disturbance. Bound 2.0 µT; coverage 10–30 %.
    @Test(.enabled(if: SharedData.available, Comment(rawValue: SharedData.skipMessage)))
    func fusionSample() throws {
        let samples = try RealData.magnetometer(SharedData.path("mag/fusion_sensor_data.csv"))
        let r = try RealData.fit(samples, label: "Fusion")
        #expect(r.method == .sphere)
        #expect(r.metrics.residualStdMicrotesla < 2.0)
        #expect(r.metrics.coveragePercent >= 10 && r.metrics.coveragePercent < 30)
        #expect(r.notes.contains { $0.contains("expect hard-iron errors") })
    }

    // MARK: - Calibration file

    @Test func calibrationFileRoundTrip() throws {
        let calibration = MagnetometerCalibration(
            hardIronMicrotesla: Vector3(x: 25.123456789, y: -12.5, z: 0.1 + 0.2),
            softIron: Matrix3(symmetric: 1.05, 0.97, 0.99, xy: 0.02, xz: -1e-5, yz: 0.03), fieldMicrotesla: 48.75)
        var file = CalibrationFile(calibration: calibration, chip: "LIS3MDL", method: .ellipsoid,
                                   residualStdMicrotesla: 0.31, coveragePercent: 87, sampleCount: 1734,
                                   created: Timestamp(year: 2025, month: 6, day: 1, hour: 12),
                                   location: .init(latitudeDegrees: 52.37, longitudeDegrees: 4.89),
                                   referenceFieldMicrotesla: 49.2, unobservableAxis: nil, source: "captures/x.lcap")
        file.otherFields = [.init(key: "future_key", value: "something new")]
        let text = file.text
        #expect(text.hasPrefix("lodestar-calibration 1\n"))
        #expect(text.contains("soft_iron = 1.05, 0.02, -1e-05, 0.02, 0.97, 0.03, -1e-05, 0.03, 0.99\n"))
        let back = try CalibrationFile(parsing: text)
        #expect(back == file)
        #expect(try CalibrationFile(bytes: Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8)) == file)

        let minimal = try CalibrationFile(parsing: """
            lodestar-calibration 1
            # a comment
            hard_iron_uT = 1, 2, 3

            soft_iron = 1,0,0, 0,1,0, 0,0,1
            """)
        #expect(minimal.calibration == MagnetometerCalibration(hardIronMicrotesla: Vector3(x: 1, y: 2, z: 3)))
        #expect(minimal.method == nil && minimal.chip == nil)
    }

    @Test(arguments: [
        ("", "the calibration file is empty"),
        ("hello\n", "not a Lodestar calibration file (the first line must be 'lodestar-calibration 1', found 'hello')"),
        ("lodestar-calibration 2\n", "unsupported calibration file version '2' (this build reads version 1)"),
        ("lodestar-calibration\n", "unsupported calibration file version '' (this build reads version 1)"),
        ("lodestar-calibration 1\nhard_iron_uT = 1,2,3\n", "the calibration file has no 'soft_iron' line"),
        ("lodestar-calibration 1\nsoft_iron = 1,0,0,0,1,0,0,0,1\n", "the calibration file has no 'hard_iron_uT' line"),
        ("lodestar-calibration 1\nhard_iron_uT = 1,2\nsoft_iron = 1,0,0,0,1,0,0,0,1\n",
         "line 2: hard_iron_uT: expected 3 comma-separated numbers, found 2"),
        ("lodestar-calibration 1\nhard_iron_uT = 1,x,3\nsoft_iron = 1,0,0,0,1,0,0,0,1\n",
         "line 2: hard_iron_uT: 'x' is not a number"),
        ("lodestar-calibration 1\nhard_iron_uT = 1,nan,3\nsoft_iron = 1,0,0,0,1,0,0,0,1\n",
         "line 2: hard_iron_uT: 'nan' is not finite"),
        ("lodestar-calibration 1\nhard_iron_uT = 1,2,3\nsoft_iron = 1,0,0,0,0,0,0,0,1\n",
         "line 3: soft_iron: the matrix is singular or a reflection (determinant 0.0)"),
        ("lodestar-calibration 1\nhard_iron_uT 1,2,3\n", "line 2: expected 'key = value', found 'hard_iron_uT 1,2,3'"),
        ("lodestar-calibration 1\nhard_iron_uT = 1,2,3\nhard_iron_uT = 1,2,3\n", "line 3: 'hard_iron_uT' already given on line 2"),
        ("lodestar-calibration 1\nhard_iron_uT = 1,2,3\nsoft_iron = 1,0,0,0,1,0,0,0,1\nmethod = magic\n",
         "line 4: method: 'magic' is not one of ellipsoid, sphere, circle"),
        ("lodestar-calibration 1\nhard_iron_uT = 1,2,3\nsoft_iron = 1,0,0,0,1,0,0,0,1\ncoverage_percent = 120\n",
         "line 4: coverage_percent: 120.0 is outside 0.0…100.0"),
        ("lodestar-calibration 1\nhard_iron_uT = 1,2,3\nsoft_iron = 1,0,0,0,1,0,0,0,1\ncreated = yesterday\n",
         "line 4: created: 'yesterday' is not YYYY-MM-DDThh:mm:ssZ"),
        ("lodestar-calibration 1\nhard_iron_uT = 1,2,3\nsoft_iron = 1,0,0,0,1,0,0,0,1\nlocation = 95, 4\n",
         "line 4: location: latitude must be −90…90 and longitude −180…360"),
    ])
    func malformedCalibrationFiles(text: String, message: String) {
        do {
            _ = try CalibrationFile(parsing: text)
            Issue.record("accepted: \(text.debugDescription)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func calibrationFileRejectsBinary() {
        #expect(throws: CalibrationFileError.notText) { try CalibrationFile(bytes: [0x6C, 0xFF, 0xFE, 0x00]) }
    }

    // MARK: - Background refiner

    @Test func refinerAdoptsBetterRefusesWorseAndImplausible() throws {
        var rng = SplitMix64(seed: 31)
        let recent = Synthetic.ellipsoid(count: 1500, field: Self.field, distortion: Self.distortion,
                                         hardIron: Self.hardIron, noise: 0.3, rng: &rng)
        let good = try CalibrationFitter().fit(recent)
        // Current: a stale calibration 4 µT off.
        let stale = MagnetometerCalibration(hardIronMicrotesla: Self.hardIron + Vector3(x: 4, y: 0, z: 0),
                                            softIron: good.calibration.softIron, fieldMicrotesla: good.metrics.fieldMicrotesla)
        let k = pow(Self.distortion.determinant, 1.0 / 3.0)
        var refiner = BackgroundRefiner(current: stale, referenceFieldMicrotesla: Self.field * k)
        #expect(refiner.consider(good, recent: recent, atNanos: 0) == .adopted(good))
        #expect(refiner.current == good.calibration)

        // A worse candidate (the stale one, refitted elsewhere) later on: refused, current unchanged.
        var worse = good
        worse.calibration = stale
        guard case .rejected(.notBetter) = refiner.consider(worse, recent: recent, atNanos: 3_600_000_000_000) else {
            Issue.record("a worse calibration was not refused as notBetter"); return
        }
        #expect(refiner.current == good.calibration)

        // Too soon after an adoption.
        var fresh = BackgroundRefiner(current: stale, referenceFieldMicrotesla: Self.field * k)
        _ = fresh.consider(good, recent: recent, atNanos: 0)
        guard case .rejected(.tooSoon) = fresh.consider(good, recent: recent, atNanos: 60_000_000_000) else {
            Issue.record("rate limit not applied"); return
        }

        // A better fit whose strength is 30 % above the model's F: a magnet, not the Earth.
        var strong = BackgroundRefiner(current: stale, referenceFieldMicrotesla: Self.field * k / 1.3)
        guard case .rejected(.implausibleFieldStrength) = strong.consider(good, recent: recent, atNanos: 0) else {
            Issue.record("implausible field strength accepted"); return
        }
        #expect(strong.current == stale)

        // A jump of the hard iron by 40 µT is refused as implausible even if it fits better.
        let far = MagnetometerCalibration(hardIronMicrotesla: Self.hardIron + Vector3(x: 40, y: 0, z: 0))
        var jumpy = BackgroundRefiner(current: far)
        guard case .rejected(.implausibleHardIronChange) = jumpy.consider(good, recent: recent, atNanos: 0) else {
            Issue.record("implausible hard iron jump accepted"); return
        }

        // Planar and narrow fits never replace a calibration.
        var narrow = good
        narrow.metrics.coveragePercent = 30
        guard case .rejected(.insufficientCoverage) = BackgroundRefiner(current: stale).withConsider(narrow, recent) else {
            Issue.record("low coverage accepted"); return
        }
    }

    @Test func refinerStreamAdoptsOnceAndIsRateLimited() {
        var rng = SplitMix64(seed: 32)
        let stale = MagnetometerCalibration(hardIronMicrotesla: Self.hardIron + Vector3(x: 3, y: -3, z: 0))
        var refiner = BackgroundRefiner(current: stale, referenceFieldMicrotesla: Self.field)
        var adoptions: [Int64] = []
        var decisions = 0
        // 20 minutes at 50 Hz of slow tumbling, undistorted sensor.
        let samples = Synthetic.ellipsoid(count: 60_000, field: Self.field, distortion: .identity,
                                          hardIron: Self.hardIron, noise: 0.3, rng: &rng)
        for (i, s) in samples.enumerated() {
            let t = Int64(i) * 20_000_000
            if let d = refiner.add(s, monotonicNanos: t) {
                decisions += 1
                if case .adopted = d { adoptions.append(t) }
            }
        }
        #expect(adoptions.count == 1)
        #expect(decisions >= 2)
        #expect((refiner.current.hardIronMicrotesla - Self.hardIron).norm < 1)
    }
}

extension BackgroundRefiner {
    fileprivate func withConsider(_ r: CalibrationResult, _ recent: [Vector3]) -> Decision {
        var copy = self
        return copy.consider(r, recent: recent, atNanos: 0)
    }
}

// MARK: - Helpers

enum Synthetic {
    static func gaussian(_ rng: inout SplitMix64) -> Double { rng.gaussian() }
    static func gaussian3(_ rng: inout SplitMix64, sigma: Double) -> Vector3 {
        Vector3(x: gaussian(&rng), y: gaussian(&rng), z: gaussian(&rng)) * sigma
    }
    static func randomUnit(_ rng: inout SplitMix64) -> Vector3 {
        let z = 2 * rng.unit() - 1, phi = 2 * .pi * rng.unit()
        let r = (1 - z * z).squareRoot()
        return Vector3(x: r * cos(phi), y: r * sin(phi), z: z)
    }
    /// raw = distortion · (field · direction) + hardIron + noise, directions uniform over the sphere.
    static func ellipsoid(count: Int, field: Double, distortion: Matrix3, hardIron: Vector3, noise: Double,
                          rng: inout SplitMix64) -> [Vector3] {
        (0..<count).map { _ in distortion * (randomUnit(&rng) * field) + hardIron + gaussian3(&rng, sigma: noise) }
    }
    /// Directions uniform over a cap of the given half-angle about `axis`.
    static func cap(count: Int, axis: Vector3, halfAngleDegrees: Double, field: Double, distortion: Matrix3,
                    hardIron: Vector3, noise: Double, rng: inout SplitMix64) -> [Vector3] {
        let minZ = cos(halfAngleDegrees * .pi / 180)
        let a = axis.normalized
        let helper = abs(a.x) < 0.9 ? Vector3(x: 1, y: 0, z: 0) : Vector3(x: 0, y: 1, z: 0)
        let e1 = a.cross(helper).normalized, e2 = a.cross(e1)
        return (0..<count).map { _ in
            let z = minZ + (1 - minZ) * rng.unit(), phi = 2 * .pi * rng.unit()
            let r = (1 - z * z).squareRoot()
            let d = a * z + e1 * (r * cos(phi)) + e2 * (r * sin(phi))
            return distortion * (d * field) + hardIron + gaussian3(&rng, sigma: noise)
        }
    }
    /// A level sensor (x forward, y right, z down) turning through all headings.
    static func horizontalCircle(count: Int, earthNED: Vector3, hardIron: Vector3, noise: Double,
                                 rng: inout SplitMix64) -> [Vector3] {
        (0..<count).map { i in
            let psi = 2 * .pi * Double(i) / Double(count) * 1.5  // one and a half turns
            let body = Vector3(x: earthNED.x * cos(psi) + earthNED.y * sin(psi),
                               y: -earthNED.x * sin(psi) + earthNED.y * cos(psi), z: earthNED.z)
            return body + hardIron + gaussian3(&rng, sigma: noise)
        }
    }
}

enum Stats {
    static func std(_ v: [Double]) -> Double {
        let m = v.reduce(0, +) / Double(v.count)
        return (v.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(v.count)).squareRoot()
    }
}

/// Reads the magnetometer columns of the IMU CSV recordings (BROAD: mag_x…, µT; x-io Fusion: "Magnetometer X (uT)").
/// MagneticsTests does not depend on Capture, so this is a minimal header-driven reader for these two files.
enum RealData {
    struct Missing: Error { var what: String }

    static func magnetometer(_ path: String) throws -> [Vector3] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var lines = text.split(separator: "\n").makeIterator()
        guard let header = lines.next() else { throw Missing(what: "header in \(path)") }
        let names = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        func column(_ candidates: [String]) throws -> Int {
            guard let i = names.firstIndex(where: { candidates.contains($0) }) else { throw Missing(what: "\(candidates) in \(path)") }
            return i
        }
        let ix = try column(["mag_x", "magnetometer x (ut)"])
        let iy = try column(["mag_y", "magnetometer y (ut)"])
        let iz = try column(["mag_z", "magnetometer z (ut)"])
        var out: [Vector3] = []
        while let line = lines.next() {
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            guard f.count > max(ix, iy, iz), let x = Double(f[ix]), let y = Double(f[iy]), let z = Double(f[iz]),
                  x.isFinite, y.isFinite, z.isFinite else { continue }
            out.append(Vector3(x: x, y: y, z: z))
        }
        return out
    }

    /// Through the collector, as `lodestar calibrate` does: bounded per-direction reservoir, then the ladder.
    static func fit(_ samples: [Vector3], label: String) throws -> CalibrationResult {
        var collector = CalibrationCollector()
        for s in samples { collector.add(s) }
        let r = try collector.fit()
        print("calibration: \(label): \(samples.count) samples, \(r.method), hard iron \(r.calibration.hardIronMicrotesla), "
              + "field \(r.metrics.fieldMicrotesla) µT, residual std \(r.metrics.residualStdMicrotesla) µT, "
              + "coverage \(r.metrics.coveragePercent) %, inliers \(r.metrics.inlierCount)/\(r.metrics.sampleCount), "
              + "axis ratio \(r.metrics.axisRatio), thickness \(r.metrics.thicknessRatio); notes: \(r.notes)")
        return r
    }
}
