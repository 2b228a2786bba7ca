import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Geo
import MapData
import MapTestSupport
import Synchronization
import TileServer

/// A tile server running inside the test process on a free port. When the body returns (or throws) the server is
/// stopped and waited for, so that no server, connection pool or request of one test outlives it into the next.
func withTileServer<T: Sendable>(_ source: any TileSource, _ body: @Sendable (URL) async throws -> T) async throws -> T {
    let (ports, continuation) = AsyncStream<Int>.makeStream()
    let server = TileServer(source: source, port: 0)
    let task = Task {
        // A server that fails to start ends the stream, so the wait for its port below ends too.
        defer { continuation.finish() }
        try await server.run { continuation.yield($0) }
    }
    func stop() async -> Result<Void, any Error> {
        task.cancel()
        return await task.result
    }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next(), port > 0 else {
        let ended = await stop()
        throw TestFailure("the tile server did not start: \(ended)")
    }
    do {
        let result = try await body(URL(string: "http://127.0.0.1:\(port)")!)
        _ = await stop()
        return result
    } catch {
        _ = await stop()
        throw error
    }
}

struct HTTPAnswer: Sendable {
    var status: Int
    var body: Data
    var etag: String?
    var text: String { String(decoding: body, as: UTF8.self) }
}

func get(_ url: URL, ifNoneMatch: String? = nil) async throws -> HTTPAnswer {
    var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 30)
    if let ifNoneMatch { request.setValue(ifNoneMatch, forHTTPHeaderField: "If-None-Match") }
    let (data, response) = try await URLSession.shared.data(for: request)
    guard let http = response as? HTTPURLResponse else { throw TestFailure("\(url): not an HTTP answer: \(response)") }
    return HTTPAnswer(status: http.statusCode, body: data, etag: http.value(forHTTPHeaderField: "ETag"))
}

/// Runs a program, failing with its standard error when it fails.
@discardableResult
func runProgram(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    env.merge(environment) { $1 }
    process.environment = env
    let out = Pipe()
    let errFile = FileManager.default.temporaryDirectory.appendingPathComponent("tiles-stderr-\(UUID().uuidString)")
    FileManager.default.createFile(atPath: errFile.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: errFile) }
    process.standardOutput = out
    process.standardError = try FileHandle(forWritingTo: errFile)
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        let message = (try? String(contentsOf: errFile, encoding: .utf8)) ?? ""
        throw TestFailure("\(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): \(message.suffix(2000))")
    }
    return String(decoding: data, as: UTF8.self)
}

/// The private PostgreSQL of scripts/with-test-services with the Helsinki extract loaded by osm2pgsql, once per test
/// process, into a database of its own.
actor PostGISHelsinki {
    static let shared = PostGISHelsinki()

    struct Loaded: Sendable {
        var configuration: PostGISTileSource.Configuration
        /// The cluster's address with this database (for psql).
        var url: String
        /// The cluster's maintenance database address (for psql).
        var adminURL: String
    }

    private var result: Result<Loaded, any Error>?

    static func get() async throws -> Loaded { try await shared.get() }

    func get() throws -> Loaded {
        if let result { return try result.get() }
        let outcome = Result<Loaded, any Error> {
            guard let admin = ProcessInfo.processInfo.environment["SOUNDSCAPE_TEST_POSTGRES"], !admin.isEmpty else {
                throw TestFailure("SOUNDSCAPE_TEST_POSTGRES is not set: run the tests under scripts/with-test-services (make test does)")
            }
            let pbf = try TestData.helsinki()
            let name = "helsinki_\(getpid())"
            let base = try PostGISTileSource.Configuration(url: admin)
            try runProgram(["psql", admin, "-v", "ON_ERROR_STOP=1", "-q", "-c", "CREATE DATABASE \(name)"])
            var url = URLComponents(string: admin)!
            url.path = "/\(name)"
            let dbURL = url.string!
            try runProgram(["psql", dbURL, "-v", "ON_ERROR_STOP=1", "-q", "-c", "CREATE EXTENSION postgis; CREATE EXTENSION hstore"])
            try runProgram(["osm2pgsql", "--create", "--latlong", "--hstore-all", "--multi-geometry", "--number-processes", "2",
                            "-H", base.host, "-P", String(base.port), "-U", base.user, "-d", name, pbf])
            var configuration = base
            configuration.database = name
            return Loaded(configuration: configuration, url: dbURL, adminURL: admin)
        }
        result = outcome
        return try outcome.get()
    }
}

/// Real Helsinki tiles well inside the extract: the railway station square and the tiles east and south of it.
/// (Near the extract's edge the two loaders keep cut ways and areas differently; see docs/measurements.md.)
let helsinkiTiles: [Tile] = {
    let station = Tile(containing: Coordinate(latitude: 60.1710, longitude: 24.9435), zoom: 16)  // Rautatientori
    return [station, Tile(x: station.x, y: station.y + 1, zoom: 16), Tile(x: station.x + 1, y: station.y, zoom: 16)]
}()
