import Foundation
import Geo

/// One road direction leaving an intersection.
public struct IntersectionLeg: Sendable, Hashable {
    /// The road's feature row, when the road is in the database.
    public var roadFeatureID: Int64?
    public var wayID: Int64
    public var name: String?
    /// The way's highway value (residential, footway…).
    public var highway: String?
    /// Degrees clockwise from north, from the intersection towards the point ~25 m along the road.
    public var bearing: Double
    /// +1 when the leg follows the way's node order, -1 when it runs against it.
    public var direction: Int
    public var isRoundabout: Bool
    public var level: LevelClass

    /// The leg's name as spoken: its name, or the generic label of its highway kind.
    public var spokenName: String {
        if let name { return name }
        let label = Categorizer.label(tags: OSMTags([OSMTag(key: "highway", value: highway ?? "road")])) ?? "road"
        return Categorizer.displayName(forLabel: label)
    }
}

/// A place where two or more roads or paths meet.
public struct Intersection: Sendable, Hashable, Identifiable {
    /// The intersection's feature row id.
    public var id: Int64
    /// The shared OSM node.
    public var nodeID: Int64?
    public var coordinate: Coordinate
    public var isRoundabout: Bool
    public var level: LevelClass
    public var legs: [IntersectionLeg]
    /// Metres from the query point.
    public var distance: Double

    /// Distinct road names, in clockwise order of their first leg from north.
    public var roadNames: [String] {
        var names: [String] = []
        for leg in legs.sorted(by: { $0.bearing < $1.bearing }) {
            if let name = leg.name, !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// "Kaivokatu and Keskuskatu", or "Intersection" when no road is named.
    public var displayName: String {
        let names = roadNames
        switch names.count {
        case 0: return isRoundabout ? "Roundabout" : "Intersection"
        case 1: return names[0]
        case 2: return "\(names[0]) and \(names[1])"
        default: return names.dropLast().joined(separator: ", ") + ", and " + names.last!
        }
    }
}
