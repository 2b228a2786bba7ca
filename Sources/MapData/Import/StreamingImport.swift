import Dispatch
import Foundation
import Geo
import GRDB

/// One pass over a sorted PBF file that writes features as it reads, so that memory stays flat with
/// the size of the extract: node locations go to a memory-mapped scratch file of sorted ids and
/// fixed-point coordinates, every way's node list to another (for the relations that come after), and
/// only the travel network (compact, without tags) and a few small tables are kept for the end.
/// Blocks are inflated and decoded on the other cores while the previous ones are written.
final class StreamingImport {
    struct NodeRecord { var id: Int64; var lat: Int32; var lon: Int32 }
    struct WayRecord { var id: Int64; var refStart: Int64 }

    private enum Section: Int, CustomStringConvertible {
        case nodes = 0, ways, relations
        var description: String { ["nodes", "ways", "relations"][rawValue] }
    }

    private let path: String
    /// Row id of the next feature, and the prepared rows not yet handed to the writer.
    private var nextID: Int64
    private var batch: [FeatureWriter.PreparedFeature] = []
    private let channel: PreparedChannel
    private let progress: (@Sendable (MapImportProgress) -> Void)?
    var summary: MapImportSummary

    // Nodes.
    private let nodeFile: RecordFile<NodeRecord>
    private var nodes = UnsafeBufferPointer<NodeRecord>(start: nil, count: 0)
    private var lastNodeIndex = 0
    private var nodeFlags: [Int64: NodeFlags] = [:]
    private var entranceValue: [Int64: String] = [:]
    private var entranceFeatureID: [Int64: Int64] = [:]
    private(set) var bbox: (minLat: Int32, minLon: Int32, maxLat: Int32, maxLon: Int32)?

    // Ways, for the relations.
    private let wayFile: RecordFile<WayRecord>
    private let refFile: RecordFile<Int64>
    private var wayRecords = UnsafeBufferPointer<WayRecord>(start: nil, count: 0)
    private var refs = UnsafeBufferPointer<Int64>(start: nil, count: 0)
    private var refCount: Int64 = 0

    // What is built at the end.
    private var network: TravelNetwork
    /// Started as soon as the ways are read (see ``NetworkWorkers``).
    private var workers: NetworkWorkers?
    private var buildings: [(key: String, osmID: Int64, featureID: Int64?, entrances: [FeatureWriter.PendingEntrance])] = []

    // Order checks.
    private var section = Section.nodes
    private var lastID: Int64?
    private var lastBlock = 0
    private var pagesTouched = 0

    init(path: String, scratchPrefix: String, firstID: Int64, channel: PreparedChannel,
         progress: (@Sendable (MapImportProgress) -> Void)?, summary: MapImportSummary) throws {
        self.path = path
        self.progress = progress
        self.summary = summary
        self.nextID = firstID
        self.channel = channel
        nodeFile = try RecordFile(path: scratchPrefix + "-nodes", source: path)
        wayFile = try RecordFile(path: scratchPrefix + "-ways", source: path)
        refFile = try RecordFile(path: scratchPrefix + "-refs", source: path)
        network = try TravelNetwork(scratchPrefix: scratchPrefix + "-network", source: path)
    }

    // MARK: the pass

    /// Reads every data block after the header, in file order, decoding a batch ahead on the other cores.
    /// When it fails, the network's threads, if started, are stopped before it returns.
    func run(reader: inout PBFFrameReader) throws {
        do {
            try read(&reader)
        } catch {
            workers?.cancel()
            workers = nil
            throw error
        }
    }

    private func read(_ reader: inout PBFFrameReader) throws {
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let pipeline = BlockPipeline(path: path, workers: workers)
        defer { pipeline.stop() }
        // Blocks in flight: enough to keep every decoding thread busy while this one writes, few enough
        // that decoded blocks do not pile up in memory.
        let ahead = workers + 1
        let started = DispatchTime.now().uptimeNanoseconds
        var submitted = 0, consumed = 0
        var endOfFile = false
        while true {
            while !endOfFile && submitted - consumed < ahead {
                if let frame = try nextDataFrame(&reader) {
                    pipeline.submit(submitted, frame)
                    submitted += 1
                } else {
                    endOfFile = true
                }
            }
            guard consumed < submitted else { break }
            try process(try pipeline.result(consumed))
            consumed += 1
            if nodesSealed { pipeline.publish(SealedNodes(records: nodes)) }
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            progress?(MapImportProgress(phase: .reading, fraction: Double(reader.position) / Double(max(reader.fileSize, 1)),
                                        bytesDone: reader.position, bytesTotal: reader.fileSize, seconds: elapsed,
                                        detail: section.description))
        }
        try sealNodes()
        try sealWays()
        try handOver()
    }

