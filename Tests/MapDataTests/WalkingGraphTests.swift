import Foundation
import Geo
import GRDB
@testable import MapData
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
