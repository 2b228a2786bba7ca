import Foundation
import Testing

/// The daemons that scripts/with-test-services starts for these tests, read from the environment.
/// Outside the harness every integration test fails with an explanation instead of passing silently.
enum TestServices {
    struct NotUnderHarness: Error, CustomStringConvertible {
        var description: String {
            "integration tests need the real daemons: run them as `scripts/with-test-services swift test` (make test does)"
        }
    }

    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    static func require() throws {
        guard environment["SOUNDSCAPE_TEST_SERVICES"] == "1" else { throw NotUnderHarness() }
    }

    static func gpsd() throws -> String {
        try require()
        return environment["SOUNDSCAPE_TEST_GPSD"]!
    }

    static var sink: String { environment["SOUNDSCAPE_TEST_SINK"] ?? "spk" }
    static var micSink: String { environment["SOUNDSCAPE_TEST_MIC_SINK"] ?? "micsink" }
    static var source: String { environment["SOUNDSCAPE_TEST_SOURCE"] ?? "vmic" }

    /// The package's root folder (two levels above this file's folder).
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Fetched third-party data (scripts/setup puts it here).
    static var dataDirectory: URL {
        environment["SOUNDSCAPE_DATA"].map { URL(fileURLWithPath: $0) } ?? packageRoot.appendingPathComponent(".data")
    }
}

/// Runs a program to completion and returns its standard output; throws with its stderr when it fails.
@discardableResult
func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> String {
    struct Failed: Error, CustomStringConvertible {
        var description: String
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [executable] + arguments
    if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw Failed(description: "\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(String(decoding: stderr, as: UTF8.self))")
    }
    return String(decoding: stdout, as: UTF8.self)
}

func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("soundscape-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
