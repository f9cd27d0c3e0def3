import LocationCore

/// The fit ladder: turns magnetometer samples (µT, sensor frame) into a `CalibrationResult`.
///
/// 1. Plane test: principal components of the samples (outliers trimmed by their distance from the plane). When
///    the thinnest axis is under `planarThicknessRatio` of the next, all directions lie in one plane: a **circle**
///    is fitted in it (hard iron within the plane; the offset along the normal is unobservable, reported, left 0).
/// 2. Otherwise a robust **sphere**: algebraic least squares, Gauss–Newton on geometric residuals, samples more
///    than `outlierSigmas`·σ (σ = 1.4826·MAD) from the median residual rejected, repeated until stable.
/// 3. When the sphere's inliers cover ≥ `ellipsoidMinimumCoveragePercent` of the direction bins, a robust
///    **ellipsoid** (hard iron + symmetric soft iron), kept only if positive definite, well conditioned and with a
///    plausible axis ratio; else the sphere stands.
///
/// Pure and deterministic; a 1,000-sample fit takes about a millisecond (docs/calibration.md).
public struct CalibrationFitter: Sendable {
    public struct Settings: Sendable, Hashable {
        /// Fewer samples than this is an error.
        public var minimumSamples = 20
        /// Coverage (percent of direction bins) from which the ellipsoid is tried.
        public var ellipsoidMinimumCoveragePercent = 50.0
        /// Below this coverage a sphere fit gets a warning note (its centre is poorly determined on real data).
        public var lowCoveragePercent = 30.0
        /// Largest accepted ratio of the ellipsoid's semi-axes (soft iron rarely distorts more than ~20 %).
        public var maximumAxisRatio = 1.5
        /// Smallest accepted Cholesky pivot ratio of the ellipsoid's normal equations.
        public var minimumConditionRatio = 1e-9
        /// √(λmin/λmid) of the samples' covariance below which the directions count as one plane.
        public var planarThicknessRatio = 0.1
        /// Outlier threshold in robust standard deviations.
        public var outlierSigmas = 3.0
        /// Rounds of reject-and-refit.
        public var robustIterations = 8
        /// A circle must reach this share of its 10° sectors (else the centre is poorly determined).
        public var minimumArcCoveragePercent = 33.0
        /// The samples' spread in the plane of the two largest principal axes must reach this, µT (else the
        /// device was not turned).
        public var minimumSpreadMicrotesla = 2.0
        /// A fit whose residual std exceeds this share of the field strength is unusable.
        public var maximumResidualFraction = 0.25
        /// Plausible field strengths, µT (Earth's field is 22–67 µT; wider for uncalibrated gains).
        public var fieldRangeMicrotesla: ClosedRange<Double> = 1...1000
        /// The direction bins for coverage.
        public var bins = DirectionBins.standard

        public init() {}
        public static let `default` = Settings()
    }

    public var settings: Settings

    public init(settings: Settings = .default) { self.settings = settings }

    /// Fits `samples` (µT). `reference` (the World Magnetic Model at the location) only feeds the metrics.
    public func fit(_ samples: [Vector3], reference: MagneticFieldElements? = nil) throws(CalibrationFitError) -> CalibrationResult {
        let points = samples.filter { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }
        guard points.count >= settings.minimumSamples else {
            throw .tooFewSamples(count: points.count, minimum: settings.minimumSamples)
        }
        let k = settings.outlierSigmas
        let all = [Bool](repeating: true, count: points.count)

        // 1. Plane test, robust to samples far off the plane (interference while driving straight).
        var planeMask = all
        var thickness = 1.0
        var spread = 0.0
        for _ in 0..<settings.robustIterations {
            guard let (m, cov) = CalibrationMath.covariance(points, mask: planeMask) else { break }
            let e = SymmetricEigen3(cov)
            thickness = e.values.1 > 0 ? (max(e.values.0, 0) / e.values.1).squareRoot() : 0
            spread = max(e.values.1, 0).squareRoot()
            let distances = points.map { ($0 - m).dot(e.vectors.0) }
            let next = RobustStatistics.inlierMask(distances, k: k, floor: RobustStatistics.floorMicrotesla)
            if next == planeMask || next.filter({ $0 }).count < 3 { break }
            planeMask = next
        }
        guard spread >= settings.minimumSpreadMicrotesla else {
            throw .insufficientMotion("across \(points.count) samples the field varied in fewer than two directions "
                                      + "(second-largest spread \(CalibrationMath.decimal(spread, digits: 1)) µT, 1σ)")
        }

        var result: CalibrationResult
        if thickness < settings.planarThicknessRatio {
            result = try circle(points, mask: planeMask, thickness: thickness, reference: reference)
        } else if let (sphere, sphereMask) = SphereFit.robust(points, mask: all, k: k, iterations: settings.robustIterations),
                  settings.fieldRangeMicrotesla.contains(sphere.radius) {
            result = sphereOrEllipsoid(points, sphere: sphere, mask: sphereMask, thickness: thickness, reference: reference)
        } else if thickness < 2 * settings.planarThicknessRatio {
            // A nearly planar set can still defeat the sphere: fall back to the circle rather than blow up.
            result = try circle(points, mask: planeMask, thickness: thickness, reference: reference)
            result.notes.insert("the sphere fit failed on nearly planar directions (thickness "
                                + "\(CalibrationMath.decimal(thickness, digits: 2)))", at: 0)
        } else {
            throw .degenerate("the sphere fit did not converge to a plausible field strength")
        }
        try checkUsable(result)
        return result
    }

