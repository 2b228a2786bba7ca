@testable import Behaviors
import Callouts
import Foundation
import Geo
import Location
@testable import MapData
import Testing

/// The generators on the real Helsinki map, with an injected clock.
@Suite(.serialized) struct GeneratorTests {
    /// Where a named place's outline is nearest to `near`.
    func place(_ name: String, near: Coordinate) async throws -> (point: Coordinate, feature: MapFeature) {
        let map = try await Helsinki.map()
        let match = try #require(try map.lookup(spokenName: name, near: near).first { $0.feature.name == name })
        let item = try #require(try map.features(near: near, radius: 200).first { $0.feature.id == match.feature.id })
        return (item.closestPoint, item.feature)
    }

    // MARK: automatic place callouts

    @Test func rangesByCategory() {
        #expect(CalloutRange.for(.place) == CalloutRange(trigger: 20, proximity: 30))
        #expect(CalloutRange.for(.landmark) == CalloutRange(trigger: 50, proximity: 100))
        #expect(CalloutRange.for(.safety) == CalloutRange(trigger: 10, proximity: 20))
        #expect(CalloutRange.for(.object) == CalloutRange(trigger: 10, proximity: 20))
        #expect(CalloutRange.for(.mobility, inVehicle: true) == CalloutRange(trigger: 120, proximity: 180))
        #expect(CalloutRange.for(.road).trigger == 0)
        let settings = CalloutSettings()
        #expect(!AutoCalloutGenerator.senseEnabled(.object, settings: settings))
        #expect(AutoCalloutGenerator.senseEnabled(.place, settings: settings))
        settings.placesAndLandmarks = false
        #expect(!AutoCalloutGenerator.senseEnabled(.landmark, settings: settings))
    }

    @Test func aPlaceIsSaidInsideItsTriggerRangeOnlyAfterFiveMetresAndFiveSeconds() async throws {
        let map = try await Helsinki.map()
        let street = Coordinate(latitude: 60.16887, longitude: 24.94290)
        let bank = try await place("Forex Bank", near: street)
        // Walk towards it from the street's far side; bearing from the bank to the approach point.
        let away = bank.point.destination(bearing: 0, distance: 30)
        let near = bank.point.destination(bearing: 0, distance: 10)
        let p = Pipeline(map: map)
        await p.move(to: Pipeline.fix(away, at: 0))
        #expect(!p.texts.contains("Forex Bank"), "30 m is beyond the 20 m trigger range")
        await p.move(to: Pipeline.fix(near, at: 3))
        #expect(!p.texts.contains("Forex Bank"), "only 3 s since the last evaluation")
        await p.move(to: Pipeline.fix(near.destination(bearing: 90, distance: 1), at: 6))
        #expect(p.texts.filter { $0 == "Forex Bank" }.count == 1)
        let item = try #require(p.player.items.first { $0.text == "Forex Bank" })
        #expect(item.utterance.placement == .localized(bank.point))
        #expect(item.utterance.glyph == .sensePOI)
    }

    @Test func aPlaceIsSaidAgainAfterSixtySecondsOrAfterLeavingItsProximity() async throws {
        let map = try await Helsinki.map()
        let bank = try await place("Forex Bank", near: Coordinate(latitude: 60.16887, longitude: 24.94290))
        // Two spots 6 m apart, both within 10 m of the bank (so that it is among the 10 nearest features).
        let a = bank.point.destination(bearing: 0, distance: 8)
        let b = a.destination(bearing: 90, distance: 6)
        let p = Pipeline(map: map)
        await p.move(to: Pipeline.fix(a, at: 0))
        #expect(p.texts.filter { $0 == "Forex Bank" }.count == 1)
        await p.move(to: Pipeline.fix(b, at: 20))
        await p.move(to: Pipeline.fix(a, at: 40))
        #expect(p.texts.filter { $0 == "Forex Bank" }.count == 1, "still near and less than 60 s")
        await p.move(to: Pipeline.fix(b, at: 61))
        #expect(p.texts.filter { $0 == "Forex Bank" }.count == 2, "60 s have passed")
        // Leave beyond the 30 m proximity range, come back: said again before 60 s.
        await p.move(to: Pipeline.fix(bank.point.destination(bearing: 0, distance: 45), at: 70))
        await p.move(to: Pipeline.fix(a, at: 80))
        #expect(p.texts.filter { $0 == "Forex Bank" }.count == 3)
    }

