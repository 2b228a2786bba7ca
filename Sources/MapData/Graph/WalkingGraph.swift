import Foundation
import Geo
import GRDB

/// The pedestrian network of a map database, as adjacency lists: vertices are OSM nodes where
/// walkable ways end or meet (and crossings and signals), edges are the way pieces between them.
/// Route planning builds on this later.
public struct WalkingGraph: Sendable {
    public struct Node: Sendable, Hashable {
        public var id: Int64
        public var coordinate: Coordinate
        public var isCrossing: Bool
        public var hasTrafficSignals: Bool
        /// Accessible (sounding) traffic signals.
        public var hasSignalSound: Bool
    }

    public struct Edge: Sendable, Hashable {
        public var id: Int64
        public var from: Int64
        public var to: Int64
        public var wayID: Int64
        public var name: String?
        /// highway value: footway, residential, steps, …
        public var highway: String
        /// Metres.
        public var length: Double
        public var isCrossing: Bool
        public var hasTrafficSignals: Bool
        public var hasSignalSound: Bool
        public var level: LevelClass
        /// Walkable only from `from` to `to` (oneway:foot=yes).
        public var isOneway: Bool
        public var geometry: [Coordinate]

        public var isSteps: Bool { highway == "steps" }
    }

    /// A step from a node: the edge and the node it leads to.
    public struct Neighbor: Sendable, Hashable {
        public var edgeIndex: Int
        public var node: Int64
    }

    public var nodes: [Int64: Node]
    public var edges: [Edge]
    /// node id → edges leaving it (both directions of two-way edges).
    public var adjacency: [Int64: [Neighbor]]

    public init(nodes: [Int64: Node], edges: [Edge]) {
        self.nodes = nodes
        self.edges = edges
        var adjacency: [Int64: [Neighbor]] = [:]
        for (i, e) in edges.enumerated() {
            adjacency[e.from, default: []].append(Neighbor(edgeIndex: i, node: e.to))
            if !e.isOneway { adjacency[e.to, default: []].append(Neighbor(edgeIndex: i, node: e.from)) }
        }
        self.adjacency = adjacency
    }

    public func neighbors(of node: Int64) -> [Neighbor] { adjacency[node] ?? [] }

    public var totalLength: Double { edges.reduce(0) { $0 + $1.length } }

    /// The vertex nearest to a coordinate (linear scan; the graph of a city district has a few
    /// thousand vertices).
    public func nearestNode(to c: Coordinate) -> Node? {
        nodes.values.min { $0.coordinate.distance(to: c) < $1.coordinate.distance(to: c) }
    }

    /// Loads the walking graph of the map database at `path`.
    public static func load(from path: String) throws -> WalkingGraph {
        let queue = try MapStore.openReadOnly(path: path)
        defer { try? queue.close() }
        return try queue.read { db in try load(db) }
    }

    /// The graph as the map stores it (format 6: chunks of nodes and edges, see ``WalkGraphBlob``), with
    /// each edge's name and highway from its way's row.
    static func load(_ db: Database) throws -> WalkingGraph {
        // The ways' names and highway values, each distinct string once.
        var strings: [String: String] = [:]
        func shared(_ s: String) -> String {
            if let known = strings[s] { return known }
            strings[s] = s
            return s
        }
        var ways: [Int64: (name: String?, highway: String)] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT id, name, highway FROM ways")
        while let row = try rows.next() {
            let name: String? = row[1]
            ways[row[0]] = (name.map(shared), shared(row[2]))
        }
        // Sized once from the chunks' counts (reserving chunk by chunk grew the storage to the exact size each
        // time: copied over and over).
        var nodes: [Int64: Node] = [:]
        nodes.reserveCapacity(try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(count), 0) FROM walk_node_chunks") ?? 0)
        for row in try Row.fetchAll(db, sql: "SELECT chunk, count, data FROM walk_node_chunks ORDER BY chunk") {
            guard let chunk = WalkGraphBlob.nodes(row[2], count: row[1]) else {
                throw DatabaseError(message: "walk_node_chunks: chunk \(row[0] as Int64) is damaged; import the map again")
            }
            for n in chunk {
                nodes[n.id] = Node(id: n.id, coordinate: FixedPoint.coordinate(Int64(n.lat), Int64(n.lon)),
                                   isCrossing: n.flags.contains(.crossing), hasTrafficSignals: n.flags.contains(.trafficSignals),
                                   hasSignalSound: n.flags.contains(.signalSound))
            }
        }
        var edges: [Edge] = []
        edges.reserveCapacity(try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(count), 0) FROM walk_edge_chunks") ?? 0)
        for row in try Row.fetchAll(db, sql: "SELECT chunk, first_id, count, data FROM walk_edge_chunks ORDER BY chunk") {
            guard let chunk = WalkGraphBlob.edges(row[3], firstID: row[1], count: row[2]) else {
                throw DatabaseError(message: "walk_edge_chunks: chunk \(row[0] as Int64) is damaged; import the map again")
            }
            for e in chunk {
                // (An edge whose way has no row is left out, as joining the rows left it out in format 5.)
                guard let way = ways[e.wayID] else { continue }
                // The stored geometry is the vertices between the two nodes, measured from the start node.
                var geometry: [Coordinate] = []
                if let from = nodes[e.from], let to = nodes[e.to] {
                    let startLat = GeometryMath.e7(from.coordinate.latitude), startLon = GeometryMath.e7(from.coordinate.longitude)
                    geometry.reserveCapacity(e.inner.count / 2 + 2)
                    geometry.append(from.coordinate)
                    for i in stride(from: 0, to: e.inner.count, by: 2) {
                        geometry.append(FixedPoint.coordinate(Int64(startLat) + Int64(e.inner[i]), Int64(startLon) + Int64(e.inner[i + 1])))
                    }
                    geometry.append(to.coordinate)
                }
                // The length is the geometry's, summed as the importer summed it.
                var length = 0.0
                for i in geometry.indices.dropFirst() { length += geometry[i - 1].distance(to: geometry[i]) }
                edges.append(Edge(id: e.id, from: e.from, to: e.to, wayID: e.wayID, name: way.name, highway: way.highway,
                                  length: length, isCrossing: e.isCrossing, hasTrafficSignals: e.trafficSignals,
                                  hasSignalSound: e.signalSound, level: LevelClass(rawValue: e.level) ?? .ground,
                                  isOneway: e.onewayFoot, geometry: geometry))
            }
        }
        return WalkingGraph(nodes: nodes, edges: edges)
    }
}
