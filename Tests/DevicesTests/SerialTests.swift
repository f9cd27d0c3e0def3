#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Devices
import Foundation
import LocationCore
import LodestarIO
import NMEA
import Pipeline
import Events
import Synchronization
import Testing
import TestSupport

// MARK: - Shared helpers (also used by GPSDTests)

/// Runs a live source's blocking `run` on its own thread, as `LiveEventQueue` does.
final class LiveSourceThread: Sendable {
    let source: any LiveSource
    private let finished = Atomic<Bool>(false)
    /// When `run` returned (monotonic ns), stamped on the source's own thread: the stop latency measured below does
    /// not include how long the test's task waited for a cooperative thread on a loaded machine.
    private let finishedAt = Atomic<Int64>(0)

    /// `prologue` runs on the source's thread before `run` (e.g. per-thread credentials).
    init(_ source: any LiveSource, sourceID: Int = 0, sink: any SourceSink, prologue: (@Sendable () -> Void)? = nil) {
        self.source = source
        let thread = Thread { [self] in
            prologue?()
            source.run(sourceID: sourceID, sink: sink)
            finishedAt.store(clinux_monotonic_ns(), ordering: .relaxed)
            finished.store(true, ordering: .releasing)
        }
        thread.start()
    }

    var isRunning: Bool { !finished.load(ordering: .acquiring) }

    /// Calls `stop()` and returns how long `run` took to return after it, in seconds (nil: not within 30 s).
    @discardableResult
    func stop() async -> Double? {
        let start = clinux_monotonic_ns()
        source.stop()
        while isRunning {
            if clinux_monotonic_ns() - start > 30_000_000_000 { return nil }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return Double(finishedAt.load(ordering: .relaxed) - start) / 1e9
    }
}

enum ReceiverNMEA {
    static let rmc = NMEAEncoder.sentence("GPRMC,225308,A,4527.458,S,16709.165,E,000.0,094.5,060601,024.1,E")
    static let gga = NMEAEncoder.sentence("GPGGA,225308,4527.458,S,16709.165,E,2,05,2.1,14.7,M,1.1,M,,")
    /// One receiver cycle: RMC + GGA.
    static let cycle = Array((rmc + gga).utf8)

    static func textSentence(_ i: Int) -> [UInt8] { Array(NMEAEncoder.sentence("GPTXT,01,01,02,block \(i)").utf8) }

    /// Valid sentences framed in `bytes`.
    static func validCount(_ bytes: [UInt8]) -> Int {
        let framer = NMEAFramer()
        var n = 0
        framer.feed(bytes) { _ in n += 1 }
        return n
    }
}

// MARK: - Tests

@Suite("Serial port and serial source on real pseudo-terminals", .timeLimit(.minutes(10)), .ownThreads)
struct SerialTests {
    @Test func bytesFlowUnchangedWithMonotonicStamps() async throws {
        let pty = try PseudoTerminal()
        let sink = SourceRecorder()
        let source = SerialSource(name: "gps0", path: pty.slavePath, baud: .fixed(9600))
        let t0 = clinux_monotonic_ns()
        let runner = LiveSourceThread(source, sourceID: 3, sink: sink)
        // The port discards stale input when it opens (TCFLSH, as gpsd does), so bytes written before the open
        // may be dropped by design: prime with whole sentences until the source reports `available`, let the
        // priming bytes settle, then check that every byte written from then on arrives unchanged.
        var primed = false
        for i in 0..<50 where !primed {
            _ = pty.write(ReceiverNMEA.textSentence(100 + i))
            primed = await sink.wait(0.2) { $0.states.contains(.available) }
        }
        #expect(primed, "the source never became available")
        var settled = sink.nmeaBytes.count
        while await sink.wait(0.2, { $0.nmeaBytes.count > settled }) { settled = sink.nmeaBytes.count }
        var expected: [UInt8] = []
        for i in 0..<20 {
            let block = ReceiverNMEA.textSentence(i)
            expected += block
            #expect(pty.write(block) == block.count)
            try await Task.sleep(for: .milliseconds(5))
        }
        let allArrived = await sink.wait(5) { $0.nmeaBytes.count >= settled + expected.count }
        #expect(allArrived)
        let stopSeconds = await runner.stop()
        let t1 = clinux_monotonic_ns()

        #expect(Array(sink.nmeaBytes.dropFirst(settled)) == expected) // bytes exactly as written, any chunking
        let events = sink.events
        let stamps = events.compactMap(\.monotonicNanos)
        #expect(stamps.count == events.count)
        #expect(stamps == stamps.sorted())
        #expect(stamps.isNonEmptyAndAllSatisfy { $0 >= t0 && $0 <= t1 })
        // Monotonic only: the UTC is stamped in one place, the live event queue (from the session's clock pairing).
        #expect(events.isNonEmptyAndAllSatisfy { $0.sourceID == 3 && $0.utc == nil })
        #expect(sink.states == [.starting, .available])
        #expect(sink.statuses.isNonEmptyAndAllSatisfy { $0.source == "gps0" })
        #expect(source.state.available && source.state.authorization == .authorized)
        #expect(source.captureAttributes == ["kind": "nmea", "transport": "serial", "device": pty.slavePath, "baud": "9600"])
        let seconds = try #require(stopSeconds)
        // stop() must cut a poll or a backoff sleep (up to 5 s) short; designed for ~0.1 s, bounded at 1 s
        // because CI shares two cores with other tests (this checks the mechanism, not speed).
        #expect(seconds < 1.0, "run returned \(seconds) s after stop()")
    }

