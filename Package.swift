// swift-tools-version:6.1
// Soundscape for Linux — a hands-free, voice-controlled 3-D audio street assistant.
// One target per pipeline stage (see README "Layout"); each imports only what is left of it or below it.
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

/// Audio and Speech are compiled with optimization in debug builds too: the integration tests run the debug
/// executable, whose HRTF mixer and speech front end are several times slower unoptimized (a minute of the demo
/// rendered in 44 s instead of 7 s). See docs/measurements.md, "How long `make test` takes".
let optimizedEvenInDebug: [SwiftSetting] = strict + [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "Soundscape",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "soundscape", targets: ["soundscape"]),
        // `make bench`: every measured figure against its target; kept out of the product's CLI.
        .executable(name: "soundscape-bench", targets: ["SoundscapeBench"]),
        // Libraries for the fuzzers in Fuzz/ (a separate package that depends on this one).
        .library(name: "SoundscapeMapData", targets: ["MapData"]),
        .library(name: "SoundscapeLocation", targets: ["Location"]),
        .library(name: "SoundscapeSpeech", targets: ["Speech"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // Only the tile server (TileServer target) uses these two.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // Tests only: TestClock, to drive the time injected into the pipeline, the location stage and the replay.
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
    ],
    targets: [
        // ---- C system libraries (module map + pkg-config; Debian packages named in providers) ----
        .systemLibrary(name: "CPocketSphinx", pkgConfig: "pocketsphinx",
                       providers: [.apt(["libpocketsphinx-dev", "libsphinxbase-dev", "pocketsphinx-en-us"])]),
        .systemLibrary(name: "CEspeakNG", pkgConfig: "espeak-ng", providers: [.apt(["libespeak-ng-dev"])]),
        .systemLibrary(name: "CPulseAudio", pkgConfig: "libpulse-simple", providers: [.apt(["libpulse-dev"])]),
        .systemLibrary(name: "CMySofa", pkgConfig: "libmysofa", providers: [.apt(["libmysofa-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CLibdeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(name: "CSpeexDSP", pkgConfig: "speexdsp", providers: [.apt(["libspeexdsp-dev"])]),
        // D-Bus (sd-bus) for iio-sensor-proxy's compass.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),

        // ---- C code of our own ----
        // The C API of libsoundscape-whisper.so (native/whisper/, built by scripts/setup), loaded at run time.
        .systemLibrary(name: "CSoundscapeWhisper"),

        // ---- pipeline stages ----
        .target(name: "Geo", swiftSettings: strict),
        .target(name: "MapData",
                dependencies: ["Geo", "CZlib", "CLibdeflate",
                               .product(name: "GRDB", package: "GRDB.swift"),
                               // sqlite3_bind_* for the importer's bulk inserts (GRDB's own SQLite module).
                               .product(name: "GRDBSQLite", package: "GRDB.swift"),
                               .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                               // SHA-256 of the imported extract.
                               .product(name: "Crypto", package: "swift-crypto"),
                               .product(name: "Logging", package: "swift-log")],
                exclude: ["PBF/proto"],
                swiftSettings: strict),
        // `soundscape tiles serve`: z16 GeoJSON tiles over HTTP from the SQLite map or from PostGIS.
        .target(name: "TileServer",
                dependencies: ["Geo", "MapData",
                               .product(name: "Hummingbird", package: "hummingbird"),
                               .product(name: "PostgresNIO", package: "postgres-nio"),
                               .product(name: "NIOCore", package: "swift-nio"),
                               .product(name: "GRDB", package: "GRDB.swift"),
                               .product(name: "Logging", package: "swift-log"),
                               .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                               .product(name: "UnixSignals", package: "swift-service-lifecycle")],
                swiftSettings: strict),
        .target(name: "Location",
                dependencies: ["Geo", "CSystemd",
                               .product(name: "Logging", package: "swift-log"),
                               .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
                swiftSettings: strict),
        .target(name: "Callouts", dependencies: ["Geo"], resources: [.process("Resources")], swiftSettings: strict),
        .target(name: "Behaviors", dependencies: ["Geo", "MapData", "Location", "Callouts"], swiftSettings: strict),
        .target(name: "Audio",
                dependencies: ["Geo", "CEspeakNG", "CPulseAudio", "CMySofa", "CSpeexDSP",
                               .product(name: "Logging", package: "swift-log")],
                swiftSettings: optimizedEvenInDebug),
        .target(name: "Speech",
                dependencies: ["CPocketSphinx", "CSpeexDSP", "CSoundscapeWhisper", .product(name: "Logging", package: "swift-log")],
                swiftSettings: optimizedEvenInDebug),
        .target(name: "Guidance",
                dependencies: ["Geo", "MapData", "Location", "Callouts", "Behaviors",
                               .product(name: "GRDB", package: "GRDB.swift"),
                               .product(name: "Logging", package: "swift-log")],
                resources: [.process("Resources")],
                swiftSettings: strict),
        .target(name: "App",
                dependencies: ["Geo", "MapData", "Location", "Callouts", "Behaviors", "Audio", "Speech", "Guidance",
                               .product(name: "TOMLKit", package: "TOMLKit"),
                               .product(name: "Logging", package: "swift-log"),
                               .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
                swiftSettings: strict),
        .executableTarget(name: "soundscape",
                          dependencies: ["App", "TileServer", "Geo", "MapData", "Location", "Callouts", "Behaviors", "Audio", "Speech", "Guidance",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser"),
                                         .product(name: "Logging", package: "swift-log"),
                                         .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
                          swiftSettings: strict),
        .executableTarget(name: "SoundscapeBench",
                          dependencies: ["App", "TileServer", "Geo", "MapData", "Audio", "Speech",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser"),
                                         .product(name: "Logging", package: "swift-log")],
                          swiftSettings: strict),

        // ---- tests ----
        .testTarget(name: "GeoTests", dependencies: ["Geo"], swiftSettings: strict),
        .testTarget(name: "MapDataTests", dependencies: ["MapData", "MapTestSupport", "Geo", .product(name: "GRDB", package: "GRDB.swift")], swiftSettings: strict),
        // Needs scripts/with-test-services for its PostGIS half (SOUNDSCAPE_TEST_POSTGRES).
        .testTarget(name: "TileServerTests",
                    dependencies: ["TileServer", "MapData", "MapTestSupport", "Geo", "ProcessTestSupport",
                                   .product(name: "GRDB", package: "GRDB.swift")],
                    swiftSettings: strict),
        .testTarget(name: "LocationTests", dependencies: ["Location", "Geo", "ClockTestSupport", .product(name: "Clocks", package: "swift-clocks"),
                    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")], swiftSettings: strict),
        .target(name: "CalloutsTestSupport", dependencies: ["Callouts"], path: "Tests/Support/CalloutsTestSupport",
                swiftSettings: strict),
        // TestClock helpers shared by the tests that drive injected time.
        .target(name: "ClockTestSupport", dependencies: [.product(name: "Clocks", package: "swift-clocks")], path: "Tests/Support/ClockTestSupport",
                swiftSettings: strict),
        .target(name: "MapTestSupport", dependencies: ["MapData"], path: "Tests/Support/MapTestSupport", swiftSettings: strict),
        .testTarget(name: "CalloutsTests", dependencies: ["Callouts", "CalloutsTestSupport", "ClockTestSupport", "Geo", .product(name: "Clocks", package: "swift-clocks")], swiftSettings: strict),
        .testTarget(name: "BehaviorsTests", dependencies: ["Behaviors", "Callouts", "CalloutsTestSupport", "MapTestSupport", "Geo", "MapData", "Location",
                                                       .product(name: "Clocks", package: "swift-clocks")],
                    swiftSettings: strict),
        .testTarget(name: "AudioTests", dependencies: ["Audio", "Geo"], swiftSettings: strict),
        .testTarget(name: "SpeechTests", dependencies: ["Speech"], swiftSettings: strict),
        .testTarget(name: "GuidanceTests",
                    dependencies: ["Guidance", "MapTestSupport", "Geo", "MapData", "Location", "Callouts", "Behaviors",
                                   .product(name: "GRDB", package: "GRDB.swift")],
                    swiftSettings: strict),
        .testTarget(name: "AppTests", dependencies: ["App", "Location", "Geo", "Behaviors", "Callouts", "Audio", "Guidance", "Speech",
                                                  "ClockTestSupport", .product(name: "Clocks", package: "swift-clocks"),
                                                  .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                                                  .product(name: "Logging", package: "swift-log")],
                    swiftSettings: strict),
        .target(name: "ProcessTestSupport", path: "Tests/Support/ProcessTestSupport", swiftSettings: strict),
        // The whole program (`soundscape run` as a child process) under faults; needs scripts/with-test-services.
        .testTarget(name: "ReliabilityTests",
                    dependencies: ["ProcessTestSupport", "Callouts", "CalloutsTestSupport", "Location", "Geo",
                                   .product(name: "GRDB", package: "GRDB.swift"),
                                   .product(name: "TOMLKit", package: "TOMLKit")],
                    swiftSettings: strict),
        // Needs the real daemons: run under scripts/with-test-services (make test does).
        .testTarget(name: "IntegrationTests",
                    dependencies: ["Audio", "Speech", "Location", "App", "Geo", "MapData", "Callouts", "Guidance", "Behaviors",
                                   "ProcessTestSupport"],
                    swiftSettings: strict),
    ]
)
