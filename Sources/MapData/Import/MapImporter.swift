import Dispatch
import Foundation
import Geo
import GRDB

/// Progress of an import, for a progress bar.
public struct MapImportProgress: Sendable {
    public enum Phase: String, Sendable {
        case reading = "Reading"
        case building = "Building features"
        case writing = "Writing database"
        case finishing = "Finishing"
    }
    public var phase: Phase
    /// 0…1 within the phase.
    public var fraction: Double
}

/// What an import did.
public struct MapImportSummary: Sendable, CustomStringConvertible {
    public var sourcePath: String
    public var databasePath: String
    public var blocks = 0
    public var nodes = 0
    public var ways = 0
    public var relations = 0
    public var features = 0
    public var intersections = 0
    public var entranceLists = 0
    public var walkNodes = 0
    public var walkEdges = 0
    /// Node references of ways whose node is not in the file (bbox cuts).
    public var missingNodeRefs = 0
    public var waysWithMissingNodes = 0
    public var databaseBytes: Int64 = 0
    public var seconds = 0.0

    public var description: String {
        let g = MapImportError.grouped
        return """
        Imported \((sourcePath as NSString).lastPathComponent) into \(databasePath)
          nodes \(g(nodes)), ways \(g(ways)), relations \(g(relations)) (\(g(blocks)) blocks)
          features \(g(features)), intersections \(g(intersections)), entrance lists \(g(entranceLists))
          walking graph: \(g(walkNodes)) nodes, \(g(walkEdges)) edges
          missing node references \(g(missingNodeRefs)) in \(g(waysWithMissingNodes)) ways (kept with the nodes that exist)
          database \(String(format: "%.1f", Double(databaseBytes) / 1_048_576)) MB, \(String(format: "%.2f", seconds)) s
          Map data \(MapStore.attribution)
        """
    }
}

/// Imports an OSM PBF file into a map database. The import is built in a temporary file next to
/// the target (`PATH.importing-PID`) inside one transaction, synced, and renamed over the target:
/// whatever fails, the target is left exactly as it was.
public enum MapImporter {
    public static func importPBF(at pbfPath: String, into databasePath: String,
                                 progress: (@Sendable (MapImportProgress) -> Void)? = nil) throws -> MapImportSummary {
        let started = Date()
        let temporaryPath = "\(databasePath).importing-\(getpid())"
        removeDatabaseFiles(temporaryPath)
        removeStaleTemporaries(of: databasePath)
        do {
            var summary = MapImportSummary(sourcePath: pbfPath, databasePath: databasePath)
            // 1. Read the whole file (validating every block) before touching any database.
            var data = try readPBF(pbfPath, summary: &summary, progress: progress)
            // 2. Build and write into the temporary database.
            let queue: DatabaseQueue
            do {
                queue = try MapStore.openWritable(path: temporaryPath, fast: true)
            } catch {
                throw MapImportError(file: pbfPath, reason: .database("\(error)"))
            }
            let sha = (try? SHA256Digest.hexDigest(ofFile: pbfPath)) ?? ""
            do {
                try queue.inTransaction { db in
                    try build(&data, db: db, summary: &summary, progress: progress)
                    var meta: [String: String] = [
                        "source_file": (pbfPath as NSString).standardizingPath,
                        "source_sha256": sha,
                        "imported_at": ISO8601DateFormatter().string(from: Date()),
                        "attribution": MapStore.attribution,
                        "schema_version": String(MapStore.schemaVersion),
                        "generator": "soundscape import",
                        "node_count": String(summary.nodes),
                        "way_count": String(summary.ways),
                        "relation_count": String(summary.relations),
                        "missing_node_refs": String(summary.missingNodeRefs),
                        "source": "pbf",
                    ]
                    if let b = data.bbox { meta["bbox"] = "\(b.0),\(b.1),\(b.2),\(b.3)" }
                    try FeatureWriter(db: db).setMetadata(meta)
                    return .commit
                }
                progress?(MapImportProgress(phase: .finishing, fraction: 0))
                try queue.writeWithoutTransaction { db in try db.execute(sql: "ANALYZE") }
                try queue.close()
            } catch let error as MapImportError {
                throw error
            } catch {
                throw MapImportError(file: pbfPath, reason: .database("\(error)"))
            }
            // 3. Make the new file durable, then atomically replace the target.
            try syncFile(temporaryPath, pbfPath: pbfPath)
            removeDatabaseFiles(databasePath, keepMain: true)
            guard rename(temporaryPath, databasePath) == 0 else {
                throw MapImportError(file: pbfPath, reason: .database("cannot rename \(temporaryPath) to \(databasePath): \(String(cString: strerror(errno)))"))
            }
            syncDirectory(of: databasePath)
            summary.databaseBytes = Int64((try? FileManager.default.attributesOfItem(atPath: databasePath)[.size] as? NSNumber)??.int64Value ?? 0)
            summary.seconds = Date().timeIntervalSince(started)
            progress?(MapImportProgress(phase: .finishing, fraction: 1))
            return summary
        } catch {
            removeDatabaseFiles(temporaryPath)
            throw error
        }
    }

