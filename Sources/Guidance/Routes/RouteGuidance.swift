import Foundation
import Geo

/// One waypoint of an active route.
public struct RouteWaypoint: Sendable, Hashable, Codable {
    public var name: String
    public var coordinate: Coordinate
    public var markerID: UUID?

    public init(name: String, coordinate: Coordinate, markerID: UUID? = nil) {
        self.name = name
        self.coordinate = coordinate
        self.markerID = markerID
    }
}

/// How often to speak the distance to the current waypoint (Soundscape's BeaconUpdateFilter, spec §7.3):
/// 100 m or more away, after every 25 m moved; under 12 m, always; in between the required movement grows
/// linearly from 10 m (at 12 m) to 25 m (at 100 m). Above 2 m/s (a vehicle) both scale by speed × 2.
public enum WaypointUpdateFilter {
    public static func requiredMovement(distanceToWaypoint d: Double, speed: Double?) -> Double {
        let scale = (speed ?? 0) > 2 ? speed! * 2 : 1
        let near = 12 * scale, far = 100 * scale
        if d < near { return 0 }
        if d >= far { return 25 * scale }
        return (10 + (d - near) / (far - near) * 15) * scale
    }
}

/// Route guidance state (spec §7.3), persisted per route so that a restart resumes.
public struct RouteGuidanceState: Sendable, Hashable, Codable {
    public static let arrivalDistance = 12.0
    public static let autoCalloutPauseDistance = 40.0
    public static let startCalloutDelay: TimeInterval = 3

    public var routeID: UUID
    public var routeName: String
    public var waypoints: [RouteWaypoint]
    public var index = 0
    public var visited: Set<Int> = []
    public var isActive = false
    public var isComplete = false
    /// Speak "⟨waypoint⟩ is nearby" / "Beacon set on …" at each waypoint. Off for planned routes, whose
    /// waypoints are the maneuver points and whose maneuver announcements do the talking.
    public var announceWaypoints = true
    public var autoCalloutsPaused = false
    public var lastUpdateLocation: Coordinate?
    public var skipNextUpdate = true
    public var startedAt: Date?

    public init(route: Route, announceWaypoints: Bool = true) {
        routeID = route.id
        routeName = route.name
        waypoints = route.waypoints.map { RouteWaypoint(name: $0.name, coordinate: $0.coordinate, markerID: $0.id) }
        self.announceWaypoints = announceWaypoints
    }

    public init(routeID: UUID = UUID(), name: String, waypoints: [RouteWaypoint], announceWaypoints: Bool = true) {
        self.routeID = routeID
        routeName = name
        self.waypoints = waypoints
        self.announceWaypoints = announceWaypoints
    }

    public var current: RouteWaypoint? { waypoints.indices.contains(index) ? waypoints[index] : nil }

    /// Metres from `here` to the current waypoint, then from waypoint to waypoint to the last one.
    public func remainingDistance(from here: Coordinate) -> Double {
        guard let w = current else { return 0 }
        var total = here.distance(to: w.coordinate)
        for i in index..<(waypoints.count - 1) { total += waypoints[i].coordinate.distance(to: waypoints[i + 1].coordinate) }
        return total
    }

    public enum Event: Sendable, Hashable {
        case start(at: Coordinate?)
        case location(Coordinate, speed: Double?)
        case next(at: Coordinate?)
        case previous(at: Coordinate?)
        case stop
        /// "Where is the waypoint".
        case calloutWaypoint(at: Coordinate?)
        case progress
        /// "How far to the end": the distance to the current waypoint and on through the rest.
        case remaining(at: Coordinate?)
    }

    public enum Effect: Sendable, Hashable {
        case setBeacon(Beacon)
        case clearBeacon
        case speak([GuidanceCallout])
        case pauseAutoCallouts(Bool)
        /// The last waypoint was reached; the behavior ends.
        case completed
        case stopped
    }

