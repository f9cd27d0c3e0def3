import Foundation
import LocationCore
import NMEA
import Testing
import TestSupport
@testable import Capture
@testable import Simulation

/// A simulated capture read back: the truth rows, the raw bytes and every event.
private struct SimulatedCapture {
    var settings: RouteSimulator.Settings
    var truth: [RouteSimulator.TruthSample]
    var bytes: [UInt8]
    var events: [SensorEvent]
    var reader: LodestarCaptureReader

    /// Seconds since the first epoch for a monotonic stamp.
    func seconds(_ monotonicNanos: Int64) -> Double {
        Double(monotonicNanos - RouteSimulator.monotonicOrigin) / 1e9
    }

    var nmea: [(t: Int64, bytes: [UInt8])] {
        events.compactMap { e in
            if case .nmea(let b) = e.payload, let t = e.monotonicNanos { return (t, b) }
            return nil
        }
    }

    func samples(magnetometer: Bool) -> [(t: Int64, raw: RawSample)] {
        events.compactMap { e in
            guard case .motion(let m) = e.payload, let t = e.monotonicNanos else { return nil }
            switch m {
            case .magnetometerRaw(let r) where magnetometer: return (t, r)
            case .accelerometerRaw(let r) where !magnetometer: return (t, r)
            default: return nil
            }
        }
    }

    /// Sentence texts (checksum verified by the framer) in capture order.
    var sentences: [String] {
        let framer = NMEAFramer()
        var out: [String] = []
        for record in nmea { framer.feed(record.bytes) { out.append($0.text) } }
        framer.finish { out.append($0.text) }
        return out
    }
}

private func simulate(_ settings: RouteSimulator.Settings = .default) throws -> SimulatedCapture {
    let dir = FileManager.default.temporaryDirectory
        .appendingPathComponent("lodestar-routesim-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("sim.lodestar").path
    let writer = try CaptureWriter(path: path)
    let truth = try RouteSimulator(settings: settings).write(to: writer)
    try writer.close()
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let reader = try LodestarCaptureReader(path: path)
    var events: [SensorEvent] = []
    while let e = try reader.next() { events.append(e) }
    return SimulatedCapture(settings: settings, truth: truth, bytes: bytes, events: events, reader: reader)
}

private func settings(seed: UInt64 = 1, duration: Double) -> RouteSimulator.Settings {
    var s = RouteSimulator.Settings.default
    s.seed = seed
    s.durationSeconds = duration
    return s
}

/// Fields of an NMEA sentence without the checksum ("$GPRMC,..." → ["$GPRMC", ...]).
private func fields(_ sentence: String) -> [Substring] {
    let body = sentence.split(separator: "*", maxSplits: 1).first ?? ""
    return body.split(separator: ",", omittingEmptySubsequences: false)
}

private func seconds(_ row: RouteSimulator.TruthSample, _ s: RouteSimulator.Settings) -> Double {
    Double(row.time.nanosecondsSince1970 - s.start.nanosecondsSince1970) / 1e9
}

private func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(max(1, values.count)) }

/// Flat-earth distance in metres (fine over a few hundred metres).
private func distance(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
    let dLat = (b.0 - a.0) * 111_000
    let dLon = (b.1 - a.1) * 111_000 * cos(a.0 * Double.pi / 180)
    return (dLat * dLat + dLon * dLon).squareRoot()
}

@Suite("RouteSimulator", .ownThreads)
struct RouteSimulatorTests {
    @Test("same seed gives identical bytes, another seed different noise on the same drive")
    func determinism() throws {
        let a = try simulate(settings(seed: 7, duration: 60))
        let b = try simulate(settings(seed: 7, duration: 60))
        let c = try simulate(settings(seed: 8, duration: 60))
        #expect(a.bytes.count > 10_000)
        #expect(a.bytes == b.bytes)
        #expect(a.truth == b.truth)
        #expect(a.bytes != c.bytes)
        // The seed drives noise only: the drive itself is the same.
        #expect(a.truth == c.truth)
        #expect(a.truth.count == 60)
        let noteA = a.reader.header.value(for: "note"), noteC = c.reader.header.value(for: "note")
        #expect(noteA == "simulated by lodestar simulate seed=7")
        #expect(noteC == "simulated by lodestar simulate seed=8")
    }

