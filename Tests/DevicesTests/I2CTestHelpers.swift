import Devices
import LocationCore
import TestSupport
import Testing

/// Shared helpers for the I2C tests.
enum I2CTest {
    /// A simulator with the given devices attached.
    static func bus(_ devices: [(UInt16, I2CSimulator.Device)]) -> I2CSimulator {
        let sim = I2CSimulator()
        for (address, device) in devices { sim.attach(device, at: address) }
        return sim
    }

    /// The SI vector of a raw sample.
    static func vector(_ sample: MotionSample) -> Vector3? {
        switch sample {
        case .magnetometerRaw(let r), .accelerometerRaw(let r), .gyroscopeRaw(let r): r.vector
        default: nil
        }
    }

    /// The single sample's SI vector is (x, y, z) within `tolerance`.
    static func expectVector(_ samples: [MotionSample], _ x: Double, _ y: Double, _ z: Double, tolerance: Double = 1e-9,
                             sourceLocation: SourceLocation = #_sourceLocation) {
        guard samples.count == 1, let v = vector(samples[0]) else {
            Issue.record("expected one raw sample, got \(samples)", sourceLocation: sourceLocation)
            return
        }
        #expect(abs(v.x - x) <= tolerance && abs(v.y - y) <= tolerance && abs(v.z - z) <= tolerance,
                "got (\(v.x), \(v.y), \(v.z)), expected (\(x), \(y), \(z))", sourceLocation: sourceLocation)
    }

    static func expectVector(_ sample: MotionSample?, _ x: Double, _ y: Double, _ z: Double, tolerance: Double = 1e-9,
                             sourceLocation: SourceLocation = #_sourceLocation) {
        expectVector(sample.map { [$0] } ?? [], x, y, z, tolerance: tolerance, sourceLocation: sourceLocation)
    }
}

extension Array where Element == MotionSample {
    var magnetometer: MotionSample? { first { if case .magnetometerRaw = $0 { true } else { false } } }
    var accelerometer: MotionSample? { first { if case .accelerometerRaw = $0 { true } else { false } } }
    var gyroscope: MotionSample? { first { if case .gyroscopeRaw = $0 { true } else { false } } }
}