    /// Gives prepared rows the next row id, queues them for the writer and returns the id.
    private func emit(_ prepared: FeatureWriter.PreparedFeature) throws -> Int64 {
        let id = nextID
        nextID += 1
        var p = prepared
        p.assign(id: id)
        batch.append(p)
        summary.features += 1
        if batch.count >= 1_000 { try handOver() }
        return id
    }

    private func handOver() throws {
        guard !batch.isEmpty else { return }
        guard channel.put(batch) else { throw CancellationError() }
        batch = []
        batch.reserveCapacity(1_000)
    }

    /// The next OSMData frame, nil at the end of the file; a second OSMHeader is an error.
    private func nextDataFrame(_ reader: inout PBFFrameReader) throws(MapImportError) -> PBFFrame? {
        while let frame = try reader.nextFrame() {
            summary.blocks += 1
            if frame.type == "OSMData" { return frame }
            if frame.type == "OSMHeader" {
                throw MapImportError(file: path, offset: frame.offset, block: frame.number,
                                     reason: .invalidBlock("a second OSMHeader block"))
            }
        }
        return nil
    }

    // MARK: what the decoding threads prepare

    /// The sealed node file, read (never written) by the decoding threads.
    // @unchecked: the mapping is read-only and stays mapped until the import's end, after the threads are done.
    struct SealedNodes: @unchecked Sendable {
        let records: UnsafeBufferPointer<NodeRecord>
    }

    /// A decoded block and the rows its elements make, prepared on the decoding threads (with row id 0):
    /// the feature rules and row encoding were most of the reading thread's work, which was the slower
    /// side of the read.
    struct DecodedBlock: Sendable {
        var number: Int
        var offset: Int
        var block: OSMBlock
        /// One for each of the block's tagged nodes, in order. (Their tags are dropped once these are made:
        /// freed on the decoding thread that made them, not on the reading thread.)
        var nodes: [NodeWork]
        /// One for each of `block.ways`; nil when the node file was not yet complete as the block was decoded.
        var ways: [WayWork]?
    }

    struct NodeWork: Sendable {
        /// The node's index in the block's `nodeIDs`.
        var index: Int = 0
        var flags: NodeFlags
        var entrance: String?
        var feature: FeatureWriter.PreparedFeature?
    }

    /// A way's nodes found in the node file and its rows. The vertices are kept only for a travel way or
    /// a building, which need them after the pass.
    struct WayWork: Sendable {
        var ids: [Int64] = []
        var lat: [Int32] = []
        var lon: [Int32] = []
        var missing = 0
        var feature: FeatureWriter.PreparedFeature?
        var highway: String?
        var isBuilding = false
    }

    static func decodeAndPrepare(_ frame: PBFFrame, path: String, nodes: SealedNodes?) throws(MapImportError) -> DecodedBlock {
        var block = try PBFDecoder.decodeData(try frame.unpacked(path: path), path: path, keepKey: FeatureRules.isReadKey,
                                              keepMembers: isArea)
        let nodeWork = block.taggedNodes.map { tagged in
            var work = prepareNode(id: block.nodeIDs[tagged.index], lat: block.nodeLat[tagged.index],
                                   lon: block.nodeLon[tagged.index], tags: tagged.tags)
            work.index = tagged.index
            return work
        }
        block.taggedNodes = []
        var wayWork: [WayWork]?
        if let nodes, !block.ways.isEmpty {
            var hint = 0
            wayWork = block.ways.map { prepareWay($0, nodes: nodes.records, hint: &hint) }
        }
        return DecodedBlock(number: frame.number, offset: frame.offset, block: block, nodes: nodeWork, ways: wayWork)
    }

