import Foundation
import TestSupport
import Testing

/// The systemd files `make install` ships, checked with systemd's own tools when they are on this machine
/// (Debian's systemd package; `make test` installs it): the unit verifies clean, its sandboxing exposure is at most
/// 2.0, and sysusers/tmpfiles create the user, groups and /run/lodestar in a scratch root.
@Suite("systemd service files", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"),
                                         "systemd-analyze is not installed (`make test-deps`: systemd): the unit files are not verified"),
       .ownThreads)
struct ServiceUnitTests {
    static func tool(_ path: String, _ arguments: [String]) throws -> RunResult { try Tool.output(path, arguments) }

    /// The unit with ExecStart pointing at the binary under test (verify checks that the command exists).
    static func unit(in dir: TemporaryDirectory) throws -> String {
        let text = try String(contentsOf: SharedData.packageRoot.appendingPathComponent("systemd/lodestar.service"), encoding: .utf8)
        #expect(text.contains("ExecStart=/usr/local/bin/lodestar run --config /etc/lodestar/lodestar.conf"))
        #expect(text.contains("Restart=on-failure"))
        return try dir.write("lodestar.service", text.replacingOccurrences(of: "/usr/local/bin/lodestar", with: Lodestar.binary))
    }

    @Test func unitVerifiesClean() throws {
        let dir = try TemporaryDirectory()
        let r = try Self.tool("/usr/bin/systemd-analyze", ["verify", try Self.unit(in: dir)])
        #expect(r.status == 0 && r.stderr.isEmpty && r.stdout.isEmpty, "\(r.stdout)\(r.stderr)")
    }

    /// The socket unit beside the service (systemd-analyze verify reads both: Service= must resolve).
    @Test func socketUnitVerifiesClean() throws {
        let dir = try TemporaryDirectory()
        _ = try Self.unit(in: dir)
        let text = try String(contentsOf: SharedData.packageRoot.appendingPathComponent("systemd/lodestar.socket"), encoding: .utf8)
        #expect(text.contains("ListenStream=127.0.0.1:2947") && text.contains("FileDescriptorName=gpsd"))
        let r = try Self.tool("/usr/bin/systemd-analyze", ["verify", try dir.write("lodestar.socket", text)])
        #expect(r.status == 0 && r.stderr.isEmpty && r.stdout.isEmpty, "\(r.stdout)\(r.stderr)")
    }

    @Test func exposureAtMostTwo() throws {
        let dir = try TemporaryDirectory()
        let r = try Self.tool("/usr/bin/systemd-analyze", ["security", "--offline=yes", "--no-pager", try Self.unit(in: dir)])
        let line = r.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") }.map(String.init) ?? ""
        let score = line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
        #expect(score != nil && score! <= 2.0, "\(line)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-sysusers"),
                   "systemd-sysusers is not installed (`make test-deps`: systemd): the sysusers.d file is not applied"))
    func sysusersAndTmpfilesCreateUserGroupsAndRunDirectory() throws {
        let root = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: root.path("etc"), withIntermediateDirectories: true)
        let files = SharedData.packageRoot.appendingPathComponent("systemd")
        let sysusers = try Self.tool("/usr/bin/systemd-sysusers", ["--root=\(root.url.path)", files.appendingPathComponent("sysusers.conf").path])
        #expect(sysusers.status == 0, "\(sysusers.stderr)")
        let group = try String(contentsOfFile: root.path("etc/group"), encoding: .utf8)
        let passwd = try String(contentsOfFile: root.path("etc/passwd"), encoding: .utf8)
        #expect(passwd.contains("\nlodestar:x:") || passwd.hasPrefix("lodestar:x:"), "\(passwd)")
        let members = group.split(separator: "\n").filter { $0.hasPrefix("dialout:") || $0.hasPrefix("i2c:") }
        #expect(members.count == 2 && members.allSatisfy { $0.hasSuffix(":lodestar") }, "\(group)")
        let tmpfiles = try Self.tool("/usr/bin/systemd-tmpfiles", ["--root=\(root.url.path)", "--create",
                                                                   files.appendingPathComponent("tmpfiles.conf").path])
        #expect(tmpfiles.status == 0, "\(tmpfiles.stderr)")
        var info = stat()
        #expect(stat(root.path("run/lodestar"), &info) == 0 && info.st_mode & 0o7777 == 0o750)
    }
}
