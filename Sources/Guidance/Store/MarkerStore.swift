import Foundation
import Geo
import GRDB

/// A saved place (Soundscape's ReferenceEntity, spec §7.1).
public struct Marker: Sendable, Hashable, Codable, Identifiable {
    public var id: UUID
    public var name: String
    /// Free text spoken after the name.
    public var annotation: String?
    public var coordinate: Coordinate
    /// The map feature it was placed on, if any.
    public var entityKey: String?
    public var address: String?
    /// Used only for a beacon or a planned route; hidden from lists and removed with them.
    public var isTemporary: Bool
    public var createdAt: Date
    public var updatedAt: Date
    public var lastSelectedAt: Date?

    public init(id: UUID = UUID(), name: String, annotation: String? = nil, coordinate: Coordinate, entityKey: String? = nil,
                address: String? = nil, isTemporary: Bool = false, createdAt: Date = Date(), updatedAt: Date? = nil,
                lastSelectedAt: Date? = nil) {
        self.id = id
        self.name = name
        self.annotation = annotation
        self.coordinate = coordinate
        self.entityKey = entityKey
        self.address = address
        self.isTemporary = isTemporary
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
        self.lastSelectedAt = lastSelectedAt
    }

    init(row: Row) {
        id = UUID(uuidString: row["id"]) ?? UUID()
        name = row["name"]
        annotation = row["annotation"]
        coordinate = Coordinate(latitude: row["lat"], longitude: row["lon"])
        entityKey = row["entity_key"]
        address = row["address"]
        isTemporary = row["is_temp"]
        createdAt = Date(timeIntervalSince1970: row["created_at"])
        updatedAt = Date(timeIntervalSince1970: row["updated_at"])
        lastSelectedAt = (row["last_selected_at"] as Double?).map(Date.init(timeIntervalSince1970:))
    }
}

/// A marker with its distance from a query point.
public struct NearbyMarker: Sendable, Hashable {
    public var marker: Marker
    public var distance: Double
    public var bearing: Double
}

public enum MarkerStoreError: Error, Equatable, CustomStringConvertible {
    case notFound(String)
    case emptyName
    public var description: String {
        switch self {
        case .notFound(let n): "no marker named \(n)"
        case .emptyName: "a marker needs a name"
        }
    }
}

/// Markers in the user database. Every change is one transaction.
public struct MarkerStore: Sendable {
    public let store: UserStore

    public init(store: UserStore) { self.store = store }

