/// What the recognizer listens for, by the assistant's state. While the assistant is awake, "wake up" does
/// nothing, so it is left out of the search (words such as "wait" were taken for it).
///
/// While it is asleep (or snoozing) every event is ignored, so only waking it is listened for, not quitting:
/// with so few phrasings a stray sentence has no rival close to it, and a false quit would end the program,
/// where a false wake only says "Awake".
///
/// The intents come from the grammar's tags: a new phrasing of "wake up" in `Grammars/` is heard while asleep
/// without a change here.
public enum ListeningState: String, Sendable, CaseIterable {
    case awake
    case asleep

    /// Whether a command of this intent can be heard in this state.
    public func admits(_ intent: Intent) -> Bool {
        switch self {
        case .awake: intent != .wake
        case .asleep: intent == .wake
        }
    }

    /// The least confidence a command needs in this state, besides the rejection model's own threshold (0.5).
    ///
    /// Asleep, 0.8: with one phrasing in the search a stray sentence meets no rival and scores high, and a
    /// refused "wake up" costs only saying it again (the figures behind 0.8 are in docs/measurements.md).
    public var minimumConfidence: Double {
        switch self {
        case .awake: 0
        case .asleep: 0.8
        }
    }

    /// `model` as it decides in this state: its threshold raised to ``minimumConfidence``. Both the decision
    /// and ``ConfidenceModel/marginCanChange(_:)`` use it, so that the N-best margin is also weighed when it could
    /// lift a command over the floor, not only over the model's own threshold.
    public func deciding(_ model: ConfidenceModel) -> ConfidenceModel {
        var model = model
        model.threshold = max(model.threshold, minimumConfidence)
        return model
    }

    /// The state in which a command of this intent is meant to be said (``asleep`` for "wake up").
    public static func expected(for intent: Intent) -> ListeningState {
        ListeningState.awake.admits(intent) ? .awake : .asleep
    }
}
