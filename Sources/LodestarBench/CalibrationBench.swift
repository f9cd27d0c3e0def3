#if canImport(Glibc)
import Glibc
#endif
import LocationCore
import Magnetics

/// Time of one calibration fit of 1,000 samples covering the sphere (the ellipsoid path of the ladder), best of 20.
enum CalibrationBenchmark {
    static func run() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func uniform() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        let hard = Vector3(x: 25, y: -12, z: 40)
        let soft = Matrix3(r0: Vector3(x: 1.08, y: 0.03, z: -0.02), r1: Vector3(x: 0.03, y: 0.95, z: 0.04),
                           r2: Vector3(x: -0.02, y: 0.04, z: 1.02))
        var samples: [Vector3] = []
        for _ in 0..<1000 {
            let z = 2 * uniform() - 1, a = 2 * Double.pi * uniform(), r = (1 - z * z).squareRoot()
            let direction = Vector3(x: r * cos(a), y: r * sin(a), z: z)
            let noise = Vector3(x: uniform() - 0.5, y: uniform() - 0.5, z: uniform() - 0.5) * 0.6
            samples.append(soft * (direction * 48) + hard + noise)
        }
        let fitter = CalibrationFitter()
        var best = Double.infinity
        var method = "failed"
        for _ in 0..<20 {
            let t0 = now()
            let result = try? fitter.fit(samples)
            best = min(best, now() - t0)
            if let result { method = "\(result.method), hard iron error \(String(format4: (result.calibration.hardIronMicrotesla - hard).norm)) µT" }
        }
        print("calibration fit of 1000 samples: \(String(format4: best * 1000)) ms best of 20 (\(method)) (target <= 5 ms)")
    }
}
