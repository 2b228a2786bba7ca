import Callouts
import Clocks
import ClockTestSupport
import CalloutsTestSupport
import Foundation
import Geo
import Testing

@Suite struct CalloutCoordinatorTests {
    let phrasing = Phrasing(table: try! StringTable(language: "en"))
    let start = Date(timeIntervalSince1970: 1_780_300_800)

    /// A coordinator on a test clock: the pauses after callouts last until the test advances it.
    func make(holding: Bool = false) -> (CalloutCoordinator, RecordingPlayer, TestClock<Duration>) {
        let player = RecordingPlayer(holding: holding)
        let clock = TestClock()
        return (CalloutCoordinator(player: player, phrasing: phrasing, clock: PipelineClock(clock, start: start)), player, clock)
    }

    func group(_ texts: [String], _ action: QueueAction = .enqueue, label: String = "", log: HookLog? = nil,
               history: Bool = false, delay: Double = 0, valid: Bool = true) -> CalloutGroup {
        let callouts = texts.map { text in
            Callout(kind: .system, subject: text, includeInHistory: history) { _ in [Utterance(text)] }
        }
        return CalloutGroup(callouts, action: action, label: label, calloutDelay: delay,
                            isValid: { valid },
                            onStart: { log?.add("\(label) start") },
                            onComplete: { log?.add("\(label) complete \($0)") },
                            onCalloutSkipped: { log?.add("\(label) skipped \($0.subject ?? "")") },
                            onSkipped: { log?.add("\(label) dropped") })
    }

    @Test func enqueuedGroupsPlayInOrderWithTheDelayAfterEachCallout() async {
        let (coordinator, player, clock) = make()
        await coordinator.enqueue(group(["one", "two"], delay: 0.75))
        await coordinator.enqueue(group(["three"]))
        for played in 1...2 {
            await clock.waitUntilSomethingSleeps()
            await clock.advance(by: .milliseconds(749))
            #expect(player.texts.count == played, "the pause after a callout is cut short")
            await clock.advance(by: .milliseconds(1))
        }
        await coordinator.waitUntilIdle()
        #expect(player.texts == ["one", "two", "three"])
        let times = player.items.map { $0.time.timeIntervalSince(start) }
        #expect(times == [0, 0.75, 1.5])
        #expect(await !clock.hasSleepers)
    }

    @Test func interruptAndClearStopsThePlayingGroupAndDropsTheQueue() async {
        let (coordinator, player, _) = make(holding: true)
        let log = HookLog()
        await coordinator.enqueue(group(["a1", "a2"], label: "A", log: log))
        await coordinator.enqueue(group(["b1"], label: "B", log: log))
        await player.waitUntil { player.isHoldingAnItem }
        // Items from now on play through (the held one still waits): set before C, which could start playing
        // before this line ran and would then be held for ever.
        player.holding = false
        await coordinator.enqueue(group(["c1"], .interruptAndClear, label: "C", log: log))
        await coordinator.waitUntilIdle()
        #expect(player.texts == ["a1", "c1"])
        #expect(player.stops == [false])
        #expect(log.events == ["A start", "B dropped", "A skipped a1", "A skipped a2", "A complete false", "C start", "C complete true"])
    }

    @Test func anAnswerClearedBeforeItPlayedIsStillShownButAnAutomaticCalloutIsNot() async {
        let (coordinator, player, _) = make(holding: true)
        await coordinator.enqueue(group(["playing"], label: "A"))
        await player.waitUntil { player.isHoldingAnItem }
        // Two answers in a row (commands typed quickly) behind an automatic callout: each clears the queue.
        await coordinator.enqueue(group(["place passed"], label: "auto"))
        await coordinator.enqueue(group(["Beacon set on Kauppatori"], .clear, label: "B"))
        await coordinator.enqueue(group(["Beacon on Kauppatori, 600 meters"], .clear, label: "C"))
        #expect(player.passedOver == ["Beacon set on Kauppatori"])
        player.holding = false
        player.release()
        await coordinator.waitUntilIdle()
        #expect(player.texts == ["playing", "Beacon on Kauppatori, 600 meters"])
        #expect(player.passedOver == ["Beacon set on Kauppatori"])
    }

    @Test func interruptAndClearWithNothingPlayingIsAPlainEnqueue() async {
        let (coordinator, player, _) = make()
        await coordinator.enqueue(group(["x"], .interruptAndClear))
        await coordinator.waitUntilIdle()
        #expect(player.texts == ["x"])
        #expect(player.stops.isEmpty)
    }

    @Test func clearEmptiesTheQueueButLetsTheCurrentCalloutFinish() async {
        let (coordinator, player, _) = make(holding: true)
        let log = HookLog()
        await coordinator.enqueue(group(["a1"], label: "A", log: log))
        await coordinator.enqueue(group(["b1"], label: "B", log: log))
        await player.waitUntil { player.isHoldingAnItem }
        await coordinator.enqueue(group(["c1"], .clear, label: "C", log: log))
        player.holding = false
        player.release()
        await coordinator.waitUntilIdle()
        #expect(player.texts == ["a1", "c1"])
        #expect(player.stops.isEmpty)
        #expect(log.events.contains("A complete true"))
        #expect(log.events.contains("B dropped"))
    }

    @Test func ofGroupsQueuedTogetherOnlyTheFirstKeepsItsAction() async {
        let (coordinator, player, _) = make(holding: true)
        await coordinator.enqueue(group(["a1"]))
        await player.waitUntil { player.isHoldingAnItem }
        player.holding = false   // before the interruption: "x" must not be held (the held "a1" still is)
        await coordinator.enqueue([group(["x"], .interruptAndClear), group(["y"], .interruptAndClear)])
        await coordinator.waitUntilIdle()
        #expect(player.texts == ["a1", "x", "y"])
        #expect(player.stops == [false])
    }

