import Callouts

/// A set of generators that handles events (spec §1.4). The default is ``SoundscapeBehavior``; one custom
/// behavior (route guidance, a tour, street preview) may be stacked on top of it. Events a custom behavior
/// does not handle go on to its parent, which then leaves out the generators the child blocks.
///
/// Subclass it for a custom behavior: add generators in `init`, list the default generator types to block, and
/// push it with ``EventProcessor/activateCustom(_:)``.
open class Behavior {
    public let name: String
    public var manualGenerators: [any ManualGenerator] = []
    public var autoGenerators: [any AutomaticGenerator] = []
    /// Generator types of the parents that must not get blockable events while this behavior is active.
    public var blockedManualGenerators: Set<GeneratorID> = []
    public var blockedAutoGenerators: Set<GeneratorID> = []
    public internal(set) var parent: Behavior?
    /// While asleep, the behavior ignores every event.
    public internal(set) var isSleeping = false

    public init(name: String) { self.name = name }

    /// Called just before the behavior becomes active.
    open func willActivate() {}
    /// Called just before the behavior stops being active.
    open func willDeactivate() {}
    /// Phrase-table keys of the commands this behavior adds to "help".
    open var helpKeys: [String] { [] }

    /// User-initiated: the first non-blocked manual generator that responds; otherwise the parent.
    func handle(_ event: any UserInitiatedEvent, context: GeneratorContext,
                blocked: Set<GeneratorID>) -> [HandledEventAction]? {
        guard !isSleeping else { return nil }
        for generator in manualGenerators {
            if event.blockable && blocked.contains(GeneratorID(type(of: generator))) { continue }
            guard generator.respondsTo(event) else { continue }
            if let action = generator.handle(event, context: context) { return [action] }
        }
        return parent?.handle(event, context: context, blocked: blocked.union(blockedManualGenerators))
    }

    /// State changes: broadcast → every responding generator here, then the parent; consumed → the first that
    /// responds here, else the parent.
    func handle(_ event: any StateChangedEvent, context: GeneratorContext,
                blocked: Set<GeneratorID>) -> [HandledEventAction] {
        guard !isSleeping else { return [] }
        var actions: [HandledEventAction] = []
        var responded = false
        for generator in autoGenerators {
            if event.blockable && blocked.contains(GeneratorID(type(of: generator))) { continue }
            guard generator.respondsTo(event) else { continue }
            responded = true
            if let action = generator.handle(event, context: context) { actions.append(action) }
            if event.distribution == .consumed { return actions }
        }
        if event.distribution == .broadcast || !responded {
            actions += parent?.handle(event, context: context, blocked: blocked.union(blockedAutoGenerators)) ?? []
        }
        return actions
    }

    /// Tells every automatic generator in the stack that `subject` was announced elsewhere.
    func cancelCallouts(for subject: String) {
        for generator in autoGenerators { generator.cancelCallouts(for: subject) }
        parent?.cancelCallouts(for: subject)
    }

    var stack: [Behavior] { [self] + (parent?.stack ?? []) }
}

/// The default behavior: Soundscape's generators, in Soundscape's order (it matters for consumed events).
public final class SoundscapeBehavior: Behavior {
    public init() {
        super.init(name: "Soundscape")
        let system = SystemGenerator()
        let exploration = ExplorationGenerator()
        let beacon = BeaconCalloutGenerator()
        let auto = AutoCalloutGenerator()
        let intersection = IntersectionGenerator()
        manualGenerators = [system, exploration, beacon, auto]
        autoGenerators = [intersection, system, beacon, auto]
    }
}
