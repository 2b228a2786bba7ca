import Foundation
import Geo
@testable import Guidance
import Testing

@Suite("Route guidance (waypoints)")
struct RouteGuidanceTests {
    let en = try! GuidanceLanguage("en")
    static let origin = Coordinate(latitude: 60.17, longitude: 24.94)

    func route() -> RouteGuidanceState {
        let w = (1...3).map { RouteWaypoint(name: "W\($0)", coordinate: Self.origin.destination(bearing: 90, distance: Double($0) * 200)) }
        return RouteGuidanceState(name: "Test", waypoints: w)
    }

    @Test("start, distance updates, pause within 40 m, arrival within 12 m, route complete")
    func walk() {
        let settings = GuidanceSettings()
        let now = Date()
        var s = route()
        var fx: [RouteGuidanceState.Effect]
        (s, fx) = RouteGuidanceState.reduce(s, .start(at: Self.origin), language: en, settings: settings, now: now)
        #expect(fx.first == .clearBeacon)
        guard case .setBeacon(let b)? = fx.dropFirst().first else { Issue.record("no beacon"); return }
        #expect(b.name == "W1")
        guard case .speak(let start)? = fx.last else { Issue.record("no start callout"); return }
        #expect(start.first?.text == "Beacon set on W1, 200 meters away, 1 of 3")
        #expect(start.first?.delay == 3)

        var texts: [String] = []
        var pauses: [Bool] = []
        var completed = false
        var m = 0.0
        while m <= 600 && !completed {
            (s, fx) = RouteGuidanceState.reduce(s, .location(Self.origin.destination(bearing: 90, distance: m), speed: 1.3),
                                                language: en, settings: settings, now: now)
            for f in fx {
                switch f {
                case .speak(let cs): texts += cs.map(\.text)
                case .pauseAutoCallouts(let p): pauses.append(p)
                case .completed: completed = true
                default: break
                }
            }
            m += 2
        }
        #expect(completed && s.isComplete && !s.isActive)
        #expect(texts.filter { $0.hasSuffix("is nearby") } == ["W1 is nearby", "W2 is nearby", "W3 is nearby"])
        #expect(texts.last == "Route complete!")
        #expect(texts.contains("Beacon set on W2, 210 meters away, 2 of 3"))
        // Distance updates: every 25 m when far away, more often when close; none right after a new waypoint.
        let updates = texts.filter { $0.hasSuffix("meters") && !$0.contains("Beacon") }
        #expect(updates.count >= 10 && updates.count <= 40, "\(updates.count) updates")
        // Paused within 40 m of each waypoint, resumed after.
        #expect(pauses.filter { $0 }.count == 3)
        #expect(pauses.last == false)
        // Arrival within 12 m: W1 at 200 m is reached on the fix at 190 m, 210 m before W2.
        #expect(s.visited == [0, 1, 2])
    }

    @Test("next, previous, progress, stop")
    func manual() {
        let settings = GuidanceSettings()
        var s = route()
        var fx: [RouteGuidanceState.Effect]
        (s, _) = RouteGuidanceState.reduce(s, .start(at: Self.origin), language: en, settings: settings, now: Date())
        (s, fx) = RouteGuidanceState.reduce(s, .previous(at: Self.origin), language: en, settings: settings, now: Date())
        #expect(fx == [.speak([GuidanceCallout(kind: .routeInfo, text: "This is the first waypoint", interrupts: true)])])
        (s, _) = RouteGuidanceState.reduce(s, .next(at: Self.origin), language: en, settings: settings, now: Date())
        #expect(s.index == 1)
        (s, fx) = RouteGuidanceState.reduce(s, .progress, language: en, settings: settings, now: Date())
        #expect(fx == [.speak([GuidanceCallout(kind: .routeInfo, text: "Waypoint 2 of 3, 0 percent complete", interrupts: true)])])
        (s, fx) = RouteGuidanceState.reduce(s, .stop, language: en, settings: settings, now: Date())
        #expect(fx.contains(.stopped) && fx.contains(.clearBeacon) && !s.isActive)
    }
}