    /// termios2/BOTHER: any rate, set and read back on the pty slave (the pty driver stores c_ispeed/c_ospeed
    /// verbatim; a real UART driver may round to what its clock divider makes).
    @Test(arguments: [250_000, 31_250, 123_457, 4800, 9600, 115_200, 921_600])
    func anyBaudRateSetsAndReadsBack(rate: Int) throws {
        let pty = try PseudoTerminal()
        let port = try SerialPort(path: pty.slavePath, baudRate: rate)
        #expect(try port.baudRate() == rate)
        #expect(clinux_serial_get_baud(-1) == -Int(EBADF))
    }

    @Test func invalidRateIsRefusedWithEINVAL() throws {
        let pty = try PseudoTerminal()
        let port = try SerialPort(path: pty.slavePath, baudRate: 9600)
        for bad in [0, -1, 10, 5_000_000] {
            #expect(throws: SystemError("set baud rate \(bad)", path: pty.slavePath, errno: EINVAL)) { try port.setBaudRate(bad) }
        }
        #expect(try port.baudRate() == 9600)
        port.close()
        #expect(!port.isOpen)
        #expect(throws: SystemError("read", path: pty.slavePath, errno: EBADF)) { try port.read(timeoutMilliseconds: 0) }
    }

    @Test func readTimesOutWithoutSpinningAndReportsHangup() throws {
        let pty = try PseudoTerminal()
        let port = try SerialPort(path: pty.slavePath, baudRate: 9600)
        let start = clinux_monotonic_ns()
        #expect(try port.read(timeoutMilliseconds: 80) == .timedOut)
        #expect(clinux_monotonic_ns() - start >= 70_000_000) // waited in poll, not returned early
        pty.write("$GPTXT,x*00\r\n")
        guard case .chunk(let chunk) = try port.read(timeoutMilliseconds: 1000) else {
            Issue.record("expected a chunk"); return
        }
        #expect(chunk.bytes == Array("$GPTXT,x*00\r\n".utf8))
        #expect(chunk.monotonicNanos >= start && chunk.monotonicNanos <= clinux_monotonic_ns())
        let command = Array("$PUBX,00*33\r\n".utf8)
        #expect(try port.write(command) == command.count)
        #expect(pty.readAvailable(timeoutMilliseconds: 1000) == command) // the other direction, byte-exact
        pty.closeMaster() // unplug
        #expect(try port.read(timeoutMilliseconds: 1000) == .hungUp)
    }

