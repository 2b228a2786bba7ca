import Foundation
import Geo
import GRDB

/// An entrance of a building, as the map has it.
public struct BuildingEntrance: Sendable, Hashable {
    public var nodeID: Int64
    public var coordinate: Coordinate
    /// The `entrance` tag's value: main, yes, service, emergency, exit…
    public var kind: String?
    /// The entrance node's own tags (access, wheelchair, addr:street…), when it is a feature of the map.
    public var tags: [String: String]
    public var buildingFeatureID: Int64

    public init(nodeID: Int64, coordinate: Coordinate, kind: String?, tags: [String: String] = [:], buildingFeatureID: Int64) {
        self.nodeID = nodeID
        self.coordinate = coordinate
        self.kind = kind
        self.tags = tags
        self.buildingFeatureID = buildingFeatureID
    }

    /// Whether a walker can go in here: not an emergency, exit-only, delivery or garage door, not private.
    public var isUsable: Bool {
        if let kind, ["emergency", "exit", "service", "garage", "no"].contains(kind) { return false }
        if let access = tags["access"], ["no", "private"].contains(access) { return false }
        if tags["door"] == "no" && tags["entrance"] == nil { return false }
        return true
    }

    /// The usable entrance nearest `origin` (among equals the main one); nil when none is usable.
    public static func nearestUsable(_ entrances: [BuildingEntrance], from origin: Coordinate) -> BuildingEntrance? {
        entrances.filter(\.isUsable).min { a, b in
            let da = origin.distance(to: a.coordinate), db = origin.distance(to: b.coordinate)
            if abs(da - db) > 0.5 { return da < db }
            if (a.kind == "main") != (b.kind == "main") { return a.kind == "main" }
            return a.nodeID < b.nodeID
        }
    }
}

extension SpatialDataView {
    /// The features of a kind nearest `origin`, nearest first (distance to the closest point of the outline).
    /// The search widens (300 m, 1 km, 3 km, 10 km) until `limit` are found or `maxRadius` is reached, so that
    /// "nearest" also finds a kind that is only kilometres away. The same named place drawn twice (a point and
    /// its building) is given once.
    public func nearest(_ kind: PlaceKind, to origin: Coordinate, limit: Int = 5,
                        maxRadius: Double = 10_000) throws -> [NearbyFeature] {
        guard !kind.matches.isEmpty, limit > 0 else { return [] }
        let (condition, arguments) = Self.sql(kind)
        return try queue.read { db in
            var radius = min(300, maxRadius)
            while true {
                let box = BoundingBox(center: origin, radius: radius)
                let statement = try db.cachedStatement(sql: """
                    SELECT r.id, f.geometry_kind, f.geometry, f.name, f.lat, f.lon
                    FROM feature_index r JOIN features f ON f.id = r.id
                    WHERE r.min_lat <= ? AND r.max_lat >= ? AND r.min_lon <= ? AND r.max_lon >= ? AND (\(condition))
                    """)
                var found: [(candidate: Candidate, name: String?)] = []
                let bounds: [(any DatabaseValueConvertible)?] = [box.maxLatitude, box.minLatitude, box.maxLongitude, box.minLongitude]
                let rows = try Row.fetchCursor(statement, arguments: StatementArguments(bounds + arguments))
                while let row = try rows.next() {
                    let start = GeometryBlob.Origin(stored: row[4], row[5])
                    guard let geometryKind = FeatureGeometry.Kind(rawValue: row[1]),
                          let closest = try row.withUnsafeData(atIndex: 2, { blob in
                              blob.flatMap { GeometryBlob.closest(kind: geometryKind, blob: $0, from: start, to: origin) }
                          }),
                          closest.distance <= radius else { continue }
                    let name: String? = row[3]
                    found.append((Candidate(id: row[0], closest: closest, level: .ground, isNamed: name != nil), name))
                }
                found.sort { $0.candidate.closest.distance < $1.candidate.closest.distance
                    || ($0.candidate.closest.distance == $1.candidate.closest.distance && $0.candidate.id < $1.candidate.id) }
                var kept: [(candidate: Candidate, name: String?)] = []
                for item in found {
                    if let name = item.name.map(NameNormalizer.normalize), kept.contains(where: { other in
                        other.name.map(NameNormalizer.normalize) == name
                            && other.candidate.closest.point.distance(to: item.candidate.closest.point) < 25
                    }) { continue }
                    kept.append(item)
                }
                if kept.count >= limit || radius >= maxRadius {
                    return try nearby(db, kept.prefix(limit).map(\.candidate), origin: origin)
                }
                radius = min(radius * 3.3, maxRadius)
            }
        }
    }

