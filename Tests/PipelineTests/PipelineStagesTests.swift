import Capture
import Events
import LocationCore
import Pipeline
import Testing
import TestSupport
import UBX

/// The pipeline as a row of stages (issue 12 item 4): each stage's snapshot agrees with what actually came out of
/// the pipeline, and taking snapshots changes nothing.
@Suite("Pipeline stages", .ownThreads)
struct PipelineStagesTests {
    struct Run {
        var bytes: [UInt8]
        var fixes = 0, smoothed = 0, deadReckoned = 0, headings = 0
        /// Invalid headings at the end of the run, in a row.
        var trailingInvalidHeadings = 0
        var sky = 0
        var snapshot: Pipeline.Snapshot
    }

    /// The shipped simulated drive (NMEA receiver, magnetometer and accelerometer, a stop and an interference
    /// event), replayed into the pipeline between the two sources coming up and the magnetometer going away; with
    /// `snapshotEvery` > 0 a snapshot is taken every that many events.
    static func run(snapshotEvery: Int) throws -> Run {
        let reader = try CaptureDetector.open(path: SharedData.packageRoot.appendingPathComponent("captures/simulated-drive.lcap").path,
                                              format: nil)
        var settings = Pipeline.Settings()
        settings.availability.headingSourceNames = ["imu0"]
        settings.availability.locationSourceNames = ["gps0"]
        let sink = MemorySink()
        let pipeline = Pipeline(settings: settings, encoder: LodestarJSONEncoder(), sinks: [sink])
        var fixes = 0, headings = 0, invalid = 0, sky = 0
        pipeline.observer = { e in
            switch e {
            case .fix: fixes += 1
            case .heading(let h, _): headings += 1; invalid = h.headingAccuracyDegrees < 0 ? invalid + 1 : 0
            case .sky: sky += 1
            default: break
            }
        }
        var n = 0
        var snapshots = 0
        func status(_ source: String, _ state: StatusReport.State) {
            pipeline.process(SensorEvent(monotonicNanos: nil, sourceID: source == "gps0" ? 0 : 1,
                                         payload: .status(StatusReport(source: source, state: state))))
        }
        status("gps0", .available)
        status("imu0", .available)
        while let e = try reader.next() {
            pipeline.process(e)
            n += 1
            if snapshotEvery > 0, n % snapshotEvery == 0 { _ = pipeline.snapshot; snapshots += 1 }
        }
        status("imu0", .unavailable)
        pipeline.finish()
        #expect(snapshotEvery == 0 || snapshots > 10)
        let s = pipeline.snapshot
        return Run(bytes: sink.bytes, fixes: fixes, smoothed: s.smoothing.fixesSmoothed, deadReckoned: s.smoothing.fixesDeadReckoned,
                   headings: headings, trailingInvalidHeadings: invalid, sky: sky, snapshot: s)
    }

    @Test func snapshotsAgreeWithTheOutputAndChangeNothing() throws {
        let plain = try Self.run(snapshotEvery: 0)
        let watched = try Self.run(snapshotEvery: 7)
        #expect(!plain.bytes.isEmpty)
        #expect(plain.bytes == watched.bytes, "taking snapshots changed the output")

        let s = plain.snapshot
        // NMEA stage: sentences framed, and the one receiver source.
        #expect(s.nmea.statistics.framed > 1000)
        #expect(s.nmea.sources.count == 1)
        // Smoothing stage: on by default; every fix output is a smoothed, dead-reckoned or "no fix" one.
        #expect(s.smoothing.enabled)
        #expect(plain.fixes > 200)
        #expect(s.smoothing.fixesSmoothed > 0 && s.smoothing.fixesSmoothed <= plain.fixes)
        #expect(s.fixesEmitted == plain.fixes)
        // Heading stage: counts what was emitted, including the invalid heading when the sensor went away.
        #expect(s.heading.enabled)
        #expect(s.heading.headingsEmitted == plain.headings)
        #expect(plain.trailingInvalidHeadings == 1)
        #expect(s.heading.lastHeadingAccuracyDegrees == -1)
        #expect(s.heading.backgroundProgress != nil)
        // Availability stage: the receiver up, the magnetometer gone.
        #expect(s.availability.sourceAvailable == ["gps0": true, "imu0": false])
        #expect(s.availability.locationServicesEnabled == true && s.availability.headingAvailable == false)
        // Output stage: everything encoded reached the sink, nothing left buffered.
        #expect(s.output.bytesFlushed == plain.bytes.count)
        #expect(s.output.bufferedBytes == 0 && s.output.sinks == 1 && s.output.brokenSinks == 0)
        #expect(s.skyEmitted == plain.sky)
        #expect(!s.placemark.enabled && s.services == nil)
    }