    static func prepareNode(id: Int64, lat: Int32, lon: Int32, tags: OSMTags) -> NodeWork {
        let flags = NodeFlags.from(tags)
        let c = Coordinate(latitude: Double(lat) * 1e-7, longitude: Double(lon) * 1e-7)
        let feature = FeatureRules.makeFeature(key: "n\(id)", osmIDs: [id], tags: tags, geometry: .point(c),
                                                element: OSMElementID(.node, id))
        return NodeWork(flags: flags, entrance: flags.contains(.entrance) ? tags["entrance"] : nil,
                        feature: feature.map { FeatureWriter.prepare($0, id: 0) })
    }

    static func prepareWay(_ way: OSMWay, nodes: UnsafeBufferPointer<NodeRecord>, hint: inout Int) -> WayWork {
        let r = resolve(way.refs, nodes: nodes, hint: &hint)
        var work = WayWork(missing: r.missing)
        guard !way.tags.isEmpty, r.ids.count >= 2 else { return work }
        let closed = way.refs.count >= 4 && way.refs.first == way.refs.last
        let highway = FeatureRules.travelHighway(way.tags)
        let isArea: Bool
        if highway != nil {
            isArea = closed && way.tags["area"] == "yes"
        } else {
            isArea = closed && way.tags["area"] != "no"
        }
        var coords = coordinates(r.lat, r.lon)
        if isArea && coords.first != coords.last { coords.append(coords[0]) }
        let geometry: FeatureGeometry = isArea && coords.count >= 4 ? .polygon([coords]) : .line(coords)
        if let f = FeatureRules.makeFeature(key: "w\(way.id)", osmIDs: [OSMElementID(.way, way.id).encoded],
                                            tags: way.tags, geometry: geometry, element: OSMElementID(.way, way.id)) {
            work.feature = FeatureWriter.prepare(f, id: 0)
        }
        work.highway = highway
        if closed, let b = way.tags["building"], b != "no" { work.isBuilding = true }
        if highway != nil || work.isBuilding {
            work.ids = r.ids
            work.lat = r.lat
            work.lon = r.lon
        }
        return work
    }

    // MARK: order

    /// Checks that the file keeps the order a streaming import needs: all nodes, then all ways, then
    /// all relations, each by ascending id (`osmium sort` makes any file so).
    private func checkOrder(_ kind: Section, id: Int64, number: Int, offset: Int) throws(MapImportError) {
        if kind.rawValue < section.rawValue {
            throw MapImportError(file: path, offset: offset, block: number, reason: .notSorted(
                "\(kind) come after \(section) (\(kindName(kind)) \(id)); the importer needs all nodes, then all ways, then all relations"))
        }
        if kind != section {
            if kind.rawValue > Section.nodes.rawValue { try sealNodes() }
            if kind.rawValue > Section.ways.rawValue { try sealWays() }
            section = kind
            lastID = nil
        }
        if let lastID, id <= lastID {
            throw MapImportError(file: path, offset: offset, block: number, reason: .notSorted(
                "\(kindName(kind)) \(id) comes after \(kindName(kind)) \(lastID)\(number != lastBlock ? " of block \(lastBlock)" : ""): ids are out of order"))
        }
        lastID = id
        lastBlock = number
    }

    private func kindName(_ kind: Section) -> String { ["node", "way", "relation"][kind.rawValue] }

    // MARK: blocks

    private func process(_ decoded: DecodedBlock) throws {
        let block = decoded.block, number = decoded.number, offset = decoded.offset
        if !block.nodeIDs.isEmpty { try nodes(of: decoded) }
        for (i, way) in block.ways.enumerated() {
            try checkOrder(.ways, id: way.id, number: number, offset: offset)
            // (The blocks decoded before the node file was sealed have their ways prepared here.)
            try self.way(way, decoded.ways?[i] ?? Self.prepareWay(way, nodes: nodes, hint: &lastNodeIndex))
        }
        for relation in block.relations {
            try checkOrder(.relations, id: relation.id, number: number, offset: offset)
            try self.relation(relation)
        }
        // Keep the mapped node index from piling up in resident memory (it stays in the page cache).
        pagesTouched += block.ways.count + block.relations.count
        if pagesTouched > 10_000 {
            nodeFile.releasePages()
            refFile.releasePages()
            wayFile.releasePages()
            pagesTouched = 0
        }
    }

