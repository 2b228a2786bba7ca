import Foundation
import Geo
@testable import Guidance
import MapData
import Testing

enum TestData {
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static var dataDirectory: URL {
        if let env = ProcessInfo.processInfo.environment["SOUNDSCAPE_DATA"], !env.isEmpty { return URL(fileURLWithPath: env) }
        return packageRoot.appendingPathComponent(".data")
    }

    static var helsinkiPath: String { dataDirectory.appendingPathComponent("osm/Helsinki.osm.pbf").path }

    static func temporaryDirectory(_ name: String = "guidance") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

nonisolated(unsafe) private var guidanceSharedDirectory: String?

/// Imports the bundled Helsinki extract once per test run.
actor HelsinkiMap {
    static let shared = HelsinkiMap()

    struct Loaded: Sendable {
        var databasePath: String
        var view: SpatialDataView
        var planner: RoutePlanner
    }

    private var result: Result<Loaded, any Error>?

    func get() throws -> Loaded {
        if let result { return try result.get() }
        let outcome = Result<Loaded, any Error> {
            let pbf = TestData.helsinkiPath
            guard FileManager.default.fileExists(atPath: pbf) else { throw TestFailure("missing \(pbf): run scripts/setup") }
            let dir = try TestData.temporaryDirectory("guidance-helsinki")
            guidanceSharedDirectory = dir.path
            atexit { if let p = guidanceSharedDirectory { try? FileManager.default.removeItem(atPath: p) } }
            let db = dir.appendingPathComponent("map.sqlite").path
            _ = try MapImporter.importPBF(at: pbf, into: db)
            return Loaded(databasePath: db, view: try SpatialDataView(path: db), planner: try RoutePlanner.load(mapPath: db))
        }
        result = outcome
        return try outcome.get()
    }

    static func get() async throws -> Loaded { try await shared.get() }
}

/// osmium-tool, as an independent oracle for names in the extract.
enum Osmium {
    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["osmium"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("osmium \(arguments.joined(separator: " ")) failed") }
        return String(decoding: data, as: UTF8.self)
    }

    /// name tags of the given ways, read with `osmium getid -f opl`.
    static func wayNames(_ ids: [Int64]) throws -> [Int64: String] {
        let text = try run(["getid", "-f", "opl", TestData.helsinkiPath] + ids.map { "w\($0)" })
        var out: [Int64: String] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard let first = fields.first, first.hasPrefix("w"), let id = Int64(first.dropFirst()) else { continue }
            for field in fields where field.hasPrefix("T") {
                for pair in field.dropFirst().split(separator: ",") {
                    let kv = pair.split(separator: "=", maxSplits: 1)
                    if kv.count == 2 && kv[0] == "name" { out[id] = unescape(String(kv[1])) }
                }
            }
        }
        return out
    }

    static func unescape(_ s: String) -> String {
        guard s.contains("%") else { return s }
        var out = ""
        var parts = s.split(separator: "%", omittingEmptySubsequences: false)[...]
        out += parts.removeFirst()
        while parts.count >= 2 {
            let hex = parts.removeFirst()
            if let v = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(v) { out.unicodeScalars.append(scalar) }
            out += parts.removeFirst()
        }
        return out
    }
}

/// A deterministic pseudo-random source (tests must not flake).
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
