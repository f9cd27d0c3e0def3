import Foundation
import LocationCore
import Testing
import TestSupport
@testable import Magnetics

/// WMM2025 against NOAA's published values. Tolerances come from the files: a value printed with d decimals is
/// NOAA's result rounded to d decimals, so ours must lie within half a unit of the last printed digit.
@Suite("World Magnetic Model", .ownThreads)
struct WorldMagneticModelTests {
    let model = WorldMagneticModel.wmm2025

    // MARK: - Embedded coefficients

    @Test func embeddedCoefficientFileIsNOAAsWMM2025() throws {
        let bytes = WorldMagneticModel.embeddedCoefficientBytes
        #expect(bytes.count == 4557)
        #expect(SHA256.hex(bytes) == "06791cd95faba7bdf4a709808f2715a53fe689b29c23b9886bc2196fa9b3eb13")
        let file = try WMMCoefficientFile(bytes: bytes)
        #expect(file.epoch == 2025.0)
        #expect(file.modelName == "WMM-2025")
        #expect(file.releaseDate == "11/13/2024")
        #expect(file.coefficients.count == 90)
        #expect(file.maximumDegree == 12)
        #expect(file.coefficients.first == GaussCoefficient(degree: 1, order: 0, gNanotesla: -29351.8, hNanotesla: 0,
                                                            gNanoteslaPerYear: 12.0, hNanoteslaPerYear: 0))
        #expect(file.coefficients[1] == GaussCoefficient(degree: 1, order: 1, gNanotesla: -1410.8, hNanotesla: 4545.4,
                                                         gNanoteslaPerYear: 9.7, hNanoteslaPerYear: -21.5))
        #expect(file.coefficients.last == GaussCoefficient(degree: 12, order: 12, gNanotesla: -0.7, hNanotesla: 0.2,
                                                           gNanoteslaPerYear: -0.1, hNanoteslaPerYear: -0.1))
        #expect(model.epoch == 2025.0 && model.validFrom == 2025.0 && model.validUntil == 2030.0)
        #expect(model.modelName == "WMM-2025")
    }

    @Test func sha256OfKnownVectors() {
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(SHA256.hex(long) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    static let header = "    2025.0            WMM-2025        11/13/2024\n"
    static let dipole = header + "  1  0  -30000.0       0.0       10.0        0.0\n  1  1       0.0       0.0        0.0        0.0\n" + String(repeating: "9", count: 48) + "\n"

    static let malformedFiles: [(String, WMMCoefficientFileError)] = {
        let h = header
        let end = "999999\n"
        var cases: [(String, WMMCoefficientFileError)] = []
        cases.append(("", .missingHeader))
        cases.append(("WMM-2025 2025.0\n", .badHeader(line: 1)))
        cases.append((h + "  1  0  -30000.0  0.0  10.0\n" + end, .badCoefficientLine(line: 2)))
        cases.append((h + "  1  0  -30000.0  0.0  10.0  x\n" + end, .badCoefficientLine(line: 2)))
        cases.append((h + "  1  2  -30000.0  0.0  10.0  0.0\n" + end, .degreeOutOfRange(line: 2)))
        cases.append((h + "  1.5  0  -30000.0  0.0  10.0  0.0\n" + end, .degreeOutOfRange(line: 2)))
        cases.append((h + "  1  0  1 0 0 0\n  1  0  1 0 0 0\n" + end, .duplicateCoefficient(line: 3, degree: 1, order: 0)))
        cases.append((h + "  1  0  1 0 0 0\n" + end, .missingCoefficient(degree: 1, order: 1)))
        cases.append((h + "  1  0  1 0 0 0\n  1  1  1 0 0 0\n", .missingTerminator))
        cases.append((h + end, .noCoefficients))
        return cases
    }()

    @Test(arguments: malformedFiles)
    func malformedCoefficientFilesAreRefused(text: String, expected: WMMCoefficientFileError) {
        #expect(throws: expected) { try WMMCoefficientFile(bytes: Array(text.utf8)) }
    }

    /// An axial dipole checks the signs and the geodetic conversion analytically: on the geodetic equator (where
    /// φ′ = φ = 0, r = 6378.137 km) X = −g₁₀ (a/r)³, Y = Z = 0; at the pole Z = −2 g₁₀ (a/r)³, r = b.
    @Test func axialDipoleMatchesTheClosedForm() throws {
        let dipole = try WorldMagneticModel(cofBytes: Array(Self.dipole.utf8))
        #expect(dipole.maximumDegree == 1)
        let ratio = WorldMagneticModel.referenceRadiusKilometers / 6378.137
        let equator = dipole.field(latitudeDegrees: 0, longitudeDegrees: 37, heightAboveEllipsoidKilometers: 0, decimalYear: 2026)
        #expect(abs(equator.northNanotesla - 29990 * ratio * ratio * ratio) < 1e-9)
        #expect(abs(equator.eastNanotesla) < 1e-9 && abs(equator.downNanotesla) < 1e-9)
        #expect(abs(equator.secularVariation.northNanoteslaPerYear - -10 * ratio * ratio * ratio) < 1e-12)
        let b = 6378.137 * (1 - 1 / 298.257223563)
        let poleRatio = WorldMagneticModel.referenceRadiusKilometers / b
        let pole = dipole.field(latitudeDegrees: 90, longitudeDegrees: 0, heightAboveEllipsoidKilometers: 0, decimalYear: 2025)
        #expect(abs(pole.downNanotesla - 60000 * poleRatio * poleRatio * poleRatio) < 1e-8)
        #expect(abs(pole.horizontalNanotesla) < 1e-8)
    }

    // MARK: - Literal values (always run)

    /// Rows of NOAA's Table 6 (WMM2025 report), copied from ../shared/data/wmm/wmm2025_test_values.csv:
    /// X Y Z H F nT (1 decimal), I D GV degrees (2 decimals), Ẋ Ẏ Ż Ḣ Ḟ nT/yr (1 decimal), İ Ḋ degrees/yr (2 decimals).
    struct Row: Sendable, CustomTestStringConvertible {
        var year: Double, heightKilometers: Double, latitude: Double, longitude: Double
        var x: Double, y: Double, z: Double, h: Double, f: Double, i: Double, d: Double, gv: Double?
        var xDot: Double, yDot: Double, zDot: Double, hDot: Double, fDot: Double, iDot: Double, dDot: Double
        var testDescription: String { "\(year) \(heightKilometers) km \(latitude), \(longitude)" }
    }

    @Test(arguments: [
        Row(year: 2025.0, heightKilometers: 0, latitude: 80, longitude: 0,
            x: 6521.6, y: 145.9, z: 54791.5, h: 6523.2, f: 55178.5, i: 83.21, d: 1.28, gv: 1.28,
            xDot: -8.3, yDot: 59.5, zDot: 31.1, hDot: -7.0, fDot: 30.1, iDot: 0.01, dDot: 0.52),
        Row(year: 2025.0, heightKilometers: 0, latitude: -80, longitude: 240,
            x: 6117.5, y: 15751.9, z: -52022.5, h: 16898.1, f: 54698.2, i: -72.00, d: 68.78, gv: -51.22,
            xDot: 33.3, yDot: -8.6, zDot: 95.5, hDot: 4.0, fDot: -89.6, iDot: 0.03, dDot: -0.12),
        Row(year: 2027.5, heightKilometers: 100, latitude: 0, longitude: 120,
            x: 37711.5, y: -148.7, z: -9969.8, h: 37711.8, f: 39007.4, i: -14.81, d: -0.23, gv: nil,
            xDot: 9.2, yDot: -21.0, zDot: 72.9, hDot: 9.3, fDot: -9.7, iDot: 0.11, dDot: -0.03),
    ])
    func table6Rows(row: Row) {
        let e = model.field(latitudeDegrees: row.latitude, longitudeDegrees: row.longitude,
                            heightAboveEllipsoidKilometers: row.heightKilometers, decimalYear: row.year)
        let nT = 0.05, deg = 0.005
        #expect(abs(e.northNanotesla - row.x) <= nT && abs(e.eastNanotesla - row.y) <= nT)
        #expect(abs(e.downNanotesla - row.z) <= nT && abs(e.horizontalNanotesla - row.h) <= nT)
        #expect(abs(e.totalNanotesla - row.f) <= nT)
        #expect(abs(e.inclinationDegrees - row.i) <= deg && abs(e.declinationDegrees - row.d) <= deg)
        if let gv = row.gv {
            #expect(abs((e.gridVariationDegrees ?? .nan) - gv) <= deg)
        } else {
            #expect(e.gridVariationDegrees == nil)
        }
        let sv = e.secularVariation
        #expect(abs(sv.northNanoteslaPerYear - row.xDot) <= nT && abs(sv.eastNanoteslaPerYear - row.yDot) <= nT)
        #expect(abs(sv.downNanoteslaPerYear - row.zDot) <= nT && abs(sv.horizontalNanoteslaPerYear - row.hDot) <= nT)
        #expect(abs(sv.totalNanoteslaPerYear - row.fDot) <= nT)
        #expect(abs(sv.inclinationDegreesPerYear - row.iDot) <= deg && abs(sv.declinationDegreesPerYear - row.dDot) <= deg)
        #expect(!e.outsideValidity)
    }

    /// One row of NCEI's 100-point file (2025.0, 28 km, 89° N, 121° W), printed with 6 decimals in nT. X and H
    /// also get the file's own rounding error (see `hundredPointFileErrors`).
    @Test func hundredPointFileFirstRow() {
        let e = model.field(latitudeDegrees: 89, longitudeDegrees: -121, heightAboveEllipsoidKilometers: 28, decimalYear: 2025.0)
        let nT = 0.0000005
        #expect(abs(e.declinationDegrees - -99.77) <= 0.005 && abs(e.inclinationDegrees - 88.47) <= 0.005)
        #expect(abs(e.horizontalNanotesla - 1504.298146) <= nT + (Self.hundredPointFileErrors["H_nT"] ?? 0))
        #expect(abs(e.northNanotesla - -255.388723) <= nT + (Self.hundredPointFileErrors["X_nT"] ?? 0))
        #expect(abs(e.eastNanotesla - -1482.460628) <= nT)
        #expect(abs(e.downNanotesla - 56194.288771) <= nT)
        #expect(abs(e.totalNanotesla - 56214.419888) <= nT)
        let sv = e.secularVariation
        #expect(abs(sv.declinationDegreesPerYear - 2.491706) <= nT && abs(sv.inclinationDegreesPerYear - -0.009987) <= nT)
        #expect(abs(sv.horizontalNanoteslaPerYear - 10.285640) <= nT && abs(sv.northNanoteslaPerYear - 62.723738) <= nT)
        #expect(abs(sv.eastNanoteslaPerYear - -21.242793) <= nT && abs(sv.downNanoteslaPerYear - 18.075146) <= nT)
        #expect(abs(sv.totalNanoteslaPerYear - 18.343917) <= nT)
        // H = 1504 nT: NOAA's blackout zone (and so also caution).
        #expect(e.blackout && e.caution)
    }

    // MARK: - Poles, zones, grid variation, validity

    /// At a geographic pole X and Y depend on which meridian "north" follows, but the grid variation does not:
    /// GV = D − λ (north) and D + λ (south) must be the same for every longitude, and H, Z too.
    @Test(arguments: [90.0, -90.0])
    func polesAreFiniteAndIndependentOfLongitude(latitude: Double) {
        let reference = model.field(latitudeDegrees: latitude, longitudeDegrees: 0, heightAboveEllipsoidKilometers: 0, decimalYear: 2026)
        for longitude in [-179.0, -100.0, 0.0, 45.0, 120.0, 270.0, 359.0] {
            let e = model.field(latitudeDegrees: latitude, longitudeDegrees: longitude, heightAboveEllipsoidKilometers: 0, decimalYear: 2026)
            for v in [e.declinationDegrees, e.inclinationDegrees, e.northNanotesla, e.eastNanotesla, e.downNanotesla,
                      e.totalNanotesla, e.secularVariation.declinationDegreesPerYear, e.secularVariation.eastNanoteslaPerYear] {
                #expect(v.isFinite)
            }
            #expect(abs(e.horizontalNanotesla - reference.horizontalNanotesla) < 1e-6)
            #expect(abs(e.downNanotesla - reference.downNanotesla) < 1e-6)
            let gv = e.gridVariationDegrees ?? .nan
            #expect(abs(WorldMagneticModel.wrap180(gv - (reference.gridVariationDegrees ?? .nan))) < 1e-7, "λ = \(longitude)")
        }
        // Continuous at the pole: a point 1 cm away along the same meridian.
        let near = model.field(latitudeDegrees: latitude * (1 - 1e-9 / 90), longitudeDegrees: 0,
                               heightAboveEllipsoidKilometers: 0, decimalYear: 2026)
        #expect(abs(near.northNanotesla - reference.northNanotesla) < 1e-3)
        #expect(abs(near.eastNanotesla - reference.eastNanotesla) < 1e-3)
        #expect(abs(near.secularVariation.eastNanoteslaPerYear - reference.secularVariation.eastNanoteslaPerYear) < 1e-5)
    }

    /// Zones from NCEI's 100-point file: H = 1504 nT (89° N 121° W) blackout, 2164 nT (80° N 96° W) caution,
    /// 39489 nT (equator, 80° E) neither.
    @Test func blackoutAndCautionZones() {
        let blackout = model.field(latitudeDegrees: 89, longitudeDegrees: -121, heightAboveEllipsoidKilometers: 28, decimalYear: 2025.0)
        #expect(blackout.blackout && blackout.caution)
        let caution = model.field(latitudeDegrees: 80, longitudeDegrees: -96, heightAboveEllipsoidKilometers: 48, decimalYear: 2025.0)
        #expect(!caution.blackout && caution.caution)
        let open = model.field(latitudeDegrees: 0, longitudeDegrees: 80, heightAboveEllipsoidKilometers: 14, decimalYear: 2026.5)
        #expect(!open.blackout && !open.caution)
    }

    @Test func gridVariationOnlyPoleward55Degrees() {
        for (latitude, defined) in [(54.999, false), (55.0, true), (-54.999, false), (-55.0, true), (0.0, false), (70.0, true)] {
            let e = model.field(latitudeDegrees: latitude, longitudeDegrees: 100, heightAboveEllipsoidKilometers: 0, decimalYear: 2026)
            #expect((e.gridVariationDegrees != nil) == defined, "latitude \(latitude)")
            #expect((e.secularVariation.gridVariationDegreesPerYear != nil) == defined)
            if let gv = e.gridVariationDegrees {
                let expected = WorldMagneticModel.wrap180(latitude > 0 ? e.declinationDegrees - 100 : e.declinationDegrees + 100)
                #expect(gv == expected)
                #expect(e.secularVariation.gridVariationDegreesPerYear == e.secularVariation.declinationDegreesPerYear)
            }
        }
    }

    @Test func validityWindowIs2025To2030Inclusive() {
        for (year, outside) in [(2024.999, true), (2025.0, false), (2027.5, false), (2030.0, false), (2030.001, true), (2031.0, true), (Double.nan, true)] {
            let e = model.field(latitudeDegrees: 45, longitudeDegrees: 10, heightAboveEllipsoidKilometers: 0, decimalYear: year)
            #expect(e.outsideValidity == outside, "\(year)")
        }
    }

    /// X, Y, Z are linear in time, so a central difference reproduces the secular variation exactly; D, I, H, F
    /// to second order.
    @Test(arguments: [(45.0, 10.0), (-33.0, 151.0), (78.0, -100.0), (-70.0, 40.0)])
    func secularVariationIsTheTimeDerivative(latitude: Double, longitude: Double) {
        let h = 0.01
        func at(_ t: Double) -> MagneticFieldElements {
            model.field(latitudeDegrees: latitude, longitudeDegrees: longitude, heightAboveEllipsoidKilometers: 1, decimalYear: t)
        }
        let (before, now, after) = (at(2027 - h), at(2027), at(2027 + h))
        func rate(_ k: KeyPath<MagneticFieldElements, Double>) -> Double { (after[keyPath: k] - before[keyPath: k]) / (2 * h) }
        let sv = now.secularVariation
        #expect(abs(rate(\.northNanotesla) - sv.northNanoteslaPerYear) < 1e-6)
        #expect(abs(rate(\.eastNanotesla) - sv.eastNanoteslaPerYear) < 1e-6)
        #expect(abs(rate(\.downNanotesla) - sv.downNanoteslaPerYear) < 1e-6)
        #expect(abs(rate(\.horizontalNanotesla) - sv.horizontalNanoteslaPerYear) < 1e-4)
        #expect(abs(rate(\.totalNanotesla) - sv.totalNanoteslaPerYear) < 1e-4)
        #expect(abs(rate(\.declinationDegrees) - sv.declinationDegreesPerYear) < 1e-6)
        #expect(abs(rate(\.inclinationDegrees) - sv.inclinationDegreesPerYear) < 1e-6)
    }

    @Test func decimalYearOfATimestamp() throws {
        let newYear = try #require(Timestamp(year: 2028, month: 1, day: 1))
        #expect(WorldMagneticModel.decimalYear(of: newYear) == 2028.0)
        let noon = try #require(Timestamp(year: 2028, month: 7, day: 2, hour: 12))   // leap year: day 183.5 of 366
        #expect(abs(WorldMagneticModel.decimalYear(of: noon) - (2028 + 183.5 / 366)) < 1e-12)
        #expect(CivilDate(year: 2027, month: 7, day: 2).decimalYear == 2027 + 182.0 / 365)
    }

    // MARK: - Declination cache

    @Test func declinationCacheRecomputesOnlyWhenNeeded() {
        var cache = DeclinationCache(model: model)
        let d0 = cache.declinationDegrees(latitudeDegrees: 48.0, longitudeDegrees: 11.0, heightAboveEllipsoidKilometers: 0.5, decimalYear: 2026.0)
        #expect(d0 == model.field(latitudeDegrees: 48.0, longitudeDegrees: 11.0, heightAboveEllipsoidKilometers: 0.5, decimalYear: 2026.0).declinationDegrees)
        #expect(cache.evaluationCount == 1)
        // ≈ 550 m north-east, 100 m up, 12 hours later: the cached value.
        let d1 = cache.declinationDegrees(latitudeDegrees: 48.0035, longitudeDegrees: 11.005, heightAboveEllipsoidKilometers: 0.6, decimalYear: 2026.0 + 0.5 / 365)
        #expect(d1 == d0 && cache.evaluationCount == 1)
        // ≈ 1.1 km north: recomputed.
        _ = cache.declinationDegrees(latitudeDegrees: 48.01, longitudeDegrees: 11.0, heightAboveEllipsoidKilometers: 0.5, decimalYear: 2026.0)
        #expect(cache.evaluationCount == 2)
        // Same place two days later: recomputed.
        _ = cache.declinationDegrees(latitudeDegrees: 48.01, longitudeDegrees: 11.0, heightAboveEllipsoidKilometers: 0.5, decimalYear: 2026.0 + 2.0 / 365)
        #expect(cache.evaluationCount == 3)
        // 1.5 km up: recomputed.
        _ = cache.declinationDegrees(latitudeDegrees: 48.01, longitudeDegrees: 11.0, heightAboveEllipsoidKilometers: 2.0, decimalYear: 2026.0 + 2.0 / 365)
        #expect(cache.evaluationCount == 4)
        // Crossing the antimeridian by a few metres is not a move of 360°.
        _ = cache.declinationDegrees(latitudeDegrees: 10, longitudeDegrees: 179.99999, heightAboveEllipsoidKilometers: 0, decimalYear: 2026)
        _ = cache.declinationDegrees(latitudeDegrees: 10, longitudeDegrees: -179.99999, heightAboveEllipsoidKilometers: 0, decimalYear: 2026)
        #expect(cache.evaluationCount == 5)
        // Non-finite input is never answered from the cache.
        let bad = cache.declinationDegrees(latitudeDegrees: .nan, longitudeDegrees: 0, heightAboveEllipsoidKilometers: 0, decimalYear: 2026)
        #expect(bad.isNaN && cache.evaluationCount == 6)
    }

    /// Near a pole a few hundred metres east is a large change of longitude, and declination follows the meridian:
    /// the cache also bounds the rotation of true north (Δλ sin φ), so it stays correct there.
    @Test func declinationCacheIsCorrectNearThePoles() {
        var cache = DeclinationCache(model: model)
        _ = cache.elements(latitudeDegrees: 89.999, longitudeDegrees: 0, heightAboveEllipsoidKilometers: 0, decimalYear: 2026)
        let d = cache.declinationDegrees(latitudeDegrees: 89.999, longitudeDegrees: 5, heightAboveEllipsoidKilometers: 0, decimalYear: 2026)
        #expect(cache.evaluationCount == 2)
        let direct = model.field(latitudeDegrees: 89.999, longitudeDegrees: 5, heightAboveEllipsoidKilometers: 0, decimalYear: 2026)
        #expect(d == direct.declinationDegrees)
        #expect(abs(cache.trueHeadingDegrees(magneticHeadingDegrees: 350) - Angle.normalizedDegrees(350 + d)) < 1e-12)
    }

    // MARK: - NOAA files in ../shared/data/wmm

    @Test(.enabled(if: SharedData.available, Comment(rawValue: SharedData.skipMessage)))
    func table6() throws {
        let table = try NOAATable(csv: SharedData.path("wmm/wmm2025_test_values.csv"))
        #expect(table.rows.count == 12)
        let report = try table.compare(with: model)
        #expect(report.columnsChecked == 15)
        report.print(title: "Table 6 (wmm2025_test_values.csv)")
    }

    /// NCEI's 100-point file prints every intensity with 6 decimals, but X (and so H, F, and through the small
    /// geodetic rotation Z) and their rates are not correctly rounded there: against a 30-digit evaluation of the
    /// model (mpmath, cross-checked against mpmath.legenp and mpmath.diff) the file is off by up to
    /// 7.2e-4 nT in X in 97 of its 100 rows, while D, I, Y, Ḋ, İ, Ẏ and Ż are correctly rounded in every row. A
    /// double-precision port of NOAA's own geomag C library (GeomagnetismLibrary.c) misses these columns by the
    /// same amounts, so no double implementation can meet the printed precision there. Those seven columns get
    /// half a unit of the last decimal plus the file's own error (its measured maximum, rounded up); every other
    /// column, and all of Table 6, is held to half a unit of the last printed decimal. (Our values are within
    /// 7e-11 nT and 2e-13 nT/yr of the 30-digit results.)
    static let hundredPointFileErrors: [String: Double] = [
        "X_nT": 8e-4, "H_nT": 8e-4, "F_nT": 5e-4, "Z_nT": 3e-6,
        "Xdot_nT_yr": 1e-6, "Hdot_nT_yr": 2e-6, "Fdot_nT_yr": 1e-6,
    ]

    @Test(.enabled(if: SharedData.available, Comment(rawValue: SharedData.skipMessage)))
    func hundredPointFile() throws {
        let text = try NOAATable(whitespaceSeparated: SharedData.path("wmm/WMM2025_TEST_VALUES_100pt.txt"))
        let csv = try NOAATable(csv: SharedData.path("wmm/wmm2025_test_values_100pt.csv"))
        #expect(text.rows.count == 100 && csv.rows.count == 100)
        #expect(text.columns == csv.columns)
        #expect(text.rows == csv.rows, "the CSV copy differs from NCEI's text file")
        let report = try text.compare(with: model, fileErrorAllowance: Self.hundredPointFileErrors)
        #expect(report.columnsChecked == 14)
        report.print(title: "100-point file (WMM2025_TEST_VALUES_100pt.txt)")
    }

    /// The WMM2025 report's worked example (Tables 3a/3b) at full printed precision: the geocentric conversion,
    /// X Y Z and their rates. Tolerances are half a unit of the last printed digit.
    @Test(.enabled(if: SharedData.available, Comment(rawValue: SharedData.skipMessage)))
    func numericalExample() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: SharedData.path("wmm/wmm2025_numerical_example.json")))
        let text = try #require(String(data: data, encoding: .utf8))
        func value(_ key: String) throws -> (Double, Double) {
            let literal = try #require(NOAATable.jsonNumberLiteral(text, key: key), "\(key) missing")
            return (try #require(Double(literal)), NOAATable.halfUnit(literal))
        }
        let (year, _) = try value("year"), (height, _) = try value("height_km")
        let (lat, _) = try value("lat_deg"), (lon, _) = try value("lon_deg")
        let position = GeocentricPosition(geodeticLatitudeDegrees: lat, heightAboveEllipsoidKilometers: height)
        let e = model.field(latitudeDegrees: lat, longitudeDegrees: lon, heightAboveEllipsoidKilometers: height, decimalYear: year)
        let sv = e.secularVariation
        let radians = Double.pi / 180
        let checks: [(String, Double)] = [
            ("phi_prime_rad", position.latitudeDegrees * radians), ("r_m", position.radiusKilometers * 1000),
            ("x_nt", e.northNanotesla), ("y_nt", e.eastNanotesla), ("z_nt", e.downNanotesla),
            ("x_dot", sv.northNanoteslaPerYear), ("y_dot", sv.eastNanoteslaPerYear), ("z_dot", sv.downNanoteslaPerYear),
            ("h_nt", e.horizontalNanotesla), ("f_nt", e.totalNanotesla), ("h_dot", sv.horizontalNanoteslaPerYear),
            ("f_dot", sv.totalNanoteslaPerYear), ("d_rad", e.declinationDegrees * radians),
            ("i_rad", e.inclinationDegrees * radians), ("d_dot_rad", sv.declinationDegreesPerYear * radians),
            ("i_dot_rad", sv.inclinationDegreesPerYear * radians),
        ]
        var lines: [String] = []
        for (key, ours) in checks {
            let (expected, tolerance) = try value(key)
            #expect(abs(ours - expected) <= tolerance, "\(key): \(ours) vs \(expected) (±\(tolerance))")
            lines.append("\(key) \(abs(ours - expected)) (±\(tolerance))")
        }
        if ProcessInfo.processInfo.environment["LODESTAR_WMM_REPORT"] == "1" {
            Swift.print("numerical example deviations:\n  " + lines.joined(separator: "\n  "))
        }
    }
}