    @Test func automaticCalloutsQueueAndNeverInterrupt() async throws {
        let map = try await Helsinki.map()
        let p = Pipeline(map: map, holding: true)
        await p.processor.coordinator.enqueue(CalloutGroup([.text("a long answer")]))
        await p.player.waitUntil { p.player.isHoldingAnItem }
        p.processor.post(LocationUpdatedEvent(fix: Pipeline.fix(Coordinate(latitude: 60.16887, longitude: 24.94290))))
        await p.processor.flush()
        #expect(p.player.stops.isEmpty)
        p.player.holding = false
        p.player.release()
        await p.processor.settle()
        #expect(p.texts.count > 1)
        let times = p.player.items.dropFirst().filter { !$0.text.isEmpty }.map(\.time)
        for (a, b) in zip(times, times.dropFirst()) { #expect(b.timeIntervalSince(a) == 0.75) }
    }

    @Test func inAVehicleOnlyLandmarksAndBusStopsFromSixTimesAsFar() async throws {
        let map = try await Helsinki.map()
        let p = Pipeline(map: map)
        await p.move(to: Pipeline.fix(Coordinate(latitude: 60.16887, longitude: 24.94290), course: 90, speed: 10), motion: .inVehicle)
        let said = p.player.items.filter { $0.kind == .poi }
        #expect(!said.isEmpty)
        let here = Coordinate(latitude: 60.16887, longitude: 24.94290)
        let around = try map.features(near: here, radius: 300)
        for item in said {
            let matches = around.filter { $0.feature.spokenName() == item.text }
            #expect(matches.contains { $0.feature.superCategory == .landmark || $0.feature.category == "bus_stop" },
                    "\(item.text) in a vehicle")
            #expect(matches.contains { $0.distance > 20 } || matches.contains { $0.feature.superCategory == .landmark })
        }
    }

    @Test func calloutsOffStopsAutomaticCalloutsAndSaysSo() async throws {
        let map = try await Helsinki.map()
        let p = Pipeline(map: map)
        await p.send(ToggleAutoCalloutsEvent(enabled: false))
        #expect(p.texts == ["Callouts off"])
        #expect(p.player.glyphs == [.calloutsOff])
        await p.move(to: Pipeline.fix(Coordinate(latitude: 60.16887, longitude: 24.94290), course: 90))
        #expect(p.texts == ["Callouts off"])
        await p.send(ToggleAutoCalloutsEvent())
        #expect(p.texts.last == "Callouts on")
        #expect(p.player.glyphs.last == .calloutsOn)
    }

    // MARK: intersections

    /// Mikonkatu meets Pohjoisesplanadi (and Korkeavuorenkatu goes on south across the park).
    func esplanadiCorner() async throws -> Intersection {
        let map = try await Helsinki.map()
        let found = try map.intersections(near: Coordinate(latitude: 60.16772, longitude: 24.94567), radius: 20)
        return try #require(found.first { Set($0.roadNames).isSuperset(of: ["Mikonkatu", "Pohjoisesplanadi"]) })
    }

