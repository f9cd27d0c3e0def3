#if canImport(Glibc)
import Glibc
#endif
import Devices
import Testing
import TestSupport

/// Issue 13, case 15: opening a receiver discards input the tty buffered before (TCFLSH, as gpsd does).
@Suite(.ownThreads) struct SerialFlushTests {
    @Test func openDiscardsStaleBufferedInput() throws {
        let pty = try PseudoTerminal()
        // Hold the slave open once so the line discipline buffers what the "receiver" sends while nobody reads.
        let holder = open(pty.slavePath, O_RDWR | O_NOCTTY | O_NONBLOCK)
        #expect(holder >= 0)
        let stale = String(repeating: "$GPRMC,120000.00,A,3723.16600,N,12205.03400,W,0.183,,010625,,,A*6F\r\n", count: 40)
        #expect(pty.write(stale) == stale.utf8.count)
        usleep(50_000)
        let port = try SerialPort(path: pty.slavePath, exclusive: false)
        close(holder)
        let fresh = "$GPRMC,120001.00,A,3723.16600,N,12205.03400,W,0.183,,010625,,,A*6E\r\n"
        #expect(pty.write(fresh) == fresh.utf8.count)
        var got: [UInt8] = []
        for _ in 0..<20 {
            if case .chunk(let c) = try port.read(timeoutMilliseconds: 50) { got += c.bytes }
            if got.count >= fresh.utf8.count { break }
        }
        #expect(String(decoding: got, as: UTF8.self) == fresh)
    }
}
