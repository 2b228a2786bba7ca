import Foundation
import Geo
import GRDB
import GRDBSQLite

/// A feature's entry in the `feature_index` R-tree: its box and the three auxiliary columns.
struct IndexEntry: BitwiseCopyable {
    var id: Int64
    /// The box in SQLite's R-tree precision (32-bit floats), rounded outwards as SQLite rounds it.
    var minLat: Float, maxLat: Float, minLon: Float, maxLon: Float
    var category: Int16
    var announceable: UInt8
    var roadClass: UInt8

    init(id: Int64, box: BoundingBox, category: Int, announceable: Bool, roadClass: Int) {
        self.id = id
        minLat = Self.down(box.minLatitude)
        maxLat = Self.up(box.maxLatitude)
        minLon = Self.down(box.minLongitude)
        maxLon = Self.up(box.maxLongitude)
        self.category = Int16(clamping: category)
        self.announceable = announceable ? 1 : 0
        self.roadClass = UInt8(clamping: roadClass)
    }

    /// SQLite's own rounding of a box's low side (rtree.c `rtreeValueDown`), to the bit: it can go a
    /// float step further out than the nearest float below, and tiles must hold the same features
    /// whether the tree was packed here or filled by SQLite.
    static func down(_ value: Double) -> Float {
        let f = Float(value)
        return Double(f) > value ? Float(value * (value < 0 ? awayFromZero : towardsZero)) : f
    }

    /// SQLite's rounding of a box's high side (`rtreeValueUp`).
    static func up(_ value: Double) -> Float {
        let f = Float(value)
        return Double(f) < value ? Float(value * (value < 0 ? towardsZero : awayFromZero)) : f
    }

    private static let towardsZero = 1.0 - 1.0 / 8388608.0
    private static let awayFromZero = 1.0 + 1.0 / 8388608.0
}

/// Builds the `feature_index` R-tree of an import in one pass at the end, packed (Sort-Tile-Recursive:
/// the boxes sorted into vertical slices, each slice sorted by latitude and cut into full nodes, and so
/// up the levels), by writing SQLite's R-tree tables (`_node`, `_rowid`, `_parent`) directly.
///
/// Why: inserting a row at a time cost a third of an import's CPU time (SQLite chooses a leaf, splits
/// nodes and rewrites their blobs per row) and left the nodes about half full; a packed tree is built in
/// a fraction of that time, takes about half the space and answers the same queries. The layout written
/// is SQLite's own (rtree.c: a big-endian depth and cell count, then per cell a 64-bit id and the box as
/// 32-bit floats), and `rtreecheck()` accepts it; later inserts (tiles) go through SQLite as usual.
final class RTreePacker {
    private let entries: RecordFile<IndexEntry>
    /// The entries, mapped, once they are complete.
    private var sealed: UnsafeBufferPointer<IndexEntry>?
    /// The leaves' order, sorted on a thread of its own since ``boxesComplete(db:table:)``.
    private var sorting: LeafSort?

    init(scratchPath: String, source: String) throws(MapImportError) {
        entries = try RecordFile(path: scratchPath, source: source)
    }

    deinit {
        // (A failed import drops the packer: the sort may still be reading the mapped entries.)
        _ = sorting?.value()
    }

    func append(_ entry: IndexEntry) throws(MapImportError) {
        precondition(sealed == nil, "an entry appended to a packed R-tree's boxes after they were complete")
        try entries.append(entry)
    }

    private func seal() throws(MapImportError) -> UnsafeBufferPointer<IndexEntry> {
        if let sealed { return sealed }
        let all = try entries.seal()
        sealed = all
        return all
    }

    /// The entries per node of the R-tree `table` (whose root node SQLite made when it created the table).
    private static func capacity(_ db: Database, table: String) throws -> (nodeSize: Int, capacity: Int) {
        let nodeSize = try Int.fetchOne(db, sql: "SELECT length(data) FROM \"\(table)_node\" WHERE nodeno = 1") ?? 0
        let capacity = (nodeSize - 4) / (8 + 4 * 4)
        guard capacity >= 2 else { throw DatabaseError(message: "\(table): unexpected R-tree node size \(nodeSize)") }
        return (nodeSize, capacity)
    }

