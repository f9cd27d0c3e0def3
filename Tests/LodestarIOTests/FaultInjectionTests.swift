#if canImport(Glibc)
import Glibc
#endif
import Capture
import LodestarIO
import SystemPackage
import Testing
import TestSupport

/// Every sink and file source under the syscall layer's fault hook: each line produced is either delivered or
/// dropped (counted), and the failure names the errno. Serialized: the hook is process-wide.
@Suite(.serialized, .ownThreads)
struct FaultInjectionTests {
    static func lines(_ n: Int, width: Int = 60) -> [UInt8] {
        var out: [UInt8] = []
        for i in 0..<n {
            var l = Array("line \(i) ".utf8)
            while l.count < width - 1 { l.append(0x78) }
            l.append(0x0A)
            out += l
        }
        return out
    }

    /// A pipe whose read end is drained on a thread; returns everything read once the write end is closed.
    final class DrainedPipe: @unchecked Sendable {
        let readFD: Int32, writeFD: Int32
        private var collected: [UInt8] = []
        private var thread = pthread_t()
        init() {
            var fds: [Int32] = [0, 0]
            _ = pipe(&fds)
            readFD = fds[0]; writeFD = fds[1]
            let box = Unmanaged.passRetained(self).toOpaque()
            pthread_create(&thread, nil, { raw in
                let me = Unmanaged<DrainedPipe>.fromOpaque(raw!).takeRetainedValue()
                var buf = [UInt8](repeating: 0, count: 65536)
                while true {
                    let n = buf.withUnsafeMutableBytes { read(me.readFD, $0.baseAddress, 65536) }
                    if n <= 0 { break }
                    me.collected += buf[0..<n]
                }
                return nil
            }, box)
        }
        func finish() -> [UInt8] {
            close(writeFD)
            pthread_join(thread, nil)
            close(readFD)
            return collected
        }
    }

    static func count(_ bytes: [UInt8]) -> Int { bytes.filter { $0 == 0x0A }.count }

    @Test(arguments: [("ENOSPC", Errno.noSpace), ("EIO", Errno.ioError), ("EBADF", Errno.badFileDescriptor)])
    func stdoutSinkHardErrorIsReportedAndCounted(name: String, errno: Errno) throws {
        let pipe = DrainedPipe()
        let produced = Self.lines(2000)
        FaultInjector.shared.install([.init(.write, fd: pipe.writeFD, errno: errno, afterBytes: 30_000)])
        defer { FaultInjector.shared.removeAll() }
        let sink = FileDescriptorSink(fd: pipe.writeFD, name: "standard output")
        produced.withUnsafeBufferPointer { sink.write($0) }
        sink.write(UnsafeBufferPointer(start: [UInt8](Self.lines(1)), count: 60)) // after the failure: dropped
        // The rules name the pipe's descriptor: removed before it is closed, or a file another test opens next (with
        // the same number) would get this error (seen: a RouteSimulator capture failing with ENOSPC).
        FaultInjector.shared.removeAll()
        let got = pipe.finish()
        #expect(sink.isBroken)
        #expect(sink.failure?.code == errno)
        #expect(sink.failure?.description.hasPrefix("standard output: write failed:") == true)
        #expect(sink.failure?.description.contains(name) == true)
        #expect(sink.deliveredLines + sink.droppedLines == 2001)
        // The reader got exactly the delivered whole lines (the cut is at a chunk boundary = a line end).
        #expect(Self.count(got) == sink.deliveredLines)
        #expect(got.count == sink.deliveredLines * 60)
        // The fault lets exactly 30,000 bytes through: 7 whole 68-line chunks (4,080 bytes each), then 1,440 bytes of
        // the 8th before the error. All of them reached the reader and are counted, no more: 500 lines of 60 bytes.
        #expect(got.count == 30_000)
        #expect(sink.deliveredLines == 500)
        #expect(sink.droppedLines == 1501)
    }

    @Test func stdoutSinkSurvivesEINTRStormAndEAGAIN() throws {
        let pipe = DrainedPipe()
        let produced = Self.lines(5000)
        FaultInjector.shared.install([.init(.write, fd: pipe.writeFD, errno: .interrupted, count: 10_000),
                                      .init(.write, fd: pipe.writeFD, errno: .resourceTemporarilyUnavailable, count: 50)])
        defer { FaultInjector.shared.removeAll() }
        let sink = FileDescriptorSink(fd: pipe.writeFD)
        produced.withUnsafeBufferPointer { sink.write($0) }
        let injected = FaultInjector.shared.injectedCounts
        FaultInjector.shared.removeAll()   // before the descriptor is closed (see above)
        let got = pipe.finish()
        #expect(injected == [10_000, 50])
        #expect(!sink.isBroken && sink.failure == nil)
        #expect(sink.deliveredLines == 5000 && sink.droppedLines == 0)
        #expect(got == produced)
    }

