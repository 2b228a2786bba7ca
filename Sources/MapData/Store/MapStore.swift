import Foundation
import Geo
import GRDB

/// The map database: where it lives, its schema and how to open it. The map database only holds
/// data that can be rebuilt from OpenStreetMap (an import or the tile service); user data (markers,
/// routes) lives in a separate database.
public enum MapStore {
    public static let attribution = "© OpenStreetMap contributors"
    public static let schemaVersion = 6

    /// Opens (creating if needed) a writable map database and brings its schema up to date.
    public static func openWritable(path: String, fast: Bool = false) throws -> DatabaseQueue {
        var config = Configuration()
        config.label = "map"
        if fast {
            // Only for a private file that is renamed into place after it is complete: a crash
            // mid-import leaves a temporary file to delete, never a damaged live database.
            config.prepareDatabase { db in
                try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -32000")
            }
        }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let queue = try DatabaseQueue(path: path, configuration: config)
        try migrator.migrate(queue)
        return queue
    }

    /// Opens a map database for reading only.
    public static func openReadOnly(path: String) throws -> DatabaseQueue {
        var config = Configuration()
        config.readonly = true
        config.label = "map-readonly"
        return try DatabaseQueue(path: path, configuration: config)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-map-schema") { db in
            try db.execute(sql: schemaV1)
        }
        migrator.registerMigration("v2-compact") { db in
            try db.execute(sql: schemaV2)
        }
        migrator.registerMigration("v3-smaller") { db in
            try db.execute(sql: schemaV3)
        }
        migrator.registerMigration("v4-ways") { db in
            try db.execute(sql: schemaV4)
        }
        migrator.registerMigration("v5-relative-geometry") { db in
            try db.execute(sql: schemaV5)
        }
        migrator.registerMigration("v6-graph-blobs") { db in
            try db.execute(sql: schemaV6)
        }
        return migrator
    }

    /// Schema 6 (issue 33, an import's end on one thread): the walking graph, which is only ever read whole,
    /// is stored as chunks of a thousand nodes or edges, each a blob (see ``WalkGraphBlob``), instead of a row
    /// per node and per edge; an intersection's legs are one row, a blob (see ``IntersectionLegsBlob``),
    /// instead of a row per leg. The blobs are encoded on the thread that builds the network, and the
    /// database's writer inserts a few hundred chunks where it inserted a million rows. Older rows are
    /// dropped: import the map again.
    static let schemaV6 = """
    DROP TABLE walk_nodes;
    DROP TABLE walk_edges;
    CREATE TABLE walk_node_chunks (                  -- the walking graph's vertices, in ascending id order
        chunk           INTEGER PRIMARY KEY,
        count           INTEGER NOT NULL,            -- nodes in the chunk
        data            BLOB NOT NULL                -- see WalkGraphBlob
    );
    CREATE TABLE walk_edge_chunks (                  -- its edges (name and highway: their way's, in `ways`)
        chunk           INTEGER PRIMARY KEY,
        first_id        INTEGER NOT NULL,            -- the id of the chunk's first edge; the others follow it
        count           INTEGER NOT NULL,            -- edges in the chunk
        data            BLOB NOT NULL                -- see WalkGraphBlob
    );
    DROP TABLE intersection_legs;
    CREATE TABLE intersection_legs (
        intersection_id INTEGER PRIMARY KEY,         -- the gd_intersection feature
        legs            BLOB NOT NULL                -- road feature, way, bearing, direction, roundabout, level of each:
                                                     -- see IntersectionLegsBlob; names and highways are in `ways`
    );
    DELETE FROM features; DELETE FROM ways; DELETE FROM feature_index; DELETE FROM entrances;
    DELETE FROM tile_cache; DELETE FROM tile_features;
    """

    /// Schema 5 (issue 33, the map ≤ 3 × its PBF): the tables are as in 4, but a feature's geometry is
    /// measured from its stored `lat`/`lon` (a point there is one byte) and a walking-graph edge keeps only
    /// the vertices between its nodes, measured from its start node (see ``FeatureGeometry/encoded(origin:)``).
    /// Older rows would be misread, so they are dropped.
    static let schemaV5 = """
    DELETE FROM features; DELETE FROM ways; DELETE FROM intersection_legs; DELETE FROM walk_edges;
    DELETE FROM walk_nodes; DELETE FROM feature_index; DELETE FROM entrances;
    DELETE FROM tile_cache; DELETE FROM tile_features;
    """

    /// Schema 4 (issue 33, the map ≤ 3 × its PBF): a road's name and highway are stored once, in
    /// `ways`, instead of on each of its intersection legs and walking-graph edges; the super category
    /// is stored as its index code (`super_category` is computed from it); no `feature_names` table
    /// (the name index is built from `name` and `names` when a map is opened). Older rows are dropped.
    static let schemaV4 = """
    DROP TABLE features;
    CREATE TABLE features (
        id              INTEGER PRIMARY KEY,
        osm_id          INTEGER,                     -- the element of an n123 / w456 / r789 key, numbered as osm_ids are
        key_text        TEXT,                        -- any other key: i<node>, e<building key>, a tile's intersection
        key             TEXT NOT NULL GENERATED ALWAYS AS (COALESCE(key_text, CASE
                            WHEN osm_id >= 0 THEN 'n' || osm_id
                            WHEN osm_id > -100000000000000000 THEN 'w' || (-osm_id)
                            ELSE 'r' || (-osm_id - 100000000000000000) END)) VIRTUAL,
        osm_ids         TEXT,                        -- JSON array of tile-service ids; NULL: the key's own element
        feature_type    TEXT NOT NULL,               -- primary tag key: amenity, shop, highway…
        feature_value   TEXT NOT NULL,               -- its value
        name            TEXT,
        names           TEXT,                        -- JSON: name, name:en, alt_name…; NULL: none, or only `name`
        tags            TEXT,                        -- JSON: the OSM tags some reader uses; NULL: none
        tagged          INTEGER NOT NULL DEFAULT 0,  -- 1: feature_type=feature_value is a tag too (left out of `tags`)
        geometry_kind   INTEGER NOT NULL,            -- 0 point, 1 line, 2 polygon, 3 multipoint, 4 multipolygon
        geometry        BLOB NOT NULL,               -- see FeatureGeometry.encoded()
        lat             INTEGER NOT NULL,            -- representative point, 1e-7 degrees
        lon             INTEGER NOT NULL,
        category        TEXT,                        -- generic label: bus_stop, walking_path…
        super_code      INTEGER NOT NULL,            -- SuperCategory.indexCode
        super_category  TEXT NOT NULL GENERATED ALWAYS AS (\(superCategoryCase)) VIRTUAL,
        road_class      INTEGER NOT NULL DEFAULT 0,  -- 0 none, 1 road, 2 path, 3 connector
        level           INTEGER NOT NULL DEFAULT 0,  -- -1 underground, 0 ground, 1 elevated, 2 indoor
        layer           INTEGER NOT NULL DEFAULT 0,
        is_roundabout   INTEGER NOT NULL DEFAULT 0,
        source          INTEGER NOT NULL DEFAULT 0   -- 0 PBF import, 1 tile service
    );
    CREATE UNIQUE INDEX features_osm ON features(osm_id) WHERE osm_id IS NOT NULL;
    CREATE UNIQUE INDEX features_key ON features(key_text) WHERE key_text IS NOT NULL;
    CREATE TABLE ways (                              -- a road's or path's own values, shared by its legs and edges
        id              INTEGER PRIMARY KEY,         -- OSM way id
        name            TEXT,
        highway         TEXT NOT NULL
    );
    DROP TABLE intersection_legs;
    CREATE TABLE intersection_legs (
        intersection_id INTEGER NOT NULL,
        seq             INTEGER NOT NULL,            -- the leg's number within its intersection
        road_feature_id INTEGER,
        way_id          INTEGER NOT NULL,            -- its name and highway are in `ways`
        bearing         INTEGER NOT NULL,            -- hundredths of a degree, towards the point ~25 m along the road
        direction       INTEGER NOT NULL,            -- +1 along the way's node order, -1 against it
        is_roundabout   INTEGER NOT NULL DEFAULT 0,
        level           INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (intersection_id, seq)
    ) WITHOUT ROWID;
    DROP TABLE walk_edges;
    CREATE TABLE walk_edges (                        -- (no length: it is the geometry's; name and highway: the way's)
        id              INTEGER PRIMARY KEY,
        from_node       INTEGER NOT NULL,
        to_node         INTEGER NOT NULL,
        way_id          INTEGER NOT NULL,
        is_crossing     INTEGER NOT NULL DEFAULT 0,
        traffic_signals INTEGER NOT NULL DEFAULT 0,
        signal_sound    INTEGER NOT NULL DEFAULT 0,
        level           INTEGER NOT NULL DEFAULT 0,
        oneway_foot     INTEGER NOT NULL DEFAULT 0,
        geometry        BLOB NOT NULL                -- line, FeatureGeometry encoding
    );
    DROP TABLE feature_names;
    DELETE FROM walk_nodes; DELETE FROM feature_index; DELETE FROM entrances;
    DELETE FROM tile_cache; DELETE FROM tile_features;
    """

    /// `super_category` from `super_code`: the inverse of ``SuperCategory/indexCode``.
    static let superCategoryCase = "CASE super_code "
        + SuperCategory.allCases.map { "WHEN \($0.indexCode) THEN '\($0.rawValue)'" }.joined(separator: " ")
        + " ELSE 'undefined' END"

    /// Schema 3 stores nothing twice and keeps no index that no query uses (issue 33: a region's map
    /// was five times its PBF): a feature's point in 1e-7 degrees as integers, no z16 tile (it follows
    /// from the point), no `osm_ids` when they are the key's own element, no `names` when they are just
    /// `name`, no primary tag in `tags` (it is feature_type=feature_value; `tagged` says it was a tag);
    /// intersections are feature rows only (their point, level and roundabout flag were repeated in
    /// a table of their own); names and intersection legs are clustered by their feature (WITHOUT ROWID)
    /// instead of carrying a row id and an index; leg bearings in hundredths of a degree; the walking
    /// graph, which is always loaded whole, has no indexes, its points are fixed-point and its edges'
    /// lengths are computed from their geometry; the key of an OSM element is its integer id (`key` is
    /// computed from it), and the key indexes can be built once at the end of an import. Older rows
    /// are dropped: import the map again.
    static let schemaV3 = """
    DROP TABLE features;
    CREATE TABLE features (
        id              INTEGER PRIMARY KEY,
        osm_id          INTEGER,                     -- the element of an n123 / w456 / r789 key, numbered as osm_ids are
        key_text        TEXT,                        -- any other key: i<node>, e<building key>, a tile's intersection
        key             TEXT NOT NULL GENERATED ALWAYS AS (COALESCE(key_text, CASE
                            WHEN osm_id >= 0 THEN 'n' || osm_id
                            WHEN osm_id > -100000000000000000 THEN 'w' || (-osm_id)
                            ELSE 'r' || (-osm_id - 100000000000000000) END)) VIRTUAL,
        osm_ids         TEXT,                        -- JSON array of tile-service ids; NULL: the key's own element
        feature_type    TEXT NOT NULL,               -- primary tag key: amenity, shop, highway…
        feature_value   TEXT NOT NULL,               -- its value
        name            TEXT,
        names           TEXT,                        -- JSON: name, name:en, alt_name…; NULL: none, or only `name`
        tags            TEXT,                        -- JSON: the OSM tags some reader uses; NULL: none
        tagged          INTEGER NOT NULL DEFAULT 0,  -- 1: feature_type=feature_value is a tag too (left out of `tags`)
        geometry_kind   INTEGER NOT NULL,            -- 0 point, 1 line, 2 polygon, 3 multipoint, 4 multipolygon
        geometry        BLOB NOT NULL,               -- see FeatureGeometry.encoded()
        lat             INTEGER NOT NULL,            -- representative point, 1e-7 degrees
        lon             INTEGER NOT NULL,
        category        TEXT,                        -- generic label: bus_stop, walking_path…
        super_category  TEXT NOT NULL,               -- place, landmark, mobility, road, path…
        road_class      INTEGER NOT NULL DEFAULT 0,  -- 0 none, 1 road, 2 path, 3 connector
        level           INTEGER NOT NULL DEFAULT 0,  -- -1 underground, 0 ground, 1 elevated, 2 indoor
        layer           INTEGER NOT NULL DEFAULT 0,
        is_roundabout   INTEGER NOT NULL DEFAULT 0,
        source          INTEGER NOT NULL DEFAULT 0   -- 0 PBF import, 1 tile service
    );
    -- Named indexes rather than UNIQUE columns, so that an import can build them once, sorted, at the end.
    -- Look features up by key with MapStore.keyCondition: `key` itself is computed and has no index.
    CREATE UNIQUE INDEX features_osm ON features(osm_id) WHERE osm_id IS NOT NULL;
    CREATE UNIQUE INDEX features_key ON features(key_text) WHERE key_text IS NOT NULL;
    DROP TABLE feature_names;
    CREATE TABLE feature_names (
        feature_id  INTEGER NOT NULL,
        normalized  TEXT NOT NULL,
        name        TEXT NOT NULL,
        PRIMARY KEY (feature_id, normalized)
    ) WITHOUT ROWID;
    DROP TABLE intersections;
    DROP TABLE intersection_legs;
    CREATE TABLE intersection_legs (
        intersection_id INTEGER NOT NULL,
        seq             INTEGER NOT NULL,            -- the leg's number within its intersection
        road_feature_id INTEGER,
        way_id          INTEGER NOT NULL,
        name            TEXT,
        highway         TEXT,
        bearing         INTEGER NOT NULL,            -- hundredths of a degree, towards the point ~25 m along the road
        direction       INTEGER NOT NULL,            -- +1 along the way's node order, -1 against it
        is_roundabout   INTEGER NOT NULL DEFAULT 0,
        level           INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (intersection_id, seq)
    ) WITHOUT ROWID;
    DROP TABLE walk_nodes;
    CREATE TABLE walk_nodes (
        id              INTEGER PRIMARY KEY,         -- OSM node id
        lat             INTEGER NOT NULL,            -- 1e-7 degrees
        lon             INTEGER NOT NULL,
        is_crossing     INTEGER NOT NULL DEFAULT 0,
        traffic_signals INTEGER NOT NULL DEFAULT 0,
        signal_sound    INTEGER NOT NULL DEFAULT 0   -- traffic_signals:sound=yes
    );
    DROP TABLE walk_edges;
    CREATE TABLE walk_edges (                        -- (no length: it is the geometry's)
        id              INTEGER PRIMARY KEY,
        from_node       INTEGER NOT NULL,
        to_node         INTEGER NOT NULL,
        way_id          INTEGER NOT NULL,
        name            TEXT,
        highway         TEXT NOT NULL,
        is_crossing     INTEGER NOT NULL DEFAULT 0,
        traffic_signals INTEGER NOT NULL DEFAULT 0,
        signal_sound    INTEGER NOT NULL DEFAULT 0,
        level           INTEGER NOT NULL DEFAULT 0,
        oneway_foot     INTEGER NOT NULL DEFAULT 0,
        geometry        BLOB NOT NULL                -- line, FeatureGeometry encoding
    );
    DELETE FROM feature_index; DELETE FROM entrances;
    DELETE FROM tile_cache; DELETE FROM tile_features;
    """

    /// Schema 2 stores geometry delta-encoded, keeps the R-tree two-dimensional (category,
    /// announceability and road class ride along as auxiliary columns) and drops two indexes no
    /// query used. Schema-1 rows cannot be read in the new encoding, so they are dropped; an
    /// import or the tile service fills the tables again.
    static let schemaV2 = """
    DROP INDEX IF EXISTS features_tile;
    DROP INDEX IF EXISTS features_tag;
    DROP TABLE feature_index;
    CREATE VIRTUAL TABLE feature_index USING rtree(
        id, min_lat, max_lat, min_lon, max_lon,
        +cat INTEGER, +ann INTEGER, +rc INTEGER
    );
    DELETE FROM features; DELETE FROM feature_names; DELETE FROM intersections; DELETE FROM intersection_legs;
    DELETE FROM entrances; DELETE FROM walk_nodes; DELETE FROM walk_edges; DELETE FROM tile_cache;
    DELETE FROM tile_features;
    """

    static let schemaV1 = """
    -- One row per map feature: OSM elements that Soundscape uses, plus synthesised intersections
    -- ("highway"/"gd_intersection") and entrance lists ("gd_entrance_list").
    CREATE TABLE features (
        id              INTEGER PRIMARY KEY,
        key             TEXT NOT NULL UNIQUE,        -- n123 / w456 / r789 / i<node> / e<building key>
        osm_ids         TEXT NOT NULL,               -- JSON array of tile-service ids (ways < 0, relations < -1e17)
        feature_type    TEXT NOT NULL,               -- primary tag key: amenity, shop, highway…
        feature_value   TEXT NOT NULL,               -- its value
        name            TEXT,
        names           TEXT NOT NULL DEFAULT '{}',  -- JSON: name, name:en, name:fi, name:sv…
        tags            TEXT NOT NULL DEFAULT '{}',  -- JSON: the OSM tags some reader uses (FeatureRules.storedTagKeys)
        geometry_kind   INTEGER NOT NULL,            -- 0 point, 1 line, 2 polygon, 3 multipoint, 4 multipolygon
        geometry        BLOB NOT NULL,               -- see FeatureGeometry.encoded()
        lat             REAL NOT NULL,               -- representative point
        lon             REAL NOT NULL,
        tile_x          INTEGER NOT NULL,            -- z16 tile of the representative point
        tile_y          INTEGER NOT NULL,
        category        TEXT,                        -- generic label: bus_stop, walking_path…
        super_category  TEXT NOT NULL,               -- place, landmark, mobility, road, path…
        road_class      INTEGER NOT NULL DEFAULT 0,  -- 0 none, 1 road, 2 path, 3 connector
        level           INTEGER NOT NULL DEFAULT 0,  -- -1 underground, 0 ground, 1 elevated, 2 indoor
        layer           INTEGER NOT NULL DEFAULT 0,
        is_roundabout   INTEGER NOT NULL DEFAULT 0,
        source          INTEGER NOT NULL DEFAULT 0   -- 0 PBF import, 1 tile service
    );
    CREATE INDEX features_tile ON features(tile_x, tile_y);
    CREATE INDEX features_tag ON features(feature_type, feature_value);

    -- Bounding boxes of features, with three more dimensions so that the tree itself filters by
    -- category (SuperCategory.indexCode), announceability (0/1) and road class (0–3): an auxiliary
    -- column would cost a lookup per row, a dimension prunes whole subtrees.
    CREATE VIRTUAL TABLE feature_index USING rtree(
        id, min_lat, max_lat, min_lon, max_lon,
        min_cat, max_cat, min_ann, max_ann, min_rc, max_rc
    );

    -- Every name variant of a feature, normalised for spoken lookup (lower case, no diacritics).
    CREATE TABLE feature_names (
        feature_id  INTEGER NOT NULL,
        name        TEXT NOT NULL,
        normalized  TEXT NOT NULL
    );
    CREATE INDEX feature_names_normalized ON feature_names(normalized);
    CREATE INDEX feature_names_feature ON feature_names(feature_id);

    -- Intersections (their feature row holds the point and the osm_ids of the roads).
    CREATE TABLE intersections (
        feature_id      INTEGER PRIMARY KEY,
        node_id         INTEGER,
        lat             REAL NOT NULL,
        lon             REAL NOT NULL,
        is_roundabout   INTEGER NOT NULL DEFAULT 0,
        level           INTEGER NOT NULL DEFAULT 0
    );
    -- One row per road direction leaving an intersection.
    CREATE TABLE intersection_legs (
        intersection_id INTEGER NOT NULL,
        road_feature_id INTEGER,
        way_id          INTEGER NOT NULL,
        name            TEXT,
        highway         TEXT,
        bearing         REAL NOT NULL,               -- degrees, towards the point ~25 m along the road
        direction       INTEGER NOT NULL,            -- +1 along the way's node order, -1 against it
        is_roundabout   INTEGER NOT NULL DEFAULT 0,
        level           INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX intersection_legs_intersection ON intersection_legs(intersection_id);

    -- Entrances of buildings (entrance nodes that are vertices of the building outline).
    CREATE TABLE entrances (
        list_feature_id     INTEGER NOT NULL,        -- the gd_entrance_list feature
        building_feature_id INTEGER,
        entrance_feature_id INTEGER,
        node_id             INTEGER NOT NULL,
        lat                 REAL NOT NULL,
        lon                 REAL NOT NULL,
        entrance            TEXT                     -- value of the entrance tag
    );
    CREATE INDEX entrances_building ON entrances(building_feature_id);

    -- Walking graph: vertices are way ends and nodes shared by walkable ways.
    CREATE TABLE walk_nodes (
        id              INTEGER PRIMARY KEY,         -- OSM node id
        lat             REAL NOT NULL,
        lon             REAL NOT NULL,
        is_crossing     INTEGER NOT NULL DEFAULT 0,
        traffic_signals INTEGER NOT NULL DEFAULT 0,
        signal_sound    INTEGER NOT NULL DEFAULT 0   -- traffic_signals:sound=yes
    );
    CREATE TABLE walk_edges (
        id              INTEGER PRIMARY KEY,
        from_node       INTEGER NOT NULL,
        to_node         INTEGER NOT NULL,
        way_id          INTEGER NOT NULL,
        name            TEXT,
        highway         TEXT NOT NULL,
        length          REAL NOT NULL,               -- metres
        is_crossing     INTEGER NOT NULL DEFAULT 0,
        traffic_signals INTEGER NOT NULL DEFAULT 0,
        signal_sound    INTEGER NOT NULL DEFAULT 0,
        level           INTEGER NOT NULL DEFAULT 0,
        oneway_foot     INTEGER NOT NULL DEFAULT 0,
        geometry        BLOB NOT NULL                -- line, FeatureGeometry encoding
    );
    CREATE INDEX walk_edges_from ON walk_edges(from_node);
    CREATE INDEX walk_edges_to ON walk_edges(to_node);

    CREATE TABLE metadata (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );

    -- Tiles fetched from a Soundscape tile service.
    CREATE TABLE tile_cache (
        x           INTEGER NOT NULL,
        y           INTEGER NOT NULL,
        etag        TEXT,
        fetched_at  REAL NOT NULL,                   -- Unix seconds
        expires_at  REAL NOT NULL,
        feature_count INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (x, y)
    );
    CREATE TABLE tile_features (
        x           INTEGER NOT NULL,
        y           INTEGER NOT NULL,
        feature_id  INTEGER NOT NULL,
        PRIMARY KEY (x, y, feature_id)
    ) WITHOUT ROWID;
    CREATE INDEX tile_features_feature ON tile_features(feature_id);
    """
}

