#if canImport(Glibc)
import Glibc
#endif
import LocationCore

extension SkyReport {
    /// One entry per satellite (constellation + svid), in first-seen order: receivers that list every signal
    /// (NMEA 4.10+ GSV with a signal id, e.g. u-blox F9P: L1 and L2 of one satellite) give several entries for
    /// one satellite. The first listed signal (the receiver's primary, L1/E1/B1) keeps its position, signal id and
    /// level; `used` is true when any signal of the satellite is used.
    public var satellitesOnePerSatellite: [SatelliteInfo] {
        var out: [SatelliteInfo] = []
        out.reserveCapacity(satellites.count)
        var index: [Int: Int] = [:]
        for s in satellites {
            let key = (s.constellation.rawValue << 16) | (s.svid & 0xFFFF)
            if let i = index[key] {
                if s.used { out[i].used = true }
                if out[i].elevationDegrees == nil { out[i].elevationDegrees = s.elevationDegrees }
                if out[i].azimuthDegrees == nil { out[i].azimuthDegrees = s.azimuthDegrees }
                continue
            }
            index[key] = out.count
            out.append(s)
        }
        return out
    }
}

/// Confidence levels between Lodestar's accuracies (Core Location's: a 68 % horizontal radius, 1-σ vertical) and
/// gpsd's `ep*` figures (95 %): see docs/gpsd-compatibility.md, "Accuracy".
public enum ConfidenceScale {
    /// 95 % / 68 % radius of a circular Gaussian: √(−2 ln 0.05) / √(−2 ln 0.32) ≈ 1.621.
    public static let horizontal95Per68 = (-2 * log(0.05)).squareRoot() / (-2 * log(0.32)).squareRoot()
    /// Two-sided 95 % of a 1-D Gaussian, in σ.
    public static let oneDimensional95PerSigma = 1.959_963_985
}
