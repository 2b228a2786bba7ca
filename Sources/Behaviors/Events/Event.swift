/// Something the pipeline reacts to (spec §1.1).
///
/// Events are either user-initiated (a command: delivered to the first manual generator that takes it) or
/// state changes (a new position, a lost GPS signal: delivered to the first automatic generator that takes
/// it, or to every one that does when the event is `broadcast`). A `blockable` event does not reach the
/// generators a custom behavior has blocked.
public protocol Event: Sendable {
    var blockable: Bool { get }
}

extension Event {
    public var blockable: Bool { true }
    /// The event's type name, for logs and tests.
    public var name: String { String(describing: type(of: self)) }
}

/// A direct user action; it normally interrupts what is being said.
public protocol UserInitiatedEvent: Event {}

/// Whether a state change goes to one generator or to all.
public enum EventDistribution: Sendable, Equatable {
    /// The first automatic generator that responds handles it.
    case consumed
    /// Every responding automatic generator handles it, and the parent behavior gets it too.
    case broadcast
}

/// A change of the user's situation or of the app's state.
public protocol StateChangedEvent: Event {
    var distribution: EventDistribution { get }
}

extension StateChangedEvent {
    public var distribution: EventDistribution { .consumed }
}