    /// A block's nodes, taken as a whole: the reading thread is one of the read's busy threads, and a call, an
    /// access check and a bounds update for each of a region's millions of nodes were most of its time. Only the
    /// first node goes through ``checkOrder(_:id:number:offset:)`` unless the ids within the block fall back.
    private func nodes(of decoded: DecodedBlock) throws {
        let block = decoded.block, number = decoded.number, offset = decoded.offset
        let ids = block.nodeIDs, lats = block.nodeLat, lons = block.nodeLon
        try checkOrder(.nodes, id: ids[0], number: number, offset: offset)
        var records: [NodeRecord] = []
        records.reserveCapacity(ids.count)
        var box = bbox ?? (lats[0], lons[0], lats[0], lons[0])
        for i in ids.indices {
            let id = ids[i], lat = lats[i], lon = lons[i]
            if i > 0 && id <= ids[i - 1] {
                lastID = ids[i - 1]
                lastBlock = number
                try checkOrder(.nodes, id: id, number: number, offset: offset)
            }
            records.append(NodeRecord(id: id, lat: lat, lon: lon))
            box = (min(box.minLat, lat), min(box.minLon, lon), max(box.maxLat, lat), max(box.maxLon, lon))
        }
        lastID = ids[ids.count - 1]
        lastBlock = number
        bbox = box
        try nodeFile.append(contentsOf: records)
        summary.nodes += ids.count
        for work in decoded.nodes {
            try node(id: ids[work.index], work)
        }
    }

    private func node(id: Int64, _ work: NodeWork) throws {
        if !work.flags.isEmpty { nodeFlags[id] = work.flags }
        if let entrance = work.entrance { entranceValue[id] = entrance }
        guard let feature = work.feature else { return }
        let featureID = try emit(feature)
        if work.flags.contains(.entrance) { entranceFeatureID[id] = featureID }
    }

    private var nodesSealed = false, waysSealed = false

    private func sealNodes() throws(MapImportError) {
        guard !nodesSealed else { return }
        nodes = try nodeFile.seal()
        nodesSealed = true
    }

    private func sealWays() throws(MapImportError) {
        guard !waysSealed else { return }
        wayRecords = try wayFile.seal()
        refs = try refFile.seal()
        try network.seal()
        waysSealed = true
        // The travel network and the node flags are complete: the intersections and the walking graph
        // are built while the relations are read.
        workers = NetworkWorkers(network: network, nodeFlags: nodeFlags)
    }

    /// The index of a node in the sorted node file. A way's nodes mostly have ids near each other's, so the
    /// search gallops out from the last hit (`hint`) and then halves the range it found: a few probes in
    /// nearby pages where a search of the whole file took twenty-odd, each a likely cache miss.
    static func nodeIndex(_ id: Int64, in nodes: UnsafeBufferPointer<NodeRecord>, hint: inout Int) -> Int? {
        let n = nodes.count
        guard n > 0 else { return nil }
        let start = min(max(hint, 0), n - 1)
        let at = nodes[start].id
        if at == id {
            hint = start
            return start
        }
        var lo: Int, hi: Int
        if at < id {
            // nodes[below].id < id; widen until nodes[probe].id >= id or the end.
            var below = start, step = 1, probe = start + 1
            while probe < n, nodes[probe].id < id {
                below = probe
                step <<= 1
                probe = start + step
            }
            lo = below + 1
            hi = min(probe, n - 1)
        } else {
            var above = start, step = 1, probe = start - 1
            while probe >= 0, nodes[probe].id > id {
                above = probe
                step <<= 1
                probe = start - step
            }
            lo = max(probe, 0)
            hi = above - 1
        }
        while lo <= hi {
            let mid = (lo + hi) >> 1
            let v = nodes[mid].id
            if v == id { hint = mid; return mid }
            if v < id { lo = mid + 1 } else { hi = mid - 1 }
        }
        return nil
    }

    private func nodeIndex(_ id: Int64) -> Int? { Self.nodeIndex(id, in: nodes, hint: &lastNodeIndex) }

