import Foundation
import Geo

/// A way's resolved vertices: the node ids that exist in the file and their coordinates
/// (missing nodes of a bbox cut are left out).
struct ResolvedWay {
    var wayIndex: Int
    var nodeIDs: [Int64]
    var coords: [Coordinate]
}

enum LegGeometry {
    /// Soundscape measures a road's direction from an intersection to the point this far along it.
    static let measureDistance = 25.0

    /// Bearing from `coords[index]` towards the point `measureDistance` metres along the line in
    /// `direction` (+1 forwards, -1 backwards); the far end when the line is shorter.
    static func bearing(_ coords: [Coordinate], from index: Int, direction: Int) -> Double? {
        let origin = coords[index]
        var previous = origin
        var travelled = 0.0
        var i = index + direction
        var target: Coordinate?
        while i >= 0 && i < coords.count {
            let next = coords[i]
            let d = previous.distance(to: next)
            if travelled + d >= measureDistance && d > 0 {
                let t = (measureDistance - travelled) / d
                target = Coordinate(latitude: previous.latitude + (next.latitude - previous.latitude) * t,
                                    longitude: previous.longitude + (next.longitude - previous.longitude) * t)
                break
            }
            travelled += d
            previous = next
            i += direction
        }
        let end = target ?? previous
        if end == origin { return nil }
        return origin.bearing(to: end)
    }
}

struct PendingLeg {
    var wayID: Int64
    var name: String?
    var highway: String
    var bearing: Double
    var direction: Int
    var isRoundabout: Bool
    var level: LevelClass
}

struct PendingIntersection {
    var nodeID: Int64
    var coordinate: Coordinate
    var wayIDs: [Int64]
    var legs: [PendingLeg]
    var isRoundabout: Bool
    var level: LevelClass
}

struct PendingWalkEdge {
    var from: Int64
    var to: Int64
    var wayID: Int64
    var name: String?
    var highway: String
    var length: Double
    var isCrossing: Bool
    var trafficSignals: Bool
    var signalSound: Bool
    var level: LevelClass
    var onewayFoot: Bool
    var coords: [Coordinate]
}

struct NodeFlags: OptionSet, Hashable {
    let rawValue: UInt8
    static let crossing = NodeFlags(rawValue: 1)
    static let trafficSignals = NodeFlags(rawValue: 2)
    static let signalSound = NodeFlags(rawValue: 4)
    static let entrance = NodeFlags(rawValue: 8)

    static func from(_ tags: OSMTags) -> NodeFlags {
        var flags: NodeFlags = []
        let highway = tags["highway"]
        if highway == "crossing" || tags["crossing"] != nil || tags["railway"] == "crossing" { flags.insert(.crossing) }
        if highway == "traffic_signals" || tags["crossing"] == "traffic_signals" { flags.insert(.trafficSignals) }
        if tags["traffic_signals:sound"] == "yes" { flags.insert(.signalSound) }
        if let entrance = tags["entrance"], entrance != "no" { flags.insert(.entrance) }
        return flags
    }
}

/// Synthesises intersections and the walking graph from highway ways.
enum NetworkBuilder {
    struct TravelWay {
        var resolved: ResolvedWay
        var wayID: Int64
        var tags: OSMTags
        var highway: String
    }

