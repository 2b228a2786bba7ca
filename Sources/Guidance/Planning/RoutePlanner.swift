import Foundation
import Geo
import GRDB
import MapData

/// One piece of a planned route: a walking-graph edge, or part of one at either end, in the direction walked.
public struct RouteLeg: Sendable, Hashable {
    public var edgeIndex: Int
    public var wayID: Int64
    /// Graph node ids; ``RoutePlanner/startNode`` and ``RoutePlanner/goalNode`` at the ends.
    public var fromNode: Int64
    public var toNode: Int64
    public var name: String?
    /// For an unnamed sidewalk or path: the street it runs alongside.
    public var alongStreet: String?
    public var highway: String
    public var isCrossing: Bool
    public var hasTrafficSignals: Bool
    public var hasSignalSound: Bool
    public var isRoundabout: Bool
    public var level: LevelClass
    public var geometry: [Coordinate]
    public var length: Double

    public var isSteps: Bool { highway == "steps" }
    /// The name to speak for this leg: its own, or the street it runs along.
    public var spokenName: String? { name ?? alongStreet }
}

/// A walking route from a start to a destination.
public struct PlannedRoute: Sendable, Hashable {
    public var legs: [RouteLeg]
    public var start: Coordinate
    public var destination: Coordinate
    public var destinationName: String?
    /// Sum of the weighted edge costs (metres-equivalent).
    public var cost: Double

    public var polyline: Polyline {
        var points: [Coordinate] = []
        for leg in legs {
            for p in leg.geometry where points.last != p { points.append(p) }
        }
        return Polyline(points)
    }

    public var length: Double { legs.reduce(0) { $0 + $1.length } }
}

/// A* over the walking graph (straight-line heuristic, which the cost model never undercuts) with costs
/// that prefer footways, pedestrian streets and signalled crossings, and penalise steps, walking along
/// busy roads without a mapped sidewalk, and crossings of major roads without signals.
public final class RoutePlanner: Sendable {
    public static let startNode: Int64 = -1
    public static let goalNode: Int64 = -2

    public let graph: WalkingGraph
    let roundaboutWays: Set<Int64>
    /// Nodes on a primary/secondary/tertiary/trunk edge.
    let majorRoadNodes: Set<Int64>
    /// Named vehicular edges by grid cell, for naming sidewalks.
    let streetGrid: [GridCell: [Int]]

    struct GridCell: Hashable, Sendable { var x: Int32; var y: Int32 }
    static let cellDegrees = 0.0005

    static let majorRoads: Set<String> = ["trunk", "trunk_link", "primary", "primary_link", "secondary", "secondary_link",
                                          "tertiary", "tertiary_link"]
    static let streets: Set<String> = majorRoads.union(["residential", "unclassified", "living_street", "service",
                                                        "pedestrian", "road"])

    public init(graph: WalkingGraph, roundaboutWays: Set<Int64> = []) {
        self.graph = graph
        self.roundaboutWays = roundaboutWays
        var major: Set<Int64> = []
        var grid: [GridCell: [Int]] = [:]
        for (i, e) in graph.edges.enumerated() {
            if Self.majorRoads.contains(e.highway) { major.insert(e.from); major.insert(e.to) }
            if e.name != nil, Self.streets.contains(e.highway), !e.isCrossing {
                var cells: Set<GridCell> = []
                for p in Self.densify(e.geometry, step: 20) { cells.insert(Self.cell(p)) }
                for c in cells { grid[c, default: []].append(i) }
            }
        }
        majorRoadNodes = major
        streetGrid = grid
    }

    /// Loads the walking graph and the roundabout ways of a map database.
    public static func load(mapPath: String) throws -> RoutePlanner {
        let graph = try WalkingGraph.load(from: mapPath)
        let queue = try MapStore.openReadOnly(path: mapPath)
        defer { try? queue.close() }
        let keys = try queue.read { db in
            try String.fetchAll(db, sql: "SELECT key FROM features WHERE is_roundabout = 1 AND key LIKE 'w%'")
        }
        return RoutePlanner(graph: graph, roundaboutWays: Set(keys.compactMap { Int64($0.dropFirst()) }))
    }

