import Foundation
import Geo

/// How the user's heading was obtained, which decides the verb of location callouts
/// ("Facing north", "Heading north", "Traveling north"; spec §3.1).
public enum HeadingKind: String, Sendable, Equatable {
    /// From a compass, a head tracker or the user's own word.
    case facing
    /// From the GPS course while walking.
    case walking
    /// From the GPS course in a vehicle.
    case traveling
}

/// Everything a callout needs to turn itself into words at the moment it is played: where the user is then,
/// where they face, how precise the position is, and the phrase table.
public struct CalloutContext: Sendable {
    public var location: Coordinate?
    /// The heading used to describe things ("collection" heading), degrees true.
    public var heading: Double?
    public var headingKind: HeadingKind
    /// GPS horizontal accuracy in metres.
    public var accuracy: Double?
    public var inVehicle: Bool
    /// True when the callout is played again by "repeat"; it then speaks from `location`, which is where the
    /// user was when they asked.
    public var isRepeat: Bool
    public var phrasing: Phrasing
    public var now: Date

    public init(location: Coordinate?, heading: Double?, headingKind: HeadingKind = .facing, accuracy: Double?,
                inVehicle: Bool = false, isRepeat: Bool = false, phrasing: Phrasing, now: Date) {
        self.location = location
        self.heading = heading
        self.headingKind = headingKind
        self.accuracy = accuracy
        self.inVehicle = inVehicle
        self.isRepeat = isRepeat
        self.phrasing = phrasing
        self.now = now
    }

    public var table: StringTable { phrasing.table }

    /// The 8-way direction of something at `bearing`, when the heading is known.
    public func direction(toBearing bearing: Double) -> RelativeDirection? {
        heading.map { RelativeDirection(bearing: bearing, heading: $0, style: .combined) }
    }
}
