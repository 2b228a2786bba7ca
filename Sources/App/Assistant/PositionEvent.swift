import Location

/// What the location feed tells the assistant.
public enum PositionEvent: Sendable, Equatable {
    /// A new position with how the user moves and where they face.
    case update(LocationUpdate)
    /// The position source went away or lost its fix (said once).
    case lost(reason: String)
    /// Fixes are arriving again.
    case restored
    /// A simulated walk reached its end.
    case walkEnded

    /// A position alone (a fixed place, a replayed walk without the location stage): motion and headings unknown.
    public static func fix(_ fix: LocationFix, motion: MotionState? = nil, headings: HeadingUpdate? = nil) -> PositionEvent {
        .update(LocationUpdate(fix: fix, motion: motion, headings: headings))
    }

    /// The fix, when this is a position.
    public var fix: LocationFix? {
        if case .update(let update) = self { return update.fix }
        return nil
    }
}

/// One location update as the location stage made it: the accepted fix, the motion state its speeds gave (the one
/// motion classifier, ``GeolocationManager``'s) and the headings resolved at that moment.
public struct LocationUpdate: Sendable, Equatable {
    public var fix: LocationFix
    /// nil: not known (no location stage, as in `say` and the demo).
    public var motion: MotionState?
    /// nil: no heading source has reported; the pipeline takes the fix's course while walking.
    public var headings: HeadingUpdate?

    public init(fix: LocationFix, motion: MotionState? = nil, headings: HeadingUpdate? = nil) {
        self.fix = fix
        self.motion = motion
        self.headings = headings
    }
}