    static func cell(_ c: Coordinate) -> GridCell {
        GridCell(x: Int32((c.longitude / cellDegrees).rounded(.down)), y: Int32((c.latitude / cellDegrees).rounded(.down)))
    }

    static func densify(_ pts: [Coordinate], step: Double) -> [Coordinate] {
        guard pts.count > 1 else { return pts }
        var out: [Coordinate] = [pts[0]]
        for i in 1..<pts.count {
            let d = pts[i - 1].distance(to: pts[i])
            let n = Int((d / step).rounded(.up))
            if n > 1 {
                for k in 1..<n {
                    let t = Double(k) / Double(n)
                    out.append(Coordinate(latitude: pts[i - 1].latitude + (pts[i].latitude - pts[i - 1].latitude) * t,
                                          longitude: pts[i - 1].longitude + (pts[i].longitude - pts[i - 1].longitude) * t))
                }
            }
            out.append(pts[i])
        }
        return out
    }

    // MARK: costs

    /// Multiplier on length by kind of way.
    static func lengthFactor(_ e: WalkingGraph.Edge) -> Double {
        var f: Double
        switch e.highway {
        case "footway", "pedestrian", "path", "living_street", "crossing": f = 1.0
        case "steps": f = 1.6
        case "platform", "corridor": f = 1.2
        case "cycleway", "track", "bridleway": f = 1.15
        case "residential", "unclassified", "service", "road": f = 1.15
        default: f = majorRoads.contains(e.highway) ? 1.35 : 1.2
        }
        switch e.level {
        case .underground, .indoor: f *= 1.4
        case .elevated, .ground: break
        }
        return f
    }

    /// Fixed extra cost of an edge (metres-equivalent).
    func penalty(_ e: WalkingGraph.Edge) -> Double {
        var p = 0.0
        if e.isSteps { p += 8 }
        if e.isCrossing {
            let major = majorRoadNodes.contains(e.from) || majorRoadNodes.contains(e.to)
            if e.hasSignalSound { p += 2 }
            else if e.hasTrafficSignals { p += 4 }
            else { p += major ? 40 : 10 }
            // A crossing way is split where it meets the road: each half carries half.
            p /= 2
        }
        return p
    }

    func cost(_ i: Int, fraction: Double = 1) -> Double {
        let e = graph.edges[i]
        return (e.length * Self.lengthFactor(e) + penalty(e)) * fraction
    }

    // MARK: snapping

    struct Snap {
        var edgeIndex: Int
        var point: Coordinate
        /// Metres along the edge (in its own direction).
        var along: Double
        var distance: Double
    }

    /// The nearest point of the walking network to `c`, preferring ground-level ways.
    func snap(_ c: Coordinate, maxDistance: Double = 300) -> Snap? {
        var best: (snap: Snap, score: Double)?
        let dLat = maxDistance / 111_000
        for (i, e) in graph.edges.enumerated() {
            guard let first = e.geometry.first, abs(first.latitude - c.latitude) < dLat + e.length / 111_000 else { continue }
            guard let n = Polyline(e.geometry).nearestPoint(to: c), n.distance <= maxDistance else { continue }
            var score = n.distance
            if e.level != .ground { score += 15 }
            if e.isCrossing { score += 5 }
            if best == nil || score < best!.score {
                best = (Snap(edgeIndex: i, point: n.coordinate, along: n.distanceAlong, distance: n.distance), score)
            }
        }
        return best?.snap
    }

    // MARK: search

    struct Arc {
        var to: Int64
        var edgeIndex: Int
        var reversed: Bool
        /// Portion of the edge in its own direction, metres.
        var startAlong: Double
        var endAlong: Double
        var cost: Double
    }

    struct HeapItem { var f: Double; var node: Int64 }