    /// A non-root second opener gets EBUSY. Root's CAP_SYS_ADMIN bypasses TIOCEXCL in the kernel (tty_open), so
    /// as root the second open runs in a child without that capability (`setpriv --bounding-set=-sys_admin`).
    @Test(.enabled(if: geteuid() != 0 || ["/usr/bin/setpriv", "/bin/setpriv"].contains { FileManager.default.isExecutableFile(atPath: $0) },
                   "as root without setpriv (util-linux) CAP_SYS_ADMIN cannot be dropped, so TIOCEXCL is bypassed"))
    func exclusiveAccessMakesSecondOpenerBusy() throws {
        let pty = try PseudoTerminal()
        let port = try SerialPort(path: pty.slavePath, baudRate: 9600)
        if geteuid() != 0 {
            do {
                _ = try SerialPort(path: pty.slavePath)
                Issue.record("second open succeeded despite TIOCEXCL")
            } catch {
                #expect(error.errno == EBUSY)
                #expect(error.authorizationFailure == .restricted)
            }
            return
        }
        let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let setpriv else {
            print("setpriv (util-linux) missing: cannot drop CAP_SYS_ADMIN, exclusive-open check skipped as root")
            return
        }
        let dir = try TemporaryDirectory()
        func openFromChild() throws -> (status: Int32?, stderr: String) {
            let child = try SpawnedProcess(setpriv, ["--bounding-set=-sys_admin", "--", "/bin/sh", "-c", "exec 3<>\"$0\"", pty.slavePath],
                                           stdoutPath: dir.path("out"), stderrPath: dir.path("err"))
            let status = child.wait(timeout: 5)
            return (status, (try? String(contentsOfFile: dir.path("err"), encoding: .utf8)) ?? "")
        }
        let held = try openFromChild()
        #expect(held.status != 0)
        #expect(held.stderr.contains("busy"), "child stderr: \(held.stderr)")
        port.close()
        let free = try openFromChild()
        #expect(free.status == 0, "after close: \(free.stderr)")
    }

    @Test func authorizationClassification() {
        #expect(SystemError("open", errno: EACCES).authorizationFailure == .denied)
        #expect(SystemError("open", errno: EPERM).authorizationFailure == .denied)
        #expect(SystemError("open", errno: EACCES).isPermissionDenied)
        #expect(SystemError("open", errno: EBUSY).authorizationFailure == .restricted)
        #expect(SystemError("open", errno: ENOENT).authorizationFailure == nil)
        #expect(SystemError("read", errno: EIO).isDisconnect)
        #expect(SystemError("read", errno: ENODEV).isDisconnect)
        let hint = SerialPort.permissionHint(path: "/nonexistent/ttyUSB9")
        #expect(hint.contains("to group dialout") && hint.contains("udev/60-lodestar.rules"))
        #expect(!hint.contains("\n"))
    }

