import Behaviors
import Foundation
import Geo
import Guidance
import Speech

/// A route being made by voice, and the saved route it is to replace (after "replace it" to "There is already a route …").
public struct RouteMaking: Sendable, Equatable {
    public var draft: RouteDraft
    public var replacing: Route?
}

/// What the marker and route commands remember between commands.
struct MarkerConversation: Sendable {
    /// A change that waits for "replace it" or "keep it".
    enum Question: Sendable, Equatable {
        /// Put `existing` (keeping its id, so routes through it follow) where `replacement` says.
        case replaceMarker(existing: Marker, replacement: Marker)
        /// Make a new route of this name in place of `existing`.
        case replaceRoute(existing: Route)
        /// Carry out `request`, whose new name the transcript gave, once the user said yes to it.
        case confirmName(GuidanceRequest)
    }

    var question: Question?
    var making: RouteMaking?
    /// The route being guided, as it started (for "reverse route").
    var running: RouteGuidanceState?
}

extension GuidanceRequest {
    /// Every request but an answer ("replace it", "keep it") drops a question left unanswered.
    var asksNothing: Bool {
        if case .answer = self { return false }
        return true
    }
}

extension GuidanceSetup {
    /// Marker and route commands: each says what it did (or why not) and returns what it changed, for "undo".
    func carryOutMarkersAndRoutes(_ request: GuidanceRequest, user: UserState) async -> GuidanceChange? {
        guard let store else {
            say(Self.problem("the user database is not open; markers and routes are off"))
            return nil
        }
        let here = user.location
        let heading = user.headings.collection ?? user.headings.course
        do {
            switch request {
            case .saveMarker(let name):
                guard let here else { say(language("plan.no_location")); return nil }
                let name = name ?? uniqueDefaultName(at: here)
                return try saveMarker(Marker(name: name, coordinate: here), location: here)
            case .saveBeaconAsMarker(let name):
                guard let beacon = await manager.state.beacon else { say(language("beacon.none")); return nil }
                if case .marker(let id) = beacon.target, let m = try store.markers.marker(id: id), !m.isTemporary, name == nil {
                    say(language("marker.beacon_already", m.name))
                    return nil
                }
                var entityKey: String?
                if case .place(let key) = beacon.target { entityKey = key }
                return try saveMarker(Marker(name: name ?? beacon.name, coordinate: beacon.location, entityKey: entityKey),
                                      location: beacon.location)
            case .deleteMarker(let name):
                guard let marker = try findMarker(name) else { sayMarkerNotFound(name); return nil }
                _ = try store.markers.delete(marker.id)
                say(language("marker.deleted", marker.name))
                return .markerDeleted(marker)
            case .renameMarker(let name, let newName):
                guard let marker = try findMarker(name) else { sayMarkerNotFound(name); return nil }
                if let other = try store.markers.exactly(named: newName), other.id != marker.id {
                    say(language("marker.name_taken", other.name))
                    return nil
                }
                let renamed = try store.markers.rename(marker.id, to: newName)
                say(language("marker.renamed", marker.name, renamed.name))
                return .markerRenamed(before: marker)
            case .addNote(let text, let name):
                guard let (marker, note) = try noteTarget(name: name, text: text) else { return nil }
                let annotation = [marker.annotation, note].compactMap { $0?.isEmpty == false ? $0 : nil }.joined(separator: ". ")
                try store.markers.annotate(marker.id, annotation)
                say(language("marker.note_heard", marker.name, note))
                return .markerChanged(before: marker)
            case .nudgeMarker(let name, let metres, let bearing):
                guard let marker = try (name.map(findMarker) ?? store.markers.last()) else {
                    if let name { sayMarkerNotFound(name) } else { say(language("marker.none_to_change")) }
                    return nil
                }
                guard let metres, let bearing, (1...100).contains(metres) else { say(language("marker.nudge_invalid")); return nil }
                var moved = marker
                moved.coordinate = marker.coordinate.destination(bearing: bearing, distance: metres)
                try store.markers.overwrite(moved)
                say(language("marker.nudged", marker.name, language.distance(metres),
                             language.direction(from: marker.coordinate, to: moved.coordinate, heading: nil)),
                    location: moved.coordinate)
                return .markerChanged(before: marker)
            case .listMarkers:
                listMarkers(from: here, heading: heading, store: store)
                return nil
            case .newRoute(let name):
                if let existing = try store.routes.exactly(named: name) {
                    conversation.update { $0.question = .replaceRoute(existing: existing) }
                    say(language("route.exists", existing.name))
                    return nil
                }
                return startMaking(RouteMaking(draft: RouteDraft(name: name), replacing: nil))
            case .addPlaceToRoute:
                guard let making = conversation.value.making else { say(language("route.no_draft")); return nil }
                guard let here else { say(language("plan.no_location")); return nil }
                let name = map.flatMap { GuidanceCommands.placeHere(here, map: $0, language: language)?.name }
                    ?? language("route.waypoint_name", String(making.draft.stops.count + 1))
                return addStop(.place(name: name, coordinate: here), to: making)
            case .addMarkerToRoute(let name):
                guard let making = conversation.value.making else { say(language("route.no_draft")); return nil }
                guard let marker = try findMarker(name) else { sayMarkerNotFound(name); return nil }
                return addStop(.marker(marker), to: making)
            case .saveRoute:
                guard let making = conversation.value.making else { say(language("route.no_draft")); return nil }
                guard !making.draft.stops.isEmpty else { say(language("route.empty", making.draft.name)); return nil }
                let route = try store.routes.save(making.draft, replacing: making.replacing?.id)
                conversation.update { $0.making = nil }
                saySaved(route)
                return .routeSaved(route, replaced: making.replacing, making: making)
            case .reverseRoute:
                if isRouteActive {
                    return await reverseRunningRoute(user: user) ? .routeReversed : nil
                }
                guard let making = conversation.value.making else { say(language("route.none")); return nil }
                guard !making.draft.stops.isEmpty else { say(language("route.empty", making.draft.name)); return nil }
                conversation.update { $0.making?.draft = making.draft.reversed }
                say(language("route.reversed", making.draft.name))
                return .routeDraft(before: making)
            case .confirmName(let waiting, let name):
                conversation.update { $0.question = .confirmName(waiting) }
                say(language(Self.confirmationKey(waiting), name))
                return nil
            case .answer(let yes):
                if case .confirmName(let waiting)? = conversation.value.question {
                    conversation.update { $0.question = nil }
                    guard yes else { say(language("name.not_saved")); return nil }
                    return await carryOutMarkersAndRoutes(waiting, user: user)
                }
                return try answer(yes: yes, location: here)
            default:
                return nil
            }
        } catch {
            say(Self.problem(store.describe(error) + "; " + language("change.not_saved")))
            return nil
        }
    }

