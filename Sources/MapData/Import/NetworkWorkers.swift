import Foundation

/// The intersections and then the walking graph, built on a thread of their own from the travel network
/// as soon as the ways have been read, while the relations are still read and written. The thread
/// hands its results to the writer in batches, at most `capacity` ahead on each channel; the writer
/// drains them after the last feature, so the rows, their order and their ids are those of building
/// them after the pass. (One thread, not one for each: both at once raised the peak memory by 30 MB
/// at 100×, and the writer, not the building, is the slower side.)
final class NetworkWorkers: Sendable {
    let intersections: BatchChannel<Intersection>
    /// The walking graph's chunks, encoded here (``WalkGraphBlob``): the edges', then the nodes'.
    let graph: BatchChannel<WalkGraphBlob.Chunk>
    private let results = Results()
    private let group = DispatchGroup()

    /// An intersection with the feature rows of the roads its legs are on (the ways that made one), for
    /// `FeatureWriter.insertIntersection`: looked up here, in the network's ways (in ascending id order),
    /// instead of in a dictionary of every road that the writer kept through the intersections. Its rows
    /// are prepared here too, so that the writer, the end's slower side, only binds them.
    struct Intersection: Sendable {
        var intersection: PendingIntersection
        var roadFeatureIDs: [Int64: Int64]
        var rows: FeatureWriter.PreparedIntersection
    }

    /// What the thread leaves behind.
    // @unchecked: written by the thread before it closes the channel they follow (`intersectionWays`) or leaves
    // `group`, read only after that channel is drained or after `group.wait()`.
    private final class Results: @unchecked Sendable {
        var intersectionWays = Set<Int64>()
        var walkNodes = 0
        var walkEdges = 0
    }

    /// `capacity` batches of `batchSize` intersections, and `graphCapacity` chunks of `chunkSize` nodes or edges,
    /// may wait for the writer (the tests make them small to see the threads stopped while they wait). The graph's
    /// chunks are small (8 MB in all at 100 × Helsinki): the thread may build the whole graph while the writer
    /// writes the ways, rather than stop after a few chunks and leave the writer waiting for the rest.
    init(network: TravelNetwork, nodeFlags: [Int64: NodeFlags], capacity: Int = 8, batchSize: Int = 512,
         graphCapacity: Int = 1_024, chunkSize: Int = WalkGraphBlob.chunkSize) {
        intersections = BatchChannel(capacity: capacity)
        graph = BatchChannel(capacity: graphCapacity)
        let results = results, group = group, intersections = intersections, graph = graph
        group.enter()
        Thread.detachNewThread {
            var used = Set<Int64>()
            var batch: [Intersection] = []
            var cancelled = false
            do {
                try NetworkBuilder.intersections(network) { intersection in
                    for leg in intersection.legs { used.insert(leg.wayID) }
                    var roads: [Int64: Int64] = [:]
                    for wayID in intersection.wayIDs {
                        if let featureID = network.featureID(ofWay: wayID) { roads[wayID] = featureID }
                    }
                    batch.append(Intersection(intersection: intersection, roadFeatureIDs: roads,
                                              rows: FeatureWriter.prepareIntersection(intersection, roadFeatureIDs: roads)))
                    if batch.count >= batchSize {
                        guard intersections.put(batch) else { throw CancellationError() }
                        batch = []
                    }
                }
                if !batch.isEmpty { _ = intersections.put(batch) }
            } catch {
                cancelled = true // the writer has stopped taking
            }
            results.intersectionWays = used
            intersections.close(error: nil)
            used = []
            // The intersections' sort order is freed: give it back before the walking graph's arrays are made.
            MapImporter.releaseFreedMemory()
            network.releasePages()
            do {
                if cancelled { throw CancellationError() }
                var edges = WalkGraphBlob.EdgeEncoder()
                var edgeCount = 0
                let vertices = try NetworkBuilder.walkingGraph(network, nodeFlags: nodeFlags) { edge in
                    edges.append(edge)
                    edgeCount += 1
                    if edges.count >= chunkSize {
                        guard graph.put([edges.take()]) else { throw CancellationError() }
                    }
                }
                if edges.count > 0 {
                    guard graph.put([edges.take()]) else { throw CancellationError() }
                }
                results.walkEdges = edgeCount
                var nodes = WalkGraphBlob.NodeEncoder()
                for vertex in vertices {
                    let id = network.nodeIDs[Int(vertex)]
                    nodes.append(id: id, lat: network.lat[Int(vertex)], lon: network.lon[Int(vertex)], flags: nodeFlags[id] ?? [])
                    if nodes.count >= chunkSize {
                        guard graph.put([nodes.take()]) else { throw CancellationError() }
                    }
                }
                if nodes.count > 0 {
                    guard graph.put([nodes.take()]) else { throw CancellationError() }
                }
                results.walkNodes = vertices.count
            } catch {
                // Cancelled: the writer has stopped taking.
            }
            graph.close(error: nil)
            group.leave()
        }
    }

    /// Stops the thread (the file or the writer failed) and waits for it to end.
    func cancel() {
        intersections.cancel()
        graph.cancel()
        group.wait()
    }

    /// The ways that have an intersection leg, once `intersections` has been drained (the thread sets them
    /// before it closes the channel, whose lock orders the two); handed over once.
    func intersectionWays() -> Set<Int64> {
        let ways = results.intersectionWays
        results.intersectionWays = []
        return ways
    }

    /// Waits for the thread to end (after its channels are drained) and returns the numbers of the walking
    /// graph's nodes and edges.
    func finished() -> (walkNodes: Int, walkEdges: Int) {
        group.wait()
        return (results.walkNodes, results.walkEdges)
    }
}
