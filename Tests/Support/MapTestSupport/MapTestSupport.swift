import Foundation
import MapData
import Synchronization

/// Shared by the test targets that need the real map: where the test data is, the bundled Helsinki extract imported
/// once per test process, and osmium-tool as an independent oracle.

public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Where the test data lives: `$SOUNDSCAPE_DATA`, else `<package root>/.data` (fetched by scripts/setup).
public enum TestData {
    /// The package root (this file is Tests/Support/MapTestSupport/MapTestSupport.swift). Symlinks are resolved so
    /// that a scratch package linking to these sources still finds the data.
    public static var packageRoot: URL {
        var url = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        for _ in 0..<4 { url = url.deletingLastPathComponent() }
        return url
    }

    public static var dataDirectory: URL {
        if let env = ProcessInfo.processInfo.environment["SOUNDSCAPE_DATA"], !env.isEmpty { return URL(fileURLWithPath: env) }
        return packageRoot.appendingPathComponent(".data")
    }

    public static var helsinkiPath: String { dataDirectory.appendingPathComponent("osm/Helsinki.osm.pbf").path }

    /// Recorded walks checked against the map (Tests/Fixtures/golden).
    public static var golden: URL { packageRoot.appendingPathComponent("Tests/Fixtures/golden") }

    /// The Helsinki extract; a test that needs it fails (not skips) when it is missing.
    public static func helsinki() throws -> String {
        let path = helsinkiPath
        guard FileManager.default.fileExists(atPath: path) else {
            throw TestFailure("missing \(path): run scripts/setup to fetch the Helsinki extract")
        }
        return path
    }

    /// A fresh temporary directory.
    public static func temporaryDirectory(_ name: String = "soundscape-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(name)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// The folder of the shared import, removed when the test process exits.
private let importFolder = Mutex<String?>(nil)

/// The bundled Helsinki extract imported by the real importer once per test process; every suite of every test
/// target shares the database.
public actor HelsinkiImport {
    public static let shared = HelsinkiImport()

    public struct Imported: Sendable {
        public var databasePath: String
        public var summary: MapImportSummary
    }

    private var result: Result<Imported, any Error>?

    public func get() throws -> Imported {
        if let result { return try result.get() }
        let outcome = Result<Imported, any Error> {
            let pbf = try TestData.helsinki()
            let dir = try TestData.temporaryDirectory("helsinki-shared")
            importFolder.withLock { $0 = dir.path }
            atexit { if let path = importFolder.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) } }
            let db = dir.appendingPathComponent("map.sqlite").path
            let summary = try MapImporter.importPBF(at: pbf, into: db)
            return Imported(databasePath: db, summary: summary)
        }
        result = outcome
        return try outcome.get()
    }

    public static func get() async throws -> Imported { try await shared.get() }
}

/// Runs osmium-tool (Debian's osmium-tool, installed by scripts/setup): an oracle that shares no code with MapData.
public enum Osmium {
    public static func run(_ arguments: [String], acceptFailure: Bool = false) throws -> String {
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
    public struct OPLElement: Sendable {
        public var id: String
        public var tags: [String: String]
        public var nodes: [String]
        public var latitude: Double?
        public var longitude: Double?
    }

    /// Parses OPL lines (tags and node lists; OPL escapes like %20% are decoded).
    public static func parseOPL(_ text: String) -> [OPLElement] {
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

    /// The name tags of the given ways in the Helsinki extract.
    public static func wayNames(_ ids: [Int64]) throws -> [Int64: String] {
        let text = try run(["getid", "-f", "opl", TestData.helsinkiPath] + ids.map { "w\($0)" })
        var out: [Int64: String] = [:]
        for element in parseOPL(text) {
            guard element.id.hasPrefix("w"), let id = Int64(element.id.dropFirst()), let name = element.tags["name"] else { continue }
            out[id] = name
        }
        return out
    }

    public static func unescape(_ s: String) -> String {
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
public struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    public init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