    // MARK: markers

    /// Saves a new marker, or asks before replacing one of the same name.
    private func saveMarker(_ marker: Marker, location: Coordinate) throws -> GuidanceChange? {
        guard let store else { return nil }
        if let existing = try store.markers.exactly(named: marker.name) {
            conversation.update { $0.question = .replaceMarker(existing: existing, replacement: marker) }
            say(language("marker.exists", existing.name))
            return nil
        }
        let saved = try store.markers.insert(marker)
        say(language("marker.created", saved.name), location: location)
        return .markerSaved(saved)
    }

    /// "Marker at Aleksanterinkatu 52", or "Marker at Aleksanterinkatu 52, number 2" when that name is taken.
    private func uniqueDefaultName(at here: Coordinate) -> String {
        let base = GuidanceCommands.defaultMarkerName(at: here, map: map, language: language)
        guard let markers = store?.markers else { return base }
        var name = base
        var n = 2
        while (try? markers.exactly(named: name)) != nil, n < 100 {
            name = language("marker.default_again", base, String(n))
            n += 1
        }
        return name
    }

    /// The saved marker a spoken or typed name means: the name itself, or the same words with numbers spoken
    /// ("marker at aleksanterinkatu fifty two" for "Marker at Aleksanterinkatu 52").
    func findMarker(_ spoken: String) throws -> Marker? {
        guard let markers = store?.markers else { return nil }
        if let m = try markers.find(named: spoken) { return m }
        let words = SlotPhrase.spokenWords(spoken)
        guard !words.isEmpty else { return nil }
        return try markers.all().first { SlotPhrase.spokenWords($0.name) == words }
    }

