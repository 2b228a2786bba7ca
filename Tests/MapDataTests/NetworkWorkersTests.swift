import Foundation
@testable import MapData
import Testing

/// The thread that builds the intersections and the walking graph during the relations: it hands the
/// writer exactly what building them in place gives, and stops when told to, even while it waits for
/// the writer to take a batch.
@Suite("Network workers")
struct NetworkWorkersTests {
    /// A grid of `n` × `n` streets (every crossing a four-way intersection) with a signalled crossing node.
    static func grid(_ n: Int) throws -> (TravelNetwork, [Int64: NodeFlags]) {
        var (network, flags) = try unsealedGrid(n)
        try network.seal()
        return (network, flags)
    }

    /// The grid's network before it is sealed, for a test that adds ways of its own.
    static func unsealedGrid(_ n: Int) throws -> (TravelNetwork, [Int64: NodeFlags]) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("grid-\(UUID().uuidString)").path
        var network = try TravelNetwork(scratchPrefix: scratch, source: "grid")
        let tags = OSMTags([OSMTag(key: "highway", value: "residential"), OSMTag(key: "name", value: "Street")])
        func node(_ row: Int, _ column: Int) -> Int64 { Int64(row * n + column + 1) }
        func lat(_ row: Int) -> Int32 { Int32(601_600_000 + row * 10_000) }
        func lon(_ column: Int) -> Int32 { Int32(249_400_000 + column * 20_000) }
        for row in 0..<n {
            try network.add(wayID: Int64(row + 1), featureID: Int64(row + 1), tags: tags, highway: "residential",
                        ids: (0..<n).map { node(row, $0) }, lat: Array(repeating: lat(row), count: n), lon: (0..<n).map(lon))
        }
        for column in 0..<n {
            try network.add(wayID: Int64(1_000 + column), featureID: nil, tags: tags, highway: "residential",
                        ids: (0..<n).map { node($0, column) }, lat: (0..<n).map(lat), lon: Array(repeating: lon(column), count: n))
        }
        return (network, [node(1, 1): [.crossing, .trafficSignals]])
    }

    @Test("drained, the thread gives the intersections, edges and vertices of building them in place, in the same order")
    func sameAsInPlace() throws {
        let (network, flags) = try Self.grid(12)
        var expectedIntersections: [Int64] = []
        NetworkBuilder.intersections(network) { expectedIntersections.append($0.nodeID) }
        var expectedEdges: [[Int64]] = []
        let expectedVertices = NetworkBuilder.walkingGraph(network, nodeFlags: flags) { expectedEdges.append([$0.from, $0.to, $0.wayID]) }
        #expect(expectedIntersections.count == 10 * 10 + 4 * 10)
        #expect(Set(expectedVertices.map { network.nodeIDs[Int($0)] }).count == 144)

        let workers = NetworkWorkers(network: network, nodeFlags: flags, capacity: 2, batchSize: 7, chunkSize: 10)
        var intersections: [Int64] = [], edges: [[Int64]] = [], nodes: [Int64] = []
        while let batch = try workers.intersections.take() {
            intersections += batch.map(\.intersection.nodeID)
            for item in batch {
                // The streets along the rows made features (their way id), those along the columns none.
                #expect(item.roadFeatureIDs == Dictionary(uniqueKeysWithValues: item.intersection.wayIDs.filter { $0 < 1_000 }.map { ($0, $0) }))
            }
        }
        // The graph's chunks: all the edges' (numbered on from 1), then the nodes'.
        var nextEdgeID: Int64 = 1
        while let batch = try workers.graph.take() {
            for chunk in batch {
                #expect(chunk.count <= 10)
                switch chunk.kind {
                case .edges:
                    #expect(nodes.isEmpty && chunk.firstID == nextEdgeID)
                    nextEdgeID += Int64(chunk.count)
                    edges += try #require(WalkGraphBlob.edges(chunk.data, firstID: chunk.firstID, count: chunk.count)).map { [$0.from, $0.to, $0.wayID] }
                case .nodes:
                    nodes += try #require(WalkGraphBlob.nodes(chunk.data, count: chunk.count)).map(\.id)
                }
            }
        }
        let legWays = workers.intersectionWays()
        let (walkNodes, walkEdges) = workers.finished()
        #expect(intersections == expectedIntersections)
        #expect(edges == expectedEdges && walkEdges == edges.count)
        #expect(nodes == expectedVertices.map { network.nodeIDs[Int($0)] } && walkNodes == nodes.count)
        #expect(legWays == Set((1...12).map(Int64.init) + (1_000..<1_012).map(Int64.init)))
        // The writer writes the ways of the walking graph before its edges arrive: they are the walkable ones.
        #expect(Set(edges.map { $0[2] }) == Set(network.ways.filter(NetworkBuilder.isWalkable).map(\.wayID)))
    }

    @Test("cancelled while it waits for the writer, the thread ends", .timeLimit(.minutes(1)))
    func cancelWhileWaiting() throws {
        let (network, flags) = try Self.grid(30)
        let workers = NetworkWorkers(network: network, nodeFlags: flags, capacity: 1, batchSize: 1)
        #expect(try workers.intersections.take()?.count == 1)
        // The thread is now blocked putting the next batches; cancel() returns only once it has ended.
        workers.cancel()
        #expect(workers.finished().walkNodes == 0, "the walking graph was not built after the cancel")
    }
}