    /// A way's nodes that exist in the file, with their coordinates (nodes cut off by the extract's
    /// boundary are left out).
    static func resolve(_ wayRefs: some Collection<Int64>, nodes: UnsafeBufferPointer<NodeRecord>,
                        hint: inout Int) -> (ids: [Int64], lat: [Int32], lon: [Int32], missing: Int) {
        var ids: [Int64] = [], lat: [Int32] = [], lon: [Int32] = []
        ids.reserveCapacity(wayRefs.count)
        lat.reserveCapacity(wayRefs.count)
        lon.reserveCapacity(wayRefs.count)
        var missing = 0
        for ref in wayRefs {
            if let i = nodeIndex(ref, in: nodes, hint: &hint) {
                ids.append(ref)
                lat.append(nodes[i].lat)
                lon.append(nodes[i].lon)
            } else {
                missing += 1
            }
        }
        return (ids, lat, lon, missing)
    }

    private func resolve(_ wayRefs: some Collection<Int64>) -> (ids: [Int64], lat: [Int32], lon: [Int32], missing: Int) {
        Self.resolve(wayRefs, nodes: nodes, hint: &lastNodeIndex)
    }

    private static func coordinates(_ lat: [Int32], _ lon: [Int32]) -> [Coordinate] {
        zip(lat, lon).map { Coordinate(latitude: Double($0) * 1e-7, longitude: Double($1) * 1e-7) }
    }

    private func way(_ way: OSMWay, _ work: WayWork) throws {
        summary.ways += 1
        try wayFile.append(WayRecord(id: way.id, refStart: refCount))
        try refFile.append(contentsOf: way.refs)
        refCount += Int64(way.refs.count)
        if work.missing > 0 {
            summary.missingNodeRefs += work.missing
            summary.waysWithMissingNodes += 1
        }
        var featureID: Int64?
        if let feature = work.feature { featureID = try emit(feature) }
        if let highway = work.highway {
            try network.add(wayID: way.id, featureID: featureID, tags: way.tags, highway: highway,
                            ids: work.ids, lat: work.lat, lon: work.lon)
        }
        if work.isBuilding {
            addBuilding(key: "w\(way.id)", osmID: OSMElementID(.way, way.id).encoded, featureID: featureID, nodeIDs: work.ids)
        }
    }

    /// Remembers a building's entrances (entrance nodes that are vertices of its outline).
    private func addBuilding(key: String, osmID: Int64, featureID: Int64?, nodeIDs: [Int64]) {
        var seen = Set<Int64>()
        var entrances: [FeatureWriter.PendingEntrance] = []
        for node in nodeIDs where entranceValue[node] != nil && seen.insert(node).inserted {
            guard let i = nodeIndex(node) else { continue }
            entrances.append(FeatureWriter.PendingEntrance(
                nodeID: node, coordinate: Coordinate(latitude: Double(nodes[i].lat) * 1e-7, longitude: Double(nodes[i].lon) * 1e-7),
                entranceValue: entranceValue[node] ?? "yes", entranceFeatureID: entranceFeatureID[node]))
        }
        if !entrances.isEmpty { buildings.append((key, osmID, featureID, entrances)) }
    }

    private func wayRefs(_ id: Int64) -> UnsafeBufferPointer<Int64>.SubSequence? {
        var lo = 0, hi = wayRecords.count - 1
        while lo <= hi {
            let mid = (lo + hi) >> 1
            let v = wayRecords[mid].id
            if v == id {
                let start = Int(wayRecords[mid].refStart)
                let end = mid + 1 < wayRecords.count ? Int(wayRecords[mid + 1].refStart) : refs.count
                return refs[start..<end]
            }
            if v < id { lo = mid + 1 } else { hi = mid - 1 }
        }
        return nil
    }

    /// Whether a relation is an area, the only relations the import makes features of (the others, such as
    /// routes with hundreds of members, are decoded without their members).
    static func isArea(_ tags: OSMTags) -> Bool {
        guard let type = tags["type"] else { return false }
        return type == "multipolygon" || type == "building"
    }