    @Test func approachingAnIntersectionNamesEachRoadFromItsSide() async throws {
        let map = try await Helsinki.map()
        let corner = try await esplanadiCorner()
        let p = Pipeline(map: map)
        await p.processor.setAutomaticCallouts(true)
        await p.move(to: Pipeline.fix(corner.coordinate.destination(bearing: 0, distance: 45), at: 0, course: 180))
        #expect(!p.player.items.contains { $0.kind == .intersection }, "45 m is beyond 35 m")
        await p.move(to: Pipeline.fix(corner.coordinate.destination(bearing: 0, distance: 30), at: 10, course: 180))
        let said = p.player.items.filter { $0.kind == .intersection && !$0.text.isEmpty }
        #expect(said.first?.text == "Approaching intersection")
        #expect(said.first?.utterance.placement == .localized(corner.coordinate))
        let roads = said.dropFirst().map(\.text)
        #expect(roads.first == "Pohjoisesplanadi, goes left")
        #expect(roads.last == "Pohjoisesplanadi, goes right")
        #expect(roads.contains("Korkeavuorenkatu, continues ahead"))
        #expect(said.first { $0.text == "Pohjoisesplanadi, goes left" }?.utterance.placement == .compass(90))
        #expect(said.first { $0.text == "Pohjoisesplanadi, goes right" }?.utterance.placement == .compass(270))
        #expect(!roads.contains { $0.hasPrefix("Mikonkatu") }, "the road behind is not read")
        #expect(p.player.items.first { $0.kind == .intersection }?.utterance.glyph == .sensePOI)
        // Still current: not said again while approaching.
        await p.move(to: Pipeline.fix(corner.coordinate.destination(bearing: 0, distance: 20), at: 20, course: 180))
        #expect(p.player.items.filter { $0.text == "Approaching intersection" }.count == 1)
        // Past it by more than 20 m, heading away: the street now walked along.
        await p.move(to: Pipeline.fix(corner.coordinate.destination(bearing: 180, distance: 25), at: 60, course: 180))
        #expect(p.player.items.contains { $0.kind == .departure && $0.text.hasPrefix("Heading south along") })
    }

    @Test func noIntersectionCalloutWithoutCourseOffTheCourseOrInAVehicle() async throws {
        let map = try await Helsinki.map()
        let corner = try await esplanadiCorner()
        let north30 = corner.coordinate.destination(bearing: 0, distance: 30)
        for (course, motion): (Double?, MotionState?) in [(nil, nil), (90, nil), (180, .inVehicle)] {
            let p = Pipeline(map: map)
            await p.move(to: Pipeline.fix(north30, at: 0, course: course, speed: course == nil ? nil : 1.4), motion: motion)
            #expect(!p.player.items.contains { $0.kind == .intersection }, "course \(String(describing: course)) \(String(describing: motion))")
        }
    }

    @Test func roadDirectionsAreClockwiseFromTheLeft() {
        let legs = [("A", 0.0), ("B", 90.0), ("C", 180.0), ("D", 270.0), ("E", 300.0)].map { name, bearing in
            IntersectionLeg(roadFeatureID: nil, wayID: 1, name: name, highway: "residential", bearing: bearing, direction: 1,
                            isRoundabout: false, level: .ground)
        }
        let i = Intersection(id: 1, nodeID: nil, coordinate: Coordinate(latitude: 60, longitude: 25), isRoundabout: false,
                             level: .ground, legs: legs, distance: 0)
        let roads = IntersectionGenerator.roadDirections(i, course: 0)
        #expect(roads.map(\.name) == ["D", "E", "A", "B"])
        #expect(roads.map(\.direction) == [.left, .left, .ahead, .right])
    }

    // MARK: exploration

    @Test func whereAmISaysTheStreetAndTheWayTheUserGoes() async throws {
        let map = try await Helsinki.map()
        let p = Pipeline(map: map)
        await p.processor.setAutomaticCallouts(false)
        await p.move(to: Pipeline.fix(Coordinate(latitude: 60.16772, longitude: 24.94600), course: 90))
        await p.send(ExplorationEvent(.locate))
        #expect(p.texts == ["Heading east along Pohjoisesplanadi"])
        #expect(p.player.glyphs == [.modeEnter, .modeExit])
        #expect(p.player.items.first { !$0.text.isEmpty }?.utterance.placement == .compass(90))
    }

