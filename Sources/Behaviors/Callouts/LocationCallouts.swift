import Callouts
import Foundation
import Geo
import MapData

/// "Where am I" and the other callouts that say where the user is (spec §3.6).
public enum LocationCallouts {
    /// The callouts of "my location" for a reverse-geocoded position. Rendered when played: the heading
    /// words use the heading of that moment.
    public static func myLocation(_ result: ReverseGeocodeResult, language: String) -> [Callout] {
        switch result {
        case .at(let place):
            let name = place.feature.spokenName(language: language)
            let point = place.closestPoint
            return [headingOnly(),
                    Callout(kind: .location, subject: place.feature.key, includeInHistory: true) { context in
                        let text = context.isRepeat ? context.table("location.previous_at", name) : context.table("location.at", name)
                        return [Utterance(text, placement: .localized(point))]
                    }]
        case .on(let road, _):
            return [along(road.feature.spokenName(language: language), roadPoint: road.closestPoint, glyph: nil)]
        case .near(let road, let poi):
            var callouts = [headingOnly()]
            if let road {
                callouts.append(relative(name: road.feature.spokenName(language: language), point: road.closestPoint,
                                         subject: road.feature.key, isRoad: true))
            }
            if let poi {
                callouts.append(relative(name: poi.feature.spokenName(language: language), point: poi.closestPoint,
                                         subject: poi.feature.key, isRoad: false))
            }
            if road == nil && poi == nil {
                callouts = [Callout(kind: .location) { [Utterance($0.table("location.nothing_known"))] }]
            }
            return callouts
        }
    }

    /// "Heading east along Pohjoisesplanadi" (heard from that compass direction); "Near Pohjoisesplanadi"
    /// without a heading.
    public static func along(_ road: String, roadPoint: Coordinate, glyph: Glyph?, kind: CalloutKind = .location) -> Callout {
        Callout(kind: kind, subject: road, includeInHistory: true) { context in
            if context.isRepeat { return [Utterance(context.table("location.previous_along", road), glyph: glyph)] }
            guard let heading = context.heading else {
                return [Utterance(context.table("location.near", road), glyph: glyph, placement: .localized(roadPoint))]
            }
            return [Utterance(context.phrasing.heading(heading, kind: context.headingKind, along: road), glyph: glyph,
                              placement: .compass(heading))]
        }
    }

    /// "Facing north", heard from the north; nothing without a heading.
    static func headingOnly() -> Callout {
        Callout(kind: .location) { context in
            if context.isRepeat { return [Utterance(context.table("location.previous"))] }
            guard let heading = context.heading else { return [] }
            return [Utterance(context.phrasing.heading(heading, kind: context.headingKind), placement: .compass(heading))]
        }
    }

    /// "Nearest road, Kaivokatu, is 50 meters to the left" / "Stockmann is 30 meters behind".
    static func relative(name: String, point: Coordinate, subject: String, isRoad: Bool) -> Callout {
        Callout(kind: .location, subject: subject, includeInHistory: true) { context in
            let distance = context.location.map { $0.distance(to: point) } ?? 0
            let d = context.phrasing.distances.string(meters: distance)
            let direction = context.location.flatMap { context.direction(toBearing: $0.bearing(to: point)) }
            let text: String
            switch (isRoad, direction, context.isRepeat) {
            case (true, let dir?, true): text = context.table("location.nearest_road_was", name, d, context.phrasing.direction(dir))
            case (false, let dir?, true): text = context.table("location.place_was", name, d, context.phrasing.direction(dir))
            case (true, let dir?, false): text = context.table("location.nearest_road_direction", name, d, context.phrasing.direction(dir))
            case (false, let dir?, false): text = context.table("location.place_direction", name, d, context.phrasing.direction(dir))
            case (true, nil, _): text = context.table("location.nearest_road_away", name, d)
            case (false, nil, _): text = context.table("location.place_away", name, d)
            }
            return [Utterance(text, placement: .localized(point))]
        }
    }
}
