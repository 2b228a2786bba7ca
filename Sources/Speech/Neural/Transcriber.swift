/// What a free-text (neural) recognizer made of one utterance.
public struct Transcript: Sendable, Hashable, Codable {
    /// The words as the model wrote them (mixed case and punctuation as it gives them).
    public var text: String
    /// The mean log probability of the tokens written, when the model gives one (closer to 0 is surer).
    public var meanLogProbability: Double?
    /// How long the transcription took, in milliseconds (scoring included).
    public var milliseconds: Double
    /// How likely the model finds other texts for the same audio (``Transcriber/transcribe(_:prompt:scoring:)``),
    /// in the order they were asked for; empty when none were asked for or the model cannot score.
    public var scored: [ScoredText]
    /// Why the texts asked for were not scored, when they were not.
    public var scoringProblem: String?
    /// The likeliest sentences of those set by ``Transcriber/setSentences(_:)``, best first, each with its index in
    /// that set (``Transcriber/transcribe(_:prompt:searching:scoring:)``); empty when none were asked for.
    public var searched: [SearchedSentence]
    /// Why the sentences were not searched, when they were asked for and were not.
    public var searchProblem: String?

    public init(text: String, meanLogProbability: Double? = nil, milliseconds: Double = 0, scored: [ScoredText] = [],
                scoringProblem: String? = nil, searched: [SearchedSentence] = [], searchProblem: String? = nil) {
        self.text = text
        self.meanLogProbability = meanLogProbability
        self.milliseconds = milliseconds
        self.scored = scored
        self.scoringProblem = scoringProblem
        self.searched = searched
        self.searchProblem = searchProblem
    }
}

/// One of the sentences a transcriber found likeliest for an utterance: its index in the set it chose among, and
/// its score.
public struct SearchedSentence: Sendable, Hashable, Codable {
    public var index: Int
    public var scored: ScoredText

    public init(index: Int, scored: ScoredText) {
        self.index = index
        self.scored = scored
    }
}

/// A text and the log probability a neural recognizer gives it as the transcript of an utterance: the sum over its
/// tokens and the end of the text, so texts of the same utterance compare directly.
public struct ScoredText: Sendable, Hashable, Codable {
    public var text: String
    public var logProbability: Double
    /// The part of ``logProbability`` that is the end of the text coming there (low where the model expects more words,
    /// as Whisper does when it would repeat a short command).
    public var endLogProbability: Double
    /// Tokens summed, the end of the text included.
    public var tokens: Int

    public init(text: String, logProbability: Double, endLogProbability: Double = 0, tokens: Int) {
        self.text = text
        self.logProbability = logProbability
        self.endLogProbability = endLogProbability
        self.tokens = tokens
    }

    /// The mean log probability of the words' own tokens, without the end of the text.
    public var wordsMean: Double { (logProbability - endLogProbability) / Double(max(1, tokens - 1)) }
}

/// A second recognizer that writes down an utterance's words without a grammar (Whisper through whisper.cpp in the
/// product, a fake in unit tests). Blocking and CPU-bound: call it off the audio thread, one utterance at a time.
public protocol Transcriber: AnyObject, Sendable {
    /// Transcribes 16 kHz mono samples (−1…1). `prompt` lists words the utterance may contain (command words,
    /// names of places, markers and routes nearby), to bias the model toward them.
    func transcribe(_ samples: [Float], prompt: String) throws -> Transcript

    /// Transcribes, then scores the texts `candidates` names once it has seen the transcript (sentences of the
    /// grammar, written as the model writes: "Callouts off."), against the same audio: ``Transcript/scored``.
    /// A model that cannot score returns the transcript alone.
    func transcribe(_ samples: [Float], prompt: String, scoring candidates: (Transcript) -> [String]) throws -> Transcript

    /// Sets the sentences ``transcribe(_:prompt:searching:scoring:)`` chooses among: every sentence of the grammar as
    /// the model writes it. A model that cannot search ignores them.
    func setSentences(_ sentences: [String]) throws

    /// As ``transcribe(_:prompt:scoring:)``, and before the scores, the `searching` likeliest of the sentences set by
    /// ``setSentences(_:)`` (``Transcript/searched``): which sentence of the grammar the model finds was said, where
    /// its free transcript of a crowd may be none of them.
    func transcribe(_ samples: [Float], prompt: String, searching: Int, scoring candidates: (Transcript) -> [String]) throws -> Transcript
}

extension Transcriber {
    public func transcribe(_ samples: [Float], prompt: String, scoring candidates: (Transcript) -> [String]) throws -> Transcript {
        try transcribe(samples, prompt: prompt)
    }

    public func setSentences(_ sentences: [String]) throws {}

    public func transcribe(_ samples: [Float], prompt: String, searching: Int, scoring candidates: (Transcript) -> [String]) throws -> Transcript {
        try transcribe(samples, prompt: prompt, scoring: candidates)
    }
}