    /// EACCES live: root bypasses file permissions, so the source's own thread drops its filesystem uid to
    /// `nobody` (setfsuid is per thread on Linux and clears CAP_DAC_OVERRIDE for that thread only) and the
    /// pty slave is made root:dialout 0660 like a USB receiver's node.
    @Test(.enabled(if: geteuid() != 0 || SerialTests.setfsuid != nil,
                   "as root without glibc's setfsuid the live permission check cannot drop DAC override"))
    func permissionDeniedIsReportedWithTheFix() async throws {
        let pty = try PseudoTerminal()
        let dialout = getgrnam("dialout")?.pointee.gr_gid ?? 20
        var prologue: (@Sendable () -> Void)?
        if geteuid() == 0 {
            guard let setfsuid = Self.setfsuid else {
                print("setfsuid unavailable: live permission check skipped as root (classification tested above)")
                return
            }
            #expect(chown(pty.slavePath, 0, dialout) == 0)
            #expect(chmod(pty.slavePath, 0o660) == 0)
            prologue = { _ = setfsuid(65534) }
        } else {
            #expect(chmod(pty.slavePath, 0) == 0)
        }
        let sink = SourceRecorder()
        let source = SerialSource(path: pty.slavePath, baud: .fixed(9600))
        let runner = LiveSourceThread(source, sink: sink, prologue: prologue)
        #expect(await sink.wait(3) { $0.states.contains(.denied) })
        await runner.stop()
        #expect(sink.states == [.starting, .denied]) // retries do not repeat the report
        let message = try #require(sink.statuses.last?.message)
        #expect(message.contains("permission denied"))
        #expect(message.contains("add user") && message.contains("udev/60-lodestar.rules"))
        if geteuid() == 0 { #expect(message.contains("to group dialout")) }
        #expect(!message.contains("\n"))
        #expect(source.state.authorization == .denied)
        #expect(!source.state.available)
    }

    /// glibc's setfsuid, looked up at run time (<sys/fsuid.h> is not in Swift's Glibc module).
    static let setfsuid: (@convention(c) (UInt32) -> Int32)? = {
        guard let symbol = dlsym(nil, "setfsuid") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UInt32) -> Int32).self)
    }()

    /// Unplug and replug the way udev does it on a board: the source opens a stable symlink (/dev/gps0 from
    /// udev/60-lodestar.rules; here a temporary one), unplugging removes the link and the node, replugging
    /// creates a new node (a new /dev/pts/N) and points the link at it.
    @Test func unplugReportsUnavailableAndReplugRecovers() async throws {
        let dir = try TemporaryDirectory()
        let link = dir.path("gps0")
        let first = try PseudoTerminal()
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: first.slavePath)
        let sink = SourceRecorder()
        let source = SerialSource(path: link, baud: .fixed(9600))
        let runner = LiveSourceThread(source, sink: sink)
        let firstFeeder = first.startFeeding(ReceiverNMEA.cycle, everyMilliseconds: 50)
        #expect(await sink.wait(3) { $0.states.contains(.available) })

        firstFeeder.stop()
        try FileManager.default.removeItem(atPath: link)
        first.closeMaster()
        #expect(await sink.wait(3) { $0.states.contains(.unavailable) })
        #expect(sink.statuses.last?.message?.contains("hung up") == true)
        try await Task.sleep(for: .milliseconds(300)) // a few reopen attempts fail with ENOENT meanwhile

        let second = try PseudoTerminal()
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: second.slavePath)
        let before = sink.events.count
        let secondFeeder = second.startFeeding(ReceiverNMEA.cycle, everyMilliseconds: 50)
        defer { secondFeeder.stop() }
        #expect(await sink.wait(5) { $0.states.contains(.recovered) })
        #expect(await sink.wait(2) { ReceiverNMEA.validCount($0.events.dropFirst(before).flatMap { e -> [UInt8] in
            if case .nmea(let b) = e.payload { return b }
            return []
        }) >= 2 })
        await runner.stop()
        #expect(sink.states == [.starting, .available, .unavailable, .recovered])
    }

    /// The receiver stops talking but the line stays (power lost behind a UART): unavailable after the silence
    /// timeout, recovered when sentences resume — without reopening.
    @Test func silenceReportsUnavailableAndResumeRecovers() async throws {
        let pty = try PseudoTerminal()
        var settings = SerialSource.Settings()
        settings.silenceTimeoutNanos = 300_000_000
        let sink = SourceRecorder()
        let runner = LiveSourceThread(SerialSource(path: pty.slavePath, baud: .fixed(9600), settings: settings), sink: sink)
        let feeder = pty.startFeeding(ReceiverNMEA.cycle, everyMilliseconds: 50)
        #expect(await sink.wait(3) { $0.states.contains(.available) })
        feeder.stop()
        #expect(await sink.wait(3) { $0.states.contains(.unavailable) })
        #expect(sink.statuses.last?.message?.contains("no valid NMEA") == true)
        let resumed = pty.startFeeding(ReceiverNMEA.cycle, everyMilliseconds: 50)
        defer { resumed.stop() }
        #expect(await sink.wait(3) { $0.states.contains(.recovered) })
        await runner.stop()
        #expect(sink.states == [.starting, .available, .unavailable, .recovered])
    }

    /// Bytes are framed once: once data flows and the session's pipeline says what it framed
    /// (`SourceSink.lastValidDataNanos`), the source stops framing chunks itself; the pipeline's silence still
    /// ends in `unavailable`, and the source frames again while it waits, so `recovered` comes before the data.
    @Test func onceDataFlowsOnlyThePipelineFrames() async throws {
        final class PipelineSink: SourceSink, @unchecked Sendable {
            let recorder = SourceRecorder()
            let pipeline = Pipeline(settings: Pipeline.Settings(), encoder: LodestarJSONEncoder(), sinks: [])
            let seen = Mutex<[Int: Int64]>([:])
            init() { pipeline.validData = { [unowned self] id, t in self.seen.withLock { $0[id] = t } } }
            func deliver(_ e: SensorEvent) { recorder.deliver(e); pipeline.process(e) }   // the source's thread only
            func report(_ s: StatusReport) { recorder.report(s) }
            func lastValidDataNanos(sourceID: Int) -> Int64? { seen.withLock { $0[sourceID] } }
        }
        let pty = try PseudoTerminal()
        var settings = SerialSource.Settings()
        settings.silenceTimeoutNanos = 300_000_000
        let sink = PipelineSink()
        let source = SerialSource(path: pty.slavePath, baud: .fixed(9600), settings: settings)
        let runner = LiveSourceThread(source, sink: sink)
        let feeder = pty.startFeeding(ReceiverNMEA.cycle, everyMilliseconds: 50)
        #expect(await sink.recorder.wait(3) { $0.states.contains(.available) })
        #expect(await sink.recorder.wait(5) { $0.events.count >= 30 })
        let chunks = sink.recorder.events.count, framedHere = source.chunksFramedBySource
        // Framed here only until the pipeline first reported (the first chunk or two), not every chunk.
        #expect(framedHere <= 3 && chunks >= 30, "\(framedHere) of \(chunks) chunks framed by the source")
        feeder.stop()
        #expect(await sink.recorder.wait(3) { $0.states.contains(.unavailable) })
        #expect(sink.recorder.statuses.last?.message?.contains("no valid NMEA") == true)
        let resumed = pty.startFeeding(ReceiverNMEA.cycle, everyMilliseconds: 50)
        defer { resumed.stop() }
        #expect(await sink.recorder.wait(3) { $0.states.contains(.recovered) })
        await runner.stop()
        #expect(sink.recorder.states == [.starting, .available, .unavailable, .recovered])
        #expect(source.chunksFramedBySource > framedHere, "framed again while waiting for data")
    }

    /// A sink that does not report what it framed (a recorder with no pipeline): the source frames every chunk.
    @Test func withoutThePipelinesWordTheSourceFramesEveryChunk() async throws {
        let pty = try PseudoTerminal()
        let sink = SourceRecorder()
        let source = SerialSource(path: pty.slavePath, baud: .fixed(9600))
        let runner = LiveSourceThread(source, sink: sink)
        let feeder = pty.startFeeding(ReceiverNMEA.cycle, everyMilliseconds: 50)
        defer { feeder.stop() }
        #expect(await sink.wait(5) { $0.events.count >= 10 })
        await runner.stop()
        #expect(source.chunksFramedBySource == sink.events.count)
    }

    /// What a pty can prove about autobaud: setting each candidate rate, flushing, framing and locking on the
    /// first candidate that yields three valid sentences, and handing the bytes read while locking to the
    /// pipeline. A pty has no line rate — bytes arrive intact at any setting — so it locks on the first
    /// candidate (9600); rejecting wrong rates is proven with `SimulatedReceiver` below.
    @Test func autobaudOnPtyLocksAndDelivers() async throws {
        let pty = try PseudoTerminal()
        let sink = SourceRecorder()
        let source = SerialSource(path: pty.slavePath, baud: .automatic)
        #expect(source.captureAttributes["baud"] == "auto")
        let runner = LiveSourceThread(source, sink: sink)
        let feeder = pty.startFeeding(ReceiverNMEA.cycle, everyMilliseconds: 50)
        defer { feeder.stop() }
        #expect(await sink.wait(5) { $0.states.contains(.available) })
        #expect(await sink.wait(2) { ReceiverNMEA.validCount($0.nmeaBytes) >= 3 })
        await runner.stop()
        #expect(source.baudRate == 9600)
        #expect(source.captureAttributes["baud"] == "9600")
        #expect(sink.statuses.last?.message?.contains("9600 baud") == true)
        #expect(sink.states == [.starting, .available])
    }
}

