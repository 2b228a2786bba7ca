@testable import App
import Behaviors
import Callouts
import Foundation
import Geo
import Location
import Logging
import ServiceLifecycle
import Synchronization
import Testing

/// The location stage as `run` wires it: real GeolocationManager, real providers, the real clock.
@Suite("Location service")
struct LocationServiceTests {
    /// Collects what the service gives until `until` says enough (or 5 s pass).
    final class Collected: Sendable {
        let positions = Mutex<[PositionEvent]>([])
        let headings = Mutex<[HeadingUpdate]>([])
    }

    static func collect(_ source: LocationSource, until done: @escaping @Sendable (Collected) -> Bool) async throws -> Collected {
        let collected = Collected()
        let (stream, continuation) = AsyncStream<AssistantInput>.makeStream()
        let service = LocationService(source: source, continuation: continuation,
                                      headings: { update in collected.headings.withLock { $0.append(update) } })
        let task = Task { try await service.run() }
        let reader = Task {
            for await input in stream {
                guard case .location(let event) = input else { continue }
                collected.positions.withLock { $0.append(event) }
                if done(collected) { return }
            }
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while !done(collected) && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        task.cancel()
        reader.cancel()
        _ = try? await task.value
        return collected
    }

    @Test func aFixedPlaceWithAHeadingGivesTheFixAndTheFixedHeadingToEveryConsumerButIntersections() async throws {
        let here = Coordinate(latitude: 60.16887, longitude: 24.94400)
        let got = try await Self.collect(.fixed(here, heading: 90)) { c in
            !c.positions.withLock { $0.isEmpty } && c.headings.withLock { $0.contains { $0.collection != nil } }
        }
        let positions = got.positions.withLock { $0 }
        guard let fix = positions.first?.fix else { Issue.record("no fix: \(positions)"); return }
        #expect(fix.coordinate == here)
        let last = try #require(got.headings.withLock { $0.last })
        #expect(last.collection == ResolvedHeading(degrees: 90, source: .fixed))
        #expect(last.beacon == ResolvedHeading(degrees: 90, source: .fixed))
        #expect(last.presentation == ResolvedHeading(degrees: 90, source: .fixed))
        #expect(last.intersection == nil)
        // The pipeline's view: callouts face east ("facing", not "walking"), intersections wait for a course.
        let pipeline = HeadingRelay.headings(from: last)
        #expect(pipeline.collection == 90 && pipeline.ahead == 90 && pipeline.course == nil && pipeline.collectionKind == .facing)
    }

    @Test func aReplayedWalkArrivesInOrderAndThenEnds() async throws {
        // Five points 10 m apart going north, one second apart in the file, replayed 50 times faster.
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let points = (0..<5).map { i in
            TrackPoint(coordinate: Coordinate(latitude: 60.1690 + Double(i) * 0.00009, longitude: 24.9410),
                       time: start.addingTimeInterval(Double(i)))
        }
        let got = try await Self.collect(.replay(points, speed: 50, name: "test")) { c in
            c.positions.withLock { $0.last == .walkEnded }
        }
        let positions = got.positions.withLock { $0 }
        let fixes = positions.compactMap(\.fix)
        // Each fix comes with the location stage's motion state and headings (one motion classifier: the manager's).
        let updates = positions.compactMap { if case .update(let u) = $0 { u } else { nil } }
        #expect(updates.allSatisfy { $0.motion != nil && $0.headings != nil })
        #expect(fixes.map(\.coordinate) == points.map(\.coordinate))
        #expect(zip(fixes, fixes.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        #expect(positions.last == .walkEnded)
        // Walking north at 10 m/s: the course reaches the collection heading.
        let courses = got.headings.withLock { $0 }.compactMap(\.collection).filter { $0.source == .course }
        #expect(courses.contains { abs(Angle.signedDifference($0.degrees, 0)) < 1 }, "\(courses)")
    }

    /// A service that returns as soon as the first fix arrives, as the assistant does at the end of a walk: its
    /// return starts the group's graceful shutdown.
    struct EndsAtTheFirstFix: Service {
        let positions: AsyncStream<AssistantInput>
        func run() async {
            for await input in positions { if case .location(.update) = input { return } }
        }
    }

    /// A service that takes a while to stop once told to, as a reader of the terminal may.
    struct SlowToStop: Service {
        func run() async {
            try? await gracefulShutdown()
            try? await Task.sleep(for: .milliseconds(600))
        }
    }

    /// `soundscape run --exit-at-end-of-walk` once ended with status 1: the group stops its services one at a time,
    /// and the location service, whose walk had just ended, returned while another service was still stopping.
    /// Here the walk ends 0.1 s after the first fix, in the middle of the slow service's 0.6 s stop.
    @Test func aWalkThatEndsDuringTheShutdownWaitsForItsTurnToStop() async throws {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let points = (0..<3).map { i in
            TrackPoint(coordinate: Coordinate(latitude: 60.1690 + Double(i) * 0.00009, longitude: 24.9410),
                       time: start.addingTimeInterval(Double(i)))
        }
        let (stream, continuation) = AsyncStream<AssistantInput>.makeStream()
        let location = LocationService(source: .replay(points, speed: 20, name: "three points"), continuation: continuation,
                                       headings: { _ in })
        #expect(location.description == "location from the walk three points (3 points at 20.0×)")
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [
            .init(service: location, successTerminationBehavior: .ignore, serviceName: location.description),
            .init(service: SlowToStop(), successTerminationBehavior: .ignore, serviceName: "slow to stop"),
            .init(service: EndsAtTheFirstFix(positions: stream), successTerminationBehavior: .gracefullyShutdownGroup,
                  serviceName: "ends at the first fix"),
        ], logger: Logger(label: "test")))
        let began = ContinuousClock.now
        await #expect(throws: Never.self) { try await group.run() }
        // The group waited for the slow service and then stopped the location service.
        #expect(ContinuousClock.now - began >= .milliseconds(600))
    }
}

