import ArgumentParser
import Estimation
import Pipeline

/// Position smoothing flags shared by `replay` and `run` (docs/smoothing.md).
struct SmoothingOptions: ParsableArguments {
    @Flag(name: .long, help: "Output the receiver's fixes as parsed (no motion-aided smoothing, no dead reckoning, no isStationary).")
    var noSmoothing = false

    @Flag(name: .long, help: "Core Location's pausesLocationUpdatesAutomatically: while stationary only the first fix is output; updates resume on motion.")
    var pauseWhenStationary = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Dead-reckon through GNSS outages for at most this long, then report no fix (default 30).", valueName: "seconds"))
    var maxOutage: Double?

    @Option(name: .long, help: ArgumentHelp("Smoother settings as `key = value` lines (keys: the PositionSmoother.Settings names in docs/smoothing.md).", valueName: "file"))
    var smoothingConfig: String?

    func validate() throws {
        if let m = maxOutage, !(m >= 0 && m.isFinite) { throw ValidationError("--max-outage must be a non-negative number of seconds") }
        if noSmoothing && (pauseWhenStationary || maxOutage != nil || smoothingConfig != nil) {
            throw ValidationError("--no-smoothing cannot be combined with --pause-when-stationary, --max-outage or --smoothing-config")
        }
    }

    func apply(to settings: inout Pipeline.Settings) throws {
        guard !noSmoothing else { settings.smoothing.smoothing = nil; return }
        var s = PositionSmoother.Settings.default
        if let path = smoothingConfig {
            for (key, value) in try ConfigFile.read(path) {
                do { try s.set(key, value) } catch { throw ValidationError("\(path): \(error)") }
            }
        }
        if let m = maxOutage { s.maximumOutageSeconds = m }
        settings.smoothing.smoothing = s
        settings.smoothing.pauseWhenStationary = pauseWhenStationary
    }
}