    @Test("header: magic, created, clock, sources and the injected effects")
    func header() throws {
        let cap = try simulate(settings(duration: 30))
        let text = String(decoding: cap.bytes.prefix(1000), as: UTF8.self)
        #expect(text.hasPrefix("#!lodestar-capture 1\n# created: 2025-06-01T12:00:00Z\n"))
        #expect(cap.reader.header.referenceDate == CivilDate(year: 2025, month: 6, day: 1))
        #expect(cap.reader.clockMonotonicNanos == 1_000_000_000)
        #expect(cap.reader.clockUTC == Timestamp(year: 2025, month: 6, day: 1, hour: 12))
        #expect(cap.reader.sources[0]?.attributes["kind"] == "nmea")
        #expect(cap.reader.sources[0]?.attributes["device"] == "simulated")
        #expect(cap.reader.sources[1]?.attributes["kind"] == "imu")
        #expect(cap.reader.sources[1]?.attributes["chip"] == "LIS3MDL+LSM303AGR-accel")
        #expect(cap.reader.sources[1]?.attributes["mounting"] == "identity")
        let sim = LodestarCaptureReader.attributes(cap.reader.header.value(for: "simulation") ?? "")
        #expect(sim["hard_iron_uT"] == "12,-8,5")
        #expect(sim["interference_start_s"] == "200")
        #expect(sim["interference_duration_s"] == "5")
        #expect(sim["interference_uT"] == "0,0,-40")
        #expect(sim["stop_start_s"] == "120")
        #expect(sim["stop_duration_s"] == "60")
        #expect(sim["earth_field_ned_uT"] == "22.6,5,41.8")
        // Every record carries a UTC stamp through the clock header; the first epoch's RMC says 120000.00.
        #expect(cap.truth.first?.time == cap.settings.start)
        let firstRMC = cap.sentences.first { $0.hasPrefix("$GPRMC") }
        #expect(firstRMC.map { fields($0)[1] } == "120000.00")
        #expect(firstRMC.map { fields($0)[9] } == "010625")
    }

    @Test("records are in time order, every N record is one sentence with a valid checksum")
    func nmeaRecords() throws {
        let cap = try simulate()
        #expect(cap.reader.statistics.rejections.total == 0)
        #expect(cap.reader.statistics.recordsAccepted == cap.events.count)
        let stamps = cap.events.compactMap(\.monotonicNanos)
        #expect(stamps.count == cap.events.count)
        #expect(stamps.first.map { $0 >= 1_000_000_000 } == true)
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(cap.events.isNonEmptyAndAllSatisfy { e in
            if case .nmea = e.payload { return e.sourceID == 0 } else { return e.sourceID == 1 }
        })

        let records = cap.nmea
        let framer = NMEAFramer()
        var texts: [String] = []
        for r in records {
            var inRecord = 0
            framer.feed(r.bytes) { texts.append($0.text); inRecord += 1 }
            #expect(inRecord == 1, "record must hold exactly one sentence")
            #expect(r.bytes.suffix(2) == [0x0D, 0x0A])
        }
        framer.finish { _ in Issue.record("unterminated sentence") }
        #expect(framer.statistics.totalRejected == 0)
        #expect(framer.statistics.garbageBytes == 0)
        #expect(framer.statistics.framed == records.count)

        // 300 epochs of RMC, GGA, GSA; GSV every 5th epoch as 3 sentences (12 satellites).
        func count(_ prefix: String) -> Int { texts.filter { $0.hasPrefix(prefix) }.count }
        #expect(count("$GPRMC,") == 300)
        #expect(count("$GPGGA,") == 300)
        #expect(count("$GPGSA,") == 300)
        #expect(count("$GPGSV,") == 60 * 3)
        #expect(records.count == 300 * 3 + 60 * 3)

        // Sentences of one epoch come a few ms apart, the burst starting 45–55 ms after the epoch.
        let gaps = zip(records, records.dropFirst()).map { $1.t - $0.t }.filter { $0 < 500_000_000 }
        #expect(gaps.isNonEmptyAndAllSatisfy { $0 >= 2_000_000 && $0 <= 10_000_000 })
        for r in records where String(decoding: r.bytes, as: UTF8.self).hasPrefix("$GPRMC") {
            let intoSecond = (r.t - RouteSimulator.monotonicOrigin) % 1_000_000_000
            #expect((45_000_000...65_000_000).contains(intoSecond))
        }

        // GGA: quality 1, 10 satellites used, HDOP in 0.9…1.3, altitude near 32 m, geoid -32.
        for gga in texts.filter({ $0.hasPrefix("$GPGGA") }) {
            let f = fields(gga)
            #expect(f[6] == "1" && f[7] == "10")
            let hdop = Double(f[8]) ?? -1
            #expect(hdop >= 0.9 && hdop <= 1.3)
            let alt = Double(f[9]) ?? -1000
            #expect(abs(alt - 32) < 25)
            #expect(f[11] == "-32.0")
        }
    }

