import Foundation
import Geo
import GRDB

/// An ordered list of waypoints, each a marker (spec §7.2).
public struct Route: Sendable, Hashable, Codable, Identifiable {
    public var id: UUID
    public var name: String
    public var description: String?
    /// A planned route ("take me to …"), not in the user's list.
    public var isTemporary: Bool
    public var waypoints: [Marker]
    public var createdAt: Date

    public init(id: UUID = UUID(), name: String, description: String? = nil, isTemporary: Bool = false,
                waypoints: [Marker], createdAt: Date = Date()) {
        self.id = id
        self.name = name
        self.description = description
        self.isTemporary = isTemporary
        self.waypoints = waypoints
        self.createdAt = createdAt
    }
}

public enum RouteStoreError: Error, Equatable, CustomStringConvertible {
    case notFound(String)
    case noWaypoints
    public var description: String {
        switch self {
        case .notFound(let n): "no route named \(n)"
        case .noWaypoints: "a route needs at least one waypoint"
        }
    }
}

/// Routes in the user database.
public struct RouteStore: Sendable {
    public let store: UserStore

    public init(store: UserStore) { self.store = store }

    /// Saves a route whose waypoints are existing markers (by id), in one transaction.
    @discardableResult
    public func create(name: String, description: String? = nil, waypointIDs: [UUID], isTemporary: Bool = false,
                       now: Date = Date()) throws -> Route {
        guard !waypointIDs.isEmpty else { throw RouteStoreError.noWaypoints }
        let id = UUID()
        try store.queue.write { db in
            try db.execute(sql: "INSERT INTO routes (id, name, description, is_temp, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [id.uuidString, name, description, isTemporary, now.timeIntervalSince1970, now.timeIntervalSince1970])
            for (i, marker) in waypointIDs.enumerated() {
                try db.execute(sql: "INSERT INTO route_waypoints (route_id, idx, marker_id) VALUES (?, ?, ?)",
                               arguments: [id.uuidString, i, marker.uuidString])
            }
        }
        return try route(id: id)!
    }

    /// Saves a route together with new markers for its waypoints, in one transaction.
    @discardableResult
    public func create(name: String, description: String? = nil, newWaypoints: [Marker], isTemporary: Bool = false,
                       now: Date = Date()) throws -> Route {
        guard !newWaypoints.isEmpty else { throw RouteStoreError.noWaypoints }
        try store.queue.write { db in
            for m in newWaypoints { try MarkerStore.insert(m, db) }
        }
        return try create(name: name, description: description, waypointIDs: newWaypoints.map(\.id), isTemporary: isTemporary, now: now)
    }

    public func route(id: UUID) throws -> Route? {
        try store.queue.read { db in try Self.load(db, id: id) }
    }

    static func load(_ db: Database, id: UUID) throws -> Route? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM routes WHERE id = ?", arguments: [id.uuidString]) else { return nil }
        let waypoints = try Row.fetchAll(db, sql: """
            SELECT m.* FROM route_waypoints w JOIN markers m ON m.id = w.marker_id WHERE w.route_id = ? ORDER BY w.idx
            """, arguments: [id.uuidString]).map(Marker.init(row:))
        return Route(id: id, name: row["name"], description: row["description"], isTemporary: row["is_temp"],
                     waypoints: waypoints, createdAt: Date(timeIntervalSince1970: row["created_at"]))
    }

    public func all() throws -> [Route] {
        try store.queue.read { db in
            try String.fetchAll(db, sql: "SELECT id FROM routes WHERE is_temp = 0 ORDER BY name COLLATE NOCASE")
                .compactMap { UUID(uuidString: $0) }.compactMap { try Self.load(db, id: $0) }
        }
    }

    public func find(named spoken: String) throws -> Route? {
        let q = MarkerStore.normalize(spoken)
        let routes = try all()
        return routes.first { MarkerStore.normalize($0.name) == q }
            ?? routes.first { MarkerStore.normalize($0.name).hasPrefix(q) }
    }