    @Test func stdoutSinkEPIPEIsAReaderThatLeftNotAFailure() {
        let pipe = DrainedPipe()
        FaultInjector.shared.install([.init(.write, fd: pipe.writeFD, errno: .brokenPipe, afterBytes: 600)])
        defer { FaultInjector.shared.removeAll() }
        let sink = FileDescriptorSink(fd: pipe.writeFD)
        Self.lines(100).withUnsafeBufferPointer { sink.write($0) }
        FaultInjector.shared.removeAll()   // before the descriptor is closed (see above)
        _ = pipe.finish()
        #expect(sink.isBroken && sink.failure == nil)
        #expect(sink.deliveredLines + sink.droppedLines == 100)
    }

    /// Live mode: a reader that stalls never blocks the writer; the queue stays bounded, drops the oldest, and
    /// the newest lines arrive once the reader resumes.
    @Test func liveSinkDropsOldestWhenTheReaderStalls() throws {
        var fds: [Int32] = [0, 0]
        _ = pipe(&fds)
        let sink = FileDescriptorSink(fd: fds[1], mode: .live(maximumQueuedBytes: 6000))
        let produced = 20_000
        let start = monotonic()
        for i in 0..<produced {
            var l = Array("fix \(i)\n".utf8)
            l.withUnsafeMutableBufferPointer { sink.write(UnsafeBufferPointer($0)) }
        }
        #expect(monotonic() - start < 2_000_000_000) // never blocked
        #expect(sink.droppedOldestLines > 0)
        // Reader resumes: drain what the pipe holds, then close delivers the queue.
        let reader = DrainedPipe.Reader(fd: fds[0])
        sink.close()
        close(fds[1])
        let got = reader.finish()
        #expect(sink.deliveredLines + sink.droppedLines == produced)
        #expect(Self.count(got) == sink.deliveredLines)
        let text = String(decoding: got, as: UTF8.self)
        #expect(text.hasSuffix("fix \(produced - 1)\n")) // the newest survived
    }

    func monotonic() -> Int64 {
        var ts = timespec(); clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    @Test(arguments: [Errno.resourceTemporarilyUnavailable, .brokenPipe, .ioError])
    func fifoSinkCountsEveryLine(errno: Errno) throws {
        let path = "/tmp/lodestar-io-test-\(getpid())-\(errno.rawValue).fifo"
        unlink(path)
        defer { unlink(path) }
        _ = mkfifo(path, 0o600)
        let readFD = open(path, O_RDONLY | O_NONBLOCK)
        #expect(readFD >= 0)
        // A second writer held open, so the reader sees no end of file while the sink reopens after EPIPE/EIO.
        let holder = open(path, O_WRONLY | O_NONBLOCK)
        let reader = DrainedPipe.Reader(fd: readFD, blockingAfterOpen: true)
        let sink = try FIFOSink(path: path)
        sink.reopenIntervalNanos = 0 // reopen at once after EPIPE/EIO, so the count is exact
        #expect(sink.hasReader)
        FaultInjector.shared.install([.init(.write, pathSuffix: "-io-test-\(getpid())-\(errno.rawValue).fifo", errno: errno, count: 3)])
        defer { FaultInjector.shared.removeAll() }
        let produced = 400
        for i in 0..<produced {
            let l = Array("fifo line \(i)\n".utf8)
            l.withUnsafeBufferPointer { sink.write($0) }
            if i % 50 == 49 { usleep(1000) }
        }
        sink.close()
        close(holder)
        let got = reader.finish()
        #expect(FaultInjector.shared.injectedCounts == [3])
        #expect(sink.writtenLines + sink.droppedLines == produced)
        #expect(sink.droppedLines == 3)
        #expect(Self.count(got) == sink.writtenLines)
        #expect((sink.failure?.code == .ioError) == (errno == .ioError))
    }

    @Test func byteSourceReportsEIOAndSurvivesEINTR() throws {
        let path = "/tmp/lodestar-io-source-\(getpid()).nmea"
        let text = Array(String(repeating: "$GPGGA,120000.00,3723.166,N,12205.034,W,1,08,1.0,10.0,M,0.0,M,,*7A\r\n", count: 3000).utf8)
        let f = fopen(path, "wb"); fwrite(text, 1, text.count, f); fclose(f)
        defer { unlink(path) }
        FaultInjector.shared.install([.init(.read, pathSuffix: "-io-source-\(getpid()).nmea", errno: .interrupted, count: 5000)])
        var source = try ByteSource(path: path)
        var all: [UInt8] = []
        while true { let b = try source.read(); if b.isEmpty { break }; all += b }
        #expect(all == text)
        FaultInjector.shared.install([.init(.read, pathSuffix: "-io-source-\(getpid()).nmea", errno: .ioError, afterBytes: 70_000)])
        defer { FaultInjector.shared.removeAll() }
        source = try ByteSource(path: path)
        var read = 0
        #expect(throws: CaptureError.readFailed(path: path, errno: EIO)) {
            while true { let b = try source.read(); if b.isEmpty { break }; read += b.count }
        }
        #expect(read == 70_000)
    }