// MARK: - Reading NOAA's files

/// A table of NOAA test values with the literals as printed, so each column's tolerance is half a unit of its
/// last printed decimal (the most decimals any row shows in that column).
struct NOAATable {
    var columns: [String]
    var rows: [[String]]

    /// Field descriptions of NCEI's text file ("# Field 5: declination (deg)") → the CSV copies' column names.
    static let textFieldNames: [String: String] = [
        "Decimal year": "date_decimal_year", "Altitude (km)": "height_km",
        "geodetic latitude (deg)": "lat_deg", "geodetic longitude (deg)": "lon_deg",
        "declination (deg)": "D_deg", "inclination (deg)": "I_deg",
        "H (nT)": "H_nT", "X (nT)": "X_nT", "Y (nT)": "Y_nT", "Z (nT)": "Z_nT", "F (nT)": "F_nT",
        "dD/dt (deg/year)": "Ddot_deg_yr", "dI/dt (deg/year)": "Idot_deg_yr", "dH/dt (nT/year)": "Hdot_nT_yr",
        "dX/dt (nT/year)": "Xdot_nT_yr", "dY/dt (nT/year)": "Ydot_nT_yr", "dZ/dt (nT/year)": "Zdot_nT_yr",
        "dF/dt (nT/year)": "Fdot_nT_yr",
    ]