    @discardableResult
    public func insert(_ marker: Marker) throws -> Marker {
        let name = marker.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw MarkerStoreError.emptyName }
        var m = marker
        m.name = name
        try store.queue.write { db in try Self.insert(m, db) }
        return m
    }

    static func insert(_ m: Marker, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO markers (id, name, annotation, lat, lon, entity_key, address, is_temp, created_at, updated_at, last_selected_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [m.id.uuidString, m.name, m.annotation, m.coordinate.latitude, m.coordinate.longitude,
                             m.entityKey, m.address, m.isTemporary, m.createdAt.timeIntervalSince1970,
                             m.updatedAt.timeIntervalSince1970, m.lastSelectedAt?.timeIntervalSince1970])
    }

    /// Creates a marker.
    @discardableResult
    public func create(name: String, at coordinate: Coordinate, annotation: String? = nil, entityKey: String? = nil,
                       address: String? = nil, isTemporary: Bool = false, now: Date = Date()) throws -> Marker {
        try insert(Marker(name: name, annotation: annotation, coordinate: coordinate, entityKey: entityKey, address: address,
                          isTemporary: isTemporary, createdAt: now))
    }

    public func marker(id: UUID) throws -> Marker? {
        try store.queue.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM markers WHERE id = ?", arguments: [id.uuidString]).map(Marker.init(row:))
        }
    }

    /// Permanent markers, by name.
    public func all(includeTemporary: Bool = false) throws -> [Marker] {
        try store.queue.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM markers \(includeTemporary ? "" : "WHERE is_temp = 0") ORDER BY name COLLATE NOCASE, created_at")
                .map(Marker.init(row:))
        }
    }

    public var count: Int {
        get throws { try store.queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM markers")! } }
    }

    /// The permanent marker whose name best matches a spoken name (case, diacritics and punctuation
    /// ignored; an exact match wins, then a name that starts with or contains the words).
    public func find(named spoken: String) throws -> Marker? {
        let q = Self.normalize(spoken)
        guard !q.isEmpty else { return nil }
        let markers = try all()
        if let exact = markers.first(where: { Self.normalize($0.name) == q }) { return exact }
        if let prefix = markers.first(where: { Self.normalize($0.name).hasPrefix(q) }) { return prefix }
        let words = q.split(separator: " ")
        return markers.first { m in
            let n = Self.normalize(m.name).split(separator: " ")
            return words.allSatisfy { n.contains($0) }
        }
    }

    static func normalize(_ s: String) -> String {
        let folded = s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        let cleaned = String(folded.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) ? Character($0) : " " })
        return cleaned.split(separator: " ").joined(separator: " ")
    }

    @discardableResult
    public func rename(_ id: UUID, to newName: String, now: Date = Date()) throws -> Marker {
        let name = newName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw MarkerStoreError.emptyName }
        return try update(id, now: now) { db in
            try db.execute(sql: "UPDATE markers SET name = ?, is_temp = 0 WHERE id = ?", arguments: [name, id.uuidString])
        }
    }

    @discardableResult
    public func annotate(_ id: UUID, _ annotation: String?, now: Date = Date()) throws -> Marker {
        try update(id, now: now) { db in
            try db.execute(sql: "UPDATE markers SET annotation = ? WHERE id = ?", arguments: [annotation, id.uuidString])
        }
    }

    /// Makes a temporary marker (the beacon's) permanent, optionally renaming it.
    @discardableResult
    public func makePermanent(_ id: UUID, name: String? = nil, now: Date = Date()) throws -> Marker {
        try update(id, now: now) { db in
            try db.execute(sql: "UPDATE markers SET is_temp = 0, name = COALESCE(?, name) WHERE id = ?",
                           arguments: [name, id.uuidString])
        }
    }

    public func markSelected(_ id: UUID, now: Date = Date()) throws {
        try store.queue.write { db in
            try db.execute(sql: "UPDATE markers SET last_selected_at = ? WHERE id = ?", arguments: [now.timeIntervalSince1970, id.uuidString])
        }
    }

    private func update(_ id: UUID, now: Date, _ change: (Database) throws -> Void) throws -> Marker {
        try store.queue.write { db in
            try change(db)
            guard db.changesCount > 0 else { throw MarkerStoreError.notFound(id.uuidString) }
            try db.execute(sql: "UPDATE markers SET updated_at = ? WHERE id = ?", arguments: [now.timeIntervalSince1970, id.uuidString])
            return try Row.fetchOne(db, sql: "SELECT * FROM markers WHERE id = ?", arguments: [id.uuidString]).map(Marker.init(row:))!
        }
    }

    /// Deletes a marker (and its places in routes). Returns whether it existed.
    @discardableResult
    public func delete(_ id: UUID) throws -> Bool {
        try store.queue.write { db in
            try db.execute(sql: "DELETE FROM markers WHERE id = ?", arguments: [id.uuidString])
            return db.changesCount > 0
        }
    }

    /// Removes every temporary marker not used by a saved (non-temporary) route.
    @discardableResult
    public func deleteTemporary() throws -> Int {
        try store.queue.write { db in
            try db.execute(sql: """
                DELETE FROM markers WHERE is_temp = 1 AND id NOT IN (
                    SELECT w.marker_id FROM route_waypoints w JOIN routes r ON r.id = w.route_id WHERE r.is_temp = 0)
                """)
            return db.changesCount
        }
    }

    /// Writes every field of `marker` over the stored marker with its id (a replacement, or an undo); its
    /// places in routes stay. Throws ``MarkerStoreError/notFound(_:)`` when there is none.
    @discardableResult
    public func overwrite(_ marker: Marker, now: Date = Date()) throws -> Marker {
        let name = marker.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw MarkerStoreError.emptyName }
        return try update(marker.id, now: now) { db in
            try db.execute(sql: """
                UPDATE markers SET name = ?, annotation = ?, lat = ?, lon = ?, entity_key = ?, address = ?, is_temp = ?
                WHERE id = ?
                """, arguments: [name, marker.annotation, marker.coordinate.latitude, marker.coordinate.longitude,
                                 marker.entityKey, marker.address, marker.isTemporary, marker.id.uuidString])
        }
    }

    /// The permanent marker saved or changed last ("add a note", "nudge marker" without a name).
    public func last() throws -> Marker? {
        try store.queue.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM markers WHERE is_temp = 0 ORDER BY updated_at DESC, created_at DESC LIMIT 1")
                .map(Marker.init(row:))
        }
    }

    /// The permanent marker with exactly this name (case, diacritics and punctuation ignored).
    public func exactly(named name: String) throws -> Marker? {
        let q = Self.normalize(name)
        return try all().first { Self.normalize($0.name) == q }
    }

    /// Changes whenever a permanent marker is added, removed, renamed or moved (for the recognizer's names).
    public func revision() throws -> Int {
        try store.queue.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*), TOTAL(updated_at) FROM markers WHERE is_temp = 0")!
            var hasher = Hasher()
            hasher.combine(row[0] as Int)
            hasher.combine(row[1] as Double)
            return hasher.finalize()
        }
    }

    /// Permanent markers within `radius` metres, nearest first.
    public func nearby(_ origin: Coordinate, radius: Double = 1000, limit: Int? = nil) throws -> [NearbyMarker] {
        let dLat = radius / 111_000
        let rows = try store.queue.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM markers WHERE is_temp = 0 AND lat BETWEEN ? AND ?",
                             arguments: [origin.latitude - dLat, origin.latitude + dLat]).map(Marker.init(row:))
        }
        var out = rows.map { NearbyMarker(marker: $0, distance: origin.distance(to: $0.coordinate), bearing: origin.bearing(to: $0.coordinate)) }
            .filter { $0.distance <= radius }
            .sorted { $0.distance < $1.distance }
        if let limit, out.count > limit { out = Array(out.prefix(limit)) }
        return out
    }
}
