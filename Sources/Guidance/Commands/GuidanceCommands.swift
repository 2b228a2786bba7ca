import Foundation
import Geo
import MapData

/// A place a command names, resolved to where to go.
public struct ResolvedPlace: Sendable, Hashable {
    public var name: String
    /// The point to aim for: the place's nearest point (or the marker) as seen from the user.
    public var coordinate: Coordinate
    public var target: BeaconTarget
    /// The outline, for places that are areas.
    public var area: [Coordinate]?
}

/// The result of "take me to ⟨place⟩".
public struct PlannedGuidance: Sendable {
    public var place: ResolvedPlace
    public var route: PlannedRoute
    public var maneuvers: [Maneuver]
    /// The announcements in the order a walker hears them.
    public var announcements: [Announcement]
    /// "Walking route to Kauppatori, 800 meters".
    public var summary: String
    /// The route as waypoints (the maneuver points and the destination), for route guidance and the beacon.
    public var waypoints: [RouteWaypoint]
}

public enum GuidanceCommandError: Error, CustomStringConvertible {
    case placeNotFound(String, message: String)
    case noRoute(String, message: String)

    public var description: String {
        switch self {
        case .placeNotFound(_, let m), .noRoute(_, let m): m
        }
    }
}

/// The guidance commands as plain functions, for the command map and `soundscape say`.
public enum GuidanceCommands {
    /// Resolves a spoken place name: a saved marker first, then the map (``PlaceFinder/best(_:from:map:kinds:language:)``:
    /// an exact name, the nearest of a kind, the best fuzzy name), aimed at the nearest usable entrance when the map
    /// has the building's entrances.
    public static func resolve(_ spoken: String, near here: Coordinate, map: SpatialDataView, markers: MarkerStore? = nil,
                               language: String = "en", kinds: KindTable = .empty) throws -> ResolvedPlace? {
        if let markers, let m = try markers.find(named: spoken) {
            return ResolvedPlace(name: m.name, coordinate: m.coordinate, target: .marker(id: m.id))
        }
        guard let found = try PlaceFinder.best(spoken, from: here, map: map, kinds: kinds, language: language) else { return nil }
        return resolved(found, language: try? GuidanceLanguage(language))
    }

    /// A found place as a command's destination; its name says the entrance when one is aimed at.
    public static func resolved(_ found: FoundPlace, language: GuidanceLanguage?) -> ResolvedPlace {
        ResolvedPlace(name: language.map { found.spokenName($0) } ?? found.name, coordinate: found.coordinate,
                      target: .place(key: found.featureKey), area: found.area)
    }

    /// "Take me to ⟨place⟩": plans a walking route and its announcements.
    public static func takeMeTo(placeName: String, from here: Coordinate, heading: Double? = nil, map: SpatialDataView,
                                planner: RoutePlanner, language: GuidanceLanguage, settings: GuidanceSettings = GuidanceSettings(),
                                markers: MarkerStore? = nil, kinds: KindTable = .empty) throws -> PlannedGuidance {
        guard let place = try resolveOrClosest(placeName, near: here, map: map, markers: markers, language: language.code, kinds: kinds) else {
            throw GuidanceCommandError.placeNotFound(placeName, message: notFound(placeName, map: map, kinds: kinds, language: language))
        }
        return try takeMeTo(place, from: here, planner: planner, language: language, settings: settings)
    }

    /// "Take me to" a place already resolved (a numbered choice): plans the walking route to where it is aimed at.
    public static func takeMeTo(_ place: ResolvedPlace, from here: Coordinate, planner: RoutePlanner, language: GuidanceLanguage,
                                settings: GuidanceSettings = GuidanceSettings()) throws -> PlannedGuidance {
        let placeName = place.name
        guard let route = planner.plan(from: here, to: place.coordinate, destinationName: place.name) else {
            throw GuidanceCommandError.noRoute(placeName, message: language("plan.no_route", place.name))
        }
        let maneuvers = ManeuverBuilder(graph: planner.graph).maneuvers(for: route)
        var s = settings
        s.language = language.code
        let scheduler = AnnouncementScheduler(maneuvers: maneuvers, composer: AnnouncementComposer(language: language, settings: s))
        let announcements = scheduler.walkThrough()
        var waypoints: [RouteWaypoint] = maneuvers.dropFirst().dropLast().map {
            RouteWaypoint(name: language("route.waypoint_name", String($0.distanceAlong.rounded())), coordinate: $0.coordinate)
        }
        waypoints.append(RouteWaypoint(name: place.name, coordinate: maneuvers.last?.coordinate ?? place.coordinate))
        let summary = language("plan.summary", place.name, language.distance(route.length))
        return PlannedGuidance(place: place, route: route, maneuvers: maneuvers, announcements: announcements,
                               summary: summary, waypoints: waypoints)
    }

