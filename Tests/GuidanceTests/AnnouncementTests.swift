import Foundation
import Geo
@testable import Guidance
import Testing

@Suite("Maneuver grammar and scheduling")
struct AnnouncementTests {
    let en = try! GuidanceLanguage("en")
    let de = try! GuidanceLanguage("de")

    @Test("the grammar is data: parts, slots and literals")
    func grammar() {
        let g = AnnouncementGrammar("in |DISTANCE |TUNNEL |MANOEUVRE1 |MANOEUVREADDON |STREETNAME |SIGNPOST |, then |IMMEDIATELY |MANOEUVRE2 |MANOEUVREADDON")
        #expect(g.slots == [.DISTANCE, .TUNNEL, .MANOEUVRE1, .MANOEUVREADDON, .STREETNAME, .SIGNPOST, .IMMEDIATELY, .MANOEUVRE2])
        let en = AnnouncementGrammar("in DISTANCE,|MANOEUVRE1|STREETNAME|, THEN|IMMEDIATELY|MANOEUVRE2")
        let r = en.render([.DISTANCE: Rendered(text: "50 meters", samples: ["50", "meters"]),
                           .MANOEUVRE1: Rendered(text: "turn left", samples: ["turn_left"]),
                           .STREETNAME: .name("onto Kaivokatu")], literalSamples: ["in": "in"])
        #expect(r.text == "In 50 meters, turn left onto Kaivokatu")
        #expect(r.samples == ["in", "50", "meters", "turn_left"])
        let chained = en.render([.MANOEUVRE1: Rendered(text: "turn left", samples: ["turn_left"]),
                                 .THEN: Rendered(text: "then", samples: ["then"]),
                                 .IMMEDIATELY: Rendered(text: "immediately", samples: ["immediately"]),
                                 .MANOEUVRE2: Rendered(text: "turn right", samples: ["turn_right"])], literalSamples: [:])
        #expect(chained.text == "Turn left, then immediately turn right")
        #expect(chained.samples == ["turn_left", "then", "immediately", "turn_right"])
    }

    @Test("both languages define the same phrases and every maneuver renders")
    func tables() {
        #expect(Set(en.maneuvers.phrases.keys) == Set(de.maneuvers.phrases.keys))
        #expect(en.table.keys == de.table.keys)
        let kinds: [ManeuverKind] = [.depart(.north), .continue, .slight(.left), .slight(.right), .turn(.left), .turn(.right),
                                     .sharp(.left), .sharp(.right), .uTurn, .keep(.left), .keep(.right), .cross, .steps,
                                     .roundabout(exit: 2), .roundabout(exit: 9), .arrive]
        for lang in [en, de] {
            let composer = AnnouncementComposer(language: lang, settings: GuidanceSettings())
            for k in kinds {
                let m = Maneuver(kind: k, coordinate: Coordinate(latitude: 60, longitude: 25), distanceAlong: 100, streetName: "Kaivokatu",
                                 crossedStreet: "Mannerheimintie", signals: .soundSignals, destinationName: "Stockmann")
                for d in [nil, 48.0] {
                    let r = composer.compose(m, distance: d, chained: m, immediately: true)
                    #expect(!r.text.contains("["), "\(lang.code) \(k): \(r.text)")
                    #expect(!r.samples.contains { $0.contains("[") || $0.contains(".") })
                }
            }
        }
    }