    @Test("IMU sample count is duration × rate, counts are 16-bit with the documented scales")
    func imuCounts() throws {
        let cap = try simulate()
        let mag = cap.samples(magnetometer: true), acc = cap.samples(magnetometer: false)
        let expected = Int(cap.settings.durationSeconds * cap.settings.imuRateHz)
        #expect(abs(mag.count - expected) <= 1)
        #expect(abs(acc.count - expected) <= 1)
        #expect(mag.isNonEmptyAndAllSatisfy { $0.raw.scale == 100.0 / 6842.0 })
        #expect(acc.isNonEmptyAndAllSatisfy { $0.raw.scale == 0.061e-3 * 9.80665 })
        for s in mag + acc {
            #expect([s.raw.x, s.raw.y, s.raw.z].allSatisfy { (-32768...32767).contains($0) })
        }
        // Sample spacing is 20 ms give or take the read jitter.
        let spacing = zip(acc, acc.dropFirst()).map { $1.t - $0.t }
        #expect(spacing.isNonEmptyAndAllSatisfy { abs($0 - 20_000_000) < 400_000 })

        let fast = try simulate({ var s = settings(duration: 20); s.imuRateHz = 100; s.gnssRateHz = 5; return s }())
        #expect(abs(fast.samples(magnetometer: true).count - 2000) <= 1)
        #expect(fast.truth.count == 100)
        #expect(fast.sentences.filter { $0.hasPrefix("$GPRMC") }.count == 100)
    }