// MARK: - Autobaud logic through an injected line

/// A receiver talking NMEA at `trueRate`: read at any other rate, its bytes arrive scrambled (what a UART
/// sampling at the wrong rate produces). Time is virtual: each read advances the clock by the poll timeout.
final class SimulatedReceiver: BaudProbe {
    let trueRate: Int
    let refused: Set<Int>
    private(set) var rate = 0
    private(set) var ratesSet: [Int] = []
    private(set) var discards = 0
    private(set) var now: Int64 = 0
    private var position = 0
    private var random: UInt64 = 0x9E37_79B9_7F4A_7C15
    private let stream: [UInt8]

    init(trueRate: Int?, refused: Set<Int> = [], stream: [UInt8] = ReceiverNMEA.cycle) {
        self.trueRate = trueRate ?? -1
        self.refused = refused
        self.stream = stream
    }

    func setBaudRate(_ rate: Int) throws(SystemError) {
        if refused.contains(rate) { throw SystemError("set baud rate", errno: EINVAL) }
        self.rate = rate
        ratesSet.append(rate)
    }

    func discardInput() { discards += 1 }

    func read(maxBytes: Int, timeoutMilliseconds: Int) throws(SystemError) -> SerialReadResult {
        now += Int64(timeoutMilliseconds) * 1_000_000
        var bytes: [UInt8] = []
        for _ in 0..<min(maxBytes, 60) {
            var b = stream[position % stream.count]
            position += 1
            if rate != trueRate {
                random ^= random << 13; random ^= random >> 7; random ^= random << 17
                b ^= UInt8(truncatingIfNeeded: random)
            }
            bytes.append(b)
        }
        return .chunk(SerialChunk(bytes: bytes, monotonicNanos: now))
    }
}

