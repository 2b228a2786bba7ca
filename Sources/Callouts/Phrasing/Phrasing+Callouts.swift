import Foundation
import Geo

/// Sentences of the callouts, each a whole template of the string table.
extension Phrasing {
    /// How far something is said to be, by Soundscape's distance style (spec §3.1): "close by" within 15 m,
    /// plain from 200 m, else plain / "about" / "around" as the GPS accuracy is ≤ 10 m, ≤ 20 m or worse.
    public enum DistanceHedge: String, Sendable { case closeBy = "close_by", exact, about, around }

    public static func hedge(distance: Double, accuracy: Double?) -> DistanceHedge {
        if distance.rounded() <= 15 { return .closeBy }
        guard distance < 200, let a = accuracy else { return .exact }
        if a <= 10 { return .exact }
        return a <= 20 ? .about : .around
    }

    /// "Stockmann, 40 meters" / "Stockmann, about 40 meters" / "Stockmann, close by" (no direction words).
    public func nameAndDistance(_ name: String, distance: Double, accuracy: Double?) -> String {
        switch Self.hedge(distance: distance, accuracy: accuracy) {
        case .closeBy: return table("place.name_close_by", name)
        case .exact: return table("place.name_distance", name, distances.string(meters: distance))
        case .about: return table("place.name_about_distance", name, distances.string(meters: distance))
        case .around: return table("place.name_around_distance", name, distances.string(meters: distance))
        }
    }

    /// "Beacon, 120 meters" / "Beacon close by" / "Beacon, about 40 meters".
    public func beaconDistance(_ distance: Double, accuracy: Double?) -> String {
        let d = distances.string(meters: distance)
        switch Self.hedge(distance: distance, accuracy: accuracy) {
        case .closeBy: return table("beacon.close_by")
        case .exact: return table("beacon.distance", d)
        case .about: return table("beacon.about_distance", d)
        case .around: return table("beacon.around_distance", d)
        }
    }

    /// The compass word of a bearing: "north", "south-east"…
    public func compass(bearing: Double) -> String { compass(CompassDirection(bearing: bearing)) }

    /// "Facing north" / "Heading north" / "Traveling north", with "along Mannerheimintie" when a road is given.
    public func heading(_ bearing: Double, kind: HeadingKind, along road: String? = nil) -> String {
        let word = compass(bearing: bearing)
        if let road { return table("location.\(kind.verbKey)_along", word, road) }
        return table("location.\(kind.verbKey)", word)
    }

    /// Names joined the way the language lists things: "A", "A and B", "A, B and C".
    public func list(_ items: [String]) -> String {
        switch items.count {
        case 0: return ""
        case 1: return items[0]
        case 2: return table("list.two", items[0], items[1])
        default:
            var joined = table("list.last", items[items.count - 2], items[items.count - 1])
            for item in items.dropLast(2).reversed() { joined = table("list.middle", item, joined) }
            return joined
        }
    }
}

extension HeadingKind {
    var verbKey: String {
        switch self {
        case .facing: "facing"
        case .walking: "heading"
        case .traveling: "traveling"
        }
    }
}
