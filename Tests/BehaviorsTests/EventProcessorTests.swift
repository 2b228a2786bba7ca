@testable import Behaviors
import Callouts
import CalloutsTestSupport
import Clocks
import Foundation
import Geo
import Location
import Synchronization
import Testing

/// Test events and generators.
struct PingEvent: UserInitiatedEvent { var word = "ping" }
struct UnblockablePing: UserInitiatedEvent { var blockable: Bool { false } }
struct TickEvent: StateChangedEvent { var distribution: EventDistribution = .consumed }

class EchoGenerator: ManualGenerator, AutomaticGenerator {
    let word: String
    let action: QueueAction
    init(_ word: String, action: QueueAction = .interruptAndClear) { self.word = word; self.action = action }
    func respondsTo(_ event: any UserInitiatedEvent) -> Bool { event is PingEvent || event is UnblockablePing }
    func handle(_ event: any UserInitiatedEvent, context: GeneratorContext) -> HandledEventAction? {
        .playCallouts(CalloutGroup([.text(word)], action: action, label: word))
    }
    func respondsTo(_ event: any StateChangedEvent) -> Bool { event is TickEvent }
    func handle(_ event: any StateChangedEvent, context: GeneratorContext) -> HandledEventAction? {
        .playCallouts(CalloutGroup([.text("\(word) tick")], action: .enqueue, label: word))
    }
}

final class InterruptingGenerator: ManualGenerator {
    func respondsTo(_ event: any UserInitiatedEvent) -> Bool { event is PingEvent }
    func handle(_ event: any UserInitiatedEvent, context: GeneratorContext) -> HandledEventAction? {
        .interruptAndClearQueue
    }
}

final class TestBehavior: Behavior {
    init(generators: [EchoGenerator], blockManual: [any AnyObject.Type] = [], blockAuto: [any AnyObject.Type] = []) {
        super.init(name: "Test")
        manualGenerators = generators
        autoGenerators = generators
        blockedManualGenerators = Set(blockManual.map(GeneratorID.init))
        blockedAutoGenerators = Set(blockAuto.map(GeneratorID.init))
    }
}

final class ParentEcho: EchoGenerator {}

@Suite struct EventProcessorTests {
    let here = Coordinate(latitude: 60.1700, longitude: 24.9410)

    @Test func userEventsGoToTheFirstResponderAndUnhandledOnesBubbleToTheParent() async {
        let p = Pipeline(map: nil)
        // The default behavior does not know PingEvent: it is unhandled → invalid-function earcon.
        await p.send(PingEvent())
        #expect(p.player.glyphs == [.invalidFunction])

        await p.processor.activateCustom(TestBehavior(generators: [EchoGenerator("child"), EchoGenerator("second")]))
        await p.send(PingEvent())
        #expect(p.texts == ["child"])
        #expect(await p.processor.behaviorNames == ["Test", "Soundscape"])
    }

    @Test func stateEventsBroadcastOrConsumed() async {
        let p = Pipeline(map: nil)
        await p.processor.activateCustom(TestBehavior(generators: [EchoGenerator("a"), EchoGenerator("b")]))
        await p.send(TickEvent(distribution: .consumed))
        #expect(p.texts == ["a tick"])
        await p.send(TickEvent(distribution: .broadcast))
        #expect(p.texts == ["a tick", "a tick", "b tick"])
    }

    @Test func aCustomBehaviorBlocksItsParentsGeneratorsForBlockableEvents() async {
        let p = Pipeline(map: nil)
        // Child has no generator for PingEvent, and blocks the ones of the default behavior that would answer.
        final class Child: Behavior {
            init() {
                super.init(name: "Child")
                blockedManualGenerators = [GeneratorID(SystemGenerator.self), GeneratorID(ExplorationGenerator.self)]
            }
        }
        await p.processor.activateCustom(Child())
        await p.send(ExplorationEvent(.aroundMe))
        // Blocked: nobody handles it → the invalid-function earcon.
        #expect(p.player.glyphs.last == .invalidFunction)
        #expect(p.texts.isEmpty)
        await p.send(HelpEvent())
        #expect(p.texts.isEmpty)
    }

