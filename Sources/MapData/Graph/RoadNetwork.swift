import Foundation
import Geo

/// The roads of the walking graph as someone following a street sees them: which ways count as roads, the roads
/// leaving a node, and where a road leads (through its bends and the nodes where nothing else meets it) up to the
/// next intersection or its end. Street Preview moves along these; "what's ahead" reads the next intersection and
/// bend from them.
///
/// A road is a named way at street level, or an unnamed one of a kind a pedestrian follows as a street (not a
/// footway, path, cycleway, steps, crossing, service road, track, pedestrian area or residential lane: the strict
/// set of Street Preview without unnamed roads). An intersection is a node where three or more road directions
/// meet; a node where only one does is the end of the road.
public struct RoadNetwork: Sendable {
    public let graph: WalkingGraph
    /// node id → the road edges at it (both directions).
    private let roadAdjacency: [Int64: [WalkingGraph.Neighbor]]

    /// Unnamed ways of these kinds are not roads to follow.
    public static let minorUnnamedHighways: Set<String> = [
        "footway", "path", "cycleway", "bridleway", "steps", "crossing", "corridor", "platform", "elevator",
        "service", "track", "pedestrian", "residential", "living_street",
    ]
    /// A road leg's direction is the bearing to the point this far along it (spec §3.3: 25 m).
    public static let legBearingDistance = 25.0
    /// A bend is a change of direction of at least this many degrees...
    public static let bendAngle = 45.0
    /// ...between the road's direction over this many metres before a point and after it.
    public static let bendSpan = 15.0
    /// An intersection reached sooner than this (metres) is passed straight through: it is part of the one just left.
    public static let shortestStretch = 12.0
    /// A stretch is not followed further than this (metres).
    public static let maximumStretch = 3_000.0

    public init(graph: WalkingGraph) {
        self.graph = graph
        var adjacency: [Int64: [WalkingGraph.Neighbor]] = [:]
        for (i, edge) in graph.edges.enumerated() where Self.isRoad(edge) {
            adjacency[edge.from, default: []].append(WalkingGraph.Neighbor(edgeIndex: i, node: edge.to))
            adjacency[edge.to, default: []].append(WalkingGraph.Neighbor(edgeIndex: i, node: edge.from))
        }
        roadAdjacency = adjacency
    }

    public static func isRoad(_ edge: WalkingGraph.Edge) -> Bool {
        guard edge.level == .ground || edge.level == .elevated, !edge.isCrossing else { return false }
        if let name = edge.name, !name.isEmpty { return true }
        return !minorUnnamedHighways.contains(edge.highway)
    }

    /// The road's name as spoken: its name, or the label of its kind ("Service Road").
    public func name(ofEdge index: Int) -> String {
        let edge = graph.edges[index]
        if let name = edge.name, !name.isEmpty { return name }
        let label = Categorizer.label(tags: OSMTags([OSMTag(key: "highway", value: edge.highway)])) ?? "road"
        return Categorizer.displayName(forLabel: label)
    }

    // MARK: legs

    /// One road direction leaving a node.
    public struct Leg: Sendable, Hashable {
        public var edgeIndex: Int
        /// The node at the other end of the edge.
        public var towards: Int64
        /// Degrees from north, from the node towards the point 25 m along the road.
        public var bearing: Double
        public var name: String
    }

    /// The road directions leaving `node`, clockwise from north.
    public func legs(at node: Int64) -> [Leg] {
        (roadAdjacency[node] ?? []).compactMap { n -> Leg? in
            let line = Polyline(orientedGeometry(edge: n.edgeIndex, from: node))
            guard let start = line.points.first, let end = line.point(atDistance: Self.legBearingDistance),
                  start.distance(to: end) > 0.5 else { return nil }
            return Leg(edgeIndex: n.edgeIndex, towards: n.node, bearing: start.bearing(to: end), name: name(ofEdge: n.edgeIndex))
        }.sorted { $0.bearing < $1.bearing }
    }

    /// The names of the roads at `node` other than `besides`, each once, clockwise from north.
    public func roadNames(at node: Int64, besides: [String]) -> [String] {
        var names: [String] = []
        for leg in legs(at: node) where !besides.contains(leg.name) && !names.contains(leg.name) { names.append(leg.name) }
        return names
    }

    /// The number of road directions at `node`.
    public func degree(of node: Int64) -> Int { roadAdjacency[node]?.count ?? 0 }

    /// An edge's points in the order of walking it away from `node`.
    func orientedGeometry(edge index: Int, from node: Int64) -> [Coordinate] {
        let edge = graph.edges[index]
        return edge.from == node ? edge.geometry : edge.geometry.reversed()
    }

    // MARK: following a road

