// GeographicLib's MagneticModel on the same workload as `LodestarBench wmm` (scripts/wmm-geographiclib/run.sh).
// Build: g++ -O2 -std=c++17 bench.cpp -lGeographicLib
// Usage: bench MODEL_DIR [N [K]]   — MODEL_DIR holds wmm2025.wmm(.cof) from convert.py; N evaluations per timed
//        run (default 200000), best of 3; K sweep points printed for validation (default 0).
//
// Output (one "key value…" per line, the same keys as `LodestarBench wmm`):
//   ns_per_eval_wall W / ns_per_eval_cpu C  best of 3 runs of N full evaluations (wall clock / thread CPU time)
//   checksum S                              Σ D + F·1e-6 + Ḟ·1e-6 over the N points (the benchmarkSweep formula)
//   check  lat lon h_km year D I F X Y Z Fdot   the fixed validation points (kCheckPoints below)
//   sweep  i lat lon h_km year D I F X Y Z Fdot the first K sweep points
// D, I in degrees; F, X (north), Y (east), Z (down) in nT; Fdot in nT/year.
//
// A "full evaluation" is what Lodestar's WorldMagneticModel.field(…) returns: the field and its secular variation
// at a geodetic point, then the elements and their rates (MagneticModel::operator() with rates, FieldComponents).
//
// THE SWEEP (keep identical to Sources/LodestarBench/WMMBench.swift, which is the same recurrence as
// WorldMagneticModel.benchmarkSweep): start at latitude −90°, longitude −180°, height 0 km, year 2025.0; after each
// point: latitude += 1.7 (if > 90: −= 180); longitude += 7.3 (if ≥ 180: −= 360); height += 3.1 km (if > 100:
// −= 100); year += (2030 − 2025) / 1000 (if > 2030: = 2025). Plain IEEE double additions, so both programs
// produce bit-identical points.
#include <GeographicLib/MagneticModel.hpp>
#include <GeographicLib/Constants.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <string>

using GeographicLib::MagneticModel;

namespace {

struct Point { double lat, lon, heightKm, year; };

struct Sweep {
    static constexpr double validFrom = 2025.0, validUntil = 2030.0;
    double lat = -90.0, lon = -180.0, height = 0.0, year = validFrom;
    double yearStep = (validUntil - validFrom) / 1000;
    Point point() const { return {lat, lon, height, year}; }
    void next() {
        lat += 1.7; if (lat > 90) lat -= 180;
        lon += 7.3; if (lon >= 180) lon -= 360;
        height += 3.1; if (height > 100) height -= 100;
        year += yearStep; if (year > validUntil) year = validFrom;
    }
};

// Fixed validation points (same list in WMMBench.swift): poles, NOAA Table 6 positions, the edges of the
// validity window and of the height range.
const Point kCheckPoints[] = {
    {80, 0, 0, 2025.0}, {0, 120, 0, 2025.0}, {-80, 240, 0, 2025.0},
    {80, 0, 100, 2027.5}, {0, 120, 100, 2027.5}, {-80, 240, 100, 2027.5},
    {45.5, -122.6, 0.1, 2026.3}, {-33.9, 151.2, 0.05, 2029.99}, {51.5, -0.1, 850, 2030.0},
    {90, 0, 0, 2025.0}, {-90, 45, 10, 2028.0}, {89.999, 100, 50, 2026.2},
};

struct Elements { double D, I, F, X, Y, Z, Fdot, Ddot; };

inline Elements evaluate(const MagneticModel& model, const Point& p) {
    double Bx, By, Bz, Bxt, Byt, Bzt;   // east, north, up and their rates
    model(p.year, p.lat, p.lon, p.heightKm * 1000, Bx, By, Bz, Bxt, Byt, Bzt);
    double H, F, D, I, Ht, Ft, Dt, It;
    MagneticModel::FieldComponents(Bx, By, Bz, Bxt, Byt, Bzt, H, F, D, I, Ht, Ft, Dt, It);
    return {D, I, F, By, Bx, -Bz, Ft, Dt};
}

double seconds(clockid_t clock) {
    timespec ts;
    clock_gettime(clock, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

void printElements(const char* key, const Point& p, const Elements& e, long index = -1) {
    std::printf("%s ", key);
    if (index >= 0) std::printf("%ld ", index);
    std::printf("%.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n",
                p.lat, p.lon, p.heightKm, p.year, e.D, e.I, e.F, e.X, e.Y, e.Z, e.Fdot);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s MODEL_DIR [N [K]]\n", argv[0]);
        return 64;
    }
    const long n = argc > 2 ? std::atol(argv[2]) : 200000;
    const long k = argc > 3 ? std::atol(argv[3]) : 0;
    try {
        const MagneticModel model("wmm2025", argv[1]);
        std::printf("library GeographicLib %s MagneticModel (%s, degree %d)\n",
                    GEOGRAPHICLIB_VERSION_STRING, model.Description().c_str(), model.Degree());

        double bestWall = 1e300, bestCPU = 1e300, checksum = 0;
        for (int run = 0; run < 3; ++run) {
            Sweep sweep;
            double sum = 0;
            const double w0 = seconds(CLOCK_MONOTONIC), c0 = seconds(CLOCK_THREAD_CPUTIME_ID);
            for (long i = 0; i < n; ++i) {
                const Elements e = evaluate(model, sweep.point());
                sum += e.D + e.F * 1e-6 + e.Fdot * 1e-6;
                sweep.next();
            }
            const double c1 = seconds(CLOCK_THREAD_CPUTIME_ID), w1 = seconds(CLOCK_MONOTONIC);
            bestWall = std::min(bestWall, w1 - w0);
            bestCPU = std::min(bestCPU, c1 - c0);
            checksum = sum;
        }
        std::printf("evaluations %ld\n", n);
        std::printf("ns_per_eval_wall %.1f\n", bestWall / double(n) * 1e9);
        std::printf("ns_per_eval_cpu %.1f\n", bestCPU / double(n) * 1e9);
        std::printf("checksum %.17g\n", checksum);
        for (const Point& p : kCheckPoints) printElements("check", p, evaluate(model, p));
        Sweep sweep;
        for (long i = 0; i < k; ++i, sweep.next()) printElements("sweep", sweep.point(), evaluate(model, sweep.point()), i);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "GeographicLib: %s\n", error.what());
        return 1;
    }
    return 0;
}