@Suite("Serial autobaud lock logic", .ownThreads)
struct SerialAutobaudTests {
    static let valid = ReceiverNMEA.textSentence(1)
    static let badChecksum = Array("$GPTXT,01,01,02,block 1*00\r\n".utf8)
    static let noChecksum = Array("$GPTXT,01,01,02,block 1\r\n".utf8)
    static let binary: [UInt8] = [0xB5, 0x62, 0x01, 0x07, 0x00, 0x5C, 0x00, 0x11, 0xFE]

    @Test(arguments: [
        ("three valid", [Self.valid, Self.valid, Self.valid], true, 3),
        ("bad checksum restarts the run", [Self.valid, Self.valid, Self.badChecksum, Self.valid, Self.valid], false, 2),
        ("run after a rejection", [Self.valid, Self.badChecksum, Self.valid, Self.valid, Self.valid], true, 3),
        ("missing checksums never count", [Self.noChecksum, Self.noChecksum, Self.noChecksum, Self.noChecksum], false, 0),
        ("binary between sentences neither counts nor resets", [Self.valid, Self.binary, Self.valid, Self.binary, Self.valid], true, 3),
        ("leading partial sentence", [Array(Self.valid.dropFirst(9)), Self.valid, Self.valid, Self.valid], true, 3),
    ])
    func lockDetector(name: String, parts: [[UInt8]], locks: Bool, run: Int) {
        let all = parts.flatMap { $0 }
        let whole = NMEALockDetector()
        #expect(whole.feed(all) == locks, "\(name)")
        #expect(whole.run == run, "\(name)")
        let bytewise = NMEALockDetector()
        for b in all { bytewise.feed([b]) }
        #expect(bytewise.isLocked == locks && bytewise.run == run, "\(name), byte by byte")
    }

    @Test func locksOnTheReceiversRateOnly() throws {
        let receiver = SimulatedReceiver(trueRate: 57600)
        let lock = try Autobaud.detect(receiver, clock: { receiver.now })
        #expect(lock.baudRate == 57600)
        #expect(lock.ratesTried == [9600, 4800, 38400, 115200, 57600])
        #expect(receiver.ratesSet == lock.ratesTried)
        #expect(receiver.discards == 5) // input flushed after every rate change
        #expect(ReceiverNMEA.validCount(lock.chunks.flatMap(\.bytes)) >= 3)
        // Four wrong rates listened to for their whole budget, in virtual time.
        #expect(receiver.now >= 4 * Autobaud.Settings.default.listenNanosPerRate)
    }

    @Test func ratesTheUARTRefusesAreSkipped() throws {
        let receiver = SimulatedReceiver(trueRate: 115200, refused: [4800, 38400])
        let lock = try Autobaud.detect(receiver, clock: { receiver.now })
        #expect(lock.baudRate == 115200)
        #expect(receiver.ratesSet == [9600, 115200])
    }

    @Test func noLockAnywhereReportsEveryRateTried() {
        let receiver = SimulatedReceiver(trueRate: nil)
        #expect(throws: Autobaud.Failure.noLock(ratesTried: SerialPort.autobaudRates)) {
            try Autobaud.detect(receiver, clock: { receiver.now })
        }
    }

    @Test func stopRequestCancelsTheSearch() {
        let receiver = SimulatedReceiver(trueRate: nil)
        var polls = 0
        #expect(throws: Autobaud.Failure.cancelled) {
            try Autobaud.detect(receiver, clock: { receiver.now }, shouldContinue: { polls += 1; return polls < 10 })
        }
    }
}

