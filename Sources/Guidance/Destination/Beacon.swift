import Foundation
import Geo

/// What the beacon was set on.
public enum BeaconTarget: Sendable, Hashable, Codable {
    /// A map feature, by its map key ("n123", "w456").
    case place(key: String)
    /// A saved marker.
    case marker(id: UUID)
    /// An arbitrary coordinate.
    case coordinate
    /// Where the user stood when setting it.
    case here
    /// A route waypoint, set by route guidance (which handles its own arrivals).
    case waypoint(routeID: UUID, index: Int)
}

/// The single audio beacon.
public struct Beacon: Sendable, Hashable, Codable {
    public var target: BeaconTarget
    public var name: String
    /// Where the sound is anchored (a place's nearest point or entrance when the beacon was set).
    public var location: Coordinate
    /// The place's outline, when it has one: being inside it counts as arrived.
    public var area: [Coordinate]?
    /// Stay silent until the user is more than this far from the beacon (metres).
    public var delayedStart: Double?

    public init(target: BeaconTarget, name: String, location: Coordinate, area: [Coordinate]? = nil, delayedStart: Double? = nil) {
        self.target = target
        self.name = name
        self.location = location
        self.area = area
        self.delayedStart = delayedStart
    }

    /// Whether `c` lies inside `area` (even-odd rule in degrees, fine at city scale).
    public func areaContains(_ c: Coordinate) -> Bool {
        guard let ring = area, ring.count >= 3 else { return false }
        var inside = false
        var j = ring.count - 1
        for i in 0..<ring.count {
            let a = ring[i], b = ring[j]
            if (a.latitude > c.latitude) != (b.latitude > c.latitude) {
                let x = (b.longitude - a.longitude) * (c.latitude - a.latitude) / (b.latitude - a.latitude) + a.longitude
                if c.longitude < x { inside.toggle() }
            }
            j = i
        }
        return inside
    }
}
