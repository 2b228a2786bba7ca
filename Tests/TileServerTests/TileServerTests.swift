import Foundation
import Geo
import MapData
import MapTestSupport
import Testing
import TileServer

/// Real tiles of the Helsinki extract over real HTTP: the served body is the renderer's, with an ETag the server
/// honours, and a bad request is answered with an error naming the tile while the server goes on serving.
@Suite("Tile server (SQLite)")
struct SQLiteTileServerTests {
    @Test("serves the SQLite map's z16 tiles as GeoJSON with an ETag, and 304 when it matches")
    func servesTiles() async throws {
        let helsinki = try await HelsinkiImport.get()
        let source = try SQLiteTileSource(path: helsinki.databasePath, connections: 2)
        let reference = try MapStore.openReadOnly(path: helsinki.databasePath)
        try await withTileServer(source) { base in
            for tile in helsinkiTiles {
                let answer = try await get(base.appendingPathComponent("16/\(tile.x)/\(tile.y).json"))
                #expect(answer.status == 200)
                let expected = try await TileGeoJSON.render(tile: tile, queue: reference)
                #expect(answer.body == expected, "tile 16/\(tile.x)/\(tile.y) differs from the renderer's")
                let count = try TileGeoJSON.check(answer.body, tile: tile)
                #expect(count > 50, "a tile of central Helsinki holds many features, got \(count)")
                let etag = try #require(answer.etag)
                let again = try await get(base.appendingPathComponent("16/\(tile.x)/\(tile.y).json"), ifNoneMatch: etag)
                #expect(again.status == 304)
                #expect(again.body.isEmpty)
            }
        }
    }

    @Test("the tile client loads the served tiles into its own database")
    func clientLoadsServedTiles() async throws {
        let helsinki = try await HelsinkiImport.get()
        let source = try SQLiteTileSource(path: helsinki.databasePath)
        let dir = try TestData.temporaryDirectory("tile-server-client")
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTileServer(source) { base in
            let client = try TileServiceClient(baseURL: base, databasePath: dir.appendingPathComponent("tiles.sqlite").path)
            let centre = Coordinate(latitude: 60.1710, longitude: 24.9435)
            let report = try await client.loadTiles(around: centre, radius: 300)
            #expect(report.isComplete, "\(report.invalid) \(report.failed)")
            #expect(report.fetched.count == report.tiles.count)
            #expect(report.featuresAdded > 200)
            let view = try SpatialDataView(path: dir.appendingPathComponent("tiles.sqlite").path)
            let road = try #require(try view.nearestRoad(to: Coordinate(latitude: 60.170430, longitude: 24.942656)))
            #expect(road.road.name != nil)
        }
    }

    @Test("bad requests get an error naming the tile; the server goes on serving")
    func badRequests() async throws {
        let helsinki = try await HelsinkiImport.get()
        let source = try SQLiteTileSource(path: helsinki.databasePath)
        let tile = helsinkiTiles[0]
        try await withTileServer(source) { base in
            let outside = try await get(base.appendingPathComponent("16/70000/\(tile.y).json"))
            #expect(outside.status == 400)
            #expect(outside.text.contains("tile 16/70000/\(tile.y)"), "\(outside.text)")
            let words = try await get(base.appendingPathComponent("16/abc/\(tile.y).json"))
            #expect(words.status == 400)
            #expect(words.text.contains("tile 16/abc/\(tile.y)"), "\(words.text)")
            let png = try await get(base.appendingPathComponent("16/\(tile.x)/\(tile.y).png"))
            #expect(png.status == 404)
            #expect(png.text.contains("16/x/y.json"), "\(png.text)")
            let good = try await get(base.appendingPathComponent("16/\(tile.x)/\(tile.y).json"))
            #expect(good.status == 200)
            #expect(try TileGeoJSON.check(good.body, tile: tile) > 0)
        }
    }

    @Test("a tile that is not GeoJSON, or holds another tile's features, is refused naming the tile")
    func clientRefusesWrongTiles() async throws {
        let helsinki = try await HelsinkiImport.get()
        let reference = try MapStore.openReadOnly(path: helsinki.databasePath)
        let tile = helsinkiTiles[0]
        let other = Tile(x: tile.x + 1, y: tile.y, zoom: 16)
        let otherBody = try await TileGeoJSON.render(tile: other, queue: reference)
        #expect(try TileGeoJSON.check(otherBody, tile: other) > 50)
        do {
            _ = try TileGeoJSON.check(otherBody, tile: tile)
            Issue.record("another tile's features were accepted")
        } catch {
            #expect("\(error)".contains("wrong tile coordinates"))
            #expect("\(error)".contains("tile 16/\(tile.x)/\(tile.y)"), "\(error)")
        }
        do {
            _ = try TileGeoJSON.check(Data("<html>502 Bad Gateway</html>".utf8), tile: tile)
            Issue.record("HTML was accepted as a tile")
        } catch {
            #expect("\(error)".contains("JSON"), "\(error)")
        }
    }
}