    @Test func unblockableEventsReachBlockedGenerators() async {
        let p = Pipeline(map: nil)
        // A child blocking ParentEcho still lets an unblockable event through to it.
        let parent = TestBehavior(generators: [ParentEcho("parent")])
        let behavior = TestBehavior(generators: [], blockManual: [ParentEcho.self])
        behavior.parent = parent
        #expect(behavior.handle(PingEvent(), context: await context(p), blocked: []) == nil)
        let actions = behavior.handle(UnblockablePing(), context: await context(p), blocked: [])
        #expect(actions?.count == 1)
    }

    func context(_ p: Pipeline) async -> GeneratorContext {
        GeneratorContext(now: Pipeline.start, user: UserState(), map: nil, settings: CalloutSettings(),
                         phrasing: Phrasing(table: try! StringTable(language: "en")), beacon: nil, markers: nil,
                         history: CalloutHistory(), playingLabel: nil, behaviorNames: [], post: { _ in })
    }

    @Test func activatingACustomBehaviorResendsTheLocationAndDeactivatingHushes() async {
        let p = Pipeline(map: nil)
        final class Watcher: AutomaticGenerator {
            var seen: [Coordinate] = []
            func respondsTo(_ event: any StateChangedEvent) -> Bool { event is LocationUpdatedEvent }
            func handle(_ event: any StateChangedEvent, context: GeneratorContext) -> HandledEventAction? {
                seen.append((event as! LocationUpdatedEvent).fix.coordinate)
                return .playCallouts(CalloutGroup([.text("watched")], label: "watch"))
            }
        }
        await p.move(to: Pipeline.fix(here))
        let behavior = Behavior(name: "Watch")
        behavior.autoGenerators = [Watcher()]
        await p.processor.activateCustom(behavior)
        await p.processor.settle()
        #expect(p.texts == ["watched"])
        await p.processor.deactivateCustom()
        #expect(p.player.stops == [true])
        #expect(await p.processor.behaviorNames == ["Soundscape"])
        // Activating a second custom behavior first ends the first.
        await p.processor.activateCustom(TestBehavior(generators: [EchoGenerator("one")]))
        await p.processor.activateCustom(TestBehavior(generators: [EchoGenerator("two")]))
        #expect(await p.processor.behaviorNames == ["Test", "Soundscape"])
        await p.send(PingEvent())
        #expect(p.texts.last == "two")
    }

    @Test func interruptAndClearQueueWinsOverTheOtherActions() async {
        final class Interrupter: AutomaticGenerator {
            func respondsTo(_ event: any StateChangedEvent) -> Bool { event is TickEvent }
            func handle(_ event: any StateChangedEvent, context: GeneratorContext) -> HandledEventAction? { .interruptAndClearQueue }
        }
        let p = Pipeline(map: nil, holding: true)
        let behavior = TestBehavior(generators: [EchoGenerator("x")])
        behavior.autoGenerators.append(Interrupter())
        await p.processor.activateCustom(behavior)
        await p.processor.coordinator.enqueue(CalloutGroup([.text("long story")]))
        await p.player.waitUntil { p.player.isHoldingAnItem }
        p.player.holding = false
        await p.send(TickEvent(distribution: .broadcast))
        #expect(p.player.stops == [false])
        #expect(p.texts == ["long story"])
    }