    /// The WHERE condition of a kind over the features' tags (JSON), with its arguments.
    static func sql(_ kind: PlaceKind) -> (String, [(any DatabaseValueConvertible)?]) {
        var arguments: [(any DatabaseValueConvertible)?] = []
        let alternatives = kind.matches.map { tests -> String in
            "(" + tests.map { test -> String in
                // Keys are checked by the table parser (letters, digits, _ : . -), so quoting them is safe.
                let path = MapStore.tagSQL(test.key)
                switch (test.value, test.negated) {
                case (nil, _): return "\(path) IS NOT NULL"
                case (let value?, false):
                    arguments.append(value)
                    return "\(path) = ?"
                case (let value?, true):
                    arguments.append(value)
                    return "(\(path) IS NULL OR \(path) != ?)"
                }
            }.joined(separator: " AND ") + ")"
        }
        return (alternatives.joined(separator: " OR "), arguments)
    }

    /// The entrances of a place: of the building it is, or of the building a point place is inside. Empty when the
    /// map has none.
    public func entrances(of feature: MapFeature) throws -> [BuildingEntrance] {
        try queue.read { db in
            var buildingIDs: [Int64] = [feature.id]
            if case .point(let p) = feature.geometry {
                // Buildings with entrances whose box holds the point, then whose outline does.
                let ids = try Int64.fetchAll(db, sql: """
                    SELECT DISTINCT e.building_feature_id FROM entrances e JOIN feature_index r ON r.id = e.building_feature_id
                    WHERE r.min_lat <= ? AND r.max_lat >= ? AND r.min_lon <= ? AND r.max_lon >= ?
                    """, arguments: [p.latitude, p.latitude, p.longitude, p.longitude])
                let buildings = try loadFeatures(db, ids: ids)
                buildingIDs += ids.filter { id in buildings[id].flatMap { GeometryMath.closest($0.geometry, to: p)?.inside } ?? false }
            }
            var out: [BuildingEntrance] = []
            for id in buildingIDs {
                let rows = try Row.fetchAll(db, sql: """
                    SELECT e.node_id, e.lat, e.lon, e.entrance, f.tags, f.feature_type, f.feature_value, f.tagged
                    FROM entrances e LEFT JOIN features f ON f.id = e.entrance_feature_id
                    WHERE e.building_feature_id = ? ORDER BY e.node_id
                    """, arguments: [id])
                for row in rows {
                    // No entrance feature (the LEFT JOIN found none): no tags.
                    let type: String? = row[5]
                    let tags = type.map { MapStore.tags(stored: row[4], type: $0, value: row[6], tagged: row[7]) } ?? [:]
                    out.append(BuildingEntrance(nodeID: row[0], coordinate: Coordinate(latitude: row[1], longitude: row[2]),
                                                kind: row[3], tags: tags, buildingFeatureID: id))
                }
                if !out.isEmpty { break }
            }
            return out
        }
    }

    /// English (or other `name:<language>`) names of the map's places, with their features: words a walker may use
    /// for a landmark that is far away ("market square", "helsinki cathedral").
    public func localizedNames(language: String = "en", limit: Int = 1000) throws -> [(name: String, feature: MapFeature)] {
        try queue.read { db in
            let path = "$.\"name:\(language)\""
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, json_extract(names, ?) FROM features WHERE json_extract(names, ?) IS NOT NULL ORDER BY id LIMIT ?
                """, arguments: [path, path, limit])
            let features = try loadFeatures(db, ids: rows.map { $0[0] })
            return rows.compactMap { row in
                guard let feature = features[row[0]], let name: String = row[1] else { return nil }
                return (name, feature)
            }
        }
    }

    /// Names in the map closest to a spoken one that matched nothing, for "Did you mean …?" (best first).
    public func namesLike(_ spoken: String, limit: Int = 3) -> [String] {
        let query = KindTable.stripArticle(NameNormalizer.normalize(spoken))
        guard !query.isEmpty else { return [] }
        let compact = query.replacingOccurrences(of: " ", with: "")
        var best: [String: Int] = [:]
        let allowed = max(2, compact.count / 2)
        for entry in nameIndex {
            let d = NameNormalizer.editDistance(compact, entry.compact, limit: allowed)
            guard d <= allowed else { continue }
            if best[entry.name].map({ d < $0 }) ?? true { best[entry.name] = d }
        }
        return best.sorted { $0.value < $1.value || ($0.value == $1.value && $0.key < $1.key) }.prefix(limit).map(\.key)
    }
}
