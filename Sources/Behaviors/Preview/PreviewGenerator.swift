import Callouts
import Foundation
import Geo
import Location
import MapData

/// Moves Street Preview's walker and says what it did; the places it reaches go into the pipeline as location
/// updates, and the sentence about the move leads the callouts of the first of them (so that the intersection
/// callout that follows does not cut it off).
///
/// * Start: "Starting Street Preview along Kaivokatu, heading east."
/// * "go forward": "120 meters along Kaivokatu to the intersection with Keskuskatu", then the pipeline's callouts
///   from 20 m before the intersection (where a walker hears "Approaching intersection") and at it; at a road's
///   end, "120 meters along Kaivokatu. The road ends here".
/// * "turn left / right / around": "Now facing Keskuskatu, heading north" (the 3-D sound turns with it).
/// * "go back": "Back at the previous intersection, facing Kaivokatu, heading east".
final class PreviewGenerator: ManualGenerator, AutomaticGenerator {
    private(set) var walker: StreetPreviewWalker
    /// Said before the callouts of the next preview location update.
    private var pending: [Callout] = []
    /// The approach point is this far before an intersection (or half the way there when nearer).
    static let approachDistance = 20.0
    /// The walker's pace, for the location updates (a walk, so that headings are walking headings).
    static let walkingSpeed = 1.4

    init(walker: StreetPreviewWalker) { self.walker = walker }

    // MARK: manual

    func respondsTo(_ event: any UserInitiatedEvent) -> Bool {
        if let activated = event as? BehaviorActivatedEvent { return activated.behavior == PreviewBehavior.behaviorName }
        return event is PreviewCommandEvent
    }

    func handle(_ event: any UserInitiatedEvent, context: GeneratorContext) -> HandledEventAction? {
        let table = context.table
        let phrasing = context.phrasing
        if event is BehaviorActivatedEvent {
            let p = walker.position
            pending = [.text(table("preview.start", p.road, phrasing.compass(bearing: p.heading)), kind: .exploration)]
            return .noAction
        }
        guard let command = (event as? PreviewCommandEvent)?.command else { return nil }
        switch command {
        case .forward:
            guard case .moved(let stretch) = walker.forward() else {
                let key = walker.legs.count <= 1 ? "preview.road_ends_turn" : "preview.no_road_ahead"
                return say(table(key), glyph: .invalidFunction)
            }
            let distance = phrasing.distances.string(meters: stretch.length)
            let text: String
            switch stretch.end {
            case .deadEnd: text = table("preview.moved_to_end", distance, stretch.name)
            case .loop: text = table("preview.moved_loop", distance, stretch.name)
            case .intersection:
                let others = walker.network.roadNames(at: stretch.endNode, besides: [stretch.name, walker.position.road])
                text = others.isEmpty ? table("preview.moved_unnamed", distance, stretch.name)
                    : table("preview.moved", distance, stretch.name, phrasing.list(others))
            }
            pending = [.text(text, placement: .compass(stretch.arrivalBearing), kind: .exploration)]
            let line = Polyline(stretch.path)
            let back = min(Self.approachDistance, stretch.length / 2)
            var events: [any Event] = []
            if back >= 1, let approach = line.point(atDistance: stretch.length - back) {
                events.append(Self.update(at: approach, heading: approach.bearing(to: walker.position.coordinate), now: context.now))
            }
            events.append(Self.update(at: walker.position.coordinate, heading: walker.position.heading, now: context.now))
            return .processEvents(events)
        case .turnLeft, .turnRight, .turnAround:
            let side: StreetPreviewWalker.Turn = command == .turnLeft ? .left : command == .turnRight ? .right : .around
            guard let leg = walker.turn(side) else { return say(table("preview.no_turn"), glyph: .invalidFunction) }
            pending = [.text(table("preview.turned", leg.name, phrasing.compass(bearing: leg.bearing)),
                             placement: .compass(leg.bearing), kind: .exploration)]
            return .processEvents([Self.update(at: walker.position.coordinate, heading: leg.bearing, now: context.now)])
        case .back:
            guard walker.back() else { return say(table("preview.nothing_back"), glyph: .invalidFunction) }
            let p = walker.position
            let key = p.node == nil ? "preview.back_to_start" : "preview.back"
            pending = [.text(table(key, p.road, phrasing.compass(bearing: p.heading)), placement: .compass(p.heading), kind: .exploration)]
            var events: [any Event] = []
            if p.node != nil {
                // From behind, as if walking up to it facing the way the walker faces there.
                let approach = p.coordinate.destination(bearing: Angle.normalized(p.heading + 180), distance: Self.approachDistance)
                events.append(Self.update(at: approach, heading: p.heading, now: context.now))
            }
            events.append(Self.update(at: p.coordinate, heading: p.heading, now: context.now))
            return .processEvents(events)
        }
    }

    private func say(_ text: String, glyph: Glyph? = nil) -> HandledEventAction {
        .playCallouts(CalloutGroup([.text(text, glyph: glyph, kind: .exploration)], action: .interruptAndClear, label: "preview"))
    }

    // MARK: automatic

    func respondsTo(_ event: any StateChangedEvent) -> Bool {
        (event as? LocationUpdatedEvent)?.isPreview == true
    }

    func handle(_ event: any StateChangedEvent, context: GeneratorContext) -> HandledEventAction? {
        guard !pending.isEmpty else { return nil }
        defer { pending = [] }
        return .playCallouts(CalloutGroup(pending, action: .interruptAndClear, label: "preview"))
    }

    /// A location update for the walker at `coordinate`, walking towards `heading`.
    static func update(at coordinate: Coordinate, heading: Double, now: Date) -> LocationUpdatedEvent {
        let fix = LocationFix(coordinate: coordinate, timestamp: now, horizontalAccuracy: 5, speed: walkingSpeed, course: heading)
        let headings = Headings(collection: heading, collectionKind: .walking, ahead: heading, course: heading)
        return LocationUpdatedEvent(fix: fix, headings: headings, motion: .walking, isPreview: true)
    }
}
