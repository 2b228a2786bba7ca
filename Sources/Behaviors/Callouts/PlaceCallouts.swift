import Callouts
import Foundation
import Geo
import MapData

/// Trigger and re-arm distances of automatic place callouts by super-category (spec §3.2, standard ranges;
/// six times as far in a vehicle).
public struct CalloutRange: Sendable, Equatable {
    /// A place is announced when it is this near (metres, to its closest point).
    public var trigger: Double
    /// It may be announced again after the user has been farther than this.
    public var proximity: Double

    public static func `for`(_ category: SuperCategory, inVehicle: Bool = false) -> CalloutRange {
        let base: CalloutRange
        switch category {
        case .object, .safety: base = CalloutRange(trigger: 10, proximity: 20)
        case .place, .information, .mobility, .navilens, .authoredActivity: base = CalloutRange(trigger: 20, proximity: 30)
        case .landmark: base = CalloutRange(trigger: 50, proximity: 100)
        default: base = CalloutRange(trigger: 0, proximity: 0)
        }
        return inVehicle ? CalloutRange(trigger: base.trigger * 6, proximity: base.proximity * 6) : base
    }

    /// Saved markers count as places.
    public static let marker = CalloutRange(trigger: 20, proximity: 30)
}

extension Glyph {
    /// The earcon that leads a callout about something of `category` (spec §3.1).
    public static func forCategory(_ category: SuperCategory) -> Glyph {
        switch category {
        case .information: .informationAlert
        case .mobility: .senseMobility
        case .safety: .senseSafety
        default: .sensePOI
        }
    }
}

/// Callouts about places on the map.
public enum PlaceCallouts {
    public enum Style: Sendable {
        /// Automatic: the name alone ("Stockmann"), or "At Stockmann" inside it.
        case automatic
        /// Exploration: name, distance and direction ("Stockmann, 40 meters, ahead to the right").
        case exploration
    }

    /// A callout about a map feature, heard from its closest point. Repeated, it says the name and distance.
    /// `fallbackHeading`: what directions are measured from when no heading is known as it is spoken (the last
    /// walking direction, or north); the answer says so first.
    public static func feature(_ item: NearbyFeature, style: Style, language: String, fallbackHeading: Double? = nil) -> Callout {
        let name = item.feature.spokenName(language: language)
        return place(name: name, point: item.closestPoint, inside: item.isInside, glyph: .forCategory(item.feature.superCategory),
                     subject: item.feature.key, style: style, fallbackHeading: fallbackHeading)
    }

    /// A callout about a saved marker: "Marker. Home", with its note after the name.
    public static func marker(_ marker: MarkerInfo, style: Style, table: StringTable) -> Callout {
        let name = marker.name.isEmpty ? table("marker.unnamed")
            : (marker.name.localizedCaseInsensitiveContains(table("marker.unnamed")) ? marker.name : table("marker.name", marker.name))
        var callout = place(name: name, point: marker.coordinate, inside: false, glyph: .sensePOI, subject: "marker:\(marker.id)",
                            style: style, note: marker.annotation)
        callout.kind = .marker
        return callout
    }

    static func place(name: String, point: Coordinate, inside: Bool, glyph: Glyph, subject: String, style: Style,
                      note: String? = nil, fallbackHeading: Double? = nil) -> Callout {
        Callout(kind: .poi, subject: subject, includeInHistory: true) { context in
            let phrasing = context.phrasing
            let distance = context.location.map { $0.distance(to: point) } ?? 0
            let text: String
            if context.isRepeat || (style == .exploration && context.heading == nil && fallbackHeading == nil) {
                text = phrasing.nameAndDistance(name, distance: distance, accuracy: context.accuracy)
            } else if style == .automatic {
                text = inside ? context.table("place.at", name) : name
            } else {
                let direction = context.location.flatMap { here in
                    context.direction(toBearing: here.bearing(to: point))
                        ?? fallbackHeading.map { RelativeDirection(bearing: here.bearing(to: point), heading: $0, style: .combined) }
                }
                text = phrasing.place(name, distance: distance, direction: direction, accuracy: context.accuracy)
            }
            var utterances = [Utterance(text, glyph: glyph, placement: .localized(point))]
            if let note, !note.isEmpty { utterances.append(Utterance(note, placement: .localized(point))) }
            return utterances
        }
    }
}