    /// How a stretch of road ends.
    public enum End: Sendable, Equatable {
        /// Three or more road directions meet at the last node.
        case intersection
        /// No road goes on from the last node.
        case deadEnd
        /// The road came back to a node already passed (a loop).
        case loop
    }

    /// A road followed from a point up to the next intersection (or its end).
    public struct Stretch: Sendable, Equatable {
        /// The points walked, from the start to the last node.
        public var path: [Coordinate]
        /// Metres along `path`.
        public var length: Double
        /// The node it ends at.
        public var endNode: Int64
        /// The edge it arrives at `endNode` by.
        public var lastEdge: Int
        public var end: End
        /// The name of the road it starts along.
        public var name: String
        /// The direction of walking on arrival (over the last 10 m).
        public var arrivalBearing: Double
    }

    /// Follows the road from `node` along `leg`, through the nodes where it only continues, to the next
    /// intersection or the end of the road.
    public func follow(from node: Int64, along leg: Leg) -> Stretch {
        follow(start: [], from: node, edge: leg.edgeIndex, name: leg.name)
    }

    /// Follows the road from a point on an edge (`distanceAlong` metres from its `from` node) in one direction
    /// (`forward`: towards its `to` node).
    public func follow(edge index: Int, distanceAlong: Double, forward: Bool) -> Stretch {
        let edge = graph.edges[index]
        let line = Polyline(edge.geometry)
        let total = line.length
        let offset = min(max(distanceAlong, 0), total)
        // The part of the edge still to walk, from the point on it.
        var rest: [Coordinate] = []
        if let here = line.point(atDistance: offset) { rest.append(here) }
        var travelled = 0.0
        for (i, p) in edge.geometry.enumerated() {
            if i > 0 { travelled += edge.geometry[i - 1].distance(to: p) }
            if forward ? travelled > offset : travelled < offset { rest.append(p) }
        }
        if !forward {
            // Points before the offset, walked backwards.
            rest = [rest[0]] + rest.dropFirst().reversed()
        }
        let endNode = forward ? edge.to : edge.from
        return walk(path: rest, arrivedAt: endNode, via: index, visited: [], name: name(ofEdge: index))
    }

    private func follow(start: [Coordinate], from node: Int64, edge: Int, name: String) -> Stretch {
        let points = orientedGeometry(edge: edge, from: node)
        let endNode = graph.edges[edge].from == node ? graph.edges[edge].to : graph.edges[edge].from
        return walk(path: start + points, arrivedAt: endNode, via: edge, visited: [node], name: name)
    }

    /// Walks on from `node` (reached by `edge`) while exactly one other road leaves it.
    private func walk(path start: [Coordinate], arrivedAt node: Int64, via edge: Int, visited: Set<Int64>, name: String) -> Stretch {
        var path = start
        var node = node
        var edge = edge
        var visited = visited
        var length = Polyline(path).length
        var end = End.intersection
        while true {
            let onward = (roadAdjacency[node] ?? []).filter { $0.edgeIndex != edge }
            if onward.isEmpty { end = .deadEnd; break }
            if visited.contains(node) || length > Self.maximumStretch { end = .loop; break }
            var next = onward[0]
            if onward.count > 1 {
                // Nodes a few metres apart (a street meeting both sides of a divided road) are one intersection:
                // straight on through the first of them.
                let direction = Polyline(path).bearing(atDistance: max(length - 10, 0), lookAhead: 10) ?? 0
                guard length < Self.shortestStretch,
                      let straight = legs(at: node).filter({ $0.edgeIndex != edge })
                        .min(by: { abs(Angle.signedDifference($0.bearing, direction)) < abs(Angle.signedDifference($1.bearing, direction)) }),
                      abs(Angle.signedDifference(straight.bearing, direction)) <= Self.aheadHalfAngle
                else { end = .intersection; break }
                next = WalkingGraph.Neighbor(edgeIndex: straight.edgeIndex, node: straight.towards)
            }
            visited.insert(node)
            let points = orientedGeometry(edge: next.edgeIndex, from: node)
            path += points.dropFirst()
            length += graph.edges[next.edgeIndex].length
            edge = next.edgeIndex
            node = next.node
        }
        let line = Polyline(path)
        let arrival = line.bearing(atDistance: max(line.length - 10, 0), lookAhead: 10) ?? 0
        return Stretch(path: path, length: line.length, endNode: node, lastEdge: edge, end: end, name: name, arrivalBearing: arrival)
    }

    // MARK: where the user is

    /// A point on a road edge.
    public struct RoadPoint: Sendable, Equatable {
        public var edgeIndex: Int
        public var coordinate: Coordinate
        /// Metres from the query point.
        public var distance: Double
        /// Metres along the edge from its `from` node.
        public var distanceAlong: Double
        /// The edge's direction at the point, from `from` towards `to`.
        public var bearing: Double
    }