    @Test func sleepIgnoresEveryEventUntilWake() async {
        let p = Pipeline(map: nil)
        await p.processor.sleep()
        await p.processor.settle()
        #expect(p.texts == ["Sleeping. Say wake up when you need me"])
        await p.send(HelpEvent())
        await p.send(GPSStatusChangedEvent(.lost))
        await p.move(to: Pipeline.fix(here))
        #expect(p.texts.count == 1)
        #expect(await p.processor.isAsleep)
        await p.processor.wake()
        await p.processor.settle()
        #expect(p.player.glyphs.last == .appLaunch)
        #expect(p.texts.last == "Awake")
        await p.send(GPSStatusChangedEvent(.lost))
        #expect(p.texts.last == "GPS signal lost")
    }

    @Test func snoozeWakesAfterLeavingFortyMetres() async {
        let p = Pipeline(map: nil)
        await p.move(to: Pipeline.fix(here))
        await p.processor.snooze()
        await p.processor.settle()
        #expect(p.texts == ["Snoozing. I will wake up when you leave this place"])
        await p.move(to: Pipeline.fix(here.destination(bearing: 90, distance: 35), at: 30))
        #expect(await p.processor.isSnoozing)
        await p.move(to: Pipeline.fix(here.destination(bearing: 90, distance: 45), at: 60))
        #expect(await !p.processor.isAsleep)
        #expect(p.texts.last == "Awake")
    }

    @Test func thePipelineTellsTimeByTheInjectedClock() async throws {
        let clock = TestClock()
        let player = RecordingPlayer()
        let processor = EventProcessor(map: nil, phrasing: Phrasing(table: try StringTable(language: "en")), player: player,
                                       clock: PipelineClock(clock, start: Pipeline.start))
        processor.start()
        await clock.advance(by: .seconds(90))
        await processor.sleep()
        await processor.settle()
        #expect(player.items.map(\.time) == [Pipeline.start.addingTimeInterval(90)])
    }

    @Test func sleepObserversHearEverySleepAndWakeIncludingTheSnoozeEnding() async {
        let p = Pipeline(map: nil)
        let told = Mutex<[Bool]>([])
        await p.processor.observeSleep { asleep in told.withLock { $0.append(asleep) } }
        await p.processor.sleep()
        await p.processor.wake()
        await p.processor.wake()   // already awake: nothing to tell
        await p.move(to: Pipeline.fix(here))
        await p.processor.snooze()
        await p.move(to: Pipeline.fix(here.destination(bearing: 90, distance: 45), at: 60))
        #expect(told.withLock { $0 } == [true, false, true, false])
    }

    @Test func hushStopsWithTheHushEarcon() async {
        let p = Pipeline(map: nil, holding: true)
        await p.processor.coordinator.enqueue(CalloutGroup([.text("long story")]))
        await p.player.waitUntil { p.player.isHoldingAnItem }
        await p.processor.hush()
        #expect(p.player.stops == [true])
        await p.processor.coordinator.waitUntilIdle()
    }

    @Test func gpsLostAndRestoredAreSaidInTurn() async {
        let p = Pipeline(map: nil)
        await p.send(GPSStatusChangedEvent(.lost))
        await p.send(GPSStatusChangedEvent(.restored))
        #expect(p.texts == ["GPS signal lost", "GPS signal restored"])
        #expect(p.player.glyphs == [.informationAlert, .informationAlert])
    }

    /// The location stage classifies motion (one classifier); the pipeline keeps what the updates say, and a course
    /// in a vehicle is spoken as travelling.
    @Test func theLocationUpdatesMotionStateHolds() async {
        let p = Pipeline(map: nil)
        await p.move(to: Pipeline.fix(here, at: 0, course: 0, speed: 12), motion: .inVehicle)
        await p.move(to: Pipeline.fix(here.destination(bearing: 0, distance: 12), at: 1, course: 0, speed: 12))
        let user = await p.processor.currentUser
        #expect(user.motion == .inVehicle)
        #expect(user.headings.collectionKind == .traveling)
        await p.move(to: Pipeline.fix(here.destination(bearing: 0, distance: 13), at: 2, course: 0, speed: 1.2), motion: .walking)
        #expect(await p.processor.currentUser.headings.collectionKind == .walking)
    }
}
