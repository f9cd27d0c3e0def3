import Devices
import LocationCore
import Synchronization
import TestSupport
import Testing

/// `I2CSensorSource` in simulated time: the injected sleep advances a fake monotonic clock, ticks the simulator
/// once per chip output period, runs scripted fault injections at their times and stops the source at the end.
/// `run` executes on the test's own thread and returns when the script ends; nothing waits in real time.
@Suite("I2C sensor source", .ownThreads)
struct I2CSensorSourceTests {
    /// The fake clock and the script.
    final class SimulatedTime: Sendable {
        private struct State {
            var now: Int64 = 1_000_000_000
            var actions: [(at: Int64, run: @Sendable () -> Void)] = []
        }
        private let state = Mutex(State())
        let simulator: I2CSimulator
        let tickNanos: Int64
        let end: Int64
        let stop = Mutex<(@Sendable () -> Void)?>(nil)

        init(simulator: I2CSimulator, tickNanos: Int64, seconds: Double) {
            self.simulator = simulator; self.tickNanos = tickNanos
            end = 1_000_000_000 + Int64(seconds * 1e9)
        }

        var now: Int64 { state.withLock { $0.now } }

        /// Runs `action` when the clock reaches `seconds` after the start.
        func at(_ seconds: Double, _ action: @escaping @Sendable () -> Void) {
            state.withLock { $0.actions.append((1_000_000_000 + Int64(seconds * 1e9), action)) }
        }

        func sleep(_ nanoseconds: Int64) {
            let (old, new, due) = state.withLock { s -> (Int64, Int64, [@Sendable () -> Void]) in
                let old = s.now
                s.now += max(nanoseconds, 1)
                let due = s.actions.filter { $0.at <= s.now }.map(\.run)
                s.actions.removeAll { $0.at <= s.now }
                return (old, s.now, due)
            }
            simulator.tick(Int(new / tickNanos - old / tickNanos))
            for action in due { action() }
            if new >= end { stop.withLock { $0?() } }
        }
    }

    /// Runs a source on `sim` for `seconds` of simulated time with a script.
    static func run(_ sim: I2CSimulator, address: UInt16 = 0x1E, chip: I2CChip? = .lis3mdl, tickNanos: Int64 = 12_500_000,
                    seconds: Double, script: (SimulatedTime) -> Void = { _ in }) -> (I2CSensorSource, SourceRecorder) {
        let time = SimulatedTime(simulator: sim, tickNanos: tickNanos, seconds: seconds)
        let source = I2CSensorSource(name: "imu0", bus: sim, address: address, chip: chip,
                                     clock: { time.now }, sleep: { time.sleep($0) })
        time.stop.withLock { $0 = { source.stop() } }
        script(time)
        let sink = SourceRecorder(clock: { time.now })
        source.run(sourceID: 3, sink: sink)
        return (source, sink)
    }

    static let second: Int64 = 1_000_000_000
    static func t(_ seconds: Double) -> Int64 { second + Int64(seconds * 1e9) }