    static func intersections(_ ways: [TravelWay]) -> [PendingIntersection] {
        // node id → (way index in `ways`, vertex position)
        var incidence: [Int64: [(Int, Int)]] = [:]
        incidence.reserveCapacity(ways.count * 8)
        for (w, way) in ways.enumerated() where FeatureRules.joinsIntersections(way.tags, highway: way.highway) {
            for (position, node) in way.resolved.nodeIDs.enumerated() {
                incidence[node, default: []].append((w, position))
            }
        }
        var result: [PendingIntersection] = []
        for (node, uses) in incidence where uses.count >= 2 {
            var distinctWays: [Int] = []
            for (w, _) in uses where !distinctWays.contains(w) { distinctWays.append(w) }
            guard distinctWays.count >= 2 else { continue } // a way meeting itself is not an intersection
            var legs: [PendingLeg] = []
            var coordinate: Coordinate?
            for (w, position) in uses {
                let way = ways[w]
                let coords = way.resolved.coords
                coordinate = coords[position]
                let isRoundabout = ["roundabout", "circular"].contains(way.tags["junction"] ?? "")
                let level = LevelClass.classify(way.tags)
                for direction in [1, -1] {
                    // (A ring's closing vertex repeats its first one; the bounds check below gives
                    // each of them the one direction it has.)
                    let next = position + direction
                    guard next >= 0 && next < coords.count,
                          let bearing = LegGeometry.bearing(coords, from: position, direction: direction) else { continue }
                    legs.append(PendingLeg(wayID: way.wayID, name: way.tags["name"], highway: way.highway,
                                           bearing: bearing, direction: direction, isRoundabout: isRoundabout,
                                           level: level))
                }
            }
            // Two ways joined end to end are one road continuing, not an intersection.
            guard legs.count >= 3, let coordinate else { continue }
            let levels = legs.map(\.level)
            result.append(PendingIntersection(
                nodeID: node, coordinate: coordinate, wayIDs: distinctWays.map { ways[$0].wayID },
                legs: legs, isRoundabout: legs.contains { $0.isRoundabout },
                level: levels.contains(.ground) ? .ground : levels[0]))
        }
        result.sort { $0.nodeID < $1.nodeID }
        return result
    }

    static func walkingGraph(_ ways: [TravelWay], nodeFlags: [Int64: NodeFlags])
        -> (nodes: [(Int64, Coordinate, NodeFlags)], edges: [PendingWalkEdge]) {
        let walkable = ways.filter { FeatureRules.isWalkable($0.tags, highway: $0.highway) && $0.resolved.coords.count >= 2 }
        var useCount: [Int64: Int] = [:]
        for way in walkable {
            for node in way.resolved.nodeIDs { useCount[node, default: 0] += 1 }
        }
        var vertices: [Int64: (Coordinate, NodeFlags)] = [:]
        var edges: [PendingWalkEdge] = []
        for way in walkable {
            let ids = way.resolved.nodeIDs, coords = way.resolved.coords
            let wayCrossing = way.tags["footway"] == "crossing" || way.highway == "crossing" || way.tags["crossing"] != nil
            let waySignals = way.tags["crossing"] == "traffic_signals"
            let waySound = way.tags["traffic_signals:sound"] == "yes"
            let level = LevelClass.classify(way.tags)
            let oneway = way.tags["oneway:foot"] == "yes"
            var start = 0
            var length = 0.0
            var edgeFlags: NodeFlags = []
            for i in 0..<ids.count {
                if i > 0 { length += coords[i - 1].distance(to: coords[i]) }
                let flags = nodeFlags[ids[i]] ?? []
                let isVertex = i == 0 || i == ids.count - 1 || (useCount[ids[i]] ?? 0) > 1
                    || flags.contains(.crossing) || flags.contains(.trafficSignals)
                guard isVertex else { edgeFlags.formUnion(flags); continue }
                vertices[ids[i]] = (coords[i], flags)
                if i > start {
                    let endFlags = (nodeFlags[ids[start]] ?? []).union(flags).union(edgeFlags)
                    edges.append(PendingWalkEdge(
                        from: ids[start], to: ids[i], wayID: way.wayID, name: way.tags["name"], highway: way.highway,
                        length: length, isCrossing: wayCrossing,
                        trafficSignals: waySignals || (wayCrossing && endFlags.contains(.trafficSignals)),
                        signalSound: waySound || (wayCrossing && endFlags.contains(.signalSound)),
                        level: level, onewayFoot: oneway, coords: Array(coords[start...i])))
                }
                start = i
                length = 0
                edgeFlags = []
            }
        }
        let nodes = vertices.map { ($0.key, $0.value.0, $0.value.1) }.sorted { $0.0 < $1.0 }
        return (nodes, edges)
    }
}