    /// Appends a marker to a route.
    public func append(_ markerID: UUID, to routeID: UUID) throws {
        try store.queue.write { db in
            let next = try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(idx) + 1, 0) FROM route_waypoints WHERE route_id = ?",
                                        arguments: [routeID.uuidString]) ?? 0
            try db.execute(sql: "INSERT INTO route_waypoints (route_id, idx, marker_id) VALUES (?, ?, ?)",
                           arguments: [routeID.uuidString, next, markerID.uuidString])
            try db.execute(sql: "UPDATE routes SET updated_at = ? WHERE id = ?", arguments: [Date().timeIntervalSince1970, routeID.uuidString])
        }
    }

    /// Deletes a route (and, for a planned route, its temporary waypoint markers).
    @discardableResult
    public func delete(_ id: UUID) throws -> Bool {
        try store.queue.write { db in try Self.delete(db, id) }
    }

    @discardableResult
    static func delete(_ db: Database, _ id: UUID) throws -> Bool {
        let temporary = try String.fetchAll(db, sql: """
            SELECT m.id FROM route_waypoints w JOIN markers m ON m.id = w.marker_id WHERE w.route_id = ? AND m.is_temp = 1
            """, arguments: [id.uuidString])
        try db.execute(sql: "DELETE FROM routes WHERE id = ?", arguments: [id.uuidString])
        let existed = db.changesCount > 0
        for marker in temporary {
            let stillUsed = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM route_waypoints WHERE marker_id = ?", arguments: [marker]) ?? 0
            if stillUsed == 0 { try db.execute(sql: "DELETE FROM markers WHERE id = ?", arguments: [marker]) }
        }
        return existed
    }

    /// Saves a route made by voice in one transaction: the new markers of its places (temporary: they belong to
    /// the route), the route and its waypoints; with `replacing`, the route of that id goes in the same transaction.
    @discardableResult
    public func save(_ draft: RouteDraft, replacing: UUID? = nil, now: Date = Date()) throws -> Route {
        guard !draft.stops.isEmpty else { throw RouteStoreError.noWaypoints }
        let id = UUID()
        try store.queue.write { db in
            if let replacing { try Self.delete(db, replacing) }
            try db.execute(sql: "INSERT INTO routes (id, name, description, is_temp, created_at, updated_at) VALUES (?, ?, NULL, 0, ?, ?)",
                           arguments: [id.uuidString, draft.name, now.timeIntervalSince1970, now.timeIntervalSince1970])
            for (i, stop) in draft.stops.enumerated() {
                let markerID: UUID
                switch stop {
                case .marker(let m): markerID = m.id
                case .place(let name, let coordinate):
                    let m = Marker(name: name, coordinate: coordinate, isTemporary: true, createdAt: now)
                    try MarkerStore.insert(m, db)
                    markerID = m.id
                }
                try db.execute(sql: "INSERT INTO route_waypoints (route_id, idx, marker_id) VALUES (?, ?, ?)",
                               arguments: [id.uuidString, i, markerID.uuidString])
            }
        }
        return try route(id: id)!
    }

    /// Puts back a deleted route with its id, its waypoint markers that are gone and its waypoints, in one
    /// transaction; with `removing`, the route of that id goes in the same transaction (undoing a replacement).
    public func restore(_ route: Route, removing: UUID? = nil) throws {
        try store.queue.write { db in
            if let removing { try Self.delete(db, removing) }
            for m in route.waypoints where try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM markers WHERE id = ?", arguments: [m.id.uuidString]) == 0 {
                try MarkerStore.insert(m, db)
            }
            let now = Date().timeIntervalSince1970
            try db.execute(sql: "INSERT INTO routes (id, name, description, is_temp, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [route.id.uuidString, route.name, route.description, route.isTemporary,
                                       route.createdAt.timeIntervalSince1970, now])
            for (i, m) in route.waypoints.enumerated() {
                try db.execute(sql: "INSERT INTO route_waypoints (route_id, idx, marker_id) VALUES (?, ?, ?)",
                               arguments: [route.id.uuidString, i, m.id.uuidString])
            }
        }
    }

    /// The saved route with exactly this name (case, diacritics and punctuation ignored).
    public func exactly(named name: String) throws -> Route? {
        let q = MarkerStore.normalize(name)
        return try all().first { MarkerStore.normalize($0.name) == q }
    }

    /// Changes whenever a saved route is added, removed or changed (for the recognizer's names).
    public func revision() throws -> Int {
        try store.queue.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*), TOTAL(updated_at) FROM routes WHERE is_temp = 0")!
            var hasher = Hasher()
            hasher.combine(row[0] as Int)
            hasher.combine(row[1] as Double)
            return hasher.finalize()
        }
    }

    // MARK: progress

    public func saveProgress(_ state: RouteGuidanceState) throws {
        let json = String(decoding: try JSONEncoder().encode(state), as: UTF8.self)
        try store.queue.write { db in
            try db.execute(sql: "INSERT INTO route_progress (route_id, state) VALUES (?, ?) ON CONFLICT(route_id) DO UPDATE SET state = excluded.state",
                           arguments: [state.routeID.uuidString, json])
        }
    }

    public func progress(of routeID: UUID) throws -> RouteGuidanceState? {
        guard let json = try store.queue.read({ db in
            try String.fetchOne(db, sql: "SELECT state FROM route_progress WHERE route_id = ?", arguments: [routeID.uuidString])
        }) else { return nil }
        return try JSONDecoder().decode(RouteGuidanceState.self, from: Data(json.utf8))
    }
}
