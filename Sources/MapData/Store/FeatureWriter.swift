import Foundation
import Geo
import GRDB
import GRDBSQLite

/// Writes features, intersections, entrances and the walking graph. The importer and the
/// tile-service client both use it, so both fill exactly the same tables.
struct FeatureWriter {
    let db: Database
    private(set) var nextID: Int64
    /// Where an import collects the R-tree's entries to build the tree at the end; nil: rows go
    /// into the R-tree one by one (tiles).
    var packer: RTreePacker?
    private let statements = Statements()

    /// The inserts this writer runs, each made once and kept: GRDB's `cachedStatement(sql:)` hashes the
    /// SQL text on every call, which an import's millions of rows felt (about 2 % of its CPU).
    private final class Statements {
        enum Kind: Int, CaseIterable { case feature, features, index, legs, manyLegs, entrance, nodeChunk, edgeChunk, way, ways }
        var made: [Statement?] = Array(repeating: nil, count: Kind.allCases.count)
    }

    private func statement(_ kind: Statements.Kind) throws -> Statement {
        if let made = statements.made[kind.rawValue] { return made }
        let sql: String
        let featureColumns = """
            INSERT INTO features (id, osm_id, key_text, osm_ids, feature_type, feature_value, name, names, tags, tagged,
                geometry_kind, geometry, lat, lon, category, super_code, road_class,
                level, layer, is_roundabout, source)
            VALUES
            """
        let featureValues = "(" + Array(repeating: "?", count: Self.featureColumnCount).joined(separator: ", ") + ")"
        switch kind {
        case .feature: sql = featureColumns + " " + featureValues
        case .features:
            sql = featureColumns + " " + Array(repeating: featureValues, count: Self.rowsPerInsert).joined(separator: ", ")
        case .index: sql = """
            INSERT INTO feature_index (id, min_lat, max_lat, min_lon, max_lon, cat, ann, rc)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """
        case .legs: sql = "INSERT INTO intersection_legs (intersection_id, legs) VALUES (?, ?)"
        case .manyLegs:
            sql = "INSERT INTO intersection_legs (intersection_id, legs) VALUES "
                + Array(repeating: "(?, ?)", count: Self.rowsPerInsert).joined(separator: ", ")
        case .entrance: sql = """
            INSERT INTO entrances (list_feature_id, building_feature_id, entrance_feature_id, node_id, lat, lon, entrance)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """
        case .nodeChunk: sql = "INSERT INTO walk_node_chunks (count, data) VALUES (?, ?)"
        case .edgeChunk: sql = "INSERT INTO walk_edge_chunks (first_id, count, data) VALUES (?, ?, ?)"
        case .way: sql = "INSERT OR REPLACE INTO ways (id, name, highway) VALUES (?, ?, ?)"
        case .ways:
            sql = "INSERT OR REPLACE INTO ways (id, name, highway) VALUES "
                + Array(repeating: "(?, ?, ?)", count: Self.waysPerInsert).joined(separator: ", ")
        }
        let made = try db.makeStatement(sql: sql)
        statements.made[kind.rawValue] = made
        return made
    }

