// Magnetics: the World Magnetic Model (this file), calibration and heading (see docs/magnetics.md).
#if canImport(Glibc)
import Glibc
#endif
import LocationCore
import LodestarData

/// NOAA/BGS World Magnetic Model: the main geomagnetic field as a degree-N spherical-harmonic expansion with
/// linear secular variation (WMM2025 Technical Report, NOAA NCEI, doi:10.25923/prbc-s316).
///
/// Coefficients come from a WMM.COF file; `wmm2025` uses the copy compiled into the binary (LodestarData).
/// An evaluation allocates nothing: the tables are built once, Schmidt normalisation is folded into the
/// coefficients, and the associated Legendre functions are computed by recursion in registers, order by order.
public final class WorldMagneticModel: Sendable {
    /// WMM2025 from the embedded WMM.COF, parsed on first use.
    public static let wmm2025: WorldMagneticModel = {
        do {
            return try WorldMagneticModel(cofBytes: embeddedCoefficientBytes)
        } catch {
            // The file is compiled into the binary and checked by the tests: this is a build defect, not bad input.
            fatalError("embedded WMM.COF is invalid: \(error)")
        }
    }()

    /// The bytes of the WMM.COF compiled into the binary (WMM2025, 4557 bytes; see docs/magnetics.md).
    public static var embeddedCoefficientBytes: [UInt8] {
        var length = 0
        guard let p = lodestar_wmm_cof(&length) else { return [] }
        return Array(UnsafeBufferPointer(start: p, count: length))
    }

    /// The geomagnetic reference radius a of the expansion (WMM report: 6371.2 km).
    public static let referenceRadiusKilometers = 6371.2

    /// Reference epoch t₀ as a decimal year (2025.0).
    public let epoch: Double
    /// The model name from the file's header ("WMM-2025").
    public let modelName: String
    /// The release date from the file's header, if given ("11/13/2024").
    public let releaseDate: String?
    /// The model is valid from `epoch` to `epoch` + 5 years (both included); outside it results are flagged.
    public let validFrom: Double
    public let validUntil: Double
    /// The highest degree N (12 for WMM).
    public let maximumDegree: Int
    /// The coefficients as the file gives them.
    public let coefficients: [GaussCoefficient]

    /// Evaluation table, order-major (m = 0: n = 1…N; then m = 1…N: n = m…N).
    private let terms: ContiguousArray<Term>

    /// One (n, m) term: Schmidt-normalised coefficients and the Legendre recursion factor.
    private struct Term {
        /// g, h, ġ, ḣ multiplied by the Schmidt factor S(n, m), so Gauss-normalised Legendre functions can be used.
        var g: Double, h: Double, gDot: Double, hDot: Double
        /// k(n, m) = ((n − 1)² − m²) / ((2n − 1)(2n − 3)), for P(n, m) = x P(n−1, m) − k P(n−2, m).
        var k: Double
        /// n + 1, the radial derivative's factor.
        var nPlusOne: Double
    }

    public init(coefficientFile file: WMMCoefficientFile, validityYears: Double = 5) {
        epoch = file.epoch
        modelName = file.modelName
        releaseDate = file.releaseDate
        validFrom = file.epoch
        validUntil = file.epoch + validityYears
        maximumDegree = file.maximumDegree
        coefficients = file.coefficients
        let nMax = file.maximumDegree

        // Schmidt semi-normalisation over Gauss normalisation, S(n, m):
        // S(n, 0) = S(n−1, 0)(2n − 1)/n;  S(n, m) = S(n, m−1) √((n − m + 1)(m = 1 ? 2 : 1)/(n + m)).
        let width = nMax + 1
        var schmidt = [Double](repeating: 0, count: width * width)
        schmidt[0] = 1
        for n in 1...nMax {
            schmidt[n * width] = schmidt[(n - 1) * width] * Double(2 * n - 1) / Double(n)
            for m in 1...n {
                let factor = Double((n - m + 1) * (m == 1 ? 2 : 1)) / Double(n + m)
                schmidt[n * width + m] = schmidt[n * width + m - 1] * factor.squareRoot()
            }
        }
        var byIndex = [GaussCoefficient?](repeating: nil, count: width * width)
        for c in file.coefficients { byIndex[c.degree * width + c.order] = c }

        var table = ContiguousArray<Term>()
        table.reserveCapacity(file.coefficients.count)
        for m in 0...nMax {
            for n in max(m, 1)...nMax {
                let c = byIndex[n * width + m]
                let s = schmidt[n * width + m]
                let k = n >= 2 ? Double((n - 1) * (n - 1) - m * m) / Double((2 * n - 1) * (2 * n - 3)) : 0
                table.append(Term(g: s * (c?.gNanotesla ?? 0), h: m == 0 ? 0 : s * (c?.hNanotesla ?? 0),
                                  gDot: s * (c?.gNanoteslaPerYear ?? 0), hDot: m == 0 ? 0 : s * (c?.hNanoteslaPerYear ?? 0),
                                  k: k, nPlusOne: Double(n + 1)))
            }
        }
        terms = table
    }