    @Test func aroundMeNamesTheNearestPlaceInEachQuarterClockwiseFromAhead() async throws {
        let map = try await Helsinki.map()
        let here = Coordinate(latitude: 60.16887, longitude: 24.94400)
        let p = Pipeline(map: map)
        await p.processor.setAutomaticCallouts(false)
        await p.move(to: Pipeline.fix(here, course: 90))
        await p.send(ExplorationEvent(.aroundMe))
        let said = p.player.items.filter { $0.kind == .poi }
        #expect(said.count == 4)
        for (index, item) in said.enumerated() {
            let relative = Angle.relative(bearing: try #require(item.bearing), heading: 90)
            #expect(Int(Angle.normalized(relative + 45) / 90) == index, "\(item.text) is in quarter \(index)")
            let name = String(item.text.split(separator: ",")[0])
            #expect(try !map.lookup(spokenName: name, near: here).isEmpty, "\(name) is on the map")
        }
    }

    @Test func aheadOfMeNamesUpToFiveNearestInFront() async throws {
        let map = try await Helsinki.map()
        let here = Coordinate(latitude: 60.16887, longitude: 24.94400)
        let p = Pipeline(map: map)
        await p.processor.setAutomaticCallouts(false)
        await p.move(to: Pipeline.fix(here, course: 90))
        await p.send(ExplorationEvent(.aheadOfMe))
        let said = p.player.items.filter { $0.kind == .poi }
        #expect(said.count == 5)
        for item in said { #expect(abs(Angle.signedDifference(try #require(item.bearing), 90)) <= 45) }
        let distances = said.compactMap(\.distance)
        #expect(distances == distances.sorted())
        #expect(said.allSatisfy { $0.text.contains("meters") || $0.text.contains("close by") })
    }

    /// No heading now: Around Me and Ahead of Me say first what their directions are measured from (north, or the
    /// last walking direction) and give every place a direction from it, in English and German.
    @Test func withoutAHeadingAnswersSayWhatTheirDirectionsAreFrom() async throws {
        let map = try await Helsinki.map()
        let here = Coordinate(latitude: 60.16887, longitude: 24.94400)
        let p = Pipeline(map: map)
        await p.processor.setAutomaticCallouts(false)
        await p.move(to: Pipeline.fix(here))                       // standing, never walked: from north
        await p.send(ExplorationEvent(.aroundMe))
        #expect(p.texts.first == "No facing direction is known; directions are from north")
        let around = p.player.items.filter { $0.kind == .poi }
        #expect(around.count == 4)
        for (index, item) in around.enumerated() {
            let relative = Angle.relative(bearing: try #require(item.bearing), heading: 0)
            #expect(Int(Angle.normalized(relative + 45) / 90) == index, "\(item.text) is in quarter \(index) from north")
            #expect(item.text.split(separator: ",").count == 3, "\(item.text) has a direction")
        }
        // Walked east, now standing: from the last walking direction.
        await p.move(to: Pipeline.fix(here, at: 10, course: 90))
        await p.move(to: Pipeline.fix(here, at: 20))
        let before = p.player.items.count
        await p.send(ExplorationEvent(.aheadOfMe))
        #expect(p.texts(after: before).first == "No facing direction is known; directions are from your last walking direction, east")
        let ahead = p.player.items.dropFirst(before).filter { $0.kind == .poi }
        #expect(!ahead.isEmpty)
        for item in ahead { #expect(abs(Angle.signedDifference(try #require(item.bearing), 90)) <= 45) }

        let de = Pipeline(map: map, language: "de")
        await de.processor.setAutomaticCallouts(false)
        await de.move(to: Pipeline.fix(here))
        await de.send(ExplorationEvent(.aheadOfMe))
        #expect(de.texts.first == "Ich kenne deine Blickrichtung nicht; die Richtungen sind von Norden aus angegeben")
    }

    @Test func pressingTheSameButtonWhileItPlaysStopsIt() async throws {
        let map = try await Helsinki.map()
        let p = Pipeline(map: map, holding: true)
        await p.processor.setAutomaticCallouts(false)
        await p.move(to: Pipeline.fix(Coordinate(latitude: 60.16887, longitude: 24.94400), course: 90))
        p.processor.post(ExplorationEvent(.aroundMe, stopsItsOwnAnswer: true))
        await p.player.waitUntil { p.player.isHoldingAnItem }
        p.player.holding = false   // before the second press: what it plays must not be held (the first answer still is)
        p.processor.post(ExplorationEvent(.aroundMe, stopsItsOwnAnswer: true))
        await p.processor.flush()
        #expect(p.player.stops == [false])
        await p.processor.settle()
        #expect(p.player.glyphs == [.modeEnter])
    }

    /// A typed or spoken "where am i" asked again while the first answer still plays (e.g. right after the sound
    /// server died) cuts the first answer off and gives the whole answer again: the question is never swallowed.
    @Test func askingTheSameThingWhileItPlaysAnswersAgain() async throws {
        let map = try await Helsinki.map()
        let p = Pipeline(map: map, holding: true)
        await p.processor.setAutomaticCallouts(false)
        await p.move(to: Pipeline.fix(Coordinate(latitude: 60.16772, longitude: 24.94600), course: 90))
        p.processor.post(ExplorationEvent(.locate))
        await p.player.waitUntil { p.player.isHoldingAnItem }
        p.player.release()  // the mode-enter earcon; the words are held next
        await p.player.waitUntil { p.player.texts.count == 1 && p.player.isHoldingAnItem }
        let answer = try #require(p.player.texts.first)
        #expect(answer.contains("Pohjoisesplanadi"), "\(answer)")
        p.processor.post(ExplorationEvent(.locate))
        await p.player.waitUntil { p.player.stops.count == 1 }
        p.player.holding = false
        p.player.release()
        await p.processor.settle()
        #expect(p.player.stops == [false], "the first answer is cut off, without the hush earcon")
        #expect(p.player.texts == [answer, answer], "the second answer is given in full: \(p.player.texts)")
        #expect(p.player.glyphs == [.modeEnter, .modeEnter, .modeExit], "\(p.player.glyphs)")
    }

    @Test func nearbyMarkersAndTheirAbsence() async throws {
        let map = try await Helsinki.map()
        let here = Coordinate(latitude: 60.16887, longitude: 24.94400)
        let none = Pipeline(map: map)
        await none.move(to: Pipeline.fix(here))
        await none.send(ExplorationEvent(.nearbyMarkers))
        #expect(none.texts.last == "There are no nearby markers to call out right now")

        let markers = FixedMarkers(all: [MarkerInfo(id: "1", name: "Home", coordinate: here.destination(bearing: 0, distance: 50)),
                                         MarkerInfo(id: "2", name: "Far", coordinate: here.destination(bearing: 0, distance: 5000))])
        let p = Pipeline(map: map, markers: markers)
        await p.processor.setAutomaticCallouts(false)
        await p.move(to: Pipeline.fix(here))
        await p.send(ExplorationEvent(.nearbyMarkers))
        #expect(p.texts == ["Marker. Home, 50 meters"])
    }

    @Test func withoutAPositionExplorationSaysSo() async throws {
        let p = Pipeline(map: try await Helsinki.map())
        await p.send(ExplorationEvent(.aroundMe))
        #expect(p.texts == ["Your location is not known yet"])
    }

    // MARK: system

    @Test func repeatSaysTheNewestHistoryCalloutWithItsDistance() async throws {
        let map = try await Helsinki.map()
        let p = Pipeline(map: map)
        await p.send(RepeatCalloutEvent())
        #expect(p.texts == ["Nothing to repeat"])
        let bank = try await place("Forex Bank", near: Coordinate(latitude: 60.16887, longitude: 24.94290))
        await p.move(to: Pipeline.fix(bank.point.destination(bearing: 0, distance: 18)))
        let last = try #require(p.player.items.last { $0.kind == .poi })
        await p.send(RepeatCalloutEvent())
        let phrasing = Phrasing(table: try StringTable(language: "en"))
        #expect(p.texts.last == phrasing.nameAndDistance(last.text, distance: last.distance ?? 0, accuracy: 5))
        #expect(p.texts.last?.hasPrefix("\(last.text),") == true)
        #expect(p.player.items.last?.utterance.placement == last.utterance.placement)
    }

    @Test func helpReadsTheCommandsAvailableNow() async throws {
        let p = Pipeline(map: nil)
        await p.send(HelpEvent())
        let first = try #require(p.texts.last)
        #expect(first.hasPrefix("You can say: where am I, what's around me, what's ahead"))
        #expect(first.contains("callouts off") && !first.contains("callouts on"))
        #expect(!first.contains("repeat"))
        #expect(!first.contains("where is the beacon"))
        await p.send(ToggleAutoCalloutsEvent(enabled: false))
        await p.send(HelpEvent())
        let second = try #require(p.texts.last)
        #expect(second.contains("callouts on") && !second.contains("callouts off"))
    }

    @Test func unavailableCommandsAreSaidNotSilent() async {
        let p = Pipeline(map: nil)
        await p.send(UnavailableCommandEvent(words: "set beacon on stockmann"))
        #expect(p.texts == ["Sorry, set beacon on stockmann is not available yet"])
        #expect(p.player.glyphs == [.invalidFunction])
    }

    @Test func germanAnswers() async throws {
        let map = try await Helsinki.map()
        let p = Pipeline(map: map, language: "de")
        await p.processor.setAutomaticCallouts(false)
        await p.move(to: Pipeline.fix(Coordinate(latitude: 60.16772, longitude: 24.94600), course: 90))
        await p.send(ExplorationEvent(.locate))
        #expect(p.texts == ["Unterwegs nach Osten entlang Pohjoisesplanadi"])
    }

    // MARK: beacon

    @Test func beaconDistanceEveryFiftyMetresAndFiveSecondsAndArrival() async throws {
        let start = Coordinate(latitude: 60.1690, longitude: 24.9440)
        let target = start.destination(bearing: 0, distance: 300)
        let reader = FixedBeacon(BeaconState(id: "b", name: "Stockmann", coordinate: target, superCategory: .place))
        let p = Pipeline(map: nil, beacon: reader)
        await p.move(to: Pipeline.fix(start, at: 0, course: 0))
        #expect(p.texts == ["Beacon, 300 meters"])
        await p.move(to: Pipeline.fix(start.destination(bearing: 0, distance: 40), at: 30, course: 0))
        #expect(p.texts.count == 1, "40 m is not enough")
        await p.move(to: Pipeline.fix(start.destination(bearing: 0, distance: 60), at: 45, course: 0))
        #expect(p.texts.last == "Beacon, 240 meters")
        await p.move(to: Pipeline.fix(start.destination(bearing: 0, distance: 120), at: 48, course: 0))
        #expect(p.texts.count == 2, "only 3 s later")
        await p.move(to: Pipeline.fix(start.destination(bearing: 0, distance: 290), at: 200, course: 0))
        #expect(p.texts.count == 2, "within the 15 m arrival distance nothing is said")
        await p.send(BeaconGeofenceEvent(didEnter: true, mutedBeacon: true))
        #expect(p.texts.last == "Beacon within 15 meters. The beacon sound is now off")
        #expect(p.player.glyphs.last == .beaconFound)
        #expect(p.player.items.last?.utterance.placement == .localized(target))
        // Arriving again after walking away (the sound stayed off): no claim that arriving muted it.
        await p.send(BeaconGeofenceEvent(didEnter: false, mutedBeacon: false))
        #expect(p.texts.count == 3, "leaving says nothing")
        await p.send(BeaconGeofenceEvent(didEnter: true, mutedBeacon: false))
        #expect(p.texts.last == "Beacon within 15 meters")
        #expect(p.player.glyphs.last == .sensePOI)
        await p.send(BeaconCalloutEvent())
        #expect(p.texts.last == "Beacon close by")
        // Not kept for "repeat".
        #expect(await p.processor.coordinator.history.isEmpty)
    }

    @Test func whereIsTheBeaconWithoutABeacon() async {
        let p = Pipeline(map: nil)
        await p.send(BeaconCalloutEvent())
        #expect(p.texts == ["No beacon is set"])
    }
}