    @Test("a circle fit of the magnetometer recovers the hard iron; calibrated heading matches the truth")
    func hardIron() throws {
        let cap = try simulate()
        let s = cap.settings
        let clean = cap.samples(magnetometer: true).filter {
            let t = cap.seconds($0.t)
            return t < s.interferenceStartSeconds - 0.1 || t > s.interferenceStartSeconds + s.interferenceDurationSeconds + 0.1
        }.map { $0.raw.vector }
        #expect(clean.count > 14_000)
        // Kåsa fit: x² + y² = 2a·x + 2b·y + c, normal equations solved by Cramer's rule.
        var m = [[Double]](repeating: [0, 0, 0], count: 3), r = [0.0, 0.0, 0.0]
        for v in clean {
            let row = [2 * v.x, 2 * v.y, 1.0], rhs = v.x * v.x + v.y * v.y
            for i in 0..<3 {
                r[i] += row[i] * rhs
                for j in 0..<3 { m[i][j] += row[i] * row[j] }
            }
        }
        func det(_ a: [[Double]]) -> Double {
            a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
        }
        func replaced(_ col: Int) -> [[Double]] { var a = m; for i in 0..<3 { a[i][col] = r[i] }; return a }
        let d = det(m)
        let cx = det(replaced(0)) / d, cy = det(replaced(1)) / d, c = det(replaced(2)) / d
        let radius = (c + cx * cx + cy * cy).squareRoot()
        let earth = s.earthFieldNEDMicrotesla
        #expect(abs(cx - 12) < 0.5, "hard iron x \(cx)")
        #expect(abs(cy - -8) < 0.5, "hard iron y \(cy)")
        #expect(abs(radius - (earth.x * earth.x + earth.y * earth.y).squareRoot()) < 0.5, "radius \(radius)")
        // Level vehicle: z is −D plus the hard iron.
        #expect(abs(mean(clean.map(\.z)) + earth.z - 5) < 0.2)
        // The raw mean is nowhere near the hard iron, the fit is needed (the drive is not a uniform circle).
        #expect(abs(mean(clean.map(\.x)) - 12) > 1 || abs(mean(clean.map(\.y)) + 8) > 1)

        // Heading from the hard-iron-corrected field plus declination equals the true heading.
        let declination = atan2(earth.y, earth.x) * 180 / Double.pi
        let mag = cap.samples(magnetometer: true)
        var errors: [Double] = []
        for (k, row) in cap.truth.enumerated() where !row.interference {
            let index = k * Int(s.imuRateHz / s.gnssRateHz)
            #expect(abs(cap.seconds(mag[index].t) - Double(k) / s.gnssRateHz) < 0.001)
            let b = mag[index].raw.vector - s.hardIronMicrotesla
            let heading = atan2(b.y, b.x) * 180 / Double.pi + declination
            errors.append(abs(Angle.differenceDegrees(heading, row.headingDegrees)))
        }
        #expect(errors.count == 295)
        #expect(errors.max() ?? 99 < 5)
        #expect(mean(errors) < 1.5)
        // The drive shows every heading (the loop), in 30° bins.
        let bins = Set(cap.truth.map { Int($0.headingDegrees / 30) })
        #expect(bins.count == 12)
    }

    @Test("interference window: |B| jumps by about the injected 40 µT, the truth flags exactly those epochs")
    func interference() throws {
        let cap = try simulate()
        let s = cap.settings
        let mag = cap.samples(magnetometer: true).map { (t: cap.seconds($0.t), b: $0.raw.vector.norm) }
        let before = mag.filter { $0.t >= 190 && $0.t < 199.9 }.map(\.b)
        let during = mag.filter { $0.t >= 200.1 && $0.t < 204.9 }.map(\.b)
        // Still on the same straight leg (the S-bend starts at 206 s).
        let after = mag.filter { $0.t >= 205.1 && $0.t < 206 }.map(\.b)
        #expect(before.count > 400 && during.count > 200 && after.count > 40)
        let jump = mean(during) - mean(before)
        #expect(jump > 30 && jump < 50, "jump \(jump)")
        #expect(abs(mean(after) - mean(before)) < 1)
        // Minus the hard iron, every sample outside the window lies on the earth-field sphere; inside it only
        // after also removing the injected field.
        let total = s.earthFieldNEDMicrotesla.norm
        var misplaced = 0, inside = 0
        for sample in cap.samples(magnetometer: true) {
            let t = cap.seconds(sample.t)
            let disturbed = t >= s.interferenceStartSeconds
                && t < s.interferenceStartSeconds + s.interferenceDurationSeconds
            let b = sample.raw.vector - s.hardIronMicrotesla
            let onSphere = abs((disturbed ? b - s.interferenceMicrotesla : b).norm - total) < 2.5
            let offSphere = abs((disturbed ? b : b - s.interferenceMicrotesla).norm - total) > 10
            if !(onSphere && offSphere) { misplaced += 1 }
            if disturbed { inside += 1 }
        }
        #expect(misplaced == 0)
        #expect(inside == 250)
        let flagged = cap.truth.filter(\.interference).map { seconds($0, s) }
        #expect(flagged == [200, 201, 202, 203, 204])
    }