extension MapStore {
    /// The OSM element a feature key names: "n123", "w456", "r789"; nil for intersections ("i…") and
    /// entrance lists ("e…").
    static func keyElement(_ key: String) -> OSMElementID? {
        guard let first = key.utf8.first, let id = Int64(key.dropFirst()) else { return nil }
        switch first {
        case UInt8(ascii: "n"): return OSMElementID(.node, id)
        case UInt8(ascii: "w"): return OSMElementID(.way, id)
        case UInt8(ascii: "r"): return OSMElementID(.relation, id)
        default: return nil
        }
    }

    /// The stored form of a feature key: the element's id in `osm_id` for "n123", "w456", "r789", the
    /// text in `key_text` for any other.
    static func storedKey(_ key: String) -> (osmID: Int64?, text: String?) {
        if let element = keyElement(key), element.description == key { return (element.encoded, nil) }
        return (nil, key)
    }

    /// A WHERE condition on `features` that finds the feature with this key through an index, and its argument.
    static func keyCondition(_ key: String) -> (sql: String, argument: DatabaseValue) {
        let stored = storedKey(key)
        if let id = stored.osmID { return ("osm_id = ?", id.databaseValue) }
        return ("key_text = ?", key.databaseValue)
    }

    /// The row id of the feature with this key.
    static func featureID(key: String, db: Database) throws -> Int64? {
        let c = keyCondition(key)
        return try Int64.fetchOne(db, sql: "SELECT id FROM features WHERE \(c.sql)", arguments: [c.argument])
    }

