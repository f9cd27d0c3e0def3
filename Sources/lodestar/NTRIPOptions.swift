import ArgumentParser
import CLinux
import Events
import LodestarIO
import SystemPackage
import Devices
import LocationCore
import NMEA
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `--ntrip` and friends for `run` (docs/ntrip.md). The same keys work in the config file (`ntrip = ntrip://…`,
/// `ntrip-password-file = …`); flags win.
struct NTRIPOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("RTCM3 corrections from an NTRIP caster, written to the (first serial) receiver: ntrip://USER@HOST[:PORT]/MOUNT (password only from --ntrip-password-file).", valueName: "url"))
    var ntrip: String?

    @Option(name: .long, help: ArgumentHelp("File whose first line is the NTRIP password (for the user in the URL).", valueName: "file"))
    var ntripPasswordFile: String?

    @Option(name: .long, help: ArgumentHelp("Upload the current fix as GGA this often, for VRS and nearest-base mountpoints (default 10; 0 never).", valueName: "seconds"))
    var ntripGgaInterval: Double?

    @Option(name: .long, help: ArgumentHelp("Report the corrections stale after this long without RTCM3 (default 10).", valueName: "seconds"))
    var ntripStaleSeconds: Double?

    @Option(name: .long, help: ArgumentHelp("NTRIP request version: 2 (HTTP/1.1, default) or 1; either answer (ICY 200 OK, HTTP with chunked transfer) is understood.", valueName: "1|2"))
    var ntripVersion: Int?

    static let configKeys: Set<String> = ["ntrip", "ntrip-password-file", "ntrip-gga-interval", "ntrip-stale-seconds", "ntrip-version"]

    mutating func merge(config: [String: String]) throws {
        func number(_ key: String) throws -> Double? {
            guard let v = config[key] else { return nil }
            guard let d = Double(v), d >= 0, d.isFinite else { throw ValidationError("config: \(key) must be a number of seconds ≥ 0") }
            return d
        }
        ntrip = ntrip ?? config["ntrip"]
        ntripPasswordFile = ntripPasswordFile ?? config["ntrip-password-file"]
        ntripGgaInterval = try ntripGgaInterval ?? number("ntrip-gga-interval")
        ntripStaleSeconds = try ntripStaleSeconds ?? number("ntrip-stale-seconds")
        if ntripVersion == nil, let v = config["ntrip-version"] { ntripVersion = Int(v) ?? -1 }
    }

    /// The NTRIP pseudo-source writing to `receiver`, or nil without --ntrip.
    func makeSource(receiver: SerialSource?, fixes: LatestFix) throws -> NTRIPSource? {
        guard let text = ntrip else {
            if ntripPasswordFile != nil { throw ValidationError("--ntrip-password-file needs --ntrip") }
            return nil
        }
        let url: NTRIPURL
        do { url = try NTRIPURL(parsing: text) } catch { throw ValidationError("--ntrip: \(error)") }
        guard let receiver else { throw ValidationError("--ntrip needs a serial receiver (--gps /dev/…) to write the corrections to") }
        var password: String?
        if let f = ntripPasswordFile {
            guard url.user != nil else { throw ValidationError("--ntrip-password-file needs a user in the URL (ntrip://USER@host/MOUNT)") }
            let bytes: [UInt8]
            do { bytes = try Syscall.readWholeFile(f) } catch {
                throw CommandFailure("--ntrip-password-file \(f): \(SystemError("open", path: f, error))",
                                     code: error == .noSuchFileOrDirectory ? Exit.noInput : (error == .permissionDenied ? Exit.permission : Exit.ioError))
            }
            let line = String(decoding: bytes.prefix { $0 != 0x0A && $0 != 0x0D }, as: UTF8.self)
            password = line
        }
        var settings = NTRIPSource.Settings()
        if let g = ntripGgaInterval {
            guard g >= 0, g.isFinite else { throw ValidationError("--ntrip-gga-interval must be ≥ 0 seconds") }
            settings.ggaIntervalSeconds = g
        }
        if let s = ntripStaleSeconds {
            guard s > 0, s.isFinite else { throw ValidationError("--ntrip-stale-seconds must be > 0 seconds") }
            settings.staleSeconds = s
        }
        if let v = ntripVersion {
            guard v == 1 || v == 2 else { throw ValidationError("--ntrip-version must be 1 or 2") }
            settings.version = v
        }
        return NTRIPSource(url: url, password: password, settings: settings,
                           writer: { [receiver] in receiver.writeToReceiver($0) }, gga: { fixes.gga })
    }
}