    /// Parses a WMM.COF file (header, N(N+3)/2 coefficient lines, terminator of 9s).
    public convenience init(cofBytes: [UInt8], validityYears: Double = 5) throws(WMMCoefficientFileError) {
        self.init(coefficientFile: try WMMCoefficientFile(bytes: cofBytes), validityYears: validityYears)
    }

    /// The field at a geodetic position and time.
    /// - Parameters:
    ///   - latitudeDegrees: geodetic (WGS84) latitude, −90…90; the poles are handled without special cases.
    ///   - longitudeDegrees: any range (east positive); grid variation uses it as given, wrapped.
    ///   - heightAboveEllipsoidKilometers: height above the WGS84 ellipsoid (not above sea level); the model is
    ///     specified for −1…850 km.
    ///   - decimalYear: e.g. 2027.5 (see `CivilDate.decimalYear`, `decimalYear(of:)`).
    public func field(latitudeDegrees: Double, longitudeDegrees: Double,
                      heightAboveEllipsoidKilometers: Double, decimalYear: Double) -> MagneticFieldElements {
        let position = GeocentricPosition(geodeticLatitudeDegrees: latitudeDegrees,
                                          heightAboveEllipsoidKilometers: heightAboveEllipsoidKilometers)
        let b = sphericalField(position, longitudeRadians: longitudeDegrees * (Double.pi / 180))
        let dt = decimalYear - epoch
        // Spherical (geocentric) → geodetic axes: rotate by ψ = φ′ − φ about the east axis (report eq. 17).
        let (sp, cp) = (position.sinPsi, position.cosPsi)
        let xs = b.x + dt * b.xDot, zs = b.z + dt * b.zDot
        let x = xs * cp - zs * sp
        let y = b.y + dt * b.yDot
        let z = xs * sp + zs * cp
        let xDot = b.xDot * cp - b.zDot * sp
        let yDot = b.yDot
        let zDot = b.xDot * sp + b.zDot * cp
        return Self.elements(x: x, y: y, z: z, xDot: xDot, yDot: yDot, zDot: zDot,
                             latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees,
                             outsideValidity: !(decimalYear >= validFrom && decimalYear <= validUntil))
    }

    /// The field at a civil date (at 00:00 UTC, as NOAA's calculators take dates).
    public func field(latitudeDegrees: Double, longitudeDegrees: Double, heightAboveEllipsoidKilometers: Double,
                      date: CivilDate) -> MagneticFieldElements {
        field(latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees,
              heightAboveEllipsoidKilometers: heightAboveEllipsoidKilometers, decimalYear: date.decimalYear)
    }

    /// The decimal year of an instant, with the time of day: year + (time since Jan 1 00:00 UTC) / (length of year).
    public static func decimalYear(of time: Timestamp) -> Double {
        let (day, nanoOfDay) = time.dayAndNanoOfDay
        let date = CivilDate(daysSince1970: Int(day))
        let start = CivilDate(year: date.year, month: 1, day: 1).daysSince1970
        let length = CivilDate.isLeap(date.year) ? 366.0 : 365.0
        let days = Double(Int(day) - start) + Double(nanoOfDay) / 86_400e9
        return Double(date.year) + days / length
    }

    // MARK: - Evaluation

    /// Field components in geocentric spherical axes (X′ north, Y′ east, Z′ down along the radius) from the main
    /// coefficients, and separately from the secular-variation coefficients (per year).
    struct SphericalField {
        var x = 0.0, y = 0.0, z = 0.0, xDot = 0.0, yDot = 0.0, zDot = 0.0
    }