    @Test func stagesWorkAlone() {
        // The smoothing stage without a smoother passes fixes through unchanged; with one, a fix without a position
        // and no history is output as parsed.
        var off = SmoothingStage.Settings()
        off.smoothing = nil
        let passThrough = SmoothingStage(settings: off)
        var fix = Location()
        fix.latitudeDegrees = 1; fix.longitudeDegrees = 2; fix.mode = .threeD; fix.time = Timestamp(year: 2025, month: 1, day: 1)
        #expect(passThrough.fix(fix, monotonicNanos: 0) == fix)
        #expect(passThrough.snapshot.fixesSmoothed == 0 && !passThrough.snapshot.enabled)
        let on = SmoothingStage(settings: SmoothingStage.Settings())
        var none = Location(); none.mode = .noFix; none.time = fix.time
        #expect(on.fix(none, monotonicNanos: 0) == none)
        #expect(on.fix(fix, monotonicNanos: 0)?.latitudeDegrees != nil)
        #expect(on.snapshot.fixesSmoothed == 1)

        // The heading stage with heading off ignores motion; a source lost before any heading reports nothing.
        var headingOff = HeadingStage.Settings()
        headingOff.heading = nil
        let h = HeadingStage(settings: headingOff)
        let out = h.motion(.magnetometer(fieldMicrotesla: Vector3(x: 20, y: 0, z: -40), biasMicrotesla: nil), monotonicNanos: 1, sampleTimeSeconds: nil)
        #expect(out.report == nil && out.calibrationNeeded == nil && out.refined == nil)
        #expect(h.sourceLost() == nil && !h.snapshot.enabled)

        // The NMEA stage hands a fix per cycle and, with emitSky off, no sky.
        var ns = NMEAStage.Settings()
        ns.emitSky = false
        let nmea = NMEAStage(settings: ns)
        var fixes = 0, sky = 0
        let text = Array("$GPGGA,120000.00,3723.1667,N,12205.0333,W,1,08,1.0,10.0,M,-30.0,M,,*6F\r\n$GPRMC,120000.00,A,3723.1667,N,12205.0333,W,0.0,0.0,010625,,,A*4B\r\n$GPGSV,1,1,01,01,45,090,40*45\r\n".utf8)
        let handle: (NMEAStage.Output) -> Void = { o in
            if case .epoch(.fix) = o { fixes += 1 }
            if case .epoch(.sky) = o { sky += 1 }
        }
        text.withUnsafeBufferPointer { nmea.feed($0, sourceID: 3, handle) }
        nmea.finish(handle)
        #expect(nmea.hasNMEA(from: 3) && !nmea.hasNMEA(from: 0))
        #expect(nmea.snapshot.sources == [3])
        #expect(nmea.snapshot.statistics.framed == 3)
        #expect(fixes == 1 && sky == 0)
    }

    /// A receiver that starts in NMEA and switches to UBX (gpsd's ublox8-uniqid-monhw log does this): the NMEA cycle
    /// still open when the first UBX solution arrives was sent before it and is output, not counted as superseded;
    /// NMEA fixes after it are superseded.
    @Test func theNMEACycleOpenWhenUBXTakesOverIsOutput() throws {
        func le<T: FixedWidthInteger>(_ p: inout [UInt8], _ o: Int, _ v: T) {
            withUnsafeBytes(of: v.littleEndian) { for (i, x) in $0.enumerated() { p[o + i] = x } }
        }
        // NAV-PVT at 2025-06-01 12:00:01 UTC (u-blox interface description offsets), then NAV-EOE.
        var p = [UInt8](repeating: 0, count: 92)
        le(&p, 0, UInt32(43_219_000)); le(&p, 4, UInt16(2025)); p[6] = 6; p[7] = 1; p[8] = 12; p[9] = 0; p[10] = 1
        p[11] = 0x07; p[20] = 3; p[21] = 0x01; p[23] = 9
        le(&p, 24, Int32(-1_220_838_883)); le(&p, 28, Int32(373_861_117)); le(&p, 40, UInt32(1500))
        var eoe = [UInt8](repeating: 0, count: 4)
        le(&eoe, 0, UInt32(43_219_000))
        let bytes = Array("$GPRMC,120000.00,A,3723.1667,N,12205.0333,W,0.0,0.0,010625,,,A*4B\r\n".utf8)
            + Array("$GPGGA,120000.00,3723.1667,N,12205.0333,W,1,08,1.0,10.0,M,-30.0,M,,*6F\r\n".utf8)
            + (try #require(UBX.frame(classID: 0x01, messageID: 0x07, payload: p)))
            + (try #require(UBX.frame(classID: 0x01, messageID: 0x61, payload: eoe)))
            + Array("$GPRMC,120001.00,A,3723.1667,N,12205.0333,W,0.0,0.0,010625,,,A*4A\r\n".utf8)
            + Array("$GPRMC,120002.00,A,3723.1667,N,12205.0333,W,0.0,0.0,010625,,,A*49\r\n".utf8)
        let nmea = NMEAStage(settings: NMEAStage.Settings())
        var times: [String] = []
        let handle: (NMEAStage.Output) -> Void = { o in
            if case .epoch(.fix(let l)) = o, let t = l.time { times.append(t.iso8601(fractionDigits: 0)) }
        }
        bytes.withUnsafeBufferPointer { nmea.feed($0, sourceID: 0, handle) }
        nmea.finish(handle)
        #expect(times == ["2025-06-01T12:00:00Z", "2025-06-01T12:00:01Z"], "the NMEA fix of 12:00:00, then UBX's: \(times)")
        #expect(nmea.nmeaFixesSuperseded == 2, "the RMC-only cycles of 12:00:01 and 12:00:02")
    }
}
