import Foundation
import Geo
import MapData

/// Turns a planned route's geometry into maneuvers: depart, turns (slight / normal / sharp by angle),
/// keep left / right at forks, continue where the street name changes, cross the street at crossing ways
/// (naming the street crossed and its signals), steps, roundabout exit n, arrive. Bends of a path where
/// there is no other way to go are not maneuvers.
public struct ManeuverBuilder: Sendable {
    public let graph: WalkingGraph
    /// Bearings are measured over this many metres before and after a junction.
    public var measure = 12.0
    /// A new street name counts only if the route keeps it for this far.
    public var minimumNameRun = 20.0
    /// Turns closer together than this are merged.
    public var clusterDistance = 12.0

    public init(graph: WalkingGraph) { self.graph = graph }

    public func maneuvers(for route: PlannedRoute) -> [Maneuver] {
        let legs = route.legs
        guard !legs.isEmpty else { return [] }
        let line = route.polyline
        let total = line.length
        var starts: [Double] = []
        var s = 0.0
        for leg in legs { starts.append(s); s += leg.length }
        let scale = total > 0 && s > 0 ? total / s : 1

        var out: [Maneuver] = []
        let departBearing = line.bearing(atDistance: 0, lookAhead: measure) ?? 0
        var currentName = legs.first(where: { !$0.isCrossing })?.spokenName
        out.append(Maneuver(kind: .depart(CompassDirection(bearing: departBearing)), coordinate: line.points.first ?? route.start,
                            distanceAlong: 0, streetName: currentName))

        var j = 1
        while j < legs.count {
            let prev = legs[j - 1], next = legs[j]
            let at = starts[j] * scale
            let node = next.fromNode
            let coordinate = next.geometry.first ?? route.start
            let inBearing = bearing(line, from: at - measure, to: at) ?? 0
            let outBearing = bearing(line, from: at, to: at + measure) ?? inBearing
            let angle = Angle.signedDifference(outBearing, inBearing)

            if next.isCrossing && !prev.isCrossing {
                var k = j
                var nodes: [Int64] = []
                var signals = CrossingSignals.none
                while k < legs.count && legs[k].isCrossing {
                    nodes.append(legs[k].fromNode)
                    nodes.append(legs[k].toNode)
                    if legs[k].hasSignalSound { signals = .soundSignals }
                    else if legs[k].hasTrafficSignals && signals == .none { signals = .trafficSignals }
                    k += 1
                }
                let crossed = crossedStreet(at: nodes, excluding: Set(legs[j..<k].map(\.edgeIndex)))
                out.append(Maneuver(kind: .cross, coordinate: coordinate, distanceAlong: at, crossedStreet: crossed,
                                    signals: signals, angle: angle))
                j = k
                continue
            }
            if next.isSteps && !prev.isSteps {
                out.append(Maneuver(kind: .steps, coordinate: coordinate, distanceAlong: at, angle: angle))
                var k = j
                while k < legs.count && legs[k].isSteps { k += 1 }
                j = k
                continue
            }
            if next.isRoundabout && !prev.isRoundabout {
                var k = j
                var exit = 0
                while k < legs.count && legs[k].isRoundabout {
                    let n = legs[k].toNode
                    let hasExit = graph.neighbors(of: n).contains { nb in
                        let e = graph.edges[nb.edgeIndex]
                        return !(legs[k].wayID == e.wayID) && !e.isCrossing && nb.edgeIndex != legs[k].edgeIndex
                    }
                    if hasExit { exit += 1 }
                    k += 1
                }
                let after = k < legs.count ? legs[k].spokenName : nil
                out.append(Maneuver(kind: .roundabout(exit: max(exit, 1)), coordinate: coordinate, distanceAlong: at,
                                    streetName: after != currentName ? after : nil, angle: angle))
                if let after { currentName = after }
                j = k + 1
                continue
            }

            let nextName = next.isCrossing ? nil : next.spokenName
            let nameChanges = nextName != nil && nextName != currentName && nameRun(legs, from: j) >= minimumNameRun
            let choices = node >= 0 ? Set(graph.neighbors(of: node).map(\.node)).count : 2
            var kind = ManeuverKind.classify(angle: angle)
            if choices >= 3 {
                let alternatives = alternativeAngles(at: node, inBearing: inBearing, taking: next.edgeIndex, arrivingBy: prev.edgeIndex)
                if abs(angle) < 45, let alt = alternatives.first(where: { abs($0) < 45 && abs($0 - angle) < 40 }) {
                    kind = .keep(angle < alt ? .left : .right)
                } else if case .slight = kind, !alternatives.contains(where: { abs($0) < 60 }) {
                    // The way simply bends and nothing else goes ahead: not a decision.
                    kind = .continue
                }
            } else if case .continue = kind {
                // no alternative: nothing to announce unless the name changes
            } else {
                kind = .continue
            }
            if case .continue = kind, !nameChanges {
                j += 1
                continue
            }
            out.append(Maneuver(kind: kind, coordinate: coordinate, distanceAlong: at, streetName: nameChanges ? nextName : nil,
                                angle: angle))
            if nameChanges { currentName = nextName }
            j += 1
        }
        out = [out[0]] + mergeClusters(Array(out.dropFirst()), line: line)
        out.append(Maneuver(kind: .arrive, coordinate: line.points.last ?? route.destination, distanceAlong: total,
                            destinationName: route.destinationName))
        return out
    }