    /// `record` on a full disk: the capture ends on a whole record and the error says "write failed".
    @Test func captureWriterKeepsWholeRecordsOnENOSPC() throws {
        let path = "/tmp/lodestar-io-writer-\(getpid()).lcap"
        defer { unlink(path) }
        FaultInjector.shared.install([.init(.write, pathSuffix: "-io-writer-\(getpid()).lcap", errno: .noSpace, afterBytes: 100_003)])
        defer { FaultInjector.shared.removeAll() }
        let w = try CaptureWriter(path: path)
        try w.writeHeader([("created", "2026-01-01T00:00:00.000Z")])
        var thrown: CaptureError?
        do {
            for i in 0..<10_000 {
                try w.writeSample(monotonicNanos: Int64(i) * 10_000_000, source: 0, kind: .magnetometer,
                                  .init(x: 1000, y: -2000, z: 3000, scale: 0.01))
            }
        } catch { thrown = error }
        #expect(thrown == .writeFailed(path: path, errno: ENOSPC))
        #expect(thrown?.description.contains("write failed (No space left on device (ENOSPC)") == true)
        FaultInjector.shared.removeAll()
        let data = try readAll(path)
        #expect(data.last == 0x0A)
        #expect(data.count <= 100_003)
        let reader = try LodestarCaptureReader(path: path)
        var n = 0
        while try reader.next() != nil { n += 1 }
        #expect(reader.statistics.rejections.total == 0)
        #expect(n == reader.statistics.recordsRead)
        #expect(n > 1000)
    }

    func readAll(_ path: String) throws -> [UInt8] {
        let s = try ByteSource(path: path)
        var all: [UInt8] = []
        while true { let b = try s.read(); if b.isEmpty { break }; all += b }
        return all
    }

    @Test func parsesTheEnvironmentSyntax() throws {
        let rules = try FaultInjector.parse("write:fd=1:after=65536:errno=ENOSPC; read:path=.nmea:errno=EINTR:count=1000")
        #expect(rules == [.init(.write, fd: 1, errno: .noSpace, afterBytes: 65536),
                          .init(.read, pathSuffix: ".nmea", errno: .interrupted, count: 1000)])
        #expect(throws: FaultInjector.ParseError.self) { try FaultInjector.parse("write:errno=ENOPE") }
    }
}

extension FaultInjectionTests.DrainedPipe {
    /// Drains an existing read descriptor on a thread.
    final class Reader: @unchecked Sendable {
        let fd: Int32
        private var collected: [UInt8] = []
        private var thread = pthread_t()
        init(fd: Int32, blockingAfterOpen: Bool = false) {
            self.fd = fd
            if blockingAfterOpen { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) }
            let box = Unmanaged.passRetained(self).toOpaque()
            pthread_create(&thread, nil, { raw in
                let me = Unmanaged<Reader>.fromOpaque(raw!).takeRetainedValue()
                var buf = [UInt8](repeating: 0, count: 65536)
                while true {
                    let n = buf.withUnsafeMutableBytes { read(me.fd, $0.baseAddress, 65536) }
                    if n <= 0 { break }
                    me.collected += buf[0..<n]
                }
                return nil
            }, box)
        }
        func finish() -> [UInt8] {
            pthread_join(thread, nil)
            close(fd)
            return collected
        }
    }
}