    @Test func anInvalidGroupIsDroppedAtTheHeadOfTheQueue() async {
        let (coordinator, player, _) = make()
        let log = HookLog()
        await coordinator.enqueue([group(["a"], label: "A", log: log, valid: false), group(["b"], label: "B", log: log)])
        await coordinator.waitUntilIdle()
        #expect(player.texts == ["b"])
        #expect(log.events.first == "A dropped")
    }

    @Test func aCalloutOutsideItsRegionToLiveIsSkipped() async {
        let (coordinator, player, _) = make()
        let log = HookLog()
        let callouts = ["near", "far", "near too"].map { t in Callout(kind: .poi, subject: t) { _ in [Utterance(t)] } }
        await coordinator.enqueue(CalloutGroup(callouts, isWithinRegionToLive: { callout, _ in callout.subject != "far" },
                                               onCalloutSkipped: { log.add("skipped \($0.subject!)") }))
        await coordinator.waitUntilIdle()
        #expect(player.texts == ["near", "near too"])
        #expect(log.events == ["skipped far"])
    }

    @Test func calloutsAreRenderedWhenTheyPlayFromTheListenerOfThatMoment() async {
        let (coordinator, player, _) = make(holding: true)
        let place = Coordinate(latitude: 60.1700, longitude: 24.9400)
        await coordinator.update(listener: ListenerState(location: place.destination(bearing: 0, distance: 100), heading: 180))
        let distanceCallout = Callout(kind: .poi) { ctx in
            [Utterance(ctx.phrasing.distances.string(meters: ctx.location!.distance(to: place)), placement: .localized(place))]
        }
        await coordinator.enqueue(group(["first"]))
        await coordinator.enqueue(CalloutGroup([distanceCallout]))
        await player.waitUntil { player.isHoldingAnItem }
        // The user walks on while "first" plays; the queued callout speaks from the new place.
        await coordinator.update(listener: ListenerState(location: place.destination(bearing: 0, distance: 40), heading: 180))
        player.holding = false
        player.release()
        await coordinator.waitUntilIdle()
        #expect(player.texts == ["first", "40 meters"])
        let item = player.items.last!
        #expect(abs(item.bearing! - 180) < 0.5)
        #expect(abs(item.distance! - 40) < 0.5)
    }

    @Test func theHistoryKeepsTheLastTenCalloutsMarkedForIt() async {
        let (coordinator, _, _) = make()
        await coordinator.enqueue(group((1...12).map { "place \($0)" }, history: true))
        await coordinator.enqueue(group(["not kept"], history: false))
        await coordinator.waitUntilIdle()
        let history = await coordinator.history
        #expect(history.callouts.count == 10)
        #expect(history.last?.subject == "place 12")
        #expect(history.back(9)?.subject == "place 3")
    }

    @Test func aRepeatRendersFromWhereItWasAsked() async {
        let (coordinator, player, _) = make()
        let asked = Coordinate(latitude: 60.17, longitude: 24.94)
        await coordinator.update(listener: ListenerState(location: Coordinate(latitude: 60.18, longitude: 24.95)))
        let callout = Callout(kind: .poi, includeInHistory: true) { ctx in
            [Utterance(ctx.isRepeat && ctx.location == asked ? "repeat from there" : "live")]
        }
        await coordinator.enqueue(CalloutGroup([callout], repeatingFrom: asked))
        await coordinator.waitUntilIdle()
        #expect(player.texts == ["repeat from there"])
    }

    @Test func modeSoundsFrameACompletedGroupOnly() async {
        let (coordinator, player, _) = make()
        await coordinator.enqueue(CalloutGroup([.text("Stockmann")], playModeSounds: true))
        await coordinator.waitUntilIdle()
        #expect(player.glyphs == [.modeEnter, .modeExit])
        #expect(player.items.map(\.utterance.text) == ["", "Stockmann", ""])

        let (c2, p2, _) = make(holding: true)
        await c2.enqueue(CalloutGroup([.text("one"), .text("two")], playModeSounds: true))
        await p2.waitUntil { p2.isHoldingAnItem }
        p2.release()
        await p2.waitUntil { p2.items.count == 2 && p2.isHoldingAnItem }
        await c2.interrupt(clearQueue: true, playHush: true)
        await c2.waitUntilIdle()
        #expect(p2.glyphs == [.modeEnter])
        #expect(p2.stops == [true])
    }

    @Test func hushWithNothingPlayingStillPlaysTheHushEarcon() async {
        let (coordinator, player, _) = make()
        await coordinator.interrupt(clearQueue: true, playHush: true)
        #expect(player.stops == [true])
        await coordinator.interrupt(clearQueue: true, playHush: false)
        #expect(player.stops == [true])
    }

    @Test func placementsGiveBearingsAndDistances() {
        let here = Coordinate(latitude: 60.17, longitude: 24.94)
        let there = here.destination(bearing: 90, distance: 50)
        #expect(Placement.standard.bearing(from: here, heading: 10) == nil)
        #expect(abs(Placement.localized(there).bearing(from: here, heading: nil)! - 90) < 0.1)
        #expect(abs(Placement.localized(there).distance(from: here)! - 50) < 0.1)
        #expect(Placement.relative(270).bearing(from: here, heading: 100) == 10)
        #expect(Placement.compass(-90).bearing(from: here, heading: nil) == 270)
        #expect(Placement.compass(45).distance(from: here) == nil)
        #expect(Placement.relative(0).bearing(from: here, heading: nil) == nil)
    }
}
