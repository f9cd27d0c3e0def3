import ArgumentParser

/// `--config FILE`: a file of `option = value` lines standing for command-line options (docs/deployment.md).
///
/// Every line becomes `--option value` at the place `--config FILE` stood, so any long option of the command can
/// be set in the file: `gps = /dev/gps0@9600`, `output = gpsd`, `fifo = /run/lodestar/tpv`. A flag is `name = true`
/// (`false` leaves it out). A repeated key repeats the option (more sources). Options given after `--config` on the
/// command line come later, so for single-valued options they win and for repeatable ones they are added.
/// `#` starts a comment. `lodestar devices --config FILE` takes only the file's `gps` and `imu` lines.
enum ConfigArguments {
    static func expand(_ arguments: [String]) -> [String] {
        var out: [String] = []
        var i = 0
        let command = arguments.first { !$0.hasPrefix("-") }
        while i < arguments.count {
            let a = arguments[i]
            var path: String?
            if a == "--config", i + 1 < arguments.count {
                path = arguments[i + 1]; i += 2
            } else if a.hasPrefix("--config=") {
                path = String(a.dropFirst("--config=".count)); i += 1
            } else {
                out.append(a); i += 1
                continue
            }
            guard let path else { continue }
            let entries: [(String, String)]
            do { entries = try ConfigFile.read(path) } catch {
                fail("lodestar: \(error)", code: 64)
            }
            for (rawKey, value) in entries {
                let key = rawKey.hasPrefix("--") ? String(rawKey.dropFirst(2)) : rawKey
                if command == "devices" && key != "gps" && key != "imu" { continue }
                switch value.lowercased() {
                case "true", "yes", "on": out.append("--\(key)")
                case "false", "no", "off": break
                default: out += ["--\(key)", value]
                }
            }
        }
        return out
    }
}
