import LocationCore

/// Accumulates magnetometer samples for a calibration with bounded memory, tracks how much of the sphere of
/// directions they cover, and says when there is enough.
///
/// Samples are kept per direction bin (`DirectionBins.standard`), at most `samplesPerBin` each, as a uniform
/// random sample of everything that bin was offered (reservoir sampling, seeded: deterministic): a device that
/// rests in one orientation for minutes does not outweigh the rest, a bin's samples span the whole session, and
/// memory stays under bins × samplesPerBin samples (2,000 by default) however long collection runs.
/// Directions are taken about the current best centre (the last fit's hard iron; before any fit, the sensor
/// origin, so a device at rest fills one bin), and all kept samples are re-binned when a refit moves it.
/// Fits run after 25, 50, 100 … samples, then every `refitEverySamples`.
///
/// Pure: time only from the samples' stamps (used for `Settings.maximumSampleAgeNanos`).
public struct CalibrationCollector: Sendable {
    public struct Settings: Sendable, Hashable {
        /// Samples kept per direction bin.
        public var samplesPerBin = 20
        /// Coverage (percent of bins) that counts as enough.
        public var targetCoveragePercent = 60.0
        /// Kept samples needed before the collection can be enough.
        public var minimumSamples = 200
        /// Enough only when the last fit's residual std is at most this share of its field strength.
        public var maximumResidualFraction = 0.05
        /// Refit (for progress and for the direction centre) after this many new samples.
        public var refitEverySamples = 250
        /// Drop kept samples older than this (relative to the newest stamp) before each fit; nil keeps them.
        public var maximumSampleAgeNanos: Int64?
        /// The fit ladder's settings.
        public var fitter = CalibrationFitter.Settings.default

        public init() {}
        public static let `default` = Settings()
    }

    /// What a progress display shows.
    public struct Progress: Sendable, Hashable {
        public var coveragePercent: Double
        public var coveredBins: Int
        public var binCount: Int
        /// Samples offered to `add`.
        public var samplesSeen: Int
        /// Samples currently kept.
        public var samplesKept: Int
        /// From the last fit, if one succeeded.
        public var residualStdMicrotesla: Double?
        public var fieldMicrotesla: Double?
        public var method: CalibrationMethod?
        /// Coverage, sample count and residual all meet the settings.
        public var isSufficient: Bool
    }

    struct Kept: Sendable, Hashable {
        var field: Vector3
        var sequence: Int
        var nanos: Int64?
    }

    public let settings: Settings
    /// The World Magnetic Model at the location, when known (for the result's metrics).
    public var reference: MagneticFieldElements?
    private var bins: [[Kept]]
    /// Samples each bin was offered since it was last rebuilt (the reservoir's denominator).
    private var offered: [Int]
    private var random = ReservoirRandom(seed: 0x4C6F_6465_7374_6172)
    private let directionBins: DirectionBins
    private var sequence = 0
    private var sinceFit = 0
    private var newestNanos: Int64?
    /// Centre the directions are taken about, once a fit gave one.
    private var fittedCenter: Vector3?
    /// Soft iron of the last fit (directions are corrected with it).
    private var fittedSoftIron = Matrix3.identity
    /// The last successful fit and the last failure (cleared by a success).
    public private(set) var lastResult: CalibrationResult?
    public private(set) var lastError: CalibrationFitError?

    /// - Parameters:
    ///   - reference: the World Magnetic Model at the location, for the results' metrics.
    ///   - initial: a calibration already in use: directions are taken about its hard iron until the first fit.
    public init(settings: Settings = .default, reference: MagneticFieldElements? = nil,
                initial: MagnetometerCalibration? = nil) {
        self.settings = settings
        self.reference = reference
        directionBins = settings.fitter.bins
        bins = Array(repeating: [], count: directionBins.count)
        offered = Array(repeating: 0, count: directionBins.count)
        if let initial {
            fittedCenter = initial.hardIronMicrotesla
            fittedSoftIron = initial.softIron
        }
    }

    /// Offers one sample (µT, sensor frame, uncalibrated). Non-finite samples are ignored.
    public mutating func add(_ field: Vector3, monotonicNanos: Int64? = nil) {
        guard field.x.isFinite, field.y.isFinite, field.z.isFinite else { return }
        sequence += 1
        if let t = monotonicNanos { newestNanos = max(newestNanos ?? t, t) }
        insert(Kept(field: field, sequence: sequence, nanos: monotonicNanos))
        sinceFit += 1
        // Early fits (after 25, 50, 100 … samples) give the directions a centre soon; then a steady rate.
        if sinceFit >= min(settings.refitEverySamples, max(25, sequence / 2)) { _ = try? fit() }
    }

