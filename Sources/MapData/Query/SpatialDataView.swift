import Foundation
import Geo
import GRDB
import Synchronization

/// Which vertical levels a road query accepts.
public enum LevelFilter: Sendable, Hashable {
    /// Every road, tunnels and indoor corridors included.
    case any
    /// Ground-level roads; bridges only when no ground-level road qualifies. Never tunnels,
    /// underground or indoor ways.
    case street
}

/// The result of reverse geocoding a position.
public enum ReverseGeocodeResult: Sendable, Hashable, CustomStringConvertible {
    /// Inside a named place ("At Stockmann").
    case at(NearbyFeature)
    /// Within 20 m of a street-level road or path ("On Kaivokatu"); the nearest intersection on
    /// it within 50 m, if any.
    case on(road: NearbyFeature, intersection: Intersection?)
    /// Otherwise: the nearest street-level road and the nearest named place, either may be missing.
    case near(road: NearbyFeature?, poi: NearbyFeature?)

    public var description: String {
        switch self {
        case .at(let poi): return "At \(poi.feature.spokenName())"
        case .on(let road, _): return "On \(road.feature.spokenName())"
        case .near(let road, let poi):
            if let road { return "Near \(road.feature.spokenName())" }
            if let poi { return "Near \(poi.feature.spokenName())" }
            return "Location unknown"
        }
    }

    /// The road the user is on, if the result says so.
    public var road: MapFeature? {
        if case .on(let road, _) = self { return road.feature }
        return nil
    }
}

/// One of the four 90° sectors around the user, centred on heading, heading+90, +180, +270.
public struct QuadrantResult: Sendable, Hashable {
    public enum Direction: Int, Sendable, CaseIterable { case ahead = 0, right, behind, left }
    public var direction: Direction
    /// Centre bearing of the sector.
    public var centerBearing: Double
    public var nearest: NearbyFeature?
}

/// A match for a spoken name.
public struct NameMatch: Sendable, Hashable {
    public var feature: MapFeature
    /// The name variant that matched (may be name:sv, alt_name…).
    public var matchedName: String
    /// 0…1; 1 is an exact match after normalisation.
    public var score: Double
    /// Metres from the `near` point, when one was given.
    public var distance: Double?
}

/// Read-only queries over a map database, in the manner of Soundscape's SpatialDataView: features
/// near a point, the nearest road, intersections with the bearing of each road leaving them,
/// sector queries for "Ahead of Me" / "Around Me", reverse geocoding and spoken-name lookup.
/// Thread-safe; every call is one short read.
public final class SpatialDataView: Sendable {
    public let path: String
    public let metadata: MapMetadata
    let queue: DatabaseQueue
    let nameIndex: [NameEntry]
    /// The road network, loaded on first use (Street Preview, "what's ahead").
    private let roads = Mutex<RoadNetwork?>(nil)

    struct NameEntry: Sendable {
        var featureID: Int64
        var name: String
        var normalized: String
        var compact: String
        var tokens: [String]
        var coordinate: Coordinate
        var superCategory: SuperCategory
    }

    /// Opens the map database at `path` for reading; a missing, damaged or foreign file throws a
    /// ``MapOpenError`` that names it.
    public init(path: String) throws {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else { throw MapOpenError(path: path, reason: nil) }
        do {
            queue = try MapStore.openReadOnly(path: path)
            (metadata, nameIndex) = try Self.load(queue, path: path)
        } catch let error as DatabaseError {
            throw MapOpenError(path: path, reason: error.message ?? "\(error.resultCode)")
        }
    }