    /// Plans a walking route; nil when either end is off the network or they are not connected.
    public func plan(from start: Coordinate, to destination: Coordinate, destinationName: String? = nil) -> PlannedRoute? {
        guard let s = snap(start), let g = snap(destination) else { return nil }
        let sEdge = graph.edges[s.edgeIndex], gEdge = graph.edges[g.edgeIndex]

        func arcs(from node: Int64) -> [Arc] {
            var out: [Arc] = []
            if node == Self.startNode {
                let e = sEdge
                if !e.isOneway && s.along > 0 {
                    out.append(Arc(to: e.from, edgeIndex: s.edgeIndex, reversed: true, startAlong: 0, endAlong: s.along,
                                   cost: cost(s.edgeIndex, fraction: s.along / max(e.length, 0.01))))
                }
                out.append(Arc(to: e.to, edgeIndex: s.edgeIndex, reversed: false, startAlong: s.along, endAlong: e.length,
                               cost: cost(s.edgeIndex, fraction: (e.length - s.along) / max(e.length, 0.01))))
                if s.edgeIndex == g.edgeIndex && (g.along >= s.along || !e.isOneway) {
                    let reversed = g.along < s.along
                    out.append(Arc(to: Self.goalNode, edgeIndex: s.edgeIndex, reversed: reversed,
                                   startAlong: min(s.along, g.along), endAlong: max(s.along, g.along),
                                   cost: cost(s.edgeIndex, fraction: abs(g.along - s.along) / max(e.length, 0.01))))
                }
                return out
            }
            for n in graph.neighbors(of: node) {
                let e = graph.edges[n.edgeIndex]
                out.append(Arc(to: n.node, edgeIndex: n.edgeIndex, reversed: e.from != node, startAlong: 0, endAlong: e.length,
                               cost: cost(n.edgeIndex)))
            }
            // Into the goal along the goal's edge.
            if node == gEdge.from {
                out.append(Arc(to: Self.goalNode, edgeIndex: g.edgeIndex, reversed: false, startAlong: 0, endAlong: g.along,
                               cost: cost(g.edgeIndex, fraction: g.along / max(gEdge.length, 0.01))))
            }
            if node == gEdge.to && !gEdge.isOneway {
                out.append(Arc(to: Self.goalNode, edgeIndex: g.edgeIndex, reversed: true, startAlong: g.along, endAlong: gEdge.length,
                               cost: cost(g.edgeIndex, fraction: (gEdge.length - g.along) / max(gEdge.length, 0.01))))
            }
            return out
        }

        func coordinate(_ node: Int64) -> Coordinate {
            if node == Self.startNode { return s.point }
            if node == Self.goalNode { return g.point }
            return graph.nodes[node]?.coordinate ?? g.point
        }

        var best: [Int64: Double] = [Self.startNode: 0]
        var cameBy: [Int64: (from: Int64, arc: Arc)] = [:]
        var closed: Set<Int64> = []
        var heap = BinaryHeap<HeapItem> { $0.f < $1.f }
        heap.push(HeapItem(f: s.point.distance(to: g.point), node: Self.startNode))
        while let item = heap.pop() {
            let node = item.node
            if node == Self.goalNode { break }
            guard closed.insert(node).inserted else { continue }
            let base = best[node]!
            for arc in arcs(from: node) {
                let c = base + arc.cost
                if c < best[arc.to] ?? .infinity {
                    best[arc.to] = c
                    cameBy[arc.to] = (node, arc)
                    heap.push(HeapItem(f: c + coordinate(arc.to).distance(to: g.point), node: arc.to))
                }
            }
        }
        guard let total = best[Self.goalNode] else { return nil }
        var arcsInOrder: [(from: Int64, arc: Arc)] = []
        var node = Self.goalNode
        while node != Self.startNode, let step = cameBy[node] {
            arcsInOrder.append(step)
            node = step.from
        }
        arcsInOrder.reverse()
        let legs = arcsInOrder.compactMap { makeLeg(from: $0.from, arc: $0.arc) }
        return PlannedRoute(legs: legs, start: start, destination: destination, destinationName: destinationName, cost: total)
    }

