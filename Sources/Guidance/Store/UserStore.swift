import Foundation
import GRDB
import MapData

/// The user's own database: markers, routes, route progress, the beacon and settings. Separate from the
/// map database, which is rebuildable and read-only at run time.
///
/// Durability: WAL journal with `synchronous = FULL`, every change in one transaction, so a process killed
/// with SIGKILL (or a power cut after the commit returned) loses nothing that was acknowledged.
public final class UserStore: Sendable {
    public let path: String
    public let queue: DatabaseQueue

    /// A failed read or write in plain words that name the file, to be spoken and printed as a problem:
    /// "the user database /home/a/.local/share/soundscape/user.sqlite is locked by another program".
    public func describe(_ error: any Error) -> String {
        if let e = error as? DatabaseError, e.resultCode == .SQLITE_BUSY || e.resultCode == .SQLITE_LOCKED {
            return "the user database \(path) is locked by another program"
        }
        if let e = error as? DatabaseError, e.resultCode == .SQLITE_READONLY {
            return "the user database \(path) cannot be written (read-only)"
        }
        if let e = error as? DatabaseError, e.resultCode == .SQLITE_FULL {
            return "the user database \(path) cannot be written: the disk is full"
        }
        return "the user database \(path): \(error)"
    }

    /// Opens (creating if needed) the user database and migrates it.
    public init(path: String) throws {
        self.path = path
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        var config = Configuration()
        config.label = "user"
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(5)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        queue = try DatabaseQueue(path: path, configuration: config)
        try Self.migrator.migrate(queue)
    }

    /// An in-memory store, for tests.
    public init(inMemory: Void) throws {
        path = ":memory:"
        var config = Configuration()
        config.foreignKeysEnabled = true
        queue = try DatabaseQueue(configuration: config)
        try Self.migrator.migrate(queue)
    }

    public var markers: MarkerStore { MarkerStore(store: self) }
    public var routes: RouteStore { RouteStore(store: self) }

    /// `PRAGMA integrity_check`: "ok" for a sound database.
    public func integrityCheck() throws -> String {
        try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ") }
    }

    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1-user") { db in
            try db.execute(sql: """
                CREATE TABLE markers (
                    id              TEXT PRIMARY KEY,         -- UUID
                    name            TEXT NOT NULL,
                    annotation      TEXT,
                    lat             REAL NOT NULL,
                    lon             REAL NOT NULL,
                    entity_key      TEXT,                     -- map feature key, when placed on a POI
                    address         TEXT,
                    is_temp         INTEGER NOT NULL DEFAULT 0,   -- used only for a beacon or a planned route
                    created_at      REAL NOT NULL,
                    updated_at      REAL NOT NULL,
                    last_selected_at REAL
                );
                CREATE INDEX markers_name ON markers(name COLLATE NOCASE);
                CREATE INDEX markers_lat ON markers(lat);
                CREATE TABLE routes (
                    id              TEXT PRIMARY KEY,
                    name            TEXT NOT NULL,
                    description     TEXT,
                    is_temp         INTEGER NOT NULL DEFAULT 0,
                    created_at      REAL NOT NULL,
                    updated_at      REAL NOT NULL
                );
                CREATE TABLE route_waypoints (
                    route_id        TEXT NOT NULL REFERENCES routes(id) ON DELETE CASCADE,
                    idx             INTEGER NOT NULL,
                    marker_id       TEXT NOT NULL REFERENCES markers(id) ON DELETE CASCADE,
                    PRIMARY KEY (route_id, idx)
                );
                CREATE INDEX route_waypoints_marker ON route_waypoints(marker_id);
                CREATE TABLE route_progress (
                    route_id        TEXT PRIMARY KEY REFERENCES routes(id) ON DELETE CASCADE,
                    state           TEXT NOT NULL             -- JSON RouteGuidanceState
                );
                CREATE TABLE kv (
                    key             TEXT PRIMARY KEY,         -- "beacon", "settings"
                    value           TEXT NOT NULL             -- JSON
                );
                """)
        }
        return m
    }

    // MARK: key-value JSON (beacon, settings)

    public func save<T: Encodable>(_ value: T?, forKey key: String) throws {
        if let value {
            let json = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
            try queue.write { db in
                try db.execute(sql: "INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                               arguments: [key, json])
            }
        } else {
            try queue.write { db in try db.execute(sql: "DELETE FROM kv WHERE key = ?", arguments: [key]) }
        }
    }

    public func load<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
        guard let json = try queue.read({ db in try String.fetchOne(db, sql: "SELECT value FROM kv WHERE key = ?", arguments: [key]) })
        else { return nil }
        return try JSONDecoder().decode(T.self, from: Data(json.utf8))
    }

    /// The guidance settings last saved here, else the defaults. (The program's configuration file,
    /// read by the App stage, is the source the command line starts from.)
    public func loadSettings() throws -> GuidanceSettings {
        try load(GuidanceSettings.self, forKey: "settings") ?? GuidanceSettings()
    }

    public func saveSettings(_ settings: GuidanceSettings) throws { try save(settings, forKey: "settings") }
}
