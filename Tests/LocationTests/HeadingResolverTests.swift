import Clocks
import Foundation
import Geo
import Location
import Testing

@Suite struct HeadingResolverTests {
    typealias Resolver = HeadingResolver<TestClock<Duration>.Instant>
    let clock = Timeline()

    /// A resolver with every kind of source present and distinct: course 10, head tracker 20, manual 30,
    /// receiver 40, compass 50.
    func everything() -> Resolver {
        var r = Resolver()
        let now = clock.now
        do { let ok = r.updateCourse(10, speed: 1.3, motion: .walking, at: now); #expect(ok) }
        r.update(HeadingReading(kind: .headTracker, degrees: 0), at: now)   // aligned on the course: reference 10
        #expect(r.headTrackerReference == 10)
        r.setManual(30, at: now)                                           // re-aligned on the manual: reference 30
        r.update(HeadingReading(kind: .headTracker, degrees: -10), at: now) // head 10° left of the body: 20
        r.update(HeadingReading(kind: .receiver, degrees: 40), at: now)
        r.update(HeadingReading(kind: .compass, degrees: 50), at: now)
        return r
    }

    @Test func eachConsumerFollowsItsSpecOrder() {
        var r = everything()
        let now = clock.now
        #expect(r.heading(for: .collection, at: now) == ResolvedHeading(degrees: 10, source: .course))
        #expect(r.heading(for: .presentation, at: now) == ResolvedHeading(degrees: 20, source: .headTracker))
        #expect(r.heading(for: .beacon, at: now) == ResolvedHeading(degrees: 20, source: .headTracker))
        #expect(r.heading(for: .intersection, at: now) == ResolvedHeading(degrees: 10, source: .course))

        // Without the head tracker (it expires after 2 s; course is refreshed): user drops out.
        clock.advance(by: .milliseconds(2500))
        let later = clock.now
        r.updateCourse(12, speed: 1.3, motion: .walking, at: later)
        r.update(HeadingReading(kind: .receiver, degrees: 40), at: later)
        r.update(HeadingReading(kind: .compass, degrees: 50), at: later)
        #expect(r.heading(for: .collection, at: later)?.source == .course)
        #expect(r.heading(for: .presentation, at: later)?.source == .course)
        #expect(r.heading(for: .beacon, at: later) == ResolvedHeading(degrees: 30, source: .manual))   // device before course
        #expect(r.heading(for: .intersection, at: later)?.degrees == 12)
    }

    @Test func withoutCourseCollectionFallsToUserThenDevice() {
        var r = Resolver()
        let now = clock.now
        r.update(HeadingReading(kind: .compass, degrees: 50), at: now)
        #expect(r.heading(for: .collection, at: now) == ResolvedHeading(degrees: 50, source: .compass))
        #expect(r.heading(for: .intersection, at: now) == nil)   // intersections use course only
        r.update(HeadingReading(kind: .headTracker, degrees: 5), at: now)  // latches on the compass: reference 45
        #expect(r.heading(for: .collection, at: now) == ResolvedHeading(degrees: 50, source: .headTracker))
        r.update(HeadingReading(kind: .headTracker, degrees: 35), at: now)
        #expect(r.heading(for: .collection, at: now)?.degrees == 80)
        #expect(r.heading(for: .presentation, at: now)?.degrees == 80)
    }

    @Test func deviceSlotOrderIsManualFixedReceiverCompass() {
        var r = Resolver()
        let now = clock.now
        r.update(HeadingReading(kind: .compass, degrees: 50), at: now)
        #expect(r.heading(for: .beacon, at: now)?.source == .compass)
        r.update(HeadingReading(kind: .receiver, degrees: 40), at: now)
        #expect(r.heading(for: .beacon, at: now)?.source == .receiver)
        r.setFixed(35, at: now)
        #expect(r.heading(for: .beacon, at: now)?.source == .fixed)
        r.setManual(30, at: now)
        #expect(r.heading(for: .beacon, at: now) == ResolvedHeading(degrees: 30, source: .manual))
        r.clearManual()
        #expect(r.heading(for: .beacon, at: now)?.source == .fixed)
        r.setFixed(nil, at: now)
        #expect(r.heading(for: .beacon, at: now)?.source == .receiver)
    }

    @Test func courseExpiresThreeSecondsAfterTheLastOne() {
        var r = Resolver()
        do { let ok = r.updateCourse(90, speed: 1.2, motion: .walking, at: clock.now); #expect(ok) }
        clock.advance(by: .milliseconds(2900))
        #expect(r.degrees(from: .course, at: clock.now) == 90)
        clock.advance(by: .milliseconds(100))
        #expect(r.degrees(from: .course, at: clock.now) == nil)   // 3.0 s: expired
        #expect(r.heading(for: .collection, at: clock.now) == nil)
        // A new course brings it back and restarts the 3 s.
        r.updateCourse(95, speed: 1.2, motion: .walking, at: clock.now)
        clock.advance(by: .seconds(2))
        #expect(r.degrees(from: .course, at: clock.now) == 95)
    }

    @Test func courseNeedsMotionAndAtLeast0_4MetresPerSecond() {
        var r = Resolver()
        do { let ok = r.updateCourse(90, speed: 0.39, motion: .walking, at: clock.now); #expect(!ok) }
        do { let ok = r.updateCourse(90, speed: 1.2, motion: .stationary, at: clock.now); #expect(!ok) }
        do { let ok = r.updateCourse(90, speed: 1.2, motion: .unknown, at: clock.now); #expect(!ok) }
        do { let ok = r.updateCourse(90, speed: nil, motion: .walking, at: clock.now); #expect(!ok) }
        do { let ok = r.updateCourse(.nan, speed: 1.2, motion: .walking, at: clock.now); #expect(!ok) }
        #expect(r.degrees(from: .course, at: clock.now) == nil)
        do { let ok = r.updateCourse(-90, speed: 0.4, motion: .walking, at: clock.now); #expect(ok) }
        #expect(r.degrees(from: .course, at: clock.now) == 270)
        do { let ok = r.updateCourse(180, speed: 12, motion: .inVehicle, at: clock.now); #expect(ok) }
        // A slow course does not refresh the old one: it still expires 3 s after the last accepted.
        clock.advance(by: .seconds(2))
        r.updateCourse(170, speed: 0.1, motion: .walking, at: clock.now)
        clock.advance(by: .seconds(1))
        #expect(r.degrees(from: .course, at: clock.now) == nil)
    }

    @Test func manualHeadingExpiresAfterFiveMinutes() {
        var r = Resolver()
        r.setManual(0, at: clock.now)
        clock.advance(by: .seconds(299))
        #expect(r.heading(for: .beacon, at: clock.now) == ResolvedHeading(degrees: 0, source: .manual))
        clock.advance(by: .seconds(1))
        #expect(r.heading(for: .beacon, at: clock.now) == nil)
    }

    @Test func manualHeadingExpiresWhenTheCourseShowsATurn() {
        var r = Resolver()
        r.setManual(0, at: clock.now)                      // "I am facing north"
        // Walking north-ish keeps it.
        for course in [10.0, 350, 20] {
            clock.advance(by: .seconds(1))
            r.updateCourse(course, speed: 1.2, motion: .walking, at: clock.now)
        }
        #expect(r.degrees(from: .manual, at: clock.now) == 0)
        // One odd course (GPS noise) is not a turn.
        clock.advance(by: .seconds(1))
        r.updateCourse(90, speed: 1.2, motion: .walking, at: clock.now)
        clock.advance(by: .seconds(1))
        r.updateCourse(5, speed: 1.2, motion: .walking, at: clock.now)
        #expect(r.degrees(from: .manual, at: clock.now) == 0)
        // Two in a row, more than 45° away: the user turned east.
        for course in [90.0, 95] {
            clock.advance(by: .seconds(1))
            r.updateCourse(course, speed: 1.2, motion: .walking, at: clock.now)
        }
        #expect(r.degrees(from: .manual, at: clock.now) == nil)
        #expect(r.heading(for: .beacon, at: clock.now)?.source == .course)
    }

    @Test func fixedHeadingNeverExpires() {
        var r = Resolver()
        r.setFixed(123, at: clock.now)
        clock.advance(by: .seconds(86_400))
        #expect(r.heading(for: .presentation, at: clock.now) == ResolvedHeading(degrees: 123, source: .fixed))
    }

    @Test func receiverAndCompassExpire() {
        var r = Resolver()
        r.update(HeadingReading(kind: .receiver, degrees: 40), at: clock.now)
        r.update(HeadingReading(kind: .compass, degrees: 50), at: clock.now)
        clock.advance(by: .milliseconds(2100))
        #expect(r.heading(for: .beacon, at: clock.now)?.source == .receiver)   // compass (2 s) gone, receiver (3 s) not
        clock.advance(by: .seconds(1))
        #expect(r.heading(for: .beacon, at: clock.now) == nil)
    }

    @Test func headTrackerNeedsAReferenceAndFollowsYaw() {
        var r = Resolver()
        r.update(HeadingReading(kind: .headTracker, degrees: 15), at: clock.now)
        #expect(r.degrees(from: .headTracker, at: clock.now) == nil)   // no body heading yet: no world heading
        r.setManual(90, at: clock.now)                                  // facing east, head at yaw 15 now
        #expect(r.degrees(from: .headTracker, at: clock.now) == 90)
        r.update(HeadingReading(kind: .headTracker, degrees: 105), at: clock.now)   // turned the head 90° right
        #expect(r.degrees(from: .headTracker, at: clock.now) == 180)
        clock.advance(by: .seconds(2))
        #expect(r.degrees(from: .headTracker, at: clock.now) == nil)   // no packets for 2 s
        #expect(r.headTrackerReference == 75)                          // the alignment is kept for when it returns
    }

    @Test func invertedYawTurnsTheOtherWay() {
        var config = Resolver.Configuration()
        config.invertHeadTrackerYaw = true
        var r = Resolver(configuration: config)
        r.setFixed(0, at: clock.now)
        r.update(HeadingReading(kind: .headTracker, degrees: 0), at: clock.now)
        r.update(HeadingReading(kind: .headTracker, degrees: 30), at: clock.now)
        #expect(r.degrees(from: .headTracker, at: clock.now) == 330)
    }

    @Test func walkingStraightCorrectsHeadTrackerDrift() throws {
        var r = Resolver()
        r.setFixed(0, at: clock.now)
        r.update(HeadingReading(kind: .headTracker, degrees: 0), at: clock.now)   // reference 0
        r.setFixed(nil, at: clock.now)
        // The user walks east looking ahead, but the tracker's zero has drifted: it says yaw 70 (head 70°).
        for _ in 0..<40 {
            clock.advance(by: .seconds(1))
            r.update(HeadingReading(kind: .headTracker, degrees: 70), at: clock.now)
            r.updateCourse(90, speed: 1.3, motion: .walking, at: clock.now)
        }
        let head = try #require(r.degrees(from: .headTracker, at: clock.now))
        #expect(abs(Angle.signedDifference(head, 90)) < 1)
        // Looking far sideways (beyond the 30° window) while walking does not pull the alignment.
        let reference = r.headTrackerReference
        for _ in 0..<10 {
            clock.advance(by: .seconds(1))
            r.update(HeadingReading(kind: .headTracker, degrees: 160), at: clock.now)
            r.updateCourse(90, speed: 1.3, motion: .walking, at: clock.now)
        }
        #expect(r.headTrackerReference == reference)
    }

    @Test func recenterAlignsTheHeadWithTheBody() {
        var r = Resolver()
        do { let ok = r.recenterHeadTracker(at: clock.now); #expect(!ok) }   // no tracker
        r.setFixed(200, at: clock.now)
        r.update(HeadingReading(kind: .headTracker, degrees: 0), at: clock.now)
        r.update(HeadingReading(kind: .headTracker, degrees: -40), at: clock.now)
        #expect(r.degrees(from: .headTracker, at: clock.now) == 160)
        do { let ok = r.recenterHeadTracker(at: clock.now); #expect(ok) }
        #expect(r.degrees(from: .headTracker, at: clock.now) == 200)
    }

    @Test func specSourcesOfEachKind() {
        #expect(HeadingSourceKind.course.specSource == .course)
        #expect(HeadingSourceKind.headTracker.specSource == .user)
        for kind in [HeadingSourceKind.manual, .fixed, .receiver, .compass] { #expect(kind.specSource == .device) }
        #expect(HeadingConsumer.collection.order == [.course, .user, .device])
        #expect(HeadingConsumer.presentation.order == [.user, .course, .device])
        #expect(HeadingConsumer.beacon.order == [.user, .device, .course])
        #expect(HeadingConsumer.intersection.order == [.course])
    }
}