    // MARK: reading

    /// Everything the feature builder needs from the file.
    struct ReadData {
        var nodeIDs: [Int64] = []
        var nodeLat: [Int32] = []
        var nodeLon: [Int32] = []
        var sorted = true
        var taggedNodes: [(id: Int64, lat: Int32, lon: Int32, tags: OSMTags)] = []
        var ways: [OSMWay] = []
        var relations: [OSMRelation] = []
        var bbox: (Double, Double, Double, Double)?

        func nodeIndex(_ id: Int64) -> Int? {
            var lo = 0, hi = nodeIDs.count - 1
            while lo <= hi {
                let mid = (lo + hi) >> 1
                let v = nodeIDs[mid]
                if v == id { return mid }
                if v < id { lo = mid + 1 } else { hi = mid - 1 }
            }
            return nil
        }

        func coordinate(_ index: Int) -> Coordinate {
            Coordinate(latitude: Double(nodeLat[index]) * 1e-7, longitude: Double(nodeLon[index]) * 1e-7)
        }

        mutating func sortNodesIfNeeded() {
            guard !sorted else { return }
            let order = nodeIDs.indices.sorted { nodeIDs[$0] < nodeIDs[$1] }
            nodeIDs = order.map { nodeIDs[$0] }
            nodeLat = order.map { nodeLat[$0] }
            nodeLon = order.map { nodeLon[$0] }
            sorted = true
        }
    }

    /// Reads and decodes every block. Blocks are inflated and decoded a few at a time on all cores.
    static func readPBF(_ path: String, summary: inout MapImportSummary,
                        progress: (@Sendable (MapImportProgress) -> Void)?) throws(MapImportError) -> ReadData {
        var reader = try PBFFrameReader(path: path)
        defer { reader.close() }
        var data = ReadData()
        guard let first = try reader.next() else {
            throw MapImportError(file: path, offset: 0, block: 1, reason: .emptyFile)
        }
        guard first.type == "OSMHeader" else {
            throw MapImportError(file: path, offset: 0, block: 1, reason: .notPBF("the first block is not OSMHeader"))
        }
        let header = try PBFDecoder.decodeHeader(first, path: path)
        data.bbox = header.bbox
        summary.blocks = 1
        let batchSize = max(2, ProcessInfo.processInfo.activeProcessorCount * 2)
        var done = false
        while !done {
            var batch: [PBFRawBlock] = []
            while batch.count < batchSize {
                guard let raw = try reader.next() else { done = true; break }
                summary.blocks += 1
                if raw.type == "OSMData" { batch.append(raw) }
                else if raw.type == "OSMHeader" {
                    throw MapImportError(file: path, offset: raw.offset, block: raw.number,
                                         reason: .invalidBlock("a second OSMHeader block"))
                }
            }
            if batch.isEmpty { break }
            for block in try decodeConcurrently(batch, path: path) {
                append(block, to: &data)
            }
            progress?(MapImportProgress(phase: .reading, fraction: Double(reader.position) / Double(max(reader.fileSize, 1))))
        }
        data.sortNodesIfNeeded()
        summary.nodes = data.nodeIDs.count
        summary.ways = data.ways.count
        summary.relations = data.relations.count
        if data.bbox == nil, !data.nodeLat.isEmpty {
            let lats = data.nodeLat, lons = data.nodeLon
            data.bbox = (Double(lats.min()!) * 1e-7, Double(lons.min()!) * 1e-7,
                         Double(lats.max()!) * 1e-7, Double(lons.max()!) * 1e-7)
        }
        return data
    }

