import Callouts
import Foundation
import Geo
import Location
import MapData

/// The pipeline's centre (spec §1): takes events in order from an `AsyncStream`, hands each to the active
/// behavior, and carries out what the generators return through the ``CalloutCoordinator``.
///
/// * `post(_:)` may be called from anywhere; `run()` handles the events one at a time, in the order posted.
/// * One custom behavior can be stacked on the default ``SoundscapeBehavior`` (`activateCustom`,
///   `deactivateCustom`).
/// * Controls: `hush`, `sleep` (every event is ignored until `wake`), `snooze` (asleep until the user leaves
///   the place: more than 40 m away or out of the place they stood in).
/// * Time comes from the injected ``PipelineClock``; the pipeline never reads the system clock.
public actor EventProcessor {
    public nonisolated let coordinator: CalloutCoordinator
    private let clock: PipelineClock
    private let map: SpatialDataView?
    private let beaconReader: (any BeaconStateReader)?
    private let markerReader: (any MarkerReader)?
    private let settings = CalloutSettings()
    private var phrasing: Phrasing
    private let root: Behavior
    private var active: Behavior
    private var user = UserState()

    private enum Sleep: Equatable {
        case awake
        case asleep
        /// Wakes when the user is more than 40 m from `origin` or no longer inside the place `inside`.
        case snoozed(origin: Coordinate?, inside: String?)
    }
    private var sleep: Sleep = .awake
    /// Told true when the pipeline goes to sleep (or snoozes) and false when it wakes (``observeSleep(_:)``).
    private var sleepObservers: [@Sendable (Bool) -> Void] = []
    /// Metres from the snooze point that wake the pipeline.
    public static let snoozeWakeDistance = 40.0

    private let events: AsyncStream<any Event>
    private let continuation: AsyncStream<any Event>.Continuation

    /// - Parameters:
    ///   - map: the map; nil when none is loaded (commands then say so).
    ///   - player: where callouts are heard.
    ///   - clock: the pipeline's time.
    ///   - beacon, markers: readers of the Guidance stage's state.
    public init(map: SpatialDataView?, phrasing: Phrasing, player: any CalloutPlayer, clock: PipelineClock,
                beacon: (any BeaconStateReader)? = nil, markers: (any MarkerReader)? = nil) {
        self.map = map
        self.phrasing = phrasing
        self.clock = clock
        self.beaconReader = beacon
        self.markerReader = markers
        self.coordinator = CalloutCoordinator(player: player, phrasing: phrasing, clock: clock)
        let root = SoundscapeBehavior()
        self.root = root
        self.active = root
        settings.units = phrasing.distances.units
        (events, continuation) = AsyncStream.makeStream(of: (any Event).self)
    }

    // MARK: the event loop

    /// Queues an event for `run()`. Safe from any task.
    public nonisolated func post(_ event: any Event) {
        continuation.yield(event)
    }

    /// Handles posted events in order until `finish()`.
    public func run() async {
        for await event in events {
            await process(event)
        }
    }

    /// Starts `run()` on its own task.
    @discardableResult
    public nonisolated func start() -> Task<Void, Never> {
        Task { await self.run() }
    }

    /// Ends `run()` after the events already posted.
    public nonisolated func finish() { continuation.finish() }

    /// Returns when every event posted so far has been handled and every callout they caused has played
    /// (needs `run()` to be running).
    public func settle() async {
        for _ in 0..<3 {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in post(FlushMarker(continuation: c)) }
            await coordinator.waitUntilIdle()
        }
    }

    /// Returns when every event posted so far has been handled (callouts may still be playing).
    public func flush() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in post(FlushMarker(continuation: c)) }
    }

    /// Handles one event now (what `run()` does with each posted event).
    public func process(_ event: any Event) async {
        if let marker = event as? FlushMarker { marker.continuation.resume(); return }
        if let change = event as? HeadingsChangedEvent {
            user.headings = Self.adjusted(change.headings, motion: user.motion)
            await coordinator.update(listener: user.listener)
            return
        }
        if let location = event as? LocationUpdatedEvent {
            updateUser(with: location)
            await coordinator.update(listener: user.listener)
            if case .snoozed = sleep, shouldWakeFromSnooze() { await wake() }
        }
        guard sleep == .awake else { return }
        let context = await makeContext()
        if let userEvent = event as? any UserInitiatedEvent {
            guard let actions = active.handle(userEvent, context: context, blocked: []) else {
                await coordinator.enqueue(CalloutGroup([.glyph(.invalidFunction)], action: .interruptAndClear, label: "unhandled"))
                return
            }
            await perform(actions)
        } else if let stateEvent = event as? any StateChangedEvent {
            await perform(active.handle(stateEvent, context: context, blocked: []))
        }
    }

    private func perform(_ actions: [HandledEventAction]) async {
        if actions.contains(where: { if case .interruptAndClearQueue = $0 { true } else { false } }) {
            await coordinator.interrupt(clearQueue: true, playHush: false)
            return
        }
        var groups: [CalloutGroup] = []
        var more: [any Event] = []
        for action in actions {
            switch action {
            case .playCallouts(let group): groups.append(group)
            case .processEvents(let events): more += events
            case .interruptAndClearQueue, .noAction: break
            }
        }
        if !groups.isEmpty { await coordinator.enqueue(groups) }
        for event in more { await process(event) }
    }

    private func makeContext() async -> GeneratorContext {
        GeneratorContext(now: clock.now, user: user, map: map, settings: settings, phrasing: phrasing,
                         beacon: beaconReader?.currentBeacon(), markers: markerReader,
                         history: await coordinator.history, playingLabel: await coordinator.playingLabel,
                         behaviorNames: active.stack.map(\.name), behaviorHelpKeys: active.stack.flatMap(\.helpKeys),
                         post: { [weak self] in self?.post($0) })
    }

    private func updateUser(with event: LocationUpdatedEvent) {
        user.fix = event.fix
        // The location stage classifies motion; an update without it leaves what was known.
        if let state = event.motion { user.motion = state }
        user.headings = event.headings.map { Self.adjusted($0, motion: user.motion) }
            ?? Headings.fromCourse(of: event.fix, motion: user.motion)
    }

    /// A course heading in a vehicle is spoken as "traveling", not "walking".
    static func adjusted(_ headings: Headings, motion: MotionState) -> Headings {
        var headings = headings
        if headings.collectionKind == .walking && motion == .inVehicle { headings.collectionKind = .traveling }
        return headings
    }

    // MARK: state

    /// What the pipeline knows about the user.
    public var currentUser: UserState { user }
    public var isAsleep: Bool { sleep != .awake }
    public var isSnoozing: Bool { if case .snoozed = sleep { true } else { false } }
    /// Calls `observer` with true whenever the pipeline goes to sleep or snoozes, and with false when it wakes
    /// (by command or by leaving the snooze place): the voice input listens for other commands while asleep.
    public func observeSleep(_ observer: @escaping @Sendable (Bool) -> Void) {
        sleepObservers.append(observer)
    }
    public var automaticCalloutsEnabled: Bool { settings.automaticCallouts }
    /// Names of the active behavior and its parents, innermost first.
    public var behaviorNames: [String] { active.stack.map(\.name) }

    /// Switches automatic callouts on or off silently (the "callouts on/off" command says so; this does not).
    public func setAutomaticCallouts(_ on: Bool) {
        settings.automaticCallouts = on
    }

    /// Switches callout categories (spec §8 senses) silently; nil leaves one as it is.
    public func setCalloutSenses(placesAndLandmarks: Bool? = nil, mobility: Bool? = nil, beaconDistance: Bool? = nil) {
        if let placesAndLandmarks { settings.placesAndLandmarks = placesAndLandmarks }
        if let mobility { settings.mobility = mobility }
        if let beaconDistance { settings.beaconDistance = beaconDistance }
    }

    /// Changes the units distances are spoken in.
    public func setUnits(_ units: UnitSystem) async {
        settings.units = units
        phrasing = Phrasing(table: phrasing.table, units: units)
        await coordinator.setPhrasing(phrasing)
    }

    /// Changes the language of the phrases.
    public func setPhrasing(_ phrasing: Phrasing) async {
        self.phrasing = phrasing
        settings.units = phrasing.distances.units
        await coordinator.setPhrasing(phrasing)
    }

    // MARK: behaviors

    /// Makes `behavior` the active behavior on top of the default one (ending any other custom behavior
    /// first), announces it with a ``BehaviorActivatedEvent`` and re-sends the current position, or `position`
    /// (where Street Preview puts its virtual walker).
    public func activateCustom(_ behavior: sending Behavior, at position: LocationUpdatedEvent? = nil) async {
        if active !== root { await deactivateCustom() }
        behavior.parent = active
        behavior.isSleeping = sleep != .awake
        behavior.willActivate()
        active = behavior
        await process(BehaviorActivatedEvent(behavior: behavior.name))
        if let position {
            await process(position)
        } else if let fix = user.fix {
            await process(LocationUpdatedEvent(fix: fix, headings: user.headings, motion: user.motion))
        }
    }

    /// Ends the custom behavior, if any: the default behavior is active again, the queue is cleared and the
    /// speech hushed with the hush earcon.
    public func deactivateCustom() async {
        guard active !== root, let parent = active.parent else { return }
        let ending = active
        ending.willDeactivate()
        let event = BehaviorDeactivatedEvent(behavior: ending.name)
        if ending.manualGenerators.contains(where: { $0.respondsTo(event) }) { await process(event) }
        ending.parent = nil
        active = parent
        await coordinator.interrupt(clearQueue: true, playHush: true)
    }

    // MARK: controls (spec §1.8, §9)

    /// Stops the speech and empties the queue, with the hush earcon when `playSound`.
    public func hush(playSound: Bool = true) async {
        await coordinator.interrupt(clearQueue: true, playHush: playSound)
    }

    /// Stops the speech and empties the queue without a sound.
    public func interruptCurrent(clearQueue: Bool = true, playHush: Bool = false) async {
        await coordinator.interrupt(clearQueue: clearQueue, playHush: playHush)
    }

    /// Every behavior ignores events until `wake()`. Speech stops; one short sentence says so.
    public func sleep() async {
        await goToSleep(.asleep, sentence: "status.sleeping")
    }

    /// Like sleep, until the user leaves: more than 40 m from here, or out of the place they are inside.
    public func snooze() async {
        var inside: String?
        if let here = user.location, let map, case .at(let place)? = try? map.reverseGeocode(here) {
            inside = place.feature.key
        }
        await goToSleep(.snoozed(origin: user.location, inside: inside), sentence: "status.snoozing")
    }

    private func goToSleep(_ state: Sleep, sentence: String) async {
        sleep = state
        for behavior in active.stack { behavior.isSleeping = true }
        for observer in sleepObservers { observer(true) }
        await coordinator.interrupt(clearQueue: true, playHush: false)
        await coordinator.enqueue(CalloutGroup([.text(phrasing.table(sentence))], action: .enqueue, label: "system.sleep"))
    }

    /// Events are handled again; the app-launch earcon plays.
    public func wake() async {
        guard sleep != .awake else { return }
        sleep = .awake
        for behavior in active.stack { behavior.isSleeping = false }
        for observer in sleepObservers { observer(false) }
        await coordinator.enqueue(CalloutGroup([.text(phrasing.table("status.awake"), glyph: .appLaunch)],
                                               action: .interruptAndClear, label: "system.wake"))
    }

    private func shouldWakeFromSnooze() -> Bool {
        guard case .snoozed(let origin, let inside) = sleep, let here = user.location else { return false }
        if let origin, here.distance(to: origin) > Self.snoozeWakeDistance { return true }
        if let inside, let map {
            if case .at(let place)? = try? map.reverseGeocode(here), place.feature.key == inside { return false }
            return true
        }
        return false
    }
}

/// Marks a point in the event stream for `settle()`.
private struct FlushMarker: Event, @unchecked Sendable {
    let continuation: CheckedContinuation<Void, Never>
}
