import Foundation
import Geo

/// Where the listener is and faces; what callouts are rendered from when they play.
public struct ListenerState: Sendable, Equatable {
    public var location: Coordinate?
    public var heading: Double?
    public var headingKind: HeadingKind
    public var accuracy: Double?
    public var inVehicle: Bool

    public init(location: Coordinate? = nil, heading: Double? = nil, headingKind: HeadingKind = .facing,
                accuracy: Double? = nil, inVehicle: Bool = false) {
        self.location = location
        self.heading = heading
        self.headingKind = headingKind
        self.accuracy = accuracy
        self.inVehicle = inVehicle
    }
}

/// Plays callout groups one at a time through a ``CalloutPlayer`` (Soundscape's callout state machine and
/// queue, spec §1.5–1.7 and §1.9).
///
/// * Queue actions: `interruptAndClear` cuts what plays and empties the queue, `clear` empties the queue,
///   `enqueue` appends. Of several groups queued together only the first keeps its action.
/// * A group's `isValid` is asked when it reaches the head of the queue; each callout's region to live just
///   before it plays.
/// * Callouts are rendered when they play, from the listener's position at that moment (or, for a repeat, the
///   position the repeat was asked at); those marked for it enter the 10-item history as they play (repeats do
///   not enter it again).
/// * Optional mode sounds frame a group; `calloutDelay` seconds of the injected clock follow each callout.
public actor CalloutCoordinator {
    private let player: any CalloutPlayer
    private let clock: PipelineClock
    public private(set) var phrasing: Phrasing
    public private(set) var listener = ListenerState()
    public private(set) var history: CalloutHistory

    private var queue: [CalloutGroup] = []
    private var current: CalloutGroup?
    private var generation = 0
    private var worker: Task<Void, Never>?
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []

    public init(player: any CalloutPlayer, phrasing: Phrasing, clock: PipelineClock, historyCapacity: Int = 10) {
        self.player = player
        self.phrasing = phrasing
        self.clock = clock
        self.history = CalloutHistory(capacity: historyCapacity)
    }

    // MARK: state

    public func setPhrasing(_ phrasing: Phrasing) { self.phrasing = phrasing }
    public func update(listener: ListenerState) { self.listener = listener }

    /// True while a group is playing (including its pauses).
    public var isPlaying: Bool { current != nil }
    /// The label of the group playing now.
    public var playingLabel: String? { current?.label }
    /// Groups waiting behind the one playing.
    public var queuedLabels: [String] { queue.map(\.label) }

    // MARK: queueing

    public func enqueue(_ group: CalloutGroup) async { await enqueue([group]) }

    public func enqueue(_ groups: [CalloutGroup]) async {
        for (index, group) in groups.enumerated() {
            switch index == 0 ? group.action : .enqueue {
            case .interruptAndClear:
                if current != nil {
                    clearQueue()
                    queue.append(group)
                    await stopCurrent(hush: false)
                } else {
                    queue.append(group)
                }
            case .clear:
                clearQueue()
                queue.append(group)
            case .enqueue:
                queue.append(group)
            }
        }
        // Bounded: when callouts come faster than they can be spoken (a fast replay, a burst of places), the
        // oldest waiting groups give way to the newest, as if cleared.
        if queue.count > Self.maximumQueued {
            let dropped = queue.prefix(queue.count - Self.maximumQueued)
            queue.removeFirst(dropped.count)
            for group in dropped { group.onSkipped() }
        }
        startWorker()
    }

    /// The most groups that wait behind the one playing.
    public static let maximumQueued = 32

    /// Stops the group playing now (with the hush earcon when `playHush`), and empties the queue when
    /// `clearQueue`.
    public func interrupt(clearQueue clear: Bool, playHush: Bool) async {
        if clear { clearQueue() }
        if current != nil || playHush { await stopCurrent(hush: playHush) }
    }

    /// Forgets the history (e.g. on a new map).
    public func clearHistory() { history.removeAll() }

    /// Returns when nothing is playing and nothing waits.
    public func waitUntilIdle() async {
        if worker == nil && queue.isEmpty && current == nil { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    private func clearQueue() {
        let dropped = queue
        queue.removeAll()
        for group in dropped {
            // A group that cleared the way for itself answers the user (automatic callouts only queue up); when a
            // newer answer clears it before it played (two commands typed quickly), its words are still shown.
            if group.action != .enqueue {
                let context = context(for: group)
                for callout in [group.prefix].compactMap({ $0 }) + group.callouts {
                    for utterance in callout.render(context) where !utterance.text.isEmpty {
                        player.passOver(item(utterance, kind: callout.kind, group: group))
                    }
                }
            }
            group.onSkipped()
        }
    }

    private func stopCurrent(hush: Bool) async {
        generation += 1
        await player.stop(hush: hush)
    }

    private func startWorker() {
        guard worker == nil, !queue.isEmpty else { return }
        worker = Task { await self.drain() }
    }

    private func drain() async {
        while !queue.isEmpty {
            let group = queue.removeFirst()
            guard group.isValid() else { group.onSkipped(); continue }
            await play(group)
        }
        worker = nil
        let waiters = idleWaiters
        idleWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    // MARK: playing one group

    private func context(for group: CalloutGroup) -> CalloutContext {
        CalloutContext(location: group.repeatingFrom ?? listener.location, heading: listener.heading,
                       headingKind: listener.headingKind, accuracy: listener.accuracy, inVehicle: listener.inVehicle,
                       isRepeat: group.repeatingFrom != nil, phrasing: phrasing, now: clock.now)
    }

    private func play(_ group: CalloutGroup) async {
        current = group
        let started = generation
        var live: Bool { generation == started }
        group.onStart()
        var completed = true
        if group.playModeSounds {
            completed = await play([.glyph(.modeEnter)], kind: .system, group: group, live: { live })
        }
        if completed, let prefix = group.prefix {
            completed = await play(prefix.render(context(for: group)), kind: prefix.kind, group: group, live: { live })
        }
        var remaining = completed ? group.callouts[...] : []
        while completed, let callout = remaining.popFirst() {
            let context = context(for: group)
            guard group.isWithinRegionToLive(callout, context) else {
                group.onCalloutSkipped(callout)
                continue
            }
            // A repeat is not said anew: "say the one before" walks back through what was said.
            if group.repeatingFrom == nil { history.record(callout) }
            guard await play(callout.render(context), kind: callout.kind, group: group, live: { live }) else {
                completed = false
                group.onCalloutSkipped(callout)
                break
            }
            if group.calloutDelay > 0 {
                await clock.sleep(for: .seconds(group.calloutDelay))
                if !live { completed = false }
            }
        }
        if !completed { for callout in remaining { group.onCalloutSkipped(callout) } }
        if completed && group.playModeSounds {
            completed = await play([.glyph(.modeExit)], kind: .system, group: group, live: { live })
        }
        current = nil
        group.onComplete(completed)
    }

    /// An utterance as the player gets it: where it is from the user now.
    private func item(_ utterance: Utterance, kind: CalloutKind, group: CalloutGroup) -> PlaybackItem {
        let origin = group.repeatingFrom ?? listener.location
        return PlaybackItem(utterance: utterance, kind: kind,
                            bearing: utterance.placement.bearing(from: origin, heading: listener.heading),
                            distance: utterance.placement.distance(from: origin),
                            time: clock.now, group: group.label)
    }

    /// Plays utterances in order; false as soon as one is cut off or the group was interrupted.
    private func play(_ utterances: [Utterance], kind: CalloutKind, group: CalloutGroup, live: () -> Bool) async -> Bool {
        for utterance in utterances where !(utterance.text.isEmpty && utterance.glyph == nil) {
            guard live() else { return false }
            guard await player.play(item(utterance, kind: kind, group: group)), live() else { return false }
        }
        return live()
    }
}
