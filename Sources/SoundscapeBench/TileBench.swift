import Foundation
import Geo
import MapData
import TileServer

/// `soundscape-bench --only tiles`: requests per second and 99th-percentile latency of `soundscape tiles serve` at
/// 1, 8 and 32 concurrent clients, from the SQLite map and from PostGIS loaded by osm2pgsql, side by side. The load
/// comes from wrk (a second process, keep-alive connections) cycling through every z16 tile of the extract.
enum TileBench {
    struct Load: Sendable {
        var requestsPerSecond: Double
        var p99Milliseconds: Double
        var errors: Int
    }

    static func run(pbf: String, workDir: String, postgres: String?, seconds: Int, clients: [Int] = [1, 8, 32]) async throws -> [BenchFigure] {
        let db = (workDir as NSString).appendingPathComponent("tiles-bench.sqlite")
        _ = try MapImporter.importPBF(at: pbf, into: db)
        let metadata = try SpatialDataView(path: db).metadata
        guard let b = metadata.bbox, b.count == 4 else { throw BenchError("\(db): the import has no bounding box") }
        let tiles = tilesCovering(BoundingBox(minLatitude: b[0], minLongitude: b[1], maxLatitude: b[2], maxLongitude: b[3]))
        let script = (workDir as NSString).appendingPathComponent("tiles.lua")
        let paths = tiles.map { "\"/16/\($0.x)/\($0.y).json\"" }.joined(separator: ",\n")
        try """
            paths = {\(paths)}
            i = 0
            request = function()
              i = i + 1
              return wrk.format("GET", paths[(i % #paths) + 1])
            end
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let size = (try? FileManager.default.attributesOfItem(atPath: pbf)[.size] as? Int).map { $0 / 1024 } ?? 0
        let label = "\((pbf as NSString).lastPathComponent) (\(size) KB, \(tiles.count) tiles)"
        printError("bench: tiles of \(label)")

        var sources: [(String, any TileSource)] = [("SQLite", try SQLiteTileSource(path: db))]
        if let postgres {
            let database = "tiles_bench_\(getpid())"
            try PostGISLoader.load(pbf: pbf, admin: postgres, database: database)
            var configuration = try PostGISTileSource.Configuration(url: postgres)
            configuration.database = database
            sources.append(("PostGIS", try PostGISTileSource(configuration: configuration)))
        } else {
            printError("bench: no --postgres given; PostGIS tiles are not measured")
        }
        var figures: [BenchFigure] = []
        for (name, source) in sources {
            let results = try await withBenchServer(source) { port in
                var out: [(Int, Load)] = []
                // One short warm-up, then each concurrency in turn.
                _ = try wrk(port: port, connections: 1, seconds: 1, script: script)
                for c in clients { out.append((c, try wrk(port: port, connections: c, seconds: seconds, script: script))) }
                return out
            }
            for (c, load) in results {
                figures.append(BenchFigure("tiles \(name), \(c) client\(c == 1 ? "" : "s"): requests/s", load.requestsPerSecond, "req/s"))
                figures.append(BenchFigure("tiles \(name), \(c) client\(c == 1 ? "" : "s"): p99 latency", load.p99Milliseconds, "ms"))
                if load.errors > 0 {
                    figures.append(.atMost("tiles \(name), \(c) client\(c == 1 ? "" : "s"): failed requests", Double(load.errors), "", 0))
                }
            }
        }
        return figures
    }

    /// Every z16 tile that meets the box.
    static func tilesCovering(_ b: BoundingBox) -> [Tile] {
        let nw = Tile(containing: Coordinate(latitude: b.maxLatitude, longitude: b.minLongitude))
        let se = Tile(containing: Coordinate(latitude: b.minLatitude, longitude: b.maxLongitude))
        return (nw.y...se.y).flatMap { y in (nw.x...se.x).map { Tile(x: $0, y: y, zoom: 16) } }
    }

    static func withBenchServer<T: Sendable>(_ source: any TileSource, _ body: @Sendable (Int) async throws -> T) async throws -> T {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let server = TileServer(source: source, port: 0)
        let task = Task { try await server.run { continuation.yield($0) } }
        defer { task.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else { throw BenchError("the tile server did not start") }
        return try await body(port)
    }

    /// Runs wrk and reads its requests per second, 99th percentile and non-2xx/3xx or socket errors.
    static func wrk(port: Int, connections: Int, seconds: Int, script: String) throws -> Load {
        let threads = min(connections, 2)
        // A 30 s timeout (wrk's default is 2 s): a slow answer counts in the latency, and only a real failure as one.
        let output = try runTool(["wrk", "-t\(threads)", "-c\(connections)", "-d\(seconds)s", "--timeout", "30s", "--latency", "-s", script,
                                  "http://127.0.0.1:\(port)"])
        var load = Load(requestsPerSecond: 0, p99Milliseconds: 0, errors: 0)
        for line in output.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if line.hasPrefix("Requests/sec:"), let v = fields.last.flatMap({ Double($0) }) { load.requestsPerSecond = v }
            if line.hasPrefix("99%"), let v = fields.last { load.p99Milliseconds = milliseconds(String(v)) }
            if line.hasPrefix("Non-2xx or 3xx responses:"), let v = fields.last.flatMap({ Int($0) }) { load.errors += v }
            if line.hasPrefix("Socket errors:") {
                // "Socket errors: connect 0, read 0, write 0, timeout 0"
                load.errors += line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }.reduce(0, +)
            }
        }
        guard output.contains("Requests/sec:") else { throw BenchError("wrk printed no rate:\n\(output)") }
        return load
    }

    /// wrk's durations: "812.00us", "12.34ms", "1.02s".
    static func milliseconds(_ text: String) -> Double {
        if text.hasSuffix("us"), let v = Double(text.dropLast(2)) { return v / 1000 }
        if text.hasSuffix("ms"), let v = Double(text.dropLast(2)) { return v }
        if text.hasSuffix("m"), let v = Double(text.dropLast(1)) { return v * 60_000 }
        if text.hasSuffix("s"), let v = Double(text.dropLast(1)) { return v * 1000 }
        return Double(text) ?? 0
    }

    struct BenchError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @discardableResult
    static func runTool(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw BenchError("\(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): \(text.suffix(2000))")
        }
        return text
    }
}

/// Loads an extract into a new PostGIS database with osm2pgsql, the way `soundscape tiles serve --postgres` reads it.
enum PostGISLoader {
    static func load(pbf: String, admin: String, database: String) throws {
        let base = try PostGISTileSource.Configuration(url: admin)
        try TileBench.runTool(["psql", admin, "-v", "ON_ERROR_STOP=1", "-q", "-c", "CREATE DATABASE \(database)"])
        var url = URLComponents(string: admin)!
        url.path = "/\(database)"
        try TileBench.runTool(["psql", url.string!, "-v", "ON_ERROR_STOP=1", "-q", "-c", "CREATE EXTENSION postgis; CREATE EXTENSION hstore"])
        try TileBench.runTool(["osm2pgsql", "--create", "--latlong", "--hstore-all", "--multi-geometry", "--number-processes", "2",
                               "-H", base.host, "-P", String(base.port), "-U", base.user, "-d", database, pbf])
    }
}
