import Clocks
import ClockTestSupport
import Foundation
import Geo
import Location
import ServiceLifecycle
import Synchronization
import Testing

/// A provider whose events the test pushes by hand.
final class ScriptedProvider: LocationProvider {
    let name: String
    let events: AsyncStream<LocationEvent>
    let continuation: AsyncStream<LocationEvent>.Continuation
    init(_ name: String = "scripted") {
        self.name = name
        (events, continuation) = AsyncStream.makeStream(of: LocationEvent.self)
    }
    func run() async throws { try? await gracefulShutdown() ; continuation.finish() }
}

@Suite struct GeolocationManagerTests {
    let clock = TestClock()
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let start = Coordinate(latitude: 60.171, longitude: 24.942)

    func fix(_ s: Double, metres: Double = 0, speed: Double? = 1.4, course: Double? = 90, accuracy: Double? = 4) -> LocationFix {
        LocationFix(coordinate: start.destination(bearing: 90, distance: metres), timestamp: t0.addingTimeInterval(s),
                    horizontalAccuracy: accuracy, speed: speed, course: course)
    }

    func manager(providers: Int = 1) -> GeolocationManager<TestClock<Duration>> {
        GeolocationManager(locationProviders: (0..<providers).map { ScriptedProvider("p\($0)") }, clock: clock)
    }

    /// Up to `count` elements of a stream, or fewer if they do not come within `seconds`: a test that expects
    /// more than the code yields fails instead of hanging. (The manager yields synchronously inside its methods,
    /// so what it published is already buffered.)
    func collect<T: Sendable>(_ stream: AsyncStream<T>, _ count: Int, within seconds: Double = 2) async -> [T] {
        let collector = Task {
            var out: [T] = []
            for await v in stream {
                out.append(v)
                if out.count == count { break }
            }
            return out
        }
        let timeout = Task { try await Task.sleep(for: .seconds(seconds)); collector.cancel() }
        let out = await collector.value
        timeout.cancel()
        return out
    }

    @Test func invalidFixesAreDroppedAndCounted() async {
        let m = manager()
        let fixes = await m.fixes()
        await m.handle(.fix(fix(0)))
        var nan = fix(1, metres: 1.4)
        nan.coordinate.latitude = .nan
        await m.handle(.fix(nan))
        await m.handle(.fix(fix(1, metres: 1.4, accuracy: -1)))
        await m.handle(.fix(fix(0)))                          // a repeat
        await m.handle(.fix(fix(2, metres: 500)))             // 500 m in 2 s
        await m.handle(.fix(fix(3, metres: 4.2)))
        let got = await collect(fixes, 3, within: 0.5)
        #expect(got.map(\.timestamp) == [t0, t0.addingTimeInterval(3)])
        let stats = await m.statistics
        #expect(stats.accepted == 2)
        #expect(stats.rejected == [.invalidCoordinate: 1, .invalidAccuracy: 1, .outOfOrder: 1, .impossibleJump: 1])
    }