    private final class DecodeSlots: @unchecked Sendable {
        var results: [Result<OSMBlock, MapImportError>?]
        init(count: Int) { results = Array(repeating: nil, count: count) }
    }

    static func decodeConcurrently(_ batch: [PBFRawBlock], path: String) throws(MapImportError) -> [OSMBlock] {
        let slots = DecodeSlots(count: batch.count)
        slots.results.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let out = buffer
            DispatchQueue.concurrentPerform(iterations: batch.count) { i in
                do throws(MapImportError) {
                    out[i] = .success(try PBFDecoder.decodeData(batch[i], path: path))
                } catch {
                    out[i] = .failure(error)
                }
            }
        }
        var blocks: [OSMBlock] = []
        for result in slots.results {
            switch result {
            case .success(let block)?: blocks.append(block)
            case .failure(let error)?: throw error
            case nil: break
            }
        }
        return blocks
    }

    private static func append(_ block: OSMBlock, to data: inout ReadData) {
        if !block.nodeIDs.isEmpty {
            if data.sorted {
                if let last = data.nodeIDs.last, let first = block.nodeIDs.first, first <= last { data.sorted = false }
                if data.sorted {
                    for i in 1..<block.nodeIDs.count where block.nodeIDs[i] <= block.nodeIDs[i - 1] {
                        data.sorted = false
                        break
                    }
                }
            }
            for (index, tags) in block.taggedNodes {
                data.taggedNodes.append((block.nodeIDs[index], block.nodeLat[index], block.nodeLon[index], tags))
            }
            data.nodeIDs.append(contentsOf: block.nodeIDs)
            data.nodeLat.append(contentsOf: block.nodeLat)
            data.nodeLon.append(contentsOf: block.nodeLon)
        }
        data.ways.append(contentsOf: block.ways)
        data.relations.append(contentsOf: block.relations)
    }

    // MARK: building

    static func build(_ data: inout ReadData, db: Database, summary: inout MapImportSummary,
                      progress: (@Sendable (MapImportProgress) -> Void)?) throws {
        var writer = try FeatureWriter(db: db)
        progress?(MapImportProgress(phase: .building, fraction: 0))

        // Node flags (crossings, signals, entrances) for the walking graph and entrance lists.
        var nodeFlags: [Int64: NodeFlags] = [:]
        var entranceValue: [Int64: String] = [:]
        for node in data.taggedNodes {
            let flags = NodeFlags.from(node.tags)
            if !flags.isEmpty { nodeFlags[node.id] = flags }
            if flags.contains(.entrance) { entranceValue[node.id] = node.tags["entrance"] }
        }

        // Resolve every way's vertices once.
        var resolved: [ResolvedWay] = []
        resolved.reserveCapacity(data.ways.count)
        var wayIndexByID: [Int64: Int] = [:]
        wayIndexByID.reserveCapacity(data.ways.count)
        for (w, way) in data.ways.enumerated() {
            var ids: [Int64] = []
            var coords: [Coordinate] = []
            ids.reserveCapacity(way.refs.count)
            coords.reserveCapacity(way.refs.count)
            var missing = 0
            for ref in way.refs {
                if let i = data.nodeIndex(ref) {
                    ids.append(ref)
                    coords.append(data.coordinate(i))
                } else {
                    missing += 1
                }
            }
            if missing > 0 {
                summary.missingNodeRefs += missing
                summary.waysWithMissingNodes += 1
            }
            resolved.append(ResolvedWay(wayIndex: w, nodeIDs: ids, coords: coords))
            wayIndexByID[way.id] = w
        }

        // Points.
        var featureIDByKey: [String: Int64] = [:]
        for node in data.taggedNodes {
            let c = Coordinate(latitude: Double(node.lat) * 1e-7, longitude: Double(node.lon) * 1e-7)
            guard let f = FeatureRules.makeFeature(key: "n\(node.id)", osmIDs: [node.id], tags: node.tags,
                                                   geometry: .point(c)) else { continue }
            let id = try writer.insert(f)
            if nodeFlags[node.id]?.contains(.entrance) == true { featureIDByKey[f.key] = id }
            summary.features += 1
        }
        progress?(MapImportProgress(phase: .building, fraction: 0.2))

        // Ways: roads and paths as lines, areas as polygons.
        var travelWays: [NetworkBuilder.TravelWay] = []
        var buildings: [(key: String, osmID: Int64, nodeIDs: [Int64])] = []
        for (w, way) in data.ways.enumerated() where !way.tags.isEmpty {
            let r = resolved[w]
            guard r.coords.count >= 2 else { continue }
            let closed = way.refs.count >= 4 && way.refs.first == way.refs.last
            let highway = FeatureRules.travelHighway(way.tags)
            let isArea: Bool
            if highway != nil {
                isArea = closed && way.tags["area"] == "yes"
            } else {
                isArea = closed && way.tags["area"] != "no"
            }
            var coords = r.coords
            if isArea && coords.first != coords.last { coords.append(coords[0]) }
            let geometry: FeatureGeometry = isArea && coords.count >= 4 ? .polygon([coords]) : .line(coords)
            let key = "w\(way.id)"
            if let f = FeatureRules.makeFeature(key: key, osmIDs: [OSMElementID(.way, way.id).encoded],
                                                tags: way.tags, geometry: geometry) {
                let id = try writer.insert(f)
                summary.features += 1
                if highway != nil { featureIDByKey[key] = id }
                if f.featureType == "building" || way.tags["building"] != nil { featureIDByKey[key] = id }
            }
            if let highway {
                travelWays.append(NetworkBuilder.TravelWay(resolved: r, wayID: way.id, tags: way.tags, highway: highway))
            }
            if closed, let b = way.tags["building"], b != "no" {
                buildings.append((key, OSMElementID(.way, way.id).encoded, r.nodeIDs))
            }
        }
        progress?(MapImportProgress(phase: .building, fraction: 0.5))

        // Multipolygon relations.
        for relation in data.relations {
            guard let type = relation.tags["type"], type == "multipolygon" || type == "building" else { continue }
            var outers: [[(Int64, Coordinate)]] = []
            var inners: [[(Int64, Coordinate)]] = []
            var outerNodeIDs: [Int64] = []
            for member in relation.members where member.kind == .way {
                guard let w = wayIndexByID[member.ref] else { continue }
                let r = resolved[w]
                guard r.coords.count >= 2 else { continue }
                let segment = Array(zip(r.nodeIDs, r.coords))
                if member.role == "inner" { inners.append(segment) } else {
                    outers.append(segment)
                    outerNodeIDs.append(contentsOf: r.nodeIDs)
                }
            }
            let outerRings = RingAssembler.rings(outers)
            guard !outerRings.isEmpty else { continue }
            let innerRings = RingAssembler.rings(inners)
            let geometry = RingAssembler.geometry(outers: outerRings, inners: innerRings)
            let key = "r\(relation.id)"
            if let f = FeatureRules.makeFeature(key: key, osmIDs: [OSMElementID(.relation, relation.id).encoded],
                                                tags: relation.tags, geometry: geometry) {
                let id = try writer.insert(f)
                summary.features += 1
                featureIDByKey[key] = id
            }
            if let b = relation.tags["building"], b != "no" {
                buildings.append((key, OSMElementID(.relation, relation.id).encoded, outerNodeIDs))
            }
        }
        progress?(MapImportProgress(phase: .building, fraction: 0.6))

        // Entrance lists: entrance nodes that are vertices of a building outline.
        for building in buildings {
            var seen = Set<Int64>()
            var entrances: [FeatureWriter.PendingEntrance] = []
            for node in building.nodeIDs where entranceValue[node] != nil && seen.insert(node).inserted {
                guard let i = data.nodeIndex(node) else { continue }
                entrances.append(FeatureWriter.PendingEntrance(
                    nodeID: node, coordinate: data.coordinate(i), entranceValue: entranceValue[node] ?? "yes",
                    entranceFeatureID: featureIDByKey["n\(node)"]))
            }
            guard !entrances.isEmpty else { continue }
            try writer.insertEntranceList(buildingKey: building.key, buildingOSMID: building.osmID,
                                          buildingFeatureID: featureIDByKey[building.key], entrances: entrances)
            summary.entranceLists += 1
            summary.features += 1
        }

        // Intersections.
        var roadFeatureIDs: [Int64: Int64] = [:]
        for way in travelWays { roadFeatureIDs[way.wayID] = featureIDByKey["w\(way.wayID)"] }
        let intersections = NetworkBuilder.intersections(travelWays)
        progress?(MapImportProgress(phase: .writing, fraction: 0.7))
        for intersection in intersections {
            try writer.insertIntersection(intersection, roadFeatureIDs: roadFeatureIDs)
        }
        summary.intersections = intersections.count
        summary.features += intersections.count

        // Walking graph.
        let graph = NetworkBuilder.walkingGraph(travelWays, nodeFlags: nodeFlags)
        try writer.insertWalkingGraph(nodes: graph.nodes, edges: graph.edges)
        summary.walkNodes = graph.nodes.count
        summary.walkEdges = graph.edges.count
        progress?(MapImportProgress(phase: .writing, fraction: 1))
    }

    // MARK: files

    static func removeDatabaseFiles(_ path: String, keepMain: Bool = false) {
        let fm = FileManager.default
        for suffix in keepMain ? ["-journal", "-wal", "-shm"] : ["", "-journal", "-wal", "-shm"] {
            try? fm.removeItem(atPath: path + suffix)
        }
    }

    /// Deletes `PATH.importing-PID` files left by imports whose process no longer exists.
    static func removeStaleTemporaries(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let base = (path as NSString).lastPathComponent + ".importing-"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory) else { return }
        for entry in entries where entry.hasPrefix(base) {
            let rest = entry.dropFirst(base.count)
            let pidText = rest.prefix { $0.isNumber }
            guard let pid = Int32(pidText), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(atPath: (directory as NSString).appendingPathComponent(entry))
            }
        }
    }

    private static func syncFile(_ path: String, pbfPath: String) throws(MapImportError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw MapImportError(file: pbfPath, reason: .database("cannot open \(path) to sync it: \(String(cString: strerror(errno)))"))
        }
        defer { close(fd) }
        guard fsync(fd) == 0 else {
            throw MapImportError(file: pbfPath, reason: .database("fsync \(path): \(String(cString: strerror(errno)))"))
        }
    }

    private static func syncDirectory(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY)
        if fd >= 0 {
            _ = fsync(fd)
            close(fd)
        }
    }
}

