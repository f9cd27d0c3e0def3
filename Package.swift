// swift-tools-version: 6.1
import PackageDescription

/// Release builds skip the run-time exclusivity checks (each access to a class's stored property from an escaping
/// context calls into the runtime: 6–8 % of a replay's instructions, docs/benchmarks.md); debug builds, which run the
/// tests, keep them, and the compile-time checks stay on everywhere.
let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny"),
                              .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
/// Where `CoreLocation` and `Contacts` are this package's modules (elsewhere the system frameworks stand there).
let nonApple: [Platform] = [.linux, .android, .windows, .openbsd]

let package = Package(
    name: "Lodestar",
    platforms: [.macOS("26.0")],  // InlineArray (value generics); Linux has no availability floor
    products: [
        .executable(name: "lodestar", targets: ["lodestar"]),
        .library(name: "Lodestar", targets: ["LodestarKit", "LocationServices", "Geocoding", "Estimation", "LocationCore", "NMEA",
                                             "Capture", "Simulation", "Events", "Pipeline", "Devices", "Session", "Magnetics"]),
        .executable(name: "WhereAmI", targets: ["WhereAmI"]),
        .executable(name: "lodestar-fleet", targets: ["LodestarFleet"]),
        // Apple's API on Linux (issue 25): `import CoreLocation` / `import Contacts`. On Apple platforms the modules
        // are empty (every file is `#if !canImport(Darwin)`): the system frameworks stand there.
        .library(name: "CoreLocation", targets: ["CoreLocation"]),
        .library(name: "Contacts", targets: ["Contacts"]),
        .executable(name: "CoreLocationExample", targets: ["CoreLocationExample"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // No default traits: FullFoundation makes Hummingbird import all of Foundation (and so link ICU's 34 MB of data
        // into lodestar) for a URL-encoded-form edge case the live page does not use; ConfigurationSupport is unused.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        // C side: termios/termios2, pty, i2c-dev ioctls + SMBus (libi2c), FIFO helpers, spawn with clean signal mask.
        .target(name: "CLinux", linkerSettings: [.linkedLibrary("i2c")]),
        .target(name: "CGPS"),  // libgps' header (libgps-dev); the library is dlopen()ed when a --gpsd source starts
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        .target(name: "CMosquitto"),  // libmosquitto's header (libmosquitto-dev); the library is dlopen()ed on first use
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

        // Pure core.
        .target(name: "LocationCore", swiftSettings: strict, linkerSettings: [.linkedLibrary("m")]),
        .target(name: "NMEA", dependencies: ["LocationCore"], swiftSettings: strict),
        // u-blox UBX (and RTCM3 framing) beside NMEA on one byte stream: framer, typed messages, epochs by iTOW.
        .target(name: "UBX", dependencies: ["LocationCore", "NMEA"], swiftSettings: strict),
        // The one syscall layer (EINTR, errno → SystemError, fault-injection hook) and the output sinks.
        .target(name: "LodestarIO", dependencies: ["CLinux", .product(name: "SystemPackage", package: "swift-system")],
                swiftSettings: strict),
        .target(name: "Capture", dependencies: ["LocationCore", "NMEA", "UBX", "LodestarIO", .product(name: "SystemPackage", package: "swift-system")], swiftSettings: strict),
        // The seeded drive simulator (`lodestar simulate`, the tests' truth): route and kinematics, attitude, the
        // position integrator, the GNSS and IMU sensor models, and SplitMix64. Capture: it writes a capture.
        .target(name: "Simulation", dependencies: ["LocationCore", "NMEA", "Capture"], swiftSettings: strict),
        // What the pipeline emits and how it is encoded: OutputEvent, OutputEventConsumer, the three encoders and the
        // JSON decoder. Below Pipeline, so the outputs (NetworkOutput, MQTT, Maps, LivePage) see events, not the
        // pipeline. No LodestarIO: nothing here writes; the sink protocol stays with its syscall-using
        // implementations (its `failure` is a SystemError), and only Pipeline's OutputStage writes to sinks.
        .target(name: "Events", dependencies: ["LocationCore", "NMEA", "Magnetics", "LocationServices"], swiftSettings: strict),
        // The stages and `Pipeline` itself. LodestarIO: OutputStage writes to the OutputSinks.
        .target(name: "Pipeline", dependencies: ["LocationCore", "NMEA", "UBX", "Events", "Magnetics", "Estimation", "LocationServices", "LodestarIO"], swiftSettings: strict),
        // Data files embedded at compile time (WMM coefficients); a C target so no Foundation Bundle is needed.
        .target(name: "LodestarData", exclude: ["WMM.COF"]),
        .target(name: "Magnetics", dependencies: ["LocationCore", "LodestarData"], swiftSettings: strict),

        // The only Swift module over C and hardware.
        // NMEA: the autobaud probe frames sentences; LodestarIO: the one syscall layer.
        .target(name: "Devices", dependencies: ["CLinux", "CGPS", "CUdev", "LocationCore", "NMEA", "UBX", "LodestarIO",
                                          .product(name: "SystemPackage", package: "swift-system")],
                swiftSettings: strict),
        // The one session runner for replay, run, record and LodestarKit: event source → pipeline → sinks/consumers.
        // Devices: the live source (LiveEventQueue); clocks and sleeps come from LodestarIO.
        .target(name: "Session", dependencies: ["LocationCore", "NMEA", "Capture", "Events", "Pipeline", "Magnetics", "Devices",
                                                "LocationServices", "LodestarIO"], swiftSettings: strict),

        // Network outputs (issue 15): gpsd-protocol server, NMEA over TCP/UDP, chrony SOCK/PPS; SwiftNIO event loops.
        .target(name: "NetworkOutput", dependencies: ["CLinux", "LocationCore", "Events",
                                                      .product(name: "NIOCore", package: "swift-nio"),
                                                      .product(name: "NIOPosix", package: "swift-nio")],
                swiftSettings: strict),

        .executableTarget(
            name: "lodestar",
            dependencies: ["LocationCore", "NMEA", "UBX", "Capture", "Simulation", "Events", "Pipeline", "Devices", "Session", "Magnetics", "LocationServices", "Geocoding", "Estimation", "CLinux",
                           "NetworkOutput", "MQTT", "Maps", "LivePage", "LodestarIO", .product(name: "SystemPackage", package: "swift-system"),
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict),
        // libFuzzer entry point (built by `make fuzz`); without -DFUZZING it replays corpus files as a regression runner.
        .executableTarget(name: "LodestarFuzz", dependencies: ["LocationCore", "NMEA", "UBX", "Capture", "Events", "Pipeline", "LodestarIO"], swiftSettings: strict),
        // Micro-benchmarks printed by `make bench` (see docs/benchmarks.md for why not ordo-one/benchmark).
        .executableTarget(name: "LodestarBench", dependencies: ["LocationCore", "NMEA", "UBX", "Capture", "Simulation", "Events", "Pipeline", "LodestarIO", "Magnetics", "CLinux", "Estimation", "LocationServices", "Geocoding", "NetworkOutput"],
                         swiftSettings: strict),

        // Position smoothing (motion-aided Kalman filter) used by the pipeline.
        .target(name: "Estimation", dependencies: ["LocationCore"], swiftSettings: strict),
        // Location services on fixes: update policies, significant change, regions, visits, deferred delivery (pure).
        .target(name: "LocationServices", dependencies: ["LocationCore"], swiftSettings: strict),
        // Offline geocoding: bundled GeoNames / Natural Earth / time-zone data embedded at compile time.
        .target(name: "LodestarGeoData", exclude: ["geodata.bin", "capitals.bin"]),
        .target(name: "Geocoding", dependencies: ["LocationCore", "LodestarGeoData"], swiftSettings: strict),
        // Geocoding quality report on GeoNames places outside the index (`make eval`, scripts/geodata/evalset.py).
        .executableTarget(name: "GeocodingEval", dependencies: ["Geocoding"], swiftSettings: strict),
        // The Core Location-style Swift API (LocationManager, Geocoder) over the pipeline and live sources.
        .target(name: "LodestarKit", dependencies: ["LocationCore", "LodestarIO", .product(name: "SystemPackage", package: "swift-system"), "Capture", "Events", "Pipeline", "Devices", "Session", "Magnetics",
                                                    "LocationServices"], swiftSettings: strict),
        // Maps (SVG/HTML), exports (GPX, GeoJSON, KML, CSV) and the live page's content, from the pipeline's output events.
        .target(name: "Maps", dependencies: ["LocationCore", "LocationServices", "Magnetics", "Events", "Geocoding"], swiftSettings: strict),
        // The live page (`run --http`): Hummingbird serves the page and pushes output events over WebSocket.
        .target(name: "LivePage", dependencies: ["Maps", "Events", "LocationCore", .product(name: "Hummingbird", package: "hummingbird"),
                                                 .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                                                 .product(name: "Logging", package: "swift-log")],
                swiftSettings: strict),
        .executableTarget(name: "WhereAmI", dependencies: ["LodestarKit"], swiftSettings: strict),
        // Apple's Core Location API (CLLocationManager, CLLocation, CLGeocoder, CLMonitor, …) over LodestarKit, and
        // Contacts' CNPostalAddress / CNPostalAddressFormatter for CLPlacemark.postalAddress. docs/api.md.
        .target(name: "Contacts", swiftSettings: strict),
        .target(name: "CoreLocation", dependencies: ["LodestarKit", "Contacts", "LocationCore", "LocationServices", "Geocoding"],
                swiftSettings: strict),
        // On Apple platforms the example and the tests use the system frameworks.
        .executableTarget(name: "CoreLocationExample", dependencies: [.target(name: "CoreLocation", condition: .when(platforms: nonApple))],
                          swiftSettings: strict),
        .executableTarget(name: "SmoothingEval", dependencies: ["Estimation", "Capture", "Events", "Pipeline", "NMEA", "LocationCore", "TestSupport"],
                          swiftSettings: strict),
        // Heading evaluation on the real recordings in ../shared/data/mag (`make eval`).
        .executableTarget(name: "LodestarEval", dependencies: ["Magnetics", "Capture", "LocationCore", "Events", "Pipeline", "LodestarIO"], swiftSettings: strict),

        // MQTT publishing with store-and-forward (libmosquitto), and `lodestar fleet` (MQTT → PostgreSQL/PostGIS over
        // libpq; its own executable so the board's binary does not link libpq). docs/fleet.md.
        .target(name: "MQTT", dependencies: ["CMosquitto", "CLinux", "LocationCore", "LocationServices", "Events", "LodestarIO"], swiftSettings: strict),
        .executableTarget(name: "LodestarFleet", dependencies: ["MQTT", "CPostgres", "CLinux", "LocationCore", "LocationServices", "LodestarIO",
                                                            .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          swiftSettings: strict),
        // Load generator for the fleet benchmark (scripts/fleet-bench.sh).
        .executableTarget(name: "FleetBench", dependencies: ["MQTT", "CLinux", "LocationCore"], swiftSettings: strict),
        .target(name: "TestSupport", dependencies: ["LocationCore", "Estimation", "CLinux", "LodestarIO", "Simulation", "Capture", "Events", "Pipeline", "Devices", "Session", "UBX"], path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "LodestarIOTests", dependencies: ["LodestarIO", "Capture", "TestSupport", .product(name: "SystemPackage", package: "swift-system")], swiftSettings: strict),
        .testTarget(name: "LocationCoreTests", dependencies: ["LocationCore"], swiftSettings: strict),
        .testTarget(name: "NMEATests", dependencies: ["NMEA", "LocationCore", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "UBXTests", dependencies: ["UBX", "NMEA", "LocationCore", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "Simulation", "LocationCore", "NMEA", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "PipelineTests", dependencies: ["Pipeline", "Events", "LocationCore", "NMEA", "UBX", "Capture", "Simulation", "Magnetics", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "DevicesTests", dependencies: ["Devices", "Events", "Pipeline", "LocationCore", "LodestarIO", "NMEA", "CGPS", "CLinux", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "SessionTests", dependencies: ["Session", "Devices", "Capture", "Simulation", "Events", "Pipeline", "LocationCore", "Magnetics", "NMEA", "CLinux",
                                                        "lodestar", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "EstimationTests", dependencies: ["Estimation", "LocationCore", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "MagneticsTests", dependencies: ["Magnetics", "LocationCore", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "LocationServicesTests", dependencies: ["LocationServices", "LocationCore", "Events", "Pipeline", "Capture", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "GeocodingTests", dependencies: ["Geocoding", "LocationCore", "TestSupport"], swiftSettings: strict),
        // Programs in the shapes real Core Location code uses, compiled in Swift 5 language mode, unchanged.
        .testTarget(name: "CoreLocationTests", dependencies: [.target(name: "CoreLocation", condition: .when(platforms: nonApple)),
                                                              .target(name: "Contacts", condition: .when(platforms: nonApple))],
                    swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(name: "LodestarKitTests", dependencies: ["LodestarKit", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "NetworkOutputTests", dependencies: ["NetworkOutput", "Events", "Pipeline", "Capture", "LocationCore", "NMEA", "UBX", "CLinux",
                                                              "TestSupport", .product(name: "NIOCore", package: "swift-nio")],
                    swiftSettings: strict),
        .testTarget(name: "MapsTests", dependencies: ["Maps", "Geocoding", "LocationCore", "TestSupport"], exclude: ["Resources"], swiftSettings: strict),
        .testTarget(name: "CLITests", dependencies: ["TestSupport", "NMEA", "LocationCore"], exclude: ["Expected"], swiftSettings: strict),
        .testTarget(name: "FleetTests", dependencies: ["MQTT", "TestSupport"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