    private static func load(_ queue: DatabaseQueue, path: String) throws -> (MapMetadata, [NameEntry]) {
        try queue.read { db in
            let values = try Row.fetchAll(db, sql: "SELECT key, value FROM metadata").reduce(into: [String: String]()) {
                $0[$1[0] as String] = $1[1] as String
            }
            if let version = values["schema_version"].flatMap({ Int($0) }), version < MapStore.schemaVersion {
                throw MapOpenError(path: path, reason: "it was imported by an older soundscape in map format \(version); this one reads format \(MapStore.schemaVersion)")
            }
            // The name index: each feature's names (as its `names` reads them), each normalized name once,
            // the first in key order keeping it; sorted by feature and normalized name.
            var names: [NameEntry] = []
            var normalizedNames: [String: String] = [:]  // a street's name is on many of its segments
            let rows = try Row.fetchCursor(db, sql: """
                SELECT id, name, names, lat, lon, super_category FROM features
                WHERE name IS NOT NULL OR names IS NOT NULL ORDER BY id
                """)
            while let row = try rows.next() {
                let all = MapStore.names(stored: row[2], name: row[1])
                    .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                let coordinate = FixedPoint.coordinate(row[3], row[4])
                let superCategory = SuperCategory(rawValue: row[5]) ?? .undefined
                var entries: [NameEntry] = []
                for (_, value) in all {
                    let normalized = normalizedNames[value] ?? NameNormalizer.normalize(value)
                    normalizedNames[value] = normalized
                    guard !normalized.isEmpty, !entries.contains(where: { $0.normalized == normalized }) else { continue }
                    entries.append(NameEntry(featureID: row[0], name: value, normalized: normalized,
                                             compact: normalized.replacingOccurrences(of: " ", with: ""),
                                             tokens: normalized.split(separator: " ").map(String.init),
                                             coordinate: coordinate, superCategory: superCategory))
                }
                entries.sort { $0.normalized.utf8.lexicographicallyPrecedes($1.normalized.utf8) }
                names += entries
            }
            return (MapMetadata(values: values), names)
        }
    }

    // MARK: candidate search

    struct Filter: Hashable {
        var categories: Set<SuperCategory>? = nil
        var excluded: Set<SuperCategory> = []
        var announceableOnly = false
        var roadClasses: Set<RoadClass>? = nil
        var levels: Set<LevelClass>? = nil

        /// Contiguous runs of integer codes: [0, 1, 2, 5] → [0...2, 5...5].
        static func runs(_ codes: [Int]) -> [ClosedRange<Int>] {
            var out: [ClosedRange<Int>] = []
            for code in codes.sorted() {
                if let last = out.last, last.upperBound + 1 == code {
                    out[out.count - 1] = last.lowerBound...code
                } else if out.last?.contains(code) != true {
                    out.append(code...code)
                }
            }
            return out
        }

        /// WHERE fragments, one per contiguous run of category codes; the R-tree takes the box, and
        /// category, announceability and road class are its auxiliary columns.
        var sqlVariants: [String] {
            var common = ""
            if announceableOnly { common += " AND r.ann = 1" }
            if let roadClasses {
                let runs = Self.runs(roadClasses.map(\.rawValue))
                if runs.count == 1 { common += " AND r.rc BETWEEN \(runs[0].lowerBound) AND \(runs[0].upperBound)" }
                else { common += " AND r.rc IN (\(roadClasses.map { String($0.rawValue) }.sorted().joined(separator: ",")))" }
            }
            if let levels {
                common += " AND f.level IN (\(levels.map { String($0.rawValue) }.sorted().joined(separator: ",")))"
            }
            var codes: [Int]?
            if let categories { codes = categories.map(\.indexCode) }
            if !excluded.isEmpty {
                let allowed = SuperCategory.allCases.filter { !excluded.contains($0) && (categories?.contains($0) ?? true) }
                codes = allowed.map(\.indexCode)
            }
            guard let codes else { return [common] }
            return Self.runs(codes).map { " AND r.cat BETWEEN \($0.lowerBound) AND \($0.upperBound)" + common }
        }
    }

    struct Candidate {
        var id: Int64
        var closest: GeometryMath.Closest
        var level: LevelClass
        var isNamed: Bool
    }

    /// Features whose geometry is within `radius` metres of `origin`, nearest first.
    func candidates(_ db: Database, origin: Coordinate, radius: Double, filter: Filter) throws -> [Candidate] {
        let box = BoundingBox(center: origin, radius: radius)
        var out: [Candidate] = []
        for variant in filter.sqlVariants {
            let statement = try db.cachedStatement(sql: """
                SELECT r.id, f.geometry_kind, f.geometry, f.level, f.name IS NOT NULL, f.lat, f.lon
                FROM feature_index r JOIN features f ON f.id = r.id
                WHERE r.min_lat <= ? AND r.max_lat >= ? AND r.min_lon <= ? AND r.max_lon >= ?\(variant)
                """)
            let rows = try Row.fetchCursor(statement, arguments: [box.maxLatitude, box.minLatitude, box.maxLongitude, box.minLongitude])
            while let row = try rows.next() {
                let start = GeometryBlob.Origin(stored: row[5], row[6])
                guard let kind = FeatureGeometry.Kind(rawValue: row[1]),
                      let closest = try row.withUnsafeData(atIndex: 2, { blob in
                          blob.flatMap { GeometryBlob.closest(kind: kind, blob: $0, from: start, to: origin) }
                      }),
                      closest.distance <= radius else { continue }
                out.append(Candidate(id: row[0], closest: closest, level: LevelClass(rawValue: row[3]) ?? .ground, isNamed: row[4]))
            }
        }
        out.sort { $0.closest.distance < $1.closest.distance || ($0.closest.distance == $1.closest.distance && $0.id < $1.id) }
        return out
    }