    /// Says that every entry has been appended: the leaves' order is sorted on a thread of its own from
    /// now on, while the caller goes on writing rows that have no box (an import's walking graph and ways),
    /// and ``write(into:table:)`` takes it from there. Why: the sort was a tenth of a region's import's
    /// end, on the one thread that writes the database, while the other core was idle.
    func boxesComplete(db: Database, table: String) throws {
        let all = try seal()
        let capacity = try Self.capacity(db, table: table).capacity
        guard all.count > capacity, sorting == nil else { return }
        sorting = LeafSort(entries: entries, all: all, capacity: capacity)
    }

    /// A node of the level being built: its number and the box of what it holds.
    private struct Node {
        var number: Int64
        var minLat: Float, maxLat: Float, minLon: Float, maxLon: Float
    }

    /// Writes the tree into the empty R-tree `table`; throws if the table already holds rows.
    func write(into db: Database, table: String) throws {
        let all = try seal()
        guard try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(table)_rowid\"") == 0 else {
            throw DatabaseError(message: "\(table) is not empty: a packed R-tree can only be written into an empty one")
        }
        guard !all.isEmpty else { return }
        let (nodeSize, capacity) = try Self.capacity(db, table: table)
        try db.execute(sql: "DELETE FROM \"\(table)_node\"")

        let insertNode = try db.makeStatement(sql: "INSERT INTO \"\(table)_node\" (nodeno, data) VALUES (?, ?)")
        let insertParent = try db.makeStatement(sql: "INSERT INTO \"\(table)_parent\" (nodeno, parentnode) VALUES (?, ?)")
        let insertRowid = try db.makeStatement(sql: Self.rowidInsert(table: table, rows: 1))
        let insertRowids = try db.makeStatement(sql: Self.rowidInsert(table: table, rows: Self.rowidsPerInsert))
        var blob = [UInt8](repeating: 0, count: nodeSize)
        var nextNumber: Int64 = 2

        /// Writes one node holding `cells` (id or child number, box) and returns its box.
        func writeNode(number: Int64, depth: Int, cells: some Collection<(Int64, Float, Float, Float, Float)>) throws -> Node {
            for i in blob.indices { blob[i] = 0 }
            blob[0] = UInt8(truncatingIfNeeded: depth >> 8)
            blob[1] = UInt8(truncatingIfNeeded: depth)
            blob[2] = UInt8(truncatingIfNeeded: cells.count >> 8)
            blob[3] = UInt8(truncatingIfNeeded: cells.count)
            var offset = 4
            var box = Node(number: number, minLat: .infinity, maxLat: -.infinity, minLon: .infinity, maxLon: -.infinity)
            for (id, minLat, maxLat, minLon, maxLon) in cells {
                let bits = UInt64(bitPattern: id)
                for shift in stride(from: 56, through: 0, by: -8) {
                    blob[offset] = UInt8(truncatingIfNeeded: bits >> UInt64(shift)); offset += 1
                }
                func put(_ value: Float) {
                    let bits = value.bitPattern
                    blob[offset] = UInt8(truncatingIfNeeded: bits >> 24); blob[offset + 1] = UInt8(truncatingIfNeeded: bits >> 16)
                    blob[offset + 2] = UInt8(truncatingIfNeeded: bits >> 8); blob[offset + 3] = UInt8(truncatingIfNeeded: bits)
                    offset += 4
                }
                put(minLat); put(maxLat); put(minLon); put(maxLon)
                box.minLat = min(box.minLat, minLat); box.maxLat = max(box.maxLat, maxLat)
                box.minLon = min(box.minLon, minLon); box.maxLon = max(box.maxLon, maxLon)
            }
            try insertNode.bindAndStep(in: db) { s in
                sqlite3_bind_int64(s, 1, number)
                return blob.withUnsafeBytes { sqlite3_bind_blob(s, 2, $0.baseAddress, Int32($0.count), Self.transient) }
            }
            return box
        }