    /// The sphere, upgraded to the ellipsoid when coverage allows and the ellipsoid passes its checks.
    private func sphereOrEllipsoid(_ points: [Vector3], sphere: SphereFit, mask: [Bool], thickness: Double,
                                   reference: MagneticFieldElements?) -> CalibrationResult {
        var result = makeResult(points, mask: mask, method: .sphere,
                                calibration: MagnetometerCalibration(hardIronMicrotesla: sphere.center,
                                                                     fieldMicrotesla: sphere.radius),
                                field: sphere.radius, thickness: thickness, reference: reference)
        let coverage = result.metrics.coveragePercent
        if coverage >= settings.ellipsoidMinimumCoveragePercent {
            switch ellipsoid(points, mask: mask, thickness: thickness, reference: reference) {
            case .success(let e): return e
            case .failure(let why): result.notes.append("ellipsoid rejected: \(why.reason); sphere kept")
            }
        } else {
            result.notes.append("coverage \(CalibrationMath.decimal(coverage, digits: 0)) % < "
                                + "\(CalibrationMath.decimal(settings.ellipsoidMinimumCoveragePercent, digits: 0)) %: "
                                + "sphere fit (no soft iron)")
            if coverage < settings.lowCoveragePercent {
                result.notes.append("on a small part of the sphere the centre trades off against the radius: expect "
                                    + "hard-iron errors of several µT; turn the device through more orientations")
            }
        }
        return result
    }

    private func circle(_ points: [Vector3], mask: [Bool], thickness: Double,
                        reference: MagneticFieldElements?) throws(CalibrationFitError) -> CalibrationResult {
        guard let (c, cMask) = CircleFit.robust(points, mask: mask, k: settings.outlierSigmas,
                                                iterations: settings.robustIterations),
              settings.fieldRangeMicrotesla.contains(c.radius)
        else { throw .degenerate("the circle fit in the plane of the samples did not converge") }
        let arc = c.arcCoveragePercent(points, mask: cMask)
        guard arc >= settings.minimumArcCoveragePercent else {
            throw .insufficientMotion("the directions lie in one plane and cover only \(CalibrationMath.decimal(arc, digits: 0)) % "
                                      + "of a full turn")
        }
        let inPlane = c.center - c.normal * c.center.dot(c.normal)
        // Along the normal the samples only give the plane's offset (hard iron + the field's normal component).
        // With the World Magnetic Model's F, the normal component's size is √(F² − r²); of its two signs the one
        // giving the smaller hard iron is taken (a hard iron larger than the Earth's field is implausible).
        // Without a reference the component stays unknown and is left 0.
        if let f = reference.map({ $0.totalNanotesla / 1000 }), f > c.radius {
            let normalField = (f * f - c.radius * c.radius).squareRoot()
            let planeOffset = c.center.dot(c.normal)
            let candidates = [planeOffset - normalField, planeOffset + normalField]
            let offset = abs(candidates[0]) <= abs(candidates[1]) ? candidates[0] : candidates[1]
            let calibration = MagnetometerCalibration(hardIronMicrotesla: inPlane + c.normal * offset, fieldMicrotesla: f)
            var r = makeResult(points, mask: cMask, method: .circle, calibration: calibration, field: c.radius,
                               thickness: thickness, reference: reference, directionCenter: c.center)
            r.notes.append("directions span one plane (normal \(Self.text(c.normal))): hard iron along the normal "
                           + "(\(CalibrationMath.decimal(offset, digits: 2)) µT) taken from the WMM field strength "
                           + "\(CalibrationMath.decimal(f, digits: 2)) µT, sign chosen for the smaller offset; "
                           + "arc coverage \(CalibrationMath.decimal(arc, digits: 0)) %")
            return r
        }
        let calibration = MagnetometerCalibration(hardIronMicrotesla: inPlane, fieldMicrotesla: nil)
        var r = makeResult(points, mask: cMask, method: .circle, calibration: calibration, field: c.radius,
                           thickness: thickness, reference: reference, directionCenter: c.center)
        r.unobservableAxis = c.normal
        r.notes.append("directions span one plane (normal \(Self.text(c.normal))): hard iron along the normal is "
                       + "unobservable, left 0 (give a location for the World Magnetic Model to recover it); arc "
                       + "coverage \(CalibrationMath.decimal(arc, digits: 0)) %")
        return r
    }