    static let inputs = ["date_decimal_year", "height_km", "lat_deg", "lon_deg"]

    /// What we compare each column with. GV is optional (empty where NOAA leaves it undefined).
    static let outputs: [String: @Sendable (MagneticFieldElements) -> Double?] = [
        "X_nT": { $0.northNanotesla }, "Y_nT": { $0.eastNanotesla }, "Z_nT": { $0.downNanotesla },
        "H_nT": { $0.horizontalNanotesla }, "F_nT": { $0.totalNanotesla },
        "I_deg": { $0.inclinationDegrees }, "D_deg": { $0.declinationDegrees }, "GV_deg": { $0.gridVariationDegrees },
        "Xdot_nT_yr": { $0.secularVariation.northNanoteslaPerYear }, "Ydot_nT_yr": { $0.secularVariation.eastNanoteslaPerYear },
        "Zdot_nT_yr": { $0.secularVariation.downNanoteslaPerYear }, "Hdot_nT_yr": { $0.secularVariation.horizontalNanoteslaPerYear },
        "Fdot_nT_yr": { $0.secularVariation.totalNanoteslaPerYear },
        "Idot_deg_yr": { $0.secularVariation.inclinationDegreesPerYear },
        "Ddot_deg_yr": { $0.secularVariation.declinationDegreesPerYear },
    ]

