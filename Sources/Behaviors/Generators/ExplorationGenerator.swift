import Callouts
import Foundation
import Geo
import MapData

/// My Location, Around Me, Ahead of Me and Nearby Markers (spec §3.5–3.6).
///
/// * Each answer interrupts what is playing and is framed by the mode-enter and mode-exit earcons; asking for
///   the same thing while its answer plays answers again, except a button press (``ExplorationEvent/stopsItsOwnAnswer``),
///   which stops it.
/// * Around Me: the nearest place or landmark in each of four 90° sectors, the first centred on the heading
///   (north when there is none), clockwise from ahead. Ahead of Me: up to 5 nearest in the sector ±45° about
///   the heading. The search starts at 200 m and grows by 200 m up to 1000 m until it has enough.
/// * Each place: "Stockmann, 40 meters, ahead to the right", heard from the place.
public final class ExplorationGenerator: ManualGenerator {
    public static let initialRadius = 200.0
    public static let radiusStep = 200.0
    public static let maximumRadius = 1000.0
    public static let aheadLimit = 5
    public static let markerLimit = 4

    public init() {}

    public func respondsTo(_ event: any UserInitiatedEvent) -> Bool { event is ExplorationEvent }

    public func handle(_ event: any UserInitiatedEvent, context: GeneratorContext) -> HandledEventAction? {
        guard let event = event as? ExplorationEvent else { return nil }
        let mode = event.mode
        let label = "exploration.\(mode.rawValue)"
        if event.stopsItsOwnAnswer && context.playingLabel == label { return .interruptAndClearQueue }
        let table = context.table
        guard let here = context.user.location else { return Self.problem(table("location.unknown")) }
        guard let map = context.map else { return Self.problem(table("status.no_map")) }
        let language = table.language

        var callouts: [Callout]
        var empty = "explore.nothing"
        var preface: String?
        switch mode {
        case .locate:
            guard let result = try? map.reverseGeocode(here, heading: context.user.headings.collection) else {
                return Self.problem(table("status.no_map"))
            }
            callouts = LocationCallouts.myLocation(result, language: language)
        case .aroundMe:
            let (heading, fallback) = Self.answerHeading(context.user.headings.collection, user: context.user)
            var quadrants: [QuadrantResult] = []
            var radius = Self.initialRadius
            while true {
                quadrants = (try? map.nearestPerQuadrant(around: here, heading: heading, radius: radius)) ?? []
                if quadrants.allSatisfy({ $0.nearest != nil }) || radius >= Self.maximumRadius { break }
                radius += Self.radiusStep
            }
            callouts = quadrants.compactMap(\.nearest).map {
                PlaceCallouts.feature($0, style: .exploration, language: language, fallbackHeading: fallback?.heading)
            }
            preface = fallback?.words(table)
        case .aheadOfMe:
            let (heading, fallback) = Self.answerHeading(context.user.headings.ahead ?? context.user.headings.collection,
                                                         user: context.user)
            var found: [NearbyFeature] = []
            var radius = Self.initialRadius
            while true {
                found = (try? map.features(inSectorAround: here, heading: heading, halfAngle: 45, radius: radius,
                                           limit: Self.aheadLimit)) ?? []
                if found.count >= Self.aheadLimit || radius >= Self.maximumRadius { break }
                radius += Self.radiusStep
            }
            callouts = Self.roadAhead(of: here, heading: heading, map: map, context: context)
                + found.map { PlaceCallouts.feature($0, style: .exploration, language: language, fallbackHeading: fallback?.heading) }
            preface = fallback?.words(table)
        case .nearbyMarkers:
            empty = "explore.no_markers"
            let markers = (context.markers?.markers(near: here, radius: Self.maximumRadius) ?? [])
                .sorted { here.distance(to: $0.coordinate) < here.distance(to: $1.coordinate) }
                .prefix(Self.markerLimit)
            callouts = markers.map { PlaceCallouts.marker($0, style: .exploration, table: table) }
        }
        if callouts.isEmpty {
            callouts = [.text(table(empty), kind: .exploration)]
        }
        if let preface { callouts.insert(.text(preface, kind: .exploration), at: 0) }
        let lead = event.lead.map { Callout.text($0, kind: .exploration) }
        return .playCallouts(CalloutGroup(callouts, action: .interruptAndClear, label: label, prefix: lead, playModeSounds: true))
    }

    /// Walking along a road: a bend of it ahead ("The road bends left in 30 meters") and the next intersection
    /// along it ("Intersection with Mannerheimintie in 80 meters") or its end, each heard from where it is.
    static func roadAhead(of here: Coordinate, heading: Double, map: SpatialDataView, context: GeneratorContext) -> [Callout] {
        guard let network = try? map.roadNetwork(), let stretch = network.ahead(of: here, heading: heading),
              stretch.length >= 1 else { return [] }
        let table = context.table
        let distances = context.phrasing.distances
        var callouts: [Callout] = []
        if let bend = RoadNetwork.firstBend(on: stretch) {
            let key = bend.turn > 0 ? "ahead.bend_right" : "ahead.bend_left"
            callouts.append(.text(table(key, distances.string(meters: bend.distance)), placement: .localized(bend.coordinate),
                                  kind: .exploration))
        }
        let end = network.graph.nodes[stretch.endNode]?.coordinate ?? stretch.path.last ?? here
        let d = distances.string(meters: stretch.length)
        switch stretch.end {
        case .intersection:
            let names = network.roadNames(at: stretch.endNode, besides: [network.name(ofEdge: stretch.lastEdge), stretch.name])
            let text = names.isEmpty ? table("ahead.intersection_unnamed", d) : table("ahead.intersection", context.phrasing.list(names), d)
            callouts.append(Callout(kind: .intersection, subject: "ahead:\(stretch.endNode)", includeInHistory: true) { _ in
                [Utterance(text, placement: .localized(end))]
            })
        case .deadEnd:
            callouts.append(.text(table("ahead.road_ends", d), placement: .localized(end), kind: .exploration))
        case .loop:
            break
        }
        return callouts
    }

    /// What an answer is measured from when no heading is known (spec §2.2: "Around Me" uses north): the last
    /// walking direction when there was one, else north; said before the answer.
    struct Fallback {
        var heading: Double
        var fromWalking: Bool
        func words(_ table: StringTable) -> String {
            fromWalking ? table("explore.from_last_walking", table("compass.\(CompassDirection(bearing: heading).rawValue)"))
                        : table("explore.from_north")
        }
    }

    static func answerHeading(_ current: Double?, user: UserState) -> (Double, Fallback?) {
        if let current { return (current, nil) }
        if let last = user.lastWalkingDirection { return (last, Fallback(heading: last, fromWalking: true)) }
        return (0, Fallback(heading: 0, fromWalking: false))
    }

    static func problem(_ text: String) -> HandledEventAction {
        .playCallouts(CalloutGroup([.text(text, glyph: .invalidFunction)], action: .interruptAndClear, label: "exploration.problem"))
    }
}
