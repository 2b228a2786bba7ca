import Foundation
import GRDB
@testable import MapData
import MapTestSupport
import Testing

/// The streaming importer: the same features as the whole-file importer it replaced, geometries that
/// osmium builds independently, and files it cannot stream refused with the file, block and offset
/// named while the database that was there stays as it was.
@Suite("Streaming import")
struct StreamingImportTests {
    @Test("the features by geometry kind and category are those of the whole-file importer")
    func sameCountsAsBefore() async throws {
        let helsinki = try await SharedHelsinki.get()
        let queue = try DatabaseQueue(path: helsinki.databasePath, configuration: { var c = Configuration(); c.readonly = true; return c }())
        func counts(_ sql: String) throws -> [String: Int] {
            try queue.inDatabase { db in
                var out: [String: Int] = [:]
                for row in try Row.fetchAll(db, sql: sql) { out[String(describing: row[0] as DatabaseValue)] = row[1] }
                return out
            }
        }
        func count(_ table: String) throws -> Int {
            try queue.inDatabase { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? -1 }
        }
        // Written by the importer that read the whole file before building (commit c8dd40f), whose
        // database held exactly the rows the streaming one writes now (compared table by table).
        #expect(try counts("SELECT geometry_kind, COUNT(*) FROM features GROUP BY 1")
                == ["0": 6_069, "1": 2_368, "2": 707, "3": 144, "4": 2])
        #expect(try counts("SELECT super_category, COUNT(*) FROM features GROUP BY 1")
                == ["\"entrance\"": 325, "\"entrances\"": 144, "\"information\"": 10, "\"intersection\"": 1_818,
                    "\"landmark\"": 271, "\"mobility\"": 1_541, "\"object\"": 1_368, "\"path\"": 1_023,
                    "\"place\"": 1_257, "\"road\"": 1_037, "\"safety\"": 50, "\"undefined\"": 446])
        // The 4,087 names the feature_names table of format 3 held, now built when the map is opened.
        #expect(try SpatialDataView(path: helsinki.databasePath).nameIndex.count == 4_087)
        // An intersection's legs are one row (format 6): 6,246 legs, as format 5's rows were.
        #expect(try count("intersection_legs") == 1_818)
        let legs = try queue.inDatabase { db in
            try Data.fetchAll(db, sql: "SELECT legs FROM intersection_legs").map { IntersectionLegsBlob.decoded($0)?.count ?? -1 }
        }
        #expect(legs.reduce(0, +) == 6_246 && !legs.contains(-1))
        #expect(try count("entrances") == 310)
        #expect(try count("ways") == 2_393, "the ways of the legs and the walking graph, as in format 5")
        #expect(helsinki.summary.walkNodes == 3_729 && helsinki.summary.walkEdges == 5_127)
    }

    @Test("points, lines and areas have the vertices osmium export gives the same elements")
    func geometriesMatchOsmium() async throws {
        let helsinki = try await SharedHelsinki.get()
        let pbf = try TestData.helsinki()
        let dir = try TestData.temporaryDirectory("osmium-export")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("h.geojsonseq").path
        _ = try Osmium.run(["export", "-f", "geojsonseq", "-x", "print_record_separator=false", "-a", "type,id", "-O", "-o", out, pbf])
        // osmium's vertices by element ("n123", "w456"), in 1e-7 degrees.
        var osmium: [String: (type: String, vertices: [[Int64]])] = [:]
        let text = try String(contentsOfFile: out, encoding: .utf8)
        for line in text.split(separator: "\n") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let properties = object["properties"] as? [String: Any],
                  let type = properties["@type"] as? String, let id = properties["@id"] as? Int,
                  let geometry = object["geometry"] as? [String: Any], let kind = geometry["type"] as? String else { continue }
            var vertices: [[Int64]] = []
            func collect(_ value: Any) {
                if let pair = value as? [Double], pair.count == 2 {
                    vertices.append([Int64((pair[1] * 1e7).rounded()), Int64((pair[0] * 1e7).rounded())])
                } else if let list = value as? [Any] {
                    list.forEach(collect)
                }
            }
            collect(geometry["coordinates"] ?? [])
            osmium[(type == "node" ? "n" : type == "way" ? "w" : "a") + String(id)] = (kind, vertices)
        }
        let rows = try helsinki.view.queue.inDatabase { db in
            try Row.fetchAll(db, sql: "SELECT key, geometry_kind, geometry, lat, lon FROM features WHERE key GLOB 'n*' OR key GLOB 'w*'")
        }
        var compared = [0, 0, 0], mismatches: [String] = []
        for row in rows {
            let key: String = row["key"]
            let kind: Int = row["geometry_kind"]
            guard let theirs = osmium[key], let parts = GeometryBlob.decodeParts(row["geometry"], origin: GeometryBlob.Origin(stored: row["lat"], row["lon"]))
            else { continue }
            // A point at its stored lat/lon is one byte and no parts: the point is the origin.
            let points = parts.isEmpty && kind == 0 ? [GeometryBlob.Origin(stored: row["lat"], row["lon"]).coordinate] : parts.flatMap(\.points)
            let ours = points.map { [Int64(($0.latitude * 1e7).rounded()), Int64(($0.longitude * 1e7).rounded())] }
            switch (kind, theirs.type) {
            case (0, "Point"), (1, "LineString"):
                compared[kind] += 1
                if ours != theirs.vertices { mismatches.append(key) }
            case (2, "MultiPolygon"), (2, "Polygon"):
                // osmium may start or wind a ring differently: the same vertices are enough.
                compared[2] += 1
                if Set(ours) != Set(theirs.vertices) { mismatches.append(key) }
            default:
                continue
            }
        }
        #expect(mismatches.isEmpty, "geometries that differ from osmium's: \(mismatches.prefix(10))")
        #expect(compared[0] > 4_000 && compared[1] > 2_000 && compared[2] > 500, "compared \(compared)")
    }

    @Test("the bench's tiled extract imports as that many copies of the features")
    func tiledExtract() async throws {
        let helsinki = try await SharedHelsinki.get()
        let dir = try TestData.temporaryDirectory("tiled")
        defer { try? FileManager.default.removeItem(at: dir) }
        let tiled = dir.appendingPathComponent("Helsinki-x3.osm.pbf").path
        try PBFTiler.tile(source: try TestData.helsinki(), copies: 3, output: tiled)
        let info = try Osmium.run(["fileinfo", "-e", tiled])
        #expect(info.contains("Number of nodes: \(3 * helsinki.summary.nodes)"), "\(info)")
        #expect(info.contains("Objects ordered (by type and id): yes"), "\(info)")
        let summary = try MapImporter.importPBF(at: tiled, into: dir.appendingPathComponent("map.sqlite").path)
        #expect(summary.nodes == 3 * helsinki.summary.nodes)
        #expect(summary.ways == 3 * helsinki.summary.ways && summary.relations == 3 * helsinki.summary.relations)
        #expect(summary.missingNodeRefs == 3 * helsinki.summary.missingNodeRefs)
        #expect(summary.features == 3 * helsinki.summary.features)
        #expect(summary.intersections == 3 * helsinki.summary.intersections)
        #expect(summary.walkEdges == 3 * helsinki.summary.walkEdges)
    }

    @Test("the packed R-tree is one SQLite accepts, and finds what a tree filled row by row finds")
    func packedRTree() async throws {
        let helsinki = try await SharedHelsinki.get()
        let dir = try TestData.temporaryDirectory("rtree")
        defer { try? FileManager.default.removeItem(at: dir) }
        let copy = dir.appendingPathComponent("map.sqlite").path
        try FileManager.default.copyItem(atPath: helsinki.view.path, toPath: copy)
        let queue = try DatabaseQueue(path: copy)
        try await queue.write { db in
            #expect(try String.fetchOne(db, sql: "SELECT rtreecheck('feature_index')") == "ok")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM feature_index") == Int.fetchOne(db, sql: "SELECT COUNT(*) FROM features"))
            #expect(try Int.fetchOne(db, sql: "SELECT MAX(length(data)) FROM feature_index_node WHERE nodeno = 1") ?? 0 > 0)
            try db.execute(sql: """
                CREATE VIRTUAL TABLE byrow USING rtree(id, min_lat, max_lat, min_lon, max_lon, +cat, +ann, +rc);
                INSERT INTO byrow SELECT * FROM feature_index ORDER BY id;
                """)
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<200 {
                let lat = Double.random(in: 60.160...60.180, using: &generator), lon = Double.random(in: 24.925...24.965, using: &generator)
                let size = Double.random(in: 0.0001...0.01, using: &generator)
                func ids(_ table: String) throws -> [Int64] {
                    try Int64.fetchAll(db, sql: """
                        SELECT id FROM \(table) WHERE min_lat <= ? AND max_lat >= ? AND min_lon <= ? AND max_lon >= ? AND cat BETWEEN 0 AND 12 ORDER BY id
                        """, arguments: [lat + size, lat, lon + size, lon])
                }
                #expect(try ids("feature_index") == ids("byrow"))
            }
        }
        try queue.close()
    }

    // MARK: files that cannot be streamed

    /// The Helsinki extract's header payload and its data blocks, decoded.
    private static func helsinkiBlocks() throws -> (header: Data, blocks: [OSMPBF_PrimitiveBlock]) {
        var reader = try PBFFrameReader(path: try TestData.helsinki())
        defer { reader.close() }
        let header = try #require(try reader.next()).payload
        var blocks: [OSMPBF_PrimitiveBlock] = []
        while let raw = try reader.next() { blocks.append(try OSMPBF_PrimitiveBlock(serializedBytes: raw.payload)) }
        return (header, blocks)
    }

    private static func write(_ path: String, header: Data, blocks: [OSMPBF_PrimitiveBlock]) throws {
        FileManager.default.createFile(atPath: path, contents: nil)
        let out = try #require(FileHandle(forWritingAtPath: path))
        defer { try? out.close() }
        try PBFTiler.writeFrame(type: "OSMHeader", payload: header, to: out)
        for block in blocks { try PBFTiler.writeFrame(type: "OSMData", payload: try block.serializedData(), to: out) }
    }

    /// Frame offsets of a PBF file, from its length prefixes and block headers.
    private static func frameOffsets(_ path: String) throws -> [Int] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var offsets: [Int] = [], offset = 0
        while offset + 4 <= bytes.count {
            offsets.append(offset)
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let header = try OSMPBF_BlobHeader(serializedBytes: Data(bytes[(offset + 4)..<(offset + 4 + length)]))
            offset += 4 + length + Int(header.datasize)
        }
        return offsets
    }

    /// A copy of the imported Helsinki map in a new folder, and its bytes, for the tests that check that a failed
    /// import leaves a database as it was.
    static func copyOfHelsinki(_ name: String) async throws -> (dir: URL, db: String, before: Data) {
        let helsinki = try await SharedHelsinki.get()
        let dir = try TestData.temporaryDirectory(name)
        let db = dir.appendingPathComponent("map.sqlite").path
        try FileManager.default.copyItem(atPath: helsinki.databasePath, toPath: db)
        return (dir, db, try Data(contentsOf: URL(fileURLWithPath: db)))
    }

    @Test("ways before nodes, ids out of order, a cut mid-block and a wrong magic: the file, block and offset are named, and the old database stays")
    func unstreamableFiles() async throws {
        let (dir, db, before) = try await Self.copyOfHelsinki("unstreamable")
        defer { try? FileManager.default.removeItem(at: dir) }

        let (header, blocks) = try Self.helsinkiBlocks()
        let nodeBlock = try #require(blocks.firstIndex { $0.primitivegroup.contains { $0.hasDense || !$0.nodes.isEmpty } })
        let wayBlock = try #require(blocks.firstIndex { $0.primitivegroup.contains { !$0.ways.isEmpty } })

        // Ways first: the nodes block is frame 3.
        let waysFirst = dir.appendingPathComponent("ways-first.osm.pbf").path
        try Self.write(waysFirst, header: header, blocks: [blocks[wayBlock], blocks[nodeBlock]])
        // The same nodes twice: the second block's first id is not above the first block's last.
        let repeated = dir.appendingPathComponent("repeated-ids.osm.pbf").path
        try Self.write(repeated, header: header, blocks: [blocks[nodeBlock], blocks[nodeBlock]])
        // Ids that fall back inside a block (the reading thread checks a block's nodes as a whole): the
        // hundredth node's id goes below the one before it.
        var fallsBack = blocks[nodeBlock]
        let denseGroup = try #require(fallsBack.primitivegroup.firstIndex { $0.hasDense && $0.dense.id.count > 100 })
        fallsBack.primitivegroup[denseGroup].dense.id[100] = -1
        let inBlock = dir.appendingPathComponent("falls-back.osm.pbf").path
        try Self.write(inBlock, header: header, blocks: [fallsBack])
        // Three copies cut in the middle of a late block, after thousands of features were written.
        let tiled = dir.appendingPathComponent("tiled.osm.pbf").path
        try PBFTiler.tile(source: try TestData.helsinki(), copies: 3, output: tiled)
        let tiledBytes = try Data(contentsOf: URL(fileURLWithPath: tiled))
        let offsets = try Self.frameOffsets(tiled)
        let cutFrame = offsets.count - 2
        let cut = dir.appendingPathComponent("cut.osm.pbf").path
        try tiledBytes.prefix(offsets[cutFrame] + (offsets[cutFrame + 1] - offsets[cutFrame]) / 2).write(to: URL(fileURLWithPath: cut))
        let magic = dir.appendingPathComponent("magic.osm.pbf").path
        try Data([0xDE, 0xAD, 0xBE, 0xEF] + tiledBytes.dropFirst(4).prefix(200)).write(to: URL(fileURLWithPath: magic))

        let cases: [(String, Int, Int?, String, (MapImportError.Reason) -> Bool)] = [
            (waysFirst, 3, try Self.frameOffsets(waysFirst)[2], "nodes come after",
             { if case .notSorted = $0 { return true }; return false }),
            (repeated, 3, try Self.frameOffsets(repeated)[2], "ids are out of order",
             { if case .notSorted = $0 { return true }; return false }),
            (inBlock, 2, try Self.frameOffsets(inBlock)[1], "ids are out of order",
             { if case .notSorted = $0 { return true }; return false }),
            (cut, cutFrame + 1, nil, "truncated blob", { if case .truncatedBlob = $0 { return true }; return false }),
            (magic, 1, 0, "bad magic", { if case .notPBF = $0 { return true }; return false }),
        ]
        for (path, block, offset, words, matches) in cases {
            let name = (path as NSString).lastPathComponent
            let error = try #require(throws: MapImportError.self) { try MapImporter.importPBF(at: path, into: db) }
            #expect(matches(error.reason), "\(name): \(error)")
            #expect(error.description.contains(name) && error.description.contains(words), "\(name): \(error)")
            #expect(error.block == block, "\(name): \(error)")
            if let offset { #expect(error.offset == offset, "\(name): \(error)") } else { #expect(error.offset != nil) }
            if case .notSorted = error.reason { #expect(error.description.contains("osmium sort"), "the fix is named: \(error)") }
            #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before, "\(name) left the database as it was")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("map.sqlite") }
            #expect(leftovers == ["map.sqlite"], "\(name) left no temporary or scratch files: \(leftovers)")
        }
        // The database that stayed still answers.
        #expect(try SpatialDataView(path: db).lookup(spokenName: "Kauppatori").isEmpty == false)
    }

    @Test("a file cut among the relations, while the intersections and walking graph are being built beside them, leaves the old database and no threads or files behind")
    func cutAmongRelations() async throws {
        let (dir, db, before) = try await Self.copyOfHelsinki("cut-relations")
        defer { try? FileManager.default.removeItem(at: dir) }
        let tiled = dir.appendingPathComponent("tiled.osm.pbf").path
        try PBFTiler.tile(source: try TestData.helsinki(), copies: 3, output: tiled)
        // The last block holds relations (the network's thread starts when the first of them is read).
        var reader = try PBFFrameReader(path: tiled)
        var last: PBFRawBlock?
        while let raw = try reader.next() { last = raw }
        reader.close()
        #expect(try PBFDecoder.decodeData(try #require(last), path: tiled).relations.isEmpty == false)
        let offsets = try Self.frameOffsets(tiled)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: tiled))
        let cut = dir.appendingPathComponent("cut.osm.pbf").path
        try bytes.prefix(offsets[offsets.count - 1] + (bytes.count - offsets[offsets.count - 1]) / 2).write(to: URL(fileURLWithPath: cut))
        for _ in 0..<3 {
            let error = try #require(throws: MapImportError.self) { try MapImporter.importPBF(at: cut, into: db) }
            #expect(error.block == offsets.count, "\(error)")
            if case .truncatedBlob = error.reason {} else { Issue.record("not a truncated blob: \(error)") }
            #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("map.sqlite") }
            #expect(leftovers == ["map.sqlite"], "\(leftovers)")
        }
    }

    @Test("a node is found from any hint, near or far, and a missing one is not found")
    func nodeIndexFromAnyHint() {
        // Sorted ids with gaps, as an extract's are.
        var generator = SystemRandomNumberGenerator()
        var id: Int64 = 10
        let records = (0..<5_000).map { _ -> StreamingImport.NodeRecord in
            id += Int64.random(in: 1...40, using: &generator)
            return StreamingImport.NodeRecord(id: id, lat: 0, lon: 0)
        }
        let present = Set(records.map(\.id))
        records.withUnsafeBufferPointer { nodes in
            for _ in 0..<2_000 {
                var hint = Int.random(in: -3...(nodes.count + 3), using: &generator)
                let expected = Int.random(in: 0..<nodes.count, using: &generator)
                let hit = StreamingImport.nodeIndex(nodes[expected].id, in: nodes, hint: &hint)
                #expect(hit == expected)
                #expect(hint == expected, "the hint is left at the node found")
                // An id between two records, before the first or after the last, is not there.
                for missing in [nodes[expected].id + 1, nodes[0].id - 1, nodes[nodes.count - 1].id + 1] where !present.contains(missing) {
                    var other = Int.random(in: 0..<nodes.count, using: &generator)
                    #expect(StreamingImport.nodeIndex(missing, in: nodes, hint: &other) == nil)
                }
            }
        }
    }
}