/// The latest fix as a GGA sentence, for the NTRIP upload (a consumer of the session's output; read from the
/// NTRIP thread).
final class LatestFix: OutputEventConsumer, Sendable {
    private let sentence = Mutex<String?>(nil)
    var gga: String? { sentence.withLock { $0 } }

    func consume(_ event: OutputEvent) {
        guard case .fix(let l) = event, l.mode == .twoD || l.mode == .threeD else { return }
        var s = NMEAEncoder(talker: "GP").gga(l)   // a whole sentence, $ to checksum
        if !s.hasSuffix("\r\n") { s += "\r\n" }
        sentence.withLock { $0 = s }
    }

    func finish() {}
}

struct NTRIPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ntrip",
        abstract: "NTRIP casters: list a caster's source table.",
        subcommands: [NTRIPSources.self])
}

struct NTRIPSources: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sources",
        abstract: "List a caster's source table: mountpoint, format, navigation systems, position, whether it wants GGA.")

    @Argument(help: ArgumentHelp("The caster (port 2101 by default).", valueName: "host[:port]"))
    var caster: String

    @Flag(name: .long, help: "Print the raw STR lines as well.")
    var raw = false

    func run() throws {
        let (host, port): (String, Int)
        do { (host, port) = try NTRIPURL.hostPort(caster, fail: { .badURL("\"\(caster)\": \($0)") }) } catch {
            throw ValidationError("\(error)")
        }
        let fd: Int32
        do { fd = try NTRIPSocket.connect(host: host, port: port, timeoutMilliseconds: 5000) } catch {
            throw CommandFailure(error.description, code: Exit.unavailable)
        }
        defer { Syscall.close(fd) }
        let request = "GET / HTTP/1.1\r\nHost: \(host):\(port)\r\nNtrip-Version: Ntrip/2.0\r\nUser-Agent: NTRIP Lodestar/0.1\r\nConnection: close\r\n\r\n"
        let bytes = Array(request.utf8)
        let n = (try? bytes.withUnsafeBytes { try Syscall.writeAll(fd, $0, giveUp: { false }) }) ?? -1
        guard n == bytes.count else { throw CommandFailure("\(host):\(port): cannot send the request", code: Exit.ioError) }
        var answer: [UInt8] = []
        let deadline = clinux_monotonic_ns() + 10_000_000_000
        while clinux_monotonic_ns() < deadline, answer.count < 4_000_000 {
            guard (try? Syscall.waitReadable(fd, timeoutMilliseconds: 200)) == true else { continue }
            var buffer = [UInt8](repeating: 0, count: 16_384)
            let r = (try? buffer.withUnsafeMutableBytes { try Syscall.read(fd, into: $0) }) ?? 0
            if r <= 0 { break }
            answer += buffer[..<r]
            if answer.count >= 14, String(decoding: answer.suffix(16), as: UTF8.self).contains("ENDSOURCETABLE") { break }
        }
        var text = String(decoding: answer, as: UTF8.self)
        // The end of the HTTP head (CR LF CR LF), found in the bytes (no Foundation in the board's binary).
        if let end = (0..<max(0, answer.count - 3)).first(where: { answer[$0] == 13 && answer[$0 + 1] == 10 && answer[$0 + 2] == 13 && answer[$0 + 3] == 10 }) {
            let head = String(decoding: answer[..<end], as: UTF8.self)
            if head.lowercased().contains("transfer-encoding: chunked") {
                var decoder = ChunkedDecoder()
                text = head + "\r\n\r\n" + String(decoding: decoder.decode(Array(answer[(end + 4)...])), as: UTF8.self)
            }
        }
        let streams = NTRIPStream.table(text)
        guard text.contains("SOURCETABLE 200") || text.hasPrefix("HTTP/1.1 200") || text.hasPrefix("HTTP/1.0 200") || !streams.isEmpty else {
            throw CommandFailure("\(host):\(port): not a source table: \"\(text.prefix(60))\"", code: Exit.dataError)
        }
        print("mountpoint\tformat\tnav-system\tlatitude\tlongitude\tnmea")
        for s in streams {
            print([s.mountpoint, s.format, s.navigationSystem, s.latitudeDegrees.map { Calibrate.fixed($0, 4) } ?? "",
                   s.longitudeDegrees.map { Calibrate.fixed($0, 4) } ?? "", s.needsNMEA ? "gga" : "-"].joined(separator: "\t"))
        }
        if raw { for line in text.split(separator: "\n") where line.hasPrefix("STR;") { print(line.trimmingCharacters(while: { $0 == "\r" })) } }
    }
}