    static let featureColumns = """
        id, key, osm_ids, feature_type, feature_value, name, names, tags, geometry_kind, geometry, lat, lon,
        category, super_category, road_class, level, layer, is_roundabout, tagged
        """

    static func feature(_ row: Row) -> MapFeature? {
        guard let kind = FeatureGeometry.Kind(rawValue: row[8]),
              let geometry = FeatureGeometry(kind: kind, encoded: row[9], origin: GeometryBlob.Origin(stored: row[10], row[11]))
        else { return nil }
        let key: String = row[1]
        let centroid = FixedPoint.coordinate(row[10], row[11])
        return MapFeature(
            id: row[0], key: key,
            osmIDs: MapStore.osmIDs(key: key, stored: row[2]).map(OSMElementID.init(encoded:)),
            featureType: row[3], featureValue: row[4], name: row[5],
            names: MapStore.names(stored: row[6], name: row[5]),
            tags: MapStore.tags(stored: row[7], type: row[3], value: row[4], tagged: row[18]),
            geometry: geometry, centroid: centroid,
            tile: Tile(containing: centroid, zoom: Tile.soundscapeZoom),
            category: row[12], superCategory: SuperCategory(rawValue: row[13]) ?? .undefined,
            roadClass: RoadClass(rawValue: row[14]) ?? .none, level: LevelClass(rawValue: row[15]) ?? .ground,
            layer: row[16], isRoundabout: row[17])
    }

    func loadFeatures(_ db: Database, ids: [Int64]) throws -> [Int64: MapFeature] {
        guard !ids.isEmpty else { return [:] }
        var out: [Int64: MapFeature] = [:]
        // Chunks keep the statement cache small and stay below SQLite's variable limit.
        for chunkStart in stride(from: 0, to: ids.count, by: 64) {
            let chunk = Array(ids[chunkStart..<min(chunkStart + 64, ids.count)])
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let statement = try db.cachedStatement(sql: "SELECT \(Self.featureColumns) FROM features WHERE id IN (\(placeholders))")
            for row in try Row.fetchAll(statement, arguments: StatementArguments(chunk)) {
                if let f = Self.feature(row) { out[f.id] = f }
            }
        }
        return out
    }

    func nearby(_ db: Database, _ candidates: [Candidate], origin: Coordinate) throws -> [NearbyFeature] {
        let features = try loadFeatures(db, ids: candidates.map(\.id))
        return candidates.compactMap { c in
            guard let f = features[c.id] else { return nil }
            return NearbyFeature(feature: f, distance: c.closest.distance, closestPoint: c.closest.point,
                                 bearing: c.closest.inside ? 0 : origin.bearing(to: c.closest.point),
                                 isInside: c.closest.inside)
        }
    }

    // MARK: public queries

    /// One feature by its key ("n123", "w456", "r789", "i<node>").
    public func feature(key: String) throws -> MapFeature? {
        try queue.read { db in
            let c = MapStore.keyCondition(key)
            return try Row.fetchOne(db, sql: "SELECT \(Self.featureColumns) FROM features WHERE \(c.sql)",
                                    arguments: [c.argument]).flatMap(Self.feature)
        }
    }

    /// Features within `radius` metres (distance to the closest point of their outline or line),
    /// nearest first. By default: every announceable feature except intersections and entrance lists.
    public func features(near origin: Coordinate, radius: Double, categories: Set<SuperCategory>? = nil,
                         includeUnannounceable: Bool = false, limit: Int? = nil) throws -> [NearbyFeature] {
        let filter = Filter(categories: categories,
                            excluded: categories == nil ? [.intersection, .entrances] : [],
                            announceableOnly: !includeUnannounceable)
        return try queue.read { db in
            var found = try candidates(db, origin: origin, radius: radius, filter: filter)
            if let limit, found.count > limit { found = Array(found.prefix(limit)) }
            return try nearby(db, found, origin: origin)
        }
    }

