#if canImport(Glibc)
import Glibc
#endif
import Devices
import TestSupport
import Testing

@Suite("Device holders", .ownThreads)
struct DeviceHoldersTests {
    /// A real process (`sleep` with the pty on its stdin) holding a pseudo-terminal is found through /proc, by pid and
    /// command name, also through a symlink; a closed one is not.
    @Test func findsAProcessHoldingATerminal() throws {
        let pty = try PseudoTerminal()
        let dir = try TemporaryDirectory()
        let link = dir.path("gps0")
        #expect(symlink(pty.slavePath, link) == 0)
        #expect(DeviceHolders.holders(of: link).isEmpty)
        let child = try SpawnedProcess("/bin/sh", ["-c", "exec sleep 30 < \(pty.slavePath)"], stdoutPath: "/dev/null", stderrPath: "/dev/null")
        defer { child.stop() }
        var holders: [DeviceHolders.Holder] = []
        for _ in 0..<100 where holders.isEmpty {
            usleep(20_000)
            holders = DeviceHolders.holders(of: link)
        }
        #expect(holders.map(\.pid) == [child.pid], "\(holders)")
        #expect(holders.first?.command == "sleep")
        #expect(DeviceHolders.running("sleep").contains { $0.pid == child.pid })
        #expect(!DeviceHolders.running("gpsd-not-running-here").contains { $0.pid == child.pid })
    }
}
