/// What a free-text (neural) recognizer made of one utterance.
public struct Transcript: Sendable, Hashable, Codable {
    /// The words as the model wrote them (mixed case and punctuation as it gives them).
    public var text: String
    /// The mean log probability of the tokens written, when the model gives one (closer to 0 is surer).
    public var meanLogProbability: Double?
    /// How long the transcription took, in milliseconds.
    public var milliseconds: Double

    public init(text: String, meanLogProbability: Double? = nil, milliseconds: Double = 0) {
        self.text = text
        self.meanLogProbability = meanLogProbability
        self.milliseconds = milliseconds
    }
}

/// A second recognizer that writes down an utterance's words without a grammar (Whisper through whisper.cpp in the
/// product, a fake in unit tests). Blocking and CPU-bound: call it off the audio thread, one utterance at a time.
public protocol Transcriber: AnyObject, Sendable {
    /// Transcribes 16 kHz mono samples (−1…1). `prompt` lists words the utterance may contain (command words,
    /// names of places, markers and routes nearby), to bias the model toward them.
    func transcribe(_ samples: [Float], prompt: String) throws -> Transcript
}
