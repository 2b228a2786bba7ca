import Behaviors
import Callouts
import Foundation
import Geo

/// "Next waypoint", "previous waypoint", "stop route", "route progress", "how far to the end" (spec §7.3 manual controls). Handled by
/// ``RouteGuidanceBehavior`` while a route is active.
public struct RouteCommandEvent: UserInitiatedEvent {
    public enum Command: Sendable, Equatable { case next, previous, stop, progress, remaining }
    public var command: Command
    public init(_ command: Command) { self.command = command }
}

/// What route guidance needs done outside the pipeline. Called from inside the event processor, in order;
/// implementations hand the work on (the beacon lives in the ``DestinationManager`` actor) without blocking.
public protocol RouteGuidanceDelegate: Sendable {
    func routeSetBeacon(_ beacon: Beacon)
    func routeClearBeacon()
    /// The waypoint index or the visited set changed (to persist the progress).
    func routeStateChanged(_ state: RouteGuidanceState)
    /// The route was completed or stopped: the behavior should be deactivated.
    func routeEnded(_ state: RouteGuidanceState)
}

/// Route guidance as a custom behavior (spec §1.4, §7.3): feeds positions into ``RouteGuidanceState`` and,
/// for a planned route, into the maneuver ``AnnouncementScheduler``; speaks what they produce; blocks the
/// default beacon callouts (it speaks about the waypoints itself) and pauses automatic place callouts within
/// 40 m of a waypoint.
public final class RouteGuidanceBehavior: Behavior {
    public static let behaviorName = "RouteGuidance"
    private let generator: RouteGuidanceGenerator

    /// - Parameters:
    ///   - maneuvers, line: a planned route's maneuvers and its line (spoken turn by turn); empty for saved routes.
    ///   - currentLanguage: the user's language and units as they are now, when they can change during the route
    ///     (the next sentence follows the change); nil keeps `language`.
    public init(state: RouteGuidanceState, language: GuidanceLanguage, settings: GuidanceSettings,
                maneuvers: [Maneuver] = [], line: Polyline? = nil, delegate: any RouteGuidanceDelegate,
                currentLanguage: (@Sendable () -> GuidanceLanguage)? = nil) {
        var scheduler: AnnouncementScheduler?
        if !maneuvers.isEmpty {
            scheduler = AnnouncementScheduler(maneuvers: maneuvers, composer: AnnouncementComposer(language: language, settings: settings))
        }
        generator = RouteGuidanceGenerator(state: state, language: language, settings: settings, scheduler: scheduler,
                                           tracker: line.map(RouteProgressTracker.init(line:)), delegate: delegate,
                                           currentLanguage: currentLanguage)
        super.init(name: Self.behaviorName)
        let beacon = GeneratorID(BeaconCalloutGenerator.self)
        blockedAutoGenerators = [beacon]
        blockedManualGenerators = [beacon]
        manualGenerators = [generator]
        autoGenerators = [generator]
        generator.behavior = self
    }

    /// A planned route ("take me to"): its maneuver points and destination as waypoints, spoken by maneuvers.
    public convenience init(planned: PlannedGuidance, language: GuidanceLanguage, settings: GuidanceSettings,
                            delegate: any RouteGuidanceDelegate, currentLanguage: (@Sendable () -> GuidanceLanguage)? = nil) {
        let state = RouteGuidanceState(name: planned.place.name, waypoints: planned.waypoints, announceWaypoints: false)
        self.init(state: state, language: language, settings: settings, maneuvers: planned.maneuvers,
                  line: planned.route.polyline, delegate: delegate, currentLanguage: currentLanguage)
    }

    /// The route's progress (read inside the processor, or in tests).
    public var state: RouteGuidanceState { generator.state }
    public private(set) var autoCalloutsPaused = false

    func setAutoCalloutsPaused(_ paused: Bool) {
        autoCalloutsPaused = paused
        let auto = GeneratorID(AutoCalloutGenerator.self)
        if paused { blockedAutoGenerators.insert(auto) } else { blockedAutoGenerators.remove(auto) }
    }
}

final class RouteGuidanceGenerator: ManualGenerator, AutomaticGenerator {
    private(set) var state: RouteGuidanceState
    private(set) var language: GuidanceLanguage
    let settings: GuidanceSettings
    private(set) var scheduler: AnnouncementScheduler?
    let currentLanguage: (@Sendable () -> GuidanceLanguage)?
    var schedule = AnnouncementScheduler.State()
    var tracker: RouteProgressTracker?
    let delegate: any RouteGuidanceDelegate
    weak var behavior: RouteGuidanceBehavior?

    init(state: RouteGuidanceState, language: GuidanceLanguage, settings: GuidanceSettings, scheduler: AnnouncementScheduler?,
         tracker: RouteProgressTracker?, delegate: any RouteGuidanceDelegate, currentLanguage: (@Sendable () -> GuidanceLanguage)? = nil) {
        self.state = state
        self.currentLanguage = currentLanguage
        self.language = language
        self.settings = settings
        self.scheduler = scheduler
        self.tracker = tracker
        self.delegate = delegate
    }