@Suite("Signal and heading relays")
struct RelayTests {
    static let fix = LocationFix(coordinate: Coordinate(latitude: 60.17, longitude: 24.94), timestamp: Date(timeIntervalSince1970: 0))

    @Test func aLossIsSaidOnceAndItsReturnOnlyAfterIt() {
        var relay = SignalRelay()
        // No fix yet: the receiver's missing fix is the greeting's business, not a "signal lost".
        #expect(relay.positions(for: .noFix(.noSatellites)).isEmpty)
        #expect(relay.positions(for: .fix(Self.fix)) == [.fix(Self.fix)])
        #expect(relay.positions(for: .signalLost(reason: "gpsd stopped")) == [.lost(reason: "gpsd stopped")])
        #expect(relay.positions(for: .signalLost(reason: "again")).isEmpty)
        #expect(relay.positions(for: .noFix(.noReceiver)).isEmpty)
        #expect(relay.positions(for: .signalRestored).isEmpty)
        #expect(relay.positions(for: .fix(Self.fix)) == [.restored, .fix(Self.fix)])
        #expect(relay.positions(for: .fix(Self.fix)) == [.fix(Self.fix)])
        #expect(relay.positions(for: .noFix(.noSatellites)) == [.lost(reason: NoFixReason.noSatellites.description)])
    }

    @Test func smallHeadTurnsOnlyTurnTheListenerButNewSourcesAndBigTurnsReachThePipeline() {
        let relay = HeadingRelay()
        #expect(!relay.isActive)
        func update(_ degrees: Double, _ source: HeadingSourceKind) -> HeadingUpdate {
            let h = ResolvedHeading(degrees: degrees, source: source)
            return HeadingUpdate(collection: h, presentation: h, beacon: h)
        }
        #expect(relay.store(update(90, .headTracker)))
        #expect(relay.isActive && relay.listenerHeading == 90)
        #expect(!relay.store(update(93, .headTracker)))
        #expect(relay.listenerHeading == 93)
        #expect(relay.store(update(100, .headTracker)))
        #expect(relay.store(update(100, .manual)))
        #expect(relay.store(HeadingUpdate()))
        #expect(relay.pipelineHeadings == Headings(collection: nil))
    }
}

@Suite("Doctor: heading sources")
struct HeadingCheckTests {
    @Test func withoutACompassTheDoctorWarnsAndSaysWhatElseGivesAHeading() async {
        let result = await HeadingCheck(probe: { .notPresent(reason: "iio-sensor-proxy is not running") }).run()
        #expect(result.status == .warning)
        #expect(result.detail.contains("iio-sensor-proxy is not running") && result.detail.contains("--head-tracker"))
        let present = await HeadingCheck(probe: { .present }).run()
        #expect(present.status == .ok && present.detail.contains("while you stand"))
        let denied = await HeadingCheck(probe: { CompassProbe.interpret(status: 1, stdout: "", stderr:
            "Error: GDBus.Error:org.freedesktop.DBus.Error.AccessDenied: Rejected send message") }).run()
        #expect(denied.status == .warning && denied.detail.contains("/etc/dbus-1/system.d/"))
    }
}
