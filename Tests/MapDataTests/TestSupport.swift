import Foundation
import Geo
@testable import MapData
import Testing

/// Where the test data lives: `$SOUNDSCAPE_DATA`, else `<package root>/.data` (fetched by
/// scripts/setup).
enum TestData {
    static var packageRoot: URL {
        // Resolve symlinks so that a scratch package linking to these sources still finds the data.
        URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static var dataDirectory: URL {
        if let env = ProcessInfo.processInfo.environment["SOUNDSCAPE_DATA"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        return packageRoot.appendingPathComponent(".data")
    }

    static var helsinkiPath: String { dataDirectory.appendingPathComponent("osm/Helsinki.osm.pbf").path }

    /// The Helsinki extract; a test that needs it fails (not skips) when it is missing.
    static func helsinki() throws -> String {
        let path = helsinkiPath
        guard FileManager.default.fileExists(atPath: path) else {
            throw TestFailure("missing \(path): run scripts/setup to fetch the Helsinki extract")
        }
        return path
    }

    /// A fresh temporary directory.
    static func temporaryDirectory(_ name: String = "mapdata") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(name)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Deleted when the test process exits.
nonisolated(unsafe) private var sharedDirectoryToRemove: String?

/// Imports Helsinki once per test run; every suite shares the result.
actor SharedHelsinki {
    static let shared = SharedHelsinki()

    struct Imported: Sendable {
        var databasePath: String
        var summary: MapImportSummary
        var view: SpatialDataView
    }

    private var result: Result<Imported, any Error>?

    func get() throws -> Imported {
        if let result { return try result.get() }
        let outcome = Result<Imported, any Error> {
            let pbf = try TestData.helsinki()
            let dir = try TestData.temporaryDirectory("helsinki-shared")
            sharedDirectoryToRemove = dir.path
            atexit {
                if let path = sharedDirectoryToRemove { try? FileManager.default.removeItem(atPath: path) }
            }
            let db = dir.appendingPathComponent("map.sqlite").path
            let summary = try MapImporter.importPBF(at: pbf, into: db)
            return Imported(databasePath: db, summary: summary, view: try SpatialDataView(path: db))
        }
        result = outcome
        return try outcome.get()
    }

    static func get() async throws -> Imported { try await shared.get() }
}

/// Runs osmium-tool (Debian's osmium-tool, installed by scripts/setup) and returns its stdout.
enum Osmium {
    static func run(_ arguments: [String], acceptFailure: Bool = false) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["osmium"] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if acceptFailure {
            // Some commands (check-refs) exit 1 to say "found problems" and report on stderr.
            return String(decoding: data, as: UTF8.self) + String(decoding: errData, as: UTF8.self)
        }
        guard process.terminationStatus == 0 else {
            throw TestFailure("osmium \(arguments.joined(separator: " ")) failed: \(String(decoding: errData, as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// One element of `osmium cat -f opl` output.
    struct OPLElement {
        var id: String
        var tags: [String: String]
        var nodes: [String]
        var latitude: Double?
        var longitude: Double?
    }

    /// Parses OPL lines (tags and node lists; OPL escapes like %20% are decoded).
    static func parseOPL(_ text: String) -> [OPLElement] {
        text.split(separator: "\n").map { line in
            let fields = line.split(separator: " ")
            var element = OPLElement(id: String(fields[0]), tags: [:], nodes: [])
            for field in fields.dropFirst() {
                guard let first = field.first else { continue }
                let rest = field.dropFirst()
                switch first {
                case "T":
                    for pair in rest.split(separator: ",") {
                        let kv = pair.split(separator: "=", maxSplits: 1).map { unescape(String($0)) }
                        if kv.count == 2 { element.tags[kv[0]] = kv[1] }
                    }
                case "N": element.nodes = rest.split(separator: ",").map(String.init)
                case "x": element.longitude = Double(rest)
                case "y": element.latitude = Double(rest)
                default: break
                }
            }
            return element
        }
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

extension Coordinate {
    /// Haversine distance written out here so that the oracle does not share code with MapData.
    func haversine(to other: Coordinate) -> Double {
        let r = 6_371_008.8
        let φ1 = latitude * .pi / 180, φ2 = other.latitude * .pi / 180
        let dφ = φ2 - φ1, dλ = (other.longitude - longitude) * .pi / 180
        let a = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return 2 * r * asin(min(1, a.squareRoot()))
    }
}