        // The leaves. Which leaf holds each entry is kept to write the rowid table in id order afterwards.
        var level: [Node]
        var depth = 0
        if all.count <= capacity {
            _ = try writeNode(number: 1, depth: 0, cells: all.map { ($0.id, $0.minLat, $0.maxLat, $0.minLon, $0.maxLon) })
            try writeRowids(all, leaf: { _ in 1 }, one: insertRowid, many: insertRowids, db: db)
            return
        }
        level = []
        let leaves: (order: [Int32], groups: [Range<Int>])
        if let sorting, sorting.capacity == capacity {
            leaves = sorting.value()
        } else {
            leaves = Self.leaves(all, capacity: capacity, entries: entries)
        }
        sorting = nil
        var leafOf = [Int32](repeating: 0, count: all.count)
        for (n, group) in leaves.groups.enumerated() {
            // The boxes are read in tree order, scattered over the mapped scratch file: let go of its pages
            // now and then, as the importer does with its node index.
            if n % 2_048 == 2_047 { entries.releasePages() }
            let number = nextNumber
            nextNumber += 1
            for i in leaves.order[group] { leafOf[Int(i)] = Int32(number) }
            level.append(try writeNode(number: number, depth: 0, cells: leaves.order[group].lazy.map {
                let e = all[Int($0)]
                return (e.id, e.minLat, e.maxLat, e.minLon, e.maxLon)
            }))
        }
        try writeRowids(all, leaf: { Int64(leafOf[$0]) }, one: insertRowid, many: insertRowids, db: db)
        leafOf = []
        entries.releasePages()
        // The levels above, up to a root that holds at most `capacity` children.
        while true {
            depth += 1
            let children = level
            let (order, groups) = children.count <= capacity ? ((0..<Int32(children.count)).map { $0 }, [0..<children.count])
                : Self.tiles(lat: children.map { ($0.minLat + $0.maxLat) / 2 }, lon: children.map { ($0.minLon + $0.maxLon) / 2 },
                             capacity: capacity)
            let isRoot = groups.count == 1
            level = []
            for group in groups {
                let number: Int64 = isRoot ? 1 : nextNumber
                if !isRoot { nextNumber += 1 }
                for i in order[group] {
                    try insertParent.bindAndStep(in: db) { s in
                        sqlite3_bind_int64(s, 1, children[Int(i)].number)
                        return sqlite3_bind_int64(s, 2, number)
                    }
                }
                level.append(try writeNode(number: number, depth: isRoot ? depth : 0, cells: order[group].lazy.map {
                    let c = children[Int($0)]
                    return (c.number, c.minLat, c.maxLat, c.minLon, c.maxLon)
                }))
            }
            if isRoot { break }
        }
    }

    /// The leaves' Sort-Tile-Recursive order of the entries (see ``tiles(lat:lon:capacity:)``).
    fileprivate static func leaves(_ all: UnsafeBufferPointer<IndexEntry>, capacity: Int,
                                   entries: RecordFile<IndexEntry>) -> (order: [Int32], groups: [Range<Int>]) {
        // The centres in one pass over the mapped file, letting go of its pages as it goes: read whole, they
        // made the import's peak (the sort below holds the centres and the order while they were resident).
        var centreLat = [Float](repeating: 0, count: all.count), centreLon = [Float](repeating: 0, count: all.count)
        for i in all.indices {
            if i % 262_144 == 262_143 { entries.releasePages() }
            centreLat[i] = (all[i].minLat + all[i].maxLat) / 2
            centreLon[i] = (all[i].minLon + all[i].maxLon) / 2
        }
        entries.releasePages()
        return tiles(lat: centreLat, lon: centreLon, capacity: capacity)
    }

    /// Sort-Tile-Recursive order of boxes with these centres: the indices in tree order, and the
    /// runs of at most `capacity` of them that make one node each. (32-bit indices: at the end of a
    /// region's import these arrays are what the packing holds in memory.)
    private static func tiles(lat: [Float], lon: [Float], capacity: Int) -> (order: [Int32], groups: [Range<Int>]) {
        let count = lat.count
        let nodes = (count + capacity - 1) / capacity
        let slices = Int(Double(nodes).squareRoot().rounded(.up))
        let sliceSize = slices * capacity
        var order = (0..<Int32(count)).map { $0 }
        order.sort { lon[Int($0)] < lon[Int($1)] }
        var groups: [Range<Int>] = []
        groups.reserveCapacity(nodes + slices)
        var start = 0
        while start < count {
            let end = min(start + sliceSize, count)
            order[start..<end].sort { lat[Int($0)] < lat[Int($1)] }
            var s = start
            while s < end {
                groups.append(s..<min(s + capacity, end))
                s += capacity
            }
            start = end
        }
        return (order, groups)
    }

    /// Rows of the R-tree's rowid table written by one insert (see ``writeRowids(_:leaf:one:many:db:)``).
    static let rowidsPerInsert = 200

    /// An insert of `rows` rows (rowid, leaf node, the three auxiliary columns) into `table`'s rowid table.
    static func rowidInsert(table: String, rows: Int) -> String {
        "INSERT INTO \"\(table)_rowid\" (rowid, nodeno, a0, a1, a2) VALUES "
            + Array(repeating: "(?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
    }

    /// Writes each entry's rowid row: `many` takes ``rowidsPerInsert`` rows a step, `one` the rest.
    private func writeRowids(_ all: UnsafeBufferPointer<IndexEntry>, leaf: (Int) -> Int64,
                             one statement: Statement, many: Statement, db: Database) throws {
        // Most rows go many to one insert: one step for many rows spares SQLite's work for each statement
        // run, which was most of writing the rowid table's million rows at 100 × Helsinki.
        let perStatement = Self.rowidsPerInsert
        var i = 0
        while i + perStatement <= all.count {
            if i / 262_144 != (i + perStatement) / 262_144 { entries.releasePages() }
            let first = i
            try many.bindAndStep(in: db) { s in
                var code = SQLITE_OK
                for k in 0..<perStatement where code == SQLITE_OK {
                    let e = all[first + k]
                    let p = Int32(k * 5)
                    code = sqlite3_bind_int64(s, p + 1, e.id)
                    if code == SQLITE_OK { code = sqlite3_bind_int64(s, p + 2, leaf(first + k)) }
                    if code == SQLITE_OK { code = sqlite3_bind_int64(s, p + 3, Int64(e.category)) }
                    if code == SQLITE_OK { code = sqlite3_bind_int64(s, p + 4, Int64(e.announceable)) }
                    if code == SQLITE_OK { code = sqlite3_bind_int64(s, p + 5, Int64(e.roadClass)) }
                }
                return code
            }
            i += perStatement
        }
        for j in i..<all.count {
            let e = all[j]
            try statement.bindAndStep(in: db) { s in
                sqlite3_bind_int64(s, 1, e.id)
                sqlite3_bind_int64(s, 2, leaf(j))
                sqlite3_bind_int64(s, 3, Int64(e.category))
                sqlite3_bind_int64(s, 4, Int64(e.announceable))
                return sqlite3_bind_int64(s, 5, Int64(e.roadClass))
            }
        }
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// The leaves' order of a packed R-tree, sorted on a thread of its own (see ``RTreePacker/boxesComplete(db:table:)``).
// @unchecked: `result` is written by the thread before it signals `done` and read only after waiting for it;
// the thread holds the entries' file (and so its mapping) until it is done.
private final class LeafSort: @unchecked Sendable {
    let capacity: Int
    private var result: (order: [Int32], groups: [Range<Int>])?
    private let done = DispatchSemaphore(value: 0)

    init(entries: RecordFile<IndexEntry>, all: UnsafeBufferPointer<IndexEntry>, capacity: Int) {
        self.capacity = capacity
        nonisolated(unsafe) let entries = entries
        nonisolated(unsafe) let all = all
        Thread.detachNewThread { [self] in
            result = RTreePacker.leaves(all, capacity: capacity, entries: entries)
            done.signal()
        }
    }

    /// Waits for the order and hands it over (once).
    func value() -> (order: [Int32], groups: [Range<Int>]) {
        done.wait()
        done.signal()
        defer { result = nil }
        return result ?? ([], [])
    }
}
