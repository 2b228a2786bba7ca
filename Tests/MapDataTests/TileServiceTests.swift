import Foundation
import Geo
import GRDB
@testable import MapData
import MapTestSupport
import Testing

@Suite("Tile service client")
struct TileServiceTests {
    /// Feature ids of the local database that the rendering of these tiles contains.
    static func localFeatureIDs(in tiles: [Tile], view: SpatialDataView) throws -> Set<Int64> {
        try view.queue.read { db in
            var ids = Set<Int64>()
            for tile in tiles {
                let b = tile.bounds
                ids.formUnion(try Int64.fetchAll(db, sql: """
                    SELECT id FROM feature_index WHERE min_lat <= ? AND max_lat >= ? AND min_lon <= ? AND max_lon >= ?
                    """, arguments: [b.maxLatitude, b.minLatitude, b.maxLongitude, b.minLongitude]))
            }
            return ids
        }
    }

    @Test("loads the tiles within 1000 m from a local server into the same tables, skipping a broken tile")
    func loadFromLocalServer() async throws {
        let helsinki = try await SharedHelsinki.get()
        let local = helsinki.view
        let dir = try TestData.temporaryDirectory("tiles")
        defer { try? FileManager.default.removeItem(at: dir) }
        let served = dir.appendingPathComponent("www")

        // Serve tiles rendered from the imported Helsinki database.
        let centre = Coordinate(latitude: 60.1710, longitude: 24.9435)  // Rautatientori
        let tiles = Tile.tiles(around: centre, radius: 1000, zoom: 16)
        #expect(tiles.count >= 25)
        let ownTile = Tile(containing: centre, zoom: 16)
        for tile in tiles {
            let folder = served.appendingPathComponent("16/\(tile.x)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try TileGeoJSON.render(tile: tile, databasePath: helsinki.databasePath)
                .write(to: folder.appendingPathComponent("\(tile.y).json"))
        }
        // One tile of the data area is corrupt.
        let broken = Tile(x: ownTile.x + 1, y: ownTile.y, zoom: 16)
        let brokenFile = served.appendingPathComponent("16/\(broken.x)/\(broken.y).json")
        let goodBrokenTile = try Data(contentsOf: brokenFile)
        try Data("{\"type\": \"FeatureCollection\", \"features\": [ {\"type\": ".utf8).write(to: brokenFile)

        let server = try LocalHTTPServer(root: served)
        defer { server.stop() }
        let db = dir.appendingPathComponent("tiles.sqlite").path
        let client = try TileServiceClient(baseURL: server.baseURL, databasePath: db)
        let t0 = Date(timeIntervalSince1970: 1_750_000_000)

        // 1. First load: everything fetched except the broken tile, which is reported and skipped.
        let first = try await client.loadTiles(around: centre, radius: 1000, now: t0)
        #expect(Set(first.tiles) == Set(tiles))
        #expect(first.invalid.map(\.tile) == [broken])
        #expect(first.invalid.first?.reason.contains("JSON") == true)
        #expect(first.failed.isEmpty)
        #expect(first.fetched.count == tiles.count - 1)
        #expect(server.requests.first?.path == "/16/\(ownTile.x)/\(ownTile.y).json", "the user's own tile comes first")

        // The tile database holds exactly the features of the valid tiles.
        let validTiles = tiles.filter { $0 != broken }
        let expectedIDs = try Self.localFeatureIDs(in: validTiles, view: local)
        let stats = try MapStore.statistics(path: db)
        #expect(stats.features == expectedIDs.count)
        #expect(first.featuresAdded == expectedIDs.count)
        let expectedIntersections = try await local.queue.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM features WHERE super_category = 'intersection' AND id IN (\(expectedIDs.map(String.init).joined(separator: ",")))") ?? -1
        }
        #expect(stats.intersections == expectedIntersections)
        #expect(stats.entranceLists > 0)
        #expect(stats.cachedTiles == validTiles.count)

        // The same questions get the same answers from both stores.
        let remote = try SpatialDataView(path: db)
        #expect(remote.metadata.attribution == "© OpenStreetMap contributors")
        let probe = Coordinate(latitude: 60.170430, longitude: 24.942656)
        let a = try #require(try local.nearestIntersection(to: probe))
        let b = try #require(try remote.nearestIntersection(to: probe))
        #expect(a.roadNames.sorted() == b.roadNames.sorted())
        #expect(a.legs.count == b.legs.count)
        for (x, y) in zip(a.legs.sorted { $0.bearing < $1.bearing }, b.legs.sorted { $0.bearing < $1.bearing }) {
            #expect(x.wayID == y.wayID && abs(Angle.signedDifference(x.bearing, y.bearing)) < 1)
        }
        for point in [probe, Coordinate(latitude: 60.1676, longitude: 24.9516)] {
            let la = try local.features(near: point, radius: 60).map(\.feature.key).sorted()
            let lb = try remote.features(near: point, radius: 60).map(\.feature.key).sorted()
            #expect(la == lb)
        }
        #expect(try remote.lookup(spokenName: "Havis Amanda").first?.feature.key == "n1376320186")
        #expect(try remote.nearestRoad(to: probe)?.road.name == (try local.nearestRoad(to: probe)?.road.name))
        let stockmann = try #require(try remote.feature(key: "w122595241"))
        #expect(try remote.entrances(ofBuilding: stockmann.id).count == 7)

        // 2. Within the time to live nothing is fetched again (except the tile that failed).
        let before = server.requests.count
        let second = try await client.loadTiles(around: centre, radius: 1000, now: t0.addingTimeInterval(3600))
        #expect(second.fresh.count == tiles.count - 1)
        #expect(server.requests.count - before == 1)
        #expect(second.invalid.map(\.tile) == [broken])

        // 3. After 7 days every tile is revalidated with its ETag; unchanged tiles answer 304.
        try goodBrokenTile.write(to: brokenFile)
        let t8 = t0.addingTimeInterval(8 * 24 * 3600)
        let beforeThird = server.requests.count
        let third = try await client.loadTiles(around: centre, radius: 1000, now: t8)
        #expect(third.notModified.count == tiles.count - 1)
        #expect(third.fetched == [broken])
        #expect(third.isComplete)
        let thirdRequests = server.requests.dropFirst(beforeThird)
        #expect(thirdRequests.filter { $0.ifNoneMatch != nil }.count == tiles.count - 1)
        #expect(thirdRequests.filter { $0.status == 304 }.count == tiles.count - 1)
        let expiries = try await DatabaseQueue(path: db).read { db in
            try Double.fetchAll(db, sql: "SELECT expires_at FROM tile_cache")
        }
        #expect(expiries.allSatisfy { abs($0 - (t8.timeIntervalSince1970 + 7 * 24 * 3600)) < 1 })
        let allIDs = try Self.localFeatureIDs(in: tiles, view: local)
        #expect(try MapStore.statistics(path: db).features == allIDs.count)

        // 4. A tile whose content changed is replaced; features only it held disappear.
        let emptied = tiles.first { $0 != ownTile && $0 != broken }!
        try Data("{\"type\":\"FeatureCollection\",\"features\":[]}".utf8)
            .write(to: served.appendingPathComponent("16/\(emptied.x)/\(emptied.y).json"))
        let fourth = try await client.loadTiles(around: centre, radius: 1000, now: t8.addingTimeInterval(8 * 24 * 3600))
        #expect(fourth.fetched == [emptied])
        let remaining = try Self.localFeatureIDs(in: tiles.filter { $0 != emptied }, view: local)
        #expect(try MapStore.statistics(path: db).features == remaining.count)
    }

