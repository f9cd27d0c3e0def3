import Testing
import Estimation
import LocationCore
import TestSupport

/// The handheld walk (rtklibexplorer, RTK at 4 Hz as truth, a real MEMS IMU): the same measurement `make eval` prints
/// (`WalkData`), asserted. Needs ../shared/data.
@Suite(.enabled(if: SharedData.available, Comment(rawValue: SharedData.skipMessage)))
struct WalkTests {
    static func load() throws -> (truth: WalkData.Truth, imu: [WalkData.IMUSample]) {
        let fixes = try SessionReplay.receiverFixes(SharedData.path(WalkData.nmea))
        let imu = WalkData.readIMU(SharedData.path(WalkData.imuCSV))
        try #require(fixes.count > 500)
        try #require(imu.count > 20_000)
        return (WalkData.Truth(fixes), imu)
    }

    /// Phone-like error added to the RTK track (1.5 m white + 1.5 m Gauss–Markov wander, τ 20 s, an honest claim):
    /// smoothing with the IMU must not be worse than the raw fixes at p50 or p95, and its radius must be a 68 % one.
    @Test func noisyWalkIsSmoothedAndItsAccuracyIsHonest() throws {
        let (truth, imu) = try Self.load()
        let r = WalkData.noise(truth: truth, imu: imu)
        let p = SmoothingEvaluation.percentile
        let rawP50 = p(r.raw, 0.5), rawP95 = p(r.raw, 0.95), p50 = p(r.smoothed, 0.5), p95 = p(r.smoothed, 0.95)
        print("walk: p50 \(rawP50)→\(p50), p95 \(rawP95)→\(p95), within \(r.within)")
        #expect(r.smoothed.count > 500)
        #expect(p50 <= rawP50)
        #expect(p95 <= rawP95)
        #expect(r.within >= 0.6)
        // 134 s without a stop never shows the 20 s wander beyond two standard errors, so the claim minus the white
        // part stays (docs/smoothing.md): conservative.
        withKnownIssue("walk without stops: the wander the filter averages is not learned in 134 s (within \(r.within))") {
            #expect(r.within <= 0.85)
        }
    }

    /// 10 s GNSS outages while walking: the IMU-aided dead reckoning ends at most half as far off as the
    /// constant-velocity prediction of the same filter.
    @Test func imuHalvesTheErrorAfterA10SecondOutage() throws {
        let (truth, imu) = try Self.load()
        let (aided, cv) = WalkData.outages(truth: truth, imu: imu, length: 10)
        try #require(aided.count >= 10)
        let ma = aided.reduce(0, +) / Double(aided.count), mc = cv.reduce(0, +) / Double(cv.count)
        print("walk outages 10 s: \(aided.count) blanks, IMU-aided mean \(ma) m, constant-velocity mean \(mc) m")
        #expect(ma <= 0.5 * mc)
    }
}