    private func relation(_ relation: OSMRelation) throws {
        summary.relations += 1
        guard Self.isArea(relation.tags) else { return }
        var outers: [[(Int64, Coordinate)]] = []
        var inners: [[(Int64, Coordinate)]] = []
        var outerNodeIDs: [Int64] = []
        for member in relation.members where member.kind == .way {
            guard let memberRefs = wayRefs(member.ref) else { continue }
            // A relation's member ways are found by binary search, scattered over the mapped files:
            // their node references count towards releasing the pages, not just the relation.
            pagesTouched += memberRefs.count
            let r = resolve(memberRefs)
            guard r.ids.count >= 2 else { continue }
            let segment = Array(zip(r.ids, Self.coordinates(r.lat, r.lon)))
            if member.role == "inner" { inners.append(segment) } else {
                outers.append(segment)
                outerNodeIDs.append(contentsOf: r.ids)
            }
        }
        let outerRings = RingAssembler.rings(outers)
        guard !outerRings.isEmpty else { return }
        let innerRings = RingAssembler.rings(inners)
        let geometry = RingAssembler.geometry(outers: outerRings, inners: innerRings)
        let key = "r\(relation.id)"
        var featureID: Int64?
        if let f = FeatureRules.makeFeature(key: key, osmIDs: [OSMElementID(.relation, relation.id).encoded],
                                            tags: relation.tags, geometry: geometry,
                                            element: OSMElementID(.relation, relation.id)) {
            featureID = try emit(FeatureWriter.prepare(f, id: 0))
        }
        if let b = relation.tags["building"], b != "no" {
            addBuilding(key: key, osmID: OSMElementID(.relation, relation.id).encoded, featureID: featureID, nodeIDs: outerNodeIDs)
        }
    }

    // MARK: the end

    /// Entrance lists, intersections and the walking graph, from what the pass kept. The network's
    /// threads are stopped if writing fails.
    func finish(writer: inout FeatureWriter) throws {
        let workers = self.workers ?? NetworkWorkers(network: network, nodeFlags: nodeFlags)
        self.workers = nil
        do {
            try finish(writer: &writer, workers: workers)
        } catch {
            workers.cancel()
            throw error
        }
    }

    private func finish(writer: inout FeatureWriter, workers: NetworkWorkers) throws {
        nodeFile.releasePages()
        refFile.releasePages()
        wayFile.releasePages()
        // What the reading and decoding threads allocated is freed: give it back before the end's peak.
        MapImporter.releaseFreedMemory()
        progress?(MapImportProgress(phase: .building, fraction: 0))
        for building in buildings {
            try writer.insertEntranceList(buildingKey: building.key, buildingOSMID: building.osmID,
                                          buildingFeatureID: building.featureID, entrances: building.entrances)
            summary.entranceLists += 1
            summary.features += 1
        }
        buildings = []
        while let batch = try workers.intersections.take() {
            try writer.insertIntersections(batch.map(\.rows))
            summary.intersections += batch.count
            summary.features += batch.count
        }
        // The last feature with a box is written: the R-tree's leaves are sorted on another thread while
        // this one writes the ways and the walking graph, which have none.
        try writer.packer?.boxesComplete(db: writer.db, table: "feature_index")
        // The roads of the legs are known now, and every walkable way has a walking-graph edge: their names and
        // highways are written while the network's thread builds the graph.
        let legWays = workers.intersectionWays()
        var ways: [(id: Int64, name: String?, highway: String)] = []
        ways.reserveCapacity(FeatureWriter.waysPerInsert)
        for (i, way) in network.ways.enumerated() where legWays.contains(way.wayID) || NetworkBuilder.isWalkable(way) {
            // The network's pages are let go as they are passed, as its own thread does (they were the end's peak).
            if i % 65_536 == 65_535 { network.releasePages() }
            ways.append((way.wayID, network.string(way.name), network.string(way.highway) ?? ""))
            if ways.count == FeatureWriter.waysPerInsert {
                try writer.insertWays(ways)
                ways.removeAll(keepingCapacity: true)
            }
        }
        try writer.insertWays(ways)
        progress?(MapImportProgress(phase: .building, fraction: 0.5))
        while let batch = try workers.graph.take() {
            for chunk in batch { try writer.insertWalkChunk(chunk) }
        }
        let (walkNodes, walkEdges) = workers.finished()
        // What only the end needed: freed before the R-tree is packed.
        network = TravelNetwork()
        nodeFlags = [:]
        entranceValue = [:]
        entranceFeatureID = [:]
        summary.walkNodes = walkNodes
        summary.walkEdges = walkEdges
        progress?(MapImportProgress(phase: .building, fraction: 1))
    }
}

