import Behaviors
import Callouts
import Foundation
import Geo
@testable import Guidance
import Location
import Testing

/// Records what route guidance asks of the App.
final class RecordingRouteDelegate: RouteGuidanceDelegate, @unchecked Sendable {
    enum Call: Equatable { case set(String), clear, ended(complete: Bool) }
    private let lock = NSLock()
    private var _calls: [Call] = []
    var calls: [Call] { lock.withLock { _calls } }
    func routeSetBeacon(_ beacon: Beacon) { lock.withLock { _calls.append(.set(beacon.name)) } }
    func routeClearBeacon() { lock.withLock { _calls.append(.clear) } }
    func routeStateChanged(_ state: RouteGuidanceState) {}
    func routeEnded(_ state: RouteGuidanceState) { lock.withLock { _calls.append(.ended(complete: state.isComplete)) } }
}

/// Records what the pipeline plays.
final class TextPlayer: CalloutPlayer, @unchecked Sendable {
    private let lock = NSLock()
    private var _texts: [String] = []
    var texts: [String] { lock.withLock { _texts } }
    func play(_ item: PlaybackItem) async -> Bool {
        if !item.text.isEmpty { lock.withLock { _texts.append(item.text) } }
        return true
    }
    func stop(hush: Bool) async {}
}

/// Lets a test look at a behavior the processor owns (the processor is idle when the test looks).
final class Peek<T: AnyObject>: @unchecked Sendable {
    let object: T
    init(_ object: T) { self.object = object }
}

@Suite("Guidance in the behavior pipeline")
struct GuidanceBehaviorTests {
    static let origin = Coordinate(latitude: 60.1700, longitude: 24.9400)
    static func north(_ meters: Double) -> Coordinate { origin.destination(bearing: 0, distance: meters) }

    static func fix(_ c: Coordinate, at time: Date) -> LocationUpdatedEvent {
        LocationUpdatedEvent(fix: LocationFix(coordinate: c, timestamp: time, horizontalAccuracy: 5, speed: 1.3, course: 0))
    }

    @Test("the beacon reader mirrors the manager and hides route waypoints")
    func beaconReader() async throws {
        let manager = DestinationManager(language: try GuidanceLanguage("en"))
        let reader = DestinationBeaconReader(snapshot: manager.snapshot)
        #expect(reader.currentBeacon() == nil)
        let place = Self.north(300)
        await manager.set(Beacon(target: .place(key: "n42"), name: "Kauppatori", location: place), from: Self.origin)
        let state = try #require(reader.currentBeacon())
        #expect(state.name == "Kauppatori")
        #expect(state.featureKey == "n42")
        #expect(state.coordinate == place)
        #expect(state.isAudioEnabled)
        #expect(state.arrivalDistance == 15)
        await manager.mute()
        #expect(reader.currentBeacon()?.isAudioEnabled == false)
        await manager.set(Beacon(target: .waypoint(routeID: UUID(), index: 0), name: "Waypoint", location: place))
        #expect(reader.currentBeacon() == nil)
    }

    @Test("the marker reader lists permanent markers within the radius")
    func markerReader() throws {
        let store = try UserStore(inMemory: ())
        _ = try store.markers.create(name: "Home", at: Self.north(50))
        _ = try store.markers.create(name: "Far", at: Self.north(2000))
        let reader = StoreMarkerReader(markers: store.markers)
        #expect(reader.markers(near: Self.origin, radius: 500).map(\.name) == ["Home"])
        #expect(reader.markers(near: Self.origin, radius: 5000).map(\.name) == ["Home", "Far"])
    }

    @Test("route behavior: start, pause within 40 m, arrival, next beacon, progress, completion")
    func routeWalk() async throws {
        let player = TextPlayer()
        let clock = PipelineClock(SimulatedClock(), start: Date(timeIntervalSince1970: 1_780_300_800))
        let processor = EventProcessor(map: nil, phrasing: Phrasing(table: try StringTable(language: "en")), player: player, clock: clock)
        processor.start()
        var time = clock.now
        processor.post(Self.fix(Self.origin, at: time))
        await processor.settle()

        let delegate = RecordingRouteDelegate()
        let state = RouteGuidanceState(name: "Walk", waypoints: [RouteWaypoint(name: "Kiosk", coordinate: Self.north(100)),
                                                                 RouteWaypoint(name: "Fountain", coordinate: Self.north(300))])
        let behavior = RouteGuidanceBehavior(state: state, language: try GuidanceLanguage("en"), settings: GuidanceSettings(),
                                             delegate: delegate)
        let peek = Peek(behavior)
        #expect(behavior.blockedAutoGenerators.contains(GeneratorID(BeaconCalloutGenerator.self)))
        #expect(behavior.blockedManualGenerators.contains(GeneratorID(BeaconCalloutGenerator.self)))
        await processor.activateCustom(behavior)
        await processor.settle()
        #expect(await processor.behaviorNames == ["RouteGuidance", "Soundscape"])
        #expect(delegate.calls == [.clear, .set("Kiosk")])
        #expect(player.texts.contains { $0.hasPrefix("Beacon set on Kiosk, 100 meters away, 1 of 2") }, "\(player.texts)")
        #expect(!peek.object.autoCalloutsPaused)

        // "Where is the beacon" is about the waypoint.
        processor.post(BeaconCalloutEvent())
        await processor.settle()
        #expect(player.texts.last == "Beacon, 100 meters")

        // Within 40 m of the waypoint: automatic callouts pause.
        time += 60
        processor.post(Self.fix(Self.north(70), at: time))
        await processor.settle()
        #expect(peek.object.autoCalloutsPaused)
        #expect(peek.object.blockedAutoGenerators.contains(GeneratorID(AutoCalloutGenerator.self)))

        // Arrival within 12 m: the next waypoint.
        time += 30
        processor.post(Self.fix(Self.north(95), at: time))
        await processor.settle()
        #expect(player.texts.contains("Kiosk is nearby"))
        #expect(player.texts.contains { $0.hasPrefix("Beacon set on Fountain") && $0.hasSuffix("2 of 2") }, "\(player.texts)")
        #expect(delegate.calls.last == .set("Fountain"))
        #expect(!peek.object.autoCalloutsPaused)

        processor.post(RouteCommandEvent(.progress))
        await processor.settle()
        #expect(player.texts.last == "Waypoint 2 of 2, 50 percent complete")

        // The last waypoint completes the route.
        time += 200
        processor.post(Self.fix(Self.north(298), at: time))
        await processor.settle()
        #expect(player.texts.suffix(2) == ["Fountain is nearby", "Route complete!"])
        #expect(delegate.calls.suffix(2) == [.clear, .ended(complete: true)])
        processor.finish()
    }