    public static func reduce(_ state: RouteGuidanceState, _ event: Event, language: GuidanceLanguage,
                              settings: GuidanceSettings, now: Date) -> (RouteGuidanceState, [Effect]) {
        var s = state
        var fx: [Effect] = []
        let lang = language
        func beacon(for i: Int) -> Beacon {
            Beacon(target: .waypoint(routeID: s.routeID, index: i), name: s.waypoints[i].name, location: s.waypoints[i].coordinate)
        }
        func beaconSetCallout(_ i: Int, from here: Coordinate?, delay: TimeInterval) -> GuidanceCallout? {
            guard s.announceWaypoints else { return nil }
            let w = s.waypoints[i]
            let distance = here.map { lang.distance($0.distance(to: w.coordinate)) } ?? "?"
            return GuidanceCallout(kind: .beaconSet,
                                   text: lang("route.beacon_set", w.name, distance, String(i + 1), String(s.waypoints.count)),
                                   location: w.coordinate, delay: delay, interrupts: true)
        }
        func select(_ i: Int, from here: Coordinate?, delay: TimeInterval) {
            s.index = i
            s.skipNextUpdate = true
            s.lastUpdateLocation = here
            fx.append(.setBeacon(beacon(for: i)))
            if let c = beaconSetCallout(i, from: here, delay: delay) { fx.append(.speak([c])) }
        }

        switch event {
        case .start(let here):
            guard !s.waypoints.isEmpty else { return (s, [.stopped]) }
            s.isActive = true
            s.isComplete = false
            s.visited = []
            s.startedAt = now
            fx.append(.clearBeacon)
            select(0, from: here, delay: startCalloutDelay)
        case .stop:
            guard s.isActive else { return (s, []) }
            s.isActive = false
            if s.autoCalloutsPaused { s.autoCalloutsPaused = false; fx.append(.pauseAutoCallouts(false)) }
            fx += [.clearBeacon, .speak([GuidanceCallout(kind: .routeInfo, text: lang("route.stopped"), interrupts: true)]), .stopped]
        case .next(let here):
            guard s.isActive else { return (s, []) }
            if s.index + 1 < s.waypoints.count {
                select(s.index + 1, from: here, delay: 0)
            } else {
                fx.append(.speak([GuidanceCallout(kind: .routeInfo, text: lang("route.last_waypoint"), interrupts: true)]))
            }
        case .previous(let here):
            guard s.isActive else { return (s, []) }
            if s.index > 0 {
                select(s.index - 1, from: here, delay: 0)
            } else {
                fx.append(.speak([GuidanceCallout(kind: .routeInfo, text: lang("route.first_waypoint"), interrupts: true)]))
            }
        case .calloutWaypoint(let here):
            guard s.isActive, let w = s.current else {
                return (s, [.speak([GuidanceCallout(kind: .routeInfo, text: lang("route.none"), interrupts: true)])])
            }
            let d = here.map { lang.distance($0.distance(to: w.coordinate)) } ?? "?"
            fx.append(.speak([GuidanceCallout(kind: .waypointDistance, text: lang("beacon.distance", d), earcon: "sense_poi",
                                              location: w.coordinate, interrupts: true)]))
        case .progress:
            guard s.isActive else {
                return (s, [.speak([GuidanceCallout(kind: .routeInfo, text: lang("route.none"), interrupts: true)])])
            }
            let percent = Int((Double(s.visited.count) / Double(max(s.waypoints.count, 1)) * 100).rounded())
            fx.append(.speak([GuidanceCallout(kind: .routeInfo,
                                              text: lang("route.progress", String(s.index + 1), String(s.waypoints.count), String(percent)),
                                              interrupts: true)]))
        case .remaining(let here):
            guard s.isActive, let w = s.current else {
                return (s, [.speak([GuidanceCallout(kind: .routeInfo, text: lang("route.none"), interrupts: true)])])
            }
            let left = s.waypoints.count - s.index
            guard let here else {
                return (s, [.speak([GuidanceCallout(kind: .routeInfo, text: lang("plan.no_location"), interrupts: true)])])
            }
            let total = s.remainingDistance(from: here)
            let text = left == 1 ? lang("route.remaining_last", lang.distance(total), w.name)
                                 : lang("route.remaining", lang.distance(total), String(left))
            fx.append(.speak([GuidanceCallout(kind: .routeInfo, text: text, interrupts: true)]))
        case .location(let here, let speed):
            guard s.isActive, let w = s.current else { return (s, []) }
            let d = here.distance(to: w.coordinate)
            let shouldPause = d < autoCalloutPauseDistance
            if shouldPause != s.autoCalloutsPaused {
                s.autoCalloutsPaused = shouldPause
                fx.append(.pauseAutoCallouts(shouldPause))
            }
            if d < arrivalDistance {
                s.visited.insert(s.index)
                var callouts: [GuidanceCallout] = []
                if s.announceWaypoints || s.index == s.waypoints.count - 1 {
                    callouts.append(GuidanceCallout(kind: .waypointArrival, text: lang("route.waypoint_nearby", w.name),
                                                    location: w.coordinate))
                }
                if s.index == s.waypoints.count - 1 {
                    callouts.append(GuidanceCallout(kind: .routeComplete, text: lang("route.complete"), earcon: "beacon_found"))
                    s.isActive = false
                    s.isComplete = true
                    if s.autoCalloutsPaused { s.autoCalloutsPaused = false; fx.append(.pauseAutoCallouts(false)) }
                    fx += [.speak(callouts), .clearBeacon, .completed]
                } else {
                    if !callouts.isEmpty { fx.append(.speak(callouts)) }
                    select(s.index + 1, from: here, delay: 0)
                    // Callouts resume once the next waypoint is announced (unless it too is close).
                    let nextClose = here.distance(to: s.waypoints[s.index].coordinate) < autoCalloutPauseDistance
                    if s.autoCalloutsPaused != nextClose {
                        s.autoCalloutsPaused = nextClose
                        fx.append(.pauseAutoCallouts(nextClose))
                    }
                }
                return (s, fx)
            }
            // Distance updates toward the waypoint.
            guard s.announceWaypoints, settings.beaconDistanceCallouts else { return (s, fx) }
            guard let last = s.lastUpdateLocation else { s.lastUpdateLocation = here; return (s, fx) }
            let moved = here.distance(to: last)
            if moved >= WaypointUpdateFilter.requiredMovement(distanceToWaypoint: d, speed: speed) && moved > 0 {
                s.lastUpdateLocation = here
                if s.skipNextUpdate {
                    s.skipNextUpdate = false
                } else {
                    fx.append(.speak([GuidanceCallout(kind: .waypointDistance, text: lang("route.waypoint_distance", lang.distance(d)),
                                                      earcon: "sense_poi", location: w.coordinate)]))
                }
            }
        }
        return (s, fx)
    }
}