    /// Fits the kept samples (after dropping those past `maximumSampleAgeNanos`), remembers the result for
    /// progress, and re-bins the samples about the new centre.
    @discardableResult
    public mutating func fit() throws(CalibrationFitError) -> CalibrationResult {
        sinceFit = 0
        if let age = settings.maximumSampleAgeNanos, let newest = newestNanos {
            for b in bins.indices {
                let before = bins[b].count
                bins[b].removeAll { k in k.nanos.map { newest - $0 > age } ?? false }
                offered[b] = max(bins[b].count, offered[b] - (before - bins[b].count))
            }
        }
        do {
            let result = try CalibrationFitter(settings: settings.fitter).fit(samples, reference: reference)
            lastResult = result
            lastError = nil
            recenter(on: result)
            return result
        } catch {
            lastError = error
            throw error
        }
    }

    /// The kept samples, oldest first.
    public var samples: [Vector3] { keptInOrder.map(\.field) }

    /// Kept samples per bin (for a coverage map).
    public var occupancy: [Int] { bins.map(\.count) }

    /// The bins directions are sorted into.
    public var directionCells: DirectionBins { directionBins }

    public var progress: Progress {
        let covered = bins.filter { !$0.isEmpty }.count
        let coverage = 100 * Double(covered) / Double(bins.count)
        let kept = bins.reduce(0) { $0 + $1.count }
        var sufficient = false
        if let r = lastResult, r.method != .circle, coverage >= settings.targetCoveragePercent,
           kept >= settings.minimumSamples,
           r.metrics.residualStdMicrotesla <= settings.maximumResidualFraction * r.metrics.fieldMicrotesla {
            sufficient = true
        }
        return Progress(coveragePercent: coverage, coveredBins: covered, binCount: bins.count, samplesSeen: sequence,
                        samplesKept: kept, residualStdMicrotesla: lastResult?.metrics.residualStdMicrotesla,
                        fieldMicrotesla: lastResult?.metrics.fieldMicrotesla, method: lastResult?.method,
                        isSufficient: sufficient)
    }

    public var isSufficient: Bool { progress.isSufficient }

    /// The direction of a sample about the current centre (the bin it goes to).
    public func direction(of field: Vector3) -> Vector3 {
        guard let c = fittedCenter else { return field }
        return fittedSoftIron * (field - c)
    }

    // MARK: - Private

    private var keptInOrder: [Kept] { bins.joined().sorted { $0.sequence < $1.sequence } }

    private mutating func insert(_ k: Kept) {
        guard let b = directionBins.bin(of: direction(of: k.field)) else { return }
        offered[b] += 1
        if bins[b].count < settings.samplesPerBin {
            bins[b].append(k)
        } else {
            // Algorithm R: the new sample replaces a random kept one with probability capacity / offered.
            let j = Int(random.next() % UInt64(offered[b]))
            if j < bins[b].count { bins[b][j] = k }
        }
    }

    private mutating func recenter(on result: CalibrationResult) {
        var center = result.calibration.hardIronMicrotesla
        var softIron = result.calibration.softIron
        if result.method == .circle, let n = result.unobservableAxis {
            // Directions about the circle's own centre (on the samples' plane), so they spread around it.
            let kept = samples
            let height = kept.reduce(0.0) { $0 + $1.dot(n) } / Double(max(kept.count, 1))
            center = center + n * height
            softIron = .identity
        }
        let moved = fittedCenter.map { ($0 - center).norm } ?? .infinity
        let reshaped = CalibrationMath.maximumDifference(fittedSoftIron, softIron)
        fittedCenter = center
        fittedSoftIron = softIron
        guard moved > 0.5 || reshaped > 0.01 else { return }
        let all = keptInOrder
        bins = Array(repeating: [], count: directionBins.count)
        offered = Array(repeating: 0, count: directionBins.count)
        for k in all { insert(k) }
    }
}

/// ReservoirRandom (Steele, Lea, Flood 2014): a tiny deterministic generator for reservoir sampling.
struct ReservoirRandom: Sendable, Hashable {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
