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

    static func load(_ db: Database) throws -> WalkingGraph {
        var nodes: [Int64: Node] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, lat, lon, is_crossing, traffic_signals, signal_sound FROM walk_nodes") {
            let node = Node(id: row[0], coordinate: FixedPoint.coordinate(row[1], row[2]),
                            isCrossing: row[3], hasTrafficSignals: row[4], hasSignalSound: row[5])
            nodes[node.id] = node
        }
        let edges = try Row.fetchAll(db, sql: """
            SELECT e.id, e.from_node, e.to_node, e.way_id, w.name, w.highway, e.is_crossing, e.traffic_signals, e.signal_sound,
                   e.level, e.oneway_foot, e.geometry FROM walk_edges e JOIN ways w ON w.id = e.way_id ORDER BY e.id
            """).map { row -> Edge in
                // The stored geometry is the vertices between the two nodes, measured from the start node.
                var geometry: [Coordinate] = []
                if let from = nodes[row[1]], let to = nodes[row[2]] {
                    let start = GeometryBlob.Origin(lat: GeometryMath.e7(from.coordinate.latitude),
                                                    lon: GeometryMath.e7(from.coordinate.longitude))
                    if case .line(let inner)? = FeatureGeometry(kind: .line, encoded: row[11], origin: start) {
                        geometry = [from.coordinate] + inner + [to.coordinate]
                    }
                }
                // The length is the geometry's, summed as the importer summed it.
                var length = 0.0
                for i in geometry.indices.dropFirst() { length += geometry[i - 1].distance(to: geometry[i]) }
                return Edge(id: row[0], from: row[1], to: row[2], wayID: row[3], name: row[4], highway: row[5],
                            length: length, isCrossing: row[6], hasTrafficSignals: row[7], hasSignalSound: row[8],
                            level: LevelClass(rawValue: row[9]) ?? .ground, isOneway: row[10], geometry: geometry)
            }
        return WalkingGraph(nodes: nodes, edges: edges)
    }
}