    init(db: Database) throws {
        self.db = db
        nextID = (try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM features") ?? 0) + 1
    }

    /// Inserts a feature and returns its row id.
    @discardableResult
    mutating func insert(_ f: PendingFeature) throws -> Int64 {
        let id = nextID
        nextID += 1
        try write(Self.prepare(f, id: id))
        return id
    }

    /// A feature's row values, computed without the database so that an import can make them on
    /// another thread than the one that writes them.
    struct PreparedFeature: Sendable {
        var id: Int64
        /// The `features` row's values after its id, which is bound apart: giving the row its id then
        /// leaves the shared buffer alone (setting it copied the whole row on the thread that hands them over).
        var row: RowBuffer
        var index: IndexEntry

        /// Gives rows prepared before their id was known (with 0) their row id.
        mutating func assign(id: Int64) {
            self.id = id
            index.id = id
        }
    }

    static func prepare(_ f: PendingFeature, id: Int64) -> PreparedFeature {
        let centroid = f.geometry.centroid
        let bbox = f.geometry.boundingBox
        // The primary tag is in feature_type and feature_value already.
        let tagged = f.tags[f.featureType] == f.featureValue
        let tagPairs = f.tags.pairs.compactMap { tagged && $0.key == f.featureType ? nil : ($0.key, $0.value) }
        let storedTags = tagPairs.isEmpty ? nil : JSONText.object(tagPairs)
        let key: (osmID: Int64?, text: String?) = f.element.map { ($0.encoded, nil) } ?? MapStore.storedKey(f.key)
        let lat = FixedPoint.degrees(centroid.latitude), lon = FixedPoint.degrees(centroid.longitude)
        let names = storedNames(f)
        let geometry = f.geometry.encoded(origin: GeometryBlob.Origin(stored: lat, lon))
        var row = RowBuffer(capacity: 200 + geometry.count + (storedTags?.utf8.count ?? 0) + (names?.utf8.count ?? 0)
                                + (f.name?.utf8.count ?? 0))
        row.append(key.osmID)
        row.append(key.text)
        row.append(storedOSMIDs(key: f.key, element: f.element, f.osmIDs))
        row.append(f.featureType)
        row.append(f.featureValue)
        row.append(f.name)
        row.append(names)
        row.append(storedTags)
        row.append(tagged)
        row.append(f.geometry.kind.rawValue)
        row.append(geometry)
        row.append(lat)
        row.append(lon)
        row.append(f.category)
        row.append(f.superCategory.indexCode)
        row.append(f.roadClass.rawValue)
        row.append(f.level.rawValue)
        row.append(f.layer)
        row.append(f.isRoundabout)
        row.append(f.source)
        return PreparedFeature(
            id: id,
            row: row,
            index: IndexEntry(id: id, box: bbox, category: f.superCategory.indexCode, announceable: f.isAnnounceable,
                              roadClass: f.roadClass.rawValue))
    }

    /// The `names` column: nil when the names are only `name`, which has a column of its own.
    static func storedNames(_ f: PendingFeature) -> String? {
        if f.names.isEmpty || (f.names.count == 1 && f.names[0].0 == "name" && f.names[0].1 == f.name) { return nil }
        return JSONText.object(f.names)
    }

    /// The `osm_ids` column: nil when the ids are just the element the key names ("w456" → [-456]),
    /// which is most features; readers get them back from the key (``MapStore/osmIDs(key:stored:)``).
    static func storedOSMIDs(key: String, element: OSMElementID? = nil, _ ids: [Int64]) -> String? {
        if ids.count == 1, (element ?? MapStore.keyElement(key))?.encoded == ids[0] { return nil }
        return JSONText.integers(ids)
    }

    static let featureColumnCount = 21
    /// Feature rows written by one insert in ``write(_:)-([PreparedFeature])``: one step for many rows spares
    /// SQLite's work for each statement run.
    static let rowsPerInsert = 32

    /// Writes prepared features, ``rowsPerInsert`` to an insert while there are that many left.
    func write(_ features: [PreparedFeature]) throws {
        var start = 0
        if features.count >= Self.rowsPerInsert {
            let many = try statement(.features)
            let s = many.sqliteStatement
            while start + Self.rowsPerInsert <= features.count {
                sqlite3_reset(s)
                var code = features.withUnsafeBufferPointer { Self.bindRows($0, from: start, row: 0, andStep: s) }
                if code == SQLITE_DONE { code = SQLITE_OK }
                let error = code == SQLITE_OK ? nil : failure(code, many)
                sqlite3_reset(s)
                if let error { throw error }
                for k in start..<(start + Self.rowsPerInsert) { try writeIndex(features[k].index) }
                start += Self.rowsPerInsert
            }
        }
        for k in start..<features.count { try write(features[k]) }
    }

    /// Binds rows `row…` of the `rowsPerInsert` from `start`, each inside the call that lends its buffer (they are
    /// bound in place), and steps once all are bound.
    private static func bindRows(_ rows: UnsafeBufferPointer<PreparedFeature>, from start: Int, row: Int,
                                 andStep s: OpaquePointer) -> Int32 {
        if row == rowsPerInsert { return sqlite3_step(s) }
        let feature = rows[start + row]
        let first = Int32(row * featureColumnCount + 1)
        let code = sqlite3_bind_int64(s, first, feature.id)
        guard code == SQLITE_OK else { return code }
        return feature.row.bytes.withUnsafeBytes { raw in
            let code = RowBuffer.bind(raw, to: s, first: first + 1)
            return code == SQLITE_OK ? bindRows(rows, from: start, row: row + 1, andStep: s) : code
        }
    }

    /// Writes a prepared feature's rows. The values are bound straight to SQLite (here and for the
    /// intersections, entrances and walking graph): the import writes millions of rows, and building
    /// GRDB's argument lists cost more than the inserts themselves.
    func write(_ p: PreparedFeature) throws {
        let feature = try statement(.feature)
        let s = feature.sqliteStatement
        sqlite3_reset(s)
        var code = sqlite3_bind_int64(s, 1, p.id)
        if code == SQLITE_OK { code = p.row.bindAndStep(s, first: 2) }
        if code == SQLITE_DONE { code = SQLITE_OK }
        let error = code == SQLITE_OK ? nil : failure(code, feature)
        sqlite3_reset(s)
        if let error { throw error }
        try writeIndex(p.index)
    }

    /// A feature's R-tree entry: to the packer during an import, else straight into the R-tree.
    private func writeIndex(_ e: IndexEntry) throws {
        if let packer {
            try packer.append(e)
        } else {
            try run(statement(.index), [e.id.databaseValue, Double(e.minLat).databaseValue, Double(e.maxLat).databaseValue,
                       Double(e.minLon).databaseValue, Double(e.maxLon).databaseValue, Int(e.category).databaseValue,
                       Int(e.announceable).databaseValue, Int(e.roadClass).databaseValue])
        }
    }

    /// Binds `values` and steps the insert (the rows other than features': fewer, so SQLite copies their texts).
    private func run(_ statement: Statement, _ values: [DatabaseValue]) throws {
        let s = statement.sqliteStatement
        sqlite3_reset(s)
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            let code: Int32
            switch value.storage {
            case .null: code = sqlite3_bind_null(s, index)
            case .int64(let v): code = sqlite3_bind_int64(s, index, v)
            case .double(let v): code = sqlite3_bind_double(s, index, v)
            case .string(let v): code = sqlite3_bind_text(s, index, v, -1, Self.transient)
            case .blob(let v): code = Self.bind(v, to: s, at: index)
            }
            guard code == SQLITE_OK else { throw failure(code, statement) }
        }
        let code = sqlite3_step(s)
        let error = code == SQLITE_DONE ? nil : failure(code, statement)
        sqlite3_reset(s)
        if let error { throw error }
    }