    /// A feature's names from its `names` column, which is NULL when they are only `name` (or none).
    static func names(stored: String?, name: String?) -> [String: String] {
        if let stored { return JSONText.decodeStringMap(stored) }
        return name.map { ["name": $0] } ?? [:]
    }

    /// A feature's tags from its `tags` column and, when `tagged`, its primary tag, which the column leaves out.
    static func tags(stored: String?, type: String, value: String, tagged: Bool) -> [String: String] {
        var tags = stored.map(JSONText.decodeStringMap) ?? [:]
        if tagged { tags[type] = value }
        return tags
    }

    /// SQL for the value of tag `key` of the feature row `f`: from its `tags`, or its primary tag.
    /// `key` must be a plain key (letters, digits, `_ : . -`): it is put in the SQL as it is.
    static func tagSQL(_ key: String, row f: String = "f") -> String {
        "COALESCE(json_extract(\(f).tags, '$.\"\(key)\"'), CASE WHEN \(f).tagged = 1 AND \(f).feature_type = '\(key)' THEN \(f).feature_value END)"
    }

    /// A feature's tile-service ids from its `osm_ids` column, which is NULL when they are the key's own element.
    static func osmIDs(key: String, stored: String?) -> [Int64] {
        if let stored { return JSONText.decodeIntegers(stored) }
        return keyElement(key).map { [$0.encoded] } ?? []
    }

