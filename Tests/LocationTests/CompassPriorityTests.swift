import Clocks
import Foundation
import Geo
import Location
import Testing

/// A compass (iio-sensor-proxy) among the other headings, through the GeolocationManager as `run` uses it: it is the
/// spec's *device* heading (§2.1), so it gives a standing user a facing direction for everything, yields to the
/// course for callouts while walking but not for the beacon, yields to the head for the beacon and the listener,
/// and to a heading the user said or gave on the command line.
@Suite struct CompassPriorityTests {
    let clock = TestClock()
    let place = Coordinate(latitude: 60.171, longitude: 24.942)

    func manager() -> GeolocationManager<TestClock<Duration>> {
        GeolocationManager(locationProviders: [ScriptedProvider()], clock: clock)
    }

    func walking(_ m: GeolocationManager<TestClock<Duration>>, course: Double, at s: Double) async {
        let fix = LocationFix(coordinate: place.destination(bearing: course, distance: 1.4 * s),
                              timestamp: Date(timeIntervalSince1970: 1_800_000_000 + s), horizontalAccuracy: 4, speed: 1.4, course: course)
        await m.handle(.fix(fix))
    }

    @Test func standingStillTheCompassGivesEveryHeadingButIntersections() async {
        let m = manager()
        await m.handle(HeadingReading(kind: .compass, degrees: 90))
        for consumer in [HeadingConsumer.collection, .presentation, .beacon] {
            #expect(await m.heading(for: consumer) == ResolvedHeading(degrees: 90, source: .compass), "\(consumer)")
        }
        #expect(await m.heading(for: .intersection) == nil)
        // The latest headings carry it too: the beacon part is chosen from it.
        let headings = await m.currentHeadings
        #expect(headings.beacon?.degrees == 90 && headings.presentation?.degrees == 90)
    }

    @Test func walkingTheCourseLeadsCalloutsButTheBeaconKeepsTheCompass() async {
        let m = manager()
        await m.handle(HeadingReading(kind: .compass, degrees: 90))
        for s in 0..<4 { await walking(m, course: 180, at: Double(s)); await clock.advance(by: .seconds(1)) }
        await m.handle(HeadingReading(kind: .compass, degrees: 95))
        #expect(await m.heading(for: .collection)?.source == .course)
        #expect(await m.heading(for: .presentation)?.source == .course)
        #expect(await m.heading(for: .beacon) == ResolvedHeading(degrees: 95, source: .compass))   // device before course
        #expect(await m.currentHeadings.beacon?.degrees == 95)
    }

    @Test func theHeadAndWhatTheUserSaidComeBeforeTheCompass() async {
        let m = manager()
        await m.handle(HeadingReading(kind: .compass, degrees: 90))
        await m.handle(HeadingReading(kind: .headTracker, degrees: 0))   // aligned on the compass: the head faces 90
        await m.handle(HeadingReading(kind: .headTracker, degrees: 30))
        #expect(await m.heading(for: .beacon) == ResolvedHeading(degrees: 120, source: .headTracker))
        #expect(await m.heading(for: .presentation)?.degrees == 120)
        await clock.advance(by: .seconds(3))                                    // the tracker is gone; the compass refreshes
        await m.handle(HeadingReading(kind: .compass, degrees: 90))
        await m.setManualHeading(270)                                     // "I am facing west"
        #expect(await m.heading(for: .beacon) == ResolvedHeading(degrees: 270, source: .manual))
        await m.clearManualHeading()
        #expect(await m.heading(for: .beacon) == ResolvedHeading(degrees: 90, source: .compass))
        await m.setFixedHeading(0)                                        // --heading 0
        #expect(await m.heading(for: .beacon) == ResolvedHeading(degrees: 0, source: .fixed))
    }

    @Test func aCompassThatFallsSilentIsForgottenAfterTwoSeconds() async {
        let m = manager()
        await m.handle(HeadingReading(kind: .compass, degrees: 90))
        await clock.advance(by: .milliseconds(1900))
        await m.tick()
        #expect(await m.heading(for: .beacon)?.source == .compass)
        await clock.advance(by: .milliseconds(200))
        await m.tick()
        #expect(await m.heading(for: .beacon) == nil)
        #expect(await m.currentHeadings.beacon?.degrees == nil)
    }
}