/// Inflates, decodes and prepares data blocks on threads of its own, and hands them back in file order.
/// Each thread takes the next block as soon as it is free (a batch-by-batch scheme left a core idle
/// while the slowest block of a batch finished). Ways are prepared only once the node file is published.
// @unchecked: every stored property is read and written only with `condition` locked.
final class BlockPipeline: @unchecked Sendable {
    private let condition = NSCondition()
    /// Submitted frames not yet taken (at most the reading thread's blocks in flight).
    private var jobs: [(sequence: Int, frame: PBFFrame)] = []
    private var results: [Int: Result<StreamingImport.DecodedBlock, MapImportError>] = [:]
    private var nodes: StreamingImport.SealedNodes?
    private var stopping = false
    private var running: Int
    private let path: String

    init(path: String, workers: Int) {
        self.path = path
        running = workers
        for _ in 0..<workers {
            Thread.detachNewThread { [self] in work() }
        }
    }

    func submit(_ sequence: Int, _ frame: PBFFrame) {
        condition.lock()
        jobs.append((sequence, frame))
        condition.broadcast()
        condition.unlock()
    }

    /// The node file is complete: blocks taken from now on have their ways prepared too.
    func publish(_ nodes: StreamingImport.SealedNodes) {
        condition.lock()
        if self.nodes == nil { self.nodes = nodes }
        condition.unlock()
    }

    /// The block submitted as `sequence`, waiting for it; its decoding error if it failed.
    func result(_ sequence: Int) throws(MapImportError) -> StreamingImport.DecodedBlock {
        condition.lock()
        defer { condition.unlock() }
        while results[sequence] == nil { condition.wait() }
        let result = results.removeValue(forKey: sequence)!
        return try result.get()
    }

    /// Lets the threads finish the block in hand and waits for them to end.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        jobs = []
        results = [:]
        condition.unlock()
    }

    private func work() {
        condition.lock()
        while true {
            while jobs.isEmpty && !stopping { condition.wait() }
            if stopping { break }
            // (Removed at once: a taken frame left in the queue kept its blob alive.)
            let job = jobs.removeFirst()
            let nodes = self.nodes
            condition.unlock()
            let result = Result { () throws(MapImportError) in
                try StreamingImport.decodeAndPrepare(job.frame, path: path, nodes: nodes)
            }
            condition.lock()
            results[job.sequence] = result
            condition.broadcast()
        }
        running -= 1
        condition.broadcast()
        condition.unlock()
    }
}

/// Prepared feature rows from the thread that reads the file to the one that writes the database.
typealias PreparedChannel = BatchChannel<FeatureWriter.PreparedFeature>

/// Batches of rows (or what rows are made of) from a thread that makes them to the one that writes
/// the database, at most `capacity` batches ahead so that memory stays bounded.
// @unchecked: every stored property is read and written only with `condition` locked.
final class BatchChannel<Item: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var batches: [[Item]] = []
    private var closed = false
    private var cancelled = false
    private var failure: (any Error)?
    private let capacity: Int

    init(capacity: Int = 4) { self.capacity = capacity }

    /// Queues a batch, waiting while the queue is full; false when the writer has given up.
    func put(_ batch: [Item]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while batches.count >= capacity && !cancelled { condition.wait() }
        if cancelled { return false }
        batches.append(batch)
        condition.broadcast()
        return true
    }

    /// The reader is done, with `error` when it failed.
    func close(error: (any Error)?) {
        condition.lock()
        closed = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// The writer failed: the reader's next `put` returns false.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch; nil once the reader is done; the reader's error when it failed (after the
    /// batches it sent before failing, which are then not needed).
    func take() throws -> [Item]? {
        condition.lock()
        defer { condition.unlock() }
        while batches.isEmpty && !closed { condition.wait() }
        if let failure { throw failure }
        if batches.isEmpty { return nil }
        let batch = batches.removeFirst()
        condition.broadcast()
        return batch
    }
}