    @Test("the stop: truth speed 0 and position still, reported speeds small while positions wander")
    func stop() throws {
        let cap = try simulate()
        let s = cap.settings
        let stopped = cap.truth.filter { let t = seconds($0, s); return t >= 120 && t <= 180 }
        #expect(stopped.count == 61)
        #expect(stopped.isNonEmptyAndAllSatisfy { $0.speedMetersPerSecond == 0 && $0.stationary })
        #expect(Set(stopped.map { "\($0.latitudeDegrees),\($0.longitudeDegrees)" }).count == 1)
        // Parked at the start too, moving everywhere else.
        #expect(cap.truth.filter(\.stationary).map { seconds($0, s) } == [0, 1, 2] + (120...180).map(Double.init))
        #expect(cap.truth.isNonEmptyAndAllSatisfy { $0.speedMetersPerSecond >= 0 && $0.speedMetersPerSecond <= 15 })
        #expect(cap.truth.contains { $0.speedMetersPerSecond > 12.9 })

        // Reported RMC speed/position per epoch (RMC order = epoch order).
        let rmc = cap.sentences.filter { $0.hasPrefix("$GPRMC") }.map(fields)
        #expect(rmc.count == cap.truth.count)
        func coordinate(_ value: Substring, _ hemi: Substring, degreeDigits: Int) -> Double {
            let deg = Double(value.prefix(degreeDigits)) ?? .nan, minutes = Double(value.dropFirst(degreeDigits)) ?? .nan
            return (deg + minutes / 60) * (hemi == "S" || hemi == "W" ? -1 : 1)
        }
        var stoppedSpeeds: [Double] = [], stoppedPositions: [(Double, Double)] = []
        var positionErrors: [Double] = []
        for (row, f) in zip(cap.truth, rmc) {
            #expect(f[2] == "A")
            let speed = (Double(f[7]) ?? .nan) * 0.514_444
            let position = (coordinate(f[3], f[4], degreeDigits: 2), coordinate(f[5], f[6], degreeDigits: 3))
            positionErrors.append(distance((row.latitudeDegrees, row.longitudeDegrees), position))
            if row.stationary {
                stoppedSpeeds.append(speed)
                if seconds(row, s) >= 120 { stoppedPositions.append(position) }
            } else if row.speedMetersPerSecond > 5 {
                #expect(abs(speed - row.speedMetersPerSecond) < 0.4)
                let course = Double(f[8]) ?? .nan
                #expect(abs(Angle.differenceDegrees(course, row.courseDegrees)) < 5)
            }
        }
        #expect(stoppedSpeeds.isNonEmptyAndAllSatisfy { $0 < 0.4 })
        #expect(stoppedSpeeds.contains { $0 > 0 }, "a parked receiver still reports some speed")
        // Noise keeps wandering while parked: not one fixed point, but within ~15 m of the truth.
        #expect(Set(stoppedPositions.map { "\($0.0),\($0.1)" }).count > 30)
        let center = (mean(stoppedPositions.map(\.0)), mean(stoppedPositions.map(\.1)))
        #expect(stoppedPositions.isNonEmptyAndAllSatisfy { distance(center, $0) < 15 })
        // Overall error: about √(1.5² + 2²)·√2 ≈ 3.5 m RMS horizontally; never absurd.
        let rms = (positionErrors.map { $0 * $0 }.reduce(0, +) / Double(positionErrors.count)).squareRoot()
        #expect(rms > 1.5 && rms < 7, "rms \(rms)")
        #expect(positionErrors.isNonEmptyAndAllSatisfy { $0 < 20 })
    }

