import Foundation

/// Debian's PostgreSQL 15 (+ PostGIS) started by a test in a temporary data directory on a free loopback port,
/// stopped by PID. As root it runs as `nobody` (the server refuses to run as root).
public final class PostgresServer: @unchecked Sendable {
    public static let bin = "/usr/lib/postgresql/15/bin"
    public static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: bin + "/initdb") && FileManager.default.isExecutableFile(atPath: bin + "/pg_ctl")
            && FileManager.default.fileExists(atPath: "/usr/share/postgresql/15/extension/postgis.control")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/psql")
    }
    public static let skipMessage = "PostgreSQL 15 + PostGIS are not installed (make test installs postgresql postgresql-15-postgis-3): skipping fleet database tests"

    public let port: Int
    public let dataDirectory: String
    public let socketDirectory: String
    public let user = "fleet"
    public let database = "fleet"

    public init(directory: TemporaryDirectory) throws {
        let root = directory.path("pg")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        chmod(directory.url.path, 0o755)
        if geteuid() == 0 {
            let r = try Tool.run("/bin/chown", ["nobody", root])
            guard r.status == 0 else { throw NSError(domain: "chown: \(r.output)", code: 1) }
        }
        dataDirectory = root + "/data"
        socketDirectory = root
        port = try GPSDProcess.freePort()
        let initdb = try Self.asServerUser(Self.bin + "/initdb", ["-D", dataDirectory, "-U", user, "--auth=trust", "-E", "UTF8", "--no-sync"])
        guard initdb.status == 0 else { throw NSError(domain: "initdb: \(initdb.output)", code: 2) }
        let start = try Self.asServerUser(Self.bin + "/pg_ctl", ["-D", dataDirectory, "-l", root + "/server.log", "-w", "-t", "30", "start", "-o",
                                                              "-p \(port) -k \(root) -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=on"])
        guard start.status == 0 else { throw NSError(domain: "pg_ctl start: \(start.output) \(log)", code: 3) }
        let create = try Tool.run("/usr/bin/psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", user, "-d", "postgres", "-Atq", "-c", "CREATE DATABASE \(database)"])
        guard create.status == 0 else { throw NSError(domain: "create database: \(create.output)", code: 4) }
    }

    /// libpq connection string for the test database.
    public var conninfo: String { "host=127.0.0.1 port=\(port) dbname=\(database) user=\(user)" }

    /// Runs SQL with psql; returns the rows as `|`-separated lines.
    public func query(_ sql: String) throws -> [String] {
        let r = try Tool.run("/usr/bin/psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", user, "-d", database, "-Atq", "-c", sql])
        guard r.status == 0 else { throw NSError(domain: "psql: \(r.output)", code: 5) }
        return r.output.split(separator: "\n").map(String.init)
    }

    public var log: String { (try? String(contentsOfFile: socketDirectory + "/server.log", encoding: .utf8)) ?? "" }

    /// The postmaster's PID (first line of postmaster.pid).
    public var pid: pid_t? {
        guard let text = try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first.flatMap { pid_t($0) }
    }

    /// Fast shutdown by PID (SIGINT), waiting for the postmaster to go.
    public func stop() {
        guard let p = pid else { return }
        kill(p, SIGINT)
        let deadline = Date().addingTimeInterval(15)
        while kill(p, 0) == 0 && Date() < deadline { usleep(50_000) }
        if kill(p, 0) == 0 { kill(p, SIGKILL) }
    }

    deinit { stop() }

    static func asServerUser(_ path: String, _ args: [String]) throws -> (status: Int32, output: String) {
        if geteuid() == 0 { return try Tool.run("/usr/sbin/runuser", ["-u", "nobody", "--", path] + args) }
        return try Tool.run(path, args)
    }
}