/// Joins multipolygon member ways into closed rings.
enum RingAssembler {
    static func rings(_ segments: [[(Int64, Coordinate)]]) -> [[Coordinate]] {
        var pool = segments.filter { $0.count >= 2 }
        var rings: [[Coordinate]] = []
        while !pool.isEmpty {
            var chain = pool.removeFirst()
            while chain.first!.0 != chain.last!.0 {
                let end = chain.last!.0
                guard let next = pool.firstIndex(where: { $0.first!.0 == end || $0.last!.0 == end }) else { break }
                let segment = pool.remove(at: next)
                if segment.first!.0 == end {
                    chain.append(contentsOf: segment.dropFirst())
                } else {
                    chain.append(contentsOf: segment.reversed().dropFirst())
                }
            }
            var ring = chain.map(\.1)
            // A ring cut open by the extract's edge is closed with a straight line: an approximate
            // outline is better than losing the feature.
            if chain.first!.0 != chain.last!.0 { ring.append(ring[0]) }
            if ring.count >= 4 { rings.append(ring) }
        }
        return rings
    }

    static func geometry(outers: [[Coordinate]], inners: [[Coordinate]]) -> FeatureGeometry {
        if outers.count == 1 { return .polygon([outers[0]] + inners) }
        var polygons = outers.map { [$0] }
        for inner in inners {
            let probe = inner[0]
            let owner = outers.firstIndex { contains($0, probe) } ?? 0
            polygons[owner].append(inner)
        }
        return .multiPolygon(polygons)
    }

    static func contains(_ ring: [Coordinate], _ p: Coordinate) -> Bool {
        var inside = false
        var j = ring.count - 1
        for i in 0..<ring.count {
            let a = ring[i], b = ring[j]
            if (a.latitude > p.latitude) != (b.latitude > p.latitude) {
                let x = a.longitude + (p.latitude - a.latitude) * (b.longitude - a.longitude) / (b.latitude - a.latitude)
                if p.longitude < x { inside.toggle() }
            }
            j = i
        }
        return inside
    }
}
