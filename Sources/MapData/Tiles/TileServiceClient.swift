import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Geo
import GRDB
import Logging

/// A tile that could not be used, and why.
public struct TileProblem: Sendable, Hashable, CustomStringConvertible {
    public var tile: Tile
    public var reason: String
    public var description: String { "tile 16/\(tile.x)/\(tile.y): \(reason)" }
}

/// What one `loadTiles` call did.
public struct TileLoadReport: Sendable {
    /// Every tile the area needs.
    public var tiles: [Tile] = []
    /// Downloaded (HTTP 200) and stored.
    public var fetched: [Tile] = []
    /// Revalidated with the stored ETag (HTTP 304); expiry extended.
    public var notModified: [Tile] = []
    /// Still within their time to live; no request made.
    public var fresh: [Tile] = []
    /// Downloaded but unreadable (bad JSON or format); skipped, older data kept.
    public var invalid: [TileProblem] = []
    /// Network or HTTP errors; retry later.
    public var failed: [TileProblem] = []
    /// Features added to the database.
    public var featuresAdded = 0

    public var isComplete: Bool { invalid.isEmpty && failed.isEmpty }
}

/// Client for a Soundscape-compatible tile service (spec §6.1): fetches `BASE/16/x/y.json` for
/// the tiles within a radius of the user, keeps them in the map database with a time to live,
/// revalidates expired tiles with their ETag, and fills the same feature tables as an import.
public final class TileServiceClient: Sendable {
    public static let defaultTimeToLive: TimeInterval = 7 * 24 * 3600
    public static let defaultRadius = 1000.0

    public let baseURL: URL
    public let databasePath: String
    public let timeToLive: TimeInterval
    let session: URLSession
    let queue: DatabaseQueue
    let maxConcurrentRequests: Int
    let logger = Logger(label: "soundscape.mapdata.tiles")

    public init(baseURL: URL, databasePath: String, session: URLSession? = nil,
                timeToLive: TimeInterval = TileServiceClient.defaultTimeToLive, maxConcurrentRequests: Int = 4) throws {
        self.baseURL = baseURL
        self.databasePath = databasePath
        self.timeToLive = timeToLive
        self.maxConcurrentRequests = max(1, maxConcurrentRequests)
        if let session {
            self.session = session
        } else {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            configuration.urlCache = nil
            configuration.timeoutIntervalForRequest = 20
            self.session = URLSession(configuration: configuration)
        }
        queue = try MapStore.openWritable(path: databasePath)
        try queue.write { db in
            if try String.fetchOne(db, sql: "SELECT value FROM metadata WHERE key = 'attribution'") == nil {
                try FeatureWriter(db: db).setMetadata(["attribution": MapStore.attribution, "source": "tiles",
                                                       "tile_service": baseURL.absoluteString])
            }
        }
    }

    public func url(for tile: Tile) -> URL {
        baseURL.appendingPathComponent("16").appendingPathComponent(String(tile.x)).appendingPathComponent("\(tile.y).json")
    }

    /// Makes sure every tile within `radius` metres of `location` is cached and current.
    public func loadTiles(around location: Coordinate, radius: Double = TileServiceClient.defaultRadius,
                          now: Date = Date()) async throws -> TileLoadReport {
        var tiles = Tile.tiles(around: location, radius: radius, zoom: Tile.soundscapeZoom)
        // The user's own tile first.
        let own = Tile(containing: location, zoom: Tile.soundscapeZoom)
        tiles.sort { ($0 == own ? 0 : 1, $0.y, $0.x) < ($1 == own ? 0 : 1, $1.y, $1.x) }
        var report = TileLoadReport()
        report.tiles = tiles
        func record(_ tile: Tile, _ outcome: TileOutcome) {
            switch outcome {
            case .fresh: report.fresh.append(tile)
            case .notModified: report.notModified.append(tile)
            case .fetched(let added): report.fetched.append(tile); report.featuresAdded += added
            case .invalid(let why):
                report.invalid.append(TileProblem(tile: tile, reason: why))
                logger.warning("skipping invalid tile 16/\(tile.x)/\(tile.y): \(why)")
            case .failed(let why):
                report.failed.append(TileProblem(tile: tile, reason: why))
                logger.warning("tile 16/\(tile.x)/\(tile.y) failed: \(why)")
            }
        }
        // The user's own tile alone and first (callouts can start as soon as it is there), then the rest in parallel.
        if tiles.first == own {
            record(own, await refresh(own, now: now))
            tiles.removeFirst()
        }
        try await withThrowingTaskGroup(of: (Tile, TileOutcome).self) { group in
            var next = 0
            func launch() {
                let tile = tiles[next]
                next += 1
                group.addTask { (tile, await self.refresh(tile, now: now)) }
            }
            while next < min(maxConcurrentRequests, tiles.count) { launch() }
            while let (tile, outcome) = try await group.next() {
                record(tile, outcome)
                if next < tiles.count { launch() }
            }
        }
        return report
    }