    /// "Set beacon on ⟨place⟩": the beacon and its spoken confirmation with distance and direction. With a
    /// `manager`, the beacon is set on it (sound, persistence); otherwise only composed.
    public static func setBeacon(placeName: String, from here: Coordinate, heading: Double? = nil, map: SpatialDataView,
                                 language: GuidanceLanguage, settings: GuidanceSettings = GuidanceSettings(),
                                 markers: MarkerStore? = nil, manager: DestinationManager? = nil, kinds: KindTable = .empty) async throws
        -> (beacon: Beacon, callout: GuidanceCallout) {
        guard let place = try resolveOrClosest(placeName, near: here, map: map, markers: markers, language: language.code, kinds: kinds) else {
            throw GuidanceCommandError.placeNotFound(placeName, message: notFound(placeName, map: map, kinds: kinds, language: language))
        }
        return await setBeacon(place, from: here, heading: heading, language: language, settings: settings, manager: manager)
    }

    /// "Set beacon on" a place already resolved (a numbered choice).
    public static func setBeacon(_ place: ResolvedPlace, from here: Coordinate, heading: Double? = nil, language: GuidanceLanguage,
                                 settings: GuidanceSettings = GuidanceSettings(), manager: DestinationManager? = nil) async
        -> (beacon: Beacon, callout: GuidanceCallout) {
        let beacon = Beacon(target: place.target, name: place.name, location: place.coordinate, area: place.area,
                            delayedStart: settings.delayedBeaconStart)
        if let manager {
            await manager.set(beacon, from: here)
            return (beacon, await manager.setReadBack(beacon, heading: heading))
        }
        return (beacon, DestinationManager.setCallout(beacon, from: here, heading: heading, settings: settings, language: language))
    }

    /// The place a spoken or typed name means; when none matches but exactly one name of the map is close to it
    /// ("Lyamerican Mar", a transcript of "American Bar"), that one. The caller reads back what it found when the names
    /// differ; with several close names it asks "Did you mean …?" instead.
    static func resolveOrClosest(_ placeName: String, near here: Coordinate, map: SpatialDataView, markers: MarkerStore?,
                                 language: String, kinds: KindTable) throws -> ResolvedPlace? {
        if let place = try resolve(placeName, near: here, map: map, markers: markers, language: language, kinds: kinds) { return place }
        let close = map.namesLike(placeName)
        guard close.count == 1 else { return nil }
        return try resolve(close[0], near: here, map: map, markers: markers, language: language, kinds: kinds)
    }

    /// "I could not find ⟨name⟩", with the closest names of the map when there are any ("Did you mean …?").
    public static func notFound(_ spoken: String, map: SpatialDataView, kinds: KindTable, language: GuidanceLanguage) -> String {
        let names = map.namesLike(spoken)
        guard !names.isEmpty else { return language("plan.no_place", spoken) }
        return language("search.none", spoken, language.list(names, or: true))
    }

    /// "Beacon here".
    public static func beaconHere(at here: Coordinate, language: GuidanceLanguage, settings: GuidanceSettings = GuidanceSettings()) -> Beacon {
        Beacon(target: .here, name: language("beacon.here_name"), location: here, delayedStart: settings.delayedBeaconStart)
    }

    /// What is here, in words, for naming a marker or a waypoint: the named place the user is in, else the nearest
    /// address within 25 m ("Aleksanterinkatu 52"), else the street alongside or a named place within 30 m.
    public enum PlaceHere: Sendable, Equatable {
        case at(String)
        case along(String)

        public var name: String {
            switch self {
            case .at(let n), .along(let n): n
            }
        }
    }

    public static func placeHere(_ here: Coordinate, map: SpatialDataView, language: GuidanceLanguage) -> PlaceHere? {
        guard let result = try? map.reverseGeocode(here) else { return nil }
        if case .at(let poi) = result { return .at(poi.feature.spokenName(language: language.code)) }
        if let address = nearestAddress(here, map: map) { return .at(address) }
        switch result {
        case .at: return nil
        case .on(let road, _): return .along(road.feature.spokenName(language: language.code))
        case .near(let road, let poi):
            if let poi, poi.distance < 30 { return .at(poi.feature.spokenName(language: language.code)) }
            if let road { return .along(road.feature.spokenName(language: language.code)) }
            return nil
        }
    }

    /// "Street 12" of the nearest feature within `radius` metres that has a street and a house number.
    static func nearestAddress(_ here: Coordinate, map: SpatialDataView, radius: Double = 25) -> String? {
        guard let nearby = try? map.features(near: here, radius: radius, includeUnannounceable: true) else { return nil }
        for f in nearby {
            if let street = f.feature.tags["addr:street"], let number = f.feature.tags["addr:housenumber"] {
                return "\(street) \(number)"
            }
        }
        return nil
    }

    /// A default marker name from the map: "Marker at Stockmann", "Marker at Aleksanterinkatu 52", "Marker along
    /// Kaivokatu", or the date.
    public static func defaultMarkerName(at here: Coordinate, map: SpatialDataView?, language: GuidanceLanguage, now: Date = Date()) -> String {
        switch map.flatMap({ placeHere(here, map: $0, language: language) }) {
        case .at(let name): return language("marker.default_at", name)
        case .along(let name): return language("marker.default_along", name)
        case nil: break
        }
        let f = DateFormatter()
        f.locale = Locale(identifier: language.code)
        f.dateStyle = .medium
        f.timeStyle = .short
        return language("marker.default_date", f.string(from: now))
    }
}
