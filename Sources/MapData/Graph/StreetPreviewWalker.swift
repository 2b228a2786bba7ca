import Foundation
import Geo

/// Street Preview's virtual walker (spec §7.4): it stands on a road facing along it and moves from intersection to
/// intersection on the ``RoadNetwork`` — forward along the road it faces (through bends), turning to the next road
/// at the intersection clockwise or anticlockwise, and back to where it stood before.
public struct StreetPreviewWalker: Sendable {
    /// Where the walker stands and which way it faces.
    public struct Position: Sendable, Equatable {
        public var coordinate: Coordinate
        /// Degrees from north.
        public var heading: Double
        /// The node it stands on (an intersection or a road's end); nil on the start point along a road.
        public var node: Int64?
        /// On a road between nodes: the edge and metres along it from its `from` node.
        public var edge: EdgePoint?
        /// The road it faces along.
        public var road: String
    }

    /// A point along an edge.
    public struct EdgePoint: Sendable, Equatable {
        public var index: Int
        /// Metres from the edge's `from` node.
        public var distanceAlong: Double
    }

    /// What "go forward" did.
    public enum Move: Sendable, Equatable {
        /// Walked this stretch; the walker now stands at its end.
        case moved(RoadNetwork.Stretch)
        /// No road leaves ahead (within 45° of the heading); the walker did not move.
        case noRoadAhead
    }

    public enum Turn: Sendable, Equatable { case left, right, around }

    /// "Go forward" takes the road within this many degrees of the heading.
    public static let aheadHalfAngle = RoadNetwork.aheadHalfAngle
    /// "Turn left/right" skips roads within this many degrees of straight ahead.
    public static let turnMinimumAngle = 20.0
    /// Places kept for "go back".
    public static let backLimit = 50

    public let network: RoadNetwork
    public private(set) var position: Position
    private var previous: [Position] = []

    /// Stands on the road nearest to `coordinate` (within `maxDistance` metres), facing along it in the direction
    /// nearer to `heading` (north when nil); nil when no road is that near.
    public init?(network: RoadNetwork, near coordinate: Coordinate, heading: Double?, maxDistance: Double = 500) {
        guard let point = network.nearestRoadPoint(to: coordinate, maxDistance: maxDistance) else { return nil }
        self.network = network
        let forward = abs(Angle.signedDifference(point.bearing, heading ?? 0)) <= 90
        position = Position(coordinate: point.coordinate, heading: forward ? point.bearing : Angle.normalized(point.bearing + 180),
                            node: nil, edge: EdgePoint(index: point.edgeIndex, distanceAlong: point.distanceAlong), road: network.name(ofEdge: point.edgeIndex))
    }

    /// The road directions where the walker stands (both ways of the road between nodes), clockwise from north.
    public var legs: [RoadNetwork.Leg] {
        if let node = position.node { return network.legs(at: node) }
        guard let edge = position.edge else { return [] }
        let e = network.graph.edges[edge.index]
        let name = network.name(ofEdge: edge.index)
        let along = Polyline(e.geometry).bearing(atDistance: max(edge.distanceAlong - 5, 0), lookAhead: 10) ?? position.heading
        return [RoadNetwork.Leg(edgeIndex: edge.index, towards: e.to, bearing: along, name: name),
                RoadNetwork.Leg(edgeIndex: edge.index, towards: e.from, bearing: Angle.normalized(along + 180), name: name)]
    }

    /// The road that "go forward" would take: the one nearest the heading, within 45°.
    public var legAhead: RoadNetwork.Leg? {
        legs.filter { abs(Angle.signedDifference($0.bearing, position.heading)) <= Self.aheadHalfAngle }
            .min { abs(Angle.signedDifference($0.bearing, position.heading)) < abs(Angle.signedDifference($1.bearing, position.heading)) }
    }

    /// Where going forward leads, without moving.
    public var stretchAhead: RoadNetwork.Stretch? {
        guard let leg = legAhead else { return nil }
        if let node = position.node { return network.follow(from: node, along: leg) }
        guard let edge = position.edge else { return nil }
        return network.follow(edge: edge.index, distanceAlong: edge.distanceAlong, forward: leg.towards == network.graph.edges[edge.index].to)
    }

    /// Walks along the road ahead to the next intersection or the end of the road.
    public mutating func forward() -> Move {
        guard let stretch = stretchAhead else { return .noRoadAhead }
        remember()
        position = Position(coordinate: network.graph.nodes[stretch.endNode]?.coordinate ?? stretch.path.last ?? position.coordinate,
                            heading: stretch.arrivalBearing, node: stretch.endNode, edge: nil,
                            road: network.name(ofEdge: stretch.lastEdge))
        return .moved(stretch)
    }

    /// Faces the next road clockwise (right) or anticlockwise (left) from the heading, skipping the road straight
    /// ahead, or the road nearest behind (around). Returns the road now faced; nil when there is no other road.
    public mutating func turn(_ side: Turn) -> RoadNetwork.Leg? {
        let heading = position.heading
        func relative(_ leg: RoadNetwork.Leg) -> Double { Angle.relative(bearing: leg.bearing, heading: heading) }
        let candidates = legs.filter { relative($0) > Self.turnMinimumAngle && relative($0) < 360 - Self.turnMinimumAngle }
        let chosen: RoadNetwork.Leg?
        switch side {
        case .right: chosen = candidates.min { relative($0) < relative($1) }
        case .left: chosen = candidates.max { relative($0) < relative($1) }
        case .around: chosen = candidates.min { abs(relative($0) - 180) < abs(relative($1) - 180) }
        }
        guard let chosen else { return nil }
        position.heading = chosen.bearing
        position.road = chosen.name
        return chosen
    }

    /// Returns to where the walker stood before its last move, facing as it did then; false when it has not moved.
    public mutating func back() -> Bool {
        guard let last = previous.popLast() else { return false }
        position = last
        return true
    }

    /// Whether "go back" has somewhere to go.
    public var canGoBack: Bool { !previous.isEmpty }

    private mutating func remember() {
        previous.append(position)
        if previous.count > Self.backLimit { previous.removeFirst(previous.count - Self.backLimit) }
    }
}