    // MARK: manual

    func respondsTo(_ event: any UserInitiatedEvent) -> Bool {
        if let activated = event as? BehaviorActivatedEvent { return activated.behavior == RouteGuidanceBehavior.behaviorName }
        return event is RouteCommandEvent || event is BeaconCalloutEvent
    }

    func handle(_ event: any UserInitiatedEvent, context: GeneratorContext) -> HandledEventAction? {
        followLanguage()
        let here = context.user.location
        switch event {
        case is BehaviorActivatedEvent:
            return run(.start(at: here), context: context)
        case is BeaconCalloutEvent:
            return run(.calloutWaypoint(at: here), context: context)
        case let command as RouteCommandEvent:
            switch command.command {
            case .next: return run(.next(at: here), context: context, announceSkip: here)
            case .previous: return run(.previous(at: here), context: context, announceSkip: here)
            case .stop: return run(.stop, context: context)
            case .progress: return run(.progress, context: context)
            case .remaining: return run(.remaining(at: here), context: context)
            }
        default:
            return nil
        }
    }

    // MARK: automatic

    func respondsTo(_ event: any StateChangedEvent) -> Bool { event is LocationUpdatedEvent }

    func handle(_ event: any StateChangedEvent, context: GeneratorContext) -> HandledEventAction? {
        guard let location = event as? LocationUpdatedEvent, state.isActive else { return nil }
        followLanguage()
        let here = location.fix.coordinate
        var maneuvers: [GuidanceCallout] = []
        if let scheduler, var tracker {
            let along = tracker.update(here)
            self.tracker = tracker
            let (next, spoken) = scheduler.step(schedule, along: along, speed: location.fix.speed)
            schedule = next
            maneuvers = spoken.map { GuidanceCallout(kind: .maneuver, text: $0.rendered(settings.output), samples: $0.samples) }
        }
        return run(.location(here, speed: location.fix.speed), context: context, before: maneuvers)
    }

    /// Speaks in the user's language and units as they are now: a change made during the route ("speak
    /// German", "use imperial units") applies from the next sentence on; what was already announced stays announced.
    private func followLanguage() {
        guard let now = currentLanguage?(), now.code != language.code || now.units != language.units else { return }
        language = now
        if let old = scheduler {
            var renewed = AnnouncementScheduler(maneuvers: old.maneuvers, composer: AnnouncementComposer(language: now, settings: settings))
            renewed.nowLead = old.nowLead
            renewed.missedAfter = old.missedAfter
            renewed.immediateWindow = old.immediateWindow
            scheduler = renewed
        }
    }

    // MARK: effects

    /// - Parameter announceSkip: a planned route's waypoints are silent; skipping to one by hand still says where it is.
    private func run(_ event: RouteGuidanceState.Event, context: GeneratorContext, before: [GuidanceCallout] = [],
                     announceSkip here: Coordinate? = nil) -> HandledEventAction {
        let (next, effects) = RouteGuidanceState.reduce(state, event, language: language, settings: settings, now: context.now)
        let progressed = next.index != state.index || next.visited != state.visited || next.isActive != state.isActive
        var callouts = before
        if let here, !next.announceWaypoints, next.index != state.index, let w = next.current {
            callouts.append(GuidanceCallout(kind: .beaconSet, text: language("route.beacon_set", w.name, language.distance(here.distance(to: w.coordinate)),
                                                                             String(next.index + 1), String(next.waypoints.count)),
                                            location: w.coordinate, interrupts: true))
        }
        state = next
        var ended = false
        for effect in effects {
            switch effect {
            case .setBeacon(let beacon): delegate.routeSetBeacon(beacon)
            case .clearBeacon: delegate.routeClearBeacon()
            case .speak(let spoken): callouts += spoken
            case .pauseAutoCallouts(let paused): behavior?.setAutoCalloutsPaused(paused)
            case .completed, .stopped: ended = true
            }
        }
        if progressed { delegate.routeStateChanged(state) }
        if ended { delegate.routeEnded(state) }
        guard let group = GuidanceCallout.group(callouts, label: "route") else { return .noAction }
        return .playCallouts(group)
    }
}

extension GuidanceCallout {
    /// The callout for the pipeline: its text with its earcon, heard from its place.
    public var callout: Callout {
        let kind: CalloutKind = switch self.kind {
        case .beaconSet, .beaconDistance, .beaconInfo, .waypointArrival, .waypointDistance: .beacon
        case .marker: .marker
        default: .system
        }
        return .text(text, glyph: earcon.flatMap(Glyph.init(rawValue:)), placement: location.map { .localized($0) } ?? .standard,
                     kind: kind)
    }

    /// One group for the pipeline: it interrupts when any of them does; it waits the longest delay.
    public static func group(_ callouts: [GuidanceCallout], label: String) -> CalloutGroup? {
        guard !callouts.isEmpty else { return nil }
        return CalloutGroup(callouts.map(\.callout), action: callouts.contains(where: \.interrupts) ? .interruptAndClear : .enqueue,
                            label: label, calloutDelay: callouts.map(\.delay).max() ?? 0)
    }
}