    @Test("accelerometer: gravity on +z at rest, centripetal force on −y in right turns, +y in left turns")
    func accelerometerFrame() throws {
        let cap = try simulate()
        let s = cap.settings
        let acc = cap.samples(magnetometer: false).map { (t: cap.seconds($0.t), f: $0.raw.vector) }
        let parked = acc.filter { $0.t > 121 && $0.t < 179 }.map(\.f)
        #expect(abs(mean(parked.map(\.z)) - 9.80665) < 0.01)
        #expect(abs(mean(parked.map(\.x))) < 0.01 && abs(mean(parked.map(\.y))) < 0.01)
        // Heading rate from consecutive truth rows.
        var right: [Double] = [], left: [Double] = [], straight: [Double] = []
        for (a, b) in zip(cap.truth, cap.truth.dropFirst()) where !a.stationary && !b.stationary {
            let rate = Angle.differenceDegrees(b.headingDegrees, a.headingDegrees)
            let t0 = seconds(a, s), t1 = seconds(b, s)
            let lateral = mean(acc.filter { $0.t >= t0 && $0.t < t1 }.map(\.f.y))
            if rate > 8 { right.append(lateral) } else if rate < -8 { left.append(lateral) }
            else if abs(rate) < 0.01 { straight.append(lateral) }
        }
        #expect(right.count > 5 && left.count > 5 && straight.count > 50)
        #expect(right.isNonEmptyAndAllSatisfy { $0 < -0.5 })
        #expect(left.isNonEmptyAndAllSatisfy { $0 > 0.5 })
        #expect(abs(mean(straight)) < 0.05)
        // Accelerating from the stop reads +x, braking into it −x.
        #expect(mean(acc.filter { $0.t > 183 && $0.t < 189 }.map(\.f.x)) > 1)
        #expect(mean(acc.filter { $0.t > 111 && $0.t < 117 }.map(\.f.x)) < -1)
    }

    @Test("the truth is a plausible drive: speeds and headings agree with the positions")
    func plausibleRoute() throws {
        let cap = try simulate()
        for (a, b) in zip(cap.truth, cap.truth.dropFirst()) {
            let step = distance((a.latitudeDegrees, a.longitudeDegrees), (b.latitudeDegrees, b.longitudeDegrees))
            let average = (a.speedMetersPerSecond + b.speedMetersPerSecond) / 2
            #expect(abs(step - average) < 0.05 * average + 0.05, "step \(step) m at \(a.time)")
            #expect(abs(Angle.differenceDegrees(b.headingDegrees, a.headingDegrees)) < 20)
            #expect(a.courseDegrees == a.headingDegrees)
        }
        let start = cap.truth[0]
        #expect(abs(start.latitudeDegrees - 37.3861) < 1e-9 && abs(start.longitudeDegrees - -122.0839) < 1e-9)
        #expect(cap.truth.isNonEmptyAndAllSatisfy {
            distance((37.3861, -122.0839), ($0.latitudeDegrees, $0.longitudeDegrees)) < 3000
        })
    }

    @Test("truth CSV: a header line and one line per row")
    func truthCSV() throws {
        let cap = try simulate(settings(duration: 5))
        let csv = RouteSimulator.truthCSV(cap.truth)
        let lines = csv.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "time,latitude_deg,longitude_deg,speed_mps,course_deg,heading_deg,stationary,interference")
        #expect(lines.count == cap.truth.count + 2 && lines.last == "")
        #expect(lines[1] == "2025-06-01T12:00:00.000Z,37.38610000,-122.08390000,0.000,40.00,40.00,1,0")
        #expect(lines[1...5].allSatisfy { $0.split(separator: ",").count == 8 })
    }

    @Test("edge settings: no stop, zero duration, GNSS only, saturation, a stop too early to drive")
    func edgeSettings() throws {
        var noStop = settings(duration: 200)
        noStop.stopDurationSeconds = 0
        let a = try simulate(noStop)
        #expect(a.truth.filter(\.stationary).count == 3)
        #expect(a.reader.statistics.rejections.total == 0)

        let empty = try simulate(settings(duration: 0))
        #expect(empty.truth.isEmpty && empty.events.isEmpty)
        #expect(String(decoding: empty.bytes, as: UTF8.self).hasPrefix("#!lodestar-capture 1\n"))

        var gnssOnly = settings(duration: 10)
        gnssOnly.imuRateHz = 0
        let g = try simulate(gnssOnly)
        #expect(g.truth.count == 10 && g.samples(magnetometer: true).isEmpty)
        #expect(g.nmea.count == 10 * 3 + 2 * 3)

        // Counts saturate at the 16-bit limits like a real sensor instead of wrapping.
        var saturated = settings(duration: 2)
        saturated.hardIronMicrotesla = Vector3(x: 600, y: -600, z: 0)
        let mag = try simulate(saturated).samples(magnetometer: true)
        #expect(mag.count == 100 && mag.allSatisfy { $0.raw.x == 32767 && $0.raw.y == -32768 })

        var earlyStop = settings(duration: 60)
        earlyStop.stopStartSeconds = 5
        earlyStop.stopDurationSeconds = 10
        let e = try simulate(earlyStop)
        #expect(e.truth.prefix(16).allSatisfy { $0.stationary })
        #expect(e.truth.contains { !$0.stationary })
    }
}