    enum TileOutcome: Sendable {
        case fresh
        case notModified
        case fetched(Int)
        case invalid(String)
        case failed(String)
    }

    struct CacheEntry { var etag: String?; var expiresAt: Double }

    func refresh(_ tile: Tile, now: Date) async -> TileOutcome {
        let entry: CacheEntry?
        do {
            entry = try await queue.read { db in
                try Row.fetchOne(db, sql: "SELECT etag, expires_at FROM tile_cache WHERE x = ? AND y = ?", arguments: [tile.x, tile.y])
                    .map { CacheEntry(etag: $0[0], expiresAt: $0[1]) }
            }
        } catch {
            return .failed("cache lookup: \(error)")
        }
        if let entry, entry.expiresAt > now.timeIntervalSince1970 { return .fresh }

        var request = URLRequest(url: url(for: tile), cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 20)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let etag = entry?.etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        let data: Data
        let http: HTTPURLResponse
        do {
            let (body, response) = try await session.data(for: request)
            guard let h = response as? HTTPURLResponse else { return .failed("not an HTTP response") }
            data = body
            http = h
        } catch {
            return .failed("\(error.localizedDescription)")
        }
        let expires = now.timeIntervalSince1970 + timeToLive
        switch http.statusCode {
        case 304:
            do {
                try await queue.write { db in
                    try db.execute(sql: "UPDATE tile_cache SET fetched_at = ?, expires_at = ? WHERE x = ? AND y = ?",
                                   arguments: [now.timeIntervalSince1970, expires, tile.x, tile.y])
                }
                return .notModified
            } catch {
                return .failed("cache update: \(error)")
            }
        case 200:
            let features: [TileGeoJSON.TileFeature]
            do {
                features = try TileGeoJSON.parse(data, tile: tile)
            } catch {
                return .invalid(error.description)
            }
            let etag = http.value(forHTTPHeaderField: "ETag")
            do {
                let added = try await queue.write { db in
                    try Self.store(features, tile: tile, etag: etag, now: now.timeIntervalSince1970, expires: expires, db: db)
                }
                return .fetched(added)
            } catch {
                return .failed("storing: \(error)")
            }
        default:
            return .failed("HTTP \(http.statusCode)")
        }
    }

    // MARK: storing

    static func key(for f: TileGeoJSON.TileFeature) -> String {
        if f.featureValue == "gd_intersection" {
            let ids = f.osmIDs.sorted().map(String.init).joined(separator: ",")
            let c = f.geometry.centroid
            return "i\(ids)@" + String(format: "%.6f,%.6f", c.latitude, c.longitude)
        }
        let first = OSMElementID(encoded: f.osmIDs[0]).description
        return f.featureType == "gd_entrance_list" ? "e\(first)" : first
    }

    /// Replaces the tile's features in one transaction; returns how many features were new.
    static func store(_ features: [TileGeoJSON.TileFeature], tile: Tile, etag: String?, now: Double, expires: Double,
                      db: Database) throws -> Int {
        // Unlink the tile's previous features and drop those no other tile still holds.
        try db.execute(sql: "DELETE FROM tile_features WHERE x = ? AND y = ?", arguments: [tile.x, tile.y])
        let orphans = try Int64.fetchAll(db, sql: """
            SELECT id FROM features WHERE source = 1 AND id NOT IN (SELECT feature_id FROM tile_features)
            """)
        try deleteFeatures(orphans, db: db)

        var writer = try FeatureWriter(db: db)
        var added = 0
        var linked: [Int64] = []
        var newIntersections: [(Int64, TileGeoJSON.TileFeature)] = []
        var newEntranceLists: [(Int64, TileGeoJSON.TileFeature)] = []
        // Ordinary features first so that intersections and entrance lists can refer to them.
        let ordered = features.filter { $0.featureValue != "gd_intersection" && $0.featureType != "gd_entrance_list" }
            + features.filter { $0.featureValue == "gd_intersection" || $0.featureType == "gd_entrance_list" }
        for f in ordered {
            let key = key(for: f)
            if let existing = try MapStore.featureID(key: key, db: db) {
                linked.append(existing)
                continue
            }
            let pending: PendingFeature
            if f.featureValue == "gd_intersection" || f.featureType == "gd_entrance_list" {
                let isIntersection = f.featureValue == "gd_intersection"
                pending = PendingFeature(
                    key: key, osmIDs: f.osmIDs, featureType: f.featureType, featureValue: f.featureValue,
                    name: nil, names: [], tags: f.properties, geometry: f.geometry, category: nil,
                    superCategory: isIntersection ? .intersection : .entrances, roadClass: .none, level: .ground,
                    layer: 0, isRoundabout: false, source: 1)
            } else {
                guard var p = FeatureRules.makeFeature(key: key, osmIDs: f.osmIDs, tags: f.properties, geometry: f.geometry,
                                                       forcedType: (f.featureType, f.featureValue)) else { continue }
                p.source = 1
                pending = p
            }
            let id = try writer.insert(pending)
            added += 1
            linked.append(id)
            if f.featureValue == "gd_intersection" { newIntersections.append((id, f)) }
            if f.featureType == "gd_entrance_list" { newEntranceLists.append((id, f)) }
        }
        for id in Set(linked) {
            try db.execute(sql: "INSERT OR IGNORE INTO tile_features (x, y, feature_id) VALUES (?, ?, ?)",
                           arguments: [tile.x, tile.y, id])
        }
        for (id, f) in newIntersections { try storeIntersection(id: id, f, db: db) }
        for (id, f) in newEntranceLists { try storeEntrances(id: id, f, db: db) }
        try db.execute(sql: """
            INSERT OR REPLACE INTO tile_cache (x, y, etag, fetched_at, expires_at, feature_count) VALUES (?, ?, ?, ?, ?, ?)
            """, arguments: [tile.x, tile.y, etag, now, expires, features.count])
        return added
    }

