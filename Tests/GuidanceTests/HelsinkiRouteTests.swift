import Foundation
import Geo
@testable import Guidance
import MapData
import MapTestSupport
import Testing

@Suite("Rautatientori to Kauppatori on the real map", .serialized)
struct HelsinkiRouteTests {
    /// The station square, in front of the main entrance.
    static let rautatientori = Coordinate(latitude: 60.1705, longitude: 24.9428)

    /// The "now" announcements expected, in order, per language (checked against the map below).
    static let expected: [String: [String]] = [
        "en": [
            "Head south along Keskuskatu",
            "cross Keskuskatu at the traffic lights",
            "turn left onto Ateneuminkuja",
            "continue onto Yliopistonkatu",
            "turn right onto Fabianinkatu",
            "turn left onto Aleksanterinkatu",
            "turn right onto Unioninkatu",
            "cross Pohjoisesplanadi at the traffic lights",
            "turn left onto Pohjoisesplanadi",
            "keep right onto Eteläranta",
            "You have arrived at Market Square",
        ],
        "de": [
            "Auf Keskuskatu Richtung Süden gehen",
            "an der Ampel Keskuskatu überqueren",
            "auf Ateneuminkuja links abbiegen",
            "auf Yliopistonkatu weitergehen",
            "auf Fabianinkatu rechts abbiegen",
            "auf Aleksanterinkatu links abbiegen",
            "auf Unioninkatu rechts abbiegen",
            "an der Ampel Pohjoisesplanadi überqueren",
            "auf Pohjoisesplanadi links abbiegen",
            "auf Eteläranta rechts halten",
            "Sie haben Kauppatori erreicht",
        ],
    ]

    static let streets = ["Keskuskatu", "Ateneuminkuja", "Yliopistonkatu", "Fabianinkatu", "Aleksanterinkatu", "Unioninkatu",
                          "Pohjoisesplanadi", "Eteläranta"]

    /// Replays the route as a walk: fixes every second at 1.3 m/s with up to 4 m of GPS jitter, projected
    /// onto the route and fed to the scheduler with an injected clock.
    static func simulatedWalk(_ plan: PlannedGuidance, language: GuidanceLanguage, settings: GuidanceSettings = GuidanceSettings())
        -> [(time: Date, announcement: Announcement)] {
        let scheduler = AnnouncementScheduler(maneuvers: plan.maneuvers, composer: AnnouncementComposer(language: language, settings: settings))
        var tracker = RouteProgressTracker(line: plan.route.polyline)
        var state = AnnouncementScheduler.State()
        var rng = SeededRandom(seed: 8)
        var clock = Date(timeIntervalSince1970: 1_800_000_000)
        var out: [(Date, Announcement)] = []
        let total = plan.route.polyline.length
        var walked = 0.0
        while true {
            let truth = plan.route.polyline.point(atDistance: walked)!
            let fix = truth.destination(bearing: Double.random(in: 0..<360, using: &rng), distance: Double.random(in: 0...4, using: &rng))
            let along = tracker.update(fix)
            let (next, spoken) = scheduler.step(state, along: along, speed: 1.3)
            state = next
            out += spoken.map { (clock, $0) }
            if walked >= total { break }
            walked = min(total, walked + 1.3)
            clock += 1
        }
        // Standing at the destination for a while says nothing more.
        for _ in 0..<30 {
            let (next, spoken) = scheduler.step(state, along: tracker.update(plan.route.polyline.points.last!), speed: 0)
            state = next
            out += spoken.map { (clock, $0) }
        }
        return out
    }