    @Test func lossIsPublishedOnceAndRestoredBeforeTheNextFix() async throws {
        let m = manager()
        let updates = await m.updates()
        await m.handle(.fix(fix(0)))
        await m.handle(.signalLost(reason: "gpsd died"))
        await m.handle(.signalLost(reason: "gpsd died"))
        await m.handle(.signalLost(reason: "still dead"))
        await m.handle(.fix(fix(1, metres: 1.4)))
        await m.handle(.noFix(.noSatellites))
        await m.handle(.noFix(.noSatellites))
        await m.handle(.fix(fix(2, metres: 2.8)))
        let got = await collect(updates, 8, within: 0.5)
        try #require(got.count == 7, "\(got)")
        #expect(got == [.fix(got[0].fixValue!), .signalLost(reason: "gpsd died"), .signalRestored, .fix(got[3].fixValue!),
                        .noFix(.noSatellites), .signalRestored, .fix(got[6].fixValue!)])
        #expect(got.compactMap(\.fixValue).map(\.timestamp) == [0, 1, 2].map { t0.addingTimeInterval($0) })
    }

    @Test func aLowerProviderIsUsedOnlyWhileTheBetterOneIsSilent() async {
        let m = manager(providers: 2)
        let fixes = await m.fixes()
        let updates = await m.updates()
        await m.handle(.fix(fix(0)), from: 0)
        await m.handle(.fix(fix(1, metres: 1)), from: 1)          // overridden: provider 0 is fresh
        await m.handle(.signalLost(reason: "gpsd died"), from: 0)
        await clock.advance(by: .seconds(6))
        await m.handle(.fix(fix(7, metres: 9)), from: 1)          // provider 0 silent for 6 s: fail over
        let got = await collect(fixes, 3, within: 0.5)
        #expect(got.map(\.timestamp) == [t0, t0.addingTimeInterval(7)])
        #expect(await m.statistics.overridden == 1)
        // Provider 1 still delivered, so the loss of provider 0 alone was not published.
        let events = await collect(updates, 3, within: 0.5)
        #expect(events.count == 2 && events.allSatisfy { $0.fixValue != nil }, "\(events)")
    }

    @Test func courseMotionAndHeadingsFlowAndExpireOnTheInjectedClock() async throws {
        let m = manager()
        let headings = await m.headings()
        for s in 0..<3 {
            await m.handle(.fix(fix(Double(s), metres: 1.4 * Double(s))))
            if s < 2 { await clock.advance(by: .seconds(1)) }
        }
        #expect(await m.motion == .walking)
        let course = ResolvedHeading(degrees: 90, source: .course)
        #expect(await m.heading(for: .collection) == course)
        #expect(await m.heading(for: .intersection) == course)
        #expect(await m.currentHeadings.presentation?.degrees == 90)
        #expect(await m.currentHeadings.beacon?.degrees == 90)

        await m.setManualHeading(80)   // device slot: the beacon prefers it to course
        #expect(await m.heading(for: .beacon) == ResolvedHeading(degrees: 80, source: .manual))
        #expect(await m.currentHeadings.beacon?.degrees == 80)
        #expect(await m.currentHeadings.presentation?.degrees == 90)

        // No more fixes: after 3 s the course expires; the tick publishes it.
        await clock.advance(by: .milliseconds(2900))
        await m.tick()
        #expect(await m.currentHeadings.presentation?.degrees == 90)
        await clock.advance(by: .milliseconds(200))
        await m.tick()
        #expect(await m.currentHeadings.presentation?.degrees == 80)           // presentation falls back to device: manual
        #expect(await m.heading(for: .intersection) == nil)
        // The stream told every change: empty at first, course, manual for the beacon, and the expiry of course.
        let published = await collect(headings, 4)
        #expect(published.first == HeadingUpdate())
        #expect(published.last == HeadingUpdate(collection: .init(degrees: 80, source: .manual), presentation: .init(degrees: 80, source: .manual),
                                      beacon: .init(degrees: 80, source: .manual), intersection: nil))
        // And the manual heading after its five minutes.
        await clock.advance(by: .seconds(300))
        await m.tick()
        #expect(await m.currentHeadings.presentation?.degrees == nil)
        #expect(await m.currentHeadings.beacon?.degrees == nil)
    }

    @Test func receiverHeadingFromGpsdIsADeviceHeading() async {
        let m = manager()
        await m.handle(.receiverHeading(81, at: t0))
        #expect(await m.heading(for: .beacon) == ResolvedHeading(degrees: 81, source: .receiver))
        #expect(await m.heading(for: .intersection) == nil)
        await clock.advance(by: .seconds(3))
        #expect(await m.heading(for: .beacon) == nil)
    }

    @Test func aReplayRunsThroughAndEndsTheStreams() async throws {
        // 30 s of MC_polar at 1000× speed through the whole manager: fixes in order, with a derived course.
        let points = Array(try GPSData.walk("tracklib/sep/raw/MC_polar.gpx")[100..<130])
        let provider = ReplayLocationProvider(points: points, speed: 1000, clock: ContinuousClock())
        let m = GeolocationManager(locationProviders: [provider])
        let fixes = await m.fixes()
        let run = Task { try await m.run() }
        let watchdog = Task { try await Task.sleep(for: .seconds(20)); run.cancel() }
        defer { watchdog.cancel() }
        var got: [LocationFix] = []
        for await f in fixes { got.append(f) }
        try await run.value
        #expect(got.count == 30)
        #expect(got.map(\.coordinate) == points.map(\.coordinate))
        #expect(zip(got, got.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        #expect(got.dropFirst().allSatisfy { $0.course != nil && $0.speed != nil })
    }

    @Test(.timeLimit(.minutes(1)))
    func aFixedPlaceRunsUntilCancelled() async throws {
        let clock = TestClock()
        let m = GeolocationManager(locationProviders: [FixedLocationProvider(coordinate: start)], clock: clock)
        var fixes = await m.fixes().makeAsyncIterator()
        let ended = Mutex(false)
        let run = Task { try await m.run(); ended.withLock { $0 = true } }
        let watchdog = Task { try await Task.sleep(for: .seconds(10)); run.cancel() }   // never hang
        defer { watchdog.cancel() }
        #expect(await fixes.next()?.coordinate == start)
        for _ in 0..<5 {                                   // a second of the manager's 0.2 s ticks
            await clock.waitUntilSomethingSleeps()
            await clock.advance(by: .milliseconds(200))
        }
        await clock.waitUntilSomethingSleeps()             // ticking on: the manager still runs
        #expect(!ended.withLock { $0 })
        run.cancel()
        try await run.value
        #expect(await fixes.next() == nil)
        #expect(FixedLocationProvider.parse("60.171, 24.942") == start)
        #expect(FixedLocationProvider.parse("91,0") == nil)
        #expect(FixedLocationProvider.parse("north") == nil)
    }

    @Test func gracefulShutdownOfAServiceGroupStopsTheManager() async throws {
        let m = GeolocationManager(locationProviders: [FixedLocationProvider(coordinate: start)])
        var fixes = await m.fixes().makeAsyncIterator()
        let group = ServiceGroup(configuration: .init(services: [m], logger: .init(label: "test")))
        let run = Task { try await group.run() }
        let watchdog = Task { try await Task.sleep(for: .seconds(10)); run.cancel() }   // never hang
        defer { watchdog.cancel() }
        #expect(await fixes.next() != nil)
        await group.triggerGracefulShutdown()
        try await run.value
        #expect(await fixes.next() == nil)
    }
}

extension LocationEvent {
    var fixValue: LocationFix? {
        if case .fix(let f) = self { return f }
        return nil
    }
}