    /// Rebuilds an intersection's legs from the geometry of the roads its osm_ids name.
    static func storeIntersection(id: Int64, _ f: TileGeoJSON.TileFeature, db: Database) throws {
        guard case .point(let point) = f.geometry else { return }
        var legs: [PendingLeg] = []
        var roundabout = false
        for encoded in f.osmIDs {
            let element = OSMElementID(encoded: encoded)
            guard element.kind == .way,
                  let row = try Row.fetchOne(db, sql: "SELECT \(SpatialDataView.featureColumns) FROM features WHERE osm_id = ?",
                                             arguments: [element.encoded]),
                  let road = SpatialDataView.feature(row) else { continue }
            let coords: [Coordinate]
            switch road.geometry {
            case .line(let cs): coords = cs
            case .polygon(let rings): coords = rings.first ?? []
            default: continue
            }
            let isRoundabout = road.isRoundabout
            roundabout = roundabout || isRoundabout
            for (position, c) in coords.enumerated() where c.distance(to: point) < 0.5 {
                for direction in [1, -1] {
                    let next = position + direction
                    guard next >= 0 && next < coords.count,
                          let bearing = LegGeometry.bearing(coords, from: position, direction: direction) else { continue }
                    legs.append(PendingLeg(wayID: element.id, name: road.name, highway: road.tags["highway"] ?? road.featureValue,
                                           bearing: bearing, direction: direction, isRoundabout: isRoundabout,
                                           level: road.level))
                }
            }
        }
        let level: LevelClass = legs.contains { $0.level == .ground } || legs.isEmpty ? .ground : legs[0].level
        try db.execute(sql: "UPDATE features SET is_roundabout = ?, level = ? WHERE id = ?", arguments: [roundabout, level.rawValue, id])
        var roadIDs: [Int64: Int64] = [:], seen = Set<Int64>()
        for leg in legs where seen.insert(leg.wayID).inserted {
            roadIDs[leg.wayID] = try MapStore.featureID(key: "w\(leg.wayID)", db: db)
            try db.execute(sql: "INSERT OR REPLACE INTO ways (id, name, highway) VALUES (?, ?, ?)",
                           arguments: [leg.wayID, leg.name, leg.highway])
        }
        if let blob = FeatureWriter.preparedLegs(legs, roadFeatureIDs: roadIDs) {
            try db.execute(sql: "INSERT INTO intersection_legs (intersection_id, legs) VALUES (?, ?)", arguments: [id, blob])
        }
    }

    static func storeEntrances(id: Int64, _ f: TileGeoJSON.TileFeature, db: Database) throws {
        guard case .multiPoint(let points) = f.geometry, f.osmIDs.count >= 2 else { return }
        let buildingKey = OSMElementID(encoded: f.osmIDs[0]).description
        let buildingID = try MapStore.featureID(key: buildingKey, db: db)
        for (i, node) in f.osmIDs.dropFirst().enumerated() where i < points.count {
            let entranceRow = try Row.fetchOne(db, sql: "SELECT id, \(MapStore.tagSQL("entrance", row: "features")) FROM features WHERE osm_id = ?",
                                               arguments: [node])
            try db.execute(sql: """
                INSERT INTO entrances (list_feature_id, building_feature_id, entrance_feature_id, node_id, lat, lon, entrance)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [id, buildingID, entranceRow?[0] as Int64?, node, points[i].latitude, points[i].longitude,
                                 entranceRow?[1] as String?])
        }
    }

    static func deleteFeatures(_ ids: [Int64], db: Database) throws {
        for id in ids {
            try db.execute(sql: "DELETE FROM features WHERE id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM feature_index WHERE id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM intersection_legs WHERE intersection_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM entrances WHERE list_feature_id = ?", arguments: [id])
        }
    }
}
