import Location
import Speech

/// Everything the assistant is given, each kind once and typed: a command as the recognizer decided it (never its
/// words parsed again), a typed line, a location update, a heading change, a request from the control socket.
public enum AssistantInput: Sendable {
    /// A spoken command with the recognizers' evidence.
    case spoken(SpokenCommand)
    /// A typed line (terminal or `say`), parsed once by the grammar's ``IntentParser``.
    case typed(String)
    /// A fix with the motion state and headings of that moment, the signal lost or back, the end of a walk.
    case location(PositionEvent)
    /// The headings changed without a new fix (a head tracker turned, a compass, "I am facing north").
    case heading(HeadingUpdate)
    /// A request that came through the control socket.
    case control(ControlRequest)
}

/// A command as the voice input decided it: intent and slots (with the transcript's own words for a name in the
/// "text" slot) and what both recognizers made of the utterance.
public struct SpokenCommand: Sendable, Equatable {
    public var command: RecognizedCommand
    /// Both recognizers' words, the transcript and the decision; nil when PocketSphinx decided alone.
    public var evidence: TwoRecognizerReport?

    public init(_ command: RecognizedCommand, evidence: TwoRecognizerReport? = nil) {
        self.command = command
        self.evidence = evidence
    }
}

/// What a program other than the assistant may ask through the control socket besides push-to-talk.
public enum ControlRequest: Sendable, Equatable {
    /// A command written out ("command where am i"), handled as a typed one.
    case command(String)
}
