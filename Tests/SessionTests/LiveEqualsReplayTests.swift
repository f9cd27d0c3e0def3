import CLinux
import Devices
import Events
import Foundation
import LocationCore
import NMEA
import Session
import Synchronization
import Testing
import TestSupport
@testable import lodestar

/// A receiver on a pseudo-terminal: one RMC+GGA+GSA cycle every 100 ms, the receiver's clock advancing 1 s per
/// cycle along a straight northbound track, until stopped.
final class ReceiverFeeder: Sendable {
    private let running = Atomic<Bool>(true)
    private let finished = Atomic<Bool>(false)
    let cycles = Atomic<Int>(0)

    init(pty: PseudoTerminal, firstCycle: Int) {
        PosixThread.start(joinable: false) { [self] in
            var i = firstCycle
            while running.load(ordering: .acquiring) {
                pty.write(Self.cycle(i))
                cycles.add(1, ordering: .relaxed)
                i += 1
                PosixThread.sleep(nanos: 100_000_000)
            }
            finished.store(true, ordering: .releasing)
        }
    }

    func stop() {
        running.store(false, ordering: .releasing)
        while !finished.load(ordering: .acquiring) { PosixThread.sleep(nanos: 1_000_000) }
    }

    static func cycle(_ i: Int) -> [UInt8] {
        let s = 12 * 3600 + i
        let t = String(format: "%02d%02d%02d.00", s / 3600, s / 60 % 60, s % 60)
        let minutes = 7.038 + Double(i) * 0.0027 // ~5 m/s north
        let latText = String(format: "48%09.6f", minutes)
        var b: [UInt8] = []
        b += Array(NMEAEncoder.sentence("GPRMC,\(t),A,\(latText),N,01131.000,E,9.7,0.0,230324,,,A").utf8)
        b += Array(NMEAEncoder.sentence("GPGGA,\(t),\(latText),N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,").utf8)
        b += Array(NMEAEncoder.sentence("GPGSA,A,3,04,05,09,12,24,25,29,31,,,,,1.6,0.9,1.3").utf8)
        return b
    }
}

@Suite("Live equals replay", .serialized, .ownThreads)
struct LiveEqualsReplayTests {
    /// The project's promise, end to end: a live session — a receiver on a pseudo-terminal (unplugged and
    /// replugged) plus a simulated I2C magnetometer and accelerometer (with an interference burst and the
    /// magnetometer lost for a moment) — run through `lodestar run --record`'s session code gives, in every output
    /// format, byte for byte the stdout that the `lodestar replay` binary prints for its capture.
    @Test(.timeLimit(.minutes(10)))
    func liveSessionAndReplayOfItsCapturePrintTheSameBytes() throws {
        let dir = try TemporaryDirectory()
        let capture = dir.path("session.lcap")
        let link = dir.path("gps0")

        // Receiver.
        let first = try PseudoTerminal()
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: first.slavePath)
        var serialSettings = SerialSource.Settings()
        serialSettings.backoff = Backoff(initialNanos: 50_000_000, maximumNanos: 200_000_000)
        let receiver = SerialSource(name: "gps0", path: link, baud: .fixed(9600), settings: serialSettings)

        // Motion sensors: level board, field pointing north-east and down; ticks follow real time.
        let sim = I2CSimulator()
        let normalField: [Int32] = [150, -150, -400]
        sim.attach(SimulatedChips.hmc5883l(normalField), at: 0x1E)
        sim.attach(SimulatedChips.lsm303Accelerometer([0, 0, 1000]), at: 0x19)
        let bus = sim
        let sleepAndTick: I2CSensorSource.Sleep = { ns in PosixThread.sleep(nanos: ns); sim.tick() }
        let mag = I2CSensorSource(name: "imu0", bus: bus, address: 0x1E, chip: .hmc5883l, sleep: sleepAndTick)
        let accel = I2CSensorSource(name: "imu1", bus: bus, address: 0x19, chip: .lsm303agrAccelerometer, sleep: sleepAndTick)

        let queue = LiveEventQueue(sources: [receiver, mag, accel])
        let feeder1 = ReceiverFeeder(pty: first, firstCycle: 0)
        let start = PosixThread.monotonicNanos()
        func elapsed() -> Double { Double(PosixThread.monotonicNanos() - start) / 1e9 }