    @Test func deliversStampedSamplesAtTheChipRate() throws {
        let sim = I2CTest.bus([(0x1E, SimulatedChips.lis3mdl([3421, 0, -3421]))])
        let (source, sink) = Self.run(sim, seconds: 1)
        #expect(sink.states == [.starting, .available, .finished])
        #expect(sink.statuses[1].message == "LIS3MDL at 0x1e on sim-i2c: magnetometer at 80 Hz")
        let times = sink.sampleTimes()
        // 80 Hz for 1 s (the first tick is one period in).
        #expect((78...80).contains(times.count), "\(times.count) samples")
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 6_250_000 && $1 - $0 <= 18_750_000 })
        if case .event(let e) = sink.all[2], case .motion(let m) = e.payload {
            #expect(m == .magnetometerRaw(RawSample(x: 3421, y: 0, z: -3421, scale: 100.0 / 6842)))
        } else {
            Issue.record("third entry is not a sample: \(sink.all[2])")
        }
        #expect(source.statistics.samples == times.count)
        #expect(source.captureAttributes == ["kind": "magnetometer", "chip": "LIS3MDL", "device": "sim-i2c", "address": "0x1e"])
    }

    @Test func eioReportsUnavailableOnceThenRecoversAndSamplesResume() throws {
        let sim = I2CTest.bus([(0x1E, SimulatedChips.lis3mdl([1, 2, 3]))])
        let (source, sink) = Self.run(sim, seconds: 2) { time in
            time.at(0.5) { sim.failNext(3, with: .io) }
        }
        #expect(sink.states == [.starting, .available, .unavailable, .recovered, .finished])
        let outage = try #require(sink.statuses.first { $0.state == .unavailable })
        #expect(outage.message?.contains("I/O error") == true, "\(outage)")
        let down = try #require(sink.time(of: .unavailable)), up = try #require(sink.time(of: .recovered))
        #expect(down >= Self.t(0.5) && down < Self.t(0.52))
        // Backoff 0.1 s then 0.2 s (the second attempt's probe and its NACK check use up the other two EIOs).
        // The chip kept measuring through the EIOs, so data flows at the first poll after the re-init.
        #expect(up >= down + 300_000_000 && up < down + 320_000_000, "recovered after \(Double(up - down) / 1e6) ms")
        #expect(sink.sampleTimes(from: down, to: up).isEmpty)
        #expect(sink.sampleTimes(from: up).count >= 90, "80 Hz for the remaining 1.2 s")
        #expect(source.statistics.faults == 1 && source.statistics.configurations == 2)
        #expect(sim.faults.count == 3)
    }

    @Test func deviceGoneNacksRetriesWithBackoffAndReinitialisesWhenBack() throws {
        let sim = I2CTest.bus([(0x1E, SimulatedChips.lis3mdl([1, 2, 3]))])
        let (_, sink) = Self.run(sim, seconds: 4) { time in
            time.at(0.5) { sim.disconnect(0x1E) }
            time.at(1.5) { sim.reconnect(0x1E) }    // comes back power-cycled: CTRL_REG3 power-down again
        }
        #expect(sink.states == [.starting, .available, .unavailable, .recovered, .finished])
        let outage = try #require(sink.statuses.first { $0.state == .unavailable })
        #expect(outage.message?.hasPrefix("no acknowledge from 0x1e") == true, "\(outage)")
        // Retries while absent: at +0.1, +0.3, +0.7 s after the fault (backoff 0.1, 0.2, 0.4 s), each NACKed.
        let nacks = sim.faults.filter { $0.fault == .nack && $0.address == 0x1E }
        #expect(nacks.count >= 4, "\(nacks.count) NACKed transactions")
        // Recovered at the attempt after 1.5 s (0.5 + 0.1 + 0.2 + 0.4 + 0.8 = 2.0 s), with the init written again.
        let up = try #require(sink.time(of: .recovered))
        #expect(up >= Self.t(2.0) && up < Self.t(2.05))
        #expect(sim.writes(to: 0x1E).filter { $0 == [0x22, 0x00] }.count == 2, "CTRL_REG3 continuous written twice")
        #expect(sink.sampleTimes(from: up).count > 100)
    }

    @Test func stuckDataReadyIsAFaultAfterTenSamplePeriods() throws {
        let sim = I2CTest.bus([(0x1E, SimulatedChips.lis3mdl([1, 2, 3]))])
        let (source, sink) = Self.run(sim, seconds: 2) { time in
            time.at(0.5) { sim.setDataReadyStuck(0x1E, true) }
            time.at(1.0) { sim.setDataReadyStuck(0x1E, false) }
        }
        // One outage: re-initialising while the bit is still stuck does not count as recovered.
        #expect(sink.states == [.starting, .available, .unavailable, .recovered, .finished])
        let outage = try #require(sink.statuses.first { $0.state == .unavailable })
        #expect(outage.message?.contains("data-ready never set") == true, "\(outage)")
        let down = try #require(sink.time(of: .unavailable))
        let lastSample = try #require(sink.sampleTimes(to: down).last)
        // LIS3MDL at 80 Hz: 10 periods = 125 ms; detected at the first poll after that (polls every 6.25 ms).
        #expect(down - lastSample > 125_000_000 && down - lastSample <= 131_250_000, "\(Double(down - lastSample) / 1e6) ms")
        let up = try #require(sink.time(of: .recovered))
        #expect(up > Self.t(1.0))
        #expect(sink.sampleTimes(from: up).count > 50)
        #expect(source.statistics.faults == 1 && source.statistics.configurations >= 3)
    }

    @Test func chipIsIdentifiedWhenNotGiven() throws {
        let sim = I2CTest.bus([(0x1E, SimulatedChips.lis2mdl([100, 0, 0])), (0x19, SimulatedChips.lsm303Accelerometer())])
        let (source, sink) = Self.run(sim, chip: nil, tickNanos: 20_000_000, seconds: 0.5)
        #expect(sink.states == [.starting, .available, .finished])
        #expect(source.chip == .lsm303agrMagnetometer)
        #expect(source.captureAttributes["chip"] == "LSM303AGR-mag")
        #expect(sink.sampleTimes().count >= 20)
    }

    @Test func wrongChipIsReportedAndRetried() throws {
        let sim = I2CTest.bus([(0x1E, SimulatedChips.hmc5883l())])
        let (_, sink) = Self.run(sim, chip: .lis3mdl, seconds: 1)
        #expect(sink.states == [.starting, .unavailable, .finished])
        #expect(sink.statuses[1].message == "LIS3MDL not found at 0x1e on sim-i2c")
        // Probed again on every retry (WHO_AM_I 0x0F read each time).
        #expect(sim.log.filter { $0.register == 0x0F }.count >= 3)
    }

    @Test func permissionDeniedIsReportedAsDenied() {
        let time = SimulatedTime(simulator: I2CSimulator(), tickNanos: 10_000_000, seconds: 1)
        let source = I2CSensorSource(name: "imu0", busName: "i2c-1", address: 0x1E, chip: nil, settings: .default,
                                     clock: { time.now }, sleep: { time.sleep($0) },
                                     openBus: { () throws(I2CError) -> any I2CBus in throw .permissionDenied(path: "/dev/i2c-1") })
        time.stop.withLock { $0 = { source.stop() } }
        let sink = SourceRecorder(clock: { time.now })
        source.run(sourceID: 0, sink: sink)
        #expect(sink.states == [.starting, .denied, .finished])
        #expect(sink.statuses[1].message?.contains("group i2c") == true)
        #expect(source.captureAttributes["bus"] == "1")
    }
}
