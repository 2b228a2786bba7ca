import Location

/// What the location feed tells the assistant.
public enum PositionEvent: Sendable, Equatable {
    case fix(LocationFix)
    /// The position source went away or lost its fix (said once).
    case lost(reason: String)
    /// Fixes are arriving again.
    case restored
    /// A simulated walk reached its end.
    case walkEnded
}