    func makeLeg(from node: Int64, arc: Arc) -> RouteLeg? {
        let e = graph.edges[arc.edgeIndex]
        var geometry = Self.cut(e.geometry, from: arc.startAlong, to: arc.endAlong)
        if arc.reversed { geometry.reverse() }
        guard geometry.count >= 2 else { return nil }
        let length = Polyline(geometry).length
        guard length > 0.05 else { return nil }
        var leg = RouteLeg(edgeIndex: arc.edgeIndex, wayID: e.wayID, fromNode: node, toNode: arc.to, name: e.name,
                           alongStreet: nil, highway: e.highway, isCrossing: e.isCrossing, hasTrafficSignals: e.hasTrafficSignals,
                           hasSignalSound: e.hasSignalSound, isRoundabout: roundaboutWays.contains(e.wayID), level: e.level,
                           geometry: geometry, length: length)
        if leg.name == nil && !leg.isCrossing { leg.alongStreet = streetAlongside(geometry) }
        return leg
    }

    /// Part of a line between two distances along it.
    static func cut(_ pts: [Coordinate], from a: Double, to b: Double) -> [Coordinate] {
        let line = Polyline(pts)
        guard let start = line.point(atDistance: a), let end = line.point(atDistance: b) else { return [] }
        var out = [start]
        var travelled = 0.0
        for i in 1..<pts.count {
            travelled += pts[i - 1].distance(to: pts[i])
            if travelled > a + 0.01 && travelled < b - 0.01 { out.append(pts[i]) }
        }
        out.append(end)
        return out
    }

    /// The named street that an unnamed path runs alongside: within 20 m of most of its length and
    /// roughly parallel.
    func streetAlongside(_ geometry: [Coordinate]) -> String? {
        let samples = Self.densify(geometry, step: 10)
        guard samples.count >= 2 else { return nil }
        var votes: [String: Int] = [:]
        var total = 0
        for k in 0..<(samples.count - 1) {
            let p = samples[k], bearing = samples[k].bearing(to: samples[k + 1])
            guard samples[k].distance(to: samples[k + 1]) > 0.5 else { continue }
            total += 1
            var best: (name: String, d: Double)?
            let c = Self.cell(p)
            var seen: Set<Int> = []
            for dx in -1...1 {
                for dy in -1...1 {
                    for i in streetGrid[GridCell(x: c.x + Int32(dx), y: c.y + Int32(dy))] ?? [] where seen.insert(i).inserted {
                        let e = graph.edges[i]
                        let line = Polyline(e.geometry)
                        guard let n = line.nearestPoint(to: p), n.distance <= 20,
                              let eb = line.bearing(atDistance: n.distanceAlong, lookAhead: 5) else { continue }
                        let diff = abs(Angle.signedDifference(eb, bearing))
                        guard diff < 25 || diff > 155 else { continue }
                        if best == nil || n.distance < best!.d { best = (e.name!, n.distance) }
                    }
                }
            }
            if let best { votes[best.name, default: 0] += 1 }
        }
        guard total > 0, let top = votes.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }),
              Double(top.value) >= Double(total) * 0.6 else { return nil }
        return top.key
    }
}

/// A minimal binary heap.
struct BinaryHeap<Element> {
    private var items: [Element] = []
    let less: (Element, Element) -> Bool

    init(less: @escaping (Element, Element) -> Bool) { self.less = less }

    var isEmpty: Bool { items.isEmpty }

    mutating func push(_ e: Element) {
        items.append(e)
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard less(items[i], items[parent]) else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() -> Element? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < items.count && less(items[l], items[m]) { m = l }
            if r < items.count && less(items[r], items[m]) { m = r }
            if m == i { break }
            items.swapAt(i, m)
            i = m
        }
        return top
    }
}