    func bearing(_ line: Polyline, from a: Double, to b: Double) -> Double? {
        guard let p = line.point(atDistance: max(a, 0)), let q = line.point(atDistance: b), p.distance(to: q) > 0.5 else { return nil }
        return p.bearing(to: q)
    }

    /// How far the route keeps the name of `legs[j]` (crossings in between do not interrupt it).
    func nameRun(_ legs: [RouteLeg], from j: Int) -> Double {
        guard let name = legs[j].spokenName else { return 0 }
        var d = 0.0
        for leg in legs[j...] {
            if leg.isCrossing { continue }
            guard leg.spokenName == name else { break }
            d += leg.length
        }
        return d
    }

    /// Turn angles (relative to the arrival direction) of the other ways leaving `node`.
    func alternativeAngles(at node: Int64, inBearing: Double, taking: Int, arrivingBy: Int) -> [Double] {
        var out: [Double] = []
        for nb in graph.neighbors(of: node) where nb.edgeIndex != taking && nb.edgeIndex != arrivingBy {
            let e = graph.edges[nb.edgeIndex]
            var geometry = e.geometry
            if e.to == node && e.from != node { geometry.reverse() }
            guard let b = Polyline(geometry).bearing(atDistance: 0, lookAhead: measure) else { continue }
            out.append(Angle.signedDifference(b, inBearing))
        }
        return out
    }

    /// Turns closer together than `clusterDistance` are one maneuver: the jogs of a sidewalk into a
    /// pedestrian street become a single "turn left onto Aleksanterinkatu", judged by the net change of
    /// direction. Crossings, steps and roundabouts are kept as they are.
    func mergeClusters(_ ms: [Maneuver], line: Polyline) -> [Maneuver] {
        func isTurn(_ m: Maneuver) -> Bool {
            switch m.kind {
            case .continue, .slight, .turn, .sharp, .uTurn, .keep: return true
            default: return false
            }
        }
        var out: [Maneuver] = []
        var i = 0
        while i < ms.count {
            guard isTurn(ms[i]) else { out.append(ms[i]); i += 1; continue }
            var k = i
            while k + 1 < ms.count && isTurn(ms[k + 1]) && ms[k + 1].distanceAlong - ms[k].distanceAlong < clusterDistance { k += 1 }
            if k == i { out.append(ms[i]); i += 1; continue }
            let first = ms[i], last = ms[k]
            let before = bearing(line, from: first.distanceAlong - measure, to: first.distanceAlong) ?? 0
            let after = bearing(line, from: last.distanceAlong, to: last.distanceAlong + measure) ?? before
            let net = Angle.signedDifference(after, before)
            var merged = first
            merged.angle = net
            merged.kind = ManeuverKind.classify(angle: net)
            if case .slight(let side) = merged.kind, ms[i...k].contains(where: { if case .keep = $0.kind { true } else { false } }) {
                merged.kind = .keep(side)
            }
            merged.streetName = ms[i...k].last(where: { $0.streetName != nil })?.streetName
            if case .continue = merged.kind, merged.streetName == nil {
                // The jogs cancel out: nothing to say.
            } else {
                out.append(merged)
            }
            i = k + 1
        }
        return out
    }

    /// The name of the street a crossing crosses: a named street edge at one of the crossing's nodes.
    func crossedStreet(at nodes: [Int64], excluding: Set<Int>) -> String? {
        var counts: [String: Int] = [:]
        for n in nodes where n >= 0 {
            for nb in graph.neighbors(of: n) where !excluding.contains(nb.edgeIndex) {
                let e = graph.edges[nb.edgeIndex]
                guard let name = e.name, !e.isCrossing, RoutePlanner.streets.contains(e.highway) else { continue }
                counts[name, default: 0] += 1
            }
        }
        return counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
    }
}