    /// Features in the sector `heading ± halfAngle` within `radius`, nearest first; features the
    /// user is inside are left out (they have no direction).
    public func features(inSectorAround origin: Coordinate, heading: Double, halfAngle: Double, radius: Double,
                         categories: Set<SuperCategory>? = SuperCategory.exploration, limit: Int = 5) throws -> [NearbyFeature] {
        let filter = Filter(categories: categories, excluded: categories == nil ? [.intersection, .entrances] : [],
                            announceableOnly: true)
        return try queue.read { db in
            var chosen: [Candidate] = []
            for c in try candidates(db, origin: origin, radius: radius, filter: filter) where !c.closest.inside {
                let bearing = origin.bearing(to: c.closest.point)
                if abs(Angle.signedDifference(bearing, heading)) <= halfAngle {
                    chosen.append(c)
                    if chosen.count >= limit { break }
                }
            }
            return try nearby(db, chosen, origin: origin)
        }
    }

    /// The nearest feature in each of the four 90° sectors centred on heading, heading+90°, +180°
    /// and +270° ("Around Me"). Features the user is inside are left out.
    public func nearestPerQuadrant(around origin: Coordinate, heading: Double, radius: Double = 200,
                                   categories: Set<SuperCategory>? = SuperCategory.exploration) throws -> [QuadrantResult] {
        let filter = Filter(categories: categories, excluded: categories == nil ? [.intersection, .entrances] : [],
                            announceableOnly: true)
        return try queue.read { db in
            var best: [Candidate?] = [nil, nil, nil, nil]
            // Search outwards: once every quadrant has a feature within r, nothing beyond r can win.
            var searchRadius = min(50, radius)
            while true {
                best = [nil, nil, nil, nil]
                var filled = 0
                for c in try candidates(db, origin: origin, radius: searchRadius, filter: filter) where !c.closest.inside {
                    let relative = Angle.relative(bearing: origin.bearing(to: c.closest.point), heading: heading)
                    let q = Int(Angle.normalized(relative + 45) / 90) % 4
                    if best[q] == nil {
                        best[q] = c
                        filled += 1
                        if filled == 4 { break }
                    }
                }
                if filled == 4 || searchRadius >= radius { break }
                searchRadius = min(searchRadius * 2, radius)
            }
            let loaded = try nearby(db, best.compactMap { $0 }, origin: origin)
            return QuadrantResult.Direction.allCases.map { direction in
                let id = best[direction.rawValue]?.id
                return QuadrantResult(direction: direction,
                                      centerBearing: Angle.normalized(heading + Double(direction.rawValue) * 90),
                                      nearest: loaded.first { $0.feature.id == id })
            }
        }
    }

    /// Roads and paths within `maxDistance`, nearest first, filtered by level.
    public func roads(near origin: Coordinate, radius: Double, levels: LevelFilter = .street,
                      includeConnectors: Bool = false) throws -> [NearbyFeature] {
        try queue.read { db in try roads(db, near: origin, radius: radius, levels: levels, includeConnectors: includeConnectors) }
    }

    func roads(_ db: Database, near origin: Coordinate, radius: Double, levels: LevelFilter,
               includeConnectors: Bool) throws -> [NearbyFeature] {
        var classes: Set<RoadClass> = [.road, .path]
        if includeConnectors { classes.insert(.connector) }
        let filter = Filter(roadClasses: classes, levels: levels == .any ? nil : [.ground, .elevated])
        var found = try candidates(db, origin: origin, radius: radius, filter: filter)
        if levels == .street, found.contains(where: { $0.level == .ground }) {
            found.removeAll { $0.level != .ground }
        }
        return try nearby(db, found, origin: origin)
    }

    /// The nearest road or path and the distance to it (searching outwards up to `maxDistance`).
    public func nearestRoad(to origin: Coordinate, maxDistance: Double = 1000,
                            levels: LevelFilter = .street) throws -> (road: MapFeature, distance: Double)? {
        guard let n = try nearestRoadDetail(to: origin, maxDistance: maxDistance, levels: levels) else { return nil }
        return (n.feature, n.distance)
    }

