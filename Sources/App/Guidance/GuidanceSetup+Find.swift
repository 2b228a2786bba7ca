import Behaviors
import Callouts
import Foundation
import Geo
import Guidance
import MapData

extension GuidanceSetup {
    /// "Nearest pharmacy", "search kiasma": speaks the numbered list; "number two", "take me to number two": acts on it.
    func find(_ request: GuidanceRequest, user: UserState, processor: EventProcessor) async {
        guard let here = user.location else { say(language("plan.no_location")); return }
        let heading = user.headings.collection ?? user.headings.course
        switch request {
        case .findKind(let spoken):
            guard let map else { say(language("plan.no_place", spoken)); return }
            guard let kind = kinds.kind(named: spoken) else {
                say(language("find.unknown_kind", spoken, language.list(kinds.closest(to: spoken).map(\.plural))))
                return
            }
            do {
                speakList(.kind(kind, try PlaceFinder.nearest(kind, from: here, map: map, language: language.code)),
                          from: here, heading: heading)
            } catch { say(Self.problem("\(error)")) }
        case .search(let text):
            guard let map else { say(language("plan.no_place", text)); return }
            do {
                speakList(try PlaceFinder.search(text, from: here, map: map, kinds: kinds, language: language.code),
                          from: here, heading: heading)
            } catch { say(Self.problem("\(error)")) }
        case .choose(let number):
            guard let place = choice(number) else { return }
            let settings = await manager.settings
            let (_, readBack) = await GuidanceCommands.setBeacon(place, from: here, heading: heading, language: language,
                                                                 settings: settings, manager: manager)
            speak(readBack)
            processor.post(BeaconChangedEvent(distanceAlreadySpoken: true))
        case .guideToChoice(let number):
            guard let place = choice(number ?? choices.value.chosen ?? 1) else { return }
            guard let mapPath else { say(language("plan.no_place", place.name)); return }
            let settings = await manager.settings
            do {
                let planner = try self.planner.value ?? RoutePlanner.load(mapPath: mapPath)
                self.planner.set(planner)
                let plan = try GuidanceCommands.takeMeTo(place, from: here, planner: planner, language: language, settings: settings)
                say(plan.summary)
                await start(RouteGuidanceBehavior(planned: plan, language: language, settings: settings, delegate: self,
                                                  currentLanguage: liveLanguage), processor: processor)
            } catch { say(String(describing: error)) }
        default:
            break
        }
    }

    /// The place numbered `number` (1-based; nil: the one after the last chosen) of the last list; says why not when
    /// there is none.
    private func choice(_ number: Int?) -> ResolvedPlace? {
        let (places, chosen) = choices.value
        guard !places.isEmpty else { say(language("choose.none")); return nil }
        let index = number ?? ((chosen ?? 0) + 1)
        guard (1...places.count).contains(index) else {
            say(language("choose.out_of_range", String(index), String(places.count)))
            return nil
        }
        choices.update { $0.chosen = index }
        return GuidanceCommands.resolved(places[index - 1], language: language)
    }

    /// Speaks a list as one answer: how many, then each with its number, distance and direction (placed where it is),
    /// and keeps it for "number two".
    private func speakList(_ result: PlaceSearchResult, from here: Coordinate, heading: Double?) {
        let places: [FoundPlace]
        let header: String
        switch result {
        case .kind(let kind, let found):
            places = found
            if found.isEmpty {
                say(language("find.none", kind.plural, language.distance(10_000)))
                return
            }
            header = found.count >= 5 ? language("find.nearest_few", String(found.count), kind.plural)
                : language("find.found", String(found.count), kind.counted(found.count))
        case .names(let query, let total, let found):
            places = found
            header = total == 1 ? language("search.found_one", found.first?.name ?? query)
                : language("search.found", String(total), query)
        case .nothing(let query, let kinds, let names):
            if !names.isEmpty {
                say(language("search.none", query, language.list(names, or: true)))
            } else {
                say(language("search.none_kinds", query, language.list(kinds.map(\.plural))))
            }
            return
        }
        choices.set((places, nil))
        say(header)
        if heading == nil { enqueue(language("find.compass"), at: nil) }
        for (i, place) in places.enumerated() {
            let text = language("find.item", String(i + 1), place.spokenName(language), language.distance(place.distance),
                                language.direction(from: here, to: place.coordinate, heading: heading))
            enqueue(text, at: place.coordinate)
        }
        enqueue(language("find.hint"), at: nil)
    }

    private func enqueue(_ text: String, at location: Coordinate?) {
        processor?.post(GenericAnnouncementEvent(text, placement: location.map { .localized($0) } ?? .standard, action: .enqueue))
    }
}

extension KindTable {
    /// The kinds table of a grammar folder (`kinds.txt`); nil when the folder has none.
    public static func beside(grammars path: String) throws -> KindTable? {
        let file = (path as NSString).appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: file) else { return nil }
        return try load(path: file)
    }
}
