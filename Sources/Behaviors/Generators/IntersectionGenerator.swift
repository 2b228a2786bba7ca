import Callouts
import Foundation
import Geo
import MapData

/// Intersection callouts (spec §3.3): approaching an intersection ahead, each road leaving it is named from
/// its own side; leaving it, the street the user is now on.
///
/// * Needs the GPS course (no course, no callouts), callouts on, the mobility sense on, and walking (not in a
///   vehicle); checked after more than 5 m **and** 5 s.
/// * Candidates: intersections within 35 m whose bearing is within ±30° of the course, where roads of at
///   least two names meet (or a roundabout). Footways, cycleways, steps and crossings without a name do not
///   make an intersection on their own and are not read out.
/// * Arrival interrupts: the earcon, "Approaching intersection" from the intersection, then each road —
///   "Kaivokatu, goes left" from the left, "…, continues ahead" from ahead, "…, goes right" from the right —
///   in clockwise order from the left; roads behind are left out.
/// * Nodes less than 30 m apart that share two road names (dual carriageways) count as one junction.
/// * The intersection stays "current" (not said again) until the user is more than 20 m from it and not
///   heading towards it (outside ±90°); then "Heading north along …" is queued with the location earcon.
public final class IntersectionGenerator: AutomaticGenerator {
    public static let arrivalDistance = 35.0
    public static let arrivalHalfAngle = 30.0
    public static let departureDistance = 20.0
    public static let departureHalfAngle = 90.0
    public static let minimumMove = 5.0
    public static let minimumInterval = 5.0
    /// Street Preview's reach: its walker is told about an intersection from 20 m before it.
    public static let previewReach = 21.0
    /// Highway kinds that are not main roads when they have no name.
    static let secondaryHighways: Set<String> = ["footway", "path", "cycleway", "bridleway", "steps", "crossing",
                                                  "corridor", "platform", "elevator"]

    private var last: (point: Coordinate, time: Date)?
    public private(set) var current: Intersection?

    public init() {}

    public var canInterrupt: Bool { true }

    public func respondsTo(_ event: any StateChangedEvent) -> Bool { event is LocationUpdatedEvent }

    public func handle(_ event: any StateChangedEvent, context: GeneratorContext) -> HandledEventAction? {
        guard let update = event as? LocationUpdatedEvent else { return nil }
        guard let course = context.user.headings.course else { current = nil; return nil }
        guard context.settings.automaticCallouts, context.settings.mobility, !context.user.inVehicle,
              let here = context.user.location, let map = context.map else { return nil }
        if !update.isPreview, let last,
           here.distance(to: last.point) <= Self.minimumMove || context.now.timeIntervalSince(last.time) <= Self.minimumInterval {
            return nil
        }
        last = (here, context.now)
        // Street Preview's walker standing on the intersection it was just told about is not approaching another.
        if update.isPreview, let current, here.distance(to: current.coordinate) < 1 { return nil }

        var departure: CalloutGroup?
        if let current, here.distance(to: current.coordinate) > Self.departureDistance,
           abs(Angle.signedDifference(here.bearing(to: current.coordinate), course)) > Self.departureHalfAngle {
            self.current = nil
            if let road = try? map.nearestRoadDetail(to: here, maxDistance: Self.departureDistance), road.feature.name != nil {
                let name = road.feature.spokenName(language: context.table.language)
                departure = CalloutGroup([LocationCallouts.along(name, roadPoint: road.closestPoint, glyph: .senseLocation, kind: .departure)],
                                         action: .enqueue, label: "intersection.departure")
            }
        }

        // Street Preview looks only as far as its approach point is from the intersection it walks to.
        let reach = update.isPreview ? Self.previewReach : Self.arrivalDistance
        let candidates = ((try? map.intersections(near: here, radius: reach)) ?? []).filter { i in
            abs(Angle.signedDifference(here.bearing(to: i.coordinate), course)) <= Self.arrivalHalfAngle && Self.isMain(i)
        }
        if let current, candidates.contains(where: { Self.same($0, current) }) { return departure.map { .playCallouts($0) } }
        // The far node of the same junction (a dual carriageway's second crossing): it becomes the current
        // intersection without being announced again.
        if let current, let twin = candidates.first(where: { Self.sameJunction($0, current) }) {
            self.current = twin
            return departure.map { .playCallouts($0) }
        }
        guard let nearest = candidates.min(by: { here.distance(to: $0.coordinate) < here.distance(to: $1.coordinate) }) else {
            return departure.map { .playCallouts($0) }
        }
        let best = candidates.filter { $0.coordinate.distance(to: nearest.coordinate) < 1 }.max { $0.legs.count < $1.legs.count } ?? nearest
        let roads = Self.roadDirections(best, course: course)
        guard !roads.isEmpty else { return departure.map { .playCallouts($0) } }
        current = best
        return .playCallouts(CalloutGroup([Self.arrivalCallout(best, roads: roads, course: course)],
                                          action: .interruptAndClear, label: "intersection.arrival"))
    }