    /// Like `nearestRoad(to:)`, with the closest point and its bearing.
    public func nearestRoadDetail(to origin: Coordinate, maxDistance: Double = 1000,
                                  levels: LevelFilter = .street) throws -> NearbyFeature? {
        try queue.read { db in
            var radius = min(50, maxDistance)
            while true {
                let classes: Set<RoadClass> = [.road, .path]
                let filter = Filter(roadClasses: classes, levels: levels == .any ? nil : [.ground, .elevated])
                var found = try candidates(db, origin: origin, radius: radius, filter: filter)
                if levels == .street, found.contains(where: { $0.level == .ground }) {
                    found.removeAll { $0.level != .ground }
                }
                if let first = found.first { return try nearby(db, [first], origin: origin).first }
                if radius >= maxDistance { return nil }
                radius = min(radius * 4, maxDistance)
            }
        }
    }

    /// Intersections within `radius`, nearest first, each with its legs.
    public func intersections(near origin: Coordinate, radius: Double, streetLevelOnly: Bool = true) throws -> [Intersection] {
        try queue.read { db in try intersections(db, near: origin, radius: radius, streetLevelOnly: streetLevelOnly, limit: nil) }
    }

    /// The nearest intersection within `maxDistance` (searching outwards), with its legs.
    public func nearestIntersection(to origin: Coordinate, maxDistance: Double = 500,
                                    streetLevelOnly: Bool = true) throws -> Intersection? {
        try queue.read { db in
            var radius = min(40, maxDistance)
            while true {
                if let first = try intersections(db, near: origin, radius: radius, streetLevelOnly: streetLevelOnly, limit: 1).first {
                    return first
                }
                if radius >= maxDistance { return nil }
                radius = min(radius * 4, maxDistance)
            }
        }
    }

    func intersections(_ db: Database, near origin: Coordinate, radius: Double, streetLevelOnly: Bool,
                       limit: Int?) throws -> [Intersection] {
        let filter = Filter(categories: [.intersection], levels: streetLevelOnly ? [.ground, .elevated] : nil)
        var found = try candidates(db, origin: origin, radius: radius, filter: filter)
        if let limit, found.count > limit { found = Array(found.prefix(limit)) }
        return try loadIntersections(db, found.map { ($0.id, $0.closest.distance) })
    }

