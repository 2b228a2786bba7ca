/// What the recognizer listens for, by the assistant's state. While the assistant is awake, "wake up" does
/// nothing, so it is left out of the search (words such as "wait" were taken for it).
///
/// While it is asleep (or snoozing) every event is ignored, so only waking it is listened for. Quitting was
/// listened for too at first, but then 12 of 190 ordinary sentences were taken for "quit" ("it's too cold",
/// "wait for me here"): with so few phrasings, a stray sentence has no rival close to it. A false wake only says
/// "Awake"; a false quit would end the program.
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

    /// The least confidence a command needs in this state, besides PocketSphinx's own threshold.
    ///
    /// Asleep, 0.8: the search then has one phrasing, so a stray sentence has no rival in it and only its fit
    /// can refuse it. A "wake up" refused costs saying it again; a false wake brings back the callouts.
    public var minimumConfidence: Double {
        switch self {
        case .awake: 0
        case .asleep: 0.8
        }
    }

    /// `confidence` as it decides in this state: its threshold raised to ``minimumConfidence``.
    public func deciding(_ confidence: AcousticConfidence) -> AcousticConfidence {
        var confidence = confidence
        confidence.threshold = max(confidence.threshold, minimumConfidence)
        return confidence
    }

    /// The state in which a command of this intent is meant to be said (``asleep`` for "wake up").
    public static func expected(for intent: Intent) -> ListeningState {
        ListeningState.awake.admits(intent) ? .awake : .asleep
    }
}