        // The script runs on its own thread while the session runs on this one.
        let scriptDone = Atomic<Bool>(false)
        let secondPTY = Mutex<PseudoTerminal?>(nil)
        let feeder2 = Mutex<ReceiverFeeder?>(nil)
        PosixThread.start(joinable: false) {
            func at(_ s: Double) { while Double(PosixThread.monotonicNanos() - start) / 1e9 < s { PosixThread.sleep(nanos: 5_000_000) } }
            at(1.5)   // interference: a magnet near the sensor
            sim.update(0x1E) { $0.sample = [1800, 900, -2400] }
            at(2.2)
            sim.update(0x1E) { $0.sample = normalField }
            at(2.6)   // the receiver is unplugged
            feeder1.stop()
            try? FileManager.default.removeItem(atPath: link)
            first.closeMaster()
            at(3.0)   // the magnetometer drops off the bus for a moment
            sim.detach(0x1E)
            at(3.6)
            sim.attach(SimulatedChips.hmc5883l(normalField), at: 0x1E)
            at(4.0)   // and the receiver is plugged in again (a new node behind the same link)
            if let second = try? PseudoTerminal() {
                try? FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: second.slavePath)
                secondPTY.withLock { $0 = second }
                feeder2.withLock { $0 = ReceiverFeeder(pty: second, firstCycle: 40) }
            }
            at(6.0)
            scriptDone.store(true, ordering: .releasing)
        }

        // Live: the `run` command's session, recording, with the main output (json) and one consumer per other format.
        // The simulated board lies still while the receiver reports 5 m/s: the hand-held estimator fits that scene
        // (the vehicle estimator is tested against drives in MagneticsTests and the CLI tests).
        let run = try Run.parse(["--gps", link, "--record", capture, "--quiet", "--platform", "handheld"])
        let liveJSON = MemorySink()
        let liveGpsd = EncodingConsumer(.gpsd, device: link)  // gpsd's `device`: the receiver's device, live and replayed
        let liveNMEA = EncodingConsumer(.nmea)
        _ = try run.runLive(queue: queue, options: run.outputOptions, mounting: nil, sinks: [liveJSON],
                            consumers: [liveGpsd, liveNMEA], shouldStop: { scriptDone.load(ordering: .acquiring) })
        feeder2.withLock { $0?.stop() }
        _ = secondPTY
        #expect(elapsed() >= 6)

        // The live session saw what the script did.
        let json = liveJSON.text
        let lines = json.split(separator: "\n")
        #expect(lines.count > 50)
        for needle in ["\"source\":\"gps0\",\"state\":\"unavailable\"", "\"source\":\"gps0\",\"state\":\"recovered\"",
                       "\"source\":\"imu0\",\"state\":\"unavailable\"", "\"source\":\"imu0\",\"state\":\"recovered\"",
                       "\"class\":\"availability\"", "\"headingAccuracyDegrees\":-1", "\"class\":\"fix\"",
                       "\"class\":\"heading\""] {
            #expect(json.contains(needle), "live output lacks \(needle)")
        }
        #expect(lines.contains { $0.contains("\"class\":\"heading\"") && !$0.contains("\"interference\":\"none\"") },
                "no heading flagged the interference")

        // Replay, with the binary, in every format: the same bytes.
        for (format, live) in [("json", liveJSON.bytes), ("gpsd", liveGpsd.bytes), ("nmea", liveNMEA.bytes)] {
            let replay = try Lodestar.run(["replay", "--quiet", "--output", format, capture])
            #expect(replay.status == 0, "\(format): \(replay.stderr)")
            #expect(!live.isEmpty)
            let liveText = String(decoding: live, as: UTF8.self)
            #expect(replay.stdout == liveText, "\(format): replay differs from live")
            if replay.stdout != liveText {
                let a = liveText.split(separator: "\n"), b = replay.stdout.split(separator: "\n")
                if let i = a.indices.first(where: { $0 < b.count && a[$0] != b[$0] }) {
                    Issue.record("\(format): first difference at line \(i):\nlive:   \(a[i])\nreplay: \(b[i])")
                } else {
                    Issue.record("\(format): live \(a.count) lines, replay \(b.count) lines")
                }
            }
        }
    }
}