    func loadIntersections(_ db: Database, _ items: [(Int64, Double)]) throws -> [Intersection] {
        var result: [Intersection] = []
        for (id, distance) in items {
            guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT key, lat, lon, is_roundabout, level FROM features WHERE id = ? AND feature_value = 'gd_intersection'
                """), arguments: [id]) else { continue }
            let legs = try intersectionLegs(db, id)
            result.append(Intersection(id: id, nodeID: MapStore.intersectionNode(key: row[0]), coordinate: FixedPoint.coordinate(row[1], row[2]),
                                       isRoundabout: row[3], level: LevelClass(rawValue: row[4]) ?? .ground,
                                       legs: legs, distance: distance))
        }
        return result
    }

    /// An intersection's legs by bearing (those of equal bearing in the order they were stored), each with
    /// its way's name and highway; a leg whose way has no row is left out.
    func intersectionLegs(_ db: Database, _ id: Int64) throws -> [IntersectionLeg] {
        guard let blob = try Data.fetchOne(db.cachedStatement(sql: "SELECT legs FROM intersection_legs WHERE intersection_id = ?"),
                                           arguments: [id]) else { return [] }
        guard let stored = IntersectionLegsBlob.decoded(blob) else {
            throw DatabaseError(message: "intersection_legs: the legs of intersection \(id) are damaged; import the map again")
        }
        let way = try db.cachedStatement(sql: "SELECT name, highway FROM ways WHERE id = ?")
        var legs: [IntersectionLeg] = []
        legs.reserveCapacity(stored.count)
        for leg in stored.enumerated().sorted(by: { ($0.element.bearing, $0.offset) < ($1.element.bearing, $1.offset) }).map(\.element) {
            guard let row = try Row.fetchOne(way, arguments: [leg.wayID]) else { continue }
            legs.append(IntersectionLeg(roadFeatureID: leg.roadFeatureID, wayID: leg.wayID, name: row[0], highway: row[1],
                                        bearing: LegGeometry.bearing(stored: leg.bearing), direction: Int(leg.direction),
                                        isRoundabout: leg.isRoundabout, level: LevelClass(rawValue: Int(leg.level)) ?? .ground))
        }
        return legs
    }

    /// Entrances of a building feature.
    public func entrances(ofBuilding featureID: Int64) throws -> [(nodeID: Int64, coordinate: Coordinate, kind: String?)] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT node_id, lat, lon, entrance FROM entrances WHERE building_feature_id = ? ORDER BY node_id",
                             arguments: [featureID]).map { ($0[0], Coordinate(latitude: $0[1], longitude: $0[2]), $0[3]) }
        }
    }

    /// The roads of the walking graph (loaded once, on first use).
    public func roadNetwork() throws -> RoadNetwork {
        if let network = roads.withLock({ $0 }) { return network }
        let network = RoadNetwork(graph: try queue.read { db in try WalkingGraph.load(db) })
        roads.withLock { $0 = network }
        return network
    }

    // MARK: reverse geocoding

    /// Where the user is, in words: inside a named place, on a street-level road, or near one.
    /// Tunnels, underground and indoor ways are never reported as the road the user is on.
    ///
    /// `heading`: at a corner, where named roads are equally near (within 2 m), the one running along the heading is
    /// the one the user is on (the walker in Street Preview standing at an intersection, someone at a street corner).
    public func reverseGeocode(_ origin: Coordinate, heading: Double? = nil) throws -> ReverseGeocodeResult {
        let aligned = heading.flatMap { h in (try? roadNetwork())?.alignedRoadName(near: origin, heading: h, within: Self.cornerTie) }
        return try queue.read { db in
            // 1. Inside a named place (areas only; roads and paths are not "inside").
            let insideFilter = Filter(excluded: [.intersection, .entrances, .road, .path, .entrance], announceableOnly: true)
            let inside = try candidates(db, origin: origin, radius: 1, filter: insideFilter)
                .filter { $0.closest.inside && $0.isNamed }
            if !inside.isEmpty {
                let loaded = try nearby(db, inside, origin: origin).filter { $0.feature.roadClass == .none }
                // The smallest area is the most specific place (a shop inside a mall).
                if let best = loaded.min(by: { area($0.feature.geometry) < area($1.feature.geometry) }) {
                    return .at(best)
                }
            }
            // 2. Alongside a street-level road or path (named ones preferred).
            let alongside = try roads(db, near: origin, radius: 20, levels: .street, includeConnectors: false)
            let named = alongside.filter { $0.feature.name != nil }
            var chosen = named.first ?? alongside.first
            if let heading, let first = named.first {
                let tied = named.filter { $0.distance <= first.distance + Self.cornerTie }
                if Set(tied.compactMap(\.feature.name)).count > 1 {
                    chosen = tied.first { $0.feature.name == aligned }
                        ?? tied.min { Self.misalignment($0, heading) < Self.misalignment($1, heading) }
                }
            }
            if let road = chosen {
                let intersection = try intersections(db, near: origin, radius: 50, streetLevelOnly: true, limit: nil)
                    .first { i in i.legs.contains { $0.roadFeatureID == road.feature.id } }
                return .on(road: road, intersection: intersection)
            }
            // 3. Near the closest road and the closest named place.
            var road: NearbyFeature?
            var radius = 100.0
            while road == nil && radius <= 1600 {
                road = try roads(db, near: origin, radius: radius, levels: .street, includeConnectors: false).first
                radius *= 4
            }
            let poiCandidates = try candidates(db, origin: origin, radius: 200,
                                               filter: Filter(categories: [.place, .landmark], announceableOnly: true))
                .filter(\.isNamed)
            let poi = try nearby(db, Array(poiCandidates.prefix(1)), origin: origin).first
            return .near(road: road, poi: poi)
        }
    }

    /// Roads this much nearer than another are not "equally near" at a corner (metres).
    static let cornerTie = 2.0

    /// Degrees between a road's direction at its closest point and `heading`, either way along it (0…90).
    static func misalignment(_ road: NearbyFeature, _ heading: Double) -> Double {
        guard case .line(let points) = road.feature.geometry, let near = Polyline(points).nearestPoint(to: road.closestPoint),
              near.segmentIndex + 1 < points.count else { return 90 }
        let d = abs(Angle.signedDifference(points[near.segmentIndex].bearing(to: points[near.segmentIndex + 1]), heading))
        return min(d, 180 - d)
    }

    private func area(_ geometry: FeatureGeometry) -> Double {
        switch geometry {
        case .polygon(let rings): return GeometryMath.ringArea(rings.first ?? [])
        case .multiPolygon(let polys): return polys.reduce(0) { $0 + GeometryMath.ringArea($1.first ?? []) }
        default: return 0
        }
    }

    // MARK: spoken names

    /// Features whose name (any variant) matches a spoken name, best first. Matching ignores case,
    /// diacritics and punctuation, accepts small misspellings, missing or extra spaces and partial
    /// names ("havis" → Havis Amanda). Among equal scores, landmarks and places come before streets
    /// and stops, then nearer ones first when `near` is given.
    public func lookup(spokenName: String, near: Coordinate? = nil, limit: Int = 5) throws -> [NameMatch] {
        let query = NameNormalizer.normalize(spokenName)
        guard !query.isEmpty else { return [] }
        let queryTokens = query.split(separator: " ").map(String.init)
        let compactQuery = query.replacingOccurrences(of: " ", with: "")
        var bestByFeature: [Int64: (NameEntry, Double)] = [:]
        for entry in nameIndex {
            let score = Self.matchScore(query: query, compactQuery: compactQuery, queryTokens: queryTokens, entry: entry)
            guard score >= 0.5 else { continue }
            if let existing = bestByFeature[entry.featureID], existing.1 >= score { continue }
            bestByFeature[entry.featureID] = (entry, score)
        }
        func rank(_ c: SuperCategory) -> Int {
            switch c {
            case .landmark: return 0
            case .place: return 1
            case .road: return 2
            case .path: return 3
            case .mobility: return 4
            default: return 5
            }
        }
        let ranked = bestByFeature.values.sorted { a, b in
            let sa = (a.1 * 100).rounded(), sb = (b.1 * 100).rounded()
            if sa != sb { return sa > sb }
            let ra = rank(a.0.superCategory), rb = rank(b.0.superCategory)
            if ra != rb { return ra < rb }
            if let near {
                let da = near.distance(to: a.0.coordinate), db = near.distance(to: b.0.coordinate)
                if da != db { return da < db }
            }
            return a.0.featureID < b.0.featureID
        }.prefix(limit)
        return try queue.read { db in
            let features = try loadFeatures(db, ids: ranked.map { $0.0.featureID })
            return ranked.compactMap { entry, score in
                guard let f = features[entry.featureID] else { return nil }
                let distance = near.flatMap { GeometryMath.closest(f.geometry, to: $0)?.distance }
                return NameMatch(feature: f, matchedName: entry.name, score: score, distance: distance)
            }
        }
    }

    static func matchScore(query: String, compactQuery: String, queryTokens: [String], entry: NameEntry) -> Double {
        if entry.normalized == query { return 1.0 }
        if entry.compact == compactQuery { return 0.97 }
        // Every spoken word is a word of the name ("havis" → "havis amanda").
        let nameTokens = entry.tokens
        if queryTokens.allSatisfy({ nameTokens.contains($0) }) {
            return 0.9 - 0.02 * Double(nameTokens.count - queryTokens.count)
        }
        // Every spoken word is close to a word of the name (misspellings, word prefixes).
        var edits = 0
        var allMatched = true
        for token in queryTokens {
            var best = Int.max
            for nameToken in nameTokens {
                if nameToken.hasPrefix(token) && token.count >= 4 { best = min(best, 1); continue }
                let allowed = token.count >= 8 ? 2 : (token.count >= 4 ? 1 : 0)
                let d = NameNormalizer.editDistance(token, nameToken, limit: allowed)
                if d <= allowed { best = min(best, d) }
            }
            if best == Int.max { allMatched = false; break }
            edits += best
        }
        if allMatched {
            return max(0.55, 0.85 - 0.05 * Double(edits) - 0.02 * Double(max(0, nameTokens.count - queryTokens.count)))
        }
        // Whole-name similarity, spaces ignored.
        let allowed = max(1, compactQuery.count / 5)
        let d = NameNormalizer.editDistance(compactQuery, entry.compact, limit: allowed)
        if d <= allowed {
            return 0.8 - 0.25 * Double(d) / Double(max(compactQuery.count, 1)) * 4
        }
        return 0
    }
}