    init(csv path: String) throws {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline)
        let header = try #require(lines.first, "\(path) is empty")
        columns = header.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    init(whitespaceSeparated path: String) throws {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline)
        columns = []
        rows = []
        for line in lines {
            if line.hasPrefix("#") {
                // "# Field 5: declination (deg)"
                guard let colon = line.firstIndex(of: ":") else { continue }
                let description = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                columns.append(try #require(Self.textFieldNames[description], "unknown field '\(description)'"))
            } else if !line.allSatisfy(\.isWhitespace) {
                rows.append(line.split(whereSeparator: \.isWhitespace).map(String.init))
            }
        }
    }

    /// 0.5 × 10^−d for a literal with d decimals.
    static func halfUnit(_ literal: String) -> Double {
        let decimals = literal.split(separator: ".", omittingEmptySubsequences: false).dropFirst().first?
            .prefix { $0.isNumber }.count ?? 0
        return Double("0.5e-\(decimals)") ?? .nan
    }

    /// The literal after `"key":` in a flat JSON object.
    static func jsonNumberLiteral(_ json: String, key: String) -> String? {
        guard let range = json.range(of: "\"\(key)\"") else { return nil }
        let rest = json[range.upperBound...].drop { $0 == " " || $0 == ":" }
        let literal = rest.prefix { "+-.0123456789eE".contains($0) }
        return literal.isEmpty ? nil : String(literal)
    }

