import Foundation
import Geo
import GRDB
@testable import MapData
import MapTestSupport
import Testing

@Suite("Walking graph")
struct WalkingGraphTests {
    @Test("loads as consistent adjacency lists with lengths, names and crossing flags")
    func load() async throws {
        let helsinki = try await SharedHelsinki.get()
        let graph = try WalkingGraph.load(from: helsinki.databasePath)
        #expect(graph.nodes.count == helsinki.summary.walkNodes)
        #expect(graph.edges.count == helsinki.summary.walkEdges)
        #expect(graph.edges.count > 3_000)
        for edge in graph.edges {
            #expect(graph.nodes[edge.from] != nil && graph.nodes[edge.to] != nil)
            #expect(edge.geometry.count >= 2)
            // Length is the sum of the segment lengths of its geometry.
            let measured = zip(edge.geometry, edge.geometry.dropFirst()).reduce(0) { $0 + $1.0.haversine(to: $1.1) }
            #expect(abs(measured - edge.length) < 0.01 + edge.length * 0.001)
            #expect(edge.geometry.first!.haversine(to: graph.nodes[edge.from]!.coordinate) < 0.01)
            #expect(edge.geometry.last!.haversine(to: graph.nodes[edge.to]!.coordinate) < 0.01)
            #expect(edge.highway != "motorway")
        }
        // Two-way edges appear in both endpoints' lists.
        for (i, edge) in graph.edges.enumerated().prefix(500) where !edge.isOneway {
            #expect(graph.neighbors(of: edge.from).contains { $0.edgeIndex == i && $0.node == edge.to })
            #expect(graph.neighbors(of: edge.to).contains { $0.edgeIndex == i && $0.node == edge.from })
        }
        let crossings = graph.edges.filter(\.isCrossing)
        #expect(crossings.count > 100)
        #expect(crossings.contains { $0.hasTrafficSignals })
        #expect(graph.edges.contains { $0.hasSignalSound })
        #expect(graph.edges.contains { $0.isSteps })
        #expect(graph.nodes.values.contains { $0.isCrossing })
        #expect(graph.edges.contains { $0.name == "Pohjoisesplanadi" })
        // Keskuskatu is one edge between its two nodes (it meets other ways only at its ends).
        let keskuskatu = graph.edges.filter { $0.wayID == 15466245 }
        #expect(keskuskatu.count == 1)
        #expect(Set([keskuskatu.first?.from, keskuskatu.first?.to]) == Set([25413717, 56438018]))
        // An edge stores only the vertices between its nodes; read back, it is a run of its way's vertices,
        // vertex for vertex as the way's own feature (checked against osmium in StreamingImportTests).
        let rows = try helsinki.view.queue.read { db in
            try Row.fetchAll(db, sql: "SELECT -osm_id, geometry, lat, lon FROM features WHERE osm_id < 0 AND geometry_kind = 1")
        }
        var ways: [Int64: [Int32]] = [:]
        for row in rows {
            if case .line(let cs)? = FeatureGeometry(kind: .line, encoded: row[1], origin: GeometryBlob.Origin(stored: row[2], row[3])) {
                ways[row[0]] = cs.flatMap { [GeometryMath.e7($0.latitude), GeometryMath.e7($0.longitude)] }
            }
        }
        var compared = 0
        for edge in graph.edges where edge.geometry.count > 2 {
            guard let way = ways[edge.wayID] else { continue }
            let mine = edge.geometry.flatMap { [GeometryMath.e7($0.latitude), GeometryMath.e7($0.longitude)] }
            let found = stride(from: 0, through: way.count - mine.count, by: 2).contains { Array(way[$0..<($0 + mine.count)]) == mine }
            #expect(found, "edge \(edge.id) of way \(edge.wayID)")
            compared += 1
        }
        #expect(compared > 1_000)
    }

