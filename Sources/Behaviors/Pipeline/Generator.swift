import Callouts
import Foundation
import MapData

/// What a generator sees when it handles an event: the time, the user, the map and the settings. Built by
/// the ``EventProcessor`` for each event; used inside its isolation only.
public struct GeneratorContext {
    /// The pipeline clock's time when the event is handled.
    public var now: Date
    public var user: UserState
    public var map: SpatialDataView?
    public var settings: CalloutSettings
    public var phrasing: Phrasing
    public var beacon: BeaconState?
    public var markers: (any MarkerReader)?
    /// The callout history, oldest first (for "repeat").
    public var history: CalloutHistory
    /// The label of the callout group playing now, if any.
    public var playingLabel: String?
    /// The name of the active behavior and of its parents, innermost first.
    public var behaviorNames: [String]
    /// Phrase keys of the commands the custom behaviors add to "help".
    public var behaviorHelpKeys: [String] = []
    /// Posts an event into the processor later (from callout hooks, which run outside the processor).
    public var post: @Sendable (any Event) -> Void

    public var table: StringTable { phrasing.table }
    public var isCustomBehaviorActive: Bool { behaviorNames.count > 1 }
}

/// Turns user commands into callouts (spec §1.2). Generators are classes owned by a behavior; they keep their
/// own state and are only called from inside the processor.
public protocol ManualGenerator: AnyObject {
    func respondsTo(_ event: any UserInitiatedEvent) -> Bool
    func handle(_ event: any UserInitiatedEvent, context: GeneratorContext) -> HandledEventAction?
}

/// Turns state changes into callouts (spec §1.2).
public protocol AutomaticGenerator: AnyObject {
    /// True for safety-relevant generators whose callouts may interrupt others.
    var canInterrupt: Bool { get }
    func respondsTo(_ event: any StateChangedEvent) -> Bool
    func handle(_ event: any StateChangedEvent, context: GeneratorContext) -> HandledEventAction?
    /// Another generator announced this entity; do not announce it again.
    func cancelCallouts(for subject: String)
}

extension AutomaticGenerator {
    public var canInterrupt: Bool { false }
    public func cancelCallouts(for subject: String) {}
}

/// Identifies a generator type, for blocking.
public struct GeneratorID: Hashable, Sendable {
    let id: ObjectIdentifier
    public init(_ type: any AnyObject.Type) { id = ObjectIdentifier(type) }
}