@Suite("RouteSimulator: harder conditions", .ownThreads)
struct RouteSimulatorHarderTests {
    @Test func gyroscopeOutagesAndHardIronChange() throws {
        var s = RouteSimulator.Settings.default
        s.durationSeconds = 60
        s.gyroscope = true
        s.gnssOutages = [(20, 10)]
        s.hardIronChangeSeconds = 40
        let cap = try simulate(s)
        let gyro = cap.events.filter { if case .motion(.gyroscopeRaw) = $0.payload { return true }; return false }
        #expect(gyro.count == 3000)
        // Parked at the start: the gyroscope reads its bias (0.3, −0.2, 0.4) °/s, within noise.
        if case .motion(.gyroscopeRaw(let r)) = gyro[10].payload {
            #expect(abs(r.vector.z * 180 / .pi - 0.4) < 0.25)
        }
        let nmeaSeconds = cap.nmea.map { cap.seconds($0.t) }
        #expect(!nmeaSeconds.contains { $0 >= 20.2 && $0 < 30 })
        #expect(nmeaSeconds.contains { $0 >= 30 && $0 < 31 })
        #expect(cap.truth.count == 60)
        // The hard iron jumps by (−18, 18, −9) µT at 40 s: the mean field moves by about that much.
        let mags = cap.samples(magnetometer: true)
        func mean(_ from: Double, _ to: Double) -> Vector3 {
            let v = mags.filter { cap.seconds($0.t) >= from && cap.seconds($0.t) < to }.map(\.raw.vector)
            return v.reduce(Vector3.zero, +) * (1 / Double(v.count))
        }
        let jump = mean(40, 42) - mean(38, 40)
        #expect(abs(jump.z + 9) < 1.5, "\(jump)")
    }

    @Test func hillsTiltTheAccelerometer() throws {
        var s = RouteSimulator.Settings.default
        s.durationSeconds = 120
        s.hillAmplitudeDegrees = 5
        s.stopDurationSeconds = 0
        let cap = try simulate(s)
        let truth = SimulatedTruth(settings: s)
        let acc = cap.samples(magnetometer: false)
        // Cruising straight 15–29 s (no along-track acceleration): 1 s means of the accelerometer's pitch follow
        // the road's.
        var compared = 0
        for start in stride(from: 15.0, to: 29, by: 1) {
            let v = acc.filter { cap.seconds($0.t) >= start && cap.seconds($0.t) < start + 1 }.map(\.raw.vector)
            let m = v.reduce(Vector3.zero, +) * (1 / Double(v.count))
            let pitch = atan2(m.x, m.z) * 180 / .pi
            #expect(abs(pitch - truth.pitchDegrees(atSeconds: start + 0.5)) < 0.5, "at \(start) s")
            compared += 1
        }
        #expect(compared == 14)
        let road = stride(from: 0.0, to: 120, by: 1).map { truth.pitchDegrees(atSeconds: $0) }
        #expect((road.max() ?? 0) > 4.5 && (road.min() ?? 0) < -4.5)
    }
}