    /// The OSM node of an imported intersection, from its key "i<node>"; nil for the tile service's
    /// intersections, whose keys name their roads and point instead.
    static func intersectionNode(key: String) -> Int64? {
        key.hasPrefix("i") ? Int64(key.dropFirst()) : nil
    }
}

/// Coordinates stored as integers of 1e-7 degrees (about a centimetre, OSM's own precision): four
/// bytes in a row where a REAL takes eight.
enum FixedPoint {
    static func degrees(_ value: Double) -> Int64 { Int64((value * 1e7).rounded()) }
    static func value(_ stored: Int64) -> Double { Double(stored) * 1e-7 }
    static func coordinate(_ lat: Int64, _ lon: Int64) -> Coordinate { Coordinate(latitude: value(lat), longitude: value(lon)) }
}

/// What the metadata table says about the data.
public struct MapMetadata: Sendable, Hashable {
    public var sourceFile: String?
    public var sourceSHA256: String?
    public var importedAt: Date?
    public var attribution: String
    /// (minLat, minLon, maxLat, maxLon)
    public var bbox: [Double]?
    public var values: [String: String]

    init(values: [String: String]) {
        self.values = values
        sourceFile = values["source_file"]
        sourceSHA256 = values["source_sha256"]
        importedAt = values["imported_at"].flatMap { ISO8601DateFormatter().date(from: $0) }
        attribution = values["attribution"] ?? MapStore.attribution
        bbox = values["bbox"].map { $0.split(separator: ",").compactMap { Double($0) } }
    }
}

/// Row counts of a map database.
public struct MapStatistics: Sendable, Hashable {
    public var features: Int
    public var namedFeatures: Int
    public var intersections: Int
    public var entranceLists: Int
    public var walkNodes: Int
    public var walkEdges: Int
    public var cachedTiles: Int
}

extension MapStore {
    public static func statistics(path: String) throws -> MapStatistics {
        let queue = try openReadOnly(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            func count(_ sql: String) throws -> Int { try Int.fetchOne(db, sql: sql) ?? 0 }
            return MapStatistics(
                features: try count("SELECT COUNT(*) FROM features"),
                namedFeatures: try count("SELECT COUNT(*) FROM features WHERE name IS NOT NULL"),
                intersections: try count("SELECT COUNT(*) FROM features WHERE feature_value = 'gd_intersection'"),
                entranceLists: try count("SELECT COUNT(*) FROM features WHERE feature_type = 'gd_entrance_list'"),
                walkNodes: try count("SELECT COALESCE(SUM(count), 0) FROM walk_node_chunks"),
                walkEdges: try count("SELECT COALESCE(SUM(count), 0) FROM walk_edge_chunks"),
                cachedTiles: try count("SELECT COUNT(*) FROM tile_cache"))
        }
    }
}
