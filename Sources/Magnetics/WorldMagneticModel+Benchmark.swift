extension WorldMagneticModel {
    /// A fixed workload for timing the model (LodestarBench): `evaluations` full evaluations at points spread over
    /// all latitudes (poles included), longitudes, heights 0…100 km and the validity window. Returns a checksum of
    /// the results so the optimiser cannot drop the work. Time it with a monotonic clock around the call;
    /// nanoseconds per evaluation = elapsed / evaluations (the loop's own cost is a few additions).
    public func benchmarkSweep(evaluations: Int) -> Double {
        var checksum = 0.0
        var latitude = -90.0, longitude = -180.0, height = 0.0, year = validFrom
        let yearStep = (validUntil - validFrom) / 1000
        for _ in 0..<max(0, evaluations) {
            let e = field(latitudeDegrees: latitude, longitudeDegrees: longitude,
                          heightAboveEllipsoidKilometers: height, decimalYear: year)
            checksum += e.declinationDegrees + e.totalNanotesla * 1e-6 + e.secularVariation.totalNanoteslaPerYear * 1e-6
            // Steps coprime with the ranges, so the points do not repeat quickly.
            latitude += 1.7; if latitude > 90 { latitude -= 180 }
            longitude += 7.3; if longitude >= 180 { longitude -= 360 }
            height += 3.1; if height > 100 { height -= 100 }
            year += yearStep; if year > validUntil { year = validFrom }
        }
        return checksum
    }
}