    struct Report {
        /// column → (largest |ours − NOAA|, tolerance)
        var deviations: [(column: String, maximum: Double, tolerance: Double)] = []
        var columnsChecked: Int { deviations.count }

        func print(title: String) {
            guard ProcessInfo.processInfo.environment["LODESTAR_WMM_REPORT"] == "1" else { return }
            var text = "\(title): largest deviation per column (tolerance)\n"
            for d in deviations { text += "  \(d.column): \(d.maximum) (±\(d.tolerance))\n" }
            Swift.print(text, terminator: "")
        }
    }

    /// Evaluates every row and expects each printed value within half a unit of its column's last decimal.
    /// `fileErrorAllowance`: for columns where the file itself is known to be misrounded, its error bound.
    func compare(with model: WorldMagneticModel, fileErrorAllowance: [String: Double] = [:]) throws -> Report {
        let inputIndex = try Self.inputs.map { name in try #require(columns.firstIndex(of: name), "no column \(name)") }
        var report = Report()
        var evaluated: [MagneticFieldElements] = []
        for (r, row) in rows.enumerated() {
            try #require(row.count == columns.count, "row \(r + 1) has \(row.count) fields")
            let v = try inputIndex.map { try #require(Double(row[$0]), "row \(r + 1): bad input '\(row[$0])'") }
            evaluated.append(model.field(latitudeDegrees: v[2], longitudeDegrees: v[3],
                                         heightAboveEllipsoidKilometers: v[1], decimalYear: v[0]))
        }
        for (c, name) in columns.enumerated() where !Self.inputs.contains(name) {
            let output = try #require(Self.outputs[name], "no element for column \(name)")
            // The printed precision is the tolerance. Where the file itself is misrounded (measured against a
            // 30-digit evaluation, see docs/magnetics.md), a miss within the file's own error is recorded as a
            // known issue — visible in every run, never silently passed; anything beyond it fails.
            let tolerance = rows.map { Self.halfUnit($0[c]) }.min() ?? .nan
            let fileError = fileErrorAllowance[name] ?? 0
            var maximum = 0.0
            var misroundedRows: [Int] = []
            defer {
                if !misroundedRows.isEmpty {
                    withKnownIssue("NOAA's 100-point file is misrounded in column \(name) (docs/magnetics.md)") {
                        Issue.record("\(name): beyond printed precision, within the file's own rounding error, in \(misroundedRows.count) rows")
                    }
                }
            }
            for (r, row) in rows.enumerated() {
                let ours = output(evaluated[r])
                if row[c].isEmpty {
                    #expect(ours == nil, "row \(r + 1) \(name): NOAA leaves it undefined, we give \(ours ?? .nan)")
                    continue
                }
                let expected = try #require(Double(row[c]), "row \(r + 1) \(name): bad value '\(row[c])'")
                let deviation = abs((ours ?? .nan) - expected)
                let where_ = "row \(r + 1) (\(row[inputIndex[0]]), \(row[inputIndex[1]]) km, \(row[inputIndex[2]]), \(row[inputIndex[3]])) \(name): ours \(ours ?? .nan), NOAA \(row[c]) (±\(tolerance))"
                if deviation > tolerance && fileError > 0 && deviation <= tolerance + fileError {
                    misroundedRows.append(r + 1)
                } else {
                    #expect(deviation <= tolerance, Comment(rawValue: where_))
                }
                if !(deviation <= maximum) { maximum = deviation }
            }
            report.deviations.append((name, maximum, tolerance))
        }
        return report
    }
}

// MARK: - SHA-256 (FIPS 180-4), to pin the embedded file

enum SHA256 {
    static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    static func hex(_ message: [UInt8]) -> String {
        var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        var data = message
        data.append(0x80)
        while data.count % 64 != 56 { data.append(0) }
        let bits = UInt64(message.count) * 8
        for shift in stride(from: 56, through: 0, by: -8) { data.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
        var w = [UInt32](repeating: 0, count: 64)
        for block in stride(from: 0, to: data.count, by: 64) {
            for i in 0..<16 {
                w[i] = (0..<4).reduce(0) { $0 << 8 | UInt32(data[block + 4 * i + $1]) }
            }
            for i in 16..<64 {
                let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            for i in 0..<64 {
                let t1 = hh &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ k[i] &+ w[i]
                let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            for (i, v) in [a, b, c, d, e, f, g, hh].enumerated() { h[i] = h[i] &+ v }
        }
        return h.map { word in
            let s = String(word, radix: 16)
            return String(repeating: "0", count: 8 - s.count) + s
        }.joined()
    }
}