    private func ellipsoid(_ points: [Vector3], mask: [Bool], thickness: Double,
                           reference: MagneticFieldElements?) -> Result<CalibrationResult, EllipsoidRejection> {
        guard let (e, eMask) = EllipsoidFit.robust(points, mask: mask, k: settings.outlierSigmas,
                                                   iterations: settings.robustIterations)
        else { return .failure(EllipsoidRejection("not an ellipsoid (not positive definite)")) }
        guard e.conditionRatio >= settings.minimumConditionRatio else {
            return .failure(EllipsoidRejection("ill-conditioned (pivot ratio \(e.conditionRatio))"))
        }
        let ratio = e.axisRatio
        guard ratio <= settings.maximumAxisRatio else {
            return .failure(EllipsoidRejection("axis ratio \(CalibrationMath.decimal(ratio, digits: 2)) > \(CalibrationMath.decimal(settings.maximumAxisRatio, digits: 2))"))
        }
        let field = e.fieldMicrotesla
        guard settings.fieldRangeMicrotesla.contains(field) else {
            return .failure(EllipsoidRejection("implausible field strength \(CalibrationMath.decimal(field, digits: 1)) µT"))
        }
        let calibration = MagnetometerCalibration(hardIronMicrotesla: e.center, softIron: e.softIron, fieldMicrotesla: field)
        var r = makeResult(points, mask: eMask, method: .ellipsoid, calibration: calibration, field: field,
                           thickness: thickness, reference: reference)
        r.metrics.axisRatio = ratio
        return .success(r)
    }

    struct EllipsoidRejection: Error { var reason: String; init(_ r: String) { reason = r } }

    private func makeResult(_ points: [Vector3], mask: [Bool], method: CalibrationMethod,
                            calibration: MagnetometerCalibration, field: Double, thickness: Double,
                            reference: MagneticFieldElements?, directionCenter: Vector3? = nil) -> CalibrationResult {
        var corrected: [Vector3] = []
        corrected.reserveCapacity(points.count)
        for i in points.indices where mask[i] {
            if let c = directionCenter { corrected.append(points[i] - c) } else { corrected.append(calibration.apply(points[i])) }
        }
        let norms = corrected.map(\.norm)
        let metrics = CalibrationMetrics(
            sampleCount: points.count, inlierCount: corrected.count,
            residualStdMicrotesla: RobustStatistics.standardDeviation(norms),
            coveragePercent: settings.bins.coveragePercent(corrected), fieldMicrotesla: field,
            referenceTotalMicrotesla: reference.map { $0.totalNanotesla / 1000 },
            referenceHorizontalMicrotesla: reference.map { $0.horizontalNanotesla / 1000 },
            thicknessRatio: thickness)
        return CalibrationResult(calibration: calibration, method: method, metrics: metrics)
    }

    private func checkUsable(_ r: CalibrationResult) throws(CalibrationFitError) {
        let m = r.metrics
        if m.residualStdMicrotesla > settings.maximumResidualFraction * m.fieldMicrotesla {
            throw .degenerate("residual \(CalibrationMath.decimal(m.residualStdMicrotesla, digits: 2)) µT is "
                              + "\(CalibrationMath.decimal(100 * m.residualStdMicrotesla / m.fieldMicrotesla, digits: 0)) % of the "
                              + "\(CalibrationMath.decimal(m.fieldMicrotesla, digits: 1)) µT field: the samples are not on a sphere "
                              + "(moving iron, a motor or a magnet nearby?)")
        }
    }

    static func text(_ v: Vector3, digits: Int = 2) -> String {
        "(\(CalibrationMath.decimal(v.x, digits: digits)), \(CalibrationMath.decimal(v.y, digits: digits)), \(CalibrationMath.decimal(v.z, digits: digits)))"
    }
}