    @Test("route behavior: a language change during the route applies from its next sentence")
    func routeFollowsTheLanguage() async throws {
        final class Current: @unchecked Sendable {
            private let lock = NSLock()
            private var language: GuidanceLanguage
            init(_ language: GuidanceLanguage) { self.language = language }
            var value: GuidanceLanguage {
                get { lock.withLock { language } }
                set { lock.withLock { language = newValue } }
            }
        }
        let player = TextPlayer()
        let processor = EventProcessor(map: nil, phrasing: Phrasing(table: try StringTable(language: "en")), player: player,
                                       clock: PipelineClock(SimulatedClock(), start: Date(timeIntervalSince1970: 1_780_300_800)))
        processor.start()
        processor.post(Self.fix(Self.origin, at: Date(timeIntervalSince1970: 1_780_300_800)))
        let current = Current(try GuidanceLanguage("en"))
        let waypoints = [RouteWaypoint(name: "A", coordinate: Self.north(100)), RouteWaypoint(name: "B", coordinate: Self.north(200))]
        await processor.activateCustom(RouteGuidanceBehavior(state: RouteGuidanceState(name: "Walk", waypoints: waypoints),
                                                             language: try GuidanceLanguage("en"), settings: GuidanceSettings(),
                                                             delegate: RecordingRouteDelegate(), currentLanguage: { current.value }))
        processor.post(RouteCommandEvent(.progress))
        await processor.settle()
        #expect(player.texts.last?.hasPrefix("Waypoint 1 of 2") == true, "\(player.texts)")
        current.value = try GuidanceLanguage("de")
        processor.post(RouteCommandEvent(.progress))
        await processor.settle()
        #expect(player.texts.last?.hasPrefix("Wegpunkt 1 von 2") == true, "\(player.texts)")
        processor.post(RouteCommandEvent(.next))
        await processor.settle()
        #expect(player.texts.last?.contains("B") == true && player.texts.last?.contains("Meter") == true, "\(player.texts)")
        processor.finish()
    }

    @Test("route behavior: stop ends it; next and previous move the beacon")
    func routeCommands() async throws {
        let player = TextPlayer()
        let processor = EventProcessor(map: nil, phrasing: Phrasing(table: try StringTable(language: "en")), player: player,
                                       clock: PipelineClock(SimulatedClock(), start: Date(timeIntervalSince1970: 1_780_300_800)))
        processor.start()
        processor.post(Self.fix(Self.origin, at: Date(timeIntervalSince1970: 1_780_300_800)))
        let delegate = RecordingRouteDelegate()
        let waypoints = [RouteWaypoint(name: "A", coordinate: Self.north(100)), RouteWaypoint(name: "B", coordinate: Self.north(200))]
        // A planned route: its waypoints are silent, but skipping by hand says where the beacon went.
        await processor.activateCustom(RouteGuidanceBehavior(state: RouteGuidanceState(name: "Plan", waypoints: waypoints,
                                                                                       announceWaypoints: false),
                                                             language: try GuidanceLanguage("en"), settings: GuidanceSettings(),
                                                             delegate: delegate))
        processor.post(RouteCommandEvent(.next))
        await processor.settle()
        #expect(player.texts.last == "Beacon set on B, 200 meters away, 2 of 2")
        processor.post(RouteCommandEvent(.previous))
        await processor.settle()
        #expect(delegate.calls == [.clear, .set("A"), .set("B"), .set("A")])
        processor.post(RouteCommandEvent(.stop))
        await processor.settle()
        #expect(player.texts.last == "Route stopped")
        #expect(delegate.calls.suffix(2) == [.clear, .ended(complete: false)])
        processor.finish()
    }
}