@Suite("Tile server (PostGIS)")
struct PostGISTileServerTests {
    /// Intersections and entrance lists are derived by the importer from the road graph, which osm2pgsql's tables
    /// do not keep; every other feature must be the same.
    static func ordinary(_ keys: Set<String>) -> Set<String> {
        keys.filter { !$0.hasSuffix("=gd_intersection") && !$0.contains("|gd_entrance_list=") }
    }

    @Test("tiles from PostGIS (osm2pgsql) and from the SQLite map hold the same features")
    func sameFeatures() async throws {
        let loaded = try await PostGISHelsinki.get()
        let helsinki = try await HelsinkiImport.get()
        let reference = try MapStore.openReadOnly(path: helsinki.databasePath)
        let source = try PostGISTileSource(configuration: loaded.configuration)
        try await withTileServer(source) { base in
            for tile in helsinkiTiles {
                let answer = try await get(base.appendingPathComponent("16/\(tile.x)/\(tile.y).json"))
                #expect(answer.status == 200, "\(answer.text.prefix(300))")
                #expect(try TileGeoJSON.check(answer.body, tile: tile) > 0)
                let fromPostGIS = try TileGeoJSON.featureKeys(answer.body)
                let fromSQLite = Self.ordinary(try TileGeoJSON.featureKeys(try await TileGeoJSON.render(tile: tile, queue: reference)))
                #expect(fromSQLite.count > 50)
                let onlySQLite = fromSQLite.subtracting(fromPostGIS), onlyPostGIS = fromPostGIS.subtracting(fromSQLite)
                #expect(onlySQLite.isEmpty && onlyPostGIS.isEmpty,
                        "tile 16/\(tile.x)/\(tile.y): only in SQLite \(onlySQLite.sorted().prefix(20)); only in PostGIS \(onlyPostGIS.sorted().prefix(20))")
            }
        }
    }

    @Test("PostgreSQL gone: an error naming the server, and the server goes on serving")
    func postgresGone() async throws {
        let loaded = try await PostGISHelsinki.get()
        let tile = helsinkiTiles[0]
        // Nothing listens on this port: every tile request fails, naming the server, within the timeout.
        var unreachable = loaded.configuration
        unreachable.port = 1
        unreachable.timeout = .seconds(2)
        try await withTileServer(try PostGISTileSource(configuration: unreachable)) { base in
            let answer = try await get(base.appendingPathComponent("16/\(tile.x)/\(tile.y).json"))
            #expect(answer.status == 503)
            #expect(answer.text.contains("tile 16/\(tile.x)/\(tile.y)") && answer.text.contains("PostgreSQL at 127.0.0.1:1/"),
                    "\(answer.text)")
        }
        // The server's connections are killed while requests are in flight: each answer is the tile or an error
        // naming the server, and afterwards tiles are served again.
        let source = try PostGISTileSource(configuration: loaded.configuration)
        try await withTileServer(source) { base in
            let url = base.appendingPathComponent("16/\(tile.x)/\(tile.y).json")
            let first = try await get(url)
            #expect(first.status == 200)
            let answers = try await withThrowingTaskGroup(of: HTTPAnswer?.self) { group in
                for _ in 0..<16 { group.addTask { try await get(url) } }
                group.addTask {
                    try runProgram(["psql", loaded.adminURL, "-q", "-tA", "-c",
                                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '\(loaded.configuration.database)'"])
                    return nil
                }
                var out: [HTTPAnswer] = []
                for try await answer in group { if let answer { out.append(answer) } }
                return out
            }
            #expect(answers.count == 16)
            for answer in answers where answer.status != 200 {
                #expect(answer.status == 503)
                #expect(answer.text.contains("PostgreSQL at"), "\(answer.text)")
            }
            var recovered = false
            for _ in 0..<10 where !recovered {
                recovered = try await get(url).status == 200
                if !recovered { try await Task.sleep(for: .milliseconds(300)) }
            }
            #expect(recovered, "the server serves tiles again once PostgreSQL answers")
        }
    }
}
