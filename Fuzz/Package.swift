// swift-tools-version:6.1
// libFuzzer targets for Soundscape's parsers of untrusted input. A package of its own, so that the root package's
// normal builds never carry the fuzzer instrumentation. Build and run them with `make fuzz`, which does:
//
//   swift build -c release --package-path Fuzz --scratch-path .build-fuzz \
//       -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
//   .build-fuzz/release/fuzz-nmea CORPUS -runs=1000000
import PackageDescription

let package = Package(
    name: "SoundscapeFuzz",
    dependencies: [.package(name: "Soundscape", path: "..")],
    targets: [
        .target(name: "CFuzzDriver", path: "Sources/CFuzzDriver"),
        .executableTarget(name: "fuzz-grammar", dependencies: ["CFuzzDriver", .product(name: "SoundscapeSpeech", package: "Soundscape")],
                          path: "Sources/fuzz-grammar"),
        .executableTarget(name: "fuzz-tile-json", dependencies: ["CFuzzDriver", .product(name: "SoundscapeMapData", package: "Soundscape")],
                          path: "Sources/fuzz-tile-json"),
        .executableTarget(name: "fuzz-gpsd-json", dependencies: ["CFuzzDriver", .product(name: "SoundscapeLocation", package: "Soundscape")],
                          path: "Sources/fuzz-gpsd-json"),
        .executableTarget(name: "fuzz-nmea", dependencies: ["CFuzzDriver", .product(name: "SoundscapeLocation", package: "Soundscape")],
                          path: "Sources/fuzz-nmea"),
        .executableTarget(name: "fuzz-pbf-block", dependencies: ["CFuzzDriver", .product(name: "SoundscapeMapData", package: "Soundscape")],
                          path: "Sources/fuzz-pbf-block"),
    ]
)