    /// Report eq. 10–12 with Gauss-normalised P(n, m)(sin φ′) and dP/dθ (θ the colatitude), and
    /// Q(n, m) = P(n, m) / cos φ′ for m ≥ 1, so the east component needs no division by cos φ′:
    /// Q obeys the same recursion as P, starts at Q(m, m) = P(m−1, m−1), and stays finite at the poles
    /// (there it reduces to NOAA's MAG_SummationSpecial). Exact at φ′ = ±90° with no special case.
    @inline(__always)
    func sphericalField(_ position: GeocentricPosition, longitudeRadians lambda: Double) -> SphericalField {
        let x = position.sinLatitude      // cos θ
        let z = position.cosLatitude      // sin θ ≥ 0
        let ar = Self.referenceRadiusKilometers / position.radiusKilometers
        let cosLambda = cos(lambda), sinLambda = sin(lambda)
        let nMax = maximumDegree
        var out = SphericalField()
        terms.withUnsafeBufferPointer { t in
            var i = 0
            // m = 0: no east component, h = 0.
            var p1 = 1.0, dp1 = 0.0, p2 = 0.0, dp2 = 0.0
            var radial = ar * ar                      // (a/r)^(n+2) for n = 0
            var sx = 0.0, sz = 0.0, sxDot = 0.0, szDot = 0.0
            for _ in 1...nMax {
                let c = t[i]; i += 1
                radial *= ar
                let p = x * p1 - c.k * p2
                let dp = x * dp1 - z * p1 - c.k * dp2
                p2 = p1; dp2 = dp1; p1 = p; dp1 = dp
                let rdp = radial * dp, rp = radial * c.nPlusOne * p
                sx += c.g * rdp; sxDot += c.gDot * rdp
                sz += c.g * rp; szDot += c.gDot * rp
            }
            out.x = sx; out.z = -sz; out.xDot = sxDot; out.zDot = -szDot

            // m ≥ 1. Diagonal: P(m, m) = z P(m−1, m−1), dP(m, m) = z dP(m−1, m−1) + x P(m−1, m−1).
            var diagonalP = 1.0, diagonalDP = 0.0
            var radialM = ar * ar                     // (a/r)^(m+2)
            var cosM = 1.0, sinM = 0.0
            for m in 1...nMax {
                let cm = cosM * cosLambda - sinM * sinLambda
                let sm = sinM * cosLambda + cosM * sinLambda
                cosM = cm; sinM = sm
                radialM *= ar
                var q = diagonalP                     // Q(m, m) = P(m−1, m−1)
                var p = z * diagonalP
                var dp = z * diagonalDP + x * diagonalP
                diagonalP = p; diagonalDP = dp
                var q1 = 0.0, dp1 = 0.0               // values at n − 2 (zero below the diagonal)
                var radial = radialM
                var xg = 0.0, xh = 0.0, yg = 0.0, yh = 0.0, zg = 0.0, zh = 0.0
                var xgDot = 0.0, xhDot = 0.0, ygDot = 0.0, yhDot = 0.0, zgDot = 0.0, zhDot = 0.0
                for n in m...nMax {
                    let c = t[i]; i += 1
                    if n > m {
                        let qn = x * q - c.k * q1
                        let dpn = x * dp - z * p - c.k * dp1
                        q1 = q; dp1 = dp
                        q = qn; p = z * qn; dp = dpn
                        radial *= ar
                    }
                    let rdp = radial * dp, rq = radial * q, rp = radial * c.nPlusOne * p
                    xg += c.g * rdp; xh += c.h * rdp
                    yg += c.g * rq; yh += c.h * rq
                    zg += c.g * rp; zh += c.h * rp
                    xgDot += c.gDot * rdp; xhDot += c.hDot * rdp
                    ygDot += c.gDot * rq; yhDot += c.hDot * rq
                    zgDot += c.gDot * rp; zhDot += c.hDot * rp
                }
                let order = Double(m)
                out.x += cm * xg + sm * xh
                out.y += order * (sm * yg - cm * yh)
                out.z -= cm * zg + sm * zh
                out.xDot += cm * xgDot + sm * xhDot
                out.yDot += order * (sm * ygDot - cm * yhDot)
                out.zDot -= cm * zgDot + sm * zhDot
            }
        }
        return out
    }

    /// D, I, H, F, GV and their rates from the geodetic components (report eq. 19–21).
    @inline(__always)
    static func elements(x: Double, y: Double, z: Double, xDot: Double, yDot: Double, zDot: Double,
                         latitudeDegrees: Double, longitudeDegrees: Double,
                         outsideValidity: Bool) -> MagneticFieldElements {
        let toDegrees = 180 / Double.pi
        let h2 = x * x + y * y
        let h = h2.squareRoot()
        let f2 = h2 + z * z
        let f = f2.squareRoot()
        let declination = atan2(y, x) * toDegrees
        let hDot = (x * xDot + y * yDot) / h
        let declinationDot = (x * yDot - y * xDot) / h2 * toDegrees
        var grid: Double?
        if latitudeDegrees >= 55 {
            grid = wrap180(declination - longitudeDegrees)
        } else if latitudeDegrees <= -55 {
            grid = wrap180(declination + longitudeDegrees)
        }
        let sv = MagneticFieldSecularVariation(
            declinationDegreesPerYear: declinationDot,
            inclinationDegreesPerYear: (h * zDot - z * hDot) / f2 * toDegrees,
            horizontalNanoteslaPerYear: hDot,
            northNanoteslaPerYear: xDot, eastNanoteslaPerYear: yDot, downNanoteslaPerYear: zDot,
            totalNanoteslaPerYear: (x * xDot + y * yDot + z * zDot) / f,
            gridVariationDegreesPerYear: grid == nil ? nil : declinationDot)
        return MagneticFieldElements(
            declinationDegrees: declination, inclinationDegrees: atan2(z, h) * toDegrees,
            horizontalNanotesla: h, northNanotesla: x, eastNanotesla: y, downNanotesla: z, totalNanotesla: f,
            gridVariationDegrees: grid, secularVariation: sv,
            blackout: h < MagneticFieldElements.blackoutHorizontalNanotesla,
            caution: h < MagneticFieldElements.cautionHorizontalNanotesla,
            outsideValidity: outsideValidity)
    }

    /// Wraps degrees into [−180, 180] the way NOAA's MAG_CalculateGridVariation does.
    @inline(__always)
    static func wrap180(_ degrees: Double) -> Double {
        guard degrees.isFinite else { return degrees }
        var d = degrees.truncatingRemainder(dividingBy: 360)
        if d > 180 { d -= 360 } else if d < -180 { d += 360 }
        return d
    }
}