    @Test("HTTP errors are reported as failures, not as data")
    func httpErrors() async throws {
        let dir = try TestData.temporaryDirectory("tiles404")
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try LocalHTTPServer(root: dir.appendingPathComponent("empty"))
        defer { server.stop() }
        let client = try TileServiceClient(baseURL: server.baseURL, databasePath: dir.appendingPathComponent("t.sqlite").path)
        let report = try await client.loadTiles(around: Coordinate(latitude: 60.17, longitude: 24.94), radius: 100)
        #expect(report.fetched.isEmpty)
        #expect(report.failed.count == report.tiles.count)
        #expect(report.failed.allSatisfy { $0.reason.contains("404") })
        #expect(try MapStore.statistics(path: dir.appendingPathComponent("t.sqlite").path).features == 0)
    }

    @Test("tile GeoJSON follows the service format")
    func renderFormat() async throws {
        let helsinki = try await SharedHelsinki.get()
        let tile = Tile(containing: Coordinate(latitude: 60.1676, longitude: 24.9514), zoom: 16)
        let data = try TileGeoJSON.render(tile: tile, databasePath: helsinki.databasePath)
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(root["type"] as? String == "FeatureCollection")
        let features = try #require(root["features"] as? [[String: Any]])
        #expect(features.count > 50)
        let havis = try #require(features.first { ($0["properties"] as? [String: String])?["name"] == "Havis Amanda" })
        #expect(havis["type"] as? String == "Feature")
        #expect(havis["feature_type"] as? String == "tourism")
        #expect(havis["feature_value"] as? String == "artwork")
        #expect((havis["osm_ids"] as? [NSNumber])?.map(\.int64Value) == [1376320186])
        let geometry = try #require(havis["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "Point")
        #expect(features.contains { $0["feature_value"] as? String == "gd_intersection" })
        #expect(!features.contains { ($0["properties"] as? [String: String])?["source"] != nil })
    }
}