    private func failure(_ code: Int32, _ statement: Statement) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                      sql: statement.sql)
    }

    /// An intersection's rows, made without the database (an import makes them on the thread that finds
    /// the intersections); the feature's id is filled in when it is written.
    struct PreparedIntersection: Sendable {
        var feature: PreparedFeature
        /// Its legs as `intersection_legs` stores them (``IntersectionLegsBlob``); nil: it has none.
        var legs: Data?
    }

    /// An intersection leg's values but its intersection's id (the bearing as stored, in hundredths of a degree).
    struct PreparedLeg: Sendable, Hashable {
        var roadFeatureID: Int64?
        var wayID: Int64
        var bearing: Int64
        var direction: Int64
        var isRoundabout: Bool
        var level: Int64
    }

    /// An intersection's feature row (gd_intersection, which holds its point, level and roundabout flag;
    /// the node is in its key) and its legs, with the feature id left at 0.
    static func prepareIntersection(_ i: PendingIntersection, roadFeatureIDs: [Int64: Int64], source: Int = 0) -> PreparedIntersection {
        let feature = PendingFeature(
            key: "i\(i.nodeID)", osmIDs: i.wayIDs.map { OSMElementID(.way, $0).encoded },
            featureType: "highway", featureValue: "gd_intersection", name: nil, names: [], tags: OSMTags(),
            geometry: .point(i.coordinate), category: nil, superCategory: .intersection, roadClass: .none,
            level: i.level, layer: 0, isRoundabout: i.isRoundabout, source: source)
        return PreparedIntersection(feature: prepare(feature, id: 0), legs: preparedLegs(i.legs, roadFeatureIDs: roadFeatureIDs))
    }

    /// An intersection's legs as `intersection_legs` stores them; nil when there are none.
    static func preparedLegs(_ legs: [PendingLeg], roadFeatureIDs: [Int64: Int64]) -> Data? {
        guard !legs.isEmpty else { return nil }
        return IntersectionLegsBlob.encoded(legs.map { leg in
            PreparedLeg(roadFeatureID: roadFeatureIDs[leg.wayID], wayID: leg.wayID, bearing: LegGeometry.stored(bearing: leg.bearing),
                        direction: Int64(leg.direction), isRoundabout: leg.isRoundabout, level: Int64(leg.level.rawValue))
        })
    }

    /// Inserts an intersection: its feature row and its legs.
    @discardableResult
    mutating func insertIntersection(_ i: PendingIntersection, roadFeatureIDs: [Int64: Int64], source: Int = 0) throws -> Int64 {
        try insertIntersection(Self.prepareIntersection(i, roadFeatureIDs: roadFeatureIDs, source: source))
    }

    /// Inserts a prepared intersection under the next feature id and returns that id.
    @discardableResult
    mutating func insertIntersection(_ p: PreparedIntersection) throws -> Int64 {
        try insertIntersections([p])
        return nextID - 1
    }

    /// Inserts prepared intersections under the next feature ids, in order: the features and the legs
    /// ``rowsPerInsert`` to an insert, as the import's other features are (one at a time, the intersections were
    /// most of the writer's time at the end of a region's import).
    mutating func insertIntersections(_ intersections: [PreparedIntersection]) throws {
        var features: [PreparedFeature] = []
        features.reserveCapacity(intersections.count)
        var legs: [(id: Int64, blob: Data)] = []
        legs.reserveCapacity(intersections.count)
        for p in intersections {
            var feature = p.feature
            feature.assign(id: nextID)
            if let blob = p.legs { legs.append((nextID, blob)) }
            nextID += 1
            features.append(feature)
        }
        try write(features)
        try insertGrouped(legs, perInsert: Self.rowsPerInsert, columns: 2, many: .manyLegs, one: .legs) { s, first, leg in
            let code = sqlite3_bind_int64(s, first, leg.id)
            return code == SQLITE_OK ? Self.bind(leg.blob, to: s, at: first + 1) : code
        }
    }

    /// Inserts `rows` with the statement `many` (`perInsert` rows of `columns` parameters each) while there are that
    /// many left, and the rest one at a time with `one`. `bind` binds a row from its first parameter on and returns the
    /// first result code that is not `SQLITE_OK`, or the last one.
    private func insertGrouped<Row>(_ rows: [Row], perInsert: Int, columns: Int, many: Statements.Kind, one: Statements.Kind,
                                    bind: (OpaquePointer, Int32, Row) -> Int32) throws {
        var start = 0
        if rows.count >= perInsert {
            let statement = try statement(many)
            while start + perInsert <= rows.count {
                let first = start
                try statement.bindAndStep(in: db) { s in
                    var code = SQLITE_OK
                    for k in 0..<perInsert where code == SQLITE_OK { code = bind(s, Int32(k * columns + 1), rows[first + k]) }
                    return code
                }
                start += perInsert
            }
        }
        guard start < rows.count else { return }
        let single = try statement(one)
        for row in rows[start...] { try single.bindAndStep(in: db) { s in bind(s, 1, row) } }
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Binds a blob (copied by SQLite) and returns the result code.
    private static func bind(_ data: Data, to s: OpaquePointer, at index: Int32) -> Int32 {
        data.withUnsafeBytes { bytes in
            bytes.count == 0 ? sqlite3_bind_zeroblob(s, index, 0)
                : sqlite3_bind_blob(s, index, bytes.baseAddress, Int32(bytes.count), transient)
        }
    }

    struct PendingEntrance {
        var nodeID: Int64
        var coordinate: Coordinate
        var entranceValue: String
        var entranceFeatureID: Int64?
    }

    /// Inserts an entrance list (gd_entrance_list) for a building and its entrance rows.
    @discardableResult
    mutating func insertEntranceList(buildingKey: String, buildingOSMID: Int64, buildingFeatureID: Int64?,
                                     entrances: [PendingEntrance], source: Int = 0) throws -> Int64 {
        let feature = PendingFeature(
            key: "e\(buildingKey)", osmIDs: [buildingOSMID] + entrances.map(\.nodeID),
            featureType: "gd_entrance_list", featureValue: "yes", name: nil, names: [], tags: OSMTags(),
            geometry: .multiPoint(entrances.map(\.coordinate)), category: nil, superCategory: .entrances,
            roadClass: .none, level: .ground, layer: 0, isRoundabout: false, source: source)
        let id = try insert(feature)
        for e in entrances {
            try run(statement(.entrance), [id.databaseValue, buildingFeatureID.databaseValue, e.entranceFeatureID.databaseValue,
                       e.nodeID.databaseValue, e.coordinate.latitude.databaseValue, e.coordinate.longitude.databaseValue,
                       e.entranceValue.databaseValue])
        }
        return id
    }

    /// Writes a chunk of the walking graph (encoded by the thread that builds the graph).
    func insertWalkChunk(_ chunk: WalkGraphBlob.Chunk) throws {
        switch chunk.kind {
        case .nodes:
            try statement(.nodeChunk).bindAndStep(in: db) { s in
                sqlite3_bind_int64(s, 1, Int64(chunk.count))
                return Self.bind(chunk.data, to: s, at: 2)
            }
        case .edges:
            try statement(.edgeChunk).bindAndStep(in: db) { s in
                sqlite3_bind_int64(s, 1, chunk.firstID)
                sqlite3_bind_int64(s, 2, Int64(chunk.count))
                return Self.bind(chunk.data, to: s, at: 3)
            }
        }
    }

    static let waysPerInsert = 100

    /// Writes each road's or path's name and highway once (`ways`), for its intersection legs and walking-graph edges,
    /// which only keep its id: ``waysPerInsert`` to an insert while there are that many.
    func insertWays(_ ways: [(id: Int64, name: String?, highway: String)]) throws {
        try insertGrouped(ways, perInsert: Self.waysPerInsert, columns: 3, many: .ways, one: .way) { s, first, way in
            var code = sqlite3_bind_int64(s, first, way.id)
            if code == SQLITE_OK {
                code = way.name.map { sqlite3_bind_text(s, first + 1, $0, -1, Self.transient) } ?? sqlite3_bind_null(s, first + 1)
            }
            return code == SQLITE_OK ? sqlite3_bind_text(s, first + 2, way.highway, -1, Self.transient) : code
        }
    }

    func setMetadata(_ values: [String: String]) throws {
        for (k, v) in values.sorted(by: { $0.key < $1.key }) {
            try db.execute(sql: "INSERT OR REPLACE INTO metadata (key, value) VALUES (?, ?)", arguments: [k, v])
        }
    }
}