    /// The saved marker's own name for a place name that is a marker's, heard or typed; nil when it is none.
    public func markerName(spoken: String) -> String? {
        guard let markers = store?.markers, (try? markers.find(named: spoken)) == nil else { return nil }
        return (try? findMarker(spoken))?.name
    }

    func sayMarkerNotFound(_ name: String) {
        let names = (try? store?.markers.all().map(\.name)) ?? []
        if names.isEmpty { say(language("marker.not_found", name) + ". " + language("marker.none")); return }
        let close = NameSuggestions.closest(to: name, among: names)
        say(close.isEmpty ? language("marker.not_found", name) : language("marker.not_found_suggest", name, alternatives(close)))
    }

    /// "Home, Work or Gym".
    private func alternatives(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "" }
        return language("list.or", names.dropLast().joined(separator: ", "), names.last!)
    }

    /// The marker a note is for, and the note. Typed, "add a note to marker Home door code 1234" cannot tell where
    /// the name ends: the longest start of the words that names a marker is taken.
    private func noteTarget(name: String?, text: String) throws -> (Marker, String)? {
        guard let store else { return nil }
        guard let name else {
            guard let last = try store.markers.last() else { say(language("marker.none_to_change")); return nil }
            return (last, text)
        }
        let words = (name + " " + text).split(separator: " ").map(String.init)
        for k in stride(from: words.count - 1, through: 1, by: -1) {
            let candidate = words[..<k].joined(separator: " ")
            if let m = try store.markers.exactly(named: candidate) ?? findMarkerBySpokenWords(candidate) {
                return (m, words[k...].joined(separator: " "))
            }
        }
        sayMarkerNotFound(name)
        return nil
    }

    private func findMarkerBySpokenWords(_ spoken: String) throws -> Marker? {
        let words = SlotPhrase.spokenWords(spoken)
        return try store?.markers.all().first { SlotPhrase.spokenWords($0.name) == words }
    }

    private func listMarkers(from here: Coordinate?, heading: Double?, store: UserStore) {
        guard let all = try? store.markers.all(), !all.isEmpty else { say(language("marker.none")); return }
        var items = all.map { m -> (Marker, Double) in (m, here.map { $0.distance(to: m.coordinate) } ?? 0) }
        if here != nil { items.sort { $0.1 < $1.1 } }
        let spoken = items.prefix(10).map { m, d in
            here.map { language("marker.list_item", m.name, language.distance(d), language.direction(from: $0, to: m.coordinate, heading: heading)) }
                ?? m.name
        }.joined(separator: ". ")
        say(all.count == 1 ? language("marker.list_one", spoken) : language("marker.list", String(all.count), spoken))
    }

    // MARK: routes

    func findRoute(_ spoken: String) -> Route? {
        guard let routes = store?.routes else { return nil }
        if let r = try? routes.find(named: spoken) { return r }
        let words = SlotPhrase.spokenWords(spoken)
        return (try? routes.all())?.first { SlotPhrase.spokenWords($0.name) == words }
    }

    func sayRouteNotFound(_ name: String) {
        let names = (try? store?.routes.all().map(\.name)) ?? []
        if names.isEmpty { say(language("route.not_found", name) + ". " + language("route.none_saved")); return }
        let close = NameSuggestions.closest(to: name, among: names)
        say(close.isEmpty ? language("route.not_found", name) : language("route.not_found_suggest", name, alternatives(close)))
    }

    private func startMaking(_ making: RouteMaking) -> GuidanceChange {
        let before = conversation.update { c -> RouteMaking? in
            defer { c.making = making }
            return c.making
        }
        say(language("route.new", making.draft.name))
        return .routeDraft(before: before)
    }

    private func addStop(_ stop: RouteDraft.Stop, to making: RouteMaking) -> GuidanceChange {
        var after = making
        after.draft.stops.append(stop)
        conversation.update { $0.making = after }
        say(language("route.waypoint_added", stop.name, making.draft.name, String(after.draft.stops.count)), location: stop.coordinate)
        return .routeDraft(before: making)
    }

    private func saySaved(_ route: Route) {
        say(route.waypoints.count == 1 ? language("route.saved_one", route.name)
                                       : language("route.saved", route.name, String(route.waypoints.count)))
    }

    /// Guides the running route's waypoints in the other order, from its (old) last one: when the user is there, it
    /// is reached at once and guidance goes on to the one before.
    private func reverseRunningRoute(user: UserState) async -> Bool {
        guard let processor, let running = conversation.value.running, !running.waypoints.isEmpty else {
            say(language("route.none"))
            return false
        }
        let name = running.routeName
        let state = RouteGuidanceState(name: name, waypoints: running.waypoints.reversed(), announceWaypoints: true)
        say(language("route.reversed", name))
        let settings = await manager.settings
        await start(RouteGuidanceBehavior(state: state, language: language, settings: settings, delegate: self,
                                          currentLanguage: liveLanguage), processor: processor)
        return true
    }

    // MARK: "replace it" and "keep it", "yes" and "no"

    /// The question that reads back a heard name: "Save as 'my dentist'? Say 'yes, save it' or 'no, keep it'."
    static func confirmationKey(_ request: GuidanceRequest) -> String {
        switch request {
        case .renameMarker: "name.confirm_rename"
        case .newRoute: "name.confirm_route"
        default: "name.confirm_marker"
        }
    }

    private func answer(yes: Bool, location: Coordinate?) throws -> GuidanceChange? {
        let question = conversation.update { c -> MarkerConversation.Question? in
            defer { c.question = nil }
            return c.question
        }
        guard let question, let store else { say(language("answer.none")); return nil }
        switch question {
        case .replaceMarker(let existing, let replacement):
            guard yes else { say(language("marker.kept", existing.name)); return nil }
            var now = replacement
            now.id = existing.id
            now.name = existing.name
            now.createdAt = existing.createdAt
            try store.markers.overwrite(now)
            say(language("marker.replaced", existing.name), location: now.coordinate)
            return .markerChanged(before: existing)
        case .replaceRoute(let existing):
            guard yes else { say(language("route.kept", existing.name)); return nil }
            return startMaking(RouteMaking(draft: RouteDraft(name: existing.name), replacing: existing))
        case .confirmName:
            return nil   // answered by the caller
        }
    }

    // MARK: undo

    func markersAndRoutesReversal(of change: GuidanceChange) -> GuidanceChange? {
        switch change {
        case .markerChanged(let before):
            guard let now = try? store?.markers.marker(id: before.id) else { return nil }
            return .markerChanged(before: now)
        case .routeDraft: return .routeDraft(before: conversation.value.making)
        case .routeSaved(let route, let replaced, let making): return .routeUnsaved(route, replaced: replaced, making: making)
        case .routeUnsaved(let route, let replaced, let making): return .routeSaved(route, replaced: replaced, making: making)
        case .routeReversed: return isRouteActive ? .routeReversed : nil
        default: return nil
        }
    }

    /// Takes back a marker or route change; returns the sentence that says how things are now.
    func restoreMarkersAndRoutes(_ change: GuidanceChange, user: UserState) async -> String? {
        guard let store else { return nil }
        do {
            switch change {
            case .markerChanged(let before):
                try store.markers.overwrite(before)
                return language("marker.restored", before.name)
            case .routeDraft(let before):
                let now = conversation.update { c -> RouteMaking? in
                    defer { c.making = before }
                    return c.making
                }
                if let before {
                    if let now, now.draft.name == before.draft.name, now.draft.stops.count == before.draft.stops.count + 1,
                       let removed = now.draft.stops.last {
                        return language("route.waypoint_removed", removed.name, before.draft.name)
                    }
                    return language("route.draft_back", before.draft.name, String(before.draft.stops.count))
                }
                return now.map { language("route.discarded", $0.draft.name) }
            case .routeSaved(let route, let replaced, let making):
                if let replaced { try store.routes.restore(replaced, removing: route.id) } else { try store.routes.delete(route.id) }
                conversation.update { $0.making = making }
                return language("route.deleted", route.name) + ". "
                    + language("route.draft_back", making.draft.name, String(making.draft.stops.count))
            case .routeUnsaved(let route, let replaced, _):
                try store.routes.restore(route, removing: replaced?.id)
                conversation.update { $0.making = nil }
                return route.waypoints.count == 1 ? language("route.saved_one", route.name)
                                                  : language("route.saved", route.name, String(route.waypoints.count))
            case .routeReversed:
                _ = await reverseRunningRoute(user: user)
                return nil
            default:
                return nil
            }
        } catch {
            return Self.problem(store.describe(error))
        }
    }
}