    @Test("the graph read back from its chunks is the graph the network builds, value for value")
    func chunksRoundTrip() throws {
        var (network, flags) = try NetworkWorkersTests.unsealedGrid(9)
        // A signalled footway crossing on a bridge, one way, whose inner vertices are no graph nodes, and a
        // path in the other hemispheres (negative coordinates).
        let footway = OSMTags([OSMTag(key: "highway", value: "footway"), OSMTag(key: "footway", value: "crossing"),
                               OSMTag(key: "crossing", value: "traffic_signals"), OSMTag(key: "traffic_signals:sound", value: "yes"),
                               OSMTag(key: "oneway:foot", value: "yes"), OSMTag(key: "bridge", value: "yes")])
        try network.add(wayID: 5_000, featureID: nil, tags: footway, highway: "footway", ids: [1, 90_001, 90_002, 90_003],
                    lat: [601_600_000, 601_590_000, 601_580_123, 601_570_000], lon: [249_400_000, 249_390_000, 249_380_000, 249_370_001])
        let path = OSMTags([OSMTag(key: "highway", value: "path"), OSMTag(key: "tunnel", value: "yes")])
        try network.add(wayID: 6_000, featureID: nil, tags: path, highway: "path", ids: [95_000, 95_001, 95_002],
                    lat: [-339_000_000, -339_000_100, -339_000_300], lon: [-706_000_000, -705_999_000, -705_998_000])
        flags[95_000] = [.entrance]  // (not stored: the graph has no entrances)
        try network.seal()
        // What building the graph gives in memory.
        var pending: [PendingWalkEdge] = []
        let vertices = NetworkBuilder.walkingGraph(network, nodeFlags: flags) { pending.append($0) }
        var nodes: [Int64: WalkingGraph.Node] = [:]
        for vertex in vertices {
            let id = network.nodeIDs[Int(vertex)], f = flags[id] ?? []
            nodes[id] = WalkingGraph.Node(id: id, coordinate: network.coordinate(Int(vertex)), isCrossing: f.contains(.crossing),
                                          hasTrafficSignals: f.contains(.trafficSignals), hasSignalSound: f.contains(.signalSound))
        }
        let edges = pending.enumerated().map { i, e in
            WalkingGraph.Edge(id: Int64(i + 1), from: e.from, to: e.to, wayID: e.wayID, name: e.name, highway: e.highway,
                              length: e.length, isCrossing: e.isCrossing, hasTrafficSignals: e.trafficSignals,
                              hasSignalSound: e.signalSound, level: e.level, isOneway: e.onewayFoot, geometry: e.coords)
        }
        #expect(edges.contains { $0.geometry.count == 4 && $0.isOneway && $0.hasSignalSound && $0.level == .elevated })
        #expect(edges.contains { $0.geometry.first!.latitude < 0 && $0.level == .underground })
        #expect(nodes.values.contains { $0.hasTrafficSignals })

        // Stored through the network thread's chunks (small ones: several of each) and the writer, and loaded.
        let dir = try TestData.temporaryDirectory("graph-chunks")
        defer { try? FileManager.default.removeItem(at: dir) }
        let map = dir.appendingPathComponent("map.sqlite").path
        let queue = try MapStore.openWritable(path: map)
        let workers = NetworkWorkers(network: network, nodeFlags: flags, chunkSize: 16)
        var chunks = (nodes: 0, edges: 0)
        try queue.write { db in
            let writer = try FeatureWriter(db: db)
            while try workers.intersections.take() != nil {}
            let legWays = workers.intersectionWays()
            try writer.insertWays(network.ways.filter { legWays.contains($0.wayID) || NetworkBuilder.isWalkable($0) }.map {
                ($0.wayID, network.string($0.name), network.string($0.highway) ?? "")
            })
            while let batch = try workers.graph.take() {
                for chunk in batch {
                    try writer.insertWalkChunk(chunk)
                    if chunk.kind == .nodes { chunks.nodes += 1 } else { chunks.edges += 1 }
                }
            }
            _ = workers.finished()
        }
        try queue.close()
        #expect(chunks.nodes == (nodes.count + 15) / 16 && chunks.edges == (edges.count + 15) / 16)
        let graph = try WalkingGraph.load(from: map)
        #expect(graph.nodes == nodes)
        #expect(graph.edges == edges)
        let statistics = try MapStore.statistics(path: map)
        #expect(statistics.walkNodes == nodes.count && statistics.walkEdges == edges.count)
    }

    @Test("a damaged chunk is refused, not misread")
    func damagedChunks() throws {
        var encoder = WalkGraphBlob.NodeEncoder()
        encoder.append(id: 7, lat: 601_600_000, lon: 249_400_000, flags: [.crossing])
        encoder.append(id: 9, lat: 601_600_100, lon: 249_399_000, flags: [])
        let chunk = encoder.take()
        #expect(WalkGraphBlob.nodes(chunk.data, count: 2)?.map(\.id) == [7, 9])
        #expect(WalkGraphBlob.nodes(chunk.data, count: 3) == nil)
        #expect(WalkGraphBlob.nodes(chunk.data, count: 1) == nil)
        #expect(WalkGraphBlob.nodes(chunk.data.dropLast(), count: 2) == nil)
        #expect(WalkGraphBlob.edges(chunk.data, firstID: 1, count: 2) == nil)
    }