// MARK: - --gps device specs (nested so the "Serial" filter selects them)

extension SerialTests {
    @Suite("--gps device specs")
    struct DeviceSpecParsing {
        @Test(arguments: [
            ("/dev/ttyUSB0@9600", DeviceSpec.serial(path: "/dev/ttyUSB0", baud: .fixed(9600))),
            ("/dev/ttyUSB0", .serial(path: "/dev/ttyUSB0", baud: .automatic)),
            ("/dev/ttyUSB0@auto", .serial(path: "/dev/ttyUSB0", baud: .automatic)),
            ("/dev/ttyUSB0@AUTO", .serial(path: "/dev/ttyUSB0", baud: .automatic)),
            ("/dev/ttyAMA0@250000", .serial(path: "/dev/ttyAMA0", baud: .fixed(250_000))),
            (" /dev/gps0@4800 ", .serial(path: "/dev/gps0", baud: .fixed(4800))),
            ("/dev/serial/by-id/usb-u-blox_GNSS@x@921600", .serial(path: "/dev/serial/by-id/usb-u-blox_GNSS@x", baud: .fixed(921_600))),
            ("gpsd://", .gpsd(host: "localhost", port: 2947, device: nil)),
            ("gpsd://localhost", .gpsd(host: "localhost", port: 2947, device: nil)),
            ("gpsd://10.0.0.5:3000/dev/ttyACM0", .gpsd(host: "10.0.0.5", port: 3000, device: "/dev/ttyACM0")),
            ("gpsd://:2948", .gpsd(host: "localhost", port: 2948, device: nil)),
            ("gpsd:///dev/ttyUSB1", .gpsd(host: "localhost", port: 2947, device: "/dev/ttyUSB1")),
            ("gpsd://pi.local/", .gpsd(host: "pi.local", port: 2947, device: nil)),
            ("GPSD://[::1]:2950/dev/gps0", .gpsd(host: "::1", port: 2950, device: "/dev/gps0")),
        ])
        func valid(text: String, expected: DeviceSpec) throws {
            let spec = try DeviceSpec(parsing: text)
            #expect(spec == expected)
            #expect(try DeviceSpec(parsing: spec.description) == spec, "canonical form \(spec) round-trips")
        }

        @Test(arguments: [
            ("", "empty"),
            ("ttyUSB0", "absolute path"),
            ("/dev/ttyUSB0@", "missing baud rate"),
            ("/dev/ttyUSB0@fast", "not a number"),
            ("/dev/ttyUSB0@9600.0", "not a number"),
            ("/dev/ttyUSB0@10", "outside"),
            ("/dev/ttyUSB0@99999999999999999999", "outside"),
            ("@9600", "missing device path"),
            ("gpsd://host:0", "1…65535"),
            ("gpsd://host:65536", "1…65535"),
            ("gpsd://host:", "1…65535"),
            ("gpsd://host:abc/dev/x", "1…65535"),
            ("gpsd://::1", "brackets"),
            ("gpsd://[::1", "unclosed"),
            ("gpsd://[::1]x", "after \"]\""),
            ("gpsd://ho st", "invalid host"),
            ("tcp://host:2947", "unknown scheme"),
        ])
        func invalid(text: String, reason: String) {
            do {
                let spec = try DeviceSpec(parsing: text)
                Issue.record("\"\(text)\" parsed as \(spec)")
            } catch {
                #expect(error.reason.contains(reason), "\(error)")
                #expect(error.description.contains("Expected /dev/ttyUSB0"))
            }
        }

        @Test func specsMakeTheirSources() throws {
            let serial = try DeviceSpec(parsing: "/dev/ttyUSB0@38400").makeSource(name: "gps1")
            #expect(serial.name == "gps1")
            #expect(serial.captureAttributes == ["kind": "nmea", "transport": "serial", "device": "/dev/ttyUSB0", "baud": "38400"])
            let gpsd = try DeviceSpec(parsing: "gpsd://127.0.0.1:3001/dev/ttyACM0").makeSource(gpsdMode: .json)
            #expect(gpsd.captureAttributes == ["kind": "gpsd", "host": "127.0.0.1", "port": "3001", "device": "/dev/ttyACM0", "mode": "json"])
        }
    }
}