    /// The nearest point on a road within `maxDistance` metres; nil when there is none.
    public func nearestRoadPoint(to c: Coordinate, maxDistance: Double = .infinity) -> RoadPoint? {
        var best: RoadPoint?
        for (i, edge) in graph.edges.enumerated() where Self.isRoad(edge) {
            // A cheap bound first: no point of the edge's box is nearer than the best so far.
            guard let near = Polyline(edge.geometry).nearestPoint(to: c), near.distance <= maxDistance,
                  near.distance < best?.distance ?? .infinity else { continue }
            let line = Polyline(edge.geometry)
            let bearing = line.bearing(atDistance: max(near.distanceAlong - 5, 0), lookAhead: 10) ?? 0
            best = RoadPoint(edgeIndex: i, coordinate: near.coordinate, distance: near.distance,
                             distanceAlong: near.distanceAlong, bearing: bearing)
        }
        return best
    }

    /// Where the road the user walks along leads: from the road point nearest to `c` (within `maxDistance`), in
    /// the direction of `heading`, to the next intersection or the road's end. Standing on a node (within 3 m),
    /// the road leaving it nearest the heading; between nodes, the road must run within 45° of the heading
    /// (either way). Nil when no road fits.
    public func ahead(of c: Coordinate, heading: Double, maxDistance: Double = 20) -> Stretch? {
        guard let point = nearestRoadPoint(to: c, maxDistance: maxDistance) else { return nil }
        let edge = graph.edges[point.edgeIndex]
        for node in [edge.from, edge.to] {
            guard let at = graph.nodes[node]?.coordinate, at.distance(to: point.coordinate) < Self.nodeSnap else { continue }
            let ahead = legs(at: node).filter { abs(Angle.signedDifference($0.bearing, heading)) <= Self.aheadHalfAngle }
            guard let leg = ahead.min(by: { abs(Angle.signedDifference($0.bearing, heading)) < abs(Angle.signedDifference($1.bearing, heading)) })
            else { return nil }
            return follow(from: node, along: leg)
        }
        let difference = abs(Angle.signedDifference(point.bearing, heading))
        guard min(difference, 180 - difference) <= Self.aheadHalfAngle else { return nil }
        return follow(edge: point.edgeIndex, distanceAlong: point.distanceAlong, forward: difference <= 90)
    }

    /// A point this near a node (metres) stands on it.
    static let nodeSnap = 3.0
    /// The road ahead is within this many degrees of the heading.
    public static let aheadHalfAngle = 45.0

    /// The name of the named road within `within` metres of `c` that runs most nearly along `heading` (either way).
    public func alignedRoadName(near c: Coordinate, heading: Double, within: Double) -> String? {
        var best: (name: String, misalignment: Double)?
        for edge in graph.edges where Self.isRoad(edge) {
            guard let name = edge.name, !name.isEmpty, edge.geometry.count > 1,
                  let near = Polyline(edge.geometry).nearestPoint(to: c), near.distance <= within else { continue }
            let a = edge.geometry[near.segmentIndex], b = edge.geometry[near.segmentIndex + 1]
            let d = abs(Angle.signedDifference(a.bearing(to: b), heading))
            let misalignment = min(d, 180 - d)
            if misalignment < best?.misalignment ?? .infinity { best = (name, misalignment) }
        }
        return best?.name
    }

    // MARK: bends

    /// A bend of the road.
    public struct Bend: Sendable, Equatable {
        /// Metres along the stretch.
        public var distance: Double
        /// Degrees turned, positive to the right.
        public var turn: Double
        public var coordinate: Coordinate
    }

    /// The first bend of at least 45° on `stretch` that is at least `minimumDistance` from its start and 15 m
    /// from its end (the direction is measured over 15 m either side).
    public static func firstBend(on stretch: Stretch, minimumDistance: Double = 5) -> Bend? {
        let line = Polyline(stretch.path)
        let total = line.length
        var along = 0.0
        var found: Bend?
        for i in 1..<max(stretch.path.count - 1, 1) {
            along += stretch.path[i - 1].distance(to: stretch.path[i])
            guard along >= minimumDistance, along <= total - bendSpan else { continue }
            if let f = found, along > f.distance + bendSpan { break }
            guard let before = line.bearing(atDistance: max(along - bendSpan, 0), lookAhead: min(bendSpan, along)),
                  let after = line.bearing(atDistance: along, lookAhead: bendSpan) else { continue }
            let turn = Angle.signedDifference(after, before)
            // The sharpest point of the first bend (a bend drawn with several points).
            if abs(turn) >= bendAngle, abs(turn) > abs(found?.turn ?? 0) {
                found = Bend(distance: along, turn: turn, coordinate: stretch.path[i])
            }
        }
        return found
    }
}
