import Foundation
import Geo

/// Turns places, distances and directions into the sentences the assistant speaks, from a string table.
public struct Phrasing: Sendable {
    public let table: StringTable
    public let distances: DistanceFormatter

    public init(table: StringTable, units: UnitSystem = .metric) {
        self.table = table
        self.distances = DistanceFormatter(units: units, table: table)
    }

    public func direction(_ key: RelativeDirection?) -> String {
        table("direction.\(key?.rawValue ?? "unknown")")
    }

    public func compass(_ direction: CompassDirection) -> String {
        table("compass.\(direction.rawValue)")
    }

    /// "Stockmann, 40 meters, ahead to the right" — with "about"/"around" when the GPS is imprecise and
    /// "close by" within 15 m, as Soundscape does (no hedge at 200 m or more).
    public func place(_ name: String, distance: Double, direction: RelativeDirection?, accuracy: Double?) -> String {
        if distance.rounded() <= 15 { return table("place.name_close_by", name) }
        let d = distances.string(meters: distance)
        let dir = self.direction(direction)
        guard distance < 200, let a = accuracy, a > 10 else { return table("place.name_distance_direction", name, d, dir) }
        return table(a <= 20 ? "place.name_about_distance_direction" : "place.name_around_distance_direction", name, d, dir)
    }
}