    @Test("the map's statistics count the graph's nodes and edges in its chunks")
    func statistics() async throws {
        let helsinki = try await SharedHelsinki.get()
        let statistics = try MapStore.statistics(path: helsinki.databasePath)
        #expect(statistics.walkNodes == 3_729 && statistics.walkEdges == 5_127)
        let rows = try await helsinki.view.queue.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM walk_node_chunks") ?? 0, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM walk_edge_chunks") ?? 0)
        }
        #expect(rows == (4, 6), "chunks of \(WalkGraphBlob.chunkSize)")
    }

    @Test("the graph and the intersections read from format 6 are those format 5 gave for the same extract")
    func sameAsFormat5() async throws {
        let helsinki = try await SharedHelsinki.get()
        // Recorded from the same extract imported in format 5 (main at feb2065) and read with format 5's queries (its
        // rows of walk_nodes, walk_edges and intersection_legs joined with ways): the texts were equal, line for line.
        let graph = MapFingerprint.graph(try WalkingGraph.load(from: helsinki.databasePath))
        #expect(graph.digest == "7f286c8e160262b562a8ae330b2e70dc0aadab328d1d144b11da5304f1636a38")
        let intersections = try MapFingerprint.intersections(helsinki.view)
        #expect(intersections.legs == 6_246)
        #expect(intersections.digest == "5e519c05ed2265133122dc8b1e5369c7dd4a7ac189388d333ad63d379488b770")
    }

    @Test("a walk from Rautatientori reaches Kauppatori through the graph")
    func connected() async throws {
        let helsinki = try await SharedHelsinki.get()
        let graph = try WalkingGraph.load(from: helsinki.databasePath)
        let start = try #require(graph.nearestNode(to: Coordinate(latitude: 60.1705, longitude: 24.9428)))
        let goal = try #require(graph.nearestNode(to: Coordinate(latitude: 60.1676, longitude: 24.9516)))
        var seen: Set<Int64> = [start.id]
        var frontier = [start.id]
        while let node = frontier.popLast() {
            for n in graph.neighbors(of: node) where seen.insert(n.node).inserted { frontier.append(n.node) }
        }
        #expect(seen.contains(goal.id))
    }
}

/// Digests of everything a reader gets from the walking graph and the intersections of a map, to compare
/// map formats: the same text from the same import means the same graph and legs, value for value.
enum MapFingerprint {
    static func graph(_ graph: WalkingGraph) -> (text: String, digest: String) {
        func e7(_ c: Coordinate) -> String { "\(GeometryMath.e7(c.latitude)),\(GeometryMath.e7(c.longitude))" }
        var lines: [String] = []
        for node in graph.nodes.values.sorted(by: { $0.id < $1.id }) {
            lines.append("n \(node.id) \(e7(node.coordinate)) \(node.isCrossing) \(node.hasTrafficSignals) \(node.hasSignalSound)")
        }
        for e in graph.edges {
            lines.append("e \(e.id) \(e.from) \(e.to) \(e.wayID) \(e.name ?? "-") \(e.highway) \(e.length.bitPattern) \(e.isCrossing) "
                + "\(e.hasTrafficSignals) \(e.hasSignalSound) \(e.level.rawValue) \(e.isOneway) \(e.geometry.map(e7).joined(separator: " "))")
        }
        let text = lines.joined(separator: "\n")
        return (text, SHA256Digest.hexDigest(of: Data(text.utf8)))
    }

    static func intersections(_ view: SpatialDataView) throws -> (text: String, digest: String, legs: Int) {
        let all = try view.queue.read { db in
            let ids = try Int64.fetchAll(db, sql: "SELECT id FROM features WHERE feature_value = 'gd_intersection' ORDER BY id")
            return try view.loadIntersections(db, ids.map { ($0, 0) })
        }
        var lines: [String] = [], legs = 0
        for i in all {
            lines.append("i \(i.id) \(i.nodeID ?? -1) \(GeometryMath.e7(i.coordinate.latitude)),\(GeometryMath.e7(i.coordinate.longitude)) \(i.isRoundabout) \(i.level.rawValue)")
            for l in i.legs {
                lines.append("  \(l.roadFeatureID ?? -1) \(l.wayID) \(l.name ?? "-") \(l.highway ?? "-") \(l.bearing.bitPattern) \(l.direction) \(l.isRoundabout) \(l.level.rawValue)")
                legs += 1
            }
        }
        let text = lines.joined(separator: "\n")
        return (text, SHA256Digest.hexDigest(of: Data(text.utf8)), legs)
    }
}