    // MARK: geometry

    static func isMainLeg(_ leg: IntersectionLeg) -> Bool {
        leg.name != nil || !secondaryHighways.contains(leg.highway ?? "")
    }

    /// Roads of at least two names meet here, or it is a roundabout.
    static func isMain(_ intersection: Intersection) -> Bool {
        let names = Set(intersection.legs.filter(isMainLeg).map(\.spokenName))
        return names.count >= 2 || (intersection.isRoundabout && !names.isEmpty)
    }

    static func same(_ a: Intersection, _ b: Intersection) -> Bool {
        a.id == b.id || a.coordinate.distance(to: b.coordinate) < 1
    }

    /// Nodes less than 30 m apart that share at least two road names are one junction to a walker.
    static let junctionSpan = 30.0

    static func sameJunction(_ a: Intersection, _ b: Intersection) -> Bool {
        let names = Set(a.legs.filter(isMainLeg).map(\.spokenName))
        return a.coordinate.distance(to: b.coordinate) < junctionSpan
            && names.intersection(b.legs.filter(isMainLeg).map(\.spokenName)).count >= 2
    }

    public struct RoadDirection: Sendable, Equatable {
        public var name: String
        public var direction: RelativeDirection
        /// The leg's relative angle (0 ahead, clockwise).
        public var relativeAngle: Double
    }

    /// The main roads leaving `intersection` as seen by someone arriving on `course`: left / ahead / right
    /// (roads behind left out, duplicates removed), clockwise starting from the left.
    public static func roadDirections(_ intersection: Intersection, course: Double) -> [RoadDirection] {
        var out: [RoadDirection] = []
        for leg in intersection.legs where isMainLeg(leg) {
            let relative = Angle.relative(bearing: leg.bearing, heading: course)
            let direction = RelativeDirection.leftRight(relativeAngle: relative)
            guard direction != .behind else { continue }
            let road = RoadDirection(name: leg.spokenName, direction: direction, relativeAngle: relative)
            if !out.contains(where: { $0.name == road.name && $0.direction == road.direction }) { out.append(road) }
        }
        return out.sorted { Angle.normalized($0.relativeAngle - 210) < Angle.normalized($1.relativeAngle - 210) }
    }

    static func arrivalCallout(_ intersection: Intersection, roads: [RoadDirection], course: Double) -> Callout {
        let point = intersection.coordinate
        let names = intersection.roadNames
        let isRoundabout = intersection.isRoundabout
        let exits = intersection.legs.filter { !$0.isRoundabout }.count
        return Callout(kind: .intersection, subject: "i\(intersection.id)", includeInHistory: true) { context in
            let table = context.table
            if context.isRepeat, let here = context.location, here.distance(to: point) > arrivalDistance {
                let text = names.isEmpty ? table("intersection.unnamed") : table("intersection.named", context.phrasing.list(names))
                return [Utterance(text, placement: .localized(point))]
            }
            let approach: String
            if isRoundabout {
                approach = exits > 4 ? table("intersection.approaching_roundabout_exits", String(exits)) : table("intersection.approaching_roundabout")
            } else {
                approach = table("intersection.approaching")
            }
            var utterances = [Utterance.glyph(.sensePOI, placement: .relative(0)), Utterance(approach, placement: .localized(point))]
            for road in roads {
                let (key, offset): (String, Double) = switch road.direction {
                case .left: ("left", 270)
                case .right: ("right", 90)
                default: ("ahead", 0)
                }
                let text = table(isRoundabout ? "intersection.exit_\(key)" : "intersection.road_\(key)", road.name)
                utterances.append(Utterance(text, placement: .compass(Angle.normalized(course + offset))))
            }
            return utterances
        }
    }
}
