import ArgumentParser

@main
struct Lodestar: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lodestar",
        abstract: "Core Location for Linux boards: fused location from NMEA receivers, captures and sensors.",
        discussion: """
        Lodestar reads NMEA 0183 receivers and sensor captures, assembles one fix per receiver cycle and writes \
        Lodestar JSON lines, gpsd-compatible JSON or NMEA to standard output or a FIFO.

        Exit codes: 0 success; 64 bad arguments; 65 unrecognised or unsupported input format; \
        66 input file missing; 69 a server's port is taken; 73 output cannot be created; 74 I/O error; 76 the receiver refused or did not acknowledge a setting (receiver configure); 77 permission denied; \
        130/143 stopped by SIGINT/SIGTERM (after flushing).

        See docs/ (cli.md, output.md, capture-format.md, nmea.md) for details.
        """,
        version: LodestarVersion.withDataNotice,
        subcommands: [Replay.self, Run.self, Record.self, Devices.self, Calibrate.self, Field.self, Simulate.self, MapCommand.self, Export.self,
                      Reverse.self, Geocode.self, About.self, Fleet.self, ReceiverCommand.self, NTRIPCommand.self]
    )
}

enum LodestarVersion {
    static let string = "0.1.0"
    /// `lodestar --version`: the version and the bundled data's licences in short (`lodestar about` has them whole).
    static let withDataNotice = """
    \(string)
    Bundled geocoding data: GeoNames (CC BY 4.0), Natural Earth (public domain), timezone-boundary-builder \
    (ODbL 1.0, (c) OpenStreetMap contributors), NGII Korea (open public data). Details: lodestar about.
    """
}
