import Foundation
import Testing
import TestSupport

/// Real FIFOs and real signals against the built binary.
@Suite("FIFO delivery and graceful stop", .serialized, .ownThreads)
struct FIFOAndSignalTests {
    static let capture = "captures/simulated-drive.lcap"

    /// Reads a FIFO on a background thread until EOF (or `stopAfter` seconds), returning the text read.
    final class FIFOReader: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        private let done = DispatchSemaphore(value: 0)

        init(path: String, stopAfter: Double? = nil) {
            Thread.detachNewThread { [self] in
                let fd = open(path, O_RDONLY)
                if fd >= 0 {
                    let start = Date()
                    var buf = [UInt8](repeating: 0, count: 65536)
                    while true {
                        if let s = stopAfter, Date().timeIntervalSince(start) > s { break }
                        let n = read(fd, &buf, buf.count)
                        if n <= 0 { break }
                        lock.lock(); data.append(contentsOf: buf[0..<n]); lock.unlock()
                    }
                    close(fd)
                }
                done.signal()
            }
        }

        func text(timeout: Double) -> String? {
            guard done.wait(timeout: .now() + timeout) == .success else { return nil }
            lock.lock(); defer { lock.unlock() }
            return String(decoding: data, as: UTF8.self)
        }
    }

    static func completeJSONLines(_ text: String) -> Bool {
        guard text.isEmpty || text.hasSuffix("\n") else { return false }
        return text.split(separator: "\n").allSatisfy { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil
        }
    }

    @Test func withoutAReaderNothingBlocksAndDropsAreCounted() throws {
        let dir = try TemporaryDirectory()
        let fifo = dir.path("fix.fifo")
        let r = try Lodestar.run(["replay", "--fifo", fifo, "--fifo-only", Self.capture])
        #expect(r.status == 0)
        #expect(r.stdout.isEmpty)
        var st = stat()
        #expect(stat(fifo, &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO)
        #expect(st.st_mode & 0o777 == 0o660)
        #expect(r.stderr.contains("lines dropped while no reader was attached"))
    }

    @Test func aReaderReceivesEveryLineWhole() throws {
        let dir = try TemporaryDirectory()
        let fifo = dir.path("fix.fifo")
        let expected = try Lodestar.run(["replay", Self.capture]).stdout
        mkfifo(fifo, 0o660)
        let reader = FIFOReader(path: fifo)
        // Paced (100× recorded speed, 3 s) so the reader keeps up and nothing is dropped for a full pipe.
        let r = try Lodestar.run(["replay", "--speed", "100", "--fifo", fifo, "--fifo-only", Self.capture])
        #expect(r.status == 0, "\(r.stderr)")
        let got = try #require(reader.text(timeout: 10))
        #expect(got == expected)
    }

    @Test func readerLeavingAndReturningIsSurvived() throws {
        let dir = try TemporaryDirectory()
        let fifo = dir.path("fix.fifo")
        mkfifo(fifo, 0o660)
        let first = FIFOReader(path: fifo, stopAfter: 1.0)
        let process = try SpawnedProcess(Lodestar.binary, ["replay", "--speed", "60", "--fifo", fifo, "--fifo-only", Self.capture],
                                         stdoutPath: dir.path("out"), stderrPath: dir.path("err"))
        let part1 = try #require(first.text(timeout: 10))
        usleep(800_000)
        let second = FIFOReader(path: fifo)
        let status = process.wait(timeout: 20)
        let part2 = try #require(second.text(timeout: 10))
        #expect(status == 0)
        let stderr = try String(contentsOfFile: dir.path("err"), encoding: .utf8)
        #expect(stderr.contains("lines dropped"), "\(stderr)")
        #expect(!part1.isEmpty && !part2.isEmpty)
        // The first reader may stop mid-line (it closes after a time); the second must start on a line boundary.
        #expect(Self.completeJSONLines(part2))
        #expect(part2.hasPrefix("{\"class\":"))
    }

    @Test func sigtermFlushesAndExits143WithoutATruncatedLine() throws {
        let dir = try TemporaryDirectory()
        let process = try SpawnedProcess(Lodestar.binary, ["replay", "--realtime", Self.capture],
                                         stdoutPath: dir.path("out"), stderrPath: dir.path("err"))
        usleep(2_500_000)
        process.signal(SIGTERM)
        let status = process.wait(timeout: 5)
        #expect(status == 143)
        let out = try String(contentsOfFile: dir.path("out"), encoding: .utf8)
        #expect(out.split(separator: "\n").count >= 2, "a realtime replay should have written a few fixes in 2.5 s")
        #expect(Self.completeJSONLines(out))
        let err = try String(contentsOfFile: dir.path("err"), encoding: .utf8)
        #expect(err.contains("records read"))
    }

    @Test func closedStdoutEndsTheRunCleanly() throws {
        // `lodestar replay … | head -1`: the reader leaves; EPIPE must end the run without a crash.
        let r = try Lodestar.run(["replay", Self.capture], stdin: nil)
        #expect(r.status == 0)
        let dir = try TemporaryDirectory()
        let script = "'\(Lodestar.binary)' replay '\(SharedData.packageRoot.path)/\(Self.capture)' | head -1 > '\(dir.path("first"))'; echo ${PIPESTATUS[0]} > '\(dir.path("status"))'"
        let p = Process()
        (p.executableURL, p.arguments) = Watchdog.command("/bin/bash", ["-c", script], seconds: 120)
        try p.run()
        p.waitUntilExit()
        let status = try String(contentsOfFile: dir.path("status"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(status == "0")
        let first = try String(contentsOfFile: dir.path("first"), encoding: .utf8)
        #expect(first.hasPrefix("{\"class\":"))
    }
}