    @Test("wording in English and German")
    func wording() {
        let c = Coordinate(latitude: 60, longitude: 25)
        let turn = Maneuver(kind: .turn(.left), coordinate: c, distanceAlong: 100, streetName: "Kaivokatu")
        let cross = Maneuver(kind: .cross, coordinate: c, distanceAlong: 108, crossedStreet: "Mannerheimintie", signals: .soundSignals)
        let ra = Maneuver(kind: .roundabout(exit: 3), coordinate: c, distanceAlong: 100, streetName: "Ring")
        let e = AnnouncementComposer(language: en, settings: GuidanceSettings())
        let d = AnnouncementComposer(language: de, settings: GuidanceSettings())
        #expect(e.compose(turn, distance: 50, chained: nil, immediately: false).text == "In 50 meters, turn left onto Kaivokatu")
        #expect(d.compose(turn, distance: 50, chained: nil, immediately: false).text == "In 50 Metern auf Kaivokatu links abbiegen")
        #expect(e.compose(turn, distance: nil, chained: cross, immediately: true).text
                == "Now turn left onto Kaivokatu, then immediately cross Mannerheimintie at the traffic lights with sound signals")
        #expect(d.compose(turn, distance: nil, chained: cross, immediately: true).text
                == "Jetzt auf Kaivokatu links abbiegen, dann sofort an der Ampel mit Tonsignal Mannerheimintie überqueren")
        #expect(e.compose(ra, distance: 50, chained: nil, immediately: false).text == "In 50 meters, at the roundabout, take the third exit onto Ring")
        #expect(e.compose(ra, distance: nil, chained: nil, immediately: false).samples == ["now", "roundabout", "take_the", "third", "exit"])
        // Decimal separator: the language's own, or the configured one.
        #expect(d.distance(1520).text == "1,5 Kilometern")
        #expect(e.distance(1520).text == "1.5 kilometers")
        var s = GuidanceSettings()
        s.decimalSeparator = ","
        #expect(AnnouncementComposer(language: en, settings: s).distance(2460).text == "2,5 kilometers")
        #expect(e.distance(47).text == "45 meters")
        #expect(e.distance(1000).text == "1 kilometer")
    }

    @Test("scheduler: prepare ~50 m before, now at the maneuver, chain within 10 s, each once, missed ones dropped")
    func scheduler() {
        let c = Coordinate(latitude: 60, longitude: 25)
        let ms = [Maneuver(kind: .depart(.east), coordinate: c, distanceAlong: 0, streetName: "A"),
                  Maneuver(kind: .turn(.left), coordinate: c, distanceAlong: 200, streetName: "B"),
                  Maneuver(kind: .turn(.right), coordinate: c, distanceAlong: 210, streetName: "C"),   // 7.7 s later: chained
                  Maneuver(kind: .turn(.left), coordinate: c, distanceAlong: 400, streetName: "D"),
                  Maneuver(kind: .turn(.right), coordinate: c, distanceAlong: 600, streetName: "E"),
                  Maneuver(kind: .arrive, coordinate: c, distanceAlong: 700, destinationName: "Home")]
        let s = AnnouncementScheduler(maneuvers: ms, composer: AnnouncementComposer(language: en, settings: GuidanceSettings()))
        var state = AnnouncementScheduler.State()
        var heard: [Announcement] = []
        var along = 0.0
        // Walk normally to 450 m, then a GPS gap jumps the walker past the turn at 600 m to 640 m.
        while along <= 450 { let r = s.step(state, along: along, speed: 1.3); state = r.0; heard += r.1; along += 1.3 }
        var r = s.step(state, along: 640, speed: 1.3); state = r.0; heard += r.1
        along = 640
        while along <= 700 { r = s.step(state, along: along, speed: 1.3); state = r.0; heard += r.1; along += 1.3 }
        r = s.step(state, along: 700, speed: 1.3); state = r.0; heard += r.1
        // Repeated positions change nothing.
        for _ in 0..<5 { r = s.step(state, along: 700, speed: 0); state = r.0; #expect(r.1.isEmpty) }
        #expect(heard.map(\.text) == [
            "Head east along A",
            "In 50 meters, turn left onto B, then turn right onto C",
            "Now turn left onto B, then turn right onto C",
            "Now turn right onto C",
            "In 50 meters, turn left onto D",
            "Now turn left onto D",
            "In 50 meters, you arrive at Home",
            "You have arrived at Home",
        ])
        // Faster walking shortens the chain window in distance: at 0.8 m/s the 10 m gap is 12.5 s — no chain.
        let slow = AnnouncementScheduler(maneuvers: ms, composer: AnnouncementComposer(language: en, settings: GuidanceSettings()))
        #expect(slow.walkThrough(speed: 0.8).allSatisfy { $0.chained == nil })
    }

    @Test("angle classes")
    func classes() {
        #expect(ManeuverKind.classify(angle: 10) == .continue)
        #expect(ManeuverKind.classify(angle: -30) == .slight(.left))
        #expect(ManeuverKind.classify(angle: 90) == .turn(.right))
        #expect(ManeuverKind.classify(angle: -150) == .sharp(.left))
        #expect(ManeuverKind.classify(angle: 178) == .uTurn)
    }
}