    @Test("the planned route follows real streets (checked with osmium)")
    func realStreets() async throws {
        let map = try await HelsinkiMap.get()
        let plan = try GuidanceCommands.takeMeTo(placeName: "Kauppatori", from: Self.rautatientori, map: map.view,
                                                 planner: map.planner, language: try GuidanceLanguage("en"))
        #expect(plan.place.name == "Market Square")
        #expect(plan.route.length > 700 && plan.route.length < 1100, "length \(plan.route.length)")
        // Ends at the square.
        let end = plan.route.polyline.points.last!
        #expect(end.distance(to: plan.place.coordinate) < 30)
        // Every street named in an announcement is the name of a way the route uses or crosses, per osmium.
        let named = Set(plan.maneuvers.compactMap { $0.streetName ?? $0.crossedStreet })
        #expect(named.isSubset(of: Set(Self.streets)))
        // A street is either the name of a way walked, or (for an unnamed sidewalk) of a way within 25 m of
        // the sidewalk. osmium reads the names from the extract independently of the importer.
        var candidates: [String: Set<Int64>] = [:]
        for leg in plan.route.legs {
            if let name = leg.name { candidates[name, default: []].insert(leg.wayID) }
            if let along = leg.alongStreet {
                let mid = Polyline(leg.geometry).point(atDistance: leg.length / 2)!
                for e in map.planner.graph.edges where e.name == along {
                    if let n = Polyline(e.geometry).nearestPoint(to: mid), n.distance < 25 { candidates[along, default: []].insert(e.wayID) }
                }
            }
        }
        let osmNames = try Osmium.wayNames(Array(candidates.values.flatMap { $0 }))
        for street in named {
            let ways = candidates[street] ?? []
            #expect(!ways.isEmpty, "\(street) is not on or beside the route")
            #expect(ways.contains { osmNames[$0] == street }, "osmium does not name a way \(street) on or beside the route")
        }
        // The crossed streets are named ways that share a node with the crossing (ask osmium for the ways
        // named Keskuskatu and Pohjoisesplanadi: they exist in the extract).
        let crossed = plan.maneuvers.filter { $0.kind == .cross }.compactMap(\.crossedStreet)
        #expect(crossed == ["Keskuskatu", "Pohjoisesplanadi"])
        let allNames = try Osmium.run(["tags-filter", "-f", "opl", TestData.helsinkiPath, "w/highway", "-o", "-"])
        for street in crossed { #expect(allNames.contains("name=\(street)")) }
        // Both crossings have traffic signals.
        #expect(plan.maneuvers.filter { $0.kind == .cross }.allSatisfy { $0.signals != .none })
    }

    @Test("a simulated walk hears each maneuver once, in order, naming the real streets", arguments: ["en", "de"])
    func walk(language code: String) async throws {
        let map = try await HelsinkiMap.get()
        let language = try GuidanceLanguage(code)
        let plan = try GuidanceCommands.takeMeTo(placeName: "Kauppatori", from: Self.rautatientori, map: map.view,
                                                 planner: map.planner, language: language)
        let heard = Self.simulatedWalk(plan, language: language)

        // Every announcement exactly once.
        let ids = heard.map(\.announcement.id)
        #expect(Set(ids).count == ids.count)
        // In route order: maneuver indices never go back, prepare before now.
        for (a, b) in zip(ids, ids.dropFirst()) {
            #expect(a.maneuver < b.maneuver || (a.maneuver == b.maneuver && a.phase == .prepare && b.phase == .now))
        }
        // Every maneuver gets its "now" announcement.
        let nows = heard.filter { $0.announcement.id.phase == .now }.map(\.announcement)
        #expect(nows.map(\.id.maneuver) == Array(plan.maneuvers.indices))
        // The expected maneuver texts, in order (each "now" text starts with the maneuver, after "Now"/"Jetzt").
        let expected = Self.expected[code]!
        var cursor = 0
        for text in nows.map(\.text) where cursor < expected.count {
            if text.localizedCaseInsensitiveContains(expected[cursor]) { cursor += 1 }
        }
        #expect(cursor == expected.count, "matched \(cursor) of \(expected.count); next: \(cursor < expected.count ? expected[cursor] : "")")
        // Each expected text appears exactly once among the "now" announcements' first maneuver.
        for phrase in expected {
            let firstParts = nows.map { $0.text.components(separatedBy: code == "en" ? ", then" : ", dann").first! }
            #expect(firstParts.filter { $0.localizedCaseInsensitiveContains(phrase) }.count == 1, "\(phrase)")
        }
        // All real streets are named.
        let spoken = heard.map(\.announcement.text).joined(separator: " ")
        for street in Self.streets { #expect(spoken.contains(street), "\(street) never named") }
        // Preparatory announcements come about 50 m before (never more), "now" within a few metres.
        for (_, a) in heard {
            let m = plan.maneuvers[a.id.maneuver]
            let lead = m.distanceAlong - a.spokenAt
            switch a.id.phase {
            case .prepare: #expect(lead <= 50 + 1.3 && lead > 9, "prepare \(a.text) at \(lead) m")
            case .now: #expect(a.id.maneuver == 0 || (lead <= 4 + 4 && lead > -25), "now \(a.text) at \(lead) m")
            }
        }
        // Chained announcements: only when the next maneuver is within 10 s of walking.
        for (_, a) in heard {
            guard let j = a.chained else { continue }
            let gap = plan.maneuvers[j].distanceAlong - plan.maneuvers[a.id.maneuver].distanceAlong
            #expect(gap / 1.3 <= 10)
            #expect(a.text.contains(code == "en" ? ", then" : ", dann"))
        }
        #expect(heard.contains { $0.announcement.chained != nil })
        #expect(heard.last?.announcement.text == (code == "en" ? "You have arrived at Market Square" : "Sie haben Kauppatori erreicht"))
    }

    @Test("settings: no street names, decimal separator, sample output")
    func settings() async throws {
        let map = try await HelsinkiMap.get()
        let language = try GuidanceLanguage("en")
        var s = GuidanceSettings()
        s.speakStreetNames = false
        s.output = .samples
        let plan = try GuidanceCommands.takeMeTo(placeName: "Kauppatori", from: Self.rautatientori, map: map.view,
                                                 planner: map.planner, language: language, settings: s)
        for a in plan.announcements {
            for street in Self.streets { #expect(!a.text.contains(street)) }
            #expect(!a.samples.isEmpty)
            #expect(a.samples.allSatisfy { !$0.contains(" ") && $0 == $0.lowercased() })
        }
        #expect(plan.announcements.contains { $0.rendered(.samples) == "in 50 meters turn_left" })
        #expect(plan.announcements.contains { $0.text == "Now cross the street at the traffic lights, then keep left" })
    }
}
